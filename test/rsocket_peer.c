/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpv-rsocket-peer: one end of an rsocket stream test
 * (test/scripts/fast-rsocket-memif.sh). rsocket API only.
 *
 *   dpv-rsocket-peer server ADDR PORT MB [dead|deadwait|iomap|closewait|
 *                                         idle|acceptwait|hostile|vec]
 *   dpv-rsocket-peer client ADDR PORT MB [dead|deadwait|iomap|closewait|
 *                                         idle|acceptwait|hostile|vec]
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
 * library probes a silent peer) instead of waiting forever. "iomap":
 * riomap / riowrite both ways (iomap_server(), iomap_client()); MB is
 * unused. "closewait": rclose() of a socket other threads wait on
 * (closewait_server(), closewait_client()); MB is unused. "idle" (a
 * benchmark, devtools/bench.py): an open connection with nothing on it
 * for MB seconds, the server waiting in rrecv(), the client in sleep();
 * each prints its process's CPU time meanwhile. "acceptwait": a client
 * that never finishes its handshake must not hold up the listener's
 * other callers (acceptwait_server(), stall_client()); MB is unused.
 * "hostile": a raw peer's message longer than the credits it was given
 * must reset the connection (hostile_server(), hostile_client()). "vec":
 * the gather / scatter calls (vec_server(), vec_client()).
 * Every wait is bounded; exit 0 on success.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <rdma/rdma_cma.h>
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

/* A stream rsocket with one int option set. */
static int
new_socket(int level, int name, int v)
{
	int s = rsocket(AF_INET, SOCK_STREAM, 0);

	if (s < 0)
		FAIL("rsocket");
	if (rsetsockopt(s, level, name, &v, sizeof(v)))
		FAIL("rsetsockopt %d %d", level, name);
	return s;
}

static void
listen_on(int ls, struct sockaddr_in *sa)
{
	int one = 1;

	if (rsetsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    rbind(ls, (struct sockaddr *)sa, sizeof(*sa)) || rlisten(ls, 4))
		FAIL("listen");
}

/* listen_on(), then tell the test script the server listens. */
static void
listen_say(int ls, struct sockaddr_in *sa)
{
	listen_on(ls, sa);
	printf("listening\n");
	fflush(stdout);
}

/* listen_say(), then one blocking raccept(): the connection. */
static int
listen_accept(int ls, struct sockaddr_in *sa)
{
	int s;

	listen_say(ls, sa);
	s = raccept(ls, NULL, NULL);
	if (s < 0)
		FAIL("raccept");
	return s;
}

static int
server(struct sockaddr_in *sa, size_t total, int dead)
{
	struct sockaddr_in peer, me;
	socklen_t pl = sizeof(peer), ml = sizeof(me);
	uint8_t buf[100000];
	uint64_t got = 0;
	int ls, s, pfd[2];
	struct pollfd p[2];

	ls = new_socket(IPPROTO_TCP, TCP_NODELAY, 1);
	if (rsocket(AF_INET, SOCK_SEQPACKET, 0) >= 0 || errno != EPROTOTYPE)
		FAIL("SOCK_SEQPACKET not EPROTOTYPE");
	if (rsocket(AF_INET, SOCK_DGRAM, IPPROTO_TCP) >= 0 ||
	    errno != EPROTONOSUPPORT)
		FAIL("SOCK_DGRAM with IPPROTO_TCP not EPROTONOSUPPORT");
	listen_on(ls, sa);
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
	int s, err = -1;
	uint8_t c;

	s = new_socket(IPPROTO_TCP, TCP_NODELAY, 1);
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

/* iomap: the server maps A (1 MiB at offset IO_A) and B (8 KiB at its
 * address), the client writes into them, the server checks every byte
 * and moves B; then the client maps a buffer the server writes into. */
#define IO_A	 (1ull << 40)
#define IO_ALEN	 (1u << 20)
#define IO_BLEN	 8192u
#define IO_B2OFF 5000u
#define IO_CLEN	 65536u

static void
send_all(int s, const void *buf, size_t n)
{
	if (rsend(s, buf, n, MSG_WAITALL) != (ssize_t)n)
		FAIL("rsend %zu", n);
}

static void
recv_all(int s, void *buf, size_t n)
{
	if (rrecv(s, buf, n, MSG_WAITALL) != (ssize_t)n)
		FAIL("rrecv %zu", n);
}

/* riowrite n bytes of pattern from pos (at offset off of the peer's
 * mappings) in random chunks, every other one MSG_DONTWAIT. */
static void
riowrite_pattern(int s, uint64_t off, uint64_t pos, size_t n)
{
	static uint8_t buf[200000];
	time_t end = time(NULL) + 30;

	while (n > 0) {
		size_t len = 1 + rnd(sizeof(buf)), w;
		int fl = rnd(2) ? MSG_DONTWAIT : 0;

		if (len > n)
			len = n;
		for (size_t i = 0; i < len; i++)
			buf[i] = pat(pos + i);
		w = riowrite(s, buf, len, (off_t)off, fl);
		if (w == (size_t)-1 && errno == EAGAIN && time(NULL) < end) {
			usleep(100);
			continue;
		}
		if (w == (size_t)-1 || w == 0 || w > len)
			FAIL("riowrite %zu at %#llx gave %zd", len,
			     (unsigned long long)off, (ssize_t)w);
		off += w;
		pos += w;
		n -= w;
	}
}

static void
check_pattern(const uint8_t *p, uint64_t pos, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != pat(pos + i))
			FAIL("%s byte %zu: %#x, not %#x", what, i, p[i],
			     pat(pos + i));
}

