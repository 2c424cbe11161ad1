/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rsockets: the data path (RDMA WRITE WITH IMMEDIATE into the peer's
 * ring, credits and SGL updates), waiting, rpoll / rselect and the
 * send / receive entry points. See rs_int.h for the protocol.
 */
#include <byteswap.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rsocket.h>

#include "dpv_verbs.h"
#include "rs_int.h"

#define WR_RECV (1ull << 63)
#define WR_CTRL (1ull << 62)
#define WR_PROBE (1ull << 61) /* with WR_CTRL: a liveness probe */
#define RS_PROBE_MS 1000 /* a peer silent this long while we wait: probe */
#define RS_SPIN_US 50 /* poll the CQ this long before sleeping */
/* a waiter's sleeps on a device that runs only inside verbs calls (the
 * waiter's polls move its traffic) */
#define RS_SLICE_MS 1

uint64_t
rs_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static uint64_t
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000 + (uint64_t)t.tv_nsec / 1000;
}

void
rs_bufs_init(struct rs *rs)
{
	rs->s_off = 0;
	rs->s_avail = rs->sbuf_size;
	rs->ctrl_seq = 0;
	rs->ctrl_max = RS_CTRL_N;
	rs->sqe_avail = rs->sq_size - RS_CTRL_N;
	rs->sseq_no = 0;
	rs->r_off = 0;
	rs->r_free_off = rs->rbuf_size / 2; /* the first half goes in the REQ/REP */
	rs->r_avail = rs->rbuf_size / 2;
	rs->r_queued = 0;
	rs->rseq_no = 0;
	rs->rseq_comp = rs->rq_size / 2;
	rs->rm_head = rs->rm_tail = 0;
}

int
rs_post_recvs(struct rs *rs, int n)
{
	struct ibv_recv_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WR_RECV; /* no buffer: the data came by RDMA WRITE */
	while (n-- > 0)
		if (ibv_post_recv(rs->id->qp, &wr, &bad))
			return -1;
	return 0;
}

static int
post_write(struct rs *rs, struct ibv_sge *sg, int nsge, bool imm_on,
	   uint32_t imm, uint64_t raddr, uint32_t rkey, uint64_t wr_id,
	   unsigned int fl)
{
	struct ibv_send_wr wr, *bad;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = sg;
	wr.num_sge = nsge;
	wr.opcode = imm_on ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
	wr.send_flags = fl;
	wr.imm_data = imm_on ? htobe32(imm) : 0;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	ret = ibv_post_send(rs->id->qp, &wr, &bad);
	return ret ? RS_ERR(ret) : 0;
}

bool
rs_ctrl_free(struct rs *rs)
{
	return rs->ctrl_seq != rs->ctrl_max || rs->state != RS_CONNECTED;
}

/* A control message with no payload (a zero-length write). */
int
rs_post_ctrl(struct rs *rs, uint32_t imm)
{
	rs->ctrl_seq++;
	return post_write(rs, NULL, 0, true, imm, 0, 0, WR_CTRL, 0);
}

/* Give the peer credits: more messages and, when half of our ring is
 * free, that half (written into its target SGL). */
static void
rs_update_credits(struct rs *rs)
{
	uint32_t half = rs->rbuf_size / 2;
	uint32_t imm;
	struct rs_sge *slot;
	struct ibv_sge sg;

	if (rs->state != RS_CONNECTED || rs->ctrl_seq == rs->ctrl_max)
		return;
	if (rs->r_avail < half && (int16_t)(rs->rseq_no - rs->rseq_comp) < 0)
		return;
	rs->rseq_comp = (uint16_t)(rs->rseq_no + rs->rq_size / 2);
	imm = RS_IMM(RS_OP_SGL, (uint16_t)(rs->rseq_no + rs->rq_size));
	if (rs->r_avail < half) {
		rs_post_ctrl(rs, imm);
		return;
	}
	slot = (struct rs_sge *)(rs->sbuf + rs->sbuf_size) +
	       rs->ctrl_seq % RS_CTRL_N;
	slot->addr = (uintptr_t)(rs->rbuf + rs->r_free_off);
	slot->key = rs->rmr->rkey;
	slot->length = half;
	if (rs->swap) {
		slot->addr = bswap_64(slot->addr);
		slot->key = bswap_32(slot->key);
		slot->length = bswap_32(slot->length);
	}
	sg.addr = (uintptr_t)slot;
	sg.length = sizeof(*slot);
	sg.lkey = rs->smr->lkey;
	rs->ctrl_seq++;
	if (post_write(rs, &sg, 1, true, imm,
		       rs->rsgl_addr + (uint64_t)rs->rsge * sizeof(*slot),
		       rs->rsgl_key, WR_CTRL, 0))
		return;
	rs->r_avail -= half;
	rs->r_free_off += half;
	if (rs->r_free_off >= rs->rbuf_size)
		rs->r_free_off = 0;
	rs->rsge = (rs->rsge + 1) % (int)rs->rsgl_n;
}

