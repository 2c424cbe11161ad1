/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_ROCE_HDR_H
#define DPV_ROCE_HDR_H

/**
 * @file
 * RoCEv2 wire headers and their field accessors.
 *
 * A RoCEv2 frame is Ethernet [+ 802.1Q tag] + IPv4 or IPv6 + UDP (destination
 * port 4791) + the InfiniBand transport headers + payload + pad (0..3 bytes
 * so that the payload ends on a 4-byte boundary) + the 4-byte invariant CRC.
 * The transport headers are the Base Transport Header (BTH) and, depending
 * on the opcode (see dpv_roce_opcode.h), in this order:
 * XRCETH, DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH.
 *
 * Ethernet, VLAN, IPv4, IPv6 and UDP use DPDK's own structures (rte_ether.h,
 * rte_ip.h, rte_udp.h). The InfiniBand headers are defined here as packed
 * structures of big-endian integers; read and write them only through the
 * dpv_HDR_FIELD() / dpv_HDR_set_FIELD() accessors below, which do
 * the byte-order conversion and the sub-byte field masking. None of the
 * structures has alignment requirements beyond 1 byte.
 *
 * All accessors are static inline, take a pointer to the header in the
 * frame, and have no other side effect. Setters keep the other bits of a
 * shared byte unchanged. Values wider than a field are truncated to it.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#ifdef __cplusplus
extern "C" {
#endif

/** UDP destination port of RoCEv2 (IANA). */
#define DPV_ROCE_UDP_PORT 4791
/** Bytes of the invariant CRC at the end of every RoCE packet. */
#define DPV_ROCE_ICRC_LEN 4
/** Default partition key (full membership, default partition). */
#define DPV_ROCE_PKEY_DEFAULT 0xffff
/** P_Key bit 15: full membership (0: limited). */
#define DPV_ROCE_PKEY_FULL 0x8000

/**
 * Whether a packet's P_Key matches one entry of a P_Key table (IBTA
 * partition key matching): the low 15 bits are equal and not both are
 * limited members. A P_Key whose low 15 bits are 0 (0x0000, 0x8000) is
 * invalid and matches nothing.
 *
 * @param pkt_pkey
 *   The BTH's P_Key.
 * @param tbl_pkey
 *   A table entry.
 * @return
 *   true if they match.
 */
static inline bool
dpv_roce_pkey_match(uint16_t pkt_pkey, uint16_t tbl_pkey)
{
	return ((pkt_pkey ^ tbl_pkey) & 0x7fff) == 0 &&
	       (pkt_pkey & 0x7fff) != 0 &&
	       ((pkt_pkey | tbl_pkey) & DPV_ROCE_PKEY_FULL) != 0;
}

/** Transport header version of all current InfiniBand/RoCE packets. */
#define DPV_ROCE_TVER 0
/** Mask of the 24-bit QP numbers, PSNs and MSNs. */
#define DPV_ROCE_QPN_MASK 0xffffffu
/** Mask of the 24-bit packet sequence numbers. */
#define DPV_ROCE_PSN_MASK 0xffffffu

/**
 * Base Transport Header, 12 bytes.
 *
 * | byte | bits                                                     |
 * |------|----------------------------------------------------------|
 * | 0    | OpCode                                                   |
 * | 1    | SE (7), MigReq (6), PadCnt (5..4), TVer (3..0)           |
 * | 2-3  | P_Key                                                    |
 * | 4    | FECN (7), BECN (6), reserved (5..0); ICRC-masked in RoCE |
 * | 5-7  | DestQP                                                   |
 * | 8    | AckReq (7), reserved (6..0)                              |
 * | 9-11 | PSN                                                      |
 */
struct dpv_bth {
	uint8_t opcode;	 /**< wire opcode (transport << 5 | operation) */
	uint8_t flags;	 /**< SE (7), MigReq (6), PadCnt (5..4), TVer (3..0) */
	rte_be16_t pkey; /**< partition key */
	rte_be32_t qpn;	 /**< FECN/BECN/resv byte + DestQP */
	rte_be32_t apsn; /**< AckReq/resv byte + PSN */
} __rte_packed;

/** RDMA Extended Transport Header (RDMA WRITE and READ requests), 16 bytes. */
struct dpv_reth {
	rte_be64_t va;	 /**< remote virtual address of the first byte */
	rte_be32_t rkey; /**< remote key of the region or window */
	rte_be32_t len;	 /**< DMA length of the whole message */
} __rte_packed;

