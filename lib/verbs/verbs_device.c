/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device list, device identity, open/close of contexts, asynchronous
 * events and fork support.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <rte_byteorder.h>

#include "verbs_int.h"
#include "verbs_ops.h"
#include "verbs_port.h"

RTE_LOG_REGISTER(dpv_logtype_verbs, dpv.verbs, NOTICE);

static pthread_mutex_t g_dev_lock = PTHREAD_MUTEX_INITIALIZER;
/* Transport domain of the next context (raw-packet self-loopback). */
static uint32_t g_next_domain;
static struct dpv_device *g_devs[64];
static unsigned int g_ndevs;

static uint64_t
guid_from_mac(const uint8_t mac[6])
{
	uint8_t g[8] = {mac[0] ^ 0x02, mac[1], mac[2], 0xff,
			0xfe,	       mac[3], mac[4], mac[5]};
	uint64_t v;

	memcpy(&v, g, sizeof(v));
	return v; /* already in network order */
}

static struct dpv_device *
device_new(unsigned int idx)
{
	struct dpv_port_info info;
	struct dpv_device *dev;
	struct dpv_port *port = dpv_port_get(idx);

	if (port == NULL || dpv_port_query(port, &info) != 0)
		return NULL;
	dev = calloc(1, sizeof(*dev));
	if (dev == NULL)
		return NULL;
	dev->mkeys = calloc(DPV_CAP_MAX_MR, sizeof(*dev->mkeys));
	if (dev->mkeys == NULL) {
		free(dev);
		return NULL;
	}
	for (unsigned int i = 0; i < DPV_CAP_MAX_MR; i++)
		rte_seqlock_init(&dev->mkeys[i].lock);
	dev->mkey_hint = 2; /* see mkey_alloc() */
	dev->port = port;
	dev->index = idx;
	dev->guid_be = guid_from_mac(info.mac);
	dev->socket_id = info.socket_id;
	dev->ring_ops = info.rings == DPV_RINGS_MLX4 ? &dpv_mlx4_ring_ops
						     : &dpv_mlx5_ring_ops;
	if (info.personality == DPV_PERSONALITY_MLX5) {
		/* as ConnectX reports itself; what differs from the hardware:
		 * doc/guides/drivers/mlx5.rst */
		dev->mlx5_personality = true;
		dev->vendor_id = DPV_MLX5_VENDOR_ID;
		dev->vendor_part_id = info.part_id;
		dev->hw_ver = 0;
	} else {
		dev->vendor_id = DPV_VENDOR_ID;
		dev->vendor_part_id = DPV_VENDOR_PART_ID;
		dev->hw_ver = DPV_HW_VER;
	}
	pthread_mutex_init(&dev->lock, NULL);
	atomic_init(&dev->next_pdn, 1);
	dev->srqs = calloc(DPV_CAP_MAX_SRQ, sizeof(*dev->srqs));
	if (dev->srqs == NULL) {
		free(dev->mkeys);
		free(dev);
		return NULL;
	}
	dev->srq_hint = 1;
	TAILQ_INIT(&dev->xrcds);
	pthread_mutex_init(&dev->chan_lock, NULL);
	TAILQ_INIT(&dev->chans);

	struct ibv_device *d = &dev->vdev.device;

	d->node_type = IBV_NODE_CA;
	d->transport_type = IBV_TRANSPORT_IB;
	if (info.name[0] != '\0')
		snprintf(d->name, sizeof(d->name), "%s", info.name);
	else
		snprintf(d->name, sizeof(d->name), "dpv%u", idx);
	snprintf(d->dev_name, sizeof(d->dev_name), "uverbs%u", idx);
	snprintf(d->dev_path, sizeof(d->dev_path),
		 "/sys/class/infiniband_verbs/uverbs%u", idx);
	snprintf(d->ibdev_path, sizeof(d->ibdev_path),
		 "/sys/class/infiniband/%s", d->name);
	return dev;
}

