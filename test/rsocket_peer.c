/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpv-rsocket-peer: one end of an rsocket stream test
 * (test/scripts/fast-rsocket-memif.sh). rsocket API only.
 *
 *   dpv-rsocket-peer server ADDR PORT MB [dead|deadwait]
 *   dpv-rsocket-peer client ADDR PORT MB [dead|deadwait]
 *
 * The client connects non-blocking (EINPROGRESS, rpoll POLLOUT,
 * SO_ERROR), waits for the server's "G", streams MB MiB of a position
 * pattern in random chunk sizes (blocking rsend), half-closes
 * (rshutdown SHUT_WR; a later rsend must fail EPIPE) and then reads
 * 1 MiB back and the server's EOF. The server accepts through rpoll on
 * a non-blocking listener, checks rpoll reports nothing on the idle
 * connection but a ready pipe beside it, receives non-blocking with
 * random chunk sizes under rpoll, checks every byte and the EOF at
 * exactly MB MiB, then answers 1 MiB through the half-closed connection.
 * "dead": the server exits without closing after one byte; the client's
 * sends must then fail with EPIPE or ECONNRESET. "deadwait": the same
 * server; the client sends its byte and then waits in a blocking rrecv
 * with nothing of its own in flight, which must fail with ECONNRESET (the
 * library probes a silent peer) instead of waiting forever. Every wait is
 * bounded; exit 0 on success.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <rdma/rsocket.h>

#define FAIL(...)                                                              \
	do {                                                                   \
		fprintf(stderr, "FAIL: " __VA_ARGS__);                         \
		fprintf(stderr, " (errno %d %s)\n", errno, strerror(errno));   \
		exit(1);                                                       \
	} while (0)

static uint64_t rng = 88172645463325252ull;

static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static uint8_t
pat(uint64_t pos)
{
	uint32_t x = (uint32_t)pos * 0x9E3779B1u;

	return (uint8_t)((x >> 24) ^ (pos >> 16));
}

static void
wait_ev(int fd, short ev, int ms)
{
	struct pollfd p = {.fd = fd, .events = ev};
	int n = rpoll(&p, 1, ms);

	if (n != 1)
		FAIL("rpoll for %#x gave %d", ev, n);
}

/* Read n bytes (blocking socket) checking the pattern from pos. */
static void
read_pattern(int s, uint64_t pos, size_t n)
{
	static uint8_t buf[100000];

	while (n > 0) {
		size_t want = 1 + rnd(sizeof(buf));
		ssize_t r = rrecv(s, buf, want < n ? want : n, 0);

		if (r <= 0)
			FAIL("rrecv %zd with %zu left", r, n);
		for (ssize_t i = 0; i < r; i++)
			if (buf[i] != pat(pos + (uint64_t)i))
				FAIL("byte %llu: %#x", (unsigned long long)(pos + i),
				     buf[i]);
		pos += (uint64_t)r;
		n -= (size_t)r;
	}
}

static void
write_pattern(int s, uint64_t pos, size_t n)
{
	static uint8_t buf[200000];

	while (n > 0) {
		size_t len = 1 + rnd(sizeof(buf));
		ssize_t w;

		if (len > n)
			len = n;
		for (size_t i = 0; i < len; i++)
			buf[i] = pat(pos + i);
		w = rsend(s, buf, len, 0);
		if (w <= 0)
			FAIL("rsend %zd", w);
		pos += (uint64_t)w; /* a partial send: resend the rest */
		n -= (size_t)w;
	}
}

static int
server(struct sockaddr_in *sa, size_t total, int dead)
{
	struct sockaddr_in peer, me;
	socklen_t pl = sizeof(peer), ml = sizeof(me);
	uint8_t buf[100000];
	uint64_t got = 0;
	int ls, s, one = 1, pfd[2];
	struct pollfd p[2];

	ls = rsocket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0)
		FAIL("rsocket");
	if (rsocket(AF_INET, SOCK_DGRAM, 0) >= 0 || errno != EOPNOTSUPP)
		FAIL("SOCK_DGRAM not EOPNOTSUPP");
	if (rsetsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    rbind(ls, (struct sockaddr *)sa, sizeof(*sa)) || rlisten(ls, 4))
		FAIL("listen");
	if (rfcntl(ls, F_SETFL, O_NONBLOCK) || raccept(ls, NULL, NULL) >= 0 ||
	    errno != EAGAIN)
		FAIL("non-blocking raccept without a peer");
	printf("listening\n");
	fflush(stdout);
	wait_ev(ls, POLLIN, 30000);
	s = raccept(ls, (struct sockaddr *)&peer, &pl);
	if (s < 0)
		FAIL("raccept");
	if (rgetsockname(s, (struct sockaddr *)&me, &ml) ||
	    me.sin_port != sa->sin_port || me.sin_addr.s_addr != sa->sin_addr.s_addr ||
	    peer.sin_family != AF_INET || pl != sizeof(peer))
		FAIL("addresses");
	printf("accepted %s:%u\n", inet_ntoa(peer.sin_addr), ntohs(peer.sin_port));
	/* as with rdma-core's rsockets (unlike accept(2)), the accepted
	 * socket has the listener's O_NONBLOCK */
	if (!(rfcntl(s, F_GETFL) & O_NONBLOCK))
		FAIL("accepted rsocket not non-blocking like its listener");
	if (dead) {
		rfcntl(s, F_SETFL, 0); /* the one byte may not be there yet */
		read_pattern(s, 0, 1);
		printf("dying\n");
		fflush(stdout);
		_exit(0);
	}
	/* idle: nothing to read; a pipe beside it is ready */
	if (pipe(pfd) || write(pfd[1], "x", 1) != 1)
		FAIL("pipe");
	p[0] = (struct pollfd){.fd = s, .events = POLLIN};
	p[1] = (struct pollfd){.fd = pfd[0], .events = POLLIN};
	if (rpoll(p, 2, 100) != 1 || p[0].revents != 0 || !(p[1].revents & POLLIN))
		FAIL("rpoll idle: %#x %#x", p[0].revents, p[1].revents);
	p[1].events = 0;
	if (rpoll(p, 1, 50) != 0)
		FAIL("rpoll on an idle rsocket reported %#x", p[0].revents);
	if (rsend(s, "G", 1, 0) != 1)
		FAIL("rsend G");
	if (rfcntl(s, F_SETFL, O_NONBLOCK) || !(rfcntl(s, F_GETFL) & O_NONBLOCK))
		FAIL("rfcntl");
	for (;;) {
		ssize_t r = rrecv(s, buf, 1 + rnd(sizeof(buf)), 0);

		if (r == 0)
			break;
		if (r < 0) {
			if (errno != EAGAIN)
				FAIL("rrecv at %llu", (unsigned long long)got);
			wait_ev(s, POLLIN, 10000);
			continue;
		}
		for (ssize_t i = 0; i < r; i++)
			if (buf[i] != pat(got + (uint64_t)i))
				FAIL("byte %llu: %#x", (unsigned long long)(got + i),
				     buf[i]);
		got += (uint64_t)r;
	}
	if (got != total)
		FAIL("EOF after %llu bytes, not %zu", (unsigned long long)got, total);
	printf("received %llu bytes, all correct, then EOF\n",
	       (unsigned long long)got);
	/* the half-closed connection still carries our answer */
	rfcntl(s, F_SETFL, 0);
	write_pattern(s, 0, 1 << 20);
	if (rclose(s) || rclose(ls))
		FAIL("rclose");
	printf("server done\n");
	return 0;
}