/** ACK Extended Transport Header, 4 bytes: syndrome + 24-bit MSN. */
struct dpv_aeth {
	rte_be32_t smsn; /**< syndrome (31..24) + MSN (23..0) */
} __rte_packed;

/** Atomic Extended Transport Header (CmpSwap, FetchAdd), 28 bytes. */
struct dpv_atmeth {
	rte_be64_t va;	     /**< remote address, 8-byte aligned */
	rte_be32_t rkey;     /**< remote key */
	rte_be64_t swap_add; /**< swap value, or the value to add */
	rte_be64_t compare;  /**< compare value (CmpSwap; 0 for FetchAdd) */
} __rte_packed;

/** Atomic ACK Extended Transport Header, 8 bytes: the original data. */
struct dpv_atmack {
	rte_be64_t orig; /**< the remote value before the operation */
} __rte_packed;

/** Datagram Extended Transport Header (UD), 8 bytes. */
struct dpv_deth {
	rte_be32_t qkey; /**< queue key the destination QP checks */
	rte_be32_t sqp;	 /**< reserved byte + 24-bit source QP */
} __rte_packed;

/** Immediate data, 4 bytes (kept in network order, like ibv_wc.imm_data). */
struct dpv_immdt {
	rte_be32_t imm; /**< the 32-bit immediate value */
} __rte_packed;

/** Invalidate Extended Transport Header (SEND with invalidate), 4 bytes. */
struct dpv_ieth {
	rte_be32_t rkey; /**< the remote key to invalidate */
} __rte_packed;

/** XRC Extended Transport Header (XRC requests), 4 bytes. */
struct dpv_xrceth {
	rte_be32_t srqn; /**< reserved byte + 24-bit XRC SRQ number */
} __rte_packed;

/**
 * DC Extended Transport Header (requests of the DC transport, opcodes
 * DPV_ROCE_TR_DC | op), 16 bytes. dpverbs' own format: ConnectX's is not
 * publicly described (doc/guides/dc.rst).
 */
struct dpv_dceth {
	rte_be64_t key;	 /**< the DC access key the DCT checks */
	rte_be32_t dci;	 /**< reserved byte + 24-bit source DCI QP number */
	rte_be32_t cpsn; /**< reserved byte + 24-bit first PSN of the DCI's
			      connection to this DCT (its identity) */
} __rte_packed;

/** Body of a RoCEv2 Congestion Notification Packet after the BTH. */
struct dpv_cnp {
	uint8_t reserved[16]; /**< reserved, zero on send */
} __rte_packed;

_Static_assert(sizeof(struct dpv_bth) == 12, "BTH is 12 bytes");
_Static_assert(sizeof(struct dpv_reth) == 16, "RETH is 16 bytes");
_Static_assert(sizeof(struct dpv_aeth) == 4, "AETH is 4 bytes");
_Static_assert(sizeof(struct dpv_atmeth) == 28, "AtomicETH is 28 bytes");
_Static_assert(sizeof(struct dpv_atmack) == 8, "AtomicAckETH is 8 bytes");
_Static_assert(sizeof(struct dpv_deth) == 8, "DETH is 8 bytes");
_Static_assert(sizeof(struct dpv_immdt) == 4, "ImmDt is 4 bytes");
_Static_assert(sizeof(struct dpv_ieth) == 4, "IETH is 4 bytes");
_Static_assert(sizeof(struct dpv_xrceth) == 4, "XRCETH is 4 bytes");
_Static_assert(sizeof(struct dpv_dceth) == 16, "DCETH is 16 bytes");
_Static_assert(sizeof(struct dpv_cnp) == 16, "CNP body is 16 bytes");
_Static_assert(sizeof(struct rte_ether_hdr) == 14, "Ethernet is 14 bytes");
_Static_assert(sizeof(struct rte_vlan_hdr) == 4, "802.1Q tag is 4 bytes");
_Static_assert(sizeof(struct rte_ipv4_hdr) == 20, "IPv4 is 20 bytes");
_Static_assert(sizeof(struct rte_ipv6_hdr) == 40, "IPv6 is 40 bytes");
_Static_assert(sizeof(struct rte_udp_hdr) == 8, "UDP is 8 bytes");

/* ---- BTH ---- */

#define DPV_BTH_SE     0x80 /**< byte 1: solicited event */
#define DPV_BTH_MIG    0x40 /**< byte 1: migration state */
#define DPV_BTH_FECN   0x80 /**< byte 4: forward congestion notification */
#define DPV_BTH_BECN   0x40 /**< byte 4: backward congestion notification */
#define DPV_BTH_ACKREQ 0x80 /**< byte 8: acknowledge request */

