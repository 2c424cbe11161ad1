/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_RS_INT_H
#define DPV_RS_INT_H

/*
 * Internals of our rsockets (SOCK_STREAM over an RC QP), split between
 * rs_conn.c (sockets, connection set-up and tear-down, options),
 * rs_data.c (the data path, credits, rpoll) and rs_iomap.c (riomap,
 * riounmap, riowrite); SOCK_DGRAM over a UD QP in rs_dgram.c.
 *
 * Wire protocol, as librdmacm's rsockets define it (facts, not code):
 *  - each side owns a receive ring (rbuf) and hands the peer one half of
 *    it at a time as an SGE {addr, rkey, length};
 *  - data goes by RDMA WRITE WITH IMMEDIATE into the peer's ring; the
 *    immediate (big endian on the wire) is op << 29 | value, op 0 = data
 *    (value: bytes), 4 = SGL update (value: the sender's new credit
 *    limit, a 16-bit message sequence), 7 = control (0 disconnect,
 *    1 keepalive, 2 shutdown);
 *  - an SGL update writes the new SGE into the peer's "target SGL" (an
 *    array of two SGEs the peer registered for remote write), in the
 *    writer's host byte order unless the peer announced the other order;
 *  - the connect private data (rs_conn_data below, all big endian) gives
 *    the version (1), flags, the initial credits (the receive queue
 *    depth), the target SGL and the first data half;
 *  - direct writes: with RS_CONN_FLAG_IOMAP, the target SGL's memory
 *    goes on (same key) with an "iomap table" of target_iomap_size
 *    entries (an 8-bit scale: rs_iomap_size()), struct rs_iomap each.
 *    riomap(PROT_WRITE) takes a free entry of the peer's table and
 *    writes {offset, addr, key, length} into it by RDMA WRITE WITH
 *    IMMEDIATE, op 6, value = the entry's index (a message: it takes a
 *    credit; the receiver only notes it); riowrite() is a plain RDMA
 *    WRITE at the entry's address + (offset - entry offset): no
 *    immediate, the receiver is not told, a later message is ordered
 *    after it by the RC QP.
 */

#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define RS_SGL_N       2     /* entries of the target SGL */
#define RS_CTRL_N      4     /* control messages in flight */
#define RS_SNDLOWAT    2048  /* sending waits for this much buffer */
#define RS_OLAP_START  2048  /* first chunk of a large send */
#define RS_MAX_XFER    65536 /* largest single RDMA WRITE */
#define RS_DEF_QP      384   /* send / receive queue depth */
#define RS_DEF_INLINE  64
#define RS_DEF_BUF     (1u << 17)
#define RS_MIN_BUF     (4u * RS_SNDLOWAT)
#define RS_MAX_BUF     (1u << 26)
#define RS_MAX_FD      65536
#define RS_IOMAP_MAX   32512 /* largest iomap table the 8-bit scale names */
#define RS_FDS_MAX     3     /* fds a caller sleeps on per socket */

/* immediate data */
enum { RS_OP_DATA = 0, RS_OP_SGL = 4, RS_OP_IOMAP_SGL = 6, RS_OP_CTRL = 7 };
enum { RS_CTRL_DISCONNECT = 0, RS_CTRL_KEEPALIVE = 1, RS_CTRL_SHUTDOWN = 2 };
#define RS_IMM(op, v) ((uint32_t)(op) << 29 | ((uint32_t)(v)&0x1fffffffu))
#define RS_IMM_OP(m)  ((m) >> 29)
#define RS_IMM_VAL(m) ((m)&0x1fffffffu)

/* rs_conn_data.flags */
#define RS_CONN_FLAG_NET   0x1 /* the sender is big endian */
#define RS_CONN_FLAG_IOMAP 0x2 /* a direct-write map follows the SGL */

struct rs_sge {
	uint64_t addr;
	uint32_t key;
	uint32_t length;
};

struct rs_conn_data {
	uint8_t version; /* 1 */
	uint8_t flags;
	uint16_t credits; /* big endian */
	uint8_t reserved[3];
	uint8_t target_iomap_size;
	struct rs_sge target_sgl; /* length: number of entries */
	struct rs_sge data_buf;
};

/* An entry of an iomap table: a riomap()ed buffer of the table's owner's
 * peer, in the owner's byte order. length 0: free. */
struct rs_iomap {
	uint64_t offset;
	struct rs_sge sge;
};

_Static_assert(sizeof(struct rs_sge) == 16, "rs_sge is 16 bytes");
_Static_assert(sizeof(struct rs_conn_data) == 40, "rs_conn_data is 40 bytes");
_Static_assert(sizeof(struct rs_iomap) == 24, "rs_iomap is 24 bytes");

