/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_CM_INT_H
#define DPV_CM_INT_H

/*
 * Internals of our librdmacm.so.1. One process-wide lock (cm.lock)
 * guards every ID, device agent and event queue; one CM thread receives
 * MADs on each device's GSI QP and runs the retransmission timers.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "cm_mad.h"

#define CM_MAX_DEVS   8
#define CM_RECV_SLOTS 64
#define CM_SEND_SLOTS 64
#define CM_GRH_LEN    40
#define CM_MAX_GIDS   16

/* Per-device agent: the GSI QP and its buffers. */
struct cm_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;     /* the agent's own */
	struct ibv_pd *app_pd; /* default PD for rdma_create_qp(pd NULL) */
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_qp *qp; /* QPN 1 */
	struct ibv_mr *mr;
	uint8_t *buf; /* recv slots, then send slots */
	struct ibv_ah *send_ah[CM_SEND_SLOTS];
	bool send_busy[CM_SEND_SLOTS];
	union ibv_gid gid[CM_MAX_GIDS];
	int ngid;
	uint64_t guid;
	enum ibv_mtu mtu;
	bool app_progress; /* no progress thread: the CM thread polls */
};

enum cm_state {
	CS_IDLE,
	CS_ADDR_QUERY, /* resolving the neighbour */
	CS_ADDR_BOUND, /* bound or address resolved */
	CS_ROUTE,      /* route resolved */
	CS_LISTEN,
	CS_REQ_SENT,
	CS_REQ_RCVD, /* CONNECT_REQUEST given to the application */
	CS_REP_RCVD, /* CONNECT_RESPONSE given (no QP: rdma_establish) */
	CS_REP_SENT,
	CS_ESTABLISHED,
	CS_DREQ_SENT,
	CS_TIMEWAIT, /* disconnected; TIMEWAIT_EXIT when the timer ends */
	CS_DISCONNECTED,
	CS_SIDR_SENT,
	CS_UD_READY,
};

struct cm_chan;

/* A multicast group an ID joined (cm_mcast.c). */
struct cm_mc {
	struct cm_mc *next;
	struct sockaddr_storage addr;
	uint8_t mgid[16];
	void *context;
	bool send_only;
	bool attached;	   /* the QP below is attached to mgid */
	struct ibv_qp *qp; /* the ID's QP when attached */
};

struct cm_id {
	struct rdma_cm_id id; /* first: handed out */
	struct cm_id *next;
	struct cm_dev *dev;
	struct cm_chan *chan; /* NULL: synchronous ID */
	enum cm_state state;
	bool destroying;
	int events;	     /* undelivered/unacked events naming this ID */
	pthread_cond_t cond; /* events went to 0 / sync state change */

	int sgid_index;
	uint8_t sgid[16], dgid[16];
	uint32_t local_id, remote_id;
	uint64_t tid;
	uint32_t remote_qpn, remote_psn, local_psn, remote_qkey;
	uint8_t resp_res, init_depth, retry_count, rnr_retry;
	uint8_t ack_timeout, tos;
	bool ack_timeout_set, reuseaddr;
	bool bound; /* holds its port (rdma_bind_addr, resolve_addr) */
	enum ibv_mtu mtu;

	/* listener */
	struct cm_id *listener;
	int backlog, pending;

	/* retransmission of the last request-type MAD */
	uint8_t mad[CM_MAD_LEN];
	bool armed;
	int retries;
	uint64_t timeout_ns, deadline_ns;

	uint64_t addr_deadline_ns, addr_kick_ns;
	uint8_t remote_cm_timeout;

	struct ibv_sa_path_rec path;
	struct ibv_qp_init_attr *ep_qp_attr; /* rdma_create_ep listener */
	struct ibv_pd *ep_pd;
	int sync_err; /* synchronous IDs: result of the last operation */
	struct cm_mc *mcs; /* multicast groups joined */
	struct ibv_ece local_ece, remote_ece; /* as rdma-core keeps them */
	uint64_t timewait_ns;		      /* CS_TIMEWAIT ends */
};

