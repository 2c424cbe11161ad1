/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blk_server: exports a file as a block store over RDMA (see blk.h for
 * the protocol). The file is mapped into memory and that mapping is
 * registered as one memory region with local access only: the client
 * never learns its address or key; the server moves every byte itself,
 * with RDMA WRITE (to serve a READ) and RDMA READ (to serve a WRITE).
 *
 * Usage: blk_server [-d dev] [-g gid_index] [-p tcp_port] [-S MiB]
 *                   [-t idle_s] FILE
 * Serves one client, until it says BYE; then writes the mapping back to
 * the file and prints a hash of the store.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/mman.h>
#include <sys/stat.h>

#include "blk.h"

/* wr_id of a send-queue work request: what it was for, and the command */
enum { WR_RSP = 1, WR_FETCH = 2 };
#define WR_ID(kind, cid) ((uint64_t)(kind) << 32 | (cid))

struct server {
	struct blk_conn c;
	uint8_t *store;
	uint64_t size;
	struct ibv_mr *store_mr;
	struct blk_cmd cmds[BLK_MAX_QD]; /* receive buffers, one per slot */
	struct ibv_mr *cmd_mr;
	uint64_t reads, writes, bytes_in, bytes_out;
	uint16_t bye_cid;
};

static int
respond(struct server *s, uint16_t cid, uint16_t status)
{
	struct blk_rsp r = {.cid = cid, .status = status};

	return blk_post_send(&s->c, WR_ID(WR_RSP, cid), &r, sizeof(r));
}

/* READ: RDMA WRITE the block into the client's buffer, then the response.
 * Both go in one post; only the response is signaled. */
static int
serve_read(struct server *s, const struct blk_cmd *cmd)
{
	struct blk_rsp r = {.cid = cmd->cid, .status = BLK_OK};
	struct ibv_sge data = {.addr = (uintptr_t)(s->store + cmd->offset),
			       .length = cmd->len,
			       .lkey = s->store_mr->lkey};
	struct ibv_sge rsp = {.addr = (uintptr_t)&r, .length = sizeof(r)};
	struct ibv_send_wr wr[2], *bad;

	memset(wr, 0, sizeof(wr));
	wr[0].opcode = IBV_WR_RDMA_WRITE;
	wr[0].sg_list = &data;
	wr[0].num_sge = 1;
	wr[0].wr.rdma.remote_addr = cmd->addr;
	wr[0].wr.rdma.rkey = cmd->rkey;
	wr[0].next = &wr[1];
	wr[1].wr_id = WR_ID(WR_RSP, cmd->cid);
	wr[1].opcode = IBV_WR_SEND;
	wr[1].sg_list = &rsp;
	wr[1].num_sge = 1;
	wr[1].send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	s->reads++;
	s->bytes_out += cmd->len;
	return ibv_post_send(s->c.qp, wr, &bad);
}

/* WRITE: RDMA READ the block from the client's buffer into the store; the
 * response follows when that READ completes (see the main loop). */
static int
serve_write(struct server *s, const struct blk_cmd *cmd)
{
	struct ibv_sge data = {.addr = (uintptr_t)(s->store + cmd->offset),
			       .length = cmd->len,
			       .lkey = s->store_mr->lkey};
	struct ibv_send_wr wr = {.wr_id = WR_ID(WR_FETCH, cmd->cid),
				 .opcode = IBV_WR_RDMA_READ,
				 .sg_list = &data,
				 .num_sge = 1,
				 .send_flags = IBV_SEND_SIGNALED};
	struct ibv_send_wr *bad;

	wr.wr.rdma.remote_addr = cmd->addr;
	wr.wr.rdma.rkey = cmd->rkey;
	s->writes++;
	s->bytes_in += cmd->len;
	return ibv_post_send(s->c.qp, &wr, &bad);
}

/* A command arrived in receive slot `slot`. Returns 1 after BYE, 0 when
 * served, -1 on a local error. */
static int
on_command(struct server *s, unsigned int slot, uint32_t byte_len)
{
	struct blk_cmd cmd = s->cmds[slot];

	/* the slot is free again once the command is copied out */
	if (blk_post_recv(&s->c, slot, &s->cmds[slot], sizeof(cmd),
			  s->cmd_mr->lkey))
		return -1;
	if (byte_len != sizeof(cmd))
		return respond(s, cmd.cid, BLK_ERR_OPCODE) ? -1 : 0;
	if (cmd.opcode == BLK_OP_BYE) {
		s->bye_cid = cmd.cid;
		return respond(s, cmd.cid, BLK_OK) ? -1 : 1;
	}
	if (cmd.opcode != BLK_OP_READ && cmd.opcode != BLK_OP_WRITE)
		return respond(s, cmd.cid, BLK_ERR_OPCODE) ? -1 : 0;
	if (cmd.len < BLK_MIN_IO || cmd.len > BLK_MAX_IO ||
	    cmd.len % BLK_MIN_IO || cmd.offset % BLK_MIN_IO ||
	    cmd.offset > s->size || cmd.len > s->size - cmd.offset)
		return respond(s, cmd.cid, BLK_ERR_RANGE) ? -1 : 0;
	if (cmd.opcode == BLK_OP_READ)
		return serve_read(s, &cmd) ? -1 : 0;
	return serve_write(s, &cmd) ? -1 : 0;
}

