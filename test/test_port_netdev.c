/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel interface of a device, seen through verbs: a child role of
 * dpv-test run by test/scripts/fast-netdev-veth.sh inside a network
 * namespace. It opens dpv0, checks that ibv_query_gid_ex() and
 * ibv_query_gid_table() name the interface in ndev_ifindex, then keeps the
 * device open (its progress thread moves the interface's frames) until a
 * stop file appears or 30 s pass.
 *
 * Environment: DPV_NETDEV_TEST_CHILD=hold, DPV_NETDEV_TEST_IF (expected
 * interface name, default dpv0), DPV_NETDEV_TEST_READY / _STOP (files).
 */
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define CHILD_ENV "DPV_NETDEV_TEST_CHILD"

static double
mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Every filled GID entry names ifindex; step code or 0. */
static int
check_gids(struct ibv_context *ctx, uint32_t ifindex)
{
	struct ibv_gid_entry e, tbl[16];
	ssize_t n;

	if (ibv_query_gid_ex(ctx, 1, 1, &e, 0) != 0)
		return 3; /* GID 1: the IPv4 address */
	if (e.ndev_ifindex != ifindex || e.gid_type != IBV_GID_TYPE_ROCE_V2)
		return 4;
	n = ibv_query_gid_table(ctx, tbl, 16, 0);
	if (n < 2)
		return 5; /* link-local + IPv4 at least */
	for (ssize_t i = 0; i < n; i++)
		if (tbl[i].ndev_ifindex != ifindex)
			return 6;
	return 0;
}

static int
child_hold(void)
{
	const char *ifname = getenv("DPV_NETDEV_TEST_IF");
	const char *ready = getenv("DPV_NETDEV_TEST_READY");
	const char *stop = getenv("DPV_NETDEV_TEST_STOP");
	struct ibv_device **devs;
	struct ibv_context *ctx;
	unsigned ifindex;
	double end;
	int n, rc, fd;

	devs = ibv_get_device_list(&n);
	if (devs == NULL || n < 1)
		return 1;
	ctx = ibv_open_device(devs[0]);
	ibv_free_device_list(devs);
	if (ctx == NULL)
		return 2;
	ifindex = if_nametoindex(ifname != NULL ? ifname : "dpv0");
	if (ifindex == 0)
		return 7; /* no kernel interface */
	rc = check_gids(ctx, ifindex);
	if (rc != 0)
		return rc;
	printf("netdev child: %s ifindex %u in the GID table\n",
	       ifname != NULL ? ifname : "dpv0", ifindex);
	fflush(stdout);
	if (ready != NULL) {
		fd = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0)
			return 8;
		close(fd);
	}
	for (end = mono_s() + 30; mono_s() < end;) {
		if (stop != NULL && access(stop, F_OK) == 0)
			break;
		usleep(10000);
	}
	ibv_close_device(ctx);
	return 0;
}

__attribute__((constructor)) static void
netdev_test_child(void)
{
	const char *role = getenv(CHILD_ENV);
	int rc;

	if (role == NULL)
		return;
	unsetenv(CHILD_ENV);
	rc = strcmp(role, "hold") == 0 ? child_hold() : 99;
	fflush(stdout);
	exit(rc);
}