/**
 * Read a field of the BTH.
 *
 * @param b
 *   The BTH in the frame.
 * @return
 *   The wire opcode.
 */
static inline uint8_t
dpv_bth_opcode(const struct dpv_bth *b)
{
	return b->opcode;
}

/**
 * Set the wire opcode.
 *
 * @param b
 *   The BTH in the frame.
 * @param op
 *   New value.
 */
static inline void
dpv_bth_set_opcode(struct dpv_bth *b, uint8_t op)
{
	b->opcode = op;
}

/**
 * Read a field of the BTH.
 *
 * @param b
 *   The BTH in the frame.
 * @return
 *   The solicited-event bit.
 */
static inline bool
dpv_bth_se(const struct dpv_bth *b)
{
	return (b->flags & DPV_BTH_SE) != 0;
}

/**
 * Set or clear the solicited-event bit.
 *
 * @param b
 *   The BTH in the frame.
 * @param v
 *   New value.
 */
static inline void
dpv_bth_set_se(struct dpv_bth *b, bool v)
{
	b->flags = (uint8_t)((b->flags & ~DPV_BTH_SE) | (v ? DPV_BTH_SE : 0));
}

/**
 * Read a field of the BTH.
 *
 * @param b
 *   The BTH in the frame.
 * @return
 *   The MigReq bit.
 */
static inline bool
dpv_bth_mig(const struct dpv_bth *b)
{
	return (b->flags & DPV_BTH_MIG) != 0;
}

/**
 * Set or clear the MigReq bit.
 *
 * @param b
 *   The BTH in the frame.
 * @param v
 *   New value.
 */
static inline void
dpv_bth_set_mig(struct dpv_bth *b, bool v)
{
	b->flags = (uint8_t)((b->flags & ~DPV_BTH_MIG) | (v ? DPV_BTH_MIG : 0));
}

/**
 * Read a field of the BTH.
 *
 * @param b
 *   The BTH in the frame.
 * @return
 *   The pad count, 0..3.
 */
static inline uint8_t
dpv_bth_pad(const struct dpv_bth *b)
{
	return (b->flags >> 4) & 3;
}

/**
 * Set the pad count (0..3).
 *
 * @param b
 *   The BTH in the frame.
 * @param pad
 *   New value.
 */
static inline void
dpv_bth_set_pad(struct dpv_bth *b, uint8_t pad)
{
	b->flags = (uint8_t)((b->flags & ~0x30) | ((pad & 3) << 4));
}

/**
 * Read a field of the BTH.
 *
 * @param b
 *   The BTH in the frame.
 * @return
 *   The transport header version, 0..15.
 */
static inline uint8_t
dpv_bth_tver(const struct dpv_bth *b)
{
	return b->flags & 0x0f;
}

/**
 * Set the transport header version (0..15).
 *
 * @param b
 *   The BTH in the frame.
 * @param tver
 *   New value.
 */
static inline void
dpv_bth_set_tver(struct dpv_bth *b, uint8_t tver)
{
	b->flags = (uint8_t)((b->flags & ~0x0f) | (tver & 0x0f));
}

/**
 * Read a field of the BTH.
 *
 * @param b
 *   The BTH in the frame.
 * @return
 *   The partition key, host order.
 */
static inline uint16_t
dpv_bth_pkey(const struct dpv_bth *b)
{
	return rte_be_to_cpu_16(b->pkey);
}

/**
 * Set the partition key.
 *
 * @param b
 *   The BTH in the frame.
 * @param pkey
 *   New value.
 */
static inline void
dpv_bth_set_pkey(struct dpv_bth *b, uint16_t pkey)
{
	b->pkey = rte_cpu_to_be_16(pkey);
}

/**
 * Read a field of the BTH.
 *
 * @param b
 *   The BTH in the frame.
 * @return
 *   The FECN bit.
 */
static inline bool
dpv_bth_fecn(const struct dpv_bth *b)
{
	return (((const uint8_t *)b)[4] & DPV_BTH_FECN) != 0;
}

/**
 * Set or clear the FECN bit.
 *
 * @param b
 *   The BTH in the frame.
 * @param v
 *   New value.
 */
static inline void
dpv_bth_set_fecn(struct dpv_bth *b, bool v)
{
	uint8_t *p = &((uint8_t *)b)[4];

	*p = (uint8_t)((*p & ~DPV_BTH_FECN) | (v ? DPV_BTH_FECN : 0));
}

