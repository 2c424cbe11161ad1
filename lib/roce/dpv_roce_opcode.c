/* SPDX-License-Identifier: BSD-3-Clause */
/* The 256-entry opcode table. Offsets are computed at compile time from
 * the header-presence bits, in wire order. */
#include "dpv_roce_hdr.h"
#include "dpv_roce_opcode.h"

const uint8_t dpv_roce_hdr_size[DPV_HDR_NUM] = {
	[DPV_HDR_XRCETH] = sizeof(struct dpv_xrceth),
	[DPV_HDR_DCETH] = sizeof(struct dpv_dceth),
	[DPV_HDR_DETH] = sizeof(struct dpv_deth),
	[DPV_HDR_RETH] = sizeof(struct dpv_reth),
	[DPV_HDR_ATMETH] = sizeof(struct dpv_atmeth),
	[DPV_HDR_AETH] = sizeof(struct dpv_aeth),
	[DPV_HDR_ATMACK] = sizeof(struct dpv_atmack),
	[DPV_HDR_IMMDT] = sizeof(struct dpv_immdt),
	[DPV_HDR_IETH] = sizeof(struct dpv_ieth),
	[DPV_HDR_CNP] = sizeof(struct dpv_cnp),
};

#define SZ(m, h) (((m) & (1u << (h))) ? dpv_roce_hdr_size_c(h) : 0)
#define dpv_roce_hdr_size_c(h)                                                 \
	((h) == DPV_HDR_XRCETH	 ? 4                                           \
	 : (h) == DPV_HDR_DCETH	 ? 16                                          \
	 : (h) == DPV_HDR_DETH	 ? 8                                           \
	 : (h) == DPV_HDR_RETH	 ? 16                                          \
	 : (h) == DPV_HDR_ATMETH ? 28                                          \
	 : (h) == DPV_HDR_AETH	 ? 4                                           \
	 : (h) == DPV_HDR_ATMACK ? 8                                           \
	 : (h) == DPV_HDR_IMMDT	 ? 4                                           \
	 : (h) == DPV_HDR_IETH	 ? 4                                           \
				 : 16)

#define O_XRCETH(m) 12
#define O_DCETH(m)  (O_XRCETH(m) + SZ(m, DPV_HDR_XRCETH))
#define O_DETH(m)   (O_DCETH(m) + SZ(m, DPV_HDR_DCETH))
#define O_RETH(m)   (O_DETH(m) + SZ(m, DPV_HDR_DETH))
#define O_ATMETH(m) (O_RETH(m) + SZ(m, DPV_HDR_RETH))
#define O_AETH(m)   (O_ATMETH(m) + SZ(m, DPV_HDR_ATMETH))
#define O_ATMACK(m) (O_AETH(m) + SZ(m, DPV_HDR_AETH))
#define O_IMMDT(m)  (O_ATMACK(m) + SZ(m, DPV_HDR_ATMACK))
#define O_IETH(m)   (O_IMMDT(m) + SZ(m, DPV_HDR_IMMDT))
#define O_CNP(m)    (O_IETH(m) + SZ(m, DPV_HDR_IETH))
#define O_END(m)    (O_CNP(m) + SZ(m, DPV_HDR_CNP))

#define ENTRY(op_, name_, m_)                                                  \
	[op_] = {                                                              \
		.mask = (m_) | DPV_OPF_VALID,                                  \
		.length = O_END(m_),                                           \
		.off = {O_XRCETH(m_), O_DCETH(m_), O_DETH(m_), O_RETH(m_), O_ATMETH(m_),    \
			O_AETH(m_), O_ATMACK(m_), O_IMMDT(m_), O_IETH(m_),     \
			O_CNP(m_)},                                            \
		.name = name_,                                                 \
	}

/* Operation masks without transport bits. */
#define M_SEND_FIRST                                                           \
	(DPV_OPF_REQ | DPV_OPF_SEND | DPV_OPF_FIRST | DPV_OPF_PAYLOAD |        \
	 DPV_OPF_RWR)
