/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rsockets: direct writes. riomap() registers a buffer and, for
 * PROT_WRITE, tells the peer where it is (an entry of the peer's iomap
 * table); riowrite() writes into the peer's mappings by plain RDMA WRITE.
 * See rs_int.h for the wire side.
 */
#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rdma/rsocket.h>

#include "rs_int.h"

/* A message may go: a send queue entry, room in the send ring, a credit. */
static bool
rs_can_tell(struct rs *rs)
{
	return !rs->wr ||
	       (rs->sqe_avail > 0 && rs->s_avail >= sizeof(struct rs_iomap) &&
		rs->sseq_no != rs->sseq_comp);
}

/* A direct write needs no credit: it consumes no receive of the peer. */
static bool
rs_can_write_direct(struct rs *rs)
{
	return !rs->wr || (rs->sqe_avail > 0 && rs->s_avail >= RS_SNDLOWAT);
}

static struct rs_map *
rs_first_untold(struct rs *rs)
{
	for (struct rs_map *m = rs->maps; m != NULL; m = m->next)
		if (m->index >= 0 && !m->told)
			return m;
	return NULL;
}

/*
 * Write every mapping not yet told into its entry of the peer's table, in
 * riomap() order, ahead of anything sent after. Under rs->lk; a wait lets
 * go of it (another thread may riounmap), so the list is searched again
 * after each. 0, or -1 with errno (EAGAIN: nonblock and no credit).
 */
int
rs_iomap_flush(struct rs *rs, bool nonblock)
{
	struct rs_map *m;

	while (rs->maps_untold > 0 && (m = rs_first_untold(rs)) != NULL) {
		struct rs_iomap e;

		if (!rs_can_tell(rs)) {
			if (rs_wait(rs, rs_can_tell, nonblock, -1))
				return -1;
			continue;
		}
		if (!rs->wr)
			return RS_ERR(rs->reset ? ECONNRESET : EPIPE);
		e.offset = m->offset;
		e.sge.addr = (uintptr_t)m->mr->addr;
		e.sge.key = m->mr->rkey;
		e.sge.length = (uint32_t)m->mr->length;
		if (rs->swap) {
			e.offset = bswap_64(e.offset);
			e.sge.addr = bswap_64(e.sge.addr);
			e.sge.key = bswap_32(e.sge.key);
			e.sge.length = bswap_32(e.sge.length);
		}
		if (rs_post_copy(rs, &e, sizeof(e), true,
				 RS_IMM(RS_OP_IOMAP_SGL, m->index),
				 rs->riomap_addr +
					 (uint64_t)m->index * sizeof(e),
				 rs->rsgl_key))
			return -1;
		rs->sseq_no++;
		m->told = true;
		rs->maps_untold--;
	}
	return 0;
}

/* A free entry of the peer's table, or -1. */
static int
rs_iomap_slot(struct rs *rs)
{
	if (rs->riomap_n == 0)
		return -1;
	if (rs->riomap_used == NULL) {
		rs->riomap_used = calloc(rs->riomap_n, 1);
		if (rs->riomap_used == NULL)
			return -1;
	}
	for (uint32_t i = 0; i < rs->riomap_n; i++)
		if (!rs->riomap_used[i])
			return (int)i;
	return -1;
}

static void
rs_map_drop(struct rs *rs, struct rs_map *m)
{
	if (m->index >= 0) {
		rs->riomap_used[m->index] = 0;
		if (!m->told)
			rs->maps_untold--;
	}
	ibv_dereg_mr(m->mr);
	free(m);
}

/* Every mapping of a socket whose endpoint goes away (before its PD). */
void
rs_iomap_free(struct rs *rs)
{
	struct rs_map *m;

	while ((m = rs->maps) != NULL) {
		rs->maps = m->next;
		rs_map_drop(rs, m);
	}
	free(rs->riomap_used);
	rs->riomap_used = NULL;
	rs->maps_untold = 0;
}

