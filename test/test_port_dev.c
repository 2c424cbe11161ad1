/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/port with EAL: devices on loopback ports (EAL started by the runner,
 * i.e. embedded mode), dpv_port_attach, and in fresh child processes the
 * library's own EAL bring-up, the hugepage error and a memif pair. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "dpv_port.h"
#include "dpv_test.h"
#include "test_port_util.h"

#define CHILD_ENV      "DPV_PORT_TEST_CHILD"
#define TEST_ETHERTYPE 0x88b5 /* IEEE local experimental */

static char conf_path[64];

static int
use_conf(const char *text)
{
	if (conf_path[0] != '\0')
		unlink(conf_path); /* the previous one */
	if (test_port_write_tmp(conf_path, sizeof(conf_path),
				"/tmp/dpv-port-dev-", text) != 0)
		return -1;
	setenv("DPV_CONF", conf_path, 1);
	unsetenv("DPV_EAL");
	unsetenv("DPV_IP");
	return 0;
}

static void
drop_conf(void)
{
	if (conf_path[0] != '\0')
		unlink(conf_path);
	conf_path[0] = '\0';
	unsetenv("DPV_CONF");
}

static double
now_s(void)
{
	return test_port_now();
}

/* A test frame: Ethernet header + tag byte + counter pattern. */
static struct rte_mbuf *
make_frame(struct dpv_port *p, uint8_t tag, uint16_t len)
{
	struct dpv_port_info info;
	struct rte_mbuf *m = rte_pktmbuf_alloc(dpv_port_mempool(p));
	struct rte_ether_hdr *eh;
	uint8_t *d;
	uint16_t i;

	if (m == NULL)
		return NULL;
	dpv_port_query(p, &info);
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, len);
	if (eh == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(eh->dst_addr.addr_bytes, 0xff, 6);
	memcpy(eh->src_addr.addr_bytes, info.mac, 6);
	eh->ether_type = htons(TEST_ETHERTYPE);
	d = (uint8_t *)(eh + 1);
	d[0] = tag;
	for (i = 1; i < len - sizeof(*eh); i++)
		d[i] = (uint8_t)i;
	return m;
}

/* Receive on a queue until a test frame with tag arrives or time runs
 * out; other frames are dropped. Returns the frame or NULL. */
static struct rte_mbuf *
wait_frame(struct dpv_port *p, uint16_t q, uint8_t tag, double secs,
	   bool sleepy)
{
	struct rte_mbuf *pkts[32], *found = NULL;
	double end = now_s() + secs;
	uint16_t n, i;

	while (found == NULL && now_s() < end) {
		n = dpv_port_rx(p, q, pkts, RTE_DIM(pkts));
		for (i = 0; i < n; i++) {
			struct rte_ether_hdr *eh = rte_pktmbuf_mtod(
				pkts[i], struct rte_ether_hdr *);

			if (found == NULL &&
			    eh->ether_type == htons(TEST_ETHERTYPE) &&
			    ((uint8_t *)(eh + 1))[0] == tag)
				found = pkts[i];
			else
				rte_pktmbuf_free(pkts[i]);
		}
		if (n == 0 && sleepy)
			usleep(100);
	}
	return found;
}

static int
check_frame(const struct rte_mbuf *m, uint16_t len)
{
	const uint8_t *d = rte_pktmbuf_mtod_offset(
		m, const uint8_t *, sizeof(struct rte_ether_hdr));
	uint16_t i;

	if (rte_pktmbuf_pkt_len(m) != len)
		return -1;
	for (i = 1; i < len - sizeof(struct rte_ether_hdr); i++)
		if (d[i] != (uint8_t)i)
			return -1;
	return 0;
}

/* Send one frame and get it back on the same queue (loopback). */
static int
loop_one(struct dpv_port *p, uint16_t q, uint8_t tag, uint16_t len)
{
	struct rte_mbuf *m = make_frame(p, tag, len), *r;

	TEST_ASSERT_NOT_NULL(m, "mbuf of %u bytes", len);
	TEST_ASSERT_EQUAL(dpv_port_tx(p, q, &m, 1), 1, "tx on queue %u", q);
	r = wait_frame(p, q, tag, 2.0, false);
	TEST_ASSERT_NOT_NULL(r, "frame %u back on queue %u", tag, q);
	TEST_ASSERT_EQUAL(check_frame(r, len), 0, "payload intact");
	rte_pktmbuf_free(r);
	return TEST_SUCCESS;
}

