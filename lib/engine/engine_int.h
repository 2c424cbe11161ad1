/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_ENGINE_INT_H
#define DPV_ENGINE_INT_H

/*
 * Engine internals: the engine, its QP contexts, the engine's own copy of
 * work requests, the decoded packet, and the functions the parts share.
 * Only engine_*.c include this.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <pthread.h>
#include <sys/queue.h>

#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "dpv_engine.h"
#include "dpv_engine_opts.h"
#include "dpv_roce_hdr.h"
#include "dpv_roce_opcode.h"
#include "dpv_wr.h"
#include "dpv_tm.h"

extern int dpv_logtype_engine;
/*
 * DEBUG messages sit on the per-packet path: they cost a flag test unless
 * the engine log type was at DEBUG when the engine was created
 * (--log-level=dpv.engine:debug).
 */
extern bool dpv_engine_debug;
#define ENGINE_LOG(level, fmt, ...)                                            \
	do {                                                                   \
		if (RTE_LOG_##level < RTE_LOG_DEBUG ||                         \
		    unlikely(dpv_engine_debug))                                \
			rte_log(RTE_LOG_##level, dpv_logtype_engine,           \
				"engine: " fmt "\n", ##__VA_ARGS__);           \
	} while (0)

#define DPV_ENGINE_TX_BURST   64
#define DPV_ENGINE_DEF_BUDGET 32
/* READ response frames a QP sends at a request's arrival or in its turn
 * of a pass, at most: the rest waits for the QPs after it (one QP's 50
 * READs of 8 MiB, sent whole while the port took frames, kept 3 other
 * QPs' first responses back longer than their requesters' 67 ms ACK
 * timeout) */
#define DPV_ENGINE_RESP_BUDGET (2 * DPV_ENGINE_DEF_BUDGET)
#define DPV_ENGINE_MBUF_STASH 32

/* Opcodes and their flags: lib/roce's table (dpv_roce_opcode()). */
#define OPF(op) (dpv_roce_opcode(op)->mask)

/* AETH syndromes */
#define AETH_ACK	    0x00
#define AETH_RNR	    0x20
#define AETH_NAK	    0x60
#define AETH_TYPE_MASK	    0xe0
#define AETH_NAK_PSN_SEQ    0
#define AETH_NAK_INV_REQ    1
#define AETH_NAK_REM_ACCESS 2
#define AETH_NAK_REM_OP	    3
#define AETH_CREDIT_INVALID 0x1f /* what rxe sends: no credit information */
/* end-to-end credits: how far ahead of the next request an unlimited
 * (credit-invalid) peer's limit is kept (half the 24-bit compare range) */
#define CREDIT_FAR (1u << 22)

/* ------------------------------------------------------ decoded packet */

/*
 * The transport header fields after the BTH (and the BTH's own): what the
 * builder writes (struct dpv_ehdr, zero = absent) and what the parser
 * decodes (the same fields, inside struct dpv_epkt).
 */
#define DPV_EHDR_FIELDS                                                        \
	uint8_t opcode;                                                        \
	bool se, ackreq;                                                       \
	uint32_t dqpn, psn;                                                    \
	/* RETH / AtomicETH */                                                 \
	uint64_t va;                                                           \
	uint32_t rkey, dmalen;                                                 \
	uint64_t swap_add, compare;                                            \
	/* AETH / AtomicAckETH */                                              \
	uint8_t syndrome;                                                      \
	uint32_t msn;                                                          \
	uint64_t orig;                                                         \
	/* DETH */                                                             \
	uint32_t qkey, src_qp;                                                 \
	/* ImmDt (network order, as the wire and ibv_wc carry it) / IETH */   \
	uint32_t imm_be;                                                       \
	uint32_t ieth_rkey;                                                    \
	uint32_t xrc_srqn; /* XRCETH */                                        \
	uint64_t dc_key;   /* DCETH: access key, source DCI, connection */     \
	uint32_t dc_dci, dc_cpsn;

/* Header fields the builder writes after the BTH (zero = absent). */
struct dpv_ehdr {
	DPV_EHDR_FIELDS
};

/* A decoded packet: its transport headers (also readable as one struct
 * dpv_ehdr, pkt->hdr, e.g. to answer with the same fields), its payload
 * and its network headers. */
struct dpv_epkt {
	struct rte_mbuf *m;
	uint32_t flags; /* dpv_engine_opflags[opcode] */
	uint16_t pkey;
	union {
		struct {
			DPV_EHDR_FIELDS
		};
		struct dpv_ehdr hdr;
	};
	/* payload */
	uint8_t *payload;
	uint32_t paylen;
	/* network headers, for UD GRHs and replies */
	bool ipv4;
	uint8_t *l3; /* IPv4 or IPv6 header */
	uint8_t smac[6];
	uint8_t dmac[6];
	uint8_t sgid[16]; /* sender */
	uint8_t dgid[16];
	uint16_t udp_sport;
};

/* ------------------------------------------------- engine work requests */

enum dpv_eswqe_state {
	SWQE_FREE = 0,
	SWQE_PENDING, /* fetched, packets still to send */
	SWQE_SENT,    /* all packets out, waiting for the ACK/response */
	SWQE_DONE,    /* acknowledged: complete it in order */
	SWQE_ERROR,   /* complete with status, then QP to ERR */
};

/* A fetched send WQE as the requester and completer share it. */
/* Most send WQEs of a QP the engine holds at once (fetched from the ring,
 * not completed): 256 keep a 4 KiB-MTU link and an RTT of microseconds
 * busy; more would cost memory per QP (a slot is ~100 bytes + 24 per SGE)
 * and buy nothing. */
#define DPV_ENGINE_MAX_SWQE 256

struct dpv_eswqe {
	uint8_t state;	 /* enum dpv_eswqe_state */
	bool checked;	 /* local keys checked, host pointers valid */
	bool rewound;	 /* go-back-N: not sent again yet */
	/* sent again (go-back-N, RNR): its last packet asks for its ACK
	 * every time it goes (rewound ends at its first packet) */
	bool resend;
	/* DCI with streams, SWQE_ERROR: only its stream is in error (or
	 * it is flushed because its stream is) */
	bool stream_err;
	/* mlx5dv_qp_cancel_posted_send_wrs: completes, successfully,
	 * without being executed */
	bool canceled;
	uint32_t first_psn, last_psn, npkts;
	/* end-to-end credits: its sequence number (message-based: SSN;
	 * packet-based: last PSN), set with first_psn */
	uint32_t cseq;
	uint32_t sent;	  /* packets sent */
	uint32_t rd_skip; /* READ asked again: responses already here */
	uint32_t status;  /* enum ibv_wc_status when SWQE_ERROR */
	uint64_t orig;	  /* atomic: value returned */
	/* decoded by the ring (kept for retire); last: a QP's slots hold
	 * only the SGEs its send queue can carry (qp->max_sge), followed by
	 * as many checked process addresses (swqe_host()), then the READ or
	 * atomic result for the CQE (swqe_scat(): off the lines every WQE
	 * writes, which are this header, the first 64 bytes of wr and its
	 * SGEs) */
	struct dpv_wr wr;
};

/* A send WQE slot taken for a new WQE, whose wr is filled: its state set
 * for the requester (the ring clears what it decodes; the rest is here). */
static inline void
dpv_eswqe_start(struct dpv_eswqe *w)
{
	w->state = SWQE_PENDING;
	w->sent = 0;
	w->checked = false;
	w->npkts = 0;
	w->rd_skip = 0;
	w->rewound = false;
	w->resend = false;
	w->stream_err = false;
	w->canceled = false;
	w->status = IBV_WC_SUCCESS;
	w->orig = 0;
}

/* The receive WQE the responder is filling. */
struct dpv_erwqe {
	struct dpv_recv_wr wr;
	uint8_t *host[DPV_WR_MAX_SGE];
};

/* SGEs a receive queue's WQEs carry at most for their checked process
 * addresses to fit in the rest of sg_list[] (rwqe_host()) */
#define DPV_ERWQE_HOST_IN_SGL                                                  \
	(DPV_WR_MAX_SGE * sizeof(struct dpv_sge) /                             \
	 (sizeof(struct dpv_sge) + sizeof(uint8_t *)))

/*
 * The checked process address of each SGE of r, whose queue's WQEs carry
 * up to max_gs SGEs (the decoder writes no more): right after those SGEs
 * when they fit, so that a one-SGE WQE's SGE and address share a line
 * (with thousands of QPs, host[] was a line of its own a message), else
 * host[]. Relative to r: a copy of r keeps them.
 */
static inline uint8_t **
rwqe_host(struct dpv_erwqe *r, uint32_t max_gs)
{
	if (max_gs <= DPV_ERWQE_HOST_IN_SGL)
		return (uint8_t **)(void *)&r->wr.sg_list[max_gs];
	return r->host;
}

struct dpv_eqp;
void dpv_esge_copy_ind(struct dpv_eqp *qp, const struct dpv_sge *s,
		       uint64_t off, uint8_t *buf, uint32_t len, bool to_list);

/*
 * Copy len bytes between buf and the scatter list sge[0..nsge) mapped at
 * host[], from byte off of the list on: into the list if to_list (buf is
 * only read then), else out of it. Nothing past the list's end is copied.
 * An SGE of an indirect key (host DPV_KEY_HOST_INDIRECT) is copied piece
 * by piece through its layout (QP qp's key checks).
 */
static inline void
dpv_esge_copy(struct dpv_eqp *qp, const struct dpv_sge *sge,
	      uint8_t *const *host, uint32_t nsge, uint64_t off, uint8_t *buf,
	      uint32_t len, bool to_list)
{
	for (uint32_t i = 0; i < nsge && len; i++) {
		uint32_t l = sge[i].length;
		uint32_t n;

		if (off >= l) {
			off -= l;
			continue;
		}
		n = RTE_MIN(len, (uint32_t)(l - off));
		if (unlikely(host[i] == (uint8_t *)DPV_KEY_HOST_INDIRECT))
			dpv_esge_copy_ind(qp, &sge[i], off, buf, n, to_list);
		else if (to_list)
			dpv_engine_land(host[i] + off, buf, n);
		else
			memcpy(buf, host[i] + off, n);
		buf += n;
		len -= n;
		off = 0;
	}
}

/*
 * Where bytes [off, off + len) of the scatter list sge[0..nsge) mapped at
 * host[] lie, when they lie within one SGE of a directly mapped region
 * (dpv_esge_copy() without the copy); NULL otherwise.
 */
static inline uint8_t *
dpv_esge_direct(const struct dpv_sge *sge, uint8_t *const *host, uint32_t nsge,
		uint64_t off, uint32_t len)
{
	for (uint32_t i = 0; i < nsge; i++) {
		uint32_t l = sge[i].length;

		if (off >= l) {
			off -= l;
			continue;
		}
		if (len > l - off ||
		    host[i] == (uint8_t *)DPV_KEY_HOST_INDIRECT)
			return NULL;
		return host[i] + off;
	}
	return NULL;
}

/* ---------------------------------------------------------- QP context */

/* Responder resources per QP: the device's max_qp_rd_atom (128, as rxe
 * offers, so peers that ask for rxe's default connect). */
#define DPV_ENGINE_MAX_RD_ATOMIC 128

/* One executed READ or atomic, kept to answer its duplicates. */
struct dpv_eres {
	uint8_t kind;	      /* 0 free, 1 READ, 2 atomic, 3 ATOMIC WRITE
				 (done: an empty READ response) */
	uint8_t op;	      /* atomic: its opcode (low 5 bits) */
	bool todo;	      /* responses owed: READ frames from next on;
				 an atomic not executed yet */
	uint32_t first, last; /* PSN range of the request's responses */
	uint32_t next;	      /* READ: PSN of the next response to send */
	uint32_t msn;	      /* the MSN its responses carry */
	uint32_t rkey;
	uint64_t va;   /* READ: address of first's payload; atomic: target */
	uint64_t orig; /* atomic: the original value returned (not executed:
			  the compare operand) */
	union {
		uint64_t swap; /* atomic not executed: swap / add operand */
		uint32_t len;  /* READ: DMA length */
	};
};

/* A QP's Ethernet, IP and UDP headers, built once per path: a frame
 * copies them and writes its lengths, IPv4 identification and checksum. */
struct dpv_etmpl {
	uint8_t len;  /* bytes of headers; 0: no template yet */
	uint8_t l2;   /* Ethernet (+ VLAN) header bytes */
	bool ipv4;
	uint16_t csum; /* IPv4: one's complement sum of the constant words */
	uint8_t b[64]; /* the headers (copied whole), lengths zero */
};

/* A QP's ACK frame, whole: its PSN and AETH words zero
 * (dpv_engine_build_ack() writes the words and XORs their ICRC deltas
 * into the ICRC it has for that). Made from the QP's frame template,
 * which dpv_engine_qp_tmpl_set() drops it with (so that an ACK reads no
 * line of the frame template), and dropped with the QP's destination QP
 * number. Its length, Ethernet header bytes and ICRC sit on the
 * responder's line of the ACK state (struct dpv_eresp: ack_len, ack_l2,
 * ack_icrc), so that an untagged IPv4 ACK (62 bytes) reads one line of
 * the template. The PSN and AETH words are the last two before the ICRC:
 * their ICRC factors are the engine's (ack_k_psn, ack_k_aeth). */
struct dpv_eack {
	uint8_t b[96];
};
/* An ACK frame ends with its BTH, whose last word holds the PSN, its
 * AETH and its ICRC: where each starts, counted from the frame's end */
#define DPV_EACK_BTH_END 20
#define DPV_EACK_PSN_END 12
#define DPV_EACK_AETH_END 8

/* The last ACK a QP received by the full parse, for the next ones from
 * the same peer (dpv_engine_rx_ack_fast(), engine_wire.c): its bytes up to
 * its PSN word (its Ethernet, IPv4 and UDP headers and the BTH's first 8
 * bytes), and its ICRC with the PSN and AETH words zero. A frame that
 * repeats those bytes differs from it only in the two words, so their
 * ICRC deltas check it, and the parse's other checks hold for it as they
 * held for this one. The bytes are compared, not left to the ICRC: it
 * does not cover every header field (the IPv4 checksum, TTL), and a
 * forger can make any frame's ICRC whatever he likes. Untagged IPv4 or
 * IPv6 (by its length: dpv_engine_ack_len()). It lives in the free end
 * of a line of the QP (asserted below), as a QP that grew by a line ran
 * 10 % slower with 4,096 QPs (where its blocks fall in the caches); the
 * 20 bytes more of an IPv6 ACK's prefix in the hole after the ACK
 * template (struct dpv_eqp's rx_ack6). Dropped with the QP's path
 * (dpv_engine_qp_tmpl_set) and at reset. */
#define DPV_ERXACK_PREFIX (14 + 20 + 8 + 8)
#define DPV_ERXACK_PREFIX6 (14 + 40 + 8 + 8)
struct dpv_erxack {
	uint32_t icrc;	/* with the PSN and AETH words zero */
	uint8_t len;	/* the frame's bytes, ICRC in; 0: none */
	uint8_t misses; /* recorded and not matched since: at
			   DPV_ERXACK_MISSES no more are recorded */
	uint8_t b[DPV_ERXACK_PREFIX];
};
#define DPV_ERXACK_MISSES 8

/* Forget a QP's ACK reference (its path changed, or the QP was reset):
 * none recorded, recording on again. */
static inline void
dpv_erxack_drop(struct dpv_erxack *r)
{
	r->len = 0;
	r->misses = 0;
}

/*
 * The last one-packet request (RC SEND ONLY or RDMA WRITE ONLY, untagged
 * IPv4) a QP took by the full parse and the checks after it, for the next
 * ones from the same peer (dpv_engine_rx_req_fast(), engine_wire.c): its
 * length and its bytes up to the BTH's PSN word (Ethernet, IPv4 and UDP
 * headers, the BTH's first 8 bytes). A frame of the same length that
 * repeats those bytes, but for the IPv4 identification and checksum (a
 * sender may number its frames), passes every check of the parse and of
 * the receive path up to the responder as this one did (addresses,
 * lengths, opcode, pad, P_Key, QP), but the IPv4 checksum and the ICRC,
 * which are computed as the parse computes them. Recorded by every
 * request the full parse takes that is such a request (a QP whose sizes
 * change keeps the last one); dropped with the QP's path
 * (dpv_engine_qp_tmpl_set) and at reset. On a line of its own, the one
 * before the responder's state (struct dpv_eqp): read only when a request
 * comes. IPv6 requests take the full parse: their 70 bytes would take a
 * second line (measured slower with 4,096 QPs, see
 * doc/guides/performance.rst).
 */
#define DPV_ERXREQ_PREFIX DPV_ERXACK_PREFIX
/* where an untagged IPv4 RoCE frame's BTH starts */
#define DPV_ENGINE_BTH_OFF_IPV4                                                \
	(sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr) +          \
	 sizeof(struct rte_udp_hdr))