/* Bring up the ports once and create a device for each new one. */
static int
devices_scan(void)
{
	int rc;

	rc = dpv_port_init();
	if (rc < 0)
		return -rc;
	unsigned int n = dpv_port_count();

	if (n > RTE_DIM(g_devs))
		n = RTE_DIM(g_devs);
	/* ports may have been released and re-created (dpv_port_fini() then
	 * dpv_port_init()): never keep a stale pointer */
	for (unsigned int i = 0; i < g_ndevs; i++)
		g_devs[i]->port = dpv_port_get(i);
	for (unsigned int i = g_ndevs; i < n; i++) {
		struct dpv_device *dev = device_new(i);

		if (dev == NULL) {
			VERBS_LOG(ERR, "cannot create device for port %u", i);
			return ENOMEM;
		}
		g_devs[g_ndevs++] = dev;
	}
	return 0;
}

unsigned int
dpv_verbs_device_count(void)
{
	return g_ndevs;
}

struct dpv_device *
dpv_verbs_device_lookup(const char *name)
{
	for (unsigned int i = 0; i < g_ndevs; i++)
		if (strcmp(g_devs[i]->vdev.device.name, name) == 0)
			return g_devs[i];
	return NULL;
}

struct ibv_device **
ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list;
	int rc;

	pthread_mutex_lock(&g_dev_lock);
	rc = devices_scan();
	if (rc != 0 && g_ndevs == 0) {
		pthread_mutex_unlock(&g_dev_lock);
		VERBS_LOG(ERR, "no devices: %s", strerror(rc));
		if (num_devices)
			*num_devices = 0;
		errno = rc;
		return NULL;
	}
	list = calloc(g_ndevs + 1, sizeof(*list));
	if (list == NULL) {
		pthread_mutex_unlock(&g_dev_lock);
		errno = ENOMEM;
		return NULL;
	}
	for (unsigned int i = 0; i < g_ndevs; i++)
		list[i] = &g_devs[i]->vdev.device;
	if (num_devices)
		*num_devices = (int)g_ndevs;
	pthread_mutex_unlock(&g_dev_lock);
	return list;
}

/* Devices live for the whole process: only the array is freed. */
void
ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *
ibv_get_device_name(struct ibv_device *device)
{
	return device->name;
}

__be64
ibv_get_device_guid(struct ibv_device *device)
{
	return to_ddev(device)->guid_be;
}

int
ibv_get_device_index(struct ibv_device *device)
{
	return (int)to_ddev(device)->index;
}

/* ---------------------------------------------------------------------- */

int
dpv_async_event_post(struct dpv_context *ctx, const struct ibv_async_event *ev)
{
	struct dpv_async_ev *e = malloc(sizeof(*e));
	uint64_t one = 1;

	if (e == NULL)
		return ENOMEM;
	e->ev = *ev;
	pthread_mutex_lock(&ctx->lock);
	TAILQ_INSERT_TAIL(&ctx->async_q, e, next);
	pthread_mutex_unlock(&ctx->lock);
	if (write(ctx->vctx.context.async_fd, &one, sizeof(one)) < 0)
		VERBS_LOG(WARNING, "async_fd write: %s", strerror(errno));
	return 0;
}

int
ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	struct dpv_context *ctx = to_dctx(context);
	struct dpv_async_ev *e;
	uint64_t v;

	/* EAGAIN on a non-blocking async_fd; EINTR when a signal interrupts
	 * the wait (as rdma-core's read() of the fd) */
	if (read(context->async_fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	pthread_mutex_lock(&ctx->lock);
	e = TAILQ_FIRST(&ctx->async_q);
	if (e != NULL)
		TAILQ_REMOVE(&ctx->async_q, e, next);
	pthread_mutex_unlock(&ctx->lock);
	if (e == NULL) {
		errno = EAGAIN;
		return -1;
	}
	*event = e->ev;
	free(e);
	return 0;
}

static void
count_event(pthread_mutex_t *m, pthread_cond_t *c, uint32_t *n)
{
	pthread_mutex_lock(m);
	(*n)++;
	pthread_cond_signal(c);
	pthread_mutex_unlock(m);
}

void
ibv_ack_async_event(struct ibv_async_event *event)
{
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR: {
		struct ibv_cq *cq = event->element.cq;

		count_event(&cq->mutex, &cq->cond, &cq->async_events_completed);
		break;
	}
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED: {
		struct ibv_qp *qp = event->element.qp;

		count_event(&qp->mutex, &qp->cond, &qp->events_completed);
		break;
	}
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED: {
		struct ibv_srq *srq = event->element.srq;

		count_event(&srq->mutex, &srq->cond, &srq->events_completed);
		break;
	}
	default:
		break;
	}
}

