/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TEST_RAW_UTIL_H
#define TEST_RAW_UTIL_H

/*
 * Raw-packet test helpers shared by test_raw.c and test_raw_ofl.c: one
 * context on the loopback device dpv0 (its TX comes back on its own RX),
 * a PD, a 256 KiB registered buffer: [0, 64K) send frames, [64K, 256K)
 * receive slots of SLOT bytes.
 */

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#define SEND_OFF 0
#define RECV_OFF 65536
#define SLOT	 2048

extern struct ibv_device **rt_devs;
extern struct ibv_context *rt_ctx;
extern struct ibv_pd *rt_pd;
extern struct ibv_mr *rt_mr;
extern uint8_t *rt_buf;

extern const uint8_t rt_mac_a[6], rt_mac_b[6], rt_mac_mc[6], rt_mac_src[6];

/* A frame: Ethernet (+ IPv4 + UDP when ether_type is 0x0800). */
struct frame_desc {
	const uint8_t *dmac;
	uint16_t ether_type;
	uint32_t sip, dip; /* host order */
	uint16_t sport, dport;
	uint32_t paylen;
	uint8_t seed;
};

struct flow_eth_ip_udp {
	struct ibv_flow_attr attr;
	struct ibv_flow_spec_eth eth;
	struct ibv_flow_spec_ipv4 ip;
	struct ibv_flow_spec_tcp_udp udp;
};

/* Suite setup/teardown: open dpv0 (TEST_SKIPPED without it). */
int rt_setup(void);
void rt_teardown(void);

/* Write the frame into f; returns its length. */
uint32_t rt_build_frame(uint8_t *f, const struct frame_desc *d);
/* RESET -> INIT (port 1) -> RTR -> RTS; 0 or -1. */
int rt_to_rts(struct ibv_qp *qp);
/* A raw QP in RTS with the create flags; self_lb: it also receives the
 * frames raw QPs of its own context send (mlx5dv's ALLOW_SELF_LOOPBACK
 * UC and MC). NULL with errno on failure. */
struct ibv_qp *rt_raw_qp_ex(struct ibv_pd *pd, struct ibv_cq *cq,
			    uint32_t create_flags, bool self_lb);
/* rt_raw_qp_ex(rt_pd, cq, 0, true) */
struct ibv_qp *rt_raw_qp(struct ibv_cq *cq);
/* Post n receive WQEs of SLOT bytes at slots slot0.. to qp (or wq). */
int rt_post_recvs(struct ibv_qp *qp, struct ibv_wq *wq, unsigned int slot0,
		  unsigned int n);
/* Send the frame at send slot `slot` (signalled). */
int rt_send_frame(struct ibv_qp *qp, unsigned int slot, uint32_t len);
/* Poll until max completions or nothing more comes (bounded). */
int rt_drain(struct ibv_cq *c, struct ibv_wc *wc, int max);
/* Successful receive completions of QP qpn in wc[0..n). */
int rt_count_recv(const struct ibv_wc *wc, int n, uint32_t qpn);
/* NORMAL flow on destination MAC and/or ether type (0: any). */
struct ibv_flow *rt_flow_eth(struct ibv_qp *qp, const uint8_t *dmac,
			     uint16_t etype, uint16_t prio);
/* NORMAL flow on IPv4 destination and UDP destination port (0: any). */
struct ibv_flow *rt_flow_ip_udp(struct ibv_qp *qp, uint32_t dip, uint16_t dport,
				uint16_t prio);
/* A default or sniffer flow of type t. */
struct ibv_flow *rt_flow_default(struct ibv_qp *qp, enum ibv_flow_attr_type t);

/* Monotonic milliseconds. */
uint64_t now_ms(void);
/* Poll until max completions or ms milliseconds have passed. */
int drain_ms(struct ibv_cq *c, struct ibv_wc *wc, int max, unsigned int ms);
/* Internet checksum (RFC 1071) of len bytes, added to sum; fold() ends it. */
uint32_t sum16(const uint8_t *p, uint32_t len, uint32_t sum);
uint16_t fold(uint32_t sum);
/* Whether the TCP/UDP checksum of the IPv4 / IPv6 datagram at ip verifies. */
bool l4_ok_v4(const uint8_t *ip);
bool l4_ok_v6(const uint8_t *ip);

#endif