struct dpv_erxreq {
	uint16_t len; /* the frame's bytes, ICRC in; 0: none */
	uint8_t b[DPV_ERXREQ_PREFIX];
} __attribute__((aligned(64)));

/* the frame template's headers are copied whole into an ACK template */
_Static_assert(sizeof(((struct dpv_etmpl *)0)->b) <=
		       sizeof(((struct dpv_eack *)0)->b),
	       "an ACK template cannot hold its frame template's bytes");

#define SIGP_ERR  0x1
#define SIGP_HALT 0x2

struct dpv_eqp {
	/* ---- hot: read on every packet and every pass of the QP (the
	 * first three cache lines, asserted below) ---- */
	struct dpv_engine *e;
	uint32_t qpn;
	enum ibv_qp_type type;
	enum ibv_qp_state state;
	bool active;	 /* on the engine's run list */
	bool has_srq;
	bool sq_sig_all;
	bool sqd_notify; /* SQD: raise sq_drained once drained */
	uint8_t dc;	 /* 0, DPV_ENGINE_DC_DCI or DPV_ENGINE_DC_DCT */
	bool srcqpn;	 /* UD with a source QPN: wire_qpn is not qpn, and
			    it receives through its flows only */
	/* DPV_QP_OPT_SIG_PIPE: SIGP_ERR a signature error seen since the
	 * last fenced WQE started; SIGP_HALT the SQ stopped for it (SQD),
	 * no WQE starts until RTS */
	uint8_t sigp;
	/* a request came in once (dpv_engine_responder): before that, resp
	 * owes no ACK and its cache line is not read */
	bool resp_seen;
	uint32_t opts;	 /* DPV_QP_OPT_* (engine_opts.c) */
	struct dpv_mlx5_sq *sq;
	struct dpv_mlx5_rq *rq; /* rq or srq */
	struct dpv_mlx5_cq *scq, *rcq;
	/* dpv_engine_ack_cycles() of timeout, set with it (no 64-bit
	 * division each time the timer is armed, which a requester does
	 * for most messages) */
	uint64_t ack_cycles;

