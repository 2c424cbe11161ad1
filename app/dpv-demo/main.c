/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpv-demo: RDMA RC traffic on dpverbs through the standard verbs API.
 *
 *   dpv-demo              two processes over memif (starts the server)
 *   dpv-demo --loopback   one process, two QPs on the loopback device
 *   dpv-demo --role server|client --dir DIR   one side only
 */

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "demo.h"

#define CTL_NAME     "ctl.sock"
#define MEMIF_NAME   "dpv-demo.sock"
#define SERVER_IP    "192.0.2.1/24"
#define CLIENT_IP    "192.0.2.2/24"
#define PEER_START_S 30.0 /* server: EAL start and device bring-up */

volatile int demo_stop;
static char g_dir[200];
static int g_made_dir;
static pid_t g_child;

uint64_t
demo_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void
demo_err(const char *who, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "dpv-demo %s: ", who);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int
demo_msg_send(int fd, const struct demo_msg *m)
{
	ssize_t n = send(fd, m, sizeof(*m), MSG_NOSIGNAL);

	if (n == (ssize_t)sizeof(*m))
		return 0;
	return n < 0 ? -errno : -EPROTO;
}

static void
progress_once(struct demo_ep *ep)
{
	struct ibv_wc wc;

	if (ep->serve) {
		demo_server_step(ep);
		return;
	}
	if (ibv_poll_cq(ep->cq, 1, &wc) > 0) {
		ep->errors++;
		demo_err(ep->name, "unexpected completion (wr_id %llu): %s",
			 (unsigned long long)wc.wr_id,
			 ibv_wc_status_str(wc.status));
	}
}

int
demo_msg_recv(int fd, struct demo_msg *m, struct demo_ep *progress,
	      double timeout_s)
{
	uint64_t end = demo_now_ns() + (uint64_t)(timeout_s * 1e9);
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	ssize_t n;
	int r;

	for (;;) {
		/* Wake every millisecond to let the device make progress
		 * (answer ARP, ACK): the peer may be waiting on us. */
		r = poll(&pfd, 1, progress && progress->ctx ? 1 : 20);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r > 0) {
			n = recv(fd, m, sizeof(*m), 0);
			if (n < 0 && errno == EINTR)
				continue;
			if (n == 0)
				return -EPIPE;
			if (n < 0)
				return -errno;
			if (n != (ssize_t)sizeof(*m))
				return -EPROTO;
			if (m->type == DEMO_MSG_FAIL)
				return -ECANCELED;
			return 0;
		}
		if (progress && progress->ctx)
			progress_once(progress);
		if (demo_stop)
			return -EINTR;
		if (demo_now_ns() > end)
			return -ETIMEDOUT;
	}
}

static void
path_in_dir(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", g_dir, name);
}

static void
cleanup_files(void)
{
	char p[sizeof(g_dir) + 32];

	if (g_dir[0] == '\0')
		return;
	/* The server's memif PMD removes its own socket at exit; the
	 * process that made the directory sweeps whatever is left. */
	if (g_made_dir) {
		path_in_dir(p, sizeof(p), CTL_NAME);
		unlink(p);
		path_in_dir(p, sizeof(p), MEMIF_NAME);
		unlink(p);
		rmdir(g_dir);
	}
}

static void
on_signal(int sig)
{
	static const char msg[] = "dpv-demo: time limit reached, giving up\n";

	if (sig == SIGALRM) {
		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
			sig = 0;
		if (g_child > 0)
			kill(g_child, SIGKILL);
		cleanup_files();
		_exit(3);
	}
	if (demo_stop)
		_exit(130);
	demo_stop = 1;
}

static int
set_env(const char *role)
{
	char eal[512];

	snprintf(eal, sizeof(eal),
		 "--no-huge --no-pci -m 512 --no-shconf "
		 "--log-level=lib.eal:warning --log-level=lib.telemetry:error "
		 "--log-level=pmd.net.memif:error --log-level=lib.net:notice "
		 "--vdev=net_memif0,role=%s,socket=%s/%s,socket-abstract=no",
		 role, g_dir, MEMIF_NAME);
	if (setenv("DPV_EAL", eal, 1) ||
	    setenv("DPV_IP", strcmp(role, "server") ? CLIENT_IP : SERVER_IP, 1))
		return -errno;
	return 0;
}

/* ---- control socket ---- */

static int
ctl_addr(struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if ((size_t)snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s", g_dir,
			     CTL_NAME) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	return 0;
}

