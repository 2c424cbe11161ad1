/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Verbs front end: device list, context, queries, strings and rates,
 * asynchronous events, through the public ibv_* API.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "dpv_test.h"
#include "verbs_int.h"
#include "verbs_port.h"

/* not in the installed headers */
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, unsigned int *type);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);

static struct ibv_device **devs;
static int ndevs;
static struct ibv_context *ctx;

static int
dev_setup(void)
{
	if (dpv_test_eal_init() != 0)
		return TEST_FAILED;
	/* deterministic addresses: dpv0 gets an IPv4 GID in slot 1 */
	setenv("DPV_IP", "198.51.100.9/24", 1);
	devs = ibv_get_device_list(&ndevs);
	if (devs == NULL || ndevs < 1) {
		DPV_TEST_LOG("no device: %s", strerror(errno));
		return TEST_FAILED;
	}
	ctx = ibv_open_device(devs[0]);
	return ctx ? TEST_SUCCESS : TEST_FAILED;
}

static void
dev_teardown(void)
{
	if (ctx)
		ibv_close_device(ctx);
	ctx = NULL;
	ibv_free_device_list(devs);
	devs = NULL;
}

static int
test_device_list(void)
{
	struct dpv_port_info info;
	int n2 = -1;
	struct ibv_device **l2 = ibv_get_device_list(&n2);

	TEST_ASSERT_NOT_NULL(l2, "second list");
	TEST_ASSERT_EQUAL(n2, ndevs, "stable count");
	TEST_ASSERT_NULL(devs[ndevs], "NULL-terminated");
	for (int i = 0; i < ndevs; i++) {
		char want[16];

		snprintf(want, sizeof(want), "dpv%d", i);
		TEST_ASSERT(strcmp(ibv_get_device_name(devs[i]), want) == 0,
			    "name %s", ibv_get_device_name(devs[i]));
		TEST_ASSERT_EQUAL(ibv_get_device_index(devs[i]), i, "index");
		TEST_ASSERT(devs[i] == l2[i], "same device objects");
		TEST_ASSERT_EQUAL(devs[i]->node_type, IBV_NODE_CA, "CA");
	}
	ibv_free_device_list(l2);

	/* every scan refreshes the port pointer (ports can be re-created by
	 * dpv_port_fini() + dpv_port_init()): simulate a stale one */
	struct dpv_device *d0 = to_ddev(devs[0]);
	struct dpv_port *p0 = d0->port;

	d0->port = NULL;
	l2 = ibv_get_device_list(&n2);
	TEST_ASSERT_NOT_NULL(l2, "third list");
	ibv_free_device_list(l2);
	TEST_ASSERT(d0->port == dpv_port_get(0), "port pointer refreshed");
	d0->port = p0;

	/* GUID: modified EUI-64 of the port MAC, network order */
	TEST_ASSERT_EQUAL(dpv_port_query(dpv_port_get(0), &info), 0, "port");
	uint64_t g = ibv_get_device_guid(devs[0]);
	const uint8_t *b = (const uint8_t *)&g;

	TEST_ASSERT_EQUAL(b[0], info.mac[0] ^ 2, "u/l bit flipped");
	TEST_ASSERT_EQUAL(b[3], 0xff, "ff");
	TEST_ASSERT_EQUAL(b[4], 0xfe, "fe");
	TEST_ASSERT_EQUAL(b[7], info.mac[5], "last byte");
	return TEST_SUCCESS;
}

static int
test_context(void)
{
	struct verbs_context *vctx = verbs_get_ctx(ctx);
	struct ibv_context *c2;

	TEST_ASSERT(ctx->abi_compat == __VERBS_ABI_IS_EXTENDED, "extended");
	TEST_ASSERT_NOT_NULL(vctx, "verbs_context");
	TEST_ASSERT_EQUAL(vctx->sz, sizeof(struct verbs_context), "sz");
	TEST_ASSERT(fcntl(ctx->async_fd, F_GETFD) >= 0, "async_fd is an fd");
	TEST_ASSERT(ctx->ops.post_send && ctx->ops.post_recv &&
			    ctx->ops.post_srq_recv && ctx->ops.poll_cq &&
			    ctx->ops.req_notify_cq && ctx->ops.alloc_mw &&
			    ctx->ops.dealloc_mw && ctx->ops.bind_mw,
		    "ibv_context ops filled");
	TEST_ASSERT(vctx->query_port && vctx->query_device_ex &&
			    vctx->create_cq_ex && vctx->create_srq_ex &&
			    vctx->open_xrcd && vctx->close_xrcd &&
			    vctx->get_srq_num,
		    "verbs_context ops filled");
	TEST_ASSERT_EQUAL(ctx->num_comp_vectors, 1, "one vector");
	c2 = ibv_open_device(devs[0]);
	TEST_ASSERT_NOT_NULL(c2, "open twice");
	TEST_ASSERT(c2 != ctx, "two contexts");
	TEST_ASSERT_EQUAL(ibv_close_device(c2), 0, "close");
	return TEST_SUCCESS;
}