/**
 * Read a field of the BTH.
 *
 * @param b
 *   The BTH in the frame.
 * @return
 *   The BECN bit.
 */
static inline bool
dpv_bth_becn(const struct dpv_bth *b)
{
	return (((const uint8_t *)b)[4] & DPV_BTH_BECN) != 0;
}

/**
 * Set or clear the BECN bit.
 *
 * @param b
 *   The BTH in the frame.
 * @param v
 *   New value.
 */
static inline void
dpv_bth_set_becn(struct dpv_bth *b, bool v)
{
	uint8_t *p = &((uint8_t *)b)[4];

	*p = (uint8_t)((*p & ~DPV_BTH_BECN) | (v ? DPV_BTH_BECN : 0));
}

/**
 * Read a field of the BTH.
 *
 * @param b
 *   The BTH in the frame.
 * @return
 *   The 6 reserved bits of byte 4 (0 on transmit).
 */
static inline uint8_t
dpv_bth_resv6(const struct dpv_bth *b)
{
	return ((const uint8_t *)b)[4] & 0x3f;
}

/**
 * Read a field of the BTH.
 *
 * @param b
 *   The BTH in the frame.
 * @return
 *   The 24-bit destination QP number.
 */
static inline uint32_t
dpv_bth_qpn(const struct dpv_bth *b)
{
	return rte_be_to_cpu_32(b->qpn) & DPV_ROCE_QPN_MASK;
}

/**
 * Set the destination QP number (24 bits); FECN/BECN are kept.
 *
 * @param b
 *   The BTH in the frame.
 * @param qpn
 *   New value.
 */
static inline void
dpv_bth_set_qpn(struct dpv_bth *b, uint32_t qpn)
{
	uint32_t v = rte_be_to_cpu_32(b->qpn);

	b->qpn = rte_cpu_to_be_32((v & ~DPV_ROCE_QPN_MASK) |
				  (qpn & DPV_ROCE_QPN_MASK));
}

/**
 * Read a field of the BTH.
 *
 * @param b
 *   The BTH in the frame.
 * @return
 *   The AckReq bit.
 */
static inline bool
dpv_bth_ackreq(const struct dpv_bth *b)
{
	return (((const uint8_t *)b)[8] & DPV_BTH_ACKREQ) != 0;
}

/**
 * Set or clear the AckReq bit.
 *
 * @param b
 *   The BTH in the frame.
 * @param v
 *   New value.
 */
static inline void
dpv_bth_set_ackreq(struct dpv_bth *b, bool v)
{
	uint8_t *p = &((uint8_t *)b)[8];

	*p = (uint8_t)((*p & ~DPV_BTH_ACKREQ) | (v ? DPV_BTH_ACKREQ : 0));
}

/**
 * Read a field of the BTH.
 *
 * @param b
 *   The BTH in the frame.
 * @return
 *   The 7 reserved bits of byte 8 (0 on transmit).
 */
static inline uint8_t
dpv_bth_resv7(const struct dpv_bth *b)
{
	return ((const uint8_t *)b)[8] & 0x7f;
}

/**
 * Read a field of the BTH.
 *
 * @param b
 *   The BTH in the frame.
 * @return
 *   The 24-bit packet sequence number.
 */
static inline uint32_t
dpv_bth_psn(const struct dpv_bth *b)
{
	return rte_be_to_cpu_32(b->apsn) & DPV_ROCE_PSN_MASK;
}

/**
 * Set the PSN (24 bits); AckReq is kept.
 *
 * @param b
 *   The BTH in the frame.
 * @param psn
 *   New value.
 */
static inline void
dpv_bth_set_psn(struct dpv_bth *b, uint32_t psn)
{
	uint32_t v = rte_be_to_cpu_32(b->apsn);

	b->apsn = rte_cpu_to_be_32((v & ~DPV_ROCE_PSN_MASK) |
				   (psn & DPV_ROCE_PSN_MASK));
}

/**
 * The flags byte of a BTH (byte 1) from its fields.
 *
 * @param se
 *   Solicited event.
 * @param mig
 *   Migration state (MigReq).
 * @param pad
 *   Pad count (2 bits).
 * @param tver
 *   Transport header version (4 bits).
 * @return
 *   The byte, for dpv_bth_write().
 */