	/* send work: ring of nswqe slots (a power of 2) of swqe_size
	 * bytes each, sized by the SQ's SGE limit (max_sge) */
	uint8_t *swqe;
	uint32_t nswqe;
	uint32_t swqe_size;
	uint32_t max_sge;
	uint32_t s_head; /* next slot to fetch into */
	uint32_t s_cur;	 /* next WQE the requester sends from */
	uint32_t s_tail; /* oldest WQE not completed */

	struct {
		uint32_t psn;	 /* next PSN to assign */
		uint32_t rd_out; /* READ/ATOMIC WQEs sent, not completed */
		/* end-to-end credits (IBA 9.7.7.2, engine_req.c): a SEND or
		 * WRITE with immediate goes while its cseq is at most climit
		 * (one compare); beyond it credit_wait() decides */
		uint32_t climit;
		uint32_t ssn;	     /* SSN of the next message */
		uint32_t probe_cseq; /* cseq of the last probe counted */
		bool credit_open : 1;  /* peer sends no credits: no limit */
		bool credit_stall : 1; /* a stall was counted since the limit
					  last moved */
		/* RC messages sent since the last one that asked for its
		 * ACK (AckReq: dpv_engine_ackreq_want()), at most
		 * DPV_ENGINE_MAX_SWQE / DPV_ENGINE_ACKREQ_DIV */
		uint8_t noreq;
		/* and their packets (up to UINT16_MAX) */
		uint16_t noreq_pkts;
	} req;
	struct {
		uint32_t psn; /* next PSN expected in a response */
		uint8_t retry_left, rnr_left;
		bool recovering : 1; /* went back for a lost response */
		/* deadline is an ACK request probe's (engine_req.c's
		 * dpv_engine_req_probe()), not the retransmission timer */
		bool probe : 1;
		/* messages are being sent again (go-back-N, RNR): each asks
		 * for its ACK until the ACKs move on */
		bool resend_ask : 1;
		/* probes in a row the port had no room for (each tried
		 * again a probe's time later, up to DPV_ENGINE_PROBE_REFUSED;
		 * dpv_engine_comp_timeout()) */
		uint8_t probe_refused : 5;
		/* after going back for a lost response: READs/atomics to
		 * have outstanding at most (doubled per completion; 0: up to
		 * max_rd_atomic) */
		uint8_t rd_cap;
		uint64_t deadline;  /* retransmission timer (tsc), 0 = off */
		uint64_t rnr_until; /* RNR wait end (tsc), 0 = none */
	} comp;
	/* the data the next CQE carries (scatter to CQE), consumed by
	 * dpv_engine_cqe() */
	const uint8_t *cqe_scat;
	uint8_t cqe_scat_len;
	uint8_t timeout, retry_cnt, rnr_retry;
	/* credit_probes' low 32 bits (DPV_EQP_COUNT_HOT()) */
	uint32_t hot_credit_probes;
	uint32_t dest_qpn;
	uint32_t mtu;
	uint32_t pdn; /* every key check */
	/* the per-message counters' low 32 bits, on a line every packet
	 * reads anyway (st's line was one more miss a message on each side
	 * with thousands of QPs): DPV_EQP_COUNT_HOT() carries into st */
	uint32_t hot_rx_pkts, hot_acks_sent, hot_acks_rcvd;

	/* ---- the responder's ACK frame: an untagged IPv4 one on the line
	 * after the hot ones (asserted below), which the message that owes
	 * the ACK read ---- */
	struct dpv_eack ack_tmpl __attribute__((aligned(64)));
	/* an IPv6 ACK reference's bytes after rx_ack.b */
	uint8_t rx_ack6[DPV_ERXACK_PREFIX6 - DPV_ERXACK_PREFIX];

	/* ---- READs, atomics and RNR NAKs; DCT ---- */
	uint8_t min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	/* on a tag matching SRQ (dpv_eqp_tm()): the kind of the message being
	 * received (enum dpv_tm_msg, 0 none); in a hole, the QP's size is
	 * that of its lines (a tagged buffer's handle is rwqe's wqe_index) */
	uint8_t tm_kind;
	struct dpv_edct *dct; /* DCT (dc == DPV_ENGINE_DC_DCT): per-initiator
				 states */

	/* ---- each frame: its headers, the peer's address ---- */
	struct dpv_etmpl tmpl __attribute__((aligned(64))); /* path's frames */
	struct dpv_engine_path path;
	/* the application holds this QP's rings (mlx5dv/mlx4dv_init_obj):
	 * it may ring their doorbells without dpv_engine_qp_kick() */
	bool exposed;
	struct dpv_erxack rx_ack;

	/* per-QP counters: the ones of every message (rx_pkts, acks_sent,
	 * acks_rcvd) on its first line */
	struct dpv_engine_qp_stats st __attribute__((aligned(64)));

	/* ---- attributes (modify_qp) and identity ---- */
	uint32_t srqn;
	uint32_t xrcdn; /* XRC_RECV */
	uint32_t wire_qpn; /* DETH source QP of its sends (qpn, or the
			      source QPN of IBV_QP_CREATE_SOURCE_QPN) */
	uint32_t qkey;
	uint32_t access;
	bool block_self_mcast;
	/* Dynamically Connected (IBV_QPT_DRIVER, engine_dc.c) */
	bool dci_conn;		  /* DCI: a connection is current */
	uint32_t dc_cpsn;	  /* DCI: first PSN of the current connection */
	uint64_t dc_key;	  /* DCT: its key; DCI: the current target's */
	struct dpv_wr_ud dci_tgt; /* DCI: the current target */
	/* DCI with streams: the streams in error (dci_nerr of them; at
	 * dci_max_err the DCI goes to ERR); dci_max_err 0: no streams */
	uint8_t dci_max_err, dci_nerr;
	uint16_t dci_err[1u << DPV_ENGINE_DCI_MAX_LOG_ERRORED];
	/* TSC of the first ACK timeout in a row whose retransmission the
	 * port did not take (comp_port_stalled(); 0: none), and comp.psn
	 * then (an ACK since starts a new row) */
	uint64_t comp_stall_at;
	uint32_t comp_stall_psn;

	/* the last one-packet request taken (dpv_engine_rx_req_fast()):
	 * on the line before the responder's (asserted below). With
	 * thousands of QPs, at the QP's end it was a miss of its own a
	 * request; beside them the L2's prefetchers bring the responder's
	 * lines in with it (engine_perf, 4,096 QPs: +8 %) */
	struct dpv_erxreq rx_req;

	/* responder state (a DCT keeps one per initiator, engine_dc.c):
	 * its scalars first, on two cache lines (asserted below) */
	struct dpv_eresp {
		uint32_t epsn; /* next expected request PSN */
		uint32_t msn;
		bool nak_sent;	/* sequence NAK sent, waiting for epsn */
		bool have_rwqe; /* a receive WQE is being filled */
		bool drop_msg;	/* UC: rest of the message is dropped */
		uint8_t cur_op;	 /* message in progress: 1 SEND, 2 WRITE */
		uint8_t ack_syndrome; /* of the owed ACK */
		uint8_t res_n;	  /* res ring size in use (0: not built) */
		uint8_t res_head; /* next res entry to (re)use */
		uint8_t scat_len;
		/* responses owed (READ frames the port had no room for, and
		 * what came after them): res entries from out_i on with
		 * todo set, then the NAK held behind them (dnak_syn != 0) */
		bool out_pend;
		uint8_t out_i;
		uint8_t dnak_syn;
		uint32_t dnak_psn;
		/* the poll (e->poll_seq) of an application call in which the
		 * owed ACK arose and was held back (0: not held) */
		uint32_t ack_hold_seq;
		uint32_t wr_key;
		uint64_t ack_hold_at; /* TSC: when it was first held */
		uint32_t wr_len; /* DMA length of the WRITE in progress */
		/* the ACK template's (struct dpv_eack) frame bytes, ICRC in
		 * (0: none yet), and Ethernet (+ VLAN) header bytes */
		uint8_t ack_len, ack_l2;
		/* requests of ours awaited their ACK when the owed ACK was
		 * held (run_pass holds it a while longer for the reply) */
		bool ack_hold_req;
		uint64_t rcv_off; /* bytes placed in rwqe so far */
		uint8_t *wr_host; /* RDMA WRITE cursor (DPV_KEY_HOST_INDIRECT:
				   * through wr_key at wr_va) */
		uint64_t wr_va;
		uint64_t wr_left;
		struct dpv_ack_state ack;
		uint32_t ack_icrc; /* the ACK template's, both words zero */
		struct dpv_erwqe rwqe;
		/* scatter to CQE: the SEND being received, kept for its CQE */
		uint8_t scat[DPV_CQE_SCAT_MAX];
		/* READ/atomic responder resources: a ring of
		 * max_dest_rd_atomic entries answering duplicates */
		struct dpv_eres res[DPV_ENGINE_MAX_RD_ATOMIC];
	} resp __attribute__((aligned(64)));
};

