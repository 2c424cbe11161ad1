/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rejected frames are visible through the API (issue 12.5): frames with a
 * bad P_Key and a bad BTH TVer, handed to device dpv0 with
 * dpv_device_rx(), show up in dpv_device_counters() under rx_drop_pkey
 * and rx_drop_parse_tver, and the P_Key one in ibv_query_port()'s
 * bad_pkey_cntr (what ibv_devinfo -v prints).
 */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include <rte_mbuf.h>

#include "dpv_port.h"
#include "dpv_roce.h"
#include "dpv_test.h"
#include "dpv_verbs.h"

static uint64_t
counter(struct ibv_context *ctx, const char *name)
{
	struct dpv_device_counter c[128];
	int n = dpv_device_counters(ctx, c, 128);

	for (int i = 0; i < n && i < 128; i++)
		if (strcmp(c[i].name, name) == 0)
			return c[i].value;
	return UINT64_MAX;
}

/* A valid RC SEND_ONLY to QP 0x123 of the device, then one change. */
static struct rte_mbuf *
forge(struct rte_mempool *mp, const struct dpv_port_info *pi,
      const union ibv_gid *gid, uint16_t pkey, uint8_t tver)
{
	static const uint8_t payload[32];
	struct dpv_roce_pkt p = {
		.opcode = DPV_ROCE_OP_SEND_ONLY,
		.ttl = DPV_ROCE_TTL_DEFAULT,
		.ip_frag = DPV_ROCE_IPV4_DF,
		.sport = 0xc000,
		.pkey = pkey,
		.tver = tver,
		.dqpn = 0x123,
		.payload = payload,
		.payload_len = sizeof(payload),
	};
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *d;

	if (m == NULL)
		return NULL;
	memcpy(p.dmac, pi->mac, 6);
	memcpy(p.smac, pi->mac, 6);
	memcpy(p.sgid, gid->raw, 16);
	memcpy(p.dgid, gid->raw, 16);
	p.ipv6 = !dpv_roce_gid_is_ipv4(p.dgid);
	d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)dpv_roce_frame_len(&p));
	if (d == NULL || dpv_roce_build(d, rte_pktmbuf_data_len(m), &p) <= 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

static int
test_verbs_counters(void)
{
	struct dpv_device_counter one;
	struct rte_mempool *mp = NULL;
	struct ibv_context *ctx = NULL;
	struct ibv_port_attr pa0, pa1;
	struct ibv_device **devs;
	struct dpv_port_info pi;
	struct rte_mbuf *m[2];
	uint64_t pkey0, tver0;
	union ibv_gid gid;
	int i, n, ret = TEST_FAILED;

	if (dpv_test_eal_init() != 0)
		return TEST_SKIPPED;
	TEST_ASSERT_EQUAL(dpv_device_counters(NULL, NULL, 0), -EINVAL, "");
	devs = ibv_get_device_list(&n);
	for (i = 0; devs != NULL && i < n; i++)
		if (strcmp(ibv_get_device_name(devs[i]), "dpv0") == 0)
			ctx = ibv_open_device(devs[i]);
	if (devs != NULL)
		ibv_free_device_list(devs);
	if (ctx == NULL)
		return TEST_SKIPPED;
	n = dpv_device_counters(ctx, NULL, 0);
	if (n == -ENODEV) {
		ibv_close_device(ctx);
		return TEST_SKIPPED; /* no transport */
	}
	if (n <= 0 || dpv_device_counters(ctx, NULL, 1) != -EINVAL ||
	    dpv_device_counters(ctx, &one, 1) != n ||
	    strcmp(one.name, "rx_pkts") != 0) {
		DPV_TEST_LOG("dpv_device_counters: %d counters", n);
		goto out;
	}
	if (dpv_port_query(dpv_port_by_name("dpv0"), &pi) != 0 ||
	    ibv_query_gid(ctx, 1, 1, &gid) != 0 ||
	    ibv_query_port(ctx, 1, &pa0) != 0)
		goto out;
	mp = rte_pktmbuf_pool_create("verbs_cnt_mp", 63, 0, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (mp == NULL)
		goto out;
	pkey0 = counter(ctx, "rx_drop_pkey");
	tver0 = counter(ctx, "rx_drop_parse_tver");
	m[0] = forge(mp, &pi, &gid, 0x1234, 0);
	m[1] = forge(mp, &pi, &gid, 0xffff, 2);
	if (m[0] == NULL || m[1] == NULL || dpv_device_rx(ctx, m, 2) != 2) {
		DPV_TEST_LOG("could not hand the frames over");
		goto out;
	}
	for (i = 0; i < 10; i++)
		dpv_device_poll(ctx, 0);
	if (ibv_query_port(ctx, 1, &pa1) != 0)
		goto out;
	DPV_TEST_LOG("rx_drop_pkey %" PRIu64 " -> %" PRIu64
		     ", rx_drop_parse_tver %" PRIu64 " -> %" PRIu64
		     ", bad_pkey_cntr %u -> %u",
		     pkey0, counter(ctx, "rx_drop_pkey"), tver0,
		     counter(ctx, "rx_drop_parse_tver"), pa0.bad_pkey_cntr,
		     pa1.bad_pkey_cntr);
	if (counter(ctx, "rx_drop_pkey") == pkey0 + 1 &&
	    counter(ctx, "rx_drop_parse_tver") == tver0 + 1 &&
	    pa1.bad_pkey_cntr == pa0.bad_pkey_cntr + 1 &&
	    pa1.qkey_viol_cntr == pa0.qkey_viol_cntr)
		ret = TEST_SUCCESS;
out:
	ibv_close_device(ctx);
	rte_mempool_free(mp);
	return ret;
}

DPV_TEST_REGISTER_FAST(verbs_counters, test_verbs_counters);
