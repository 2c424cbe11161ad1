/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fault layer's data path (dpv_port_fault.h): what dpv_port_rx() and
 * dpv_port_tx() run instead of the plain bursts once a device's fault
 * layer was turned on. State per queue, touched only by the thread that
 * runs the queue; configuration changes reach a queue through a
 * generation number checked once per burst.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "dpv_port.h"
#include "dpv_port_fault.h"
#include "dpv_roce_hdr.h"
#include "port_int.h"

/* Frames of a caller's burst handled at once (a duplicate doubles one). */
#define CHUNK 32

enum fault_kind { K_DROP, K_CORRUPT, K_DUP, K_REORDER, K_DELAY, K_NUM };

enum fault_cnt {
#define FC_ENUM(n, d) FC_##n,
	DPV_FAULT_COUNTERS(FC_ENUM)
#undef FC_ENUM
		FC_NUM
};
/* counter of kind k in direction d: FC_tx_drop + d * K_NUM + k */
_Static_assert((int)FC_rx_drop == (int)K_NUM &&
		       (int)FC_tx_delay == (int)K_DELAY &&
		       (int)FC_hold_full == 2 * (int)K_NUM,
	       "DPV_FAULT_COUNTERS order");

struct fault_held {
	struct rte_mbuf *m;
	uint64_t due_tsc; /* leaves at this time ... */
	uint64_t due_seq; /* ... or once this many frames passed */
};

struct fault_dir {
	uint64_t rng;
	uint64_t thr[K_NUM]; /* probability * 2^32 (2^32: always) */
	bool active;	     /* some thr[] > 0 */
	uint16_t window;
	uint64_t delay_cyc;
	uint64_t seq; /* frames that passed */
	uint32_t nheld;
	struct fault_held held[DPV_FAULT_HOLD_MAX];
};

struct fault_queue {
	uint32_t gen; /* of the configuration copied into conf */
	struct dpv_fault_conf conf;
	uint64_t hold_cyc;
	struct fault_dir dir[DPV_FAULT_NDIR];
	uint64_t cnt[FC_NUM];
} __rte_cache_aligned;

struct dpv_port_fault {
	rte_spinlock_t lock; /* conf and gen */
	uint32_t gen;	     /* bumped by each change */
	struct dpv_fault_conf conf;
	unsigned dev_idx;
	uint16_t nb_q;
	struct fault_queue q[];
};

/* ------------------------------------------------------ random numbers */

static uint64_t
splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* xorshift64* */
static inline uint64_t
rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static inline bool
draw(struct fault_dir *fd, enum fault_kind k)
{
	return fd->thr[k] != 0 && (rng_next(&fd->rng) >> 32) < fd->thr[k];
}

/* ------------------------------------------------------- configuration */

static uint64_t
threshold(double p)
{
	return p >= 1 ? (1ull << 32) : (uint64_t)(p * 4294967296.0);
}

/* Take the device's newest configuration (restarting the generators). */
static void
queue_refresh(struct dpv_port_fault *f, struct fault_queue *fq, uint16_t qi)
{
	uint64_t hz = rte_get_timer_hz();

	rte_spinlock_lock(&f->lock);
	fq->conf = f->conf;
	fq->gen = f->gen;
	rte_spinlock_unlock(&f->lock);
	fq->hold_cyc = fq->conf.hold_us * hz / 1000000;
	for (unsigned d = 0; d < DPV_FAULT_NDIR; d++) {
		const struct dpv_fault_dir_conf *c = &fq->conf.dir[d];
		struct fault_dir *fd = &fq->dir[d];

		fd->thr[K_DROP] = threshold(c->drop);
		fd->thr[K_CORRUPT] = threshold(c->corrupt);
		fd->thr[K_DUP] = threshold(c->dup);
		fd->thr[K_REORDER] = threshold(c->reorder);
		fd->thr[K_DELAY] = threshold(c->delay);
		fd->active = false;
		for (unsigned k = 0; k < K_NUM; k++)
			fd->active |= fd->thr[k] != 0;
		fd->window = c->window;
		fd->delay_cyc = c->delay_us * hz / 1000000;
		fd->rng = splitmix64(fq->conf.seed ^
				     splitmix64(((uint64_t)f->dev_idx << 32) |
						((uint64_t)qi << 8) | d));
		if (fd->rng == 0)
			fd->rng = 1;
	}
}

