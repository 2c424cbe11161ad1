/* SPDX-License-Identifier: BSD-3-Clause */
/* The tests the client runs, and the server's echo loop. */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "demo.h"

#define OP_TIMEOUT_NS  5000000000ull  /* one completion: 5 s at most */
#define SERVER_IDLE_NS 60000000000ull /* no word from the client */
#define LAT_MAX_S      2.0	      /* cap of one latency test */
#define MSG_LEN	       64u

static void
report_wc_error(struct demo_ep *ep, const struct ibv_wc *wc, const char *what)
{
	ep->errors++;
	demo_err(ep->name,
		 "%s completion (wr_id %llu, qpn 0x%x): %s "
		 "(vendor_err 0x%x)",
		 what, (unsigned long long)wc->wr_id, wc->qp_num,
		 ibv_wc_status_str(wc->status), wc->vendor_err);
}

static uint8_t *
msg_slot(struct demo_ep *ep, unsigned idx)
{
	return ep->buf + DEMO_MSG_OFF + idx * DEMO_MSG_SLOT;
}

static int
post_one(struct demo_ep *ep, enum ibv_wr_opcode op, uint64_t wr_id, void *addr,
	 uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr,
		.length = len,
		.lkey = ep->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;
	int rc;

	if (op != IBV_WR_RDMA_READ && len <= ep->max_inline)
		wr.send_flags |= IBV_SEND_INLINE;
	if (op != IBV_WR_SEND) {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	rc = ibv_post_send(ep->qp, &wr, &bad);
	if (rc) {
		demo_err(ep->name, "ibv_post_send: %s", strerror(rc));
		return -rc;
	}
	ep->sq_inflight++;
	return 0;
}

/*
 * Server side: reap completions; echo every received message back with a
 * SEND of the same bytes. Returns completions handled, or -errno.
 */
int
demo_server_step(struct demo_ep *ep)
{
	struct ibv_wc wc[16];
	int n, i, rc;

	n = ibv_poll_cq(ep->cq, 16, wc);
	if (n < 0) {
		demo_err(ep->name, "ibv_poll_cq failed (%d)", n);
		return -EIO;
	}
	for (i = 0; i < n; i++) {
		unsigned slot = (unsigned)wc[i].wr_id;

		if (wc[i].status != IBV_WC_SUCCESS) {
			report_wc_error(ep, &wc[i], "server");
			return -EIO;
		}
		if (wc[i].opcode != IBV_WC_RECV) {
			ep->sq_inflight--;
			continue;
		}
		ep->rq_posted--;
		if (slot >= DEMO_RQ_DEPTH || wc[i].byte_len > DEMO_MSG_SLOT) {
			demo_err(ep->name,
				 "bad receive completion (wr_id %u, "
				 "%u bytes)",
				 slot, wc[i].byte_len);
			return -EIO;
		}
		memcpy(msg_slot(ep, DEMO_RQ_DEPTH + slot), msg_slot(ep, slot),
		       wc[i].byte_len);
		rc = demo_ep_post_recv(ep, slot);
		if (rc)
			return rc;
		if (ep->sq_inflight >= DEMO_SQ_DEPTH) {
			demo_err(ep->name, "send queue full");
			return -ENOSPC;
		}
		rc = post_one(ep, IBV_WR_SEND, slot,
			      msg_slot(ep, DEMO_RQ_DEPTH + slot),
			      wc[i].byte_len, 0, 0);
		if (rc)
			return rc;
		ep->echoes++;
	}
	return n;
}

/* Serve until the client says it is done. */
int
demo_server_run(struct demo_ep *ep, int fd)
{
	uint64_t last = demo_now_ns();
	struct demo_msg m, r;
	unsigned iter = 0;
	ssize_t n;
	int rc;

	for (;;) {
		rc = demo_server_step(ep);
		if (rc < 0)
			return rc;
		if ((++iter & 255) != 0)
			continue;
		n = recv(fd, &m, sizeof(m), MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (demo_stop)
				return -EINTR;
			if (demo_now_ns() - last > SERVER_IDLE_NS) {
				demo_err(ep->name,
					 "no word from the client "
					 "for %llu s, giving up",
					 SERVER_IDLE_NS / 1000000000ull);
				return -ETIMEDOUT;
			}
			continue;
		}
		if (n == 0) {
			demo_err(ep->name, "the client went away");
			return -EPIPE;
		}
		if (n != sizeof(m)) {
			demo_err(ep->name, "control socket: %s",
				 n < 0 ? strerror(errno) : "short message");
			return -EPROTO;
		}
		last = demo_now_ns();
		memset(&r, 0, sizeof(r));
		r.type = m.type;
		switch (m.type) {
		case DEMO_MSG_CSUM:
			if (m.a > DEMO_BUF_SIZE || m.b > DEMO_BUF_SIZE - m.a) {
				r.type = DEMO_MSG_FAIL;
				r.val = EINVAL;
			} else {
				r.val = demo_csum(ep->buf + m.a, m.b);
			}
			break;
		case DEMO_MSG_DONE:
			r.val = ep->echoes;
			return demo_msg_send(fd, &r);
		case DEMO_MSG_FAIL:
			demo_err(ep->name, "the client failed (%s)",
				 strerror((int)m.val));
			return -ECANCELED;
		default:
			r.type = DEMO_MSG_FAIL;
			r.val = EPROTO;
			break;
		}
		rc = demo_msg_send(fd, &r);
		if (rc)
			return rc;
	}
}

/* ---- client side ---- */

static int
peer_poll(struct demo_peer *p)
{
	return p->local ? demo_server_step(p->local) : 0;
}

static int
peer_csum(struct demo_ep *ep, struct demo_peer *p, uint64_t off, uint64_t len,
	  uint64_t *out)
{
	struct demo_msg m = {.type = DEMO_MSG_CSUM, .a = off, .b = len};
	int rc;

	if (p->local) {
		*out = demo_csum(p->local->buf + off, len);
		return 0;
	}
	rc = demo_msg_send(p->fd, &m);
	if (rc == 0)
		rc = demo_msg_recv(p->fd, &m, ep, 10.0);
	if (rc == 0 && m.type != DEMO_MSG_CSUM)
		rc = -EPROTO;
	if (rc) {
		demo_err(ep->name, "asking the server for a checksum: %s",
			 strerror(-rc));
		return rc;
	}
	*out = m.val;
	return 0;
}

/*
 * Reap up to max completions of the client's own work (each must be a
 * success), then let a local peer (loopback) run once. Returns the number
 * reaped or -errno.
 */
static int
client_reap(struct demo_ep *ep, struct demo_peer *p, struct ibv_wc *wc, int max,
	    const char *what)
{
	int n, i, rc;

	n = ibv_poll_cq(ep->cq, max, wc);
	if (n < 0) {
		demo_err(ep->name, "ibv_poll_cq failed (%d)", n);
		return -EIO;
	}
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			report_wc_error(ep, &wc[i], what);
			return -EIO;
		}
		if (wc[i].opcode != IBV_WC_RECV)
			ep->sq_inflight--;
		else
			ep->rq_posted--;
	}
	rc = peer_poll(p);
	if (rc < 0)
		return rc;
	return n;
}