static inline uint8_t
dpv_bth_flags(bool se, bool mig, uint8_t pad, uint8_t tver)
{
	return (uint8_t)((se ? DPV_BTH_SE : 0) | (mig ? DPV_BTH_MIG : 0) |
			 (pad & 3) << 4 | (tver & 0x0f));
}

/**
 * Write a whole BTH, each field in one store (a builder that set it a
 * byte at a time, then read the word back to add the next field, waited
 * for each store to land); FECN, BECN and the reserved bits are cleared.
 *
 * @param b
 *   The BTH in the frame.
 * @param opcode
 *   Wire opcode.
 * @param flags
 *   Byte 1, from dpv_bth_flags().
 * @param pkey
 *   Partition key.
 * @param qpn
 *   Destination QP number (24 bits).
 * @param ackreq
 *   The AckReq bit.
 * @param psn
 *   Packet sequence number (24 bits).
 */
static inline void
dpv_bth_write(struct dpv_bth *b, uint8_t opcode, uint8_t flags, uint16_t pkey,
	      uint32_t qpn, bool ackreq, uint32_t psn)
{
	b->opcode = opcode;
	b->flags = flags;
	b->pkey = rte_cpu_to_be_16(pkey);
	b->qpn = rte_cpu_to_be_32(qpn & DPV_ROCE_QPN_MASK);
	b->apsn =
		rte_cpu_to_be_32((ackreq ? (uint32_t)DPV_BTH_ACKREQ << 24 : 0) |
				 (psn & DPV_ROCE_PSN_MASK));
}

/* ---- RETH ---- */

/**
 * Read a field of the RETH.
 *
 * @param h
 *   The RETH in the frame.
 * @return
 *   The remote virtual address.
 */
static inline uint64_t
dpv_reth_va(const struct dpv_reth *h)
{
	return rte_be_to_cpu_64(h->va);
}

/**
 * Set the remote virtual address.
 *
 * @param h
 *   The RETH in the frame.
 * @param va
 *   New value.
 */
static inline void
dpv_reth_set_va(struct dpv_reth *h, uint64_t va)
{
	h->va = rte_cpu_to_be_64(va);
}

/**
 * Read a field of the RETH.
 *
 * @param h
 *   The RETH in the frame.
 * @return
 *   The remote key.
 */
static inline uint32_t
dpv_reth_rkey(const struct dpv_reth *h)
{
	return rte_be_to_cpu_32(h->rkey);
}

/**
 * Set the remote key.
 *
 * @param h
 *   The RETH in the frame.
 * @param rkey
 *   New value.
 */
static inline void
dpv_reth_set_rkey(struct dpv_reth *h, uint32_t rkey)
{
	h->rkey = rte_cpu_to_be_32(rkey);
}

/**
 * Read a field of the RETH.
 *
 * @param h
 *   The RETH in the frame.
 * @return
 *   The DMA length (bytes of the whole message).
 */
static inline uint32_t
dpv_reth_len(const struct dpv_reth *h)
{
	return rte_be_to_cpu_32(h->len);
}

/**
 * Set the DMA length.
 *
 * @param h
 *   The RETH in the frame.
 * @param len
 *   New value.
 */
static inline void
dpv_reth_set_len(struct dpv_reth *h, uint32_t len)
{
	h->len = rte_cpu_to_be_32(len);
}

/* ---- AETH ---- */

/**
 * AETH syndrome (8 bits): bits 6..5 say what it is, bits 4..0 carry the
 * credit count (ACK), the RNR timer (RNR NAK) or the NAK code (NAK).
 */
#define DPV_AETH_TYPE_MASK	0x60
#define DPV_AETH_ACK		0x00 /**< type: ACK, low bits = credit count */
#define DPV_AETH_RNR_NAK	0x20 /**< type: RNR NAK, low bits = timer */
#define DPV_AETH_RSVD		0x40 /**< type: reserved */
#define DPV_AETH_NAK		0x60 /**< type: NAK, low bits = code below */
#define DPV_AETH_CREDIT_INVALID 0x1f /**< ACK credit: no information */
#define DPV_AETH_NAK_PSN_SEQ	0    /**< NAK: PSN sequence error */
#define DPV_AETH_NAK_INV_REQ	1    /**< NAK: invalid request */
#define DPV_AETH_NAK_REM_ACC	2    /**< NAK: remote access error */
#define DPV_AETH_NAK_REM_OP	3    /**< NAK: remote operational error */
#define DPV_AETH_NAK_INV_RD	4    /**< NAK: invalid RD request */

