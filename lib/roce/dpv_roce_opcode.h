/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_ROCE_OPCODE_H
#define DPV_ROCE_OPCODE_H

/**
 * @file
 * The RoCE opcode table.
 *
 * The 8-bit BTH opcode is a transport (bits 7..5: RC, UC, RD, UD, CNP,
 * XRC, and DC in the manufacturer-specific range 0xe0) and an operation (bits 4..0). dpv_roce_opcode_tbl[] has one entry
 * per wire opcode saying which extension headers the packet carries, where
 * they are (offsets from the start of the BTH), how long all headers are,
 * and what the packet means, as DPV_OPF_* mask bits. Code on the data path
 * tests mask bits instead of switching on opcodes:
 *
 *     const struct dpv_roce_opcode_info *oi = dpv_roce_opcode(op);
 *     if (!(oi->mask & DPV_OPF_VALID)) drop;
 *     if (oi->mask & DPV_OPF_RETH) reth = bth + oi->off[DPV_HDR_RETH];
 *     if (oi->mask & DPV_OPF_RWR) take a receive WQE;
 *
 * Entries of opcodes that are reserved, or of the RD transport (not
 * supported), are all zero (no DPV_OPF_VALID, name NULL). DC opcodes
 * (transport DPV_ROCE_TR_DC) have no transport bit of their own (the mask
 * has none left): test (opcode & 0xe0) == DPV_ROCE_TR_DC.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Transport part of an opcode (bits 7..5). */
enum dpv_roce_transport {
	DPV_ROCE_TR_RC = 0x00,	/**< reliable connected */
	DPV_ROCE_TR_UC = 0x20,	/**< unreliable connected */
	DPV_ROCE_TR_RD = 0x40,	/**< reliable datagram (not supported) */
	DPV_ROCE_TR_UD = 0x60,	/**< unreliable datagram */
	DPV_ROCE_TR_CNP = 0x80, /**< congestion notification (RoCEv2) */
	DPV_ROCE_TR_XRC = 0xa0, /**< extended reliable connected */
	/** Dynamically Connected (mlx5dv DCI/DCT) in dpverbs' own format:
	 *  the IBA's manufacturer-specific opcode range (doc/guides/dc.rst) */
	DPV_ROCE_TR_DC = 0xe0,
};

/** Operation part of an opcode (bits 4..0); OR it with a transport. */
enum dpv_roce_op {
	DPV_ROCE_OP_SEND_FIRST = 0x00,
	DPV_ROCE_OP_SEND_MIDDLE = 0x01,
	DPV_ROCE_OP_SEND_LAST = 0x02,
	DPV_ROCE_OP_SEND_LAST_IMM = 0x03,
	DPV_ROCE_OP_SEND_ONLY = 0x04,
	DPV_ROCE_OP_SEND_ONLY_IMM = 0x05,
	DPV_ROCE_OP_WRITE_FIRST = 0x06,
	DPV_ROCE_OP_WRITE_MIDDLE = 0x07,
	DPV_ROCE_OP_WRITE_LAST = 0x08,
	DPV_ROCE_OP_WRITE_LAST_IMM = 0x09,
	DPV_ROCE_OP_WRITE_ONLY = 0x0a,
	DPV_ROCE_OP_WRITE_ONLY_IMM = 0x0b,
	DPV_ROCE_OP_READ_REQUEST = 0x0c,
	DPV_ROCE_OP_READ_RESP_FIRST = 0x0d,
	DPV_ROCE_OP_READ_RESP_MIDDLE = 0x0e,
	DPV_ROCE_OP_READ_RESP_LAST = 0x0f,
	DPV_ROCE_OP_READ_RESP_ONLY = 0x10,
	DPV_ROCE_OP_ACK = 0x11,
	DPV_ROCE_OP_ATOMIC_ACK = 0x12,
	DPV_ROCE_OP_CMP_SWAP = 0x13,
	DPV_ROCE_OP_FETCH_ADD = 0x14,
	DPV_ROCE_OP_SEND_LAST_INV = 0x16,
	DPV_ROCE_OP_SEND_ONLY_INV = 0x17,
	/** RDMA ATOMIC WRITE (IBA 1.5, memory placement extensions): a RETH
	 *  and exactly 8 bytes written at once; answered by an empty RDMA
	 *  READ RESPONSE ONLY. RC only. */
	DPV_ROCE_OP_ATOMIC_WRITE = 0x1d,
};

/** The CNP opcode (RoCEv2 Annex A17). */
#define DPV_ROCE_OPCODE_CNP 0x81

/** Extension headers, in wire order after the BTH. */
enum dpv_roce_hdr_id {
	DPV_HDR_XRCETH, /**< XRC requests */
	DPV_HDR_DCETH,	/**< DC requests (dpverbs' own, 16 bytes) */
	DPV_HDR_DETH,	/**< UD */
	DPV_HDR_RETH,	/**< WRITE first/only, READ request */
	DPV_HDR_ATMETH, /**< CmpSwap, FetchAdd */
	DPV_HDR_AETH,	/**< ACK, READ response first/last/only, atomic ACK */
	DPV_HDR_ATMACK, /**< atomic ACK */
	DPV_HDR_IMMDT,	/**< ... with immediate */
	DPV_HDR_IETH,	/**< SEND with invalidate */
	DPV_HDR_CNP,	/**< 16 reserved bytes of a CNP */
	DPV_HDR_NUM
};