static void
check_fill(const uint8_t *p, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0xee)
			FAIL("%s byte %zu written (%#x)", what, i, p[i]);
}

static int
iomap_server(struct sockaddr_in *sa)
{
	static uint8_t a[IO_ALEN], b[IO_BLEN], b2[IO_BLEN], c[4096];
	uint8_t buf[IO_CLEN];
	int ls, s, v, x = 0;
	socklen_t vl = sizeof(v);
	uint64_t off;

	/* the size goes on an 8-bit scale: 200 is carried as 128 */
	ls = new_socket(SOL_RDMA, RDMA_IOMAPSIZE, 200);
	if (rgetsockopt(ls, SOL_RDMA, RDMA_IOMAPSIZE, &v, &vl) || v != 128)
		FAIL("RDMA_IOMAPSIZE 200 reads back %d", v);
	v = 4;
	if (rsetsockopt(ls, SOL_RDMA, RDMA_IOMAPSIZE, &v, sizeof(v)))
		FAIL("RDMA_IOMAPSIZE");
	if (riomap(ls, a, sizeof(a), PROT_WRITE, 0, 0) != -1 || errno != EINVAL)
		FAIL("riomap on an unconnected rsocket");
	s = listen_accept(ls, sa);
	v = 0;
	if (rgetsockopt(s, SOL_RDMA, RDMA_IOMAPSIZE, &v, &vl) || v != 4)
		FAIL("accepted rsocket's RDMA_IOMAPSIZE %d, not the listener's",
		     v);
	if (rsetsockopt(s, SOL_RDMA, RDMA_IOMAPSIZE, &v, sizeof(v)) == 0 ||
	    errno != EINVAL)
		FAIL("RDMA_IOMAPSIZE after connect");
	memset(a, 0xee, sizeof(a));
	memset(b, 0xee, sizeof(b));
	memset(b2, 0xee, sizeof(b2));
	if (riomap(s, a, sizeof(a), PROT_WRITE, 0, (off_t)IO_A) != (off_t)IO_A)
		FAIL("riomap A");
	off = (uint64_t)riomap(s, b, sizeof(b), PROT_WRITE, 0, -1);
	if (off != (uintptr_t)b)
		FAIL("riomap B at -1 gave %#llx", (unsigned long long)off);
	/* the client's table has two entries, both taken now */
	if (riomap(s, b2, sizeof(b2), PROT_WRITE, 0, 0) != -1 ||
	    errno != ENOMEM)
		FAIL("a third riomap into a table of two");
	if (riomap(s, c, sizeof(c), PROT_READ, 0, 0) != -1 || errno != EINVAL)
		FAIL("riomap PROT_READ");
	if (riomap(s, c, sizeof(c), PROT_NONE, 0, 7) != 7 ||
	    riounmap(s, c, sizeof(c)) || riounmap(s, c, sizeof(c)) == 0 ||
	    errno != EINVAL)
		FAIL("local riomap / riounmap");
	send_all(s, "M", 1);
	send_all(s, &off, sizeof(off));
	/* the client's rsend after its riowrites: they have landed */
	recv_all(s, buf, 1);
	if (buf[0] != 'D')
		FAIL("no D");
	check_pattern(a, 0, sizeof(a), "A");
	check_fill(b, 10, "B head");
	check_pattern(b + 10, 1u << 24, 1000, "B");
	check_fill(b + 1010, IO_BLEN - 1010 - 5, "B middle");
	check_pattern(b + IO_BLEN - 5, 1u << 25, 5, "B tail");
	printf("riowrite landed: 1 MiB at offset %#llx, 1000 + 5 bytes in B\n",
	       (unsigned long long)IO_A);
	/* B's entry goes to b2, at another offset */
	if (riounmap(s, b, sizeof(b)) ||
	    riomap(s, b2, sizeof(b2), PROT_WRITE, 0, IO_B2OFF) != IO_B2OFF)
		FAIL("riounmap B, riomap B2");
	send_all(s, "N", 1);
	recv_all(s, buf, 1);
	if (buf[0] != 'D')
		FAIL("no second D");
	check_fill(b2, 7, "B2 head");
	check_pattern(b2 + 7, 1u << 26, 3000, "B2");
	check_fill(b2 + 3007, IO_BLEN - 3007, "B2 tail");
	printf("riounmap / riomap: the entry moved to the new buffer\n");
	/* the other way: the client's mapping, in our table of 4 */
	recv_all(s, buf, 1 + sizeof(off));
	if (buf[0] != 'R')
		FAIL("no R");
	memcpy(&off, buf + 1, sizeof(off));
	riowrite_pattern(s, off, 1u << 27, IO_CLEN);
	send_all(s, "E", 1);
	recv_all(s, &x, 1);
	if (riounmap(s, a, sizeof(a)) || riounmap(s, b2, sizeof(b2)) ||
	    rclose(s) || rclose(ls))
		FAIL("close");
	printf("server done\n");
	return 0;
}

