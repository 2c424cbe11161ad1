/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A memif peer killed in the middle of a transfer must never crash or
 * hang the survivor. DPDK 22.11's memif unmaps its rings from the
 * interrupt thread when the peer goes away, whether or not a burst is
 * running on them in another thread.
 *
 * The survivor (a memif server) sends and receives bursts without pause;
 * peers (memif clients) connect one after the other, do the same, and are
 * SIGKILLed at a random moment. The survivor must live through every kill,
 * see every peer connect, and exit cleanly when told to. memif_kill runs
 * 10 kills [fast], memif_kill_long 100 [slow]; DPV_KILL_COUNT sets another
 * number.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "dpv_port.h"
#include "dpv_test.h"
#include "test_port_util.h"

#define CHILD_ENV "DPV_KILL_TEST_CHILD"
#define OUT_ENV	  "DPV_KILL_OUT"
#define BURST	  32

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
	RTE_SET_USED(sig);
	stop = 1;
}

static struct rte_mbuf *
frame(struct dpv_port *p)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(dpv_port_mempool(p));
	struct rte_ether_hdr *eh;

	if (m == NULL)
		return NULL;
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, 1000);
	if (eh == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(eh, 0x5a, 1000);
	memset(eh->dst_addr.addr_bytes, 0xff, 6);
	eh->ether_type = rte_cpu_to_be_16(0x88b5);
	return m;
}

/* One round: a burst out, a burst in. @return frames moved. */
static unsigned
churn(struct dpv_port *p)
{
	struct rte_mbuf *pkts[BURST];
	uint16_t n = 0, sent, got;

	while (n < BURST && (pkts[n] = frame(p)) != NULL)
		n++;
	sent = dpv_port_tx(p, 0, pkts, n);
	for (uint16_t i = sent; i < n; i++)
		rte_pktmbuf_free(pkts[i]);
	got = dpv_port_rx(p, 0, pkts, BURST);
	for (uint16_t i = 0; i < got; i++)
		rte_pktmbuf_free(pkts[i]);
	return sent + got;
}

static bool
link_up(struct dpv_port *p)
{
	struct dpv_port_info info;

	return dpv_port_query(p, &info) == 0 && info.link_up;
}

static void
write_out(const char *text)
{
	const char *path = getenv(OUT_ENV);
	FILE *f = path ? fopen(path, "w") : NULL;

	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

/* The memif server: bursts until SIGTERM, counting the peers it saw. */
static int
child_survivor(void)
{
	unsigned long ups = 0, moved = 0;
	struct dpv_port *p;
	bool was_up = false;
	char out[128];

	signal(SIGTERM, on_term);
	if (dpv_port_init() != 0 || (p = dpv_port_get(0)) == NULL)
		return 40;
	for (double end = test_port_now() + 600; !stop;) {
		bool up = link_up(p);

		if (up && !was_up)
			ups++;
		was_up = up;
		moved += churn(p);
		if (test_port_now() > end)
			return 41; /* the parent is gone */
	}
	snprintf(out, sizeof(out), "%lu %lu\n", ups, moved);
	write_out(out);
	return 0;
}

/* A memif client: connects, says so, bursts until killed. */
static int
child_peer(void)
{
	struct dpv_port *p;
	double end;

	if (dpv_port_init() != 0 || (p = dpv_port_get(0)) == NULL)
		return 50;
	for (end = test_port_now() + 15; !link_up(p); usleep(1000))
		if (test_port_now() > end)
			return 51;
	write_out("up\n");
	for (end = test_port_now() + 30; test_port_now() < end;)
		churn(p);
	return 52; /* never killed */
}

__attribute__((constructor)) static void
kill_test_child(void)
{
	const char *role = getenv(CHILD_ENV);
	int rc = 99;

	if (role == NULL)
		return;
	unsetenv(CHILD_ENV);
	if (strcmp(role, "survivor") == 0)
		rc = child_survivor();
	else if (strcmp(role, "peer") == 0)
		rc = child_peer();
	fflush(stdout);
	exit(rc);
}

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	RTE_SET_USED(st);
	RTE_SET_USED(flag);
	RTE_SET_USED(f);
	return remove(path);
}