struct cm_event {
	struct rdma_cm_event ev; /* first: handed out */
	struct cm_event *next;
	struct cm_chan *chan;
	uint8_t pdata[CM_SIDR_REQ_PDATA + 8];
	struct ibv_ah_attr ah_attr; /* UD param */
	bool complete_rep;	    /* ESTABLISHED of a REP: finish when read */
	struct cm_mc *join;	    /* MULTICAST_JOIN: attach when read */
};

struct cm_chan {
	struct rdma_event_channel ch; /* first: handed out */
	struct cm_event *head, *tail;
	bool internal;	     /* a synchronous ID's own */
	struct cm_id *owner; /* internal: that ID */
	bool dead;	     /* destroyed (kept: see cm_api.c) */
};

struct cm_global {
	pthread_mutex_t lock;
	struct cm_dev dev[CM_MAX_DEVS];
	int ndev;
	struct ibv_device **list;
	bool init_done;
	int init_err;
	struct cm_id *ids;
	pthread_t thread;
	bool thread_on;
	int wake[2];
	uint32_t next_comm_id;
	bool debug;
	bool stopping;
	uint64_t dropped; /* MADs dropped (malformed, unknown, stale) */
	uint64_t lap_refused; /* LAPs answered by an APR refusing them */
};

extern struct cm_global cm;

#define CM_LOG(...)                                                            \
	do {                                                                   \
		if (cm.debug)                                                  \
			fprintf(stderr, "dpv rdmacm: " __VA_ARGS__);           \
	} while (0)

/* cm_api.c, cm_agent.c: shared with rsockets (rs_int.h) */
void rs_event_channel_free(struct rdma_event_channel *channel);
bool cm_addr_any(const struct sockaddr *a);
socklen_t cm_addr_len(const struct sockaddr *a);
int cm_ud_qp_rts(struct ibv_qp *qp, uint32_t qkey);

/* cm_agent.c */
int cm_init(void); /* opens the devices once; errno-style */
uint64_t cm_now_ns(void);
int cm_send(struct cm_dev *d, const uint8_t *dgid, int sgid_index,
	    const uint8_t *mad);
void cm_arm(struct cm_id *c, uint8_t cm_timeout, int retries);
void cm_wake(void);
int cm_gid_index(struct cm_dev *d, const struct sockaddr *a);
void cm_addr_to_gid(const struct sockaddr *a, uint8_t gid[16]);
int cm_dev_find(const struct sockaddr *a, struct cm_dev **out, int *gidx);
bool cm_neigh_ready(struct cm_id *c);
void cm_fill_path(struct cm_id *c);

/* cm_conn.c: the state machine */
void cm_recv(struct cm_dev *d, const uint8_t *grh, const uint8_t *mad,
	     unsigned int len);
void cm_timeout(struct cm_id *c);
struct cm_event *cm_event_post(struct cm_id *c, enum rdma_cm_event_type type,
			       int status, const struct cm_msg *m,
			       unsigned int pdoff);
int cm_send_msg(struct cm_id *c, struct cm_msg *m, bool keep);
void cm_rep_complete(struct cm_event *e);
struct cm_id *cm_id_alloc(struct cm_chan *ch, void *ctx,
			  enum rdma_port_space ps, enum ibv_qp_type qpt);
void cm_ids_tick(void);
void cm_disconnected(struct cm_id *c, const struct cm_msg *m);
void cm_ece_init(struct cm_id *c);
int cm_qp_attr(struct cm_id *c, struct ibv_qp_attr *a, int *mask);
int cm_qp_to(struct cm_id *c, enum ibv_qp_state s);
void cm_qp_err(struct cm_id *c);
uint16_t cm_port_of(const struct sockaddr *a);
void cm_sync_event_drop(struct rdma_cm_id *id);
int cm_wait_sync(struct cm_id *c, enum rdma_cm_event_type want);

/* cm_mcast.c (under cm.lock) */
void cm_mc_join_read(struct cm_event *e); /* a join event is read */
void cm_mc_detach_all(struct cm_id *c);	  /* before its QP goes */
void cm_mc_leave_all(struct cm_id *c);	  /* the ID goes */

#endif /* DPV_CM_INT_H */