/* rs_conn_data.target_iomap_size: n <= 128 as is, else 0x80 | n >> 8
 * (multiples of 256 up to RS_IOMAP_MAX). */
static inline uint8_t
rs_iomap_scale(uint32_t n)
{
	if (n > RS_IOMAP_MAX)
		n = RS_IOMAP_MAX;
	return (uint8_t)(n <= 128 ? n : 0x80 | n >> 8);
}

static inline uint32_t
rs_iomap_size(uint8_t scale)
{
	return scale <= 128 ? scale : (uint32_t)(scale & 0x7f) << 8;
}

/* A buffer riomap() registered on a socket. */
struct rs_map {
	struct rs_map *next;
	struct ibv_mr *mr;
	uint64_t offset;
	int index; /* its entry in the peer's iomap table; -1: local only */
	bool told; /* written into that entry */
};

enum rs_state {
	RS_INIT,
	RS_BOUND,
	RS_LISTEN,
	RS_ADDR,    /* resolving the address */
	RS_ROUTE,   /* resolving the route */
	RS_CONNECT, /* REQ sent */
	RS_CONNECTED,
	RS_CLOSED, /* was connected; the QP is gone or unusable */
	RS_FAILED, /* the connect failed (err) */
};

/* A connect request a listener took off its channel. */
struct rs_pend {
	struct rs_pend *next;
	struct rdma_cm_id *id;
	struct rs_conn_data cd;
	bool ok; /* private data was a version-1 rs_conn_data */
};

struct ds_dest;

struct rs {
	int fd; /* the socket number: our event channel's fd */
	bool dgram; /* SOCK_DGRAM (rs_dgram.c) */
	pthread_mutex_t lk;
	/* the socket table's reference (until rclose()) and one per caller
	 * between rs_get() and rs_put(), under the table's lock: a caller
	 * that waits unlocked (rs_wait()) keeps the socket alive, and the
	 * last reference frees it */
	unsigned int refs;
	bool closed; /* rclose()d: waiters give up (EBADF) */
	/* callers asleep on the socket's fds (rs_wait(), rpoll()), and an
	 * eventfd among those fds that another caller writes when it takes
	 * an event from under them or changes what they wait for
	 * (rs_nudge()): their sleeps are long (rs_sleep_ms()) */
	unsigned int sleepers;
	int wfd;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	enum rs_state state;
	bool rd, wr;	/* may still receive / send */
	bool reset;	/* the transport failed: ECONNRESET */
	bool passive;	/* accepted (the REQ carried the peer's buffers) */
	int err;	/* SO_ERROR */
	int fl;		/* O_NONBLOCK */
	int backlog;
	struct rs_pend *pend, **pend_tail;
	int npend;

	/* options, fixed at connect */
	uint32_t sbuf_size, rbuf_size;
	uint16_t sq_size, rq_size, sq_inline;
	uint16_t iomap_size; /* RDMA_IOMAPSIZE: entries of our iomap table */
	int nodelay, reuseaddr, keepalive, keepidle, v6only;
	struct linger linger;

	/* verbs */
	struct ibv_pd *pd;
	struct ibv_comp_channel *cch;
	struct ibv_cq *cq;
	bool armed;
	/* the device runs only inside verbs calls (DPV_PROGRESS=app): a
	 * waiter's sleeps stay short, its polls move the traffic */
	bool app_progress;
	bool rx_seen; /* a receive completed since the last sleep */

	/* send side */
	uint8_t *sbuf; /* sbuf_size ring, then RS_CTRL_N SGE slots */
	struct ibv_mr *smr;
	uint32_t s_off, s_avail;
	int sqe_avail;
	unsigned int ctrl_seq, ctrl_max;
	uint16_t sseq_no, sseq_comp;
	volatile struct rs_sge *tsgl; /* the peer writes here */
	struct ibv_mr *tmr;
	int tsge;
	uint64_t rsgl_addr; /* the peer's target SGL */
	uint32_t rsgl_key, rsgl_n;
	int rsge;
	bool swap; /* the peer has the other byte order */

	/* direct writes: our iomap table follows tsgl (the peer writes its
	 * mappings there); our own mappings; the peer's table */
	volatile struct rs_iomap *tiomap;
	struct rs_map *maps; /* in riomap() order */
	int maps_untold;
	uint64_t riomap_addr;
	uint32_t riomap_n;    /* 0: the peer has no table */
	uint8_t *riomap_used; /* its entries our maps hold */

	/* liveness (rs_probe()): completions seen, the count and time of
	 * the last look, a probe in flight */
	uint32_t heard, heard_seen;
	uint64_t heard_ms;
	bool probing;