static int
suite_setup(void)
{
	if (dpv_test_eal_init() != 0)
		return TEST_SKIPPED;
	dpv_port_fini(); /* start from no devices */
	return TEST_SUCCESS;
}

static void
case_teardown(void)
{
	dpv_port_fini();
	drop_conf();
}

/* EAL already up (the runner's): default configuration -> loopback. */
static int
case_embedded_default(void)
{
	struct dpv_port_info info;
	struct dpv_port *p;
	uint8_t gid[16], want[16], mac[6];
	struct dpv_ip_addr a;
	int rc;

	if (use_conf("; nothing: defaults\n") != 0)
		return TEST_FAILED;
	rc = dpv_port_init();
	TEST_ASSERT_EQUAL(rc, 0, "dpv_port_init with EAL already running");
	TEST_ASSERT_EQUAL(dpv_port_init(), 0, "idempotent");
	TEST_ASSERT(!dpv_port_eal_owned(), "the runner owns EAL");
	TEST_ASSERT_EQUAL(dpv_port_count(), 1, "");
	p = dpv_port_get(0);
	TEST_ASSERT_NOT_NULL(p, "");
	TEST_ASSERT_NULL(dpv_port_get(1), "");
	TEST_ASSERT(dpv_port_by_name("dpv0") == p, "");
	TEST_ASSERT_NULL(dpv_port_by_name("dpv1"), "");
	TEST_ASSERT(dpv_port_is_loopback(p), "");
	TEST_ASSERT_EQUAL(dpv_port_query(p, &info), 0, "");
	TEST_ASSERT(strcmp(info.name, "dpv0") == 0, "%s", info.name);
	TEST_ASSERT(info.link_up, "loopback link is up");
	TEST_ASSERT_EQUAL(info.mtu, 1500, "");
	TEST_ASSERT_EQUAL(info.mac[0], 0x02, "locally administered MAC");
	TEST_ASSERT_EQUAL(dpv_port_query(p, NULL), -EINVAL, "");
	TEST_ASSERT_EQUAL(dpv_port_queues(p), 1, "");
	TEST_ASSERT_EQUAL(dpv_port_workers(), 0, "");
	/* GIDs: link-local from the MAC, then 127.0.0.1 */
	TEST_ASSERT_EQUAL(dpv_port_gid(p, 0, gid), 0, "");
	TEST_ASSERT(gid[0] == 0xfe && gid[1] == 0x80, "link-local");
	TEST_ASSERT_EQUAL(gid[8], info.mac[0] ^ 2, "EUI-64 U/L bit");
	TEST_ASSERT_EQUAL(dpv_port_gid(p, 1, gid), 0, "");
	inet_pton(AF_INET6, "::ffff:127.0.0.1", want);
	TEST_ASSERT_BUFFERS_EQUAL(gid, want, 16, "loopback address");
	TEST_ASSERT_EQUAL(dpv_port_gid_find(p, want), 1, "");
	TEST_ASSERT_EQUAL(dpv_port_gid(p, 2, gid), -ENODATA, "empty slot");
	TEST_ASSERT_EQUAL(dpv_port_gid(p, DPV_PORT_GID_TBL_LEN, gid), -EINVAL,
			  "");
	TEST_ASSERT_EQUAL(dpv_port_addr(p, 0, &a), 0, "");
	TEST_ASSERT_EQUAL(a.prefix_len, 8, "");
	TEST_ASSERT_EQUAL(dpv_port_addr(p, 1, &a), -ENOENT, "");
	TEST_ASSERT_EQUAL(dpv_port_neigh_lookup(p, want, mac), 0,
			  "loopback resolves to itself");
	TEST_ASSERT_BUFFERS_EQUAL(mac, info.mac, 6, "");
	/* the datapath: what goes out comes back */
	TEST_ASSERT_EQUAL(loop_one(p, 0, 1, 64), TEST_SUCCESS, "");
	TEST_ASSERT_EQUAL(loop_one(p, 0, 2, 1514), TEST_SUCCESS, "");
	TEST_ASSERT_EQUAL(dpv_port_rx(p, 1, NULL, 4), 0, "bad queue");
	dpv_port_fini();
	TEST_ASSERT_EQUAL(dpv_port_count(), 0, "");
	TEST_ASSERT_NULL(dpv_port_get(0), "");
	/* and again: fini allows a new init */
	TEST_ASSERT_EQUAL(dpv_port_init(), 0, "");
	TEST_ASSERT_EQUAL(dpv_port_count(), 1, "");
	TEST_ASSERT_EQUAL(loop_one(dpv_port_get(0), 0, 3, 60), TEST_SUCCESS,
			  "");
	return TEST_SUCCESS;
}