static int
iomap_client(struct sockaddr_in *sa)
{
	static uint8_t cbuf[IO_CLEN], tail[100];
	int s;
	uint64_t off;
	uint8_t c;

	s = new_socket(SOL_RDMA, RDMA_IOMAPSIZE, 2);
	if (rconnect(s, (struct sockaddr *)sa, sizeof(*sa)))
		FAIL("rconnect");
	printf("connected\n");
	fflush(stdout);
	recv_all(s, &c, 1);
	if (c != 'M')
		FAIL("no M");
	recv_all(s, &off, sizeof(off));
	riowrite_pattern(s, IO_A, 0, IO_ALEN);
	riowrite_pattern(s, off + 10, 1u << 24, 1000);
	/* outside every mapping: refused, nothing written */
	if (riowrite(s, tail, 10, (off_t)(IO_A - 1), 0) != (size_t)-1 ||
	    errno != EINVAL)
		FAIL("riowrite before a mapping");
	if (riowrite(s, tail, 10, (off_t)(IO_A + IO_ALEN), 0) != (size_t)-1 ||
	    errno != EINVAL)
		FAIL("riowrite past a mapping");
	/* across a mapping's end: what fits */
	for (int i = 0; i < 5; i++)
		tail[i] = pat((1u << 25) + i);
	if (riowrite(s, tail, sizeof(tail), (off_t)(off + IO_BLEN - 5), 0) != 5)
		FAIL("riowrite across B's end");
	send_all(s, "D", 1);
	recv_all(s, &c, 1);
	if (c != 'N')
		FAIL("no N");
	riowrite_pattern(s, IO_B2OFF + 7, 1u << 26, 3000);
	send_all(s, "D", 1);
	printf("riowrite: refused outside the mappings, short across an end\n");
	memset(cbuf, 0xee, sizeof(cbuf));
	off = (uint64_t)riomap(s, cbuf, sizeof(cbuf), PROT_WRITE, 0, -1);
	if (off != (uintptr_t)cbuf)
		FAIL("client riomap");
	send_all(s, "R", 1);
	send_all(s, &off, sizeof(off));
	recv_all(s, &c, 1);
	if (c != 'E')
		FAIL("no E");
	check_pattern(cbuf, 1u << 27, sizeof(cbuf), "client buffer");
	send_all(s, "x", 1);
	if (riounmap(s, cbuf, sizeof(cbuf)) || rclose(s))
		FAIL("close");
	printf("iomap both ways: every byte where it belongs\n");
	return 0;
}