/* Header presence: bit n <=> enum dpv_roce_hdr_id n. */
#define DPV_OPF_XRCETH (1u << DPV_HDR_XRCETH) /**< carries an XRCETH */
#define DPV_OPF_DCETH  (1u << DPV_HDR_DCETH)  /**< carries a DCETH */
#define DPV_OPF_DETH   (1u << DPV_HDR_DETH)   /**< carries a DETH */
#define DPV_OPF_RETH   (1u << DPV_HDR_RETH)   /**< carries a RETH */
#define DPV_OPF_ATMETH (1u << DPV_HDR_ATMETH) /**< carries an AtomicETH */
#define DPV_OPF_AETH   (1u << DPV_HDR_AETH)   /**< carries an AETH */
#define DPV_OPF_ATMACK (1u << DPV_HDR_ATMACK) /**< carries an AtomicAckETH */
#define DPV_OPF_IMMDT  (1u << DPV_HDR_IMMDT)  /**< carries immediate data */
#define DPV_OPF_IETH   (1u << DPV_HDR_IETH)   /**< carries an IETH */
#define DPV_OPF_CNPH   (1u << DPV_HDR_CNP)    /**< carries the CNP body */
/** All header-presence bits. */
#define DPV_OPF_HDR_MASK ((1u << DPV_HDR_NUM) - 1)

/** Carries payload bytes (possibly zero of them) after the headers. */
#define DPV_OPF_PAYLOAD (1u << 10)
/** Request: sent by a requester to a responder. */
#define DPV_OPF_REQ (1u << 11)
/** Response: ACK/NAK, READ response or atomic ACK. */
#define DPV_OPF_RESP (1u << 12)
/** SEND (any variant). */
#define DPV_OPF_SEND (1u << 13)
/** RDMA WRITE (any variant). */
#define DPV_OPF_WRITE (1u << 14)
/** RDMA READ request. */
#define DPV_OPF_READ (1u << 15)
/** Atomic request: CmpSwap or FetchAdd (with an AtomicETH), or ATOMIC
 *  WRITE (with a RETH and a payload: dpv_roce_op_atomic_write()). */
#define DPV_OPF_ATOMIC (1u << 16)
/** RDMA READ response (any position). */
#define DPV_OPF_READ_RESP (1u << 17)
/** ACKNOWLEDGE packet (ACK or NAK, per the AETH syndrome). */
#define DPV_OPF_ACK (1u << 18)
/** ATOMIC ACKNOWLEDGE packet. */
#define DPV_OPF_ATOMIC_ACK (1u << 19)
/** First packet of a message. */
#define DPV_OPF_FIRST (1u << 20)
/** Middle packet of a message: exactly path-MTU payload, no pad. */
#define DPV_OPF_MIDDLE (1u << 21)
/** Last packet of a message. */
#define DPV_OPF_LAST (1u << 22)
/** Only packet of a message (both first and last). */
#define DPV_OPF_ONLY (DPV_OPF_FIRST | DPV_OPF_LAST)
/** The responder takes a receive WQE for this message on this packet. */
#define DPV_OPF_RWR (1u << 23)
/** The responder generates a receive completion on this packet. */
#define DPV_OPF_RECV_COMP (1u << 24)
/** A requester sets AckReq on this opcode (RC/XRC last and only). */
#define DPV_OPF_ACKREQ (1u << 25)
/** Transport RC. */
#define DPV_OPF_RC (1u << 26)
/** Transport UC. */
#define DPV_OPF_UC (1u << 27)
/** Transport UD. */
#define DPV_OPF_UD (1u << 28)
/** Transport XRC. */
#define DPV_OPF_XRC (1u << 29)
/** Congestion notification packet. */
#define DPV_OPF_CNP (1u << 30)
/** The opcode is defined and supported. */
#define DPV_OPF_VALID (1u << 31)

/** What one wire opcode means; see the file comment. */
struct dpv_roce_opcode_info {
	uint32_t mask;	/**< DPV_OPF_* bits, 0 for an invalid opcode */
	uint8_t length; /**< bytes of BTH + all extension headers */
	/** Offset of each extension header from the start of the BTH;
	 *  meaningful only where mask has the header's DPV_OPF_ bit. */
	uint8_t off[DPV_HDR_NUM];
	const char *name; /**< e.g. "RC_SEND_ONLY"; NULL if invalid */
};

/** The table, indexed by the wire opcode. */
extern const struct dpv_roce_opcode_info dpv_roce_opcode_tbl[256];

/** Size of each extension header in bytes, indexed by enum dpv_roce_hdr_id. */
extern const uint8_t dpv_roce_hdr_size[DPV_HDR_NUM];

/**
 * Look up an opcode.
 *
 * @param opcode
 *   BTH opcode.
 * @return
 *   The table entry (never NULL; test DPV_OPF_VALID).
 */
static inline const struct dpv_roce_opcode_info *
dpv_roce_opcode(uint8_t opcode)
{
	return &dpv_roce_opcode_tbl[opcode];
}

/**
 * Name of an opcode, for logs and traces.
 *
 * @param opcode
 *   BTH opcode.
 * @return
 *   A static string such as "RC_SEND_ONLY"; "INVALID" for an opcode that is
 *   reserved or not supported.
 */
static inline const char *
dpv_roce_opcode_name(uint8_t opcode)
{
	const char *n = dpv_roce_opcode_tbl[opcode].name;

	return n != NULL ? n : "INVALID";
}

/**
 * Whether opcode flags describe an ATOMIC WRITE (an atomic that carries a
 * RETH and a payload) rather than CmpSwap or FetchAdd.
 *
 * @param fl
 *   The opcode's flags (struct dpv_roce_opcode_info mask).
 * @return
 *   true for ATOMIC WRITE.
 */
static inline bool
dpv_roce_op_atomic_write(uint32_t fl)
{
	return (fl & (DPV_OPF_ATOMIC | DPV_OPF_RETH)) ==
	       (DPV_OPF_ATOMIC | DPV_OPF_RETH);
}

#ifdef __cplusplus
}
#endif

#endif /* DPV_ROCE_OPCODE_H */
