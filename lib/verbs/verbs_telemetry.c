/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_telemetry commands (DPDK's usertools/dpdk-telemetry.py reads them from
 * the process's telemetry socket):
 *   /dpverbs/devices            the device names
 *   /dpverbs/counters,DEV       the port, engine and fault layer counters
 *                               of DEV
 *   /dpverbs/qps,DEV            the QP numbers of DEV
 *   /dpverbs/qp,DEV,QPN         one QP: number, type, state, its counters
 * The engine's counters come from one X-macro list (DPV_ENGINE_COUNTERS)
 * and the parser's reasons (dpv_engine_stats_list()), so a counter added
 * there appears here by itself.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "dpv_engine.h"
#include "dpv_port.h"
#include "dpv_port_fault.h"
#include "qp.h"
#include "qp_attr.h"
#include "verbs_caps.h"
#include "verbs_ops.h"

#define TEL_MAX_QPS 1024u /* a telemetry array holds at most 512 u64 */

static struct dpv_device *
tel_device(const char *params)
{
	char name[64];
	size_t n;

	if (params == NULL)
		return NULL;
	n = strcspn(params, ",");
	if (n == 0 || n >= sizeof(name))
		return NULL;
	memcpy(name, params, n);
	name[n] = '\0';
	return dpv_verbs_device_lookup(name);
}

static int
tel_devices(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char name[16];

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	for (unsigned int i = 0; i < dpv_verbs_device_count(); i++) {
		snprintf(name, sizeof(name), "dpv%u", i);
		if (dpv_verbs_device_lookup(name) != NULL)
			rte_tel_data_add_array_string(d, name);
	}
	return 0;
}

static int
tel_counters(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct dpv_engine_counter cnt[DPV_ENGINE_N_COUNTERS];
	struct dpv_device *dev = tel_device(params);
	struct dpv_engine_stats st;
	struct dpv_fault_stats fs;
	struct dpv_port_info info;

	RTE_SET_USED(cmd);
	if (dev == NULL)
		return -EINVAL;
	rte_tel_data_start_dict(d);
	if (dev->port != NULL && dpv_port_query(dev->port, &info) == 0) {
		rte_tel_data_add_dict_int(d, "link_up", info.link_up);
		rte_tel_data_add_dict_u64(d, "mtu", info.mtu);
		rte_tel_data_add_dict_u64(d, "speed_mbps", info.speed_mbps);
	}
	memset(&st, 0, sizeof(st));
	/* no engine yet (device not opened): every counter is 0 */
	if (dev->engine != NULL)
		dpv_dev_engine_stats(dev, &st);
	dpv_engine_stats_list(&st, cnt, RTE_DIM(cnt));
	for (unsigned int i = 0; i < RTE_DIM(cnt); i++)
		rte_tel_data_add_dict_u64(d, cnt[i].name, cnt[i].value);
	/* ibv_get_cq_event(): answered while polling, or after a sleep */
	rte_tel_data_add_dict_u64(d, "event_waits_polled",
				  atomic_load(&dev->event_waits_polled));
	rte_tel_data_add_dict_u64(d, "event_waits_slept",
				  atomic_load(&dev->event_waits_slept));
	/* events taken by a polling waiter without the channel's fd */
	rte_tel_data_add_dict_u64(d, "events_in_memory",
				  atomic_load(&dev->events_in_memory));
	rte_tel_data_add_dict_u64(d, "events_carried",
				  atomic_load(&dev->events_carried));
	/* the fault layer between the engine and the port (0 when off) */
	memset(&fs, 0, sizeof(fs));
	if (dev->port != NULL)
		dpv_port_fault_stats_get(dev->port, &fs);
#define TEL_FAULT(n, desc) rte_tel_data_add_dict_u64(d, "fault_" #n, fs.n);
	DPV_FAULT_COUNTERS(TEL_FAULT)
#undef TEL_FAULT
	return 0;
}

static int
tel_qps(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct dpv_device *dev = tel_device(params);
	struct dpv_qp_brief *b;
	unsigned int n;

	RTE_SET_USED(cmd);
	if (dev == NULL)
		return -EINVAL;
	b = calloc(TEL_MAX_QPS, sizeof(*b));
	if (b == NULL)
		return -ENOMEM;
	n = RTE_MIN(dpv_qp_list(dev, b, TEL_MAX_QPS), TEL_MAX_QPS);
	rte_tel_data_start_array(d, RTE_TEL_U64_VAL);
	for (unsigned int i = 0; i < n; i++)
		if (rte_tel_data_add_array_u64(d, b[i].qpn) != 0)
			break; /* the array is full */
	free(b);
	return 0;
}

static int
tel_qp(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct dpv_device *dev = tel_device(params);
	const char *q = params ? strchr(params, ',') : NULL;
	struct dpv_engine_qp_stats qs;
	struct dpv_engine_qp_state st;
	struct dpv_qp_brief *b;
	unsigned long qpn;
	unsigned int n, i;
	char *end;

	RTE_SET_USED(cmd);
	if (dev == NULL || q == NULL)
		return -EINVAL;
	errno = 0;
	qpn = strtoul(q + 1, &end, 0);
	if (errno != 0 || *end != '\0' || end == q + 1 || qpn > 0xffffff)
		return -EINVAL;
	/* a snapshot taken under the table lock: no QP is read after free */
	b = calloc(DPV_CAP_MAX_QP, sizeof(*b));
	if (b == NULL)
		return -ENOMEM;
	n = RTE_MIN(dpv_qp_list(dev, b, DPV_CAP_MAX_QP), DPV_CAP_MAX_QP);
	for (i = 0; i < n && b[i].qpn != qpn; i++)
		;
	if (i == n) {
		free(b);
		return -ENOENT;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "qpn", b[i].qpn);
	rte_tel_data_add_dict_string(d, "type", dpv_qp_type_str(b[i].type));
	rte_tel_data_add_dict_string(d, "state", dpv_qp_state_str(b[i].state));
	free(b);
	/* QPs the engine runs (RC, UC, UD) have counters */
	if (dev->engine != NULL &&
	    dpv_engine_qp_stats_get(dpv_dev_qp_engine(dev, (uint32_t)qpn),
				    (uint32_t)qpn, &qs) == 0) {
#define TEL_QP_COUNTER(n, q, desc)                                             \
	DPV_ENGINE_CNT_IF_##q(rte_tel_data_add_dict_u64(d, #n, qs.n);)
		DPV_ENGINE_COUNTERS(TEL_QP_COUNTER)
#undef TEL_QP_COUNTER
	}
	if (dev->engine != NULL &&
	    dpv_engine_qp_state_get(dpv_dev_qp_engine(dev, (uint32_t)qpn),
				    (uint32_t)qpn, &st) == 0) {
		rte_tel_data_add_dict_u64(d, "sq_posted", st.sq_posted);
		rte_tel_data_add_dict_u64(d, "sq_fetched", st.sq_fetched);
		rte_tel_data_add_dict_u64(d, "sq_sent", st.sq_sent);
		rte_tel_data_add_dict_u64(d, "sq_done", st.sq_done);
		rte_tel_data_add_dict_u64(d, "sq_polled", st.sq_polled);
		rte_tel_data_add_dict_u64(d, "sq_psn", st.sq_psn);
		rte_tel_data_add_dict_u64(d, "sq_acked_psn", st.sq_acked_psn);
		rte_tel_data_add_dict_u64(d, "rq_posted", st.rq_posted);
		rte_tel_data_add_dict_u64(d, "rq_taken", st.rq_taken);
		rte_tel_data_add_dict_u64(d, "rq_psn", st.rq_psn);
		rte_tel_data_add_dict_u64(d, "rq_msn", st.rq_msn);
		rte_tel_data_add_dict_u64(d, "retry_left", st.retry_left);
		rte_tel_data_add_dict_u64(d, "rnr_left", st.rnr_left);
		rte_tel_data_add_dict_int(d, "on_run_list", st.on_run_list);
		/* -1: the retransmission timer is off */
		rte_tel_data_add_dict_int(
			d, "timer_us",
			st.timer_us == UINT64_MAX
				? -1
				: (int)RTE_MIN(st.timer_us, (uint64_t)INT_MAX));
	}
	return 0;
}

RTE_INIT(dpv_telemetry_register)
{
	rte_telemetry_register_cmd("/dpverbs/devices", tel_devices,
				   "dpverbs devices. No parameters");
	rte_telemetry_register_cmd("/dpverbs/counters", tel_counters,
				   "A device's port and engine counters. "
				   "Parameters: device name");
	rte_telemetry_register_cmd("/dpverbs/qps", tel_qps,
				   "A device's QP numbers. Parameters: device "
				   "name");
	rte_telemetry_register_cmd(
		"/dpverbs/qp", tel_qp,
		"One QP. Parameters: device name, QP number");
}