/* The peer broke the protocol (a broken or hostile one): the stream is
 * lost. Counted; the socket resets and the connection is dropped, once
 * it is up (rs_violated(): the message may come before the accepting
 * side saw its connection established). */
static void
rs_violation(struct rs *rs)
{
	rs->violations++;
	rs->violated = true;
}

static void
rs_violated(struct rs *rs)
{
	if (!rs->violated || rs->state != RS_CONNECTED)
		return;
	rs->reset = true;
	rs->rd = rs->wr = false;
	rs->state = RS_CLOSED;
	rs->err = ECONNRESET;
	rdma_disconnect(rs->id);
}

static void
rs_recv_imm(struct rs *rs, uint32_t imm)
{
	uint32_t v = RS_IMM_VAL(imm);
	int next;

	switch (RS_IMM_OP(imm)) {
	case RS_OP_DATA:
		next = (rs->rm_tail + 1) % (rs->rq_size + 1);
		/* beyond the credits we gave, or more bytes than the part of
		 * the ring the peer was given and we have not read yet (rrecv
		 * would copy from past the ring's end) */
		if (next == rs->rm_head ||
		    v > rs->rbuf_size - rs->r_avail - rs->r_queued) {
			rs_violation(rs);
			break;
		}
		rs->rmsg[rs->rm_tail] = v;
		rs->r_queued += v;
		rs->rm_tail = next;
		break;
	case RS_OP_SGL:
		rs->sseq_comp = (uint16_t)v;
		break;
	case RS_OP_IOMAP_SGL:
		/* the peer wrote entry v of our iomap table. It counted the
		 * message against its credits: it is consumed here (rdma-core
		 * never gives that credit back, which is safe, only slower) */
		rs->rseq_no++;
		break;
	case RS_OP_CTRL:
		if (v == RS_CTRL_SHUTDOWN && rs->wr) {
			rs->rd = false; /* the peer sends no more */
		} else if (v == RS_CTRL_SHUTDOWN || v == RS_CTRL_DISCONNECT) {
			rs->rd = rs->wr = false;
			rs->state = RS_CLOSED;
		}
		break;
	default:
		break;
	}
}

/* Poll the CQ dry; then repost the receives it consumed and hand out
 * credits. */