/*
 * closewait: one thread waits in a blocking rrecv() on the accepted
 * connection, another in a blocking rsend() (the client does not read
 * yet, so the buffers fill); then the main thread rclose()s the socket.
 * Both waits must end (rrecv: 0 for the disconnect rclose() sends, or
 * EBADF; rsend: a short count, or EPIPE, ECONNRESET or EBADF), the
 * number must be gone (EBADF), and nothing may touch the freed socket
 * (it stays alive until the last waiter leaves). Then the same for a
 * thread in a blocking raccept() on the listener (EBADF). The client
 * reads what came and the EOF.
 */
struct cw_wait {
	pthread_t th;
	int s;
	ssize_t ret;
	size_t sent;
	int err;
	volatile int done;
};

static void *
cw_recv_main(void *arg)
{
	struct cw_wait *w = arg;
	uint8_t c;

	w->ret = rrecv(w->s, &c, 1, 0);
	w->err = errno;
	w->done = 1;
	return NULL;
}

static void *
cw_send_main(void *arg)
{
	static uint8_t buf[65536];
	struct cw_wait *w = arg;

	for (;;) {
		w->ret = rsend(w->s, buf, sizeof(buf), 0);
		w->err = errno;
		if (w->ret <= 0)
			break;
		w->sent += (size_t)w->ret;
		if ((size_t)w->ret < sizeof(buf))
			break; /* a short count: the connection ended */
	}
	w->done = 1;
	return NULL;
}

static void *
cw_accept_main(void *arg)
{
	struct cw_wait *w = arg;

	w->ret = raccept(w->s, NULL, NULL);
	w->err = errno;
	w->done = 1;
	return NULL;
}

/* Join w within 10 s. */
static void
cw_join(struct cw_wait *w, const char *what)
{
	for (int i = 0; i < 1000 && !w->done; i++)
		usleep(10000);
	if (!w->done)
		FAIL("%s still waits 10 s after rclose", what);
	pthread_join(w->th, NULL);
}

static int
closewait_server(struct sockaddr_in *sa)
{
	struct cw_wait r = {0}, w = {0}, a = {0};
	int ls, s;

	ls = new_socket(IPPROTO_TCP, TCP_NODELAY, 1);
	s = listen_accept(ls, sa);
	r.s = w.s = s;
	if (pthread_create(&r.th, NULL, cw_recv_main, &r) ||
	    pthread_create(&w.th, NULL, cw_send_main, &w))
		FAIL("pthread_create");
	usleep(300000);
	if (r.done || w.done)
		FAIL("a wait ended before rclose: rrecv %d (%zd), rsend %d "
		     "(%zd after %zu bytes)",
		     r.done, r.ret, w.done, w.ret, w.sent);
	if (rclose(s))
		FAIL("rclose of a socket with waiters");
	cw_join(&r, "rrecv");
	cw_join(&w, "rsend");
	if (r.ret > 0 || (r.ret < 0 && r.err != EBADF))
		FAIL("rrecv across rclose gave %zd, errno %d", r.ret, r.err);
	if (w.ret == 0 || (w.ret < 0 && w.err != EPIPE && w.err != ECONNRESET &&
			   w.err != EBADF))
		FAIL("rsend across rclose gave %zd, errno %d", w.ret, w.err);
	if (rsend(s, "x", 1, 0) >= 0 || errno != EBADF)
		FAIL("rsend on the closed number did not fail EBADF");
	if (rclose(s) == 0 || errno != EBADF)
		FAIL("a second rclose did not fail EBADF");
	printf("closewait: rrecv gave %zd (%s), rsend %zd (%s) after %zu "
	       "bytes\n",
	       r.ret, r.ret < 0 ? strerror(r.err) : "EOF", w.ret,
	       w.ret < 0 ? strerror(w.err) : "short", w.sent);
	/* a listener with a thread in raccept() */
	a.s = ls;
	if (pthread_create(&a.th, NULL, cw_accept_main, &a))
		FAIL("pthread_create");
	usleep(200000);
	if (a.done)
		FAIL("raccept ended before rclose: %zd", a.ret);
	if (rclose(ls))
		FAIL("rclose of a listener with a waiter");
	cw_join(&a, "raccept");
	if (a.ret >= 0 || a.err != EBADF)
		FAIL("raccept across rclose gave %zd, errno %d", a.ret, a.err);
	printf("closewait: raccept gave EBADF; server done\n");
	return 0;
}