static inline void
queue_check(struct dpv_port_fault *f, struct fault_queue *fq, uint16_t qi)
{
	if (unlikely(__atomic_load_n(&f->gen, __ATOMIC_ACQUIRE) != fq->gen))
		queue_refresh(f, fq, qi);
}

int
port_fault_update(struct dpv_port_fault **fp, const struct dpv_fault_conf *c,
		  unsigned dev_idx, uint16_t nb_q, int socket)
{
	struct dpv_port_fault *f = *fp;
	struct dpv_fault_conf off;

	if (c == NULL) {
		dpv_fault_conf_init(&off);
		c = &off;
	}
	if (port_fault_conf_check(c) != 0)
		return -EINVAL;
	if (f == NULL) {
		if (!dpv_fault_conf_active(c))
			return 0; /* never on: stays off at no cost */
		f = rte_zmalloc_socket("dpv_fault",
				       sizeof(*f) + nb_q * sizeof(f->q[0]),
				       RTE_CACHE_LINE_SIZE, socket);
		if (f == NULL)
			return -ENOMEM;
		rte_spinlock_init(&f->lock);
		f->dev_idx = dev_idx;
		f->nb_q = nb_q;
		*fp = f;
	}
	rte_spinlock_lock(&f->lock);
	f->conf = *c;
	__atomic_store_n(&f->gen, f->gen + 1, __ATOMIC_RELEASE);
	rte_spinlock_unlock(&f->lock);
	return 0;
}

void
port_fault_get(const struct dpv_port_fault *f, struct dpv_fault_conf *c)
{
	if (f == NULL) {
		dpv_fault_conf_init(c);
		return;
	}
	rte_spinlock_lock((rte_spinlock_t *)(uintptr_t)&f->lock);
	*c = f->conf;
	rte_spinlock_unlock((rte_spinlock_t *)(uintptr_t)&f->lock);
}

void
port_fault_stats(const struct dpv_port_fault *f, struct dpv_fault_stats *st)
{
	uint64_t sum[FC_NUM] = {0};

	for (uint16_t q = 0; f != NULL && q < f->nb_q; q++)
		for (unsigned i = 0; i < FC_NUM; i++)
			sum[i] += __atomic_load_n(&f->q[q].cnt[i],
						  __ATOMIC_RELAXED);
#define FC_COPY(n, d) st->n = sum[FC_##n];
	DPV_FAULT_COUNTERS(FC_COPY)
#undef FC_COPY
}