void
rs_progress_cq(struct rs *rs)
{
	struct ibv_wc wc[16];
	int n, rcnt = 0;

	if (rs->cq == NULL)
		return;
	while ((n = ibv_poll_cq(rs->cq, 16, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			if (wc[i].wr_id & WR_RECV) {
				if (wc[i].status != IBV_WC_SUCCESS)
					continue;
				rs->heard++;
				rs->rx_seen = true;
				rcnt++;
				if (wc[i].wc_flags & IBV_WC_WITH_IMM)
					rs_recv_imm(rs, be32toh(wc[i].imm_data));
				continue;
			}
			if (wc[i].status == IBV_WC_SUCCESS)
				rs->heard++;
			if (wc[i].wr_id & WR_PROBE)
				rs->probing = false;
			if (wc[i].wr_id & WR_CTRL) {
				rs->ctrl_max++;
			} else {
				rs->sqe_avail++;
				rs->s_avail += (uint32_t)wc[i].wr_id;
			}
			if (wc[i].status != IBV_WC_SUCCESS &&
			    rs->state == RS_CONNECTED) {
				/* the peer is gone (retries exhausted) */
				rs->reset = true;
				rs->rd = rs->wr = false;
				rs->state = RS_CLOSED;
				rs->err = ECONNRESET;
			}
		}
		if (n < 16)
			break;
	}
	if (rs->state == RS_CONNECTED && rcnt > 0 && rs_post_recvs(rs, rcnt)) {
		rs->reset = true;
		rs->rd = rs->wr = false;
		rs->state = RS_CLOSED;
		rs->err = errno;
	}
	rs_update_credits(rs);
}

void
rs_progress(struct rs *rs)
{
	if (rs->dgram) {
		ds_progress(rs);
		return;
	}
	rs_progress_cq(rs);
	if (rs->state != RS_INIT && rs->state != RS_BOUND &&
	    rs->state != RS_FAILED)
		rs_cm_step(rs);
	if (rs->violated)
		rs_violated(rs);
}

/*
 * Liveness, called where a caller waits on rs (rs_wait(), rpoll()): a
 * connected peer that has completed nothing of ours and sent nothing for
 * RS_PROBE_MS gets a zero-length RDMA WRITE (no immediate: its rsockets
 * never sees it, its transport acknowledges it). Over a kernel RDMA stack
 * a peer process that dies makes its kernel disconnect; here nothing
 * speaks for a dead process, so a survivor waiting for credits or data
 * would wait forever. The probe's retries run out instead, and the socket
 * resets (ECONNRESET) within the QP's retry time. One probe at a time,
 * through a control slot (none free: a control message is in flight and
 * tells the same).
 */
void
rs_probe(struct rs *rs)
{
	struct ibv_send_wr wr, *bad;
	uint64_t now;

	if (rs->state != RS_CONNECTED || rs->probing || rs->id->qp == NULL)
		return;
	now = rs_now_ms();
	if (rs->heard != rs->heard_seen || rs->heard_ms == 0) {
		rs->heard_seen = rs->heard;
		rs->heard_ms = now;
		return;
	}
	if (now - rs->heard_ms < RS_PROBE_MS || rs->ctrl_seq == rs->ctrl_max)
		return;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WR_CTRL | WR_PROBE;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = rs->rsgl_addr;
	wr.wr.rdma.rkey = rs->rsgl_key;
	if (ibv_post_send(rs->id->qp, &wr, &bad) != 0)
		return;
	rs->ctrl_seq++;
	rs->probing = true;
	rs->heard_ms = now;
}

/*
 * How long a caller waiting on rs may sleep on its channels' fds
 * (rs_fds()). Where a progress thread or worker lcore runs the device,
 * a completion or CM event writes one of them and ends the sleep, so it
 * lasts until the next liveness look is due (rs_probe()): 1 ms slices
 * woke an idle waiter 1,000 times a second (~2 % of a core here). On a
 * device that runs only inside verbs calls the waiter's own polls move
 * its traffic: RS_SLICE_MS. A socket without a QP (a listener, a connect
 * under way) waits for CM events, which the CM agent delivers in every
 * mode.
 */
int
rs_sleep_ms(struct rs *rs)
{
	uint64_t now, due;

	if (rs->cq != NULL && rs->app_progress)
		return RS_SLICE_MS;
	if (rs->state != RS_CONNECTED || rs->probing || rs->heard_ms == 0)
		return RS_PROBE_MS;
	now = rs_now_ms();
	due = rs->heard_ms + RS_PROBE_MS;
	return due <= now ? 1 : (int)(due - now);
}

void
rs_drain_events(struct rs *rs)
{
	struct ibv_cq *cq;
	void *ctx;
	bool took = false;

	if (rs->cch == NULL)
		return;
	while (ibv_get_cq_event(rs->cch, &cq, &ctx) == 0) {
		ibv_ack_cq_events(cq, 1);
		rs->armed = false;
		took = true;
	}
	if (took) /* from under another sleeper's poll() */
		rs_nudge(rs);
}

/*
 * Wake the callers asleep on rs (their poll() includes rs->wfd): this
 * caller took an event off an fd they sleep on (a poll() woken by it
 * looks again, finds it gone and sleeps on), or changed what they wait
 * for (shutdown, close). A system call only while someone sleeps.
 */
void
rs_nudge(struct rs *rs)
{
	uint64_t one = 1;
	ssize_t r;

	if (rs->sleepers == 0)
		return;
	/* fails only when full: 2^64 - 2 writes that no one reset */
	r = write(rs->wfd, &one, sizeof(one));
	(void)r;
}

/* A sleeper is back (rs locked): the last one resets rs->wfd, which
 * stays readable until then so that every sleeper's poll() returns. */
void
rs_sleep_end(struct rs *rs)
{
	uint64_t v;
	ssize_t r;

	if (rs->sleepers == 0 || --rs->sleepers > 0)
		return;
	/* EAGAIN when no one wrote it */
	r = read(rs->wfd, &v, sizeof(v));
	(void)r;
}

/* A caller is about to sleep on rs's fds (rs_fds()): counted for
 * rs_nudge(), and, if the peer sent something since the last sleep (an
 * exchange is under way: an answer is likely soon), the device's progress
 * thread told to land what comes. It naps while the application drives
 * the device (the waiter's own polls before the sleep did), and a reply
 * that came during a nap waited for its end: a datagram echo's round trip
 * took 2 ms instead of 12 us, rstream -T b's 64 bytes 6-7 us instead of
 * 1-1.2. Not after a quiet spell: the thread is not napping beside the
 * application then, and a kick would make it poll hot for nothing (an
 * idle connection's waiter wakes once a second). */
static void
rs_sleep_begin(struct rs *rs)
{
	rs->sleepers++;
	if (rs->rx_seen && rs->cq != NULL && !rs->app_progress)
		dpv_device_app_blocks(rs->cq->context);
	rs->rx_seen = false;
}

/* Arm the CQ for the next completion; true if it was armed already. */
static bool
rs_arm(struct rs *rs)
{
	if (rs->cq == NULL || rs->armed)
		return true;
	rs->armed = ibv_req_notify_cq(rs->cq, 0) == 0;
	return false;
}

/* The fds a sleep on rs waits for: its nudge fd, its CM channel and its
 * CQ channel. */
int
rs_fds(struct rs *rs, struct pollfd *p)
{
	p[0] = (struct pollfd){.fd = rs->wfd, .events = POLLIN};
	p[1] = (struct pollfd){.fd = rs->ch->fd, .events = POLLIN};
	if (rs->cch == NULL)
		return 2;
	p[2] = (struct pollfd){.fd = rs->cch->fd, .events = POLLIN};
	return 3;
}

int
rs_wait(struct rs *rs, bool (*test)(struct rs *), bool nonblock, int max_ms)
{
	uint64_t start = rs_now_ms(), spin_end = now_us() + RS_SPIN_US;
	struct pollfd p[RS_FDS_MAX];

	for (;;) {
		rs_progress(rs);
		if (test(rs))
			return 0;
		if (rs->closed) /* another thread's rclose() */
			return RS_ERR(EBADF);
		if (nonblock) {
			rs_probe(rs); /* a caller that loops on EAGAIN */
			return RS_ERR(EAGAIN);
		}
		if (max_ms >= 0 && rs_now_ms() - start >= (uint64_t)max_ms)
			return RS_ERR(ETIMEDOUT);
		if (now_us() < spin_end || !rs_arm(rs))
			continue; /* after arming, look once more */
		int n = rs_fds(rs, p), ms;

		rs_probe(rs);
		ms = rs_sleep_ms(rs);
		if (max_ms >= 0) {
			int64_t left =
				(int64_t)start + max_ms - (int64_t)rs_now_ms();

			if (ms > left)
				ms = left < 1 ? 1 : (int)left;
		}
		rs_sleep_begin(rs);
		pthread_mutex_unlock(&rs->lk);
		poll(p, (nfds_t)n, ms);
		pthread_mutex_lock(&rs->lk);
		rs_sleep_end(rs);
		rs_drain_events(rs);
	}
}

static bool
rs_not_connecting(struct rs *rs)
{
	return rs->state != RS_ADDR && rs->state != RS_ROUTE &&
	       rs->state != RS_CONNECT;
}

static bool
rs_have_rdata(struct rs *rs)
{
	return rs->rm_head != rs->rm_tail;
}

static bool
rs_rdata_or_eof(struct rs *rs)
{
	return rs_have_rdata(rs) || !rs->rd;
}

static bool
rs_can_send(struct rs *rs)
{
	return rs->sqe_avail > 0 && rs->s_avail >= RS_SNDLOWAT &&
	       rs->sseq_no != rs->sseq_comp && rs->tsgl[rs->tsge].length != 0;
}

static bool
rs_can_send_or_closed(struct rs *rs)
{
	return !rs->wr || rs_can_send(rs);
}

bool
rs_sends_done(struct rs *rs)
{
	return rs->state != RS_CONNECTED ||
	       (rs->sqe_avail == rs->sq_size - RS_CTRL_N &&
		rs->ctrl_seq == rs->ctrl_max);
}

short
rs_revents(struct rs *rs, short events)
{
	short r = 0;

	if (rs->dgram)
		return ds_revents(rs, events);
	switch (rs->state) {
	case RS_LISTEN:
		r = rs->pend != NULL ? POLLIN : 0;
		break;
	case RS_ADDR:
	case RS_ROUTE:
	case RS_CONNECT:
		break;
	case RS_CONNECTED:
	case RS_CLOSED:
		if (rs_rdata_or_eof(rs))
			r |= POLLIN;
		if (rs_can_send_or_closed(rs))
			r |= POLLOUT;
		/* the hang-up shows once the data before it is read
		 * (rstream -T a takes POLLHUP for an error) */
		if (!rs->rd && !rs->wr && !rs_have_rdata(rs))
			r |= POLLHUP;
		if (rs->reset)
			r |= POLLERR;
		break;
	case RS_FAILED:
		r = POLLOUT | POLLERR | POLLHUP;
		break;
	default:
		r = POLLOUT | POLLHUP; /* not connected, as Linux says */
	}
	return r & (events | POLLERR | POLLHUP);
}

/* Make a connecting socket usable for data. 0, or -1 with errno. */
int
rs_ready(struct rs *rs, bool nb)
{
	switch (rs->state) {
	case RS_CONNECTED:
	case RS_CLOSED:
		return 0;
	case RS_ADDR:
	case RS_ROUTE:
	case RS_CONNECT:
		rs_wait(rs, rs_not_connecting, nb, 30000);
		if (rs->state == RS_CONNECTED)
			return 0;
		return RS_ERR(rs->state == RS_FAILED ? rs->err : EAGAIN);
	default:
		return RS_ERR(ENOTCONN);
	}
}

/* Copy (and with consume, take) up to len buffered bytes. */
static size_t
rs_copy_out(struct rs *rs, uint8_t *buf, size_t len, bool consume)
{
	int head = rs->rm_head;
	uint32_t off = rs->r_off, part = 0;
	size_t done = 0;

	while (done < len && head != rs->rm_tail) {
		uint32_t m = rs->rmsg[head] - part, n = m, first;

		if (n > len - done)
			n = (uint32_t)(len - done);
		first = rs->rbuf_size - off;
		if (first > n)
			first = n;
		memcpy(buf + done, rs->rbuf + off, first);
		memcpy(buf + done + first, rs->rbuf, n - first);
		off = (off + n) % rs->rbuf_size;
		done += n;
		if (!consume) {
			if (n == m) {
				head = (head + 1) % (rs->rq_size + 1);
				part = 0;
			} else {
				part += n;
			}
			continue;
		}
		rs->r_avail += n;
		rs->r_queued -= n;
		if (n == m) {
			head = (head + 1) % (rs->rq_size + 1);
			rs->rseq_no++;
		} else {
			rs->rmsg[head] -= n;
		}
	}
	if (consume) {
		rs->rm_head = head;
		rs->r_off = off;
	}
	return done;
}

static ssize_t
rs_recv_locked(struct rs *rs, void *buf, size_t len, int flags)
{
	bool nb = (rs->fl & O_NONBLOCK) || (flags & MSG_DONTWAIT);
	size_t got = 0;

	if (rs_ready(rs, nb))
		return -1;
	if (len == 0)
		return 0;
	while (got < len) {
		if (!rs_have_rdata(rs)) {
			if (got > 0 && !(flags & MSG_WAITALL))
				break;
			if (rs_wait(rs, rs_rdata_or_eof, nb, -1))
				return got > 0 ? (ssize_t)got : -1;
			if (!rs_have_rdata(rs)) { /* end of stream */
				if (got == 0 && rs->reset)
					return RS_ERR(ECONNRESET);
				break;
			}
		}
		/* what came since counts too: a caller that peeks until a
		 * whole header is there polls nothing else (it waited for
		 * ever on the first message's bytes) */
		if (flags & MSG_PEEK) {
			rs_progress_cq(rs);
			return (ssize_t)rs_copy_out(rs, buf, len, false);
		}
		got += rs_copy_out(rs, (uint8_t *)buf + got, len - got, true);
		rs_update_credits(rs);
	}
	return (ssize_t)got;
}

/*
 * Post len bytes of buf as an RDMA WRITE (WITH IMMEDIATE imm if imm_on) to
 * raddr/rkey: inline when they fit, else copied into the send ring (one or
 * two SGEs where it wraps). The completion gives back a send queue entry
 * and len bytes of the ring. 0, or -1 with errno.
 */
int
rs_post_copy(struct rs *rs, const void *buf, uint32_t len, bool imm_on,
	     uint32_t imm, uint64_t raddr, uint32_t rkey)
{
	uint32_t s_off = rs->s_off;
	struct ibv_sge sg[2];
	int nsge = 1;
	unsigned int fl = 0;

	if (len <= rs->sq_inline) {
		sg[0] = (struct ibv_sge){.addr = (uintptr_t)buf, .length = len};
		fl = IBV_SEND_INLINE;
	} else {
		uint32_t first = rs->sbuf_size - s_off;

		if (first > len)
			first = len;
		memcpy(rs->sbuf + s_off, buf, first);
		sg[0] = (struct ibv_sge){.addr = (uintptr_t)(rs->sbuf + s_off),
					 .length = first,
					 .lkey = rs->smr->lkey};
		if (first < len) {
			memcpy(rs->sbuf, (const uint8_t *)buf + first,
			       len - first);
			sg[1] = (struct ibv_sge){.addr = (uintptr_t)rs->sbuf,
						 .length = len - first,
						 .lkey = rs->smr->lkey};
			nsge = 2;
		}
		rs->s_off = (s_off + len) % rs->sbuf_size;
	}
	if (post_write(rs, sg, nsge, imm_on, imm, raddr, rkey, len, fl)) {
		rs->s_off = s_off;
		return -1;
	}
	rs->sqe_avail--;
	rs->s_avail -= len;
	return 0;
}

/* The next chunk of a send with left bytes to go: *olen (start with
 * RS_OLAP_START) doubles up to RS_MAX_XFER, so that a large send starts
 * moving early; no more than the send ring has room for. */
uint32_t
rs_chunk(struct rs *rs, uint32_t *olen, size_t left)
{
	uint32_t xfer;

	if (*olen < left) {
		xfer = *olen;
		if (*olen < RS_MAX_XFER)
			*olen <<= 1;
	} else {
		xfer = (uint32_t)left;
	}
	return xfer < rs->s_avail ? xfer : rs->s_avail;
}

/* Send one chunk of xfer bytes (rs_can_send said yes). */
static int
rs_send_chunk(struct rs *rs, const uint8_t *buf, uint32_t xfer)
{
	volatile struct rs_sge *t = &rs->tsgl[rs->tsge];
	uint64_t raddr = t->addr;
	uint32_t rkey = t->key, rlen = t->length;
	int tsge = rs->tsge;

	/* The target entry moves on before the WRITE is posted: once this
	 * chunk fills it, the peer may write that entry again as soon as it
	 * has read the chunk, which can be before ibv_post_send() returns
	 * here (this thread preempted, the progress thread landing the
	 * peer's update). Moved after the post, the old position overwrote
	 * the new entry, and the next WRITE went past the end of the peer's
	 * ring: a remote access error that reset the connection (rstream's
	 * series beside a busy test, a few runs in 25). */
	t->addr = raddr + xfer;
	t->length = rlen - xfer;
	if (rlen == xfer)
		rs->tsge = (rs->tsge + 1) % RS_SGL_N;

	if (rs_post_copy(rs, buf, xfer, true, RS_IMM(RS_OP_DATA, xfer), raddr,
			 rkey)) {
		/* nothing left: the entry is still ours */
		t->addr = raddr;
		t->length = rlen;
		rs->tsge = tsge;
		return -1;
	}
	rs->sseq_no++;
	return 0;
}

static ssize_t
rs_send_locked(struct rs *rs, const void *buf, size_t len, int flags)
{
	bool nb = (rs->fl & O_NONBLOCK) || (flags & MSG_DONTWAIT);
	uint32_t olen = RS_OLAP_START;
	size_t sent = 0;

	if (rs_ready(rs, nb))
		return -1;
	/* mappings riomap() could not tell yet go before the data */
	if (rs->maps_untold > 0 && rs->wr && rs_iomap_flush(rs, nb))
		return -1;
	while (sent < len) {
		uint32_t xfer;

		if (!rs_can_send(rs) &&
		    rs_wait(rs, rs_can_send_or_closed, nb, -1))
			break;
		if (!rs->wr) {
			if (sent > 0)
				break;
			return RS_ERR(rs->reset ? ECONNRESET : EPIPE);
		}
		xfer = rs_chunk(rs, &olen, len - sent);
		if (xfer > rs->tsgl[rs->tsge].length)
			xfer = rs->tsgl[rs->tsge].length;
		if (rs_send_chunk(rs, (const uint8_t *)buf + sent, xfer))
			break;
		sent += xfer;
	}
	if (sent > 0)
		return (ssize_t)sent;
	return -1; /* errno from the wait or the post */
}

/* One buffer of a datagram socket (locked) as a message, with an address
 * (alen: its length, in and out). */
static ssize_t
ds_msg1(struct rs *rs, void *buf, size_t len, int flags, void *addr,
	socklen_t *alen, bool send)
{
	struct iovec v = {.iov_base = buf, .iov_len = len};
	struct msghdr m = {.msg_name = addr,
			   .msg_namelen = alen != NULL ? *alen : 0,
			   .msg_iov = &v,
			   .msg_iovlen = 1};
	ssize_t ret =
		send ? ds_sendmsg(rs, &m, flags) : ds_recvmsg(rs, &m, flags);

	if (ret >= 0 && !send && alen != NULL)
		*alen = m.msg_namelen;
	return ret;
}

ssize_t
rrecv(int s, void *buf, size_t len, int flags)
{
	struct rs *rs = rs_get(s);
	ssize_t ret;

	if (rs == NULL)
		return -1;
	ret = rs->dgram ? ds_msg1(rs, buf, len, flags, NULL, NULL, false)
			: rs_recv_locked(rs, buf, len, flags);
	rs_put(rs);
	return ret;
}

ssize_t
rrecvfrom(int s, void *buf, size_t len, int flags, struct sockaddr *from,
	  socklen_t *fromlen)
{
	struct rs *rs = rs_get(s);
	ssize_t ret;

	if (rs == NULL)
		return -1;
	if (rs->dgram) {
		ret = ds_msg1(rs, buf, len, flags, from,
			      from != NULL ? fromlen : NULL, false);
	} else {
		/* a stream socket does not say where data came from */
		if (fromlen != NULL)
			*fromlen = 0;
		ret = rs_recv_locked(rs, buf, len, flags);
	}
	rs_put(rs);
	return ret;
}

ssize_t
rread(int s, void *buf, size_t count)
{
	return rrecv(s, buf, count, 0);
}

/* A message through a socket (locked). A datagram socket's is one
 * datagram. A stream socket gathers or scatters: later buffers only take
 * what needs no waiting. */
static ssize_t
rs_msg_locked(struct rs *rs, struct msghdr *m, int flags, bool send)
{
	ssize_t total = 0, n;

	if (rs->dgram)
		return send ? ds_sendmsg(rs, m, flags)
			    : ds_recvmsg(rs, m, flags);
	if (send && (m->msg_name != NULL || m->msg_namelen != 0))
		return RS_ERR(EISCONN);
	if (!send) {
		m->msg_flags = 0;
		m->msg_controllen = 0;
		m->msg_namelen = 0;
	}
	if ((int)m->msg_iovlen < 0 || (m->msg_iovlen > 0 && m->msg_iov == NULL))
		return RS_ERR(EINVAL);
	for (size_t i = 0; i < m->msg_iovlen; i++) {
		struct iovec *v = &m->msg_iov[i];

		if (v->iov_len == 0)
			continue;
		n = send ? rs_send_locked(rs, v->iov_base, v->iov_len, flags)
			 : rs_recv_locked(rs, v->iov_base, v->iov_len, flags);
		if (n < 0)
			return total > 0 ? total : n;
		total += n;
		if ((size_t)n < v->iov_len || n == 0)
			break;
		if (!(flags & MSG_WAITALL))
			flags |= MSG_DONTWAIT;
	}
	return total;
}

static ssize_t
rs_msg(int s, struct msghdr *m, int flags, bool send)
{
	struct rs *rs = rs_get(s);
	ssize_t ret;

	if (rs == NULL)
		return -1;
	ret = rs_msg_locked(rs, m, flags, send);
	rs_put(rs);
	return ret;
}

static ssize_t
rs_vec(int s, const struct iovec *iov, int cnt, bool send)
{
	struct msghdr m = {.msg_iov = (struct iovec *)iov,
			   .msg_iovlen = (size_t)cnt};

	if (cnt < 0 || (cnt > 0 && iov == NULL))
		return RS_ERR(EINVAL);
	return rs_msg(s, &m, 0, send);
}

ssize_t
rreadv(int s, const struct iovec *iov, int cnt)
{
	return rs_vec(s, iov, cnt, false);
}

ssize_t
rrecvmsg(int s, struct msghdr *msg, int flags)
{
	if (msg == NULL)
		return RS_ERR(EINVAL);
	return rs_msg(s, msg, flags, false);
}

ssize_t
rsend(int s, const void *buf, size_t len, int flags)
{
	struct rs *rs = rs_get(s);
	ssize_t ret;

	if (rs == NULL)
		return -1;
	ret = rs->dgram ? ds_msg1(rs, (void *)buf, len, flags, NULL, NULL, true)
			: rs_send_locked(rs, buf, len, flags);
	rs_put(rs);
	return ret;
}

ssize_t
rsendto(int s, const void *buf, size_t len, int flags,
	const struct sockaddr *to, socklen_t tolen)
{
	struct rs *rs = rs_get(s);
	ssize_t ret;

	if (rs == NULL)
		return -1;
	if (rs->dgram)
		ret = ds_msg1(rs, (void *)buf, len, flags, (void *)to,
			      to != NULL ? &tolen : NULL, true);
	else if (to != NULL || tolen != 0)
		ret = RS_ERR(EISCONN);
	else
		ret = rs_send_locked(rs, buf, len, flags);
	rs_put(rs);
	return ret;
}

ssize_t
rwrite(int s, const void *buf, size_t count)
{
	return rsend(s, buf, count, 0);
}

ssize_t
rwritev(int s, const struct iovec *iov, int cnt)
{
	return rs_vec(s, iov, cnt, true);
}

ssize_t
rsendmsg(int s, const struct msghdr *msg, int flags)
{
	if (msg == NULL)
		return RS_ERR(EINVAL);
	return rs_msg(s, (struct msghdr *)msg, flags, true);
}

/* One look at every fd: rsockets progress and report, the others go
 * through poll(2) with no wait. The number of fds with revents. */
static int
rpoll_check(struct pollfd *fds, nfds_t nfds, struct pollfd *tmp, nfds_t *map,
	    bool arm, bool *armed_now)
{
	nfds_t m = 0;
	int cnt = 0;

	for (nfds_t i = 0; i < nfds; i++) {
		struct rs *rs;

		fds[i].revents = 0;
		if (fds[i].fd < 0)
			continue;
		rs = rs_get(fds[i].fd);
		if (rs == NULL) {
			map[m] = i;
			tmp[m++] = fds[i];
			continue;
		}
		rs_progress(rs);
		fds[i].revents = rs_revents(rs, fds[i].events);
		if (arm && fds[i].revents == 0 && !rs_arm(rs))
			*armed_now = true;
		rs_put(rs);
		cnt += fds[i].revents != 0;
	}
	if (m > 0 && poll(tmp, m, 0) < 0)
		return -1;
	for (nfds_t j = 0; j < m; j++) {
		fds[map[j]].revents = tmp[j].revents;
		cnt += tmp[j].revents != 0;
	}
	return cnt;
}

int
rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	/* in microseconds: with a millisecond clock a 1 ms timeout could end
	 * a microsecond after the call (udpong, whose replies take ~12 us
	 * here, resent on ~1 % of its round trips, and every resend rode
	 * along all later ones) */
	uint64_t start = now_us(), spin_end = start + RS_SPIN_US;
	uint64_t end = start + (uint64_t)(timeout > 0 ? timeout : 0) * 1000;
	struct pollfd *tmp;
	nfds_t *map;
	int cnt = 0;

	if (nfds > 0 && fds == NULL)
		return RS_ERR(EFAULT);
	tmp = calloc(RS_FDS_MAX * nfds + 1, sizeof(*tmp));
	map = calloc(nfds + 1, sizeof(*map));
	if (tmp == NULL || map == NULL) {
		free(tmp);
		free(map);
		return RS_ERR(ENOMEM);
	}
	for (;;) {
		bool spin = now_us() < spin_end, armed_now = false;
		nfds_t m = 0;
		int slice = -1, ms; /* the rsockets' shortest sleep */

		cnt = rpoll_check(fds, nfds, tmp, map, !spin, &armed_now);
		if (cnt != 0 || timeout == 0)
			break;
		if (timeout > 0 && now_us() >= end)
			break;
		if (spin || armed_now)
			continue; /* after arming, look once more */
		for (nfds_t i = 0; i < nfds; i++) {
			struct rs *rs;

			if (fds[i].fd < 0)
				continue;
			rs = rs_get(fds[i].fd);
			if (rs == NULL) {
				tmp[m++] = fds[i];
				continue;
			}
			m += (nfds_t)rs_fds(rs, &tmp[m]);
			rs_probe(rs);
			ms = rs_sleep_ms(rs);
			if (slice < 0 || ms < slice)
				slice = ms;
			rs_sleep_begin(rs);
			rs_put(rs);
		}
		if (slice < 0)
			slice = timeout;
		if (timeout > 0) {
			uint64_t t = now_us();
			/* rounded up: poll() then sleeps past the end */
			int left = t >= end ? 0 : (int)((end - t + 999) / 1000);

			if (slice < 0 || slice > left)
				slice = left;
		}
		if (poll(tmp, m, slice) < 0 && errno != EINTR) {
			cnt = -1;
			break;
		}
		for (nfds_t i = 0; i < nfds; i++) {
			struct rs *rs = fds[i].fd < 0 ? NULL : rs_get(fds[i].fd);

			if (rs != NULL) {
				rs_sleep_end(rs);
				rs_drain_events(rs);
				rs_put(rs);
			}
		}
	}
	free(tmp);
	free(map);
	return cnt;
}