static int
test_query_device(void)
{
	struct ibv_device_attr a;
	struct ibv_device_attr_ex ax;
	struct ibv_query_device_ex_input in = {0};

	memset(&a, 0xa5, sizeof(a));
	TEST_ASSERT_EQUAL(ibv_query_device(ctx, &a), 0, "query");
	TEST_ASSERT(strncmp(a.fw_ver, "dpverbs ", 8) == 0, "fw %s", a.fw_ver);
	TEST_ASSERT_EQUAL(a.vendor_id, DPV_VENDOR_ID, "vendor");
	TEST_ASSERT(a.vendor_id != 0x02c9 && a.vendor_id != 0x1d0f,
		    "not MLX/AWS");
	TEST_ASSERT_EQUAL(a.phys_port_cnt, 1, "ports");
	TEST_ASSERT(a.node_guid == ibv_get_device_guid(devs[0]), "guid");
	TEST_ASSERT(a.sys_image_guid != 0, "sys guid");
	TEST_ASSERT(a.max_qp > 0 && a.max_cq > 0 && a.max_mr > 0 &&
			    a.max_pd > 0 && a.max_cqe > 0 && a.max_sge > 0 &&
			    a.max_qp_wr > 0 && a.max_pkeys == 1,
		    "limits");
	TEST_ASSERT(a.max_mr_size > 4096 && a.page_size_cap >= 4096, "sizes");
	TEST_ASSERT_EQUAL(a.atomic_cap, IBV_ATOMIC_HCA, "atomics");
	TEST_ASSERT_EQUAL(a.max_qp_rd_atom, 128, "rd atom");
	TEST_ASSERT_EQUAL(a.max_qp_init_rd_atom, 128, "init rd atom");
	TEST_ASSERT(!(a.device_cap_flags & IBV_DEVICE_RESIZE_MAX_WR),
		    "no resize");
	TEST_ASSERT(!(a.device_cap_flags & IBV_DEVICE_AUTO_PATH_MIG), "no APM");

	memset(&ax, 0xa5, sizeof(ax));
	TEST_ASSERT_EQUAL(ibv_query_device_ex(ctx, NULL, &ax), 0, "ex");
	TEST_ASSERT_EQUAL(ax.phys_port_cnt_ex, ax.orig_attr.phys_port_cnt,
			  "phys_port_cnt_ex");
	TEST_ASSERT(memcmp(&ax.orig_attr, &a, sizeof(a)) == 0, "same attrs");
	/* the 64-bit flags carry the 32-bit ones, as rdma-core's do, and
	 * above them only the raw-packet FCS scatter (test_raw_ofl.c), PCI
	 * write end padding (test_raw_cflags.c) and RC ATOMIC WRITE (bit
	 * 40, test_engine_rdatomic.c) */
	TEST_ASSERT_EQUAL(ax.device_cap_flags_ex,
			  (uint64_t)(uint32_t)a.device_cap_flags |
				  IBV_DEVICE_RAW_SCATTER_FCS |
				  IBV_DEVICE_PCI_WRITE_END_PADDING |
				  (1ULL << 40),
			  "device_cap_flags_ex 0x%" PRIx64 ", flags 0x%x",
			  ax.device_cap_flags_ex, a.device_cap_flags);
	TEST_ASSERT_EQUAL(ax.rss_caps.supported_qpts,
			  1u << IBV_QPT_RAW_PACKET, "RSS on raw QPs");
	TEST_ASSERT_EQUAL(ax.raw_packet_caps,
			  IBV_RAW_PACKET_CAP_IP_CSUM |
				  IBV_RAW_PACKET_CAP_CVLAN_STRIPPING |
				  IBV_RAW_PACKET_CAP_SCATTER_FCS,
			  "raw offloads in software");
	TEST_ASSERT_EQUAL(ax.max_dm_size, 256 * 1024, "device memory");
	in.comp_mask = 1;
	TEST_ASSERT_EQUAL(ibv_query_device_ex(ctx, &in, &ax), EINVAL, "mask");
	return TEST_SUCCESS;
}