static void
fmt_size(uint32_t sz, char *out, size_t len)
{
	if (sz >= 1024 && sz % 1024 == 0)
		snprintf(out, len, "%u KiB", sz / 1024);
	else
		snprintf(out, len, "%u B", sz);
}

/* RDMA WRITE or READ streaming for o->seconds; returns 0 ok, 1 data
 * mismatch, -errno on error. */
static int
run_bw(struct demo_ep *ep, struct demo_peer *p, const struct demo_opts *o,
       enum ibv_wr_opcode op, uint32_t size, uint64_t seed)
{
	uint8_t *local = ep->buf + DEMO_SRC_OFF;
	const char *what = op == IBV_WR_RDMA_WRITE ? "RDMA WRITE" : "RDMA READ";
	unsigned slots = DEMO_AREA / size;
	unsigned depth = slots < 64 ? slots : 64;
	uint64_t posted = 0, done = 0, t0, t_end, t_last, now, covered;
	uint64_t want, got;
	struct ibv_wc wc[32];
	char szs[16];
	double secs, mbs;
	int rc, n;

	if (depth > 16 && size > 16384)
		depth = 16;
	if (op == IBV_WR_RDMA_WRITE)
		demo_fill(local, DEMO_AREA, seed);
	else
		memset(local, 0, DEMO_AREA);