/**
 * Read a field of the AETH.
 *
 * @param h
 *   The AETH in the frame.
 * @return
 *   The 8-bit syndrome.
 */
static inline uint8_t
dpv_aeth_syndrome(const struct dpv_aeth *h)
{
	return (uint8_t)(rte_be_to_cpu_32(h->smsn) >> 24);
}

/**
 * Set the syndrome; the MSN is kept.
 *
 * @param h
 *   The AETH in the frame.
 * @param syn
 *   New value.
 */
static inline void
dpv_aeth_set_syndrome(struct dpv_aeth *h, uint8_t syn)
{
	uint32_t v = rte_be_to_cpu_32(h->smsn);

	h->smsn = rte_cpu_to_be_32((v & 0xffffff) | ((uint32_t)syn << 24));
}

/**
 * Read a field of the AETH.
 *
 * @param h
 *   The AETH in the frame.
 * @return
 *   The 24-bit message sequence number.
 */
static inline uint32_t
dpv_aeth_msn(const struct dpv_aeth *h)
{
	return rte_be_to_cpu_32(h->smsn) & 0xffffff;
}

/**
 * Set the MSN (24 bits); the syndrome is kept.
 *
 * @param h
 *   The AETH in the frame.
 * @param msn
 *   New value.
 */
static inline void
dpv_aeth_set_msn(struct dpv_aeth *h, uint32_t msn)
{
	uint32_t v = rte_be_to_cpu_32(h->smsn);

	h->smsn = rte_cpu_to_be_32((v & 0xff000000u) | (msn & 0xffffff));
}

/**
 * Write a whole AETH (syndrome and MSN) in one store.
 *
 * @param h
 *   The AETH in the frame.
 * @param syn
 *   Syndrome.
 * @param msn
 *   Message sequence number (24 bits).
 */
static inline void
dpv_aeth_set(struct dpv_aeth *h, uint8_t syn, uint32_t msn)
{
	h->smsn = rte_cpu_to_be_32((uint32_t)syn << 24 | (msn & 0xffffff));
}

/** Largest number of receive WQEs an ACK's credit field can tell. */
#define DPV_AETH_CREDIT_MAX 32768u

/**
 * Decode the 5-bit credit field of an ACK (IBA 9.7.7.2, the AETH credit
 * encoding table): codes 0..4 are 0..4, then each code is 1.5 or 2 times
 * the one before (6, 8, 12, 16, 24, ..., 32768 for code 30).
 *
 * @param code
 *   The low 5 bits of an ACK syndrome.
 * @return
 *   The number of receive WQEs it stands for; UINT32_MAX for
 *   DPV_AETH_CREDIT_INVALID (0x1f: no credit information, "no limit").
 */
static inline uint32_t
dpv_aeth_credit_decode(uint8_t code)
{
	static const uint16_t tab[31] = {
		0,    1,    2,	  3,	 4,	6,     8,     12,
		16,   24,   32,	  48,	 64,	96,    128,   192,
		256,  384,  512,  768,	 1024,	1536,  2048,  3072,
		4096, 6144, 8192, 12288, 16384, 24576, 32768,
	};

	code &= 0x1f;
	return code == DPV_AETH_CREDIT_INVALID ? UINT32_MAX : tab[code];
}

/**
 * Encode a number of available receive WQEs as an ACK's credit field: the
 * largest code whose value (dpv_aeth_credit_decode()) is not more than n,
 * so a responder never advertises more than it has.
 *
 * @param n
 *   Receive WQEs available (any value; more than DPV_AETH_CREDIT_MAX
 *   gives the code of DPV_AETH_CREDIT_MAX).
 * @return
 *   The code, 0..30.
 */
static inline uint8_t
dpv_aeth_credit_encode(uint32_t n)
{
	uint32_t b;

	if (n <= 4)
		return (uint8_t)n;
	if (n >= DPV_AETH_CREDIT_MAX)
		return 30;
	/* 2^b is code 2b, 1.5 * 2^b is code 2b + 1 (b >= 2) */
	b = 31u - (uint32_t)__builtin_clz(n);
	return (uint8_t)(2 * b + ((n >> (b - 1)) & 1));
}

/* ---- AtomicETH ---- */

/**
 * Read a field of the AtomicETH.
 *
 * @param h
 *   The AtomicETH in the frame.
 * @return
 *   The remote virtual address (8-byte aligned by the requester).
 */
static inline uint64_t
dpv_atmeth_va(const struct dpv_atmeth *h)
{
	return rte_be_to_cpu_64(h->va);
}

