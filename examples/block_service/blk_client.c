/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blk_client: drives a blk_server (see blk.h for the protocol) and checks
 * every byte it reads back.
 *
 *  1. fill: WRITE the whole store in 1 MiB blocks (generation 1);
 *  2. random: `-n` commands, half READ and half WRITE, of 4 KiB .. 1 MiB
 *     (a power of two) at random 4 KiB-aligned offsets, up to `-q` in
 *     flight (never two overlapping ones); each WRITE gets a new
 *     generation number;
 *  3. check: READ the whole store back in 1 MiB blocks.
 *
 * Every 8-byte word written is blk_pattern(offset, generation); the client
 * remembers the generation of every 4 KiB page, so each READ is checked
 * word by word against what must be there.
 *
 * Usage: blk_client [-d dev] [-g gid_index] [-p tcp_port] [-n commands]
 *                   [-q depth] [-r seed] SERVER_HOST
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blk.h"

struct slot {
	int busy;
	uint16_t opcode;
	uint32_t len, gen;
	uint64_t offset;
	uint64_t *buf; /* BLK_MAX_IO bytes of the registered buffer */
};

struct client {
	struct blk_conn c;
	uint64_t size;
	uint32_t *page_gen; /* generation of each 4 KiB page of the store */
	uint32_t next_gen;
	unsigned int depth, inflight;
	struct slot slots[BLK_MAX_QD];
	struct blk_rsp rsps[BLK_MAX_QD]; /* receive buffers */
	struct ibv_mr *data_mr, *rsp_mr;
	uint64_t reads, writes, verified, moved, rng;
};

static uint64_t
rnd(struct client *cl)
{
	/* xorshift64: reproducible from -r */
	cl->rng ^= cl->rng << 13;
	cl->rng ^= cl->rng >> 7;
	cl->rng ^= cl->rng << 17;
	return cl->rng;
}

static int
issue(struct client *cl, unsigned int cid, uint16_t op, uint64_t off,
      uint32_t len)
{
	struct slot *s = &cl->slots[cid];
	struct blk_cmd cmd = {.opcode = op,
			      .cid = cid,
			      .len = len,
			      .offset = off,
			      .addr = (uintptr_t)s->buf,
			      .rkey = cl->data_mr->rkey};
	uint32_t i;

	s->opcode = op;
	s->offset = off;
	s->len = len;
	if (op == BLK_OP_WRITE) {
		s->gen = ++cl->next_gen;
		for (i = 0; i < len / 8; i++)
			s->buf[i] = blk_pattern(off + 8ull * i, s->gen);
	}
	s->busy = 1;
	cl->inflight++;
	return blk_post_send(&cl->c, cid, &cmd, sizeof(cmd));
}

/* The server answered command `cid`: record a WRITE, check a READ. */
static int
complete(struct client *cl, const struct blk_rsp *r)
{
	struct slot *s = &cl->slots[r->cid];
	uint64_t p, i, want;

	if (r->cid >= cl->depth || !s->busy) {
		fprintf(stderr, "blk_client: response to unknown command %u\n",
			r->cid);
		return -1;
	}
	s->busy = 0;
	cl->inflight--;
	if (r->status != BLK_OK) {
		fprintf(stderr,
			"blk_client: command %u (%s %u at %llu): status %u\n",
			r->cid, s->opcode == BLK_OP_READ ? "READ" : "WRITE",
			s->len, (unsigned long long)s->offset, r->status);
		return -1;
	}
	if (s->opcode == BLK_OP_BYE)
		return 0;
	cl->moved += s->len;
	if (s->opcode == BLK_OP_WRITE) {
		for (p = s->offset / BLK_MIN_IO;
		     p < (s->offset + s->len) / BLK_MIN_IO; p++)
			cl->page_gen[p] = s->gen;
		cl->writes++;
		return 0;
	}
	for (i = 0; i < s->len / 8; i++) {
		uint64_t off = s->offset + 8 * i;

		want = blk_pattern(off, cl->page_gen[off / BLK_MIN_IO]);
		if (s->buf[i] != want) {
			fprintf(stderr,
				"blk_client: READ of %u bytes at %llu: word at "
				"%llu is %016llx, want %016llx\n",
				s->len, (unsigned long long)s->offset,
				(unsigned long long)off,
				(unsigned long long)s->buf[i],
				(unsigned long long)want);
			return -1;
		}
	}
	cl->reads++;
	cl->verified += s->len;
	return 0;
}