/* what every packet reads lies on the first cache lines of the QP and of
 * its responder state */
_Static_assert(offsetof(struct dpv_eqp, rx_ack) / 64 ==
		       (offsetof(struct dpv_eqp, rx_ack) +
			sizeof(struct dpv_erxack) - 1) / 64,
	       "the ACK reference left its line");
_Static_assert(offsetof(struct dpv_eqp, st) ==
		       RTE_ALIGN_CEIL(offsetof(struct dpv_eqp, rx_ack) +
					      sizeof(struct dpv_erxack),
				      64),
	       "the ACK reference no longer fills the end of the path's line");
_Static_assert(offsetof(struct dpv_eqp, tmpl) ==
		       offsetof(struct dpv_eqp, ack_tmpl) + 2 * 64,
	       "the IPv6 ACK reference's tail outgrew the ACK template's hole");
_Static_assert(offsetof(struct dpv_eqp, ack_tmpl) == 3 * 64,
	       "the ACK template left the line after the hot ones");
_Static_assert(offsetof(struct dpv_eqp, pdn) < 3 * 64,
	       "a QP's hot fields outgrew three cache lines");
_Static_assert(offsetof(struct dpv_eqp, hot_acks_rcvd) < 3 * 64,
	       "the counters of every message left the hot lines");
_Static_assert(offsetof(struct dpv_eqp, ack_cycles) < 3 * 64 &&
		       offsetof(struct dpv_eqp, hot_credit_probes) < 3 * 64,
	       "the ACK timer's length or credit_probes left the hot lines");
_Static_assert(offsetof(struct dpv_eresp, ack_len) / 64 ==
			       offsetof(struct dpv_eresp, msn) / 64 &&
		       offsetof(struct dpv_eresp, ack_icrc) / 64 ==
			       offsetof(struct dpv_eresp, ack) / 64,
	       "an ACK's template fields left the lines its state is on");
_Static_assert(offsetof(struct dpv_eqp, resp) ==
		       offsetof(struct dpv_eqp, rx_req) + 64,
	       "the request reference left the line before the responder's");
_Static_assert(offsetof(struct dpv_eresp, rwqe) <= 2 * 64 &&
		       offsetof(struct dpv_eqp, resp) % 64 == 0,
	       "the responder's scalars outgrew two cache lines");

/* Whether the QP's state lets it take requests: RTR and on, not in error
 * (IBTA: RTR, RTS, SQD, SQE). */
static inline bool
dpv_engine_qp_takes_req(const struct dpv_eqp *qp)
{
	return qp->state == IBV_QPS_RTR || qp->state == IBV_QPS_RTS ||
	       qp->state == IBV_QPS_SQD || qp->state == IBV_QPS_SQE;
}

/* Whether the QP's state lets it take responses (ACKs, READ responses):
 * RTS or SQD, where its requests are outstanding. */
static inline bool
dpv_engine_qp_takes_resp(const struct dpv_eqp *qp)
{
	return qp->state == IBV_QPS_RTS || qp->state == IBV_QPS_SQD;
}

/* Whether the QP owes an ACK (its responder's line is read only once it
 * has received a request). */
static inline bool
dpv_engine_ack_owed(const struct dpv_eqp *qp)
{
	return qp->resp_seen && qp->resp.ack.pending;
}

/* Whether the QP's responder owes responses the port had no room for. */
static inline bool
dpv_engine_resp_owed(const struct dpv_eqp *qp)
{
	return qp->resp_seen && qp->resp.out_pend;
}

/* Scatter to CQE, responder: a whole SEND of 1..32 bytes (opcode flags
 * fl, payload len) goes into the receive CQE. */
static inline bool
dpv_scat_resp(const struct dpv_eqp *qp, uint32_t fl, uint32_t len)
{
	return (qp->opts & DPV_QP_OPT_SCAT_RESP) &&
	       (fl & DPV_OPF_ONLY) == DPV_OPF_ONLY && len > 0 &&
	       len <= DPV_CQE_SCAT_MAX;
}

/* Scatter to CQE, requester: the result of this READ / atomic goes into
 * its send CQE (signalled WQEs only: an unsignalled one has no CQE). */
