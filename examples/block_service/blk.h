/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The block service's wire protocol and the helpers its server and client
 * share (blk_common.c). NVMe over Fabrics in miniature:
 *
 *  - The client SENDs a command capsule: READ or WRITE of `len` bytes at
 *    byte `offset` of the store, and where its own buffer is (`addr`,
 *    `rkey`). Only the client's buffers are ever exposed to the peer; the
 *    server's store has no remote access rights at all.
 *  - READ: the server RDMA WRITEs the block from its store into the
 *    client's buffer, then SENDs the response (RC delivers them in order,
 *    so the data has landed when the client sees the response).
 *  - WRITE: the server RDMA READs the block from the client's buffer into
 *    its store, waits for that READ to complete, then SENDs the response.
 *
 * All fields are little-endian (both ends here are x86 or the like; a
 * real protocol would fix the byte order explicitly, as NVMe does).
 */
#ifndef BLK_H
#define BLK_H

#include <stdint.h>

#include <infiniband/verbs.h>

#define BLK_MIN_IO   4096u	/* smallest block, and the alignment */
#define BLK_MAX_IO   (1u << 20) /* largest block: 1 MiB */
#define BLK_MAX_QD   16		/* commands in flight per connection */
#define BLK_PORT_NUM 1		/* verbs port */

enum blk_opcode {
	BLK_OP_READ = 1,
	BLK_OP_WRITE = 2,
	BLK_OP_BYE = 3, /* the client is done; the server exits */
};

enum blk_status {
	BLK_OK = 0,
	BLK_ERR_RANGE = 1,  /* offset/len outside the store or misaligned */
	BLK_ERR_OPCODE = 2, /* unknown opcode */
};

struct blk_cmd { /* client -> server, by SEND */
	uint16_t opcode;
	uint16_t cid; /* command id, echoed in the response */
	uint32_t len;
	uint64_t offset; /* byte offset into the store */
	uint64_t addr;	 /* client buffer */
	uint32_t rkey;
	uint32_t pad;
};

struct blk_rsp { /* server -> client, by SEND */
	uint16_t cid;
	uint16_t status;
	uint32_t pad;
};

/* What each side tells the other over TCP before any RDMA traffic. */
struct blk_hello {
	uint32_t qpn;
	uint32_t psn;
	uint32_t mtu; /* enum ibv_mtu */
	uint32_t pad;
	uint64_t store_size; /* server -> client; 0 from the client */
	uint8_t gid[16];
};

/* One open RC connection and the objects it needs. */
struct blk_conn {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int gid_index;
	int sock; /* TCP socket of the set-up exchange */
	struct blk_hello local, remote;
};

/*
 * A failed RDMA transfer (a bad rkey, say) moves the server's QP to the
 * error state: the server reports it and exits; the client gets an error
 * completion or, at worst, no response within 20 s.
 *
 * The data pattern: every 8-byte word of the store holds its own byte
 * offset in the low 40 bits and the generation of the write that put it
 * there in the high 24 bits. A block read back proves both where it came
 * from and that it is the latest version.
 */
static inline uint64_t
blk_pattern(uint64_t offset, uint32_t gen)
{
	return ((uint64_t)gen << 40) | (offset & ((1ull << 40) - 1));
}

/* Open the device, make PD, CQ and an RC QP in state INIT whose remote
 * access rights are `access`. Returns 0 or -1 (printed). */
int blk_open(struct blk_conn *c, const char *dev, int gid_index, int cqe,
	     int access);

/* TCP set-up: the server listens on port (host NULL), the client
 * connects; then both exchange their blk_hello. Returns 0 or -1. */
int blk_tcp_exchange(struct blk_conn *c, const char *host, int port);

/* INIT -> RTR -> RTS towards c->remote. Returns 0 or -1. */
int blk_connect(struct blk_conn *c);

/* Wait for one work completion, at most timeout_s seconds. Returns 1 with
 * *wc filled, 0 on timeout, -1 on a poll error. */
int blk_poll(struct blk_conn *c, struct ibv_wc *wc, double timeout_s);

/* Post one receive of len bytes. Returns 0 or an errno. */
int blk_post_recv(struct blk_conn *c, uint64_t wr_id, void *buf, uint32_t len,
		  uint32_t lkey);

/* Post one signaled SEND of len <= sizeof(struct blk_cmd) bytes, inline:
 * buf may be reused as soon as this returns. Returns 0 or an errno. */
int blk_post_send(struct blk_conn *c, uint64_t wr_id, const void *buf,
		  uint32_t len);

void blk_close(struct blk_conn *c);

double blk_now(void);

#endif