int
rselect(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *tv)
{
	struct pollfd *p;
	int n = 0, ret, to;

	if (nfds < 0 || nfds > FD_SETSIZE)
		return RS_ERR(EINVAL);
	p = calloc((size_t)nfds + 1, sizeof(*p));
	if (p == NULL)
		return RS_ERR(ENOMEM);
	for (int fd = 0; fd < nfds; fd++) {
		short ev = 0;

		if (rd != NULL && FD_ISSET(fd, rd))
			ev |= POLLIN;
		if (wr != NULL && FD_ISSET(fd, wr))
			ev |= POLLOUT;
		if (ex != NULL && FD_ISSET(fd, ex))
			ev |= POLLPRI;
		if (ev)
			p[n++] = (struct pollfd){.fd = fd, .events = ev};
	}
	to = tv == NULL ? -1 : (int)(tv->tv_sec * 1000 + tv->tv_usec / 1000);
	ret = rpoll(p, (nfds_t)n, to);
	if (ret < 0) {
		free(p);
		return ret;
	}
	if (rd != NULL)
		FD_ZERO(rd);
	if (wr != NULL)
		FD_ZERO(wr);
	if (ex != NULL)
		FD_ZERO(ex);
	ret = 0;
	for (int i = 0; i < n; i++) {
		short r = p[i].revents;

		if (rd != NULL && (r & (POLLIN | POLLHUP | POLLERR)) &&
		    (p[i].events & POLLIN)) {
			FD_SET(p[i].fd, rd);
			ret++;
		}
		if (wr != NULL && (r & (POLLOUT | POLLERR)) &&
		    (p[i].events & POLLOUT)) {
			FD_SET(p[i].fd, wr);
			ret++;
		}
		if (ex != NULL && (r & POLLPRI)) {
			FD_SET(p[i].fd, ex);
			ret++;
		}
	}
	free(p);
	return ret;
}