/* Wait for one response (send completions are skipped). */
static int
reap(struct client *cl)
{
	struct ibv_wc wc;
	struct blk_rsp r;

	for (;;) {
		int n = blk_poll(&cl->c, &wc, 20);

		if (n <= 0) {
			fprintf(stderr, "blk_client: %s\n",
				n ? "poll error" : "no response in 20 s");
			return -1;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "blk_client: work request %llu: %s\n",
				(unsigned long long)wc.wr_id,
				ibv_wc_status_str(wc.status));
			return -1;
		}
		if (wc.opcode != IBV_WC_RECV)
			continue;
		r = cl->rsps[wc.wr_id];
		if (blk_post_recv(&cl->c, wc.wr_id, &cl->rsps[wc.wr_id],
				  sizeof(r), cl->rsp_mr->lkey))
			return -1;
		return complete(cl, &r);
	}
}

/* A free slot, waiting for a response if all are busy. */
static int
free_slot(struct client *cl)
{
	unsigned int i;

	while (cl->inflight == cl->depth)
		if (reap(cl))
			return -1;
	for (i = 0; i < cl->depth; i++)
		if (!cl->slots[i].busy)
			return i;
	return -1;
}

static int
overlaps_inflight(struct client *cl, uint64_t off, uint32_t len)
{
	unsigned int i;

	for (i = 0; i < cl->depth; i++) {
		struct slot *s = &cl->slots[i];

		if (s->busy && off < s->offset + s->len &&
		    s->offset < off + len)
			return 1;
	}
	return 0;
}

/* READ or WRITE the whole store in 1 MiB blocks. */
static int
sweep(struct client *cl, uint16_t op)
{
	uint64_t off;
	int cid;

	for (off = 0; off < cl->size; off += BLK_MAX_IO) {
		uint32_t len = cl->size - off < BLK_MAX_IO ? cl->size - off
							   : BLK_MAX_IO;

		cid = free_slot(cl);
		if (cid < 0 || issue(cl, cid, op, off, len))
			return -1;
	}
	while (cl->inflight)
		if (reap(cl))
			return -1;
	return 0;
}

static int
random_io(struct client *cl, unsigned long n)
{
	unsigned long k;
	int cid, tries;

	for (k = 0; k < n; k++) {
		uint32_t len = BLK_MIN_IO << (rnd(cl) % 9); /* 4 KiB .. 1 MiB */
		uint64_t off;
		uint16_t op = rnd(cl) & 1 ? BLK_OP_WRITE : BLK_OP_READ;

		cid = free_slot(cl);
		if (cid < 0)
			return -1;
		if (len > cl->size)
			len = BLK_MIN_IO;
		/* a random place that no command in flight touches; when
		 * none turns up, wait for one to finish */
		for (tries = 0;; tries++) {
			off = rnd(cl) % ((cl->size - len) / BLK_MIN_IO + 1) *
			      BLK_MIN_IO;
			if (!overlaps_inflight(cl, off, len))
				break;
			if (tries == 64) {
				if (reap(cl))
					return -1;
				tries = 0;
			}
		}
		if (issue(cl, cid, op, off, len))
			return -1;
	}
	while (cl->inflight)
		if (reap(cl))
			return -1;
	return 0;
}

/* FNV-1a of what the store must hold now (blk_server prints the same). */
static uint64_t
model_hash(struct client *cl)
{
	uint64_t h = 0xcbf29ce484222325ull, off, w;
	int b;

	for (off = 0; off < cl->size; off += 8) {
		w = blk_pattern(off, cl->page_gen[off / BLK_MIN_IO]);
		for (b = 0; b < 8; b++)
			h = (h ^ ((w >> (8 * b)) & 0xff)) * 0x100000001b3ull;
	}
	return h;
}