static uint64_t
fnv1a(const uint8_t *p, uint64_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

static int
map_store(struct server *s, const char *path, uint64_t want)
{
	struct stat st;
	int fd = open(path, O_RDWR | O_CREAT, 0644);

	if (fd < 0 || fstat(fd, &st)) {
		perror(path);
		return -1;
	}
	s->size = st.st_size;
	if (s->size < want || s->size < BLK_MAX_IO) {
		s->size = want > BLK_MAX_IO ? want : BLK_MAX_IO;
		if (ftruncate(fd, s->size)) {
			perror("ftruncate");
			return -1;
		}
	}
	s->size -= s->size % BLK_MIN_IO;
	s->store =
		mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (s->store == MAP_FAILED) {
		perror("mmap");
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static struct server s;
	const char *dev = "dpv0";
	int gid = 1, port = 18515, opt, rc = 1, done = 0;
	double idle = 60;
	uint64_t want = 16ull << 20;
	struct ibv_wc wc;
	unsigned int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "d:g:p:S:t:")) != -1) {
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
		case 'S':
			want = strtoull(optarg, NULL, 0) << 20;
			break;
		case 't':
			idle = atof(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	if (map_store(&s, argv[optind], want) ||
	    blk_open(&s.c, dev, gid, 4 * BLK_MAX_QD, 0))
		return 1;
	/* local write: RDMA READ results land in the store; nothing remote */
	s.store_mr =
		ibv_reg_mr(s.c.pd, s.store, s.size, IBV_ACCESS_LOCAL_WRITE);
	s.cmd_mr = ibv_reg_mr(s.c.pd, s.cmds, sizeof(s.cmds),
			      IBV_ACCESS_LOCAL_WRITE);
	if (s.store_mr == NULL || s.cmd_mr == NULL) {
		perror("ibv_reg_mr");
		goto out;
	}
	/* receives are posted before the client can send anything */
	for (i = 0; i < BLK_MAX_QD; i++)
		if (blk_post_recv(&s.c, i, &s.cmds[i], sizeof(s.cmds[i]),
				  s.cmd_mr->lkey)) {
			perror("ibv_post_recv");
			goto out;
		}
	s.c.local.store_size = s.size;
	printf("blk_server: exporting %s (%llu MiB) on %s, QP 0x%x, TCP port "
	       "%d\n",
	       argv[optind], (unsigned long long)(s.size >> 20), dev,
	       s.c.local.qpn, port);
	fflush(stdout);
	if (blk_tcp_exchange(&s.c, NULL, port) || blk_connect(&s.c))
		goto out;

	while (done != 2) {
		int n = blk_poll(&s.c, &wc, idle);

		if (n <= 0) {
			fprintf(stderr, "blk_server: %s\n",
				n ? "poll error" : "client idle, giving up");
			goto out;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "blk_server: work request %#llx: %s\n",
				(unsigned long long)wc.wr_id,
				ibv_wc_status_str(wc.status));
			goto out;
		}
		if (wc.opcode == IBV_WC_RECV) {
			n = on_command(&s, wc.wr_id, wc.byte_len);
			if (n < 0) {
				fprintf(stderr, "blk_server: post failed\n");
				goto out;
			}
			done |= n;
		} else if (wc.opcode == IBV_WC_RDMA_READ) {
			/* the block is in the store: the WRITE is complete */
			if (respond(&s, wc.wr_id & 0xffff, BLK_OK))
				goto out;
		} else if (wc.opcode == IBV_WC_SEND && done &&
			   wc.wr_id == WR_ID(WR_RSP, s.bye_cid)) {
			done = 2; /* the answer to BYE is out */
		}
	}
	msync(s.store, s.size, MS_SYNC);
	printf("blk_server: done: %llu reads (%llu MiB out), %llu writes (%llu "
	       "MiB in), store FNV-1a %016llx\n",
	       (unsigned long long)s.reads,
	       (unsigned long long)(s.bytes_out >> 20),
	       (unsigned long long)s.writes,
	       (unsigned long long)(s.bytes_in >> 20),
	       (unsigned long long)fnv1a(s.store, s.size));
	rc = 0;
out:
	if (s.store_mr)
		ibv_dereg_mr(s.store_mr);
	if (s.cmd_mr)
		ibv_dereg_mr(s.cmd_mr);
	blk_close(&s.c);
	munmap(s.store, s.size);
	return rc;
usage:
	fprintf(stderr,
		"usage: %s [-d dev] [-g gid_index] [-p tcp_port] [-S MiB] [-t "
		"idle_s] FILE\n",
		argv[0]);
	return 2;
}