/* ---------------------------------------------------------------------- */

static int
open_eventfd(void)
{
	return eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
}

struct ibv_context *
ibv_open_device(struct ibv_device *device)
{
	struct dpv_device *dev = to_ddev(device);
	struct dpv_context *ctx;
	struct ibv_context *c;

	pthread_mutex_lock(&g_dev_lock);
	if (dpv_verbs_engine_attach(dev) != 0)
		VERBS_LOG(WARNING,
			  "%s: no transport: objects work, traffic does not",
			  device->name);
	pthread_mutex_unlock(&g_dev_lock);
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ctx->dev = dev;
	ctx->domain = __atomic_add_fetch(&g_next_domain, 1, __ATOMIC_RELAXED);
	if (ctx->domain == 0) /* wrapped: 0 means "no domain" */
		ctx->domain = __atomic_add_fetch(&g_next_domain, 1,
						 __ATOMIC_RELAXED);
	pthread_mutex_init(&ctx->lock, NULL);
	TAILQ_INIT(&ctx->async_q);
	c = &ctx->vctx.context;
	c->device = device;
	c->async_fd = open_eventfd();
	c->cmd_fd = open_eventfd();
	if (c->async_fd < 0 || c->cmd_fd < 0) {
		int err = errno;

		if (c->async_fd >= 0)
			close(c->async_fd);
		if (c->cmd_fd >= 0)
			close(c->cmd_fd);
		free(ctx);
		errno = err;
		return NULL;
	}
	c->num_comp_vectors = DPV_CAP_NUM_COMP_VECTORS;
	pthread_mutex_init(&c->mutex, NULL);
	c->abi_compat = __VERBS_ABI_IS_EXTENDED;
	ctx->vctx.sz = sizeof(struct verbs_context);

	dpv_verbs_fill_ops(&ctx->vctx);
	dpv_qp_ops_init(&ctx->vctx);
	VERBS_LOG(DEBUG, "opened %s", device->name);
	return c;
}

int
ibv_close_device(struct ibv_context *context)
{
	struct dpv_context *ctx = to_dctx(context);
	struct dpv_async_ev *e;

	while ((e = TAILQ_FIRST(&ctx->async_q)) != NULL) {
		TAILQ_REMOVE(&ctx->async_q, e, next);
		free(e);
	}
	close(context->async_fd);
	close(context->cmd_fd);
	pthread_mutex_destroy(&context->mutex);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Fork: registrations are not pinned by a kernel driver, so a fork never
 * breaks them: fork protection is unneeded. */

int
ibv_fork_init(void)
{
	return 0;
}

enum ibv_fork_status
ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

int
ibv_dontfork_range(void *base, size_t size)
{
	return 0;
}

int
ibv_dofork_range(void *base, size_t size)
{
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Import of objects shared through a kernel file descriptor: there is no
 * kernel object to share. */

struct ibv_context *
ibv_import_device(int cmd_fd)
{
	errno = EOPNOTSUPP;
	return NULL;
}

struct ibv_pd *
ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	errno = EOPNOTSUPP;
	return NULL;
}

void
ibv_unimport_pd(struct ibv_pd *pd)
{
}

struct ibv_mr *
ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	errno = EOPNOTSUPP;
	return NULL;
}

void
ibv_unimport_mr(struct ibv_mr *mr)
{
}

struct ibv_dm *
ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	errno = EOPNOTSUPP;
	return NULL;
}

void
ibv_unimport_dm(struct ibv_dm *dm)
{
}