static int
test_query_port(void)
{
	struct dpv_port_info info;
	struct ibv_port_attr p;
	uint8_t raw[sizeof(struct ibv_port_attr)];
	const size_t prefix = offsetof(struct ibv_port_attr, port_cap_flags2);
	enum ibv_mtu want = IBV_MTU_256;

	TEST_ASSERT_EQUAL(dpv_port_query(dpv_port_get(0), &info), 0, "info");
	TEST_ASSERT_EQUAL(ibv_query_port(ctx, 1, &p), 0, "port 1");
	/* a configured port is ACTIVE; the physical state shows the link */
	TEST_ASSERT_EQUAL(p.state, IBV_PORT_ACTIVE, "state");
	TEST_ASSERT_EQUAL(p.phys_state, info.link_up ? 5 : 2, "phys state");
	TEST_ASSERT_EQUAL(p.link_layer, IBV_LINK_LAYER_ETHERNET, "eth");
	TEST_ASSERT_EQUAL(p.lid, 0, "no LID");
	TEST_ASSERT(p.gid_tbl_len >= 16, "gid table");
	TEST_ASSERT_EQUAL(p.pkey_tbl_len, 1, "pkeys");
	TEST_ASSERT_EQUAL(p.max_mtu, IBV_MTU_4096, "max mtu");
	for (enum ibv_mtu m = IBV_MTU_256; m <= IBV_MTU_4096; m++)
		if ((128u << m) + 80 <= info.mtu)
			want = m;
	TEST_ASSERT_EQUAL(p.active_mtu, want, "active mtu for L3 MTU %u",
			  info.mtu);
	TEST_ASSERT(p.max_msg_sz > 0x1000, "msg size");
	TEST_ASSERT(p.active_speed != 0 && p.active_width != 0, "speed");
	TEST_ASSERT(!(p.port_cap_flags & IBV_PORT_SM), "no SM");

	TEST_ASSERT_EQUAL(ibv_query_port(ctx, 0, &p), EINVAL, "port 0");
	TEST_ASSERT_EQUAL(ibv_query_port(ctx, 2, &p), EINVAL, "port 2");

	/* the exported compat symbol writes only the old prefix */
	memset(raw, 0x5a, sizeof(raw));
	TEST_ASSERT_EQUAL(
		(ibv_query_port)(ctx, 1, (struct _compat_ibv_port_attr *)raw),
		0, "compat");
	for (size_t i = prefix; i < sizeof(raw); i++)
		TEST_ASSERT_EQUAL(raw[i], 0x5a, "byte %zu beyond prefix", i);
	TEST_ASSERT_EQUAL(((struct ibv_port_attr *)raw)->link_layer,
			  IBV_LINK_LAYER_ETHERNET, "prefix written");
	TEST_ASSERT_EQUAL(((struct ibv_port_attr *)raw)->flags,
			  IBV_QPF_GRH_REQUIRED, "flags are in the old struct");
	return TEST_SUCCESS;
}