	t0 = now = t_last = demo_now_ns();
	t_end = t0 + (uint64_t)(o->seconds * 1e9);
	for (;;) {
		while (ep->sq_inflight < depth && now < t_end && !demo_stop) {
			uint64_t off = (posted % slots) * size;

			rc = post_one(ep, op, posted, local + off, size,
				      p->conn.addr + off, p->conn.rkey);
			if (rc)
				return rc;
			posted++;
		}
		if (ep->sq_inflight == 0)
			break;
		n = client_reap(ep, p, wc, 32, what);
		if (n < 0)
			return n;
		now = demo_now_ns();
		if (n > 0) {
			done += (unsigned)n;
			t_last = now;
		} else if (now - t_last > OP_TIMEOUT_NS) {
			demo_err(ep->name,
				 "%s: no completion for %llu s "
				 "(%u outstanding): the peer is not answering",
				 what, OP_TIMEOUT_NS / 1000000000ull,
				 ep->sq_inflight);
			return -ETIMEDOUT;
		}
	}
	if (demo_stop)
		return -EINTR;

	covered = (posted < slots ? posted : slots) * (uint64_t)size;
	want = demo_csum(local, covered);
	rc = peer_csum(ep, p, 0, covered, &got);
	if (rc)
		return rc;
	secs = (double)(t_last - t0) / 1e9;
	mbs = secs > 0 ? (double)done * size / secs / 1e6 : 0;
	fmt_size(size, szs, sizeof(szs));
	printf("  %-10s bandwidth %7s  %8llu msgs %6.2f s %9.1f MB/s "
	       "%7.2f Gbit/s  data %s\n",
	       what, szs, (unsigned long long)done, secs, mbs, mbs * 8 / 1000,
	       want == got ? "ok" : "MISMATCH");
	if (want != got)
		demo_err(ep->name,
			 "%s %s: checksum of the %llu bytes "
			 "transferred is 0x%016llx here, 0x%016llx at the "
			 "server",
			 what, szs, (unsigned long long)covered,
			 (unsigned long long)want, (unsigned long long)got);
	fflush(stdout);
	return want == got ? 0 : 1;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
print_lat(const char *what, uint64_t *s, unsigned n, bool ok)
{
	uint64_t sum = 0;
	unsigned i;

	if (n == 0) {
		printf("  %-36s no samples\n", what);
		return;
	}
	qsort(s, n, sizeof(*s), cmp_u64);
	for (i = 0; i < n; i++)
		sum += s[i];
	printf("  %-36s %6u iters  avg %7.2f  min %7.2f  p50 %7.2f  "
	       "p99 %7.2f  max %8.2f us  data %s\n",
	       what, n, (double)sum / n / 1e3, s[0] / 1e3, s[n / 2] / 1e3,
	       s[(uint64_t)n * 99 / 100] / 1e3, s[n - 1] / 1e3,
	       ok ? "ok" : "MISMATCH");
	fflush(stdout);
}

/* Wait until the client has no signaled send outstanding and, if
 * want_recv, one receive completed (copied to *rwc). */
static int
wait_op(struct demo_ep *ep, struct demo_peer *p, bool want_recv,
	struct ibv_wc *rwc, const char *what)
{
	uint64_t start = demo_now_ns();
	struct ibv_wc wc[4];
	int n, i;