void
port_fault_free(struct dpv_port_fault *f, const char *name)
{
	struct dpv_fault_stats st;

	if (f == NULL)
		return;
	if (getenv("DPV_STATS") != NULL) {
		char line[1024];
		size_t n;

		port_fault_stats(f, &st);
		n = (size_t)snprintf(line, sizeof(line),
				     "dpverbs %s fault layer:", name);
#define FC_PRINT(c, d)                                                         \
	if (n < sizeof(line))                                                  \
		n += (size_t)snprintf(line + n, sizeof(line) - n,              \
				      " fault_" #c "=%" PRIu64, st.c);
		DPV_FAULT_COUNTERS(FC_PRINT)
#undef FC_PRINT
		/* one write: other threads log at exit too */
		fprintf(stderr, "%s\n", line);
	}
	for (uint16_t q = 0; q < f->nb_q; q++)
		for (unsigned d = 0; d < DPV_FAULT_NDIR; d++)
			for (uint32_t i = 0; i < f->q[q].dir[d].nheld; i++)
				rte_pktmbuf_free(f->q[q].dir[d].held[i].m);
	rte_free(f);
}

/* ------------------------------------------------------------- frames */

/*
 * A RoCEv2 frame: the offset of its BTH and the end of its ICRC (from the
 * UDP length: Ethernet padding is not part of the packet). Headers must
 * be in the first segment.
 */
static bool
roce_locate(const struct rte_mbuf *m, uint32_t *bth, uint32_t *end)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = m->data_len, off = RTE_ETHER_HDR_LEN, l4, ulen;
	uint16_t et;

	if (len < off)
		return false;
	et = (uint16_t)(d[12] << 8 | d[13]);
	if (et == RTE_ETHER_TYPE_VLAN) {
		if (len < off + 4)
			return false;
		et = (uint16_t)(d[16] << 8 | d[17]);
		off += 4;
	}
	if (et == RTE_ETHER_TYPE_IPV4) {
		if (len < off + 20 || (d[off] >> 4) != 4 || d[off + 9] != 17)
			return false;
		l4 = off + (d[off] & 0xf) * 4u;
	} else if (et == RTE_ETHER_TYPE_IPV6) {
		if (len < off + 40 || d[off + 6] != 17)
			return false;
		l4 = off + 40;
	} else {
		return false;
	}
	if (len < l4 + 8 + 12 ||
	    (d[l4 + 2] << 8 | d[l4 + 3]) != DPV_ROCE_UDP_PORT)
		return false;
	ulen = (uint32_t)(d[l4 + 4] << 8 | d[l4 + 5]);
	if (ulen < 8 + 12 + DPV_ROCE_ICRC_LEN || l4 + ulen > m->pkt_len)
		return false;
	*bth = l4 + 8;
	*end = l4 + ulen;
	return true;
}

static bool
filter_match(const struct dpv_fault_dir_conf *c, const struct rte_mbuf *m,
	     uint32_t bth)
{
	const uint8_t *b = rte_pktmbuf_mtod_offset(m, const uint8_t *, bth);
	uint32_t qpn;
	unsigned i;

	if (c->op_filter && !(c->ops[b[0] / 8] & (1u << (b[0] % 8))))
		return false;
	if (c->n_qps == 0)
		return true;
	qpn = (uint32_t)b[5] << 16 | (uint32_t)b[6] << 8 | b[7];
	for (i = 0; i < c->n_qps && c->qps[i] != qpn; i++)
		;
	return i < c->n_qps;
}

/* m itself when no one else sees its bytes, else a private copy. */
static struct rte_mbuf *
writable(struct rte_mbuf *m)
{
	struct rte_mbuf *s, *c;

	for (s = m; s != NULL; s = s->next)
		if (rte_mbuf_refcnt_read(s) != 1 || !RTE_MBUF_DIRECT(s))
			break;
	if (s == NULL)
		return m;
	c = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
	if (c != NULL)
		rte_pktmbuf_free(m);
	return c;
}

/* Flip one bit the ICRC covers: BTH from the destination QP on (its
 * byte 4 is masked) through the ICRC itself. */
static void
corrupt(struct rte_mbuf *m, uint32_t bth, uint32_t end, uint64_t r)
{
	uint32_t off = bth + 5 + (uint32_t)(r % (end - bth - 5));
	struct rte_mbuf *s = m;

	while (s != NULL && off >= s->data_len) {
		off -= s->data_len;
		s = s->next;
	}
	if (s != NULL)
		rte_pktmbuf_mtod(s, uint8_t *)[off] ^=
			(uint8_t)(1u << (r >> 61));
}

static bool
hold(struct fault_dir *fd, struct rte_mbuf *m, uint64_t due_tsc,
     uint64_t due_seq)
{
	if (fd->nheld == DPV_FAULT_HOLD_MAX)
		return false;
	fd->held[fd->nheld++] = (struct fault_held){m, due_tsc, due_seq};
	return true;
}

/* Hold a frame the port did not take: it leaves first thing next time. */
static void
hold_now(struct fault_queue *fq, unsigned d, struct rte_mbuf *m)
{
	if (!hold(&fq->dir[d], m, 0, 0)) {
		fq->cnt[FC_hold_full]++;
		rte_pktmbuf_free(m);
	}
}