#define M_SEND_MIDDLE                                                          \
	(DPV_OPF_REQ | DPV_OPF_SEND | DPV_OPF_MIDDLE | DPV_OPF_PAYLOAD)
#define M_SEND_LAST                                                            \
	(DPV_OPF_REQ | DPV_OPF_SEND | DPV_OPF_LAST | DPV_OPF_PAYLOAD |         \
	 DPV_OPF_RECV_COMP)
#define M_SEND_ONLY (M_SEND_FIRST | M_SEND_LAST)
#define M_WRITE_FIRST                                                          \
	(DPV_OPF_REQ | DPV_OPF_WRITE | DPV_OPF_FIRST | DPV_OPF_PAYLOAD |       \
	 DPV_OPF_RETH)
#define M_WRITE_MIDDLE                                                         \
	(DPV_OPF_REQ | DPV_OPF_WRITE | DPV_OPF_MIDDLE | DPV_OPF_PAYLOAD)
#define M_WRITE_LAST                                                           \
	(DPV_OPF_REQ | DPV_OPF_WRITE | DPV_OPF_LAST | DPV_OPF_PAYLOAD)
#define M_WRITE_ONLY (M_WRITE_FIRST | M_WRITE_LAST)
/* WRITE with immediate takes a receive WQE; SEND took it at its first. */
#define M_IMM_SEND DPV_OPF_IMMDT
#define M_IMM	   (DPV_OPF_IMMDT | DPV_OPF_RWR | DPV_OPF_RECV_COMP)
#define M_READ_REQ (DPV_OPF_REQ | DPV_OPF_READ | DPV_OPF_ONLY | DPV_OPF_RETH)
#define M_RRESP	   (DPV_OPF_RESP | DPV_OPF_READ_RESP | DPV_OPF_PAYLOAD)
#define M_ATOMIC   (DPV_OPF_REQ | DPV_OPF_ATOMIC | DPV_OPF_ONLY | DPV_OPF_ATMETH)
/* ATOMIC WRITE: an atomic with a RETH and its 8 bytes as payload */
#define M_ATOMIC_WRITE                                                         \
	(DPV_OPF_REQ | DPV_OPF_ATOMIC | DPV_OPF_ONLY | DPV_OPF_RETH |          \
	 DPV_OPF_PAYLOAD)
#define M_ACK	   (DPV_OPF_RESP | DPV_OPF_ACK | DPV_OPF_ONLY | DPV_OPF_AETH)
#define M_ATOMIC_ACK                                                           \
	(DPV_OPF_RESP | DPV_OPF_ATOMIC_ACK | DPV_OPF_ONLY | DPV_OPF_AETH |     \
	 DPV_OPF_ATMACK)

/* Opcodes shared by RC and UC (UC: no AckReq). */
#define SEND_WRITE(tr, p, t, a)                                                \
	ENTRY(tr | 0x00, p "SEND_FIRST", t | M_SEND_FIRST),                    \
		ENTRY(tr | 0x01, p "SEND_MIDDLE", t | M_SEND_MIDDLE),          \
		ENTRY(tr | 0x02, p "SEND_LAST", t | a | M_SEND_LAST),          \
		ENTRY(tr | 0x03, p "SEND_LAST_WITH_IMMEDIATE",                 \
		      t | a | M_SEND_LAST | M_IMM_SEND),                       \
		ENTRY(tr | 0x04, p "SEND_ONLY", t | a | M_SEND_ONLY),          \
		ENTRY(tr | 0x05, p "SEND_ONLY_WITH_IMMEDIATE",                 \
		      t | a | M_SEND_ONLY | M_IMM_SEND),                       \
		ENTRY(tr | 0x06, p "RDMA_WRITE_FIRST", t | M_WRITE_FIRST),     \
		ENTRY(tr | 0x07, p "RDMA_WRITE_MIDDLE", t | M_WRITE_MIDDLE),   \
		ENTRY(tr | 0x08, p "RDMA_WRITE_LAST", t | a | M_WRITE_LAST),   \
		ENTRY(tr | 0x09, p "RDMA_WRITE_LAST_WITH_IMMEDIATE",           \
		      t | a | M_WRITE_LAST | M_IMM),                           \
		ENTRY(tr | 0x0a, p "RDMA_WRITE_ONLY", t | a | M_WRITE_ONLY),   \
		ENTRY(tr | 0x0b, p "RDMA_WRITE_ONLY_WITH_IMMEDIATE",           \
		      t | a | M_WRITE_ONLY | M_IMM)

