/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The software HCA behind a device: one engine per device, created with
 * the first context. The engine reads memory keys from the device's key
 * table and raises completion events through the verbs CQ objects.
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>

#include "dpv_engine.h"
#include "verbs_int.h"
#include "verbs_ops.h"

static bool
engine_key_lookup(void *arg, uint32_t key, struct dpv_engine_key *out)
{
	struct dpv_device *dev = arg;
	struct dpv_mkey k;

	if (!dpv_mkey_get(dev, key, &k))
		return false;
	memset(out, 0, sizeof(*out));
	out->addr = k.addr;
	out->length = k.length;
	out->iova = k.iova;
	out->access = k.access;
	out->pdn = k.pdn;
	out->qpn = k.qpn;
	switch (k.type) {
	case DPV_MKEY_MW1:
		out->type = DPV_ENGINE_KEY_MW1;
		break;
	case DPV_MKEY_MW2:
		out->type = DPV_ENGINE_KEY_MW2;
		break;
	default:
		out->type = DPV_ENGINE_KEY_MR;
		break;
	}
	/* an unbound window grants nothing */
	if (k.type != DPV_MKEY_MR && !k.bound)
		return false;
	out->valid = 1;
	out->key = k.key;
	return true;
}

#ifdef DPV_HAVE_MLX5_RING
static void
engine_cq_event(void *arg, struct dpv_mlx5_cq *cq)
{
	dpv_cq_ring_event(cq);
}
#endif

static void
engine_progress(struct dpv_device *dev)
{
	dpv_engine_progress(dev->engine);
}

int
dpv_verbs_engine_attach(struct dpv_device *dev)
{
	struct dpv_engine_conf conf;
	struct dpv_engine *e;

	if (dev->engine != NULL)
		return 0;
	memset(&conf, 0, sizeof(conf));
	conf.max_keys = DPV_CAP_MAX_MR;
	conf.max_qps = DPV_CAP_MAX_QP;
	conf.key_lookup = engine_key_lookup;
	conf.key_lookup_arg = dev;
#ifdef DPV_HAVE_MLX5_RING
	conf.cq_event = engine_cq_event;
	conf.cq_event_arg = dev;
#endif
	e = dpv_engine_create(dev->port, &conf);
	if (e == NULL) {
		VERBS_LOG(ERR, "%s: no engine: %s", dev->vdev.device.name,
			  rte_strerror(rte_errno));
		return rte_errno ? rte_errno : ENOMEM;
	}
	dev->engine = e;
	/* application-driven progress: verbs calls run the engine */
	dev->progress = engine_progress;
	return 0;
}