static int
closewait_client(struct sockaddr_in *sa)
{
	static uint8_t buf[65536];
	size_t got = 0;
	int s = new_socket(IPPROTO_TCP, TCP_NODELAY, 1);

	if (rconnect(s, (struct sockaddr *)sa, sizeof(*sa)))
		FAIL("rconnect");
	printf("connected\n");
	fflush(stdout);
	sleep(2); /* the server's rsend fills the buffers and waits */
	for (;;) {
		ssize_t n = rrecv(s, buf, sizeof(buf), 0);

		if (n == 0)
			break;
		if (n < 0) {
			if (errno == ECONNRESET)
				break;
			FAIL("rrecv after %zu bytes", got);
		}
		got += (size_t)n;
	}
	printf("closewait client: %zu bytes, then the end\n", got);
	rclose(s);
	return 0;
}

/*
 * acceptwait: a thread in a blocking raccept() takes the request of a
 * client that never sends its RTU (stall_client()) and waits for it;
 * meanwhile the main thread's rpoll() on the listener, 100 ms at a time,
 * must keep returning on time (the listener was held locked for the whole
 * handshake, up to 10 s). The main thread's rpoll() takes the request off
 * the channel the raccept() thread sleeps on: that thread must be woken
 * for it (rs_nudge()), not find it at the end of its sleep. The raccept()
 * must then fail (the client gave up, or the handshake's time ran out).
 */
static double
now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int
acceptwait_server(struct sockaddr_in *sa)
{
	struct cw_wait a = {0};
	double start = now_s(), longest = 0, in_first = 0, in_last = 0;
	int ls = new_socket(IPPROTO_TCP, TCP_NODELAY, 1), calls = 0, n;

	listen_say(ls, sa);
	a.s = ls;
	if (pthread_create(&a.th, NULL, cw_accept_main, &a))
		FAIL("pthread_create");
	while (!a.done && now_s() - start < 30) {
		struct pollfd p = {.fd = ls, .events = POLLIN};
		double t0 = now_s(), d;

		n = rpoll(&p, 1, 100);
		if (n < 0)
			FAIL("rpoll on the listener");
		d = now_s() - t0;
		/* the request shows until the raccept thread takes it */
		if (n > 0) {
			in_last = now_s();
			if (in_first == 0)
				in_first = in_last;
			usleep(5000); /* no spin on the listener's lock */
		}
		if (d > longest)
			longest = d;
		calls++;
	}
	if (!a.done)
		FAIL("raccept still waits after 30 s");
	pthread_join(a.th, NULL);
	if (a.ret >= 0)
		FAIL("a handshake without RTU was accepted");
	if (longest > 1.0)
		FAIL("an rpoll of 100 ms on the listener took %.2f s while "
		     "raccept waited for a handshake",
		     longest);
	/* this thread's rpoll took the request off the CM channel that the
	 * raccept thread sleeps on: it must have been woken for it */
	if (in_last - in_first > 0.1)
		FAIL("the request waited %.2f s beside a sleeping raccept",
		     in_last - in_first);
	printf("acceptwait: raccept gave %s after %.1f s; %d rpolls of the "
	       "listener meanwhile, the longest %.3f s; the request taken "
	       "%.3f s after it showed\n",
	       strerror(a.err), now_s() - start, calls, longest,
	       in_last - in_first);
	rclose(ls);
	return 0;
}

/* Wait for the next CM event on ch, which must be want. */
static void
cm_expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev))
		FAIL("rdma_get_cm_event");
	if (ev->event != want)
		FAIL("CM event %s, not %s", rdma_event_str(ev->event),
		     rdma_event_str(want));
	rdma_ack_cm_event(ev);
}

/* A new TCP port space ID on ch, its address and route to sa resolved. */
static struct rdma_cm_id *
cm_route(struct rdma_event_channel *ch, struct sockaddr_in *sa)
{
	struct rdma_cm_id *id;

	if (ch == NULL || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		FAIL("rdma_create_id");
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)sa, 2000))
		FAIL("rdma_resolve_addr");
	cm_expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (rdma_resolve_route(id, 2000))
		FAIL("rdma_resolve_route");
	cm_expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED);
	return id;
}