int
main(int argc, char **argv)
{
	static struct client cl;
	const char *dev = "dpv0";
	int gid = 1, port = 18515, opt, rc = 1;
	unsigned long n = 1000;
	unsigned int i;
	uint8_t *data = NULL;
	double t0, t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	cl.depth = 4;
	cl.rng = 1;
	while ((opt = getopt(argc, argv, "d:g:p:n:q:r:")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'g':
			gid = atoi(optarg);
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'n':
			n = strtoul(optarg, NULL, 0);
			break;
		case 'q':
			cl.depth = atoi(optarg);
			break;
		case 'r':
			cl.rng = strtoull(optarg, NULL, 0) | 1;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || cl.depth < 1 || cl.depth > BLK_MAX_QD)
		goto usage;
	if (blk_open(&cl.c, dev, gid, 4 * BLK_MAX_QD,
		     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			     IBV_ACCESS_REMOTE_WRITE))
		return 1;
	/* one 1 MiB buffer per slot; the server reads and writes them */
	if (posix_memalign((void **)&data, 4096, (size_t)cl.depth * BLK_MAX_IO))
		goto out;
	cl.data_mr =
		ibv_reg_mr(cl.c.pd, data, (size_t)cl.depth * BLK_MAX_IO,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_WRITE);
	cl.rsp_mr = ibv_reg_mr(cl.c.pd, cl.rsps, sizeof(cl.rsps),
			       IBV_ACCESS_LOCAL_WRITE);
	if (cl.data_mr == NULL || cl.rsp_mr == NULL) {
		perror("ibv_reg_mr");
		goto out;
	}
	for (i = 0; i < cl.depth; i++) {
		cl.slots[i].buf = (uint64_t *)(data + (size_t)i * BLK_MAX_IO);
		if (blk_post_recv(&cl.c, i, &cl.rsps[i], sizeof(cl.rsps[i]),
				  cl.rsp_mr->lkey)) {
			perror("ibv_post_recv");
			goto out;
		}
	}
	if (blk_tcp_exchange(&cl.c, argv[optind], port) || blk_connect(&cl.c))
		goto out;
	cl.size = cl.c.remote.store_size;
	cl.page_gen = calloc(cl.size / BLK_MIN_IO, sizeof(*cl.page_gen));
	if (cl.page_gen == NULL || cl.size < BLK_MIN_IO)
		goto out;
	printf("blk_client: store of %llu MiB on QP 0x%x, depth %u\n",
	       (unsigned long long)(cl.size >> 20), cl.c.remote.qpn, cl.depth);

	t0 = blk_now();
	if (sweep(&cl, BLK_OP_WRITE) || random_io(&cl, n) ||
	    sweep(&cl, BLK_OP_READ))
		goto out;
	t = blk_now() - t0;
	/* say goodbye: the server exits after answering */
	i = free_slot(&cl);
	if (issue(&cl, i, BLK_OP_BYE, 0, 0) || reap(&cl))
		goto out;
	printf("blk_client: OK: %llu reads, %llu writes of 4 KiB..1 MiB, %llu "
	       "MiB read back and verified, %.0f MiB/s; store FNV-1a %016llx\n",
	       (unsigned long long)cl.reads, (unsigned long long)cl.writes,
	       (unsigned long long)(cl.verified >> 20),
	       cl.moved / t / (1 << 20), (unsigned long long)model_hash(&cl));
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "blk_client: FAILED\n");
	if (cl.data_mr)
		ibv_dereg_mr(cl.data_mr);
	if (cl.rsp_mr)
		ibv_dereg_mr(cl.rsp_mr);
	blk_close(&cl.c);
	free(data);
	free(cl.page_gen);
	return rc;
usage:
	fprintf(stderr,
		"usage: %s [-d dev] [-g gid_index] [-p tcp_port] [-n commands] "
		"[-q depth 1..%d] [-r seed] SERVER_HOST\n",
		argv[0], BLK_MAX_QD);
	return 2;
}
