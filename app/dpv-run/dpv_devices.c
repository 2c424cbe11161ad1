/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpv-devices (dpv-run --list): each dpverbs device with its port state,
 * link, MTU and GIDs, and where the configuration comes from. Uses only
 * the verbs API, so it shows what any verbs program would see.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "dpv_build_config.h"

static const char *
phys_str(uint8_t s)
{
	switch (s) {
	case 2:
		return "POLLING (no peer yet)";
	case 3:
		return "DISABLED";
	case 5:
		return "LINK_UP";
	default:
		return "?";
	}
}

static void
print_conf(void)
{
	const char *f = getenv("DPV_CONF");

	if (f != NULL && *f != '\0')
		printf("configuration: %s (DPV_CONF)\n", f);
	else if (access(DPV_DEFAULT_CONF, R_OK) == 0)
		printf("configuration: %s\n", DPV_DEFAULT_CONF);
	else
		printf("configuration: none (%s absent): built-in defaults\n",
		       DPV_DEFAULT_CONF);
	if (getenv("DPV_EAL") != NULL)
		printf("  dpv0 port from DPV_EAL: %s\n", getenv("DPV_EAL"));
	if (getenv("DPV_IP") != NULL)
		printf("  dpv0 addresses from DPV_IP: %s\n", getenv("DPV_IP"));
}

static void
print_device(struct ibv_device *d)
{
	struct ibv_context *ctx = ibv_open_device(d);
	struct ibv_port_attr pa;
	union ibv_gid gid;
	char ip[INET6_ADDRSTRLEN];

	if (ctx == NULL) {
		printf("%s: cannot open\n", ibv_get_device_name(d));
		return;
	}
	if (ibv_query_port(ctx, 1, &pa) != 0) {
		printf("%s: cannot query port 1\n", ibv_get_device_name(d));
		ibv_close_device(ctx);
		return;
	}
	printf("%s: port 1 %s, physical %s, MTU %d (max %d), %s\n",
	       ibv_get_device_name(d), ibv_port_state_str(pa.state),
	       phys_str(pa.phys_state), 128 << pa.active_mtu, 128 << pa.max_mtu,
	       pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "IB");
	for (int i = 0; i < pa.gid_tbl_len; i++) {
		static const uint8_t zero[16];

		if (ibv_query_gid(ctx, 1, i, &gid) != 0 ||
		    memcmp(gid.raw, zero, 16) == 0)
			continue;
		inet_ntop(AF_INET6, gid.raw, ip, sizeof(ip));
		printf("  GID[%d] %s\n", i, ip);
	}
	ibv_close_device(ctx);
}

int
main(int argc, char **argv)
{
	struct ibv_device **list;
	int n;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "usage: dpv-devices (no arguments)\n");
		return 2;
	}
	print_conf();
	list = ibv_get_device_list(&n);
	if (list == NULL) {
		perror("ibv_get_device_list");
		return 1;
	}
	if (n == 0)
		printf("no devices\n");
	for (int i = 0; i < n; i++)
		print_device(list[i]);
	ibv_free_device_list(list);
	return n > 0 ? 0 : 1;
}