static inline bool
dpv_scat_req(const struct dpv_eqp *qp, const struct dpv_wr *w)
{
	if (!(qp->opts & DPV_QP_OPT_SCAT_REQ) ||
	    (w->flags & DPV_WR_F_INTERNAL) ||
	    !(qp->sq_sig_all || (w->flags & DPV_WR_F_SIGNALED)))
		return false;
	if (w->opcode == IBV_WR_RDMA_READ)
		return w->total_len > 0 && w->total_len <= DPV_CQE_SCAT_MAX;
	return w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

/* A counter kept both per engine and per QP (per_qp 1 in the list). */
#define DPV_EQP_COUNT(qp, n)                                                   \
	do {                                                                   \
		(qp)->e->st.n++;                                               \
		(qp)->st.n++;                                                  \
	} while (0)

/* A per-QP counter whose low 32 bits are kept on the QP's hot lines
 * (hot_NAME): st.NAME holds the carries; dpv_engine_qp_stats_get() adds
 * the two. */
#define DPV_EQP_INC_HOT(qp, n)                                                 \
	do {                                                                   \
		if (unlikely(++(qp)->hot_##n == 0))                            \
			(qp)->st.n += UINT64_C(1) << 32;                       \
	} while (0)

/* DPV_EQP_COUNT() of such a counter. */
#define DPV_EQP_COUNT_HOT(qp, n)                                               \
	do {                                                                   \
		(qp)->e->st.n++;                                               \
		DPV_EQP_INC_HOT(qp, n);                                        \
	} while (0)

/* --------------------------------------------------------------- engine */

#define DPV_ENGINE_NEIGH 64

/* A learned neighbour: IP (as a GID) -> MAC. */
struct dpv_eneigh {
	uint8_t gid[16];
	uint8_t mac[6];
	bool valid;
	uint64_t tsc;
};

/* One key_lookup answer (conf.key_version): valid while *snp == sn. */
struct dpv_ekcache {
	uint32_t key; /* 0: empty (key 0 is never live) */
	uint32_t sn;
	const uint32_t *snp;
	bool live; /* key_lookup answered true */
	struct dpv_engine_key k;
};

#define DPV_EKCACHE_SIZE 16 /* a power of 2 */
extern const uint32_t dpv_ekcache_never; /* snp of an empty entry */

/* compressed CQs holding CQEs an engine writes at the end of its poll */
#define DPV_ENGINE_HELD_MAX 16

struct dpv_engine {
	rte_spinlock_t lock;
	/* a post found the lock taken (dpv_engine_progress_post): the poll
	 * that held it may have scanned before the post's doorbell. Set by
	 * the poster, cleared by the next poll that scans; a background
	 * poller that sees it after its poll polls again. Beside the lock:
	 * both sides have the line already */
	uint32_t post_missed;
	/* compressed CQs (dpv_mlx5_cq_compress) that hold CQEs not written
	 * yet; dpv_engine_held_commit() writes them */
	struct dpv_mlx5_cq *held[DPV_ENGINE_HELD_MAX];
	unsigned int nheld;
	/* callers waiting in dpv_engine_lock(): polls that only try the lock
	 * (progress thread, workers, post paths) stand back while any wait,
	 * so a control command is not starved by a poller that takes the
	 * lock again the moment it drops it */
	uint32_t lock_waiters;
	struct dpv_port *port;
	uint16_t rxq, txq;
	struct rte_mempool *mp;
	struct rte_ring *loop; /* internal loopback wire (port == NULL) */
	/* shards: frames other shards of the device received for QPs this
	 * one owns (or, on the home shard, for no QP of theirs) */
	struct rte_ring *fwd;
	bool home;		/* takes what no QP of a shard takes */
	uint8_t mac[6];
	uint8_t gid[16]; /* UD source GID without a port */
	uint16_t ip_id;
	uint32_t mbuf_room; /* bytes of data room per mbuf */

	struct dpv_engine_key *keys;
	uint32_t max_keys;
	/* any thread: a kick was lost (ring full) or a receive WQE was
	 * posted in ERR: the next poll starts a sweep (scan_doorbells) */
	uint32_t rescan;

	/* QPN -> QP: a direct-mapped table on the QPN's low bits (the verbs
	 * layer numbers QPs so that live ones never share them), and a hash
	 * for the QPNs whose slot is taken (other users of the engine) */
	struct dpv_eqp **qpn_tab;
	uint32_t qpn_mask;
	uint32_t n_over; /* QPs in qp_hash */
	uint32_t n_srcqpn; /* UD QPs with a source QPN (engine_raw.c steers
			      the frames for their numbers) */
	uint32_t nexposed; /* QPs with exposed set: scanned every poll */
	/* every post kicks its QP (dpv_engine_set_posts_kick): no doorbell
	 * scan, however few QPs (any thread reads it) */
	bool posts_kick;
	/* scan_always() of the QP counts and posts_kick above, kept by
	 * scan_mode_set() as they change */
	bool scan_all;
	struct rte_hash *qp_hash;
	struct dpv_eqp **qps; /* owned QPs */
	uint32_t nqps, max_qps;
	/* run list: the QPs that have work (a packet arrived, a timer or an
	 * ACK is pending, WQEs are outstanding); the others are found by a
	 * kick or by the doorbell scan of a slice of qps[] per poll (with
	 * kicks, only in sweeps when a timer may be due: sweep_at) */
	struct dpv_eqp **run;
	uint32_t nrun;
	uint32_t run_pos; /* where the run list's next pass starts */
	uint32_t scan_pos;
	uint32_t sweep_left; /* QPs the current sweep still visits (0: none) */
	/* QPNs whose SQ was posted to (dpv_engine_qp_kick(), any thread),
	 * put on the run list by the next poll: with more QPs than a scan
	 * slice, the doorbell scan alone would find them late */
	struct rte_ring *kick;
	struct raw_state *raw; /* raw-packet QPs and flows (engine_raw.c) */
	uint64_t now; /* TSC at the start of the current poll */
	/* TSC of the next read of the device's kernel interface (frames the
	 * kernel sends); UINT64_MAX: the device has none */
	uint64_t netdev_next;
	bool netdev; /* the device has a kernel interface */
	uint64_t last_post;	 /* TSC of the last timed post */
	uint64_t burst_off_until; /* TSC: posts are not held back before */
	uint32_t posts_unpolled; /* posts since the last poll */
	uint32_t posts_unbuilt;	 /* posts of a burst not built yet */
	uint32_t poll_seq;	 /* polls so far (never 0 in a poll) */
	bool ack_hold;		 /* this poll holds back new ACKs */
	bool ack_hold_on;	 /* application polls hold back new ACKs */
	bool polled;		 /* a poll ran since the last post */
	/* the last run pass left a QP's requests unsent for want of budget
	 * (a message of more frames than DPV_ENGINE_DEF_BUDGET) */
	bool req_more;
	bool poll_bg;		 /* this poll is a background thread's */
	uint8_t bursts_late_run; /* bursts found late in a row */
	uint64_t acks_held_at;	 /* TSC of the last poll that held one */
	uint64_t rx_at;		 /* TSC of the last poll's receive pass */
	uint64_t app_rx_at;	 /* the same, not a background thread's */
	/* the last data frame received was a WRITE's FIRST or a MIDDLE one:
	 * more of it is on its way; and the last poll wrote a CQE with
	 * rx_mid set at its end (dpv_engine_poll_left_mid()) */
	bool rx_mid;
	bool mid_cqe;

	struct rte_mbuf *tx[DPV_ENGINE_TX_BURST];
	uint16_t ntx;
	/* mbufs taken from the pool in bulk for the frames built next
	 * (dpv_engine_mbuf()): one pool call per DPV_ENGINE_MBUF_STASH */
	uint16_t nstash;
	uint64_t busy_at; /* TSC of the last poll that found work */
	uint64_t kick_at; /* TSC of the last transmit burst or kick */
	struct rte_mbuf *stash[DPV_ENGINE_MBUF_STASH];
	unsigned work;		   /* work done in this iteration */
	uint32_t loss_n, loss_cnt; /* fault injection */
	bool tx_stall;		   /* fault injection: the port takes nothing */
	bool tx_refused;	   /* the last flush left frames the port
				      would not take */
	pthread_t thread;
	bool thread_on;
	volatile bool thread_stop;
	unsigned idle_us;
	uint64_t hz;
	/* TSC cycles between kicks of an af_xdp port (1/KICK_DIV s), and
	 * since the last work for a poll to kick (10 ms) */
	uint64_t kick_gap, busy_gap;
	bool port_kicks; /* dpv_port_tx_kicks() of the port */
	/* dpv_roce_icrc_word_factor() of an ACK's PSN word (the AETH
	 * follows) and of its AETH (the ICRC follows) */
	uint32_t ack_k_psn, ack_k_aeth;

	/* as given to dpv_engine_create(): its key, event and lookup hooks */
	struct dpv_engine_conf conf;
	struct dpv_ekcache kcache[DPV_EKCACHE_SIZE]; /* conf.key_version */

	struct dpv_eneigh neigh[DPV_ENGINE_NEIGH];
	uint64_t neigh_next_query; /* UD: rate limit of ARP/ND queries */

	struct dpv_engine_stats st;

	/* scan_doorbells(): with more QPs than one slice and none exposed,
	 * posts kick their QP and the scan is wanted only for the timers of
	 * QPs off the run list. It then runs as sweeps (all QPs once, a
	 * slice per poll), the next at sweep_at: the earliest timer a QP had
	 * when it left the run list or the last sweep saw (a lower bound),
	 * and 1/SWEEP_DIV s after the last at the latest. */
	uint64_t sweep_at;
	uint64_t sweep_min; /* the earliest timer the current sweep saw */

	/* TSC of the earliest end of a CQ moderation period this engine
	 * watches (UINT64_MAX: none), read by every poll; other shards may
	 * lower it. Those CQs. (engine_cqmod.c) */
	uint64_t cqmod_next;
	TAILQ_HEAD(, dpv_mlx5_cq) cqmod;
	/* TSC cycles of DPV_ENGINE_PROBE_US (a test shortens it) */
	uint64_t probe_cycles;
	/* DPV_ENGINE_ACKREQ_PKTS (a test lowers it) */
	uint32_t ackreq_pkts;
	/* DPV_ENGINE_RESP_BUDGET (a test lowers it) */
	uint32_t resp_budget;

	/* raw-packet flows installed: the other shards read it for every
	 * frame, so it has a line of its own (it changes with flows only) */
	uint32_t raw_flows __rte_cache_aligned;
};

/* engine.c */
struct dpv_eqp *dpv_engine_qp_lookup_over(struct dpv_engine *e,
					  uint32_t qpn);

/* An mbuf for a frame to build (engine lock held), reset as
 * rte_pktmbuf_alloc() leaves it; NULL if the pool has none. Taken from
 * the pool DPV_ENGINE_MBUF_STASH at a time: a pool call per mbuf (and the
 * lcore lookup in it) was ~3 % of a 64 B ib_write_bw client. */
static inline struct rte_mbuf *
dpv_engine_mbuf(struct dpv_engine *e)
{
	if (unlikely(e->nstash == 0)) {
		if (rte_pktmbuf_alloc_bulk(e->mp, e->stash,
					   DPV_ENGINE_MBUF_STASH) != 0)
			return rte_pktmbuf_alloc(e->mp); /* the pool's last */
		e->nstash = DPV_ENGINE_MBUF_STASH;
	}
	/* the next one's header on its way: a frame's first write to it
	 * (rte_pktmbuf_append) was a miss with thousands of QPs, whose
	 * frames in flight cycle through more mbufs than the cache holds */
	if (likely(e->nstash > 1))
		rte_prefetch0_write(e->stash[e->nstash - 2]);
	return e->stash[--e->nstash];
}

/* A received frame the engine is done with: back into the stash when it
 * can be built into as it is (one direct segment of the engine's pool, no
 * other reference), else freed. The next frame built then goes into lines
 * still in cache, and the pool is called neither to free it nor to take
 * one back. */
static inline void
dpv_engine_mbuf_recycle(struct dpv_engine *e, struct rte_mbuf *m)
{
	if (likely(e->nstash < DPV_ENGINE_MBUF_STASH && m->pool == e->mp &&
		   m->nb_segs == 1 && RTE_MBUF_DIRECT(m) &&
		   rte_mbuf_refcnt_read(m) == 1)) {
		rte_pktmbuf_reset(m);
		e->stash[e->nstash++] = m;
		return;
	}
	rte_pktmbuf_free(m);
}

/* The QP numbered qpn, or NULL. */
static inline struct dpv_eqp *
dpv_engine_qp_lookup(struct dpv_engine *e, uint32_t qpn)
{
	struct dpv_eqp *qp = e->qpn_tab[qpn & e->qpn_mask];

	if (likely(qp != NULL && qp->qpn == qpn))
		return qp;
	return e->n_over ? dpv_engine_qp_lookup_over(e, qpn) : NULL;
}

/* ------------------------------------------------ tag matching (engine_tm.c)
 */

/* The kind of message a QP on a tag matching SRQ is receiving (tm_kind). */
enum dpv_tm_msg {
	DPV_TM_MSG_NONE = 0,
	DPV_TM_MSG_EAGER_HDR,  /* EAGER into a tagged buffer, its header
				  not skipped yet */
	DPV_TM_MSG_MATCHED,    /* EAGER into a tagged buffer */
	DPV_TM_MSG_UNEXPECTED, /* tagged, unmatched: an ordinary WQE */
	DPV_TM_MSG_NO_TAG,     /* untagged: an ordinary WQE */
	DPV_TM_MSG_RNDV,       /* a matched RNDV request: dropped, the engine
				  reads the data */
};

/* The tag matching state of an RC QP on a tag matching SRQ, else NULL
 * (the SRQ ring's; asked only of QPs on an SRQ in the data path). */
struct dpv_tm *dpv_eqp_tm(const struct dpv_eqp *qp);

/* The buffer of the message whose first packet pkt is: a tagged one
 * (1; -2 if its key refused it), or 0: an ordinary receive WQE is to be
 * taken (qp->tm_kind says which kind of delivery). */
int dpv_engine_tm_take(struct dpv_eqp *qp, const struct dpv_epkt *pkt);
/* An ordinary WQE was taken for the message tm_take() answered 0 for. */
void dpv_engine_tm_ordinary(struct dpv_eqp *qp);
/* Place a packet's payload of a message of a TM SRQ (the header of an
 * EAGER's first packet skipped); 0, or -1 if it overflows the buffer. */
int dpv_engine_tm_place(struct dpv_eqp *qp, const uint8_t *src, uint32_t len);
/* The message received into a TM SRQ's buffer is complete (st): its
 * completion, the responder's buffer released. */
void dpv_engine_tm_recv_done(struct dpv_eqp *qp, enum ibv_wc_status st,
			     uint32_t len, uint32_t imm, unsigned int flags);
/* A request of the engine's own (DPV_WR_F_INTERNAL) for tagged buffer h,
 * its READ or its FIN, completed with st. */
void dpv_engine_tm_wr_done(struct dpv_eqp *qp, uint32_t h, bool read,
			   enum ibv_wc_status st);
/* QP qp is destroyed: the tagged buffers it had taken are free. */
void dpv_engine_tm_qp_gone(struct dpv_eqp *qp);
/* Place len bytes at the responder's offset in its receive buffer (0;
 * -1 if they overflow it). */
int dpv_engine_resp_place(struct dpv_eqp *qp, const uint8_t *src, uint32_t len);

/* Put a QP on the run list (engine lock held). */
static inline void
dpv_engine_qp_activate(struct dpv_eqp *qp)
{
	if (!qp->active) {
		qp->active = true;
		qp->e->run[qp->e->nrun++] = qp;
	}
}
void dpv_engine_tx(struct dpv_engine *e, struct rte_mbuf *m);
/* dpv_engine_tx() of a frame whose ICRC is already in */
void dpv_engine_tx_ready(struct dpv_engine *e, struct rte_mbuf *m);
/* dpv_engine_tx() of the frame m (from dpv_engine_build*()) with n bytes
 * from src copied to its payload at p first: long payloads are copied in
 * the ICRC's pass (dpv_roce_icrc_set_copy_l2()) */
void dpv_engine_tx_copy(struct dpv_engine *e, struct rte_mbuf *m, uint8_t *p,
			const void *src, uint32_t n);
/* dpv_engine_tx_flush() of frames that are queued (e->ntx != 0) */
void dpv_engine_tx_out(struct dpv_engine *e);
/* Send the queued frames; what the port does not take stays queued. */
static inline void
dpv_engine_tx_flush(struct dpv_engine *e)
{
	/* most polls have nothing queued: no call */
	if (e->ntx != 0)
		dpv_engine_tx_out(e);
}
/* Room for one more frame in the transmit batch (a full batch is sent
 * first). */
static inline bool
dpv_engine_tx_room(struct dpv_engine *e)
{
	if (unlikely(e->ntx == DPV_ENGINE_TX_BURST))
		dpv_engine_tx_out(e);
	return e->ntx < DPV_ENGINE_TX_BURST;
}
enum dpv_key_status dpv_engine_key_access(struct dpv_engine *e,
					  struct dpv_eqp *qp, uint32_t key,
					  uint64_t va, uint64_t len,
					  uint32_t need, void **host);
/* engine_key.c: any key, indirect ones too (host may then be
 * DPV_KEY_HOST_INDIRECT: copy with dpv_engine_key_copy()) */
enum dpv_key_status dpv_engine_key_access_ind(struct dpv_engine *e,
					      struct dpv_eqp *qp, uint32_t key,
					      uint64_t va, uint64_t len,
					      uint32_t need, void **host);
/* Copy len bytes between buf and [va, va + len) of key (any key), into
 * the memory if to_mem; checked as dpv_engine_key_access_ind(). */
enum dpv_key_status dpv_engine_key_copy(struct dpv_eqp *qp, uint32_t key,
					uint64_t va, uint8_t *buf,
					uint64_t len, uint32_t need,
					bool to_mem);
/* Walk [va, va + len) of indirect key k's layout (no signature): copy
 * dir > 0 from buf into the memory, dir < 0 out of it, 0 only checks. */
enum dpv_key_status dpv_engine_key_walk(struct dpv_eqp *qp,
					const struct dpv_engine_key *k,
					uint64_t va, uint8_t *buf, uint64_t len,
					uint32_t need, int dir);
/* A local SGE taken (its key checked, host DPV_KEY_HOST_INDIRECT): a
 * signature key's SGE goes from data to wire bytes, *total with it. */
enum dpv_key_status dpv_engine_key_sig_take(struct dpv_eqp *qp,
					    struct dpv_sge *sge,
					    uint64_t *total);
/* engine_sig.c: the SGE of signature key k in wire bytes (its data
 * addresses whole blocks inside the key); the copy through k in wire
 * coordinates (as dpv_engine_key_walk()); a block's guard. */
enum dpv_key_status dpv_sig_span(const struct dpv_engine_key *k,
				 struct dpv_sge *sge, uint64_t *total);
enum dpv_key_status dpv_sig_walk(struct dpv_eqp *qp,
				 const struct dpv_engine_key *k, uint64_t va,
				 uint8_t *buf, uint64_t len, uint32_t need,
				 int dir);
uint64_t dpv_sig_guard(uint8_t kind, uint32_t seed, const uint8_t *data,
		       uint32_t len);
/* The 8 bytes an atomic at va of key works on: host itself for a direct
 * key, else the address in the entry holding them; NULL if they are not
 * 8-aligned in one entry of a live, writable region. */
void *dpv_engine_key_atomic(struct dpv_eqp *qp, uint32_t key, uint64_t va,
			    void *host);
/* IBV_WR_DRIVER1 (indirect key configuration) in send-queue order. */
enum ibv_wc_status dpv_engine_key_config(struct dpv_eqp *qp,
					 const struct dpv_wr *w);
void dpv_engine_qp_to_err(struct dpv_eqp *qp);
void dpv_engine_qp_send_error(struct dpv_eqp *qp);
int dpv_engine_key_invalidate(struct dpv_engine *e, uint32_t key, uint32_t pdn,
			      uint32_t qpn, bool remote);
enum ibv_wc_status dpv_engine_key_bind(struct dpv_engine *e, struct dpv_eqp *qp,
				       const struct dpv_wr_bind *b);
/* dpv_engine_cqe()'s wc_flags: the message received was solicited (its
 * last packet's BTH had the SE bit): a CQ armed for solicited
 * completions only raises its event for it */
#define DPV_ENGINE_CQE_SOLICITED (1u << 30)
int dpv_engine_cqe(struct dpv_eqp *qp, bool recv, uint16_t wqe_idx,
		   enum ibv_wc_status status, enum ibv_wc_opcode opcode,
		   uint32_t byte_len, uint32_t imm_be, uint32_t src_qp,
		   unsigned wc_flags);
uint64_t dpv_engine_now(void);

/* engine_wire.c */
enum dpv_roce_rx_status dpv_engine_parse(struct rte_mbuf *m,
					 struct dpv_epkt *pkt);
/* the same with DPV_ROCE_PARSE_* flags; DPV_ENGINE_PARSE_SLOW: the full
 * parser only (a test compares the two) */
#define DPV_ENGINE_PARSE_SLOW (1u << 31)
enum dpv_roce_rx_status dpv_engine_parse_flags(struct rte_mbuf *m,
					       struct dpv_epkt *pkt,
					       uint32_t flags);
/* An RC ACK that repeats the bytes of the last one its QP received by the
 * full parse (struct dpv_erxack) but for its PSN and AETH, with a good
 * ICRC, for an RC QP of this engine in RTS or SQD: the QP, and pkt's transport
 * fields, l3 and udp_sport filled (not its MACs and GIDs: the completer
 * reads none); else NULL (the full parse decides). */
struct dpv_eqp *dpv_engine_rx_ack_fast(struct dpv_engine *e,
				       struct rte_mbuf *m,
				       struct dpv_epkt *pkt);
/* the length of an untagged IPv4 or IPv6 ACK frame
 * (dpv_engine_rx_ack_fast looks at no other) */
#define DPV_ENGINE_ACK_LEN4 (14 + 20 + 8 + 12 + 4 + 4)
#define DPV_ENGINE_ACK_LEN6 (14 + 40 + 8 + 12 + 4 + 4)
static inline bool
dpv_engine_ack_len(uint32_t len)
{
	return len == DPV_ENGINE_ACK_LEN4 || len == DPV_ENGINE_ACK_LEN6;
}
/* The RC ACK m, which the full parse and the receive checks accepted for
 * qp, as the reference of dpv_engine_rx_ack_fast() */
void dpv_engine_rx_ack_note(struct dpv_eqp *qp, const struct rte_mbuf *m);
/* A one-packet request that repeats its QP's reference (struct
 * dpv_erxreq) with a good ICRC: its QP (RTR, RTS, SQD or SQE), pkt
 * decoded but for the addresses; NULL: the full parse decides. */
struct dpv_eqp *dpv_engine_rx_req_fast(struct dpv_engine *e,
				       struct rte_mbuf *m,
				       struct dpv_epkt *pkt);
/* pkt, which the full parse and the receive checks took for qp, as its
 * reference if it is such a request. */
void dpv_engine_rx_req_note(struct dpv_eqp *qp, const struct dpv_epkt *pkt);
struct rte_mbuf *dpv_engine_build(struct dpv_engine *e,
				  const struct dpv_engine_path *path,
				  const struct dpv_etmpl *t,
				  const struct dpv_ehdr *h, uint32_t paylen,
				  uint8_t **payload);
/* BTH and extension-header bytes dpv_engine_build_req() copies whole */
#define DPV_ENGINE_REQ_HDR 32
/* A request frame on the QP's header template t (set, t->len != 0):
 * Ethernet to UDP from t, then the hlen bytes of BTH and extension
 * headers at hdr (DPV_ENGINE_REQ_HDR bytes are copied: the payload
 * overwrites the rest), paylen bytes of payload to write at *payload, the
 * pad zeroed. NULL without an mbuf. dpv_engine_tx() finishes it. */
struct rte_mbuf *dpv_engine_build_req(struct dpv_engine *e,
				      const struct dpv_etmpl *t,
				      const uint8_t hdr[DPV_ENGINE_REQ_HDR],
				      uint32_t hlen, uint32_t paylen,
				      uint8_t **payload);
void dpv_engine_tmpl_set(struct dpv_etmpl *t,
			 const struct dpv_engine_path *path);
/* The QP's frame template from its path, and its ACK template dropped
 * (remade at the next ACK): how a QP's templates change. */
void dpv_engine_qp_tmpl_set(struct dpv_eqp *qp);
void dpv_engine_finish(struct rte_mbuf *m);
/* An ACK of qp from its ACK template (made or remade here); NULL without
 * an mbuf, or *no_tmpl set when the QP cannot have one (dpv_engine_build
 * then). The frame is complete, ICRC in: dpv_engine_tx_ready() sends it. */
struct rte_mbuf *dpv_engine_build_ack(struct dpv_eqp *qp, uint8_t syndrome,
				      uint32_t psn, bool *no_tmpl);
uint32_t dpv_engine_max_payload(struct dpv_engine *e,
				const struct dpv_engine_path *path,
				uint8_t opcode);

/* engine_neigh.c */
/* ARP / ND: learn the sender; answer for the device's addresses.
 * Whether m was ARP / ND. */
bool dpv_engine_rx_neigh(struct dpv_engine *e, struct rte_mbuf *m);
/* A frame the RoCE parser refused (why): ARP / ND, the kernel interface,
 * or a counted drop. */
void __attribute__((noinline))
dpv_engine_rx_other(struct dpv_engine *e, struct rte_mbuf *m,
		    enum dpv_roce_rx_status why);
/* Send what the kernel wrote to the device's interface (a bounded
 * batch); the next read is due at e->netdev_next. */
void __attribute__((noinline)) dpv_engine_netdev_pass(struct dpv_engine *e);
bool dpv_engine_neigh_cached(struct dpv_engine *e, const uint8_t gid[16],
			     uint8_t mac[6]);
int dpv_engine_neigh_query(struct dpv_engine *e, const uint8_t gid[16]);

/* engine_req.c */
void dpv_engine_requester(struct dpv_eqp *qp, unsigned *budget);
void dpv_engine_sq_fetch(struct dpv_eqp *qp);

/* engine_dc.c */
int dpv_engine_dc_create(struct dpv_eqp *qp,
			 const struct dpv_engine_qp_init *init);
void dpv_engine_dc_free(struct dpv_eqp *qp);
void dpv_engine_dc_reset(struct dpv_eqp *qp);
void dpv_engine_dct_rx(struct dpv_eqp *qp, struct dpv_epkt *pkt);
void dpv_engine_dct_forget(struct dpv_eqp *qp);
bool dpv_engine_dci_target(struct dpv_eqp *qp, const struct dpv_eswqe *w);
bool dpv_engine_dci_stream_fail(struct dpv_eqp *qp, struct dpv_eswqe *w,
				enum ibv_wc_status st);
bool dpv_engine_dci_stream_flush(struct dpv_eqp *qp, struct dpv_eswqe *w);
int dpv_engine_ud_path(struct dpv_eqp *qp, const struct dpv_wr_ud *ud,
		       struct dpv_engine_path *p);

/* engine_credit.c */
void dpv_engine_credit_init(struct dpv_eqp *qp);
bool dpv_engine_credit_wait(struct dpv_eqp *qp, const struct dpv_eswqe *w);
uint8_t dpv_engine_credit_adv(const struct dpv_eqp *qp);

/* engine_resp.c */
void dpv_engine_responder(struct dpv_eqp *qp, struct dpv_epkt *pkt);
void dpv_engine_ack_flush(struct dpv_eqp *qp);
/* engine_resp.c: send the responses a QP owes while the port has room
 * and *budget lasts (frames); forget them (the QP leaves RTS, a DCT
 * unloads the initiator) */
void dpv_engine_resp_output(struct dpv_eqp *qp, unsigned *budget);
void dpv_engine_resp_drop_owed(struct dpv_eqp *qp);
void dpv_engine_resp_reset(struct dpv_eqp *qp);

/* engine_mcast.c */
void dpv_engine_rx_mcast(struct dpv_engine *e, struct dpv_epkt *pkt);

/* engine_comp.c */
void dpv_engine_completer(struct dpv_eqp *qp, struct dpv_epkt *pkt);
/* the QP's ACK timer expired: retransmit, or fail the WQE when its
 * retries are spent (dpv_engine_comp_timers()) */
void dpv_engine_comp_timeout(struct dpv_eqp *qp, uint64_t now);
/* dpv_engine_comp_drain() of a QP with WQEs fetched and not completed */
void dpv_engine_comp_drain_out(struct dpv_eqp *qp);

/* The QP's retransmission timer: handled when due (most calls, from each
 * run-list visit, find it not due: no call then). */
static inline void
dpv_engine_comp_timers(struct dpv_eqp *qp, uint64_t now)
{
	if (qp->comp.deadline != 0 && now >= qp->comp.deadline)
		dpv_engine_comp_timeout(qp, now);
}

/* Complete finished WQEs in order; an error moves the QP to ERR (SQE on
 * UD and UC: dpv_engine_qp_send_error()). No call when none is
 * outstanding. */
static inline void
dpv_engine_comp_drain(struct dpv_eqp *qp)
{
	if (qp->s_tail != qp->s_cur)
		dpv_engine_comp_drain_out(qp);
}
void dpv_engine_sq_flush(struct dpv_eqp *qp);
void dpv_engine_sq_flush_send(struct dpv_eqp *qp);

/*
 * The ACK timer in TSC cycles: 4.096 us * 2^timeout, but at least
 * DPV_ENGINE_MIN_ACK_TIMEOUT_NS: a software responder's round trip takes
 * longer than the shortest IBA timeouts (rxe's timer has jiffy
 * granularity for the same reason).
 */
#define DPV_ENGINE_MIN_ACK_TIMEOUT_NS 1000000ull
static inline uint64_t
dpv_engine_ack_cycles_of(const struct dpv_engine *e, uint8_t timeout)
{
	uint64_t ns = dpv_ack_timeout_ns(timeout);

	if (ns < DPV_ENGINE_MIN_ACK_TIMEOUT_NS)
		ns = DPV_ENGINE_MIN_ACK_TIMEOUT_NS;
	return ns * e->hz / 1000000000ull;
}

/* engine_cqmod.c: completion event moderation. Watch cq's moderation
 * period (eng_mod_run set; e locked, the CQ's writer state held); look
 * at the CQs watched whose period ended (a poll, at cqmod_next); let go
 * of every CQ watched (the engine goes). */
void dpv_engine_cqmod_watch(struct dpv_engine *e, struct dpv_mlx5_cq *cq);
void dpv_engine_cqmod_pass(struct dpv_engine *e);
void dpv_engine_cqmod_fini(struct dpv_engine *e);

/* the QP's, as its timeout was set */
static inline uint64_t
dpv_engine_ack_cycles(const struct dpv_eqp *qp)
{
	return qp->ack_cycles;
}

/* Reliable transports: RC, both XRC halves and DC (IBV_QPT_DRIVER). */
static inline bool
eqp_reliable(const struct dpv_eqp *qp)
{
	return qp->type == IBV_QPT_RC || qp->type == IBV_QPT_XRC_SEND ||
	       qp->type == IBV_QPT_XRC_RECV || qp->type == IBV_QPT_DRIVER;
}

/* Transport bits of the QP's opcodes. */
static inline uint8_t
eqp_tr(const struct dpv_eqp *qp)
{
	switch (qp->type) {
	case IBV_QPT_UC:
		return DPV_ROCE_TR_UC;
	case IBV_QPT_UD:
		return DPV_ROCE_TR_UD;
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
		return DPV_ROCE_TR_XRC;
	case IBV_QPT_DRIVER:
		return DPV_ROCE_TR_DC;
	default:
		return DPV_ROCE_TR_RC;
	}
}

/* End-to-end credits count packets (DPV_QP_OPT_CREDIT_PKT), not messages. */
static inline bool
eqp_credit_pkt(const struct dpv_eqp *qp)
{
	return qp->opts & DPV_QP_OPT_CREDIT_PKT;
}

/* The operations that take a READ/atomic credit and wait for a response
 * (READ, the atomics, ATOMIC WRITE): one bit test. */
static inline bool
wr_rd_atomic(enum ibv_wr_opcode op)
{
	const uint32_t m =
		1u << IBV_WR_RDMA_READ | 1u << IBV_WR_ATOMIC_CMP_AND_SWP |
		1u << IBV_WR_ATOMIC_FETCH_AND_ADD | 1u << IBV_WR_ATOMIC_WRITE;

	return (unsigned)op < 32 && ((1u << op) & m) != 0;
}

/* The operations whose message takes a receive WQE at the responder. */
static inline bool
wr_takes_rwqe(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_SEND_WITH_INV || op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

/* Where an unlimited (credit-invalid) peer's limit is kept: far ahead of
 * the sequence number of the next message. */
static inline uint32_t
eqp_credit_far(const struct dpv_eqp *qp)
{
	return dpv_psn_add(eqp_credit_pkt(qp) ? qp->req.psn : qp->req.ssn,
			   CREDIT_FAR);
}

/*
 * AckReq, sparingly (RC): a requester asks for the ACK of the last packet
 * of a message only where something waits for it: a signaled WQE (or
 * one of the engine's own, engine_tm.c's), a retransmission, a READ or
 * atomic, a message near the end of the peer's end-to-end credits, and
 * at least every nswqe / DPV_ENGINE_ACKREQ_DIV messages (the slots of
 * the WQEs in flight come free) and every DPV_ENGINE_ACKREQ_PKTS packets
 * of messages (the ACK timer, which the last ACK started again, must not
 * expire while the next message that asks is still on its way: 32
 * messages of 4 MiB take longer than timeout 14's 67 ms at 2 GB/s, and
 * each timeout sends all of them again). Responders
 * acknowledge what asks and nothing else (as rxe and hardware do), so a
 * stream of unsignaled WRITEs or SENDs costs one ACK in 32 or so
 * messages instead of one a receive burst. The messages after the last
 * one that asked (an unsignaled tail the application posts no more
 * after) are asked for by a probe: DPV_ENGINE_PROBE_US after the last of
 * them went (or after the ACK that left only them outstanding), the
 * tail's last packet goes again with AckReq (a duplicate the responder
 * answers with an ACK of everything it has; dpv_engine_req_probe()). XRC
 * and DC ask with every message, as before.
 */
#define DPV_ENGINE_ACKREQ_DIV 4
#define DPV_ENGINE_ACKREQ_PKTS 256
_Static_assert(DPV_ENGINE_MAX_SWQE / DPV_ENGINE_ACKREQ_DIV <= UINT8_MAX,
	       "req.noreq counts them in a byte");
#define DPV_ENGINE_PROBE_US   30
/* A probe the port has no room for (its TX buffer full: a congested or
 * slow peer) is tried again DPV_ENGINE_PROBE_US later, this many times in
 * a row at most (~1 ms); then the retransmission timer covers the tail,
 * so that a port that never takes a frame still ends in a timeout (with
 * no ACK timer, timeout 0, the probe is tried for as long as it takes).
 * Before, one refusal left the tail to the full ACK timeout (67 ms at
 * timeout 14) and its retransmission, or with timeout 0 unacknowledged. */
#define DPV_ENGINE_PROBE_REFUSED 31
_Static_assert(DPV_ENGINE_PROBE_REFUSED < 32,
	       "comp.probe_refused counts them in 5 bits");

/* The ACK request probe's timer from now, unless the retransmission
 * timer runs (a message that asked waits): as a tail loss probe's, it
 * starts again with each message of the tail, so that a stream whose
 * messages follow each other closely never probes */
static inline void
dpv_engine_probe_arm(struct dpv_eqp *qp)
{
	if (qp->comp.deadline == 0 || qp->comp.probe) {
		qp->comp.deadline = qp->e->now + qp->e->probe_cycles;
		qp->comp.probe = true;
	}
}

/* Adds the packets of w to those sent since the last message that asked:
 * true if they reach e->ackreq_pkts (a message has fewer than 2^24, the
 * PSN space: the sum cannot wrap) */
static inline bool
dpv_engine_ackreq_pkts(struct dpv_eqp *qp, const struct dpv_eswqe *w)
{
	uint32_t n = qp->req.noreq_pkts + w->npkts;

	qp->req.noreq_pkts = (uint16_t)RTE_MIN(n, 65535u);
	return n >= qp->e->ackreq_pkts;
}

/* Whether the last packet of w asks for its ACK (RC, first transmission
 * or again; see DPV_ENGINE_ACKREQ_DIV); counts the messages that do not */
static inline bool
dpv_engine_ackreq_want(struct dpv_eqp *qp, const struct dpv_eswqe *w)
{
	if (qp->type != IBV_QPT_RC || qp->dc != 0 ||
	    (w->wr.flags & (DPV_WR_F_SIGNALED | DPV_WR_F_INTERNAL)) ||
	    qp->sq_sig_all || w->resend || qp->comp.resend_ask ||
	    wr_rd_atomic(w->wr.opcode) ||
	    (wr_takes_rwqe(w->wr.opcode) && !qp->req.credit_open &&
	     dpv_psn_cmp(
		     dpv_psn_add(w->cseq, qp->nswqe / DPV_ENGINE_ACKREQ_DIV),
		     qp->req.climit) > 0) ||
	    ++qp->req.noreq >= qp->nswqe / DPV_ENGINE_ACKREQ_DIV ||
	    dpv_engine_ackreq_pkts(qp, w)) {
		qp->req.noreq = 0;
		qp->req.noreq_pkts = 0;
		return true;
	}
	return false;
}
int dpv_engine_req_probe(struct dpv_eqp *qp);

/* The timers after a request packet went, asking for its ACK or not: one
 * that asks is watched by the retransmission timer, not the probe's (a
 * running retransmission timer is left as it is) */
static inline void
dpv_engine_req_timer(struct dpv_eqp *qp, bool ackreq)
{
	if (ackreq) {
		if (unlikely(qp->comp.probe)) {
			qp->comp.probe = false;
			qp->comp.deadline = 0;
		}
		if (qp->comp.deadline == 0 && qp->timeout)
			qp->comp.deadline =
				qp->e->now + dpv_engine_ack_cycles(qp);
	} else {
		dpv_engine_probe_arm(qp);
	}
}

/*
 * Completer: the credit count of an ACK-type AETH (ACK, first/last READ
 * response, atomic ACK). The limit only moves forward: every ACK's limit
 * was true when it was sent, and receive WQEs only go by being used.
 */
static inline void
dpv_engine_credit_update(struct dpv_eqp *qp, const struct dpv_epkt *pkt)
{
	uint32_t c = dpv_aeth_credit_decode(pkt->syndrome), lim;

	if (c == UINT32_MAX) { /* no credit information: no limit */
		if (!qp->req.credit_open) {
			qp->req.credit_open = true;
			qp->req.climit = eqp_credit_far(qp);
		}
		return;
	}
	lim = dpv_psn_add(eqp_credit_pkt(qp) ? pkt->psn : pkt->msn, c);
	if (!qp->req.credit_open && dpv_psn_cmp(lim, qp->req.climit) <= 0)
		return;
	qp->req.credit_open = false;
	qp->req.climit = lim;
	qp->req.credit_stall = false;
}

static inline struct dpv_eswqe *
swqe_at(struct dpv_eqp *qp, uint32_t i)
{
	return (struct dpv_eswqe *)(qp->swqe +
				    (size_t)(i & (qp->nswqe - 1)) *
					    qp->swqe_size);
}

/* The WQE at s_cur is partly on the wire (a long message going out). */
static inline bool
dpv_eqp_mid_message(struct dpv_eqp *qp)
{
	struct dpv_eswqe *w = swqe_at(qp, qp->s_cur);

	return qp->s_cur != qp->s_head && w->state == SWQE_PENDING &&
	       w->sent > 0;
}

/* The checked process address of each SGE of w (qp->max_sge of them). */
static inline uint8_t **
swqe_host(const struct dpv_eqp *qp, const struct dpv_eswqe *w)
{
	return (uint8_t **)(uintptr_t)&w->wr.sg_list[qp->max_sge];
}

/* The READ or atomic result of w for its CQE (scatter to CQE),
 * DPV_CQE_SCAT_MAX bytes after its SGEs' process addresses. */
static inline uint8_t *
swqe_scat(const struct dpv_eqp *qp, const struct dpv_eswqe *w)
{
	return (uint8_t *)(uintptr_t)(swqe_host(qp, w) + qp->max_sge);
}

/* A compressed CQ was pushed to: note it for dpv_engine_held_commit()
 * (writes it at once when the list is full). */
void dpv_engine_held_note(struct dpv_engine *e, struct dpv_mlx5_cq *cq);

/* Write the CQEs compressed CQs hold (sessions end with the poll) and
 * raise the events they fire. */
void dpv_engine_held_commit(struct dpv_engine *e);

/* Write one completion into cq (under its lock if QPs of several shards
 * complete into it), count it, hold it for compression or raise the CQ's
 * event. 0, or -ENOSPC when the CQ is full (overrun). */
struct dpv_cqe_info;
int dpv_engine_cq_write(struct dpv_engine *e, struct dpv_mlx5_cq *cq,
			const struct dpv_cqe_info *ci);

#endif