/* A client that connects with an rsocket's private data (version 1, no
 * QP of its own), gets the server's reply and never sends the RTU
 * (rdma_establish()): it gives up after 3 s. */
static int
stall_client(struct sockaddr_in *sa)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param prm = {0};
	struct rdma_cm_id *id;
	uint8_t cd[40] = {1, 0, 0, 16}; /* version 1, 16 credits */

	id = cm_route(ch, sa);
	prm.private_data = cd;
	prm.private_data_len = sizeof(cd);
	prm.retry_count = 7;
	prm.rnr_retry_count = 7;
	prm.qp_num = 0x4242; /* no QP: a number for the REQ */
	if (rdma_connect(id, &prm))
		FAIL("rdma_connect");
	cm_expect(ch, RDMA_CM_EVENT_CONNECT_RESPONSE);
	printf("stall client: the server answered; no RTU\n");
	fflush(stdout);
	sleep(3);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	printf("stall client: gave up\n");
	return 0;
}

/*
 * hostile: a client that connects as an rsocket peer would (a QP of its
 * own, version-1 private data), then RDMA WRITEs 16 bytes WITH IMMEDIATE
 * into the server's ring claiming 1 MiB of data: more than the ring the
 * server gave (its rrecv would copy from past the ring's end). The
 * server's rrecv must fail with ECONNRESET, having read nothing.
 */
static int
hostile_server(struct sockaddr_in *sa)
{
	static uint8_t buf[2 << 20];
	int ls = new_socket(IPPROTO_TCP, TCP_NODELAY, 1);
	int s = listen_accept(ls, sa);
	ssize_t n;

	errno = 0;
	n = rrecv(s, buf, sizeof(buf), MSG_WAITALL);
	if (n != -1 || errno != ECONNRESET)
		FAIL("hostile: rrecv gave %zd, not ECONNRESET", n);
	printf("hostile: rrecv gave ECONNRESET\n");
	rclose(s);
	rclose(ls);
	return 0;
}

struct wire_sge {
	uint64_t addr;
	uint32_t key, length;
};

static int
hostile_client(struct sockaddr_in *sa)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param prm = {0};
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct ibv_qp_init_attr qa = {.qp_type = IBV_QPT_RC,
				      .cap = {.max_send_wr = 4,
					      .max_recv_wr = 4,
					      .max_send_sge = 1,
					      .max_recv_sge = 1}};
	static struct wire_sge tsgl[2];
	static uint8_t rbuf[65536], data[16];
	uint8_t cd[40] = {1, 0, 0, 16}; /* version 1, 16 credits */
	struct wire_sge sge, peer_buf;
	struct ibv_mr *tmr, *rmr, *dmr;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_wc wc;
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

	id = cm_route(ch, sa);
	pd = ibv_alloc_pd(id->verbs);
	cq = ibv_create_cq(id->verbs, 16, NULL, NULL, 0);
	if (pd == NULL || cq == NULL)
		FAIL("PD / CQ");
	qa.send_cq = qa.recv_cq = cq;
	if (rdma_create_qp(id, pd, &qa))
		FAIL("rdma_create_qp");
	tmr = ibv_reg_mr(pd, tsgl, sizeof(tsgl), acc);
	rmr = ibv_reg_mr(pd, rbuf, sizeof(rbuf), acc);
	dmr = ibv_reg_mr(pd, data, sizeof(data), 0);
	if (tmr == NULL || rmr == NULL || dmr == NULL)
		FAIL("ibv_reg_mr");
	/* our target SGL (2 entries) and data buffer, big endian */
	sge = (struct wire_sge){htobe64((uintptr_t)tsgl), htobe32(tmr->rkey),
				htobe32(2)};
	memcpy(cd + 8, &sge, sizeof(sge));
	sge = (struct wire_sge){htobe64((uintptr_t)rbuf), htobe32(rmr->rkey),
				htobe32(sizeof(rbuf) / 2)};
	memcpy(cd + 24, &sge, sizeof(sge));
	prm.private_data = cd;
	prm.private_data_len = sizeof(cd);
	prm.retry_count = 7;
	prm.rnr_retry_count = 7;
	if (rdma_connect(id, &prm))
		FAIL("rdma_connect");
	if (rdma_get_cm_event(ch, &ev) ||
	    ev->event != RDMA_CM_EVENT_ESTABLISHED ||
	    ev->param.conn.private_data_len < 40)
		FAIL("no ESTABLISHED with the server's buffers");
	memcpy(&peer_buf, (const uint8_t *)ev->param.conn.private_data + 24,
	       sizeof(peer_buf));
	rdma_ack_cm_event(ev);
	/* 16 bytes, an immediate of data (op 0) claiming 1 MiB */
	{
		struct ibv_sge sg = {(uintptr_t)data, sizeof(data), dmr->lkey};
		struct ibv_send_wr wr = {.sg_list = &sg,
					 .num_sge = 1,
					 .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
					 .send_flags = IBV_SEND_SIGNALED,
					 .imm_data = htobe32(1u << 20)},
				   *bad;
		double t0 = now_s();
		int n;

		wr.wr.rdma.remote_addr = be64toh(peer_buf.addr);
		wr.wr.rdma.rkey = be32toh(peer_buf.key);
		if (ibv_post_send(id->qp, &wr, &bad))
			FAIL("post the write");
		while ((n = ibv_poll_cq(cq, 1, &wc)) == 0 && now_s() - t0 < 5)
			;
		if (n != 1 || wc.status != IBV_WC_SUCCESS)
			FAIL("the write did not complete");
	}
	printf("hostile client: wrote 16 bytes claiming 1 MiB\n");
	fflush(stdout);
	/* the server resets: its DREQ, or our wait ends */
	if (rdma_get_cm_event(ch, &ev) == 0) {
		printf("hostile client: %s\n", rdma_event_str(ev->event));
		rdma_ack_cm_event(ev);
	}
	rdma_destroy_qp(id);
	ibv_dereg_mr(tmr);
	ibv_dereg_mr(rmr);
	ibv_dereg_mr(dmr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	return 0;
}