/* A killed process leaves its EAL runtime directory behind. */
static void
rm_runtime_dir(pid_t pid)
{
	char dir[64];

	snprintf(dir, sizeof(dir), "/var/run/dpdk/dpv%d", (int)pid);
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static bool
alive(pid_t pid, int *status)
{
	return waitpid(pid, status, WNOHANG) == 0;
}

static int
kill_run(unsigned kills)
{
	char sock[64], eal_s[256], eal_c[256], mark[64], out[64];
	unsigned long ups = 0, moved = 0;
	struct stat st;
	pid_t srv, peer;
	int status = 0, rc;
	FILE *f;

	if (getenv("DPV_KILL_COUNT") != NULL && atoi(getenv("DPV_KILL_COUNT")))
		kills = (unsigned)atoi(getenv("DPV_KILL_COUNT"));
	snprintf(sock, sizeof(sock), "/tmp/dpv-kill-%d.sock", (int)getpid());
	snprintf(mark, sizeof(mark), "/tmp/dpv-kill-%d.up", (int)getpid());
	snprintf(out, sizeof(out), "/tmp/dpv-kill-%d.out", (int)getpid());
	unlink(sock);
	unlink(out);
	test_port_memif_eal(eal_s, sizeof(eal_s), "server", sock);
	test_port_memif_eal(eal_c, sizeof(eal_c), "client", sock);
	setenv(OUT_ENV, out, 1);
	srv = test_port_spawn(CHILD_ENV, "survivor", "/dev/null", eal_s,
			      "192.0.2.1/24");
	TEST_ASSERT(srv > 0, "fork");
	for (int i = 0; i < 500 && stat(sock, &st) != 0; i++)
		usleep(20000);
	srand((unsigned)getpid());
	for (unsigned k = 0; k < kills; k++) {
		unlink(mark);
		setenv(OUT_ENV, mark, 1);
		peer = test_port_spawn(CHILD_ENV, "peer", "/dev/null", eal_c,
				       "192.0.2.2/24");
		if (peer < 0)
			break;
		for (int i = 0;
		     i < 1500 && stat(mark, &st) != 0 && alive(srv, &status);
		     i++)
			usleep(10000);
		if (stat(mark, &st) == 0) {
			/* traffic both ways for a random while, then the
			 * kill */
			usleep(2000 + (unsigned)(rand() % 100000));
			kill(peer, SIGKILL);
			waitpid(peer, NULL, 0);
			/* the survivor sees the link go down, keeps bursting */
			usleep(30000);
		} else if (alive(srv, &status)) {
			rc = test_port_reap(peer, 0);
			DPV_TEST_LOG("kill %u: the peer never connected (%d)",
				     k, rc);
			kill(srv, SIGKILL);
			waitpid(srv, NULL, 0);
			unlink(sock);
			return TEST_FAILED;
		} else {
			kill(peer, SIGKILL);
			waitpid(peer, NULL, 0);
		}
		rm_runtime_dir(peer);
		if (!alive(srv, &status)) {
			DPV_TEST_LOG("kill %u: the survivor died: %s %d", k,
				     WIFSIGNALED(status) ? "signal" : "exit",
				     WIFSIGNALED(status) ? WTERMSIG(status)
							 : WEXITSTATUS(status));
			unlink(sock);
			unlink(mark);
			return TEST_FAILED;
		}
	}
	unlink(mark);
	kill(srv, SIGTERM);
	rc = test_port_reap(srv, 20);
	unlink(sock);
	TEST_ASSERT_EQUAL(rc, 0, "the survivor exits cleanly when told to");
	f = fopen(out, "r");
	TEST_ASSERT(f != NULL && fscanf(f, "%lu %lu", &ups, &moved) == 2,
		    "survivor's report");
	fclose(f);
	unlink(out);
	DPV_TEST_LOG("%u peers killed mid-transfer; the survivor saw %lu "
		     "connections and moved %lu frames",
		     kills, ups, moved);
	TEST_ASSERT(ups >= kills, "every peer connected");
	return TEST_SUCCESS;
}

static int
memif_kill(void)
{
	return kill_run(10);
}

static int
memif_kill_long(void)
{
	return kill_run(100);
}

DPV_TEST_REGISTER_FAST(memif_kill, memif_kill);
DPV_TEST_REGISTER_SLOW(memif_kill_long, memif_kill_long);