static int
case_two_devices(void)
{
	struct dpv_port_info i0, i1;
	struct dpv_port *p;
	uint8_t ip[16], mac[6], gid[16];

	if (use_conf("[dpv0]\nport = loopback\nqueues = 2\nmtu = 9000\n"
		     "ip = 192.0.2.1/24, 2001:db8::1/64\n"
		     "neigh = 192.0.2.2 02:00:00:00:00:22\n"
		     "[dpv1]\nport = loopback\nmac = 02:00:00:00:01:01\n") != 0)
		return TEST_FAILED;
	setenv("DPV_IP", "198.51.100.1/24", 1);
	TEST_ASSERT_EQUAL(dpv_port_init(), 0, "");
	unsetenv("DPV_IP");
	TEST_ASSERT_EQUAL(dpv_port_count(), 2, "");
	p = dpv_port_get(0);
	dpv_port_query(p, &i0);
	dpv_port_query(dpv_port_get(1), &i1);
	TEST_ASSERT(strcmp(i1.name, "dpv1") == 0, "");
	TEST_ASSERT(i0.ethdev != i1.ethdev, "");
	TEST_ASSERT_EQUAL(i0.mtu, 9000, "");
	TEST_ASSERT_EQUAL(i1.mac[4], 0x01, "configured MAC");
	TEST_ASSERT_EQUAL(dpv_port_queues(p), 2, "");
	/* DPV_IP replaced dpv0's addresses */
	TEST_ASSERT_EQUAL(dpv_port_gid(p, 1, gid), 0, "");
	inet_pton(AF_INET6, "::ffff:198.51.100.1", ip);
	TEST_ASSERT_BUFFERS_EQUAL(gid, ip, 16, "");
	TEST_ASSERT_EQUAL(dpv_port_gid(p, 2, gid), -ENODATA, "");
	inet_pton(AF_INET6, "::ffff:192.0.2.2", ip);
	TEST_ASSERT_EQUAL(dpv_port_neigh_lookup(p, ip, mac), 0, "");
	TEST_ASSERT_EQUAL(mac[5], 0x22, "static neighbour");
	/* each queue loops to itself; mbufs hold a 9000-byte MTU frame */
	TEST_ASSERT_EQUAL(loop_one(p, 1, 7, 9014), TEST_SUCCESS, "");
	TEST_ASSERT_EQUAL(loop_one(p, 0, 8, 100), TEST_SUCCESS, "");
	TEST_ASSERT_EQUAL(loop_one(dpv_port_get(1), 0, 9, 100), TEST_SUCCESS,
			  "");
	TEST_ASSERT_EQUAL(dpv_port_neigh_lookup(dpv_port_get(1), ip, mac), 0,
			  "");
	TEST_ASSERT_EQUAL(mac[4], 0x01, "loopback: own MAC");
	return TEST_SUCCESS;
}

static int
case_workers(void)
{
	struct dpv_port *p;

	if (use_conf("[dpverbs]\nworkers = 2\n[dpv0]\nport = loopback\n") != 0)
		return TEST_FAILED;
	TEST_ASSERT_EQUAL(dpv_port_init(), 0, "");
	TEST_ASSERT_EQUAL(dpv_port_workers(), 2, "");
	p = dpv_port_get(0);
	TEST_ASSERT_EQUAL(dpv_port_queues(p), 2, "one queue per worker");
	TEST_ASSERT_EQUAL(dpv_port_queue_base(p), 0, "");
	TEST_ASSERT_EQUAL(loop_one(p, 1, 12, 80), TEST_SUCCESS, "");
	return TEST_SUCCESS;
}