/* The rest of the reliable opcodes (RC, XRC whose requests carry the
 * XRCETH, DC whose requests carry the DCETH). */
#define RELIABLE(tr, p, t, x)                                                  \
	SEND_WRITE(tr, p, t | x, DPV_OPF_ACKREQ),                              \
		ENTRY(tr | 0x0c, p "RDMA_READ_REQUEST",                        \
		      t | x | DPV_OPF_ACKREQ | M_READ_REQ),                    \
		ENTRY(tr | 0x0d, p "RDMA_READ_RESPONSE_FIRST",                 \
		      t | M_RRESP | DPV_OPF_FIRST | DPV_OPF_AETH),             \
		ENTRY(tr | 0x0e, p "RDMA_READ_RESPONSE_MIDDLE",                \
		      t | M_RRESP | DPV_OPF_MIDDLE),                           \
		ENTRY(tr | 0x0f, p "RDMA_READ_RESPONSE_LAST",                  \
		      t | M_RRESP | DPV_OPF_LAST | DPV_OPF_AETH),              \
		ENTRY(tr | 0x10, p "RDMA_READ_RESPONSE_ONLY",                  \
		      t | M_RRESP | DPV_OPF_ONLY | DPV_OPF_AETH),              \
		ENTRY(tr | 0x11, p "ACKNOWLEDGE", t | M_ACK),                  \
		ENTRY(tr | 0x12, p "ATOMIC_ACKNOWLEDGE", t | M_ATOMIC_ACK),    \
		ENTRY(tr | 0x13, p "COMPARE_SWAP",                             \
		      t | x | DPV_OPF_ACKREQ | M_ATOMIC),                      \
		ENTRY(tr | 0x14, p "FETCH_ADD",                                \
		      t | x | DPV_OPF_ACKREQ | M_ATOMIC),                      \
		ENTRY(tr | 0x16, p "SEND_LAST_WITH_INVALIDATE",                \
		      t | x | DPV_OPF_ACKREQ | M_SEND_LAST | DPV_OPF_IETH),    \
		ENTRY(tr | 0x17, p "SEND_ONLY_WITH_INVALIDATE",                \
		      t | x | DPV_OPF_ACKREQ | M_SEND_ONLY | DPV_OPF_IETH)

const struct dpv_roce_opcode_info dpv_roce_opcode_tbl[256] = {
	RELIABLE(DPV_ROCE_TR_RC, "RC_", DPV_OPF_RC, 0),
	ENTRY(DPV_ROCE_TR_RC | DPV_ROCE_OP_ATOMIC_WRITE, "RC_ATOMIC_WRITE",
	      DPV_OPF_RC | DPV_OPF_ACKREQ | M_ATOMIC_WRITE),
	SEND_WRITE(DPV_ROCE_TR_UC, "UC_", DPV_OPF_UC, 0),
	ENTRY(DPV_ROCE_TR_UD | 0x04, "UD_SEND_ONLY",
	      DPV_OPF_UD | DPV_OPF_DETH | M_SEND_ONLY),
	ENTRY(DPV_ROCE_TR_UD | 0x05, "UD_SEND_ONLY_WITH_IMMEDIATE",
	      DPV_OPF_UD | DPV_OPF_DETH | M_SEND_ONLY | M_IMM_SEND),
	ENTRY(DPV_ROCE_OPCODE_CNP, "CNP", DPV_OPF_CNP | DPV_OPF_CNPH),
	RELIABLE(DPV_ROCE_TR_XRC, "XRC_", DPV_OPF_XRC, DPV_OPF_XRCETH),
	RELIABLE(DPV_ROCE_TR_DC, "DC_", 0, DPV_OPF_DCETH),
};