static int
test_query_gid(void)
{
	union ibv_gid gid;
	struct ibv_gid_entry e, tbl[16];
	unsigned int type = 99;
	int empty = -1;
	ssize_t n;

	TEST_ASSERT_EQUAL(ibv_query_gid(ctx, 1, 0, &gid), 0, "gid 0");
	TEST_ASSERT(gid.raw[0] == 0xfe && gid.raw[1] == 0x80, "link-local");
	TEST_ASSERT(gid.global.interface_id == ibv_get_device_guid(devs[0]),
		    "interface id = GUID");
	TEST_ASSERT_EQUAL(ibv_query_gid(ctx, 1, 1, &gid), 0, "gid 1");
	TEST_ASSERT(gid.raw[10] == 0xff && gid.raw[11] == 0xff &&
			    gid.raw[12] == 198 && gid.raw[15] == 9,
		    "IPv4-mapped 198.51.100.9");
	TEST_ASSERT_EQUAL(ibv_query_gid(ctx, 2, 0, &gid), -1, "bad port");
	TEST_ASSERT_EQUAL(ibv_query_gid(ctx, 1, 16, &gid), -1, "bad index");

	TEST_ASSERT_EQUAL(ibv_query_gid_ex(ctx, 1, 0, &e, 0), 0, "gid_ex");
	TEST_ASSERT_EQUAL(e.gid_type, IBV_GID_TYPE_ROCE_V2, "v2");
	TEST_ASSERT_EQUAL(e.port_num, 1, "port");
	TEST_ASSERT_EQUAL(ibv_query_gid_ex(ctx, 1, 0, &e, 1), EINVAL, "flags");
	TEST_ASSERT_EQUAL(ibv_query_gid_ex(ctx, 1, 16, &e, 0), EINVAL, "range");
	for (int i = 15; i >= 0 && empty < 0; i--)
		if (ibv_query_gid_ex(ctx, 1, i, &e, 0) == ENODATA)
			empty = i;
	TEST_ASSERT(empty > 1, "some slot is empty");
	/* ibv_query_gid keeps the old API: an empty slot reads as zero */
	TEST_ASSERT_EQUAL(ibv_query_gid(ctx, 1, empty, &gid), 0, "empty");
	TEST_ASSERT(gid.global.subnet_prefix == 0 &&
			    gid.global.interface_id == 0,
		    "zero gid");

	n = ibv_query_gid_table(ctx, tbl, 16, 0);
	TEST_ASSERT(n >= 2, "table has %zd entries", n);
	TEST_ASSERT_EQUAL(tbl[0].gid_index, 0, "first");
	TEST_ASSERT_EQUAL(ibv_query_gid_table(ctx, tbl, 0, 0), -EINVAL,
			  "buffer too small");

	TEST_ASSERT_EQUAL(ibv_query_gid_type(ctx, 1, 0, &type), 0, "type");
	TEST_ASSERT_EQUAL(type, 1, "sysfs RoCE v2 = 1");
	TEST_ASSERT_EQUAL(ibv_query_gid_type(ctx, 1, empty, &type), -1,
			  "empty type");
	return TEST_SUCCESS;
}

static int
test_query_pkey(void)
{
	__be16 pkey = 0;

	TEST_ASSERT_EQUAL(ibv_query_pkey(ctx, 1, 0, &pkey), 0, "pkey 0");
	TEST_ASSERT_EQUAL(pkey, 0xffff, "default pkey");
	TEST_ASSERT_EQUAL(ibv_query_pkey(ctx, 1, 1, &pkey), -1, "index 1");
	TEST_ASSERT_EQUAL(ibv_query_pkey(ctx, 3, 0, &pkey), -1, "port 3");
	TEST_ASSERT_EQUAL(ibv_get_pkey_index(ctx, 1, 0xffff), 0, "index");
	TEST_ASSERT_EQUAL(ibv_get_pkey_index(ctx, 1, htobe16(0x8001)), -1,
			  "absent");
	return TEST_SUCCESS;
}

static int
test_strings_rates(void)
{
	TEST_ASSERT(strcmp(ibv_wc_status_str(IBV_WC_SUCCESS), "success") == 0,
		    "success");
	TEST_ASSERT(strcmp(ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR),
			   "remote access error") == 0,
		    "rem access");
	TEST_ASSERT(strcmp(ibv_wc_status_str(1000), "unknown") == 0, "unknown");
	TEST_ASSERT(
		strcmp(ibv_port_state_str(IBV_PORT_ACTIVE), "PORT_ACTIVE") == 0,
		"active");
	TEST_ASSERT(strcmp(ibv_node_type_str(IBV_NODE_CA),
			   "InfiniBand channel adapter") == 0,
		    "CA");
	TEST_ASSERT(strcmp(ibv_node_type_str(IBV_NODE_UNKNOWN), "unknown") == 0,
		    "unknown node");
	TEST_ASSERT(strcmp(ibv_event_type_str(IBV_EVENT_SRQ_LIMIT_REACHED),
			   "SRQ limit reached") == 0,
		    "event");
	TEST_ASSERT_EQUAL(ibv_rate_to_mult(IBV_RATE_5_GBPS), 2, "mult");
	TEST_ASSERT_EQUAL(ibv_rate_to_mult(IBV_RATE_14_GBPS), -1, "no mult");
	TEST_ASSERT_EQUAL(mult_to_ibv_rate(16), IBV_RATE_40_GBPS, "40");
	TEST_ASSERT_EQUAL(mult_to_ibv_rate(3), IBV_RATE_MAX, "bad mult");
	TEST_ASSERT_EQUAL(ibv_rate_to_mbps(IBV_RATE_100_GBPS), 103125, "100G");
	TEST_ASSERT_EQUAL(mbps_to_ibv_rate(25781), IBV_RATE_25_GBPS, "25G");
	TEST_ASSERT_EQUAL(mbps_to_ibv_rate(12345), IBV_RATE_MAX, "bad mbps");
	for (int r = IBV_RATE_2_5_GBPS; r <= IBV_RATE_1200_GBPS; r++)
		TEST_ASSERT_EQUAL(mbps_to_ibv_rate(ibv_rate_to_mbps(r)), r,
				  "round trip %d", r);
	return TEST_SUCCESS;
}