off_t
riomap(int s, void *buf, size_t len, int prot, int flags, off_t offset)
{
	struct rs *rs = rs_get(s);
	struct rs_map *m, **tail;
	int acc = IBV_ACCESS_LOCAL_WRITE, idx = -1;

	(void)flags; /* none defined */
	if (rs == NULL)
		return -1;
	/* a socket has its PD once it connects or is accepted */
	if (rs->pd == NULL || (prot & ~PROT_WRITE) || buf == NULL || len == 0 ||
	    len > UINT32_MAX) {
		rs_put(rs);
		return RS_ERR(EINVAL);
	}
	if (prot & PROT_WRITE) {
		idx = rs_iomap_slot(rs);
		if (idx < 0) { /* the peer's RDMA_IOMAPSIZE is used up */
			rs_put(rs);
			return RS_ERR(ENOMEM);
		}
		acc |= IBV_ACCESS_REMOTE_WRITE;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		rs_put(rs);
		return RS_ERR(ENOMEM);
	}
	m->mr = ibv_reg_mr(rs->pd, buf, len, acc);
	if (m->mr == NULL) {
		int e = errno ? errno : ENOMEM;

		free(m);
		rs_put(rs);
		return RS_ERR(e);
	}
	/* -1: the buffer's address (no check for overlaps, as rdma-core) */
	m->offset = offset == -1 ? (uintptr_t)buf : (uint64_t)offset;
	m->index = idx;
	for (tail = &rs->maps; *tail != NULL; tail = &(*tail)->next)
		;
	*tail = m;
	if (idx >= 0) {
		rs->riomap_used[idx] = 1;
		rs->maps_untold++;
		/* tell the peer now if a credit is free; else the next
		 * rsend / riowrite does, before its data */
		if (rs->state == RS_CONNECTED && rs->wr) {
			int e = errno;

			rs_iomap_flush(rs, true);
			errno = e;
		}
	}
	offset = (off_t)m->offset;
	rs_put(rs);
	return offset;
}

int
riounmap(int s, void *buf, size_t len)
{
	struct rs *rs = rs_get(s);
	struct rs_map **pp, *m;

	if (rs == NULL)
		return -1;
	for (pp = &rs->maps; (m = *pp) != NULL; pp = &m->next)
		if (m->mr->addr == buf && m->mr->length == len)
			break;
	if (m == NULL) {
		rs_put(rs);
		return RS_ERR(EINVAL);
	}
	/* the peer is not told (nor by rdma-core): its table entry stays
	 * until a later riomap() takes it, and a riowrite() into it fails
	 * the connection */
	*pp = m->next;
	rs_map_drop(rs, m);
	rs_put(rs);
	return 0;
}

/* The peer's mapping that holds offset off: where off is, its key and the
 * bytes from off to its end. false if none. */
static bool
rs_find_rmap(struct rs *rs, uint64_t off, uint64_t *addr, uint32_t *key,
	     uint32_t *left)
{
	for (uint32_t i = 0; i < rs->iomap_size; i++) {
		volatile struct rs_iomap *t = &rs->tiomap[i];
		uint64_t o = t->offset;
		uint32_t l = t->sge.length;

		if (off - o < l) { /* also false for off < o, and l == 0 */
			*addr = t->sge.addr + (off - o);
			*key = t->sge.key;
			*left = l - (uint32_t)(off - o);
			return true;
		}
	}
	return false;
}

size_t
riowrite(int s, const void *buf, size_t count, off_t offset, int flags)
{
	struct rs *rs = rs_get(s);
	uint32_t olen = RS_OLAP_START;
	size_t done = 0;
	bool nb;
	int err = 0;

	if (rs == NULL)
		return (size_t)-1;
	nb = (rs->fl & O_NONBLOCK) || (flags & MSG_DONTWAIT);
	if (rs_ready(rs, nb) || (rs->wr && rs_iomap_flush(rs, nb))) {
		err = errno;
		goto out;
	}
	while (done < count) {
		uint64_t off = (uint64_t)offset + done, raddr;
		uint32_t rkey, left, xfer;

		if (!rs_can_write_direct(rs) &&
		    rs_wait(rs, rs_can_write_direct, nb, -1)) {
			err = errno;
			break;
		}
		if (!rs->wr) {
			err = rs->reset ? ECONNRESET : EPIPE;
			break;
		}
		/* looked up for each chunk: a wait lets the peer remap */
		if (!rs_find_rmap(rs, off, &raddr, &rkey, &left)) {
			err = EINVAL;
			break;
		}
		xfer = rs_chunk(rs, &olen, count - done);
		if (xfer > left)
			xfer = left;
		if (rs_post_copy(rs, (const uint8_t *)buf + done, xfer, false,
				 0, raddr, rkey)) {
			err = errno;
			break;
		}
		done += xfer;
	}
out:
	rs_put(rs);
	if (done > 0 || (count == 0 && err == 0))
		return done;
	errno = err;
	return (size_t)-1;
}