enum fate { PASS, GONE, HELD };

/*
 * The faults of one frame in direction d. *mp may be replaced (a private
 * copy to corrupt); *dup gets a duplicate to send right after it.
 */
static enum fate
fault_frame(struct fault_queue *fq, unsigned d, struct rte_mbuf **mp,
	    struct rte_mbuf **dup, uint64_t now)
{
	struct fault_dir *fd = &fq->dir[d];
	uint64_t *cnt = &fq->cnt[d * K_NUM];
	struct rte_mbuf *m = *mp;
	uint32_t bth, end;

	*dup = NULL;
	if (!roce_locate(m, &bth, &end) ||
	    !filter_match(&fq->conf.dir[d], m, bth))
		return PASS;
	if (draw(fd, K_DROP)) {
		cnt[K_DROP]++;
		rte_pktmbuf_free(m);
		return GONE;
	}
	if (draw(fd, K_CORRUPT)) {
		struct rte_mbuf *w = writable(m);

		if (w == NULL) {
			fq->cnt[FC_nombuf]++;
		} else {
			*mp = m = w;
			corrupt(m, bth, end, rng_next(&fd->rng));
			cnt[K_CORRUPT]++;
		}
	}
	if (draw(fd, K_DUP)) {
		*dup = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
		if (*dup == NULL)
			fq->cnt[FC_nombuf]++;
		else
			cnt[K_DUP]++;
	}
	if (draw(fd, K_REORDER)) {
		uint64_t w = 1 + rng_next(&fd->rng) % fd->window;

		if (hold(fd, m, now + fq->hold_cyc, fd->seq + w)) {
			cnt[K_REORDER]++;
			return HELD;
		}
		fq->cnt[FC_hold_full]++;
	} else if (draw(fd, K_DELAY)) {
		if (hold(fd, m, now + fd->delay_cyc, UINT64_MAX)) {
			cnt[K_DELAY]++;
			return HELD;
		}
		fq->cnt[FC_hold_full]++;
	}
	return PASS;
}

/*
 * The due frames of fd, in the order they were held, at most max: into
 * out, their positions into idx. They stay held until unhold().
 */
static uint16_t
due_frames(struct fault_dir *fd, uint64_t now, struct rte_mbuf **out,
	   uint16_t max, uint32_t *idx)
{
	uint16_t k = 0;

	for (uint32_t i = 0; i < fd->nheld && k < max; i++) {
		struct fault_held *h = &fd->held[i];

		if (now >= h->due_tsc || fd->seq >= h->due_seq) {
			idx[k] = i;
			out[k++] = h->m;
		}
	}
	return k;
}

/* Forget held entries idx[0..n) (ascending), keeping the others' order. */
static void
unhold(struct fault_dir *fd, const uint32_t *idx, uint16_t n)
{
	uint32_t w, j = 0;

	if (n == 0)
		return;
	w = idx[0];
	for (uint32_t i = idx[0]; i < fd->nheld; i++) {
		if (j < n && idx[j] == i) {
			j++;
			continue;
		}
		fd->held[w++] = fd->held[i];
	}
	fd->nheld = w;
}

/* Send the due TX frames. @return how many due frames the port refused. */
static uint16_t
tx_release(struct dpv_port *p, struct fault_queue *fq, uint16_t qi,
	   uint64_t now)
{
	struct fault_dir *fd = &fq->dir[DPV_FAULT_TX];
	struct rte_mbuf *o[CHUNK];
	uint32_t idx[CHUNK];
	uint16_t k, sent;

	while (fd->nheld != 0) {
		k = due_frames(fd, now, o, CHUNK, idx);
		if (k == 0)
			return 0;
		sent = port_tx_burst(p, qi, o, k);
		unhold(fd, idx, sent);
		if (sent < k)
			return k - sent;
	}
	return 0;
}