/* "vdev =": the library creates the device and removes it again. */
static int
case_vdev(void)
{
	struct dpv_port_info info;
	uint16_t id;

	if (use_conf("[dpv0]\nvdev = net_ring_cfgtest\nmac = "
		     "02:00:00:00:00:77\n") != 0)
		return TEST_FAILED;
	TEST_ASSERT_EQUAL(dpv_port_init(), 0, "");
	TEST_ASSERT_EQUAL(rte_eth_dev_get_port_by_name("net_ring_cfgtest", &id),
			  0, "vdev created");
	TEST_ASSERT(!dpv_port_is_loopback(dpv_port_get(0)), "");
	dpv_port_query(dpv_port_get(0), &info);
	TEST_ASSERT_EQUAL(info.mac[5], 0x77, "configured MAC");
	/* a net_ring vdev without arguments also loops TX to RX */
	TEST_ASSERT_EQUAL(loop_one(dpv_port_get(0), 0, 13, 90), TEST_SUCCESS,
			  "");
	dpv_port_fini();
	TEST_ASSERT(rte_eth_dev_get_port_by_name("net_ring_cfgtest", &id) != 0,
		    "vdev removed by dpv_port_fini");
	return TEST_SUCCESS;
}

static int
case_bad_port(void)
{
	if (use_conf("[dpv0]\nport = loopback\n[dpv1]\nport = 31\n") != 0)
		return TEST_FAILED;
	TEST_ASSERT_EQUAL(dpv_port_init(), -ENODEV, "port 31 does not exist");
	TEST_ASSERT_EQUAL(dpv_port_count(), 0, "all or nothing");
	TEST_ASSERT_EQUAL(dpv_port_init(), -ENODEV, "sticky until fini");
	dpv_port_fini();
	if (use_conf("[dpv0]\nport = net_nothing_here\n") != 0)
		return TEST_FAILED;
	TEST_ASSERT_EQUAL(dpv_port_init(), -ENODEV, "");
	dpv_port_fini();
	if (use_conf("[dpv0]\nmtu = 5\n") != 0)
		return TEST_FAILED;
	TEST_ASSERT_EQUAL(dpv_port_init(), -EINVAL, "bad configuration");
	dpv_port_fini();
	drop_conf();
	setenv("DPV_CONF", "/nonexistent/dpverbs.conf", 1);
	TEST_ASSERT_EQUAL(dpv_port_init(), -ENOENT, "");
	return TEST_SUCCESS;
}

/* Embedded mode: the application's own port (a net_ring vdev whose TX
 * loops to its RX) handed over with dpv_port_attach. */
static int
case_attach(void)
{
	struct dpv_port_conf pc;
	struct dpv_port_info info;
	uint16_t id;
	char err[128];
	int idx, rc = TEST_FAILED;

	if (use_conf("[dpv0]\nport = loopback\n") != 0)
		return TEST_FAILED;
	TEST_ASSERT_EQUAL(rte_vdev_init("net_ring_porttest", NULL), 0, "");
	TEST_ASSERT_EQUAL(
		rte_eth_dev_get_port_by_name("net_ring_porttest", &id), 0, "");
	dpv_port_conf_init(&pc);
	pc.n_addrs = 0;
	if (dpv_ip_list_parse("203.0.113.1/24", pc.addrs, DPV_PORT_MAX_ADDRS,
			      &pc.n_addrs, err, sizeof(err)) != 0)
		goto out;
	idx = dpv_port_attach(id, &pc);
	if (idx != 0) {
		DPV_TEST_LOG("attach returned %d", idx);
		goto out;
	}
	if (dpv_port_attach(id, &pc) != -EBUSY ||
	    dpv_port_attach(RTE_MAX_ETHPORTS, NULL) != -EINVAL) {
		DPV_TEST_LOG("second attach / bad port not refused");
		goto out;
	}
	/* dpv_port_init keeps attached devices and adds no others */
	if (dpv_port_init() != 0 || dpv_port_count() != 1)
		goto out;
	dpv_port_query(dpv_port_get(0), &info);
	if (info.ethdev != id || strcmp(info.name, "dpv0") != 0 ||
	    dpv_port_is_loopback(dpv_port_get(0)))
		goto out;
	if (loop_one(dpv_port_get(0), 0, 11, 128) != TEST_SUCCESS)
		goto out;
	dpv_port_fini();
	/* the application's port survives fini (stopped, not removed) */
	if (!rte_eth_dev_is_valid_port(id))
		goto out;
	rc = TEST_SUCCESS;
out:
	dpv_port_fini();
	rte_vdev_uninit("net_ring_porttest");
	return rc;
}

