/* SPDX-License-Identifier: BSD-3-Clause */
/* Receive checks: the cold parts (counting parse drops); the counters by
 * name. */
#include "engine_rxcheck.h"

void
dpv_engine_count_parse_drop(struct dpv_engine *e, enum dpv_roce_rx_status why)
{
	e->st.rx_drop_parse++;
	if ((unsigned)why < DPV_ROCE_RX_STATUS_NUM)
		e->st.rx_drop_parse_why[why]++;
	if (why == DPV_ROCE_RX_ICRC)
		e->st.rx_drop_icrc++;
}

#define PARSE_NAME_(e, n, d) DPV_ENGINE_PARSE_CNT_PREFIX n,
static const char *const parse_names[] = {DPV_ROCE_RX_STATUS_LIST(PARSE_NAME_)};
#undef PARSE_NAME_

unsigned
dpv_engine_stats_list(const struct dpv_engine_stats *st,
		      struct dpv_engine_counter *out, unsigned n)
{
	unsigned i = 0;

#define LIST_ONE_(c, q, desc)                                                  \
	if (i < n)                                                             \
		out[i] = (struct dpv_engine_counter){#c, st->c};               \
	i++;
	DPV_ENGINE_COUNTERS(LIST_ONE_)
#undef LIST_ONE_
	for (unsigned w = DPV_ROCE_RX_OK + 1; w < DPV_ROCE_RX_STATUS_NUM; w++) {
		if (i < n)
			out[i] = (struct dpv_engine_counter){
				parse_names[w], st->rx_drop_parse_why[w]};
		i++;
	}
	return i;
}