/*
 * vec: the stream's gather and scatter calls. The client rwritev()s
 * "abc", nothing and "defgh", then rsendmsg()s "ij" and "klm"; rsendto()
 * and rsendmsg() with an address fail with EISCONN. The server takes
 * the 13 bytes (once they are all there) with rreadv() into 4 + 4 bytes
 * and rrecvmsg() into 2 + 3 (no address, no flags), then rrecvfrom()
 * says nothing of an address and gets the client's EOF.
 */
static int
vec_server(struct sockaddr_in *sa)
{
	char a[4], b[4], c[2], d[3], e[1];
	struct iovec rv[2] = {{a, 4}, {b, 4}}, mv[2] = {{c, 2}, {d, 3}};
	struct sockaddr_in from;
	struct msghdr m = {.msg_name = &from,
			   .msg_namelen = sizeof(from),
			   .msg_iov = mv,
			   .msg_iovlen = 2,
			   .msg_flags = -1};
	socklen_t fl = sizeof(from);
	int ls = new_socket(IPPROTO_TCP, TCP_NODELAY, 1);
	int s = listen_accept(ls, sa);
	char all[13];
	ssize_t n;

	/* all 13 bytes here first: then each call below has what it asks */
	for (int t = 0; t < 5000; t++) {
		n = rrecv(s, all, sizeof(all), MSG_PEEK);
		if (n == sizeof(all))
			break;
		if (n <= 0)
			FAIL("rrecv(MSG_PEEK): %zd", n);
		usleep(1000);
	}
	if (n != sizeof(all))
		FAIL("13 bytes did not come within 5 s (%zd)", n);
	n = rreadv(s, rv, 2);
	if (n != 8)
		FAIL("rreadv: %zd", n);
	if (memcmp(a, "abcd", 4) || memcmp(b, "efgh", 4))
		FAIL("rreadv: %.4s %.4s", a, b);
	n = rrecvmsg(s, &m, 0);
	if (n != 5 || memcmp(c, "ij", 2) || memcmp(d, "klm", 3) ||
	    m.msg_namelen != 0 || m.msg_flags != 0)
		FAIL("rrecvmsg: %zd bytes, name length %u, flags %d", n,
		     (unsigned)m.msg_namelen, m.msg_flags);
	n = rrecvfrom(s, e, 1, 0, (struct sockaddr *)&from, &fl);
	if (n != 0 || fl != 0)
		FAIL("rrecvfrom at the end: %zd, address length %u", n,
		     (unsigned)fl);
	printf("vec: rreadv, rrecvmsg and rrecvfrom took what was sent\n");
	rclose(s);
	rclose(ls);
	return 0;
}