/*
 * Send what the fault layer still holds on transmit, due or not: the port
 * is about to stop, and a frame a network reorders or delays still
 * arrives (a peer waiting for the last ACK of a process that leaves must
 * get it). Bounded: at most about a millisecond per queue while the port
 * refuses frames; what it never takes is freed with the layer.
 */
void
port_fault_tx_drain(struct dpv_port_fault *f, struct dpv_port *p)
{
	for (uint16_t q = 0; f != NULL && q < f->nb_q; q++) {
		struct fault_queue *fq = &f->q[q];

		for (unsigned tries = 0;
		     fq->dir[DPV_FAULT_TX].nheld != 0 && tries < 100; tries++)
			if (tx_release(p, fq, q, UINT64_MAX) != 0)
				rte_delay_us_block(10);
	}
}

uint16_t
port_fault_tx(struct dpv_port_fault *f, struct dpv_port *p, uint16_t qi,
	      struct rte_mbuf **pkts, uint16_t n)
{
	struct fault_queue *fq = &f->q[qi];
	struct fault_dir *fd = &fq->dir[DPV_FAULT_TX];
	uint64_t now = rte_get_timer_cycles();

	queue_check(f, fq, qi);
	/* held frames first; a port that refuses them takes nothing new */
	if (tx_release(p, fq, qi, now) != 0)
		return 0;
	if (!fd->active)
		return port_tx_burst(p, qi, pkts, n);
	for (uint16_t done = 0; done < n;) {
		uint16_t c = RTE_MIN((uint16_t)(n - done), (uint16_t)CHUNK);
		struct rte_mbuf *o[2 * CHUNK], *dup;
		uint16_t k = 0, sent;

		for (uint16_t i = 0; i < c; i++) {
			struct rte_mbuf *m = pkts[done + i];

			if (fault_frame(fq, DPV_FAULT_TX, &m, &dup, now) ==
			    PASS) {
				o[k++] = m;
				fd->seq++;
			}
			if (dup != NULL)
				o[k++] = dup;
		}
		sent = port_tx_burst(p, qi, o, k);
		for (uint16_t j = sent; j < k; j++)
			hold_now(fq, DPV_FAULT_TX, o[j]);
		done += c;
	}
	/* reordered frames go right after the frames that overtook them */
	tx_release(p, fq, qi, now);
	return n;
}

uint16_t
port_fault_rx(struct dpv_port_fault *f, struct dpv_port *p, uint16_t qi,
	      struct rte_mbuf **pkts, uint16_t n)
{
	struct fault_queue *fq = &f->q[qi];
	struct fault_dir *fd = &fq->dir[DPV_FAULT_RX];
	uint64_t now = rte_get_timer_cycles();
	struct rte_mbuf *in[2 * CHUNK], *dup;
	uint32_t idx[2 * CHUNK];
	uint16_t want, got, k = 0, r;

	queue_check(f, fq, qi);
	tx_release(p, fq, qi, now); /* the engine polls RX every iteration */
	if (!fd->active && fd->nheld == 0)
		return port_rx_burst(p, qi, pkts, n);
	n = RTE_MIN(n, (uint16_t)(2 * CHUNK));
	/* leave room for held frames that are due */
	want = n - RTE_MIN((uint16_t)fd->nheld, (uint16_t)(n / 2));
	got = port_rx_burst(p, qi, in, want);
	for (uint16_t i = 0; i < got; i++) {
		struct rte_mbuf *m = in[i];
		enum fate fate = PASS;

		dup = NULL;
		if (fd->active)
			fate = fault_frame(fq, DPV_FAULT_RX, &m, &dup, now);
		if (fate == PASS) {
			fd->seq++;
			if (k < n)
				pkts[k++] = m;
			else
				hold_now(fq, DPV_FAULT_RX, m);
		}
		if (dup != NULL) {
			if (k < n)
				pkts[k++] = dup;
			else
				hold_now(fq, DPV_FAULT_RX, dup);
		}
	}
	r = due_frames(fd, now, pkts + k, n - k, idx);
	unhold(fd, idx, r);
	return k + r;
}