/**
 * Set the remote virtual address.
 *
 * @param h
 *   The AtomicETH in the frame.
 * @param va
 *   New value.
 */
static inline void
dpv_atmeth_set_va(struct dpv_atmeth *h, uint64_t va)
{
	h->va = rte_cpu_to_be_64(va);
}

/**
 * Read a field of the AtomicETH.
 *
 * @param h
 *   The AtomicETH in the frame.
 * @return
 *   The remote key.
 */
static inline uint32_t
dpv_atmeth_rkey(const struct dpv_atmeth *h)
{
	return rte_be_to_cpu_32(h->rkey);
}

/**
 * Set the remote key.
 *
 * @param h
 *   The AtomicETH in the frame.
 * @param rkey
 *   New value.
 */
static inline void
dpv_atmeth_set_rkey(struct dpv_atmeth *h, uint32_t rkey)
{
	h->rkey = rte_cpu_to_be_32(rkey);
}

/**
 * Read a field of the AtomicETH.
 *
 * @param h
 *   The AtomicETH in the frame.
 * @return
 *   The swap (CmpSwap) or add (FetchAdd) operand.
 */
static inline uint64_t
dpv_atmeth_swap_add(const struct dpv_atmeth *h)
{
	return rte_be_to_cpu_64(h->swap_add);
}

/**
 * Set the swap or add operand.
 *
 * @param h
 *   The AtomicETH in the frame.
 * @param v
 *   New value.
 */
static inline void
dpv_atmeth_set_swap_add(struct dpv_atmeth *h, uint64_t v)
{
	h->swap_add = rte_cpu_to_be_64(v);
}

/**
 * Read a field of the AtomicETH.
 *
 * @param h
 *   The AtomicETH in the frame.
 * @return
 *   The compare operand (CmpSwap).
 */
static inline uint64_t
dpv_atmeth_compare(const struct dpv_atmeth *h)
{
	return rte_be_to_cpu_64(h->compare);
}

/**
 * Set the compare operand.
 *
 * @param h
 *   The AtomicETH in the frame.
 * @param v
 *   New value.
 */
static inline void
dpv_atmeth_set_compare(struct dpv_atmeth *h, uint64_t v)
{
	h->compare = rte_cpu_to_be_64(v);
}

/* ---- AtomicAckETH ---- */

/**
 * Read a field of the AtomicAckETH.
 *
 * @param h
 *   The AtomicAckETH in the frame.
 * @return
 *   The original remote data returned by an atomic.
 */
static inline uint64_t
dpv_atmack_orig(const struct dpv_atmack *h)
{
	return rte_be_to_cpu_64(h->orig);
}

/**
 * Set the original remote data.
 *
 * @param h
 *   The AtomicAckETH in the frame.
 * @param v
 *   New value.
 */
static inline void
dpv_atmack_set_orig(struct dpv_atmack *h, uint64_t v)
{
	h->orig = rte_cpu_to_be_64(v);
}

/* ---- DETH ---- */

/**
 * Read a field of the DETH.
 *
 * @param h
 *   The DETH in the frame.
 * @return
 *   The Q_Key.
 */
static inline uint32_t
dpv_deth_qkey(const struct dpv_deth *h)
{
	return rte_be_to_cpu_32(h->qkey);
}

/**
 * Set the Q_Key.
 *
 * @param h
 *   The DETH in the frame.
 * @param qkey
 *   New value.
 */
static inline void
dpv_deth_set_qkey(struct dpv_deth *h, uint32_t qkey)
{
	h->qkey = rte_cpu_to_be_32(qkey);
}

/**
 * Read a field of the DETH.
 *
 * @param h
 *   The DETH in the frame.
 * @return
 *   The 24-bit source QP number.
 */
static inline uint32_t
dpv_deth_sqp(const struct dpv_deth *h)
{
	return rte_be_to_cpu_32(h->sqp) & DPV_ROCE_QPN_MASK;
}

/**
 * Set the source QP number (24 bits); the reserved byte is cleared.
 *
 * @param h
 *   The DETH in the frame.
 * @param qpn
 *   New value.
 */
static inline void
dpv_deth_set_sqp(struct dpv_deth *h, uint32_t qpn)
{
	h->sqp = rte_cpu_to_be_32(qpn & DPV_ROCE_QPN_MASK);
}

/* ---- ImmDt, IETH, XRCETH ---- */

