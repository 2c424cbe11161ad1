/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TEST_CQMOD_UTIL_H
#define TEST_CQMOD_UTIL_H

/*
 * Completion event moderation (ibv_modify_cq, IBV_CQ_ATTR_MODERATE) seen
 * through the public verbs API: a loopback RC pair whose receives complete
 * into a CQ on a completion channel. Run by the verbs_cqmod autotest
 * (application-driven progress) and by dpv-cqmod-modes
 * (test/scripts/fast-cqmod-modes.sh: progress thread, worker lcores,
 * shards sharing the CQ, mlx4 rings). Registers no tests. Each scenario
 * returns 0, or -1 after saying on stderr what went wrong; every wait is
 * bounded.
 */
#include <stdint.h>

#include <infiniband/verbs.h>

/* The moderation period the scenarios use, microseconds (the largest a
 * ConnectX takes is 4095). */
#define CQMOD_PERIOD_US 4000

struct cqmod_env {
	/* given */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr; /* local write, over buf */
	uint8_t *buf;	   /* 2 x 64 bytes at least */
	int gid_index;	   /* of port 1 */
	/* made by cqmod_open() */
	struct ibv_comp_channel *ch;
	struct ibv_cq *scq; /* both QPs' sends, no channel */
	struct ibv_cq *rcq; /* both QPs' receives, on ch */
	struct ibv_qp *qp[2];
};

/* The channel, CQs and QPs of v; 0 or -1 (cqmod_close() cleans up). */
int cqmod_open(struct cqmod_env *v);
void cqmod_close(struct cqmod_env *v);

/* Count 4, a long period: the first three receive CQEs after an arm
 * raise no event, the fourth raises it before the period could have. */
int cqmod_count(struct cqmod_env *v);
/* A large count, CQMOD_PERIOD_US: one receive's event comes when the
 * period has passed since its send, with no more traffic. */
int cqmod_period(struct cqmod_env *v);
/* A solicited-only arm counts solicited CQEs only: unsolicited ones
 * neither raise its event nor start its period. */
int cqmod_solicited(struct cqmod_env *v);
/* No moderation (count 0 or 1, or period 0): each arm's event comes
 * with its first CQE. */
int cqmod_off(struct cqmod_env *v);

#endif