static int
client(struct sockaddr_in *sa, size_t total, int dead)
{
	struct sockaddr_in peer;
	socklen_t pl = sizeof(peer), el = sizeof(int);
	int s, err = -1, nd = 1;
	uint8_t c;

	s = rsocket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		FAIL("rsocket");
	if (rsetsockopt(s, IPPROTO_TCP, TCP_NODELAY, &nd, sizeof(nd)))
		FAIL("TCP_NODELAY");
	rfcntl(s, F_SETFL, O_NONBLOCK);
	if (rconnect(s, (struct sockaddr *)sa, sizeof(*sa)) == 0 ||
	    errno != EINPROGRESS)
		FAIL("non-blocking rconnect");
	wait_ev(s, POLLOUT, 20000);
	if (rgetsockopt(s, SOL_SOCKET, SO_ERROR, &err, &el) || err != 0)
		FAIL("connect: SO_ERROR %d", err);
	if (rgetpeername(s, (struct sockaddr *)&peer, &pl) ||
	    peer.sin_port != sa->sin_port)
		FAIL("rgetpeername");
	rfcntl(s, F_SETFL, 0);
	printf("connected\n");
	fflush(stdout);
	if (dead == 2) {
		time_t t0 = time(NULL);

		write_pattern(s, 0, 1);
		if (rrecv(s, &c, 1, 0) >= 0)
			FAIL("a dead peer sent something");
		if (errno != ECONNRESET && errno != EPIPE)
			FAIL("waiting on a dead peer gave errno %d", errno);
		printf("dead peer while receiving: %s after %lld s\n",
		       strerror(errno), (long long)(time(NULL) - t0));
		rclose(s);
		return 0;
	}
	if (dead) {
		uint8_t buf[4096] = {0};
		time_t end = time(NULL) + 60;

		write_pattern(s, 0, 1);
		sleep(1);
		while (time(NULL) < end) {
			if (rsend(s, buf, sizeof(buf), MSG_DONTWAIT) < 0 &&
			    errno != EAGAIN) {
				if (errno != EPIPE && errno != ECONNRESET)
					FAIL("dead peer gave errno %d", errno);
				printf("dead peer: %s\n", strerror(errno));
				rclose(s);
				return 0;
			}
			usleep(1000);
		}
		FAIL("sends to a dead peer kept succeeding");
	}
	if (rrecv(s, &c, 1, 0) != 1 || c != 'G')
		FAIL("no G");
	write_pattern(s, 0, total);
	if (rshutdown(s, SHUT_WR))
		FAIL("rshutdown");
	if (rsend(s, "x", 1, 0) >= 0 || errno != EPIPE)
		FAIL("rsend after SHUT_WR");
	read_pattern(s, 0, 1 << 20);
	if (rrecv(s, &c, 1, 0) != 0)
		FAIL("no EOF after the answer");
	printf("sent %zu bytes, got the 1 MiB answer and EOF\n", total);
	if (rclose(s))
		FAIL("rclose");
	return 0;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	int dead;
	size_t total;

	if (argc < 5) {
		fprintf(stderr, "usage: %s server|client ADDR PORT MB [dead]\n",
			argv[0]);
		return 2;
	}
	inet_pton(AF_INET, argv[2], &sa.sin_addr);
	sa.sin_port = htons((uint16_t)atoi(argv[3]));
	total = (size_t)atoi(argv[4]) << 20;
	dead = argc > 5 && !strcmp(argv[5], "dead")	  ? 1
	       : argc > 5 && !strcmp(argv[5], "deadwait") ? 2
							  : 0;
	rng ^= (uint64_t)getpid() << 20;
	alarm(120); /* nothing here may hang the suite */
	return strcmp(argv[1], "server") ? client(&sa, total, dead)
					 : server(&sa, total, dead);
}