static int
vec_client(struct sockaddr_in *sa)
{
	struct iovec wv[3] = {{"abc", 3}, {"", 0}, {"defgh", 5}};
	struct iovec mv[2] = {{"ij", 2}, {"klm", 3}};
	struct msghdr m = {.msg_iov = mv, .msg_iovlen = 2};
	int s = new_socket(IPPROTO_TCP, TCP_NODELAY, 1);

	if (rconnect(s, (struct sockaddr *)sa, sizeof(*sa)))
		FAIL("rconnect");
	if (rwritev(s, wv, 3) != 8)
		FAIL("rwritev");
	errno = 0;
	if (rsendto(s, "x", 1, 0, (struct sockaddr *)sa, sizeof(*sa)) != -1 ||
	    errno != EISCONN)
		FAIL("rsendto with an address on a stream");
	m.msg_name = sa;
	m.msg_namelen = sizeof(*sa);
	errno = 0;
	if (rsendmsg(s, &m, 0) != -1 || errno != EISCONN)
		FAIL("rsendmsg with an address on a stream");
	m.msg_name = NULL;
	m.msg_namelen = 0;
	if (rsendmsg(s, &m, 0) != 5)
		FAIL("rsendmsg");
	printf("vec client: rwritev and rsendmsg sent, addresses refused\n");
	rclose(s);
	return 0;
}

/* The process's CPU time (all its threads) and the wall clock, s. */
static void
idle_clocks(double *cpu, double *wall)
{
	struct rusage r;
	struct timespec t;

	getrusage(RUSAGE_SELF, &r);
	clock_gettime(CLOCK_MONOTONIC, &t);
	*cpu = (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
	       (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
	*wall = (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* idle: the server waits in rrecv() for the byte the client sends after
 * secs of sleep; each side measures from a second after the connection
 * is up (its start-up left behind) to the byte. */
static int
idle_peer(struct sockaddr_in *sa, int secs, bool srv)
{
	double c0, w0, c1, w1;
	int ls = -1, s;
	uint8_t c = 'i';

	s = new_socket(IPPROTO_TCP, TCP_NODELAY, 1);
	if (srv) {
		ls = s;
		s = listen_accept(ls, sa);
	} else if (rconnect(s, (struct sockaddr *)sa, sizeof(*sa))) {
		FAIL("rconnect");
	}
	sleep(1);
	idle_clocks(&c0, &w0);
	if (srv) {
		if (rrecv(s, &c, 1, 0) != 1)
			FAIL("rrecv");
	} else {
		sleep((unsigned int)secs);
	}
	idle_clocks(&c1, &w1);
	if (!srv && rsend(s, &c, 1, 0) != 1)
		FAIL("rsend");
	printf("idle connection: %s %.2f s, process CPU %.3f %% of a core\n",
	       srv ? "server in rrecv" : "client in sleep", w1 - w0,
	       100.0 * (c1 - c0) / (w1 - w0));
	if (!srv)
		rrecv(s, &c, 1, 0); /* the server's close */
	rclose(s);
	if (ls >= 0)
		rclose(ls);
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
	if (argc > 5 && !strcmp(argv[5], "acceptwait"))
		return strcmp(argv[1], "server") ? stall_client(&sa)
						 : acceptwait_server(&sa);
	if (argc > 5 && !strcmp(argv[5], "vec"))
		return strcmp(argv[1], "server") ? vec_client(&sa)
						 : vec_server(&sa);
	if (argc > 5 && !strcmp(argv[5], "hostile"))
		return strcmp(argv[1], "server") ? hostile_client(&sa)
						 : hostile_server(&sa);
	if (argc > 5 && !strcmp(argv[5], "idle"))
		return idle_peer(&sa, atoi(argv[4]),
				 !strcmp(argv[1], "server"));
	if (argc > 5 && !strcmp(argv[5], "closewait"))
		return strcmp(argv[1], "server") ? closewait_client(&sa)
						 : closewait_server(&sa);
	if (argc > 5 && !strcmp(argv[5], "iomap"))
		return strcmp(argv[1], "server") ? iomap_client(&sa)
						 : iomap_server(&sa);
	return strcmp(argv[1], "server") ? client(&sa, total, dead)
					 : server(&sa, total, dead);
}
