/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multicast on UD QPs: ibv_attach_mcast / ibv_detach_mcast and the
 * device's groups, which the engine asks for the QPs a multicast
 * datagram reaches.
 */
#include <errno.h>
#include <string.h>

#include "qp.h"
#include "qp_table.h"

static bool
gid_is_mcast(const union ibv_gid *gid)
{
	static const uint8_t v4map[12] = {0, 0, 0, 0, 0,    0,
					  0, 0, 0, 0, 0xff, 0xff};

	if (memcmp(gid->raw, v4map, sizeof(v4map)) == 0)
		return (gid->raw[12] & 0xf0) == 0xe0; /* 224.0.0.0/4 */
	return gid->raw[0] == 0xff;
}

static int
mcast_find(struct dpv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	unsigned int i;

	for (i = 0; i < qp->n_mcast; i++)
		if (qp->mcast[i].lid == lid &&
		    memcmp(qp->mcast[i].gid.raw, gid->raw, 16) == 0)
			return (int)i;
	return -1;
}

static struct qp_mcast_grp *
grp_find(struct qp_table *t, const uint8_t gid[16])
{
	unsigned int i;

	for (i = 0; i < DPV_CAP_MAX_MCAST_GRP; i++)
		if (t->grp[i].n && memcmp(t->grp[i].gid, gid, 16) == 0)
			return &t->grp[i];
	return NULL;
}

/* Add qpn to the device's group gid. 0 or ENOMEM (device limits). */
static int
grp_join(struct qp_table *t, const uint8_t gid[16], uint32_t qpn)
{
	struct qp_mcast_grp *g;
	unsigned int i;
	int rc = 0;

	pthread_mutex_lock(&t->lock);
	g = grp_find(t, gid);
	if (g == NULL) {
		for (i = 0; i < DPV_CAP_MAX_MCAST_GRP && g == NULL; i++)
			if (t->grp[i].n == 0)
				g = &t->grp[i];
		if (g != NULL)
			memcpy(g->gid, gid, 16);
	}
	if (g == NULL || g->n >= DPV_CAP_MAX_MCAST_QP_ATTACH)
		rc = ENOMEM;
	else
		g->qpn[g->n++] = qpn;
	pthread_mutex_unlock(&t->lock);
	return rc;
}

static void
grp_leave(struct qp_table *t, const uint8_t gid[16], uint32_t qpn)
{
	struct qp_mcast_grp *g;
	unsigned int i;

	pthread_mutex_lock(&t->lock);
	g = grp_find(t, gid);
	for (i = 0; g != NULL && i < g->n; i++)
		if (g->qpn[i] == qpn) {
			g->qpn[i] = g->qpn[--g->n];
			break;
		}
	pthread_mutex_unlock(&t->lock);
}

unsigned int
dpv_qp_mcast_lookup(struct dpv_device *dev, const uint8_t gid[16],
		    uint32_t *qpns, unsigned int max)
{
	struct qp_table *t;
	struct qp_mcast_grp *g;
	unsigned int i, n = 0;

	if (gid == NULL || (t = qp_table_peek(dev)) == NULL)
		return 0;
	pthread_mutex_lock(&t->lock);
	g = grp_find(t, gid);
	if (g != NULL) {
		n = g->n;
		for (i = 0; i < n && i < max; i++)
			qpns[i] = g->qpn[i];
	}
	pthread_mutex_unlock(&t->lock);
	return n;
}

unsigned int
dpv_qp_mcast_hook(void *arg, const uint8_t gid[16], uint32_t *qpns,
		  unsigned int max)
{
	return dpv_qp_mcast_lookup(arg, gid, qpns, max);
}

int
ibv_attach_mcast(struct ibv_qp *ibqp, const union ibv_gid *gid, uint16_t lid)
{
	struct dpv_qp *qp;
	int rc = 0;

	if (ibqp == NULL || gid == NULL || ibqp->qp_type != IBV_QPT_UD ||
	    !gid_is_mcast(gid))
		return EINVAL;
	qp = to_dqp(ibqp);
	pthread_mutex_lock(&qp->lock);
	if (mcast_find(qp, gid, lid) >= 0) {
		rc = 0; /* already attached: nothing to do */
	} else if (qp->n_mcast >= DPV_QP_MAX_MCAST) {
		rc = ENOMEM;
	} else {
		/* the device-wide group (once per QP and GID, whatever lid) */
		bool other_lid = false;
		unsigned int i;

		for (i = 0; i < qp->n_mcast; i++)
			if (memcmp(qp->mcast[i].gid.raw, gid->raw, 16) == 0)
				other_lid = true;
		if (!other_lid)
			rc = grp_join(qp->dev->qp_priv, gid->raw, ibqp->qp_num);
		if (rc == 0) {
			qp->mcast[qp->n_mcast].gid = *gid;
			qp->mcast[qp->n_mcast].lid = lid;
			qp->n_mcast++;
		}
	}
	pthread_mutex_unlock(&qp->lock);
	return rc;
}

int
ibv_detach_mcast(struct ibv_qp *ibqp, const union ibv_gid *gid, uint16_t lid)
{
	struct dpv_qp *qp;
	int i, rc = 0;

	if (ibqp == NULL || gid == NULL || ibqp->qp_type != IBV_QPT_UD ||
	    !gid_is_mcast(gid))
		return EINVAL;
	qp = to_dqp(ibqp);
	pthread_mutex_lock(&qp->lock);
	i = mcast_find(qp, gid, lid);
	if (i < 0) {
		rc = EINVAL;
	} else {
		unsigned int j;
		bool other_lid = false;

		qp->mcast[i] = qp->mcast[qp->n_mcast - 1];
		qp->n_mcast--;
		for (j = 0; j < qp->n_mcast; j++)
			if (memcmp(qp->mcast[j].gid.raw, gid->raw, 16) == 0)
				other_lid = true;
		if (!other_lid)
			grp_leave(qp->dev->qp_priv, gid->raw, ibqp->qp_num);
	}
	pthread_mutex_unlock(&qp->lock);
	return rc;
}

