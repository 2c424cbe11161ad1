/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_QP_TABLE_H
#define DPV_QP_TABLE_H

/*
 * The per-device QP table (qp.c), shared with the multicast groups
 * (qp_mcast.c). Private to lib/verbs.
 */
#include <pthread.h>
#include <stdint.h>

#include "qp.h"
#include "verbs_caps.h"

/*
 * QPN = generation << DPV_QPN_SLOT_BITS | slot. A slot's generation moves
 * on each reuse, so a number is not handed out again soon after its QP is
 * destroyed. Numbers 0 and 1 (special QPs) and 0xffffff (multicast) are
 * never produced. Readers index the slot and compare the number: no lock.
 */
#define DPV_QPN_SLOT_BITS 14
#define DPV_QPN_SLOTS	  (1u << DPV_QPN_SLOT_BITS)
#define DPV_QPN_GEN_MASK  ((1u << (24 - DPV_QPN_SLOT_BITS)) - 1)

_Static_assert(DPV_CAP_MAX_QP <= DPV_QPN_SLOTS, "QPN slots");

/* A multicast group of the device and the QPs attached to it. */
struct qp_mcast_grp {
	uint8_t gid[16];
	unsigned int n; /* 0: free entry */
	uint32_t qpn[DPV_CAP_MAX_MCAST_QP_ATTACH];
};

struct qp_table {
	pthread_mutex_t lock; /* writers; also serializes flush producers */
	unsigned int hint;
	unsigned int count;
	struct dpv_qp *_Atomic slot[DPV_QPN_SLOTS];
	uint16_t gen[DPV_QPN_SLOTS];
	/* engine shards: QPN << 8 | 1 + the shard of the QP in the slot,
	 * 0 for none (read by any shard without a lock) */
	_Atomic uint32_t owner[DPV_QPN_SLOTS];
	struct qp_mcast_grp grp[DPV_CAP_MAX_MCAST_GRP]; /* under lock */
};

/* The device's QP table if it has one yet (NULL dev: none). */
static inline struct qp_table *
qp_table_peek(struct dpv_device *dev)
{
	if (dev == NULL)
		return NULL;
	return __atomic_load_n((struct qp_table **)&dev->qp_priv,
			       __ATOMIC_ACQUIRE);
}

#endif /* DPV_QP_TABLE_H */