static const struct dpv_test_suite port_dev_suite = {
	.name = "port-dev",
	.setup = suite_setup,
	.cases =
		{
			TEST_CASE_ST(NULL, case_teardown,
				     case_embedded_default),
			TEST_CASE_ST(NULL, case_teardown, case_two_devices),
			TEST_CASE_ST(NULL, case_teardown, case_workers),
			TEST_CASE_ST(NULL, case_teardown, case_vdev),
			TEST_CASE_ST(NULL, case_teardown, case_bad_port),
			TEST_CASE_ST(NULL, case_teardown, case_attach),
			TEST_CASES_END(),
		},
};

static int
test_port_dev(void)
{
	return dpv_test_run_suite(&port_dev_suite);
}

DPV_TEST_REGISTER_FAST(port_dev, test_port_dev);

/*
 * Child processes: the runner's process already has EAL, and EAL cannot
 * start twice, so the self-bring-up path runs in a fresh process image
 * (fork + exec of this binary). The constructor below runs the child's
 * role before main() when CHILD_ENV is set.
 */

static int
child_bringup(void)
{
	struct dpv_port_info info;
	char dir[64];
	struct stat st;

	if (rte_lcore_count() != 0)
		return 10;
	optind = 3; /* the application's getopt state survives EAL's */
	if (dpv_port_init() != 0)
		return 11;
	if (optind != 3)
		return 18;
	if (!dpv_port_eal_owned() || dpv_port_count() != 1)
		return 12;
	snprintf(dir, sizeof(dir), "dpv%d", (int)getpid());
	if (strstr(rte_eal_get_runtime_dir(), dir) == NULL)
		return 13; /* automatic --file-prefix */
	dpv_port_query(dpv_port_get(0), &info);
	if (!dpv_port_is_loopback(dpv_port_get(0)) || !info.link_up)
		return 14;
	if (loop_one(dpv_port_get(0), 0, 5, 200) != TEST_SUCCESS)
		return 15;
	/* fini keeps EAL; a second init works on it */
	dpv_port_fini();
	if (dpv_port_init() != 0 || dpv_port_count() != 1)
		return 16;
	if (stat(rte_eal_get_runtime_dir(), &st) != 0)
		return 17;
	/* exit(): the library's destructor cleans EAL up */
	return 0;
}

static int
child_nohuge(void)
{
	int rc = dpv_port_init();

	if (rc == 0)
		return 77; /* this machine has hugepages */
	if (rc != -ENOMEM || dpv_port_init() != -ENOMEM)
		return 20;
	if (rte_lcore_count() != 0)
		return 21; /* rte_eal_init must not have been called */
	return 0;
}

/* Two processes on any port pair (memif, af_packet/af_xdp on veth): the
 * client sends a ping, the server answers with a pong. Also run by
 * test/scripts/fast-port-veth.sh. */
static int
child_ping(bool server)
{
	struct dpv_port_info info;
	struct rte_mbuf *m, *r;
	struct dpv_port *p;
	double end;
	int tries;

	if (dpv_port_init() != 0 || dpv_port_count() != 1)
		return 30;
	p = dpv_port_get(0);
	if (dpv_port_is_loopback(p))
		return 31;
	end = now_s() + 15;
	do {
		dpv_port_query(p, &info);
		if (!info.link_up)
			usleep(1000);
	} while (!info.link_up && now_s() < end);
	if (!info.link_up)
		return 32;
	if (!server) {
		/* resend until the pong comes (the first may race the link) */
		for (tries = 0, r = NULL; r == NULL && tries < 30; tries++) {
			m = make_frame(p, 0x51, 300);
			if (m == NULL)
				return 33;
			if (dpv_port_tx(p, 0, &m, 1) != 1)
				rte_pktmbuf_free(m);
			r = wait_frame(p, 0, 0x52, 0.5, true);
		}
		if (r == NULL)
			return 34;
		if (check_frame(r, 300) != 0)
			return 35;
		rte_pktmbuf_free(r);
		return 0;
	}
	r = wait_frame(p, 0, 0x51, 20, true);
	if (r == NULL)
		return 36;
	if (check_frame(r, 300) != 0)
		return 37;
	/* Answer every ping until none has come for 2 s: the client resends
	 * every 0.5 s until a pong reaches it, so a lost pong is answered
	 * by the next ping's. Bounded at 20 s in all. */
	end = now_s() + 20;
	while (r != NULL && now_s() < end) {
		rte_pktmbuf_free(r);
		m = make_frame(p, 0x52, 300);
		if (m == NULL)
			return 38;
		if (dpv_port_tx(p, 0, &m, 1) != 1)
			rte_pktmbuf_free(m);
		r = wait_frame(p, 0, 0x51, 2.0, true);
	}
	if (r != NULL)
		rte_pktmbuf_free(r);
	return 0;
}

