/* SPDX-License-Identifier: BSD-3-Clause */
/* Receive checks: the cold parts (counting parse drops). */
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