static int
ctl_accept(double timeout_s)
{
	struct sockaddr_un sa;
	struct pollfd pfd;
	int lfd, fd = -1, r;

	if (ctl_addr(&sa))
		return -ENAMETOOLONG;
	lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return -errno;
	unlink(sa.sun_path);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1)) {
		r = -errno;
		demo_err("server", "control socket %s: %s", sa.sun_path,
			 strerror(errno));
		close(lfd);
		return r;
	}
	pfd.fd = lfd;
	pfd.events = POLLIN;
	do {
		r = poll(&pfd, 1, (int)(timeout_s * 1000));
	} while (r < 0 && errno == EINTR && !demo_stop);
	if (r > 0)
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	else
		demo_err("server", "no client connected to %s within %.0f s",
			 sa.sun_path, timeout_s);
	close(lfd);
	unlink(sa.sun_path);
	return fd >= 0 ? fd : -ETIMEDOUT;
}

static int
ctl_connect(double timeout_s)
{
	uint64_t end = demo_now_ns() + (uint64_t)(timeout_s * 1e9);
	struct sockaddr_un sa;
	int fd, status;

	if (ctl_addr(&sa))
		return -ENAMETOOLONG;
	for (;;) {
		fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return fd;
		close(fd);
		if (g_child > 0 &&
		    waitpid(g_child, &status, WNOHANG) == g_child) {
			g_child = 0;
			demo_err("client",
				 "the server process exited (status "
				 "%d) before it accepted a connection",
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
			return -ESRCH;
		}
		if (demo_stop)
			return -EINTR;
		if (demo_now_ns() > end) {
			demo_err("client",
				 "the server did not come up: nothing "
				 "listens on %s after %.0f s",
				 sa.sun_path, timeout_s);
			return -ETIMEDOUT;
		}
		usleep(20000);
	}
}

static void
ctl_fail(int fd, int err)
{
	struct demo_msg m = {.type = DEMO_MSG_FAIL, .val = (uint64_t)err};

	if (fd >= 0)
		demo_msg_send(fd, &m);
}

static const char *
msg_err(int rc)
{
	switch (rc) {
	case -EPIPE:
		return "the peer went away";
	case -ECANCELED:
		return "the peer failed (see its messages)";
	case -ETIMEDOUT:
		return "timed out";
	default:
		return strerror(-rc);
	}
}

/* ---- roles ---- */

static void
print_conn(const char *who, const struct demo_conn *c)
{
	char g[64];

	demo_gid_str(c->gid, g, sizeof(g));
	printf("  %-6s QPN 0x%06x  PSN 0x%06x  GID %s  rkey 0x%08x\n", who,
	       c->qpn, c->psn, g, c->rkey);
}

static int
run_server(const struct demo_opts *o)
{
	struct demo_ep ep;
	struct demo_msg m;
	int fd, rc;

	memset(&ep, 0, sizeof(ep));
	fd = ctl_accept(PEER_START_S);
	if (fd < 0)
		return 1;
	rc = set_env("server");
	if (rc == 0)
		rc = demo_ep_open(&ep, "server", o->dev, o->gid_index);
	if (rc) {
		ctl_fail(fd, -rc);
		demo_ep_close(&ep);
		close(fd);
		return 1;
	}
	ep.serve = true;
	memset(&m, 0, sizeof(m));
	m.type = DEMO_MSG_CONN;
	m.conn = ep.local;
	rc = demo_msg_send(fd, &m);
	if (rc == 0)
		rc = demo_msg_recv(fd, &m, &ep, PEER_START_S);
	if (rc == 0 && m.type != DEMO_MSG_CONN)
		rc = -EPROTO;
	if (rc) {
		demo_err("server", "waiting for the client's QP: %s",
			 msg_err(rc));
		goto out;
	}
	rc = demo_ep_connect(&ep, &m.conn);
	if (rc) {
		ctl_fail(fd, -rc);
		goto out;
	}
	memset(&m, 0, sizeof(m));
	m.type = DEMO_MSG_RTS;
	rc = demo_msg_send(fd, &m);
	if (rc == 0)
		rc = demo_server_run(&ep, fd);
	if (rc == 0 && ep.errors)
		rc = -EIO;
out:
	demo_ep_close(&ep);
	close(fd);
	return rc ? 1 : 0;
}

static void
print_head(const char *mode, const struct demo_ep *ep,
	   const struct demo_conn *server)
{
	enum ibv_mtu mtu = ep->port_mtu < (enum ibv_mtu)server->mtu
				   ? ep->port_mtu
				   : (enum ibv_mtu)server->mtu;

	printf("dpv-demo: RDMA RC %s\n", mode);
	printf("  device %s, GID index %d (RoCE v2), path MTU %s, "
	       "inline %u B\n",
	       ibv_get_device_name(ep->ctx->device), ep->gid_index,
	       demo_mtu_str(mtu), ep->max_inline);
	print_conn("client", &ep->local);
	print_conn("server", server);
	fflush(stdout);
}

static int
finish(int rc, unsigned errors, uint64_t echoes)
{
	if (rc == 0 && errors == 0) {
		printf("dpv-demo: PASS: RDMA WRITE, RDMA READ, SEND/RECV; "
		       "every transfer verified (%llu echoes)\n",
		       (unsigned long long)echoes);
		return 0;
	}
	if (rc > 0)
		printf("dpv-demo: FAIL: %d test(s) transferred wrong data\n",
		       rc);
	else
		printf("dpv-demo: FAIL: %s\n",
		       rc < 0 ? msg_err(rc) : "error completions");
	return 1;
}

static int
run_client(const struct demo_opts *o)
{
	struct demo_peer peer = {.fd = -1};
	struct demo_ep ep;
	struct demo_msg m;
	uint64_t echoes = 0;
	unsigned errors;
	char mode[96];
	int rc;

	memset(&ep, 0, sizeof(ep));
	peer.fd = ctl_connect(PEER_START_S);
	if (peer.fd < 0)
		return finish(peer.fd, 0, 0);
	rc = demo_msg_recv(peer.fd, &m, NULL, PEER_START_S);
	if (rc == 0 && m.type != DEMO_MSG_CONN)
		rc = -EPROTO;
	if (rc) {
		demo_err("client", "waiting for the server's device: %s",
			 msg_err(rc));
		goto out;
	}
	peer.conn = m.conn;
	rc = set_env("client");
	if (rc == 0)
		rc = demo_ep_open(&ep, "client", o->dev, o->gid_index);
	if (rc) {
		ctl_fail(peer.fd, -rc);
		goto out;
	}
	memset(&m, 0, sizeof(m));
	m.type = DEMO_MSG_CONN;
	m.conn = ep.local;
	rc = demo_msg_send(peer.fd, &m);
	if (rc == 0)
		rc = demo_ep_connect(&ep, &peer.conn);
	if (rc) {
		ctl_fail(peer.fd, -rc);
		goto out;
	}
	rc = demo_msg_recv(peer.fd, &m, &ep, PEER_START_S);
	if (rc == 0 && m.type != DEMO_MSG_RTS)
		rc = -EPROTO;
	if (rc) {
		demo_err("client",
			 "waiting for the server's QP to reach RTS: "
			 "%s",
			 msg_err(rc));
		goto out;
	}
	snprintf(mode, sizeof(mode),
		 "between two processes over memif "
		 "(client pid %d, server %s)",
		 (int)getpid(), g_child > 0 ? "spawned" : "separate");
	print_head(mode, &ep, &peer.conn);
	rc = demo_client_run(&ep, &peer, o);
	if (rc < 0) {
		ctl_fail(peer.fd, -rc);
		goto out;
	}
	memset(&m, 0, sizeof(m));
	m.type = DEMO_MSG_DONE;
	if (demo_msg_send(peer.fd, &m) == 0 &&
	    demo_msg_recv(peer.fd, &m, &ep, 10.0) == 0 &&
	    m.type == DEMO_MSG_DONE)
		echoes = m.val;
	else
		demo_err("client", "the server did not confirm the end");
out:
	errors = (unsigned)ep.errors;
	demo_ep_close(&ep);
	close(peer.fd);
	return finish(rc, errors, echoes);
}

static int
run_loopback(const struct demo_opts *o)
{
	struct demo_ep cl, sv;
	struct demo_peer peer = {.local = &sv, .fd = -1};
	int rc;

	/* No configuration at all: the in-process loopback device. */
	unsetenv("DPV_EAL");
	unsetenv("DPV_IP");
	memset(&cl, 0, sizeof(cl));
	rc = demo_ep_open(&sv, "server", o->dev, o->gid_index);
	if (rc == 0) {
		sv.serve = true;
		rc = demo_ep_open(&cl, "client", o->dev, o->gid_index);
	}
	if (rc == 0)
		rc = demo_ep_connect(&sv, &cl.local);
	if (rc == 0)
		rc = demo_ep_connect(&cl, &sv.local);
	if (rc == 0) {
		peer.conn = sv.local;
		print_head("loopback: two QPs in one process", &cl, &sv.local);
		rc = demo_client_run(&cl, &peer, o);
	}
	rc = finish(rc, cl.errors + sv.errors, sv.echoes);
	demo_ep_close(&cl);
	demo_ep_close(&sv);
	return rc;
}

/* Start the server role as a child process, then be the client. */
static int
run_pair(const struct demo_opts *o, char **argv)
{
	char gid[16];
	uint64_t end;
	int rc, status, srv_rc = -1;

	snprintf(g_dir, sizeof(g_dir), "/tmp/dpv-demo.XXXXXX");
	if (!mkdtemp(g_dir)) {
		demo_err("client", "mkdtemp: %s", strerror(errno));
		return 1;
	}
	g_made_dir = 1;
	snprintf(gid, sizeof(gid), "%d", o->gid_index);
	fflush(NULL);
	g_child = fork();
	if (g_child < 0) {
		demo_err("client", "fork: %s", strerror(errno));
		cleanup_files();
		return 1;
	}
	if (g_child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execl("/proc/self/exe", argv[0], "--role", "server", "--dir",
		      g_dir, "--gid-index", gid, "--device",
		      o->dev ? o->dev : "", (char *)NULL);
		fprintf(stderr, "dpv-demo: exec of the server failed: %s\n",
			strerror(errno));
		_exit(127);
	}
	rc = run_client(o);

	end = demo_now_ns() + 10000000000ull;
	while (g_child > 0) {
		pid_t w = waitpid(g_child, &status, WNOHANG);

		if (w == g_child) {
			srv_rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
			break;
		}
		if (w < 0 || demo_now_ns() > end) {
			demo_err("client", "stopping the server process %d",
				 (int)g_child);
			kill(g_child, SIGKILL);
			waitpid(g_child, &status, 0);
			break;
		}
		usleep(10000);
	}
	g_child = 0;
	cleanup_files();
	if (rc == 0 && srv_rc != 0) {
		demo_err("client", "the server process failed (exit %d)",
			 srv_rc);
		printf("dpv-demo: FAIL: the server process failed\n");
		rc = 1;
	}
	return rc;
}

static void
usage(const char *prog)
{
	printf("Usage: %s [options]\n"
	       "RDMA RC demo on dpverbs: WRITE and READ bandwidth, SEND/RECV "
	       "and WRITE\nlatency, with every transfer verified.\n\n"
	       "  (default)            two processes over memif; starts the "
	       "server itself\n"
	       "  --loopback           one process, two QPs on the loopback "
	       "device (no config)\n"
	       "  --role server|client run one side; both need the same "
	       "--dir\n"
	       "  --dir DIR            socket directory for --role\n"
	       "  -d, --device NAME    device (default: the first)\n"
	       "  -g, --gid-index N    GID index (default: 1, else 0)\n"
	       "  -t, --seconds S      duration of each bandwidth test "
	       "(default 0.5)\n"
	       "  -n, --iters N        iterations of each latency test "
	       "(default 2000)\n"
	       "  --time-limit S       abort after S seconds (default 60)\n"
	       "  -h, --help           this text\n",
	       prog);
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"loopback", no_argument, NULL, 'L'},
		{"role", required_argument, NULL, 'r'},
		{"dir", required_argument, NULL, 'D'},
		{"device", required_argument, NULL, 'd'},
		{"gid-index", required_argument, NULL, 'g'},
		{"seconds", required_argument, NULL, 't'},
		{"iters", required_argument, NULL, 'n'},
		{"time-limit", required_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct demo_opts o = {
		.gid_index = -1, .seconds = 0.5, .lat_iters = 2000};
	const char *role = NULL, *dir = NULL;
	unsigned limit = 60;
	struct sigaction sa;
	int c, rc;

	while ((c = getopt_long(argc, argv, "d:g:t:n:h", lo, NULL)) != -1) {
		switch (c) {
		case 'L':
			o.loopback = true;
			break;
		case 'r':
			role = optarg;
			break;
		case 'D':
			dir = optarg;
			break;
		case 'd':
			o.dev = optarg[0] ? optarg : NULL;
			break;
		case 'g':
			o.gid_index = atoi(optarg);
			break;
		case 't':
			o.seconds = atof(optarg);
			break;
		case 'n':
			o.lat_iters = (unsigned)atoi(optarg);
			break;
		case 'T':
			limit = (unsigned)atoi(optarg);
			break;
		case 'h':
			usage(argv[0]);
			return 0;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (optind < argc || o.seconds <= 0 || o.seconds > 10 ||
	    o.lat_iters == 0 || o.lat_iters > 1000000 ||
	    (role && strcmp(role, "server") && strcmp(role, "client")) ||
	    (role && !dir) || (role && o.loopback)) {
		usage(argv[0]);
		return 2;
	}
	if (dir && (size_t)snprintf(g_dir, sizeof(g_dir), "%s", dir) >=
			   sizeof(g_dir) - 16) {
		fprintf(stderr, "dpv-demo: --dir is too long\n");
		return 2;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	alarm(limit);
	srandom((unsigned)(demo_now_ns() ^ (uint64_t)getpid()));
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (o.loopback)
		rc = run_loopback(&o);
	else if (role && strcmp(role, "server") == 0)
		rc = run_server(&o);
	else if (role)
		rc = run_client(&o);
	else
		rc = run_pair(&o, argv);
	alarm(0);
	cleanup_files();
	return rc;
}
