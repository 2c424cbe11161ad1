/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_ENGINE_RAW_INT_H
#define DPV_ENGINE_RAW_INT_H

/*
 * Shared by engine_raw.c (frames in and out) and engine_raw_ofl.c (what
 * a ConnectX does to them on the way: checksums, FCS, VLAN stripping,
 * pacing, loopback tagging).
 */

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "dpv_engine_raw.h"

struct rte_mbuf;
struct dpv_eqp;
struct dpv_wr;
struct raw_tso;

/* Where a frame came from, when one of our raw QPs sent it. */
struct raw_tag {
	uint32_t domain; /* dpv_engine_raw_qp::domain of the sender */
	uint32_t qpn;	 /* the sending QP */
};

/* Per raw QP: its options and its transmit pacing. */
struct raw_qp {
	uint32_t qpn;
	struct dpv_engine_raw_qp c;
	/* token bucket, in byte * tsc-hz units (0 rate: unpaced) */
	uint64_t rate_kbps;
	int64_t tokens;	   /* may go negative: a frame larger than the bucket */
	int64_t depth;	   /* largest credit kept while idle */
	int64_t last_cost; /* of the last frame sent */
	uint64_t last_tsc;
	struct raw_tso *tso; /* IBV_WR_TSO being segmented (engine_raw_tso.c) */
};

/* Mark an mbuf as sent by a raw QP (no-op if tags are unavailable). */
void raw_tag_set(struct rte_mbuf *m, uint32_t domain, uint32_t qpn);
/* The tag of a received frame; false if it carries none. */
bool raw_tag_get(const struct rte_mbuf *m, struct raw_tag *t);
/* Register the mbuf field once per process; 0 or a negative errno. */
int raw_tag_init(void);

/* Pacing: set the rate (0: unpaced); may a frame of len bytes go now? */
void raw_pace_set(struct raw_qp *q, uint32_t kbps, uint32_t max_burst);
bool raw_pace_ok(struct raw_qp *q);
void raw_pace_take(struct raw_qp *q, uint32_t len);

/*
 * Fill in the IPv4 header checksum and the TCP/UDP checksum (IPv4 or
 * IPv6) of a contiguous frame, as IBV_SEND_IP_CSUM asks. Frames that are
 * not IP, or whose headers do not fit the frame, are left as they are.
 */
void raw_csum_fill(uint8_t *f, uint32_t len);

/* raw_csum_eval() results */
#define RAW_CSUM_OK 1u	   /* IBV_WC_IP_CSUM_OK */
#define RAW_CSUM_TUNNEL 2u /* a VXLAN, GENEVE or GRE packet, looked into */

/*
 * The receive checksum check of a frame: RAW_CSUM_OK when it is IPv4
 * (not a fragment) carrying TCP or UDP with correct IP and L4 checksums.
 * With tunnels, a VXLAN (UDP 4789), GENEVE (UDP 6081, Ethernet payload)
 * or GRE (version 0, Ethernet or IP payload) packet is RAW_CSUM_TUNNEL,
 * and RAW_CSUM_OK when its outer IPv4 header, outer UDP (0: none) and
 * GRE checksums are right and its inner frame passes the same check.
 */
unsigned int raw_csum_eval(const struct rte_mbuf *m, bool tunnels);

/*
 * The inner frame of a VXLAN, GENEVE or GRE packet (the tunnels
 * raw_csum_eval() looks into): true with *off its offset in f and *et 0
 * when it is an Ethernet frame, else the ether type (network order) of the
 * IP datagram found there (GRE carrying IP); false for another frame.
 */
bool raw_tunnel_inner(const uint8_t *f, uint32_t len, uint32_t *off,
		      uint16_t *et);

/*
 * The Ethernet FCS of the first len bytes of m, in wire byte order; a
 * frame in several segments is first copied to scratch.
 * @return 0, or -1 if it does not fit scratch.
 */
int raw_fcs(const struct rte_mbuf *m, uint32_t len, uint8_t *scratch,
	    uint32_t scratch_len, uint8_t fcs[4]);

/*
 * TSO (engine_raw_tso.c). raw_tso_start() checks a fetched IBV_WR_TSO WQE
 * and keeps it: IBV_WC_SUCCESS, or the status to complete it with (then
 * nothing is kept). raw_tso_run() queues its frames while the engine has
 * room and the pacing allows: 1 when the last one is queued (complete and
 * retire raw_tso_wr(), then raw_tso_end()), 0 to wait; *frames = frames
 * queued, *paced = it waited for the rate. raw_tso_busy(): a WQE is kept
 * and still the QP's oldest (false after a flush or a RESET).
 */
enum ibv_wc_status raw_tso_start(struct dpv_eqp *qp, struct raw_qp *q,
				 const struct dpv_wr *w);
bool raw_tso_busy(struct raw_qp *q, const struct dpv_eqp *qp);
int raw_tso_run(struct dpv_eqp *qp, struct raw_qp *q, uint32_t *frames,
		bool *paced);
const struct dpv_wr *raw_tso_wr(const struct raw_qp *q);
void raw_tso_end(struct raw_qp *q);
void raw_tso_free(struct raw_qp *q);

#endif