__attribute__((constructor)) static void
port_test_child(void)
{
	const char *role = getenv(CHILD_ENV);
	int rc;

	if (role == NULL)
		return;
	unsetenv(CHILD_ENV);
	if (strcmp(role, "bringup") == 0)
		rc = child_bringup();
	else if (strcmp(role, "nohuge") == 0)
		rc = child_nohuge();
	else if (strcmp(role, "ping-server") == 0)
		rc = child_ping(true);
	else if (strcmp(role, "ping-client") == 0)
		rc = child_ping(false);
	else
		rc = 99;
	fflush(stdout);
	exit(rc);
}

static pid_t
spawn(const char *role, const char *conf, const char *eal, const char *ip)
{
	return test_port_spawn(CHILD_ENV, role, conf, eal, ip);
}

static int
reap(pid_t pid, double secs)
{
	return test_port_reap(pid, secs);
}

static int
test_port_bringup(void)
{
	char dir[128];
	struct stat st;
	pid_t pid;
	int rc;

	pid = spawn("bringup", "/dev/null", NULL, NULL);
	TEST_ASSERT(pid > 0, "fork");
	rc = reap(pid, 60);
	TEST_ASSERT_EQUAL(rc, 0, "self bring-up child failed (step code)");
	snprintf(dir, sizeof(dir), "/var/run/dpdk/dpv%d", (int)pid);
	TEST_ASSERT(stat(dir, &st) != 0, "runtime dir %s left behind", dir);

	pid = spawn("nohuge", "/dev/null", "--no-pci -m 64", NULL);
	TEST_ASSERT(pid > 0, "fork");
	rc = reap(pid, 60);
	if (rc == 77) {
		printf("    hugepages present: no-hugepage error not "
		       "checked\n");
		return TEST_SUCCESS;
	}
	TEST_ASSERT_EQUAL(rc, 0, "missing --no-huge must fail with -ENOMEM");
	return TEST_SUCCESS;
}

DPV_TEST_REGISTER_FAST(port_bringup, test_port_bringup);

static int
test_port_memif(void)
{
	char sock[64], eal_s[256], eal_c[256];
	struct stat st;
	pid_t srv, cli;
	int rc_s, rc_c, i;

	snprintf(sock, sizeof(sock), "/tmp/dpv-port-memif-%d.sock",
		 (int)getpid());
	unlink(sock);
	test_port_memif_eal(eal_s, sizeof(eal_s), "server", sock);
	test_port_memif_eal(eal_c, sizeof(eal_c), "client", sock);
	srv = spawn("ping-server", "/dev/null", eal_s, "192.0.2.1/24");
	TEST_ASSERT(srv > 0, "fork");
	for (i = 0; i < 500 && stat(sock, &st) != 0; i++)
		usleep(20000);
	cli = spawn("ping-client", "/dev/null", eal_c, "192.0.2.2/24");
	if (cli < 0)
		kill(srv, SIGKILL);
	TEST_ASSERT(cli > 0, "fork");
	rc_c = reap(cli, 60);
	rc_s = reap(srv, 30);
	unlink(sock);
	TEST_ASSERT_EQUAL(rc_c, 0, "memif client (step code)");
	TEST_ASSERT_EQUAL(rc_s, 0, "memif server (step code)");
	return TEST_SUCCESS;
}

DPV_TEST_REGISTER_FAST(port_memif, test_port_memif);