/**
 * Read a field of the ImmDt.
 *
 * @param h
 *   The ImmDt in the frame.
 * @return
 *   The immediate data in network order (as ibv_wc.imm_data).
 */
static inline rte_be32_t
dpv_immdt_imm(const struct dpv_immdt *h)
{
	return h->imm;
}

/**
 * Set the immediate data, given in network order.
 *
 * @param h
 *   The ImmDt in the frame.
 * @param imm
 *   New value.
 */
static inline void
dpv_immdt_set_imm(struct dpv_immdt *h, rte_be32_t imm)
{
	h->imm = imm;
}

/**
 * Read a field of the IETH.
 *
 * @param h
 *   The IETH in the frame.
 * @return
 *   The rkey to invalidate, host order.
 */
static inline uint32_t
dpv_ieth_rkey(const struct dpv_ieth *h)
{
	return rte_be_to_cpu_32(h->rkey);
}

/**
 * Set the rkey to invalidate.
 *
 * @param h
 *   The IETH in the frame.
 * @param rkey
 *   New value.
 */
static inline void
dpv_ieth_set_rkey(struct dpv_ieth *h, uint32_t rkey)
{
	h->rkey = rte_cpu_to_be_32(rkey);
}

/**
 * Read a field of the XRCETH.
 *
 * @param h
 *   The XRCETH in the frame.
 * @return
 *   The 24-bit XRC SRQ number.
 */
static inline uint32_t
dpv_xrceth_srqn(const struct dpv_xrceth *h)
{
	return rte_be_to_cpu_32(h->srqn) & DPV_ROCE_QPN_MASK;
}

/**
 * Set the XRC SRQ number (24 bits); the reserved byte is cleared.
 *
 * @param h
 *   The XRCETH in the frame.
 * @param srqn
 *   New value.
 */
static inline void
dpv_xrceth_set_srqn(struct dpv_xrceth *h, uint32_t srqn)
{
	h->srqn = rte_cpu_to_be_32(srqn & DPV_ROCE_QPN_MASK);
}

/**
 * Read the DC access key of a DCETH.
 *
 * @param h
 *   The DCETH in the frame.
 * @return
 *   The 64-bit key.
 */
static inline uint64_t
dpv_dceth_key(const struct dpv_dceth *h)
{
	return rte_be_to_cpu_64(h->key);
}

/**
 * Read the source DCI number of a DCETH.
 *
 * @param h
 *   The DCETH in the frame.
 * @return
 *   The 24-bit DCI QP number.
 */
static inline uint32_t
dpv_dceth_dci(const struct dpv_dceth *h)
{
	return rte_be_to_cpu_32(h->dci) & DPV_ROCE_QPN_MASK;
}

/**
 * Read the connection's first PSN of a DCETH.
 *
 * @param h
 *   The DCETH in the frame.
 * @return
 *   The 24-bit PSN.
 */
static inline uint32_t
dpv_dceth_cpsn(const struct dpv_dceth *h)
{
	return rte_be_to_cpu_32(h->cpsn) & DPV_ROCE_PSN_MASK;
}

/**
 * Write a DCETH; the reserved bytes are cleared.
 *
 * @param h
 *   The DCETH in the frame.
 * @param key
 *   The DC access key.
 * @param dci
 *   The source DCI QP number (24 bits).
 * @param cpsn
 *   The first PSN of the connection (24 bits).
 */
static inline void
dpv_dceth_set(struct dpv_dceth *h, uint64_t key, uint32_t dci, uint32_t cpsn)
{
	h->key = rte_cpu_to_be_64(key);
	h->dci = rte_cpu_to_be_32(dci & DPV_ROCE_QPN_MASK);
	h->cpsn = rte_cpu_to_be_32(cpsn & DPV_ROCE_PSN_MASK);
}

/* ---- PSN arithmetic ---- */

/**
 * Compare two 24-bit PSNs in the circular sequence space.
 *
 * @param a
 *   First PSN.
 * @param b
 *   Second PSN.
 * @return
 *   A negative value if a is before b, 0 if equal, positive if after
 *   (valid while they are less than 2^23 apart).
 */
static inline int32_t
dpv_psn_cmp(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

/**
 * Advance a PSN.
 *
 * @param psn
 *   A 24-bit PSN.
 * @param n
 *   Packets to advance by.
 * @return
 *   (psn + n) modulo 2^24.
 */
static inline uint32_t
dpv_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & DPV_ROCE_PSN_MASK;
}

#ifdef __cplusplus
}
#endif

#endif /* DPV_ROCE_HDR_H */
