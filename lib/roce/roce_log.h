/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_ROCE_LOG_H
#define DPV_ROCE_LOG_H

/* Internal: the dpv.roce log type. */
#include <rte_log.h>

extern int dpv_logtype_roce;

#define ROCE_LOG(level, fmt, ...)                                              \
	rte_log(RTE_LOG_##level, dpv_logtype_roce, "dpv.roce: " fmt "\n",      \
		##__VA_ARGS__)

#endif /* DPV_ROCE_LOG_H */