	while (ep->sq_inflight > 0 || want_recv) {
		n = client_reap(ep, p, wc, 4, what);
		if (n < 0)
			return n;
		for (i = 0; i < n; i++) {
			if (wc[i].opcode == IBV_WC_RECV) {
				*rwc = wc[i];
				want_recv = false;
			}
		}
		if (n == 0 &&
		    ((demo_now_ns() - start) > OP_TIMEOUT_NS || demo_stop)) {
			if (demo_stop)
				return -EINTR;
			demo_err(ep->name,
				 "%s: no completion for %llu s: the "
				 "peer is not answering",
				 what, OP_TIMEOUT_NS / 1000000000ull);
			return -ETIMEDOUT;
		}
	}
	return 0;
}

/* SEND/RECV ping-pong of MSG_LEN bytes: the server echoes each message. */
static int
run_send_lat(struct demo_ep *ep, struct demo_peer *p, const struct demo_opts *o,
	     uint64_t *samples)
{
	uint64_t t0, start = demo_now_ns();
	unsigned i, n = 0, bad = 0, slot;
	struct ibv_wc rwc = {0};
	uint8_t *tx;
	int rc;

	for (i = 0; i < o->lat_iters; i++) {
		if (demo_now_ns() - start > (uint64_t)(LAT_MAX_S * 1e9))
			break;
		tx = ep->buf + DEMO_MSG_OFF +
		     (DEMO_RQ_DEPTH + i % DEMO_RQ_DEPTH) * DEMO_MSG_SLOT;
		demo_fill(tx, MSG_LEN, 0x5e4d0000ull + i);
		t0 = demo_now_ns();
		rc = post_one(ep, IBV_WR_SEND, i, tx, MSG_LEN, 0, 0);
		if (rc == 0)
			rc = wait_op(ep, p, true, &rwc, "SEND/RECV");
		if (rc)
			return rc;
		samples[n++] = demo_now_ns() - t0;
		slot = (unsigned)rwc.wr_id;
		if (slot >= DEMO_RQ_DEPTH || rwc.byte_len != MSG_LEN ||
		    memcmp(ep->buf + DEMO_MSG_OFF + slot * DEMO_MSG_SLOT, tx,
			   MSG_LEN) != 0)
			bad++;
		if (slot < DEMO_RQ_DEPTH) {
			rc = demo_ep_post_recv(ep, slot);
			if (rc)
				return rc;
		}
	}
	print_lat("SEND/RECV ping-pong 64 B (RTT)", samples, n, bad == 0);
	if (bad)
		demo_err(ep->name,
			 "%u of %u echoed messages differ from what "
			 "was sent",
			 bad, n);
	return bad ? 1 : 0;
}

/* RDMA WRITE of MSG_LEN bytes, each waited for (post to completion). */
static int
run_write_lat(struct demo_ep *ep, struct demo_peer *p,
	      const struct demo_opts *o, uint64_t *samples)
{
	uint8_t *src = ep->buf + DEMO_SRC_OFF;
	uint64_t t0, start = demo_now_ns(), want, got;
	unsigned i, n = 0;
	struct ibv_wc dummy;
	int rc;

	for (i = 0; i < o->lat_iters; i++) {
		if (demo_now_ns() - start > (uint64_t)(LAT_MAX_S * 1e9))
			break;
		demo_fill(src, MSG_LEN, 0x3a110000ull + i);
		t0 = demo_now_ns();
		rc = post_one(ep, IBV_WR_RDMA_WRITE, i, src, MSG_LEN,
			      p->conn.addr, p->conn.rkey);
		if (rc == 0)
			rc = wait_op(ep, p, false, &dummy, "RDMA WRITE");
		if (rc)
			return rc;
		samples[n++] = demo_now_ns() - t0;
	}
	want = demo_csum(src, MSG_LEN);
	rc = peer_csum(ep, p, 0, MSG_LEN, &got);
	if (rc)
		return rc;
	print_lat("RDMA WRITE 64 B (post to completion)", samples, n,
		  want == got);
	if (want != got)
		demo_err(ep->name,
			 "the last 64-byte WRITE did not land: "
			 "checksum 0x%016llx here, 0x%016llx at the server",
			 (unsigned long long)want, (unsigned long long)got);
	return want == got ? 0 : 1;
}

/* Run every test; 0 all passed, >0 number of data mismatches, <0 error. */
int
demo_client_run(struct demo_ep *ep, struct demo_peer *p,
		const struct demo_opts *o)
{
	static const uint32_t sizes[] = {4096, 65536};
	uint64_t *samples;
	unsigned i, bad = 0;
	int rc = 0;

	samples = calloc(o->lat_iters ? o->lat_iters : 1, sizeof(*samples));
	if (!samples) {
		demo_err(ep->name, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < 2 && rc >= 0; i++) {
		rc = run_bw(ep, p, o, IBV_WR_RDMA_WRITE, sizes[i], 100 + i);
		bad += rc > 0;
	}
	for (i = 0; i < 2 && rc >= 0; i++) {
		rc = run_bw(ep, p, o, IBV_WR_RDMA_READ, sizes[i], 200 + i);
		bad += rc > 0;
	}
	if (rc >= 0) {
		rc = run_send_lat(ep, p, o, samples);
		bad += rc > 0;
	}
	if (rc >= 0) {
		rc = run_write_lat(ep, p, o, samples);
		bad += rc > 0;
	}
	free(samples);
	return rc < 0 ? rc : (int)bad;
}