	/* receive side */
	uint8_t *rbuf;
	struct ibv_mr *rmr;
	uint32_t r_off, r_free_off, r_avail;
	uint32_t r_queued; /* bytes received and not read yet */
	/* protocol violations of the peer (rs_violation()); one happened:
	 * the connection resets once up */
	uint64_t violations;
	bool violated;
	uint16_t rseq_no, rseq_comp;
	uint32_t *rmsg; /* rq_size + 1 lengths (datagrams: slot << 16 | len) */
	int rm_head, rm_tail;

	/* datagram sockets: the UD QP and its device, the largest message
	 * (path MTU) and the bytes of a send or receive slot; free send
	 * slots (a stack), per slot the next one waiting for the same
	 * destination and its payload length; the destinations (a tree by
	 * address), the connected one; datagrams dropped
	 * (malformed, or not from the connected peer), receive slots lost
	 * to a failed QP */
	struct ibv_qp *dqp;
	struct ibv_context *dctx;
	uint32_t dmtu, dstride;
	uint16_t *dfree;
	int nfree;
	int *dnext;
	uint32_t *dlen;
	void *dtree;
	struct ds_dest *dconn;
	unsigned int ndests;
	uint64_t ddrops, drq_lost;
};

/* cm_api.c, cm_agent.c: shared with the CM (cm_int.h) */
void rs_event_channel_free(struct rdma_event_channel *channel);
bool cm_addr_any(const struct sockaddr *a);
socklen_t cm_addr_len(const struct sockaddr *a);
int cm_ud_qp_rts(struct ibv_qp *qp, uint32_t qkey);

/* rs_conn.c */
struct rs *rs_get(int fd);  /* referenced and locked, or NULL (EBADF) */
void rs_put(struct rs *rs); /* unlocks, drops the reference */
void rs_cm_step(struct rs *rs);
int rs_disconnect(struct rs *rs, int how);
int rs_copy_addr(struct sockaddr *dst, socklen_t *len,
		 const struct sockaddr *a);
void rs_free_ep(struct rs *rs);
int rs_verbs_init(struct rs *rs, struct ibv_context *ctx, enum ibv_qp_type t,
		  struct ibv_qp_init_attr *qa);

/* rs_data.c */
void rs_bufs_init(struct rs *rs);
int rs_ready(struct rs *rs, bool nonblock);
int rs_post_copy(struct rs *rs, const void *buf, uint32_t len, bool imm_on,
		 uint32_t imm, uint64_t raddr, uint32_t rkey);
uint32_t rs_chunk(struct rs *rs, uint32_t *olen, size_t left);
int rs_post_recvs(struct rs *rs, int n);
void rs_progress(struct rs *rs);
void rs_probe(struct rs *rs);
void rs_progress_cq(struct rs *rs);
short rs_revents(struct rs *rs, short events);
int rs_wait(struct rs *rs, bool (*test)(struct rs *), bool nonblock,
	    int max_ms);
bool rs_sends_done(struct rs *rs);
bool rs_ctrl_free(struct rs *rs);
int rs_post_ctrl(struct rs *rs, uint32_t imm);
void rs_drain_events(struct rs *rs);
int rs_sleep_ms(struct rs *rs);
int rs_fds(struct rs *rs, struct pollfd *p); /* RS_FDS_MAX at most */
void rs_sleep_end(struct rs *rs);
void rs_nudge(struct rs *rs);
uint64_t rs_now_ms(void);

/* rs_dgram.c (callers hold rs->lk) */
int ds_init(struct rs *rs);
int ds_bind(struct rs *rs, const struct sockaddr *addr);
int ds_ep(struct rs *rs, struct ibv_context *ctx);
void ds_cm_event(struct rs *rs, struct rdma_cm_event *e);
void ds_progress(struct rs *rs);
short ds_revents(struct rs *rs, short events);
ssize_t ds_sendmsg(struct rs *rs, const struct msghdr *m, int flags);
ssize_t ds_recvmsg(struct rs *rs, struct msghdr *m, int flags);
int ds_connect(struct rs *rs, const struct sockaddr *addr, socklen_t len);
int ds_peername(struct rs *rs, struct sockaddr *addr, socklen_t *len);
int ds_shutdown(struct rs *rs, int how);
void ds_close(struct rs *rs);
void ds_free(struct rs *rs);

/* rs_iomap.c */
int rs_iomap_flush(struct rs *rs, bool nonblock);
void rs_iomap_free(struct rs *rs);

#define RS_ERR(e) (errno = (e), -1)

#endif /* DPV_RS_INT_H */
