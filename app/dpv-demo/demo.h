/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_DEMO_H
#define DPV_DEMO_H

/*
 * dpv-demo: an RC demo on the standard verbs API. One endpoint ("ep") is
 * one device context, PD, CQ, QP and one registered buffer. The client
 * drives every test; the server answers SENDs with an echo and keeps its
 * device making progress. The server lives in another process (memif) or
 * in the same process (--loopback); struct demo_peer hides which.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* Buffer layout of an endpoint (one MR covers all of it). */
#define DEMO_AREA     (1u << 20)       /* peer-visible target area */
#define DEMO_SRC_OFF  DEMO_AREA	       /* local source/destination */
#define DEMO_MSG_OFF  (2u * DEMO_AREA) /* SEND/RECV slots */
#define DEMO_MSG_SLOT 256u
#define DEMO_RQ_DEPTH 64u
#define DEMO_BUF_SIZE (DEMO_MSG_OFF + 2u * DEMO_RQ_DEPTH * DEMO_MSG_SLOT)
#define DEMO_SQ_DEPTH 128u
#define DEMO_CQ_DEPTH 512u

/* What one side tells the other to connect an RC QP. */
struct demo_conn {
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint32_t mtu; /* enum ibv_mtu of the port */
	uint64_t addr;
	uint8_t gid[16];
};

struct demo_ep {
	const char *name; /* "client" / "server" */
	bool serve;	  /* server: echo while waiting */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	int gid_index;
	uint32_t max_inline;
	uint32_t max_rd_atomic;
	enum ibv_mtu port_mtu;
	struct demo_conn local;
	unsigned rq_posted;   /* receives outstanding */
	unsigned sq_inflight; /* signaled sends not yet completed */
	uint64_t echoes;      /* server: SENDs echoed */
	uint64_t errors;      /* completions with an error status */
};

/* Control messages between the two processes. */
enum demo_msg_type {
	DEMO_MSG_CONN = 1, /* device up; struct demo_conn follows */
	DEMO_MSG_RTS,	   /* QP is in RTS */
	DEMO_MSG_CSUM,	   /* request: checksum of [a, a+b) / reply: val */
	DEMO_MSG_DONE,	   /* client: finished; server: bye (val = echoes) */
	DEMO_MSG_FAIL,	   /* the sender failed (val = errno) */
};

struct demo_msg {
	uint32_t type;
	uint32_t pad;
	uint64_t a, b, val;
	struct demo_conn conn;
};

/* The other side of the client. */
struct demo_peer {
	struct demo_ep *local; /* non-NULL: server endpoint in this process */
	int fd;		       /* control socket to the server process */
	int pid;	       /* server process spawned by us, or 0 */
	struct demo_conn conn;
};

struct demo_opts {
	bool loopback;
	bool quiet;
	const char *dev;    /* device name, NULL = first */
	int gid_index;	    /* -1 = automatic */
	double seconds;	    /* per bandwidth test */
	unsigned lat_iters; /* per latency test */
};

/* util (main.c) */
extern volatile int demo_stop; /* set by SIGINT/SIGTERM */
uint64_t demo_now_ns(void);
void demo_err(const char *who, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int demo_msg_send(int fd, const struct demo_msg *m);
/* Wait for a message, keeping the endpoint's device making progress.
 * 0, -ETIMEDOUT, -EPIPE (peer gone), -EINTR (stopped). */
int demo_msg_recv(int fd, struct demo_msg *m, struct demo_ep *progress,
		  double timeout_s);

/* endpoint (demo_ep.c) */
int demo_ep_open(struct demo_ep *ep, const char *name, const char *dev,
		 int gid_index);
int demo_ep_connect(struct demo_ep *ep, const struct demo_conn *remote);
void demo_ep_close(struct demo_ep *ep);
int demo_ep_post_recv(struct demo_ep *ep, unsigned slot);
void demo_fill(uint8_t *p, size_t len, uint64_t seed);
uint64_t demo_csum(const uint8_t *p, size_t len);
void demo_gid_str(const uint8_t gid[16], char *out, size_t len);
const char *demo_mtu_str(enum ibv_mtu m);

/* tests (demo_bench.c) */
int demo_server_step(struct demo_ep *ep);
int demo_server_run(struct demo_ep *ep, int fd);
int demo_client_run(struct demo_ep *ep, struct demo_peer *peer,
		    const struct demo_opts *o);

#endif /* DPV_DEMO_H */