static int
test_async_events(void)
{
	struct ibv_async_event in = {0}, out;
	int fl = fcntl(ctx->async_fd, F_GETFL);

	TEST_ASSERT(fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK) == 0, "nb");
	errno = 0;
	TEST_ASSERT_EQUAL(ibv_get_async_event(ctx, &out), -1, "empty");
	TEST_ASSERT_EQUAL(errno, EAGAIN, "EAGAIN");
	in.event_type = IBV_EVENT_PORT_ACTIVE;
	in.element.port_num = 1;
	TEST_ASSERT_EQUAL(dpv_async_event_post(to_dctx(ctx), &in), 0, "post");
	in.event_type = IBV_EVENT_GID_CHANGE;
	TEST_ASSERT_EQUAL(dpv_async_event_post(to_dctx(ctx), &in), 0, "post");
	TEST_ASSERT_EQUAL(ibv_get_async_event(ctx, &out), 0, "first");
	TEST_ASSERT_EQUAL(out.event_type, IBV_EVENT_PORT_ACTIVE, "order");
	ibv_ack_async_event(&out);
	TEST_ASSERT_EQUAL(ibv_get_async_event(ctx, &out), 0, "second");
	TEST_ASSERT_EQUAL(out.event_type, IBV_EVENT_GID_CHANGE, "order");
	ibv_ack_async_event(&out);
	TEST_ASSERT_EQUAL(ibv_get_async_event(ctx, &out), -1, "drained");
	fcntl(ctx->async_fd, F_SETFL, fl);
	return TEST_SUCCESS;
}

static int
test_misc_unsupported(void)
{
	char buf[64];

	TEST_ASSERT_EQUAL(ibv_fork_init(), 0, "fork init");
	TEST_ASSERT_EQUAL(ibv_is_fork_initialized(), IBV_FORK_UNNEEDED, "fork");
	errno = 0;
	TEST_ASSERT_NULL(ibv_import_device(ctx->cmd_fd), "import");
	TEST_ASSERT_EQUAL(errno, EOPNOTSUPP, "import errno");
	/* device memory: test_verbs_dm.c; importing one needs an imported
	 * device */
	errno = 0;
	TEST_ASSERT_NULL(ibv_import_dm(ctx, 1), "import dm");
	TEST_ASSERT_EQUAL(errno, EOPNOTSUPP, "import dm errno");
	/* the clock: test_verbs_ts.c */
	/* ibv_devinfo's board_id */
	TEST_ASSERT(ibv_read_sysfs_file(devs[0]->ibdev_path, "board_id", buf,
					sizeof(buf)) > 0,
		    "board_id");
	TEST_ASSERT(ibv_read_sysfs_file(devs[0]->ibdev_path, "nope", buf,
					sizeof(buf)) < 0,
		    "absent attr");
	return TEST_SUCCESS;
}

static struct dpv_test_suite verbs_device_suite = {
	.name = "verbs_device",
	.setup = dev_setup,
	.teardown = dev_teardown,
	.cases =
		{
			TEST_CASE(test_device_list),
			TEST_CASE(test_context),
			TEST_CASE(test_query_device),
			TEST_CASE(test_query_port),
			TEST_CASE(test_query_gid),
			TEST_CASE(test_query_pkey),
			TEST_CASE(test_strings_rates),
			TEST_CASE(test_async_events),
			TEST_CASE(test_misc_unsupported),
			TEST_CASES_END(),
		},
};

static int
verbs_device_autotest(void)
{
	return dpv_test_run_suite(&verbs_device_suite);
}

DPV_TEST_REGISTER_FAST(verbs_device_autotest, verbs_device_autotest);
