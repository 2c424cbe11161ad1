/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CM agent: per device a GSI QP (UD, QPN 1, Q_Key 0x80010000, P_Key
 * 0xffff) with its CQ and buffers, the process's CM thread that receives
 * MADs and runs the timers, and the address helpers (device and GID of an
 * IP address, neighbour state).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "cm_int.h"
#include "dpv_port.h"
#include "dpv_verbs.h"
#include "verbs_dv.h"

struct cm_global cm = {.lock = PTHREAD_MUTEX_INITIALIZER};

#define SLOT_LEN (CM_GRH_LEN + CM_MAD_LEN)

uint64_t
cm_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void
cm_wake(void)
{
	char c = 1;

	if (cm.thread_on && write(cm.wake[1], &c, 1) < 0)
		CM_LOG("wake: %s\n", strerror(errno));
}

void
cm_addr_to_gid(const struct sockaddr *a, uint8_t gid[16])
{
	memset(gid, 0, 16);
	if (a->sa_family == AF_INET) {
		gid[10] = gid[11] = 0xff;
		memcpy(gid + 12, &((const struct sockaddr_in *)a)->sin_addr, 4);
	} else if (a->sa_family == AF_INET6) {
		memcpy(gid, &((const struct sockaddr_in6 *)a)->sin6_addr, 16);
	}
}

uint16_t
cm_port_of(const struct sockaddr *a)
{
	if (a->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)a)->sin_port);
	if (a->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)a)->sin6_port);
	return 0;
}

/* GID index of address a on device d, or -1. */
int
cm_gid_index(struct cm_dev *d, const struct sockaddr *a)
{
	uint8_t g[16];
	int i;

	cm_addr_to_gid(a, g);
	for (i = 0; i < d->ngid; i++)
		if (memcmp(d->gid[i].raw, g, 16) == 0)
			return i;
	return -1;
}

static bool
gid_is_v4(const union ibv_gid *g)
{
	static const uint8_t pre[12] = {0, 0, 0, 0, 0,	  0,
					0, 0, 0, 0, 0xff, 0xff};

	return memcmp(g->raw, pre, 12) == 0;
}

/*
 * The device and source GID index to reach (or own) address a: the device
 * that has it, else one with an address of the same family in the same
 * /24 (IPv4) or /64 (IPv6), else the first with that family. 0 or
 * -EADDRNOTAVAIL.
 */
int
cm_dev_find(const struct sockaddr *a, struct cm_dev **out, int *gidx)
{
	uint8_t g[16];
	int i, j, best = -1, bestg = -1, score = 0;

	cm_addr_to_gid(a, g);
	for (i = 0; i < cm.ndev; i++) {
		struct cm_dev *d = &cm.dev[i];

		for (j = 0; j < d->ngid; j++) {
			bool v4 = gid_is_v4(&d->gid[j]);
			int s;

			if (v4 != (a->sa_family == AF_INET))
				continue;
			if (!v4 && d->gid[j].raw[0] == 0xfe &&
			    d->gid[j].raw[1] == 0x80)
				continue; /* link-local: not for IP CM */
			if (memcmp(d->gid[j].raw, g, 16) == 0)
				s = 3;
			else if (memcmp(d->gid[j].raw, g, v4 ? 15 : 8) == 0)
				s = 2;
			else
				s = 1;
			if (s > score) {
				score = s, best = i, bestg = j;
			}
		}
	}
	if (best < 0)
		return -EADDRNOTAVAIL;
	*out = &cm.dev[best];
	*gidx = bestg;
	return 0;
}

static void
ah_attr_of(struct ibv_ah_attr *ah, const uint8_t *dgid, int sgid_index)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	memcpy(ah->grh.dgid.raw, dgid, 16);
	ah->grh.sgid_index = (uint8_t)sgid_index;
	ah->grh.hop_limit = 64;
	ah->port_num = 1;
}

/* Is the peer's MAC known? Asks the device (which sends an ARP request
 * or neighbour solicitation when it does not know it yet). */
bool
cm_neigh_ready(struct cm_id *c)
{
	struct ibv_ah_attr ah;
	uint8_t mac[6];
	uint16_t vid;

	ah_attr_of(&ah, c->dgid, c->sgid_index);
	return ibv_resolve_eth_l2_from_gid(c->dev->ctx, &ah, mac, &vid) == 0;
}

int
cm_send(struct cm_dev *d, const uint8_t *dgid, int sgid_index,
	const uint8_t *mad)
{
	struct ibv_ah_attr attr;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	int s;

	for (s = 0; s < CM_SEND_SLOTS; s++)
		if (!d->send_busy[s])
			break;
	if (s == CM_SEND_SLOTS)
		return -ENOBUFS; /* the retransmission timer tries again */
	ah_attr_of(&attr, dgid, sgid_index);
	d->send_ah[s] = ibv_create_ah(d->pd, &attr);
	if (d->send_ah[s] == NULL)
		return -errno;
	uint8_t *p = d->buf + (CM_RECV_SLOTS + s) * SLOT_LEN;

	memcpy(p, mad, CM_MAD_LEN);
	sge.addr = (uintptr_t)p;
	sge.length = CM_MAD_LEN;
	sge.lkey = d->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = CM_RECV_SLOTS + s;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = d->send_ah[s];
	wr.wr.ud.remote_qpn = 1;
	wr.wr.ud.remote_qkey = CM_GSI_QKEY;
	if (ibv_post_send(d->qp, &wr, &bad) != 0) {
		int rc = errno ? -errno : -EIO;

		ibv_destroy_ah(d->send_ah[s]);
		d->send_ah[s] = NULL;
		return rc;
	}
	d->send_busy[s] = true;
	CM_LOG("send %s\n", cm_attr_str((uint16_t)(mad[16] << 8 | mad[17])));
	return 0;
}

/* Arm the retransmission of c->mad: CM response timeout t (4.096 us *
 * 2^t, at least 100 ms), retries more sends. */
void
cm_arm(struct cm_id *c, uint8_t t, int retries)
{
	uint64_t ns = 4096ull << (t > 31 ? 31 : t);

	if (ns < 100000000ull)
		ns = 100000000ull;
	c->timeout_ns = ns;
	c->deadline_ns = cm_now_ns() + ns;
	c->retries = retries;
	c->armed = true;
	cm_wake();
}

static int
post_recv(struct cm_dev *d, unsigned int s)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;

	sge.addr = (uintptr_t)(d->buf + s * SLOT_LEN);
	sge.length = SLOT_LEN;
	sge.lkey = d->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = s;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ibv_post_recv(d->qp, &wr, &bad);
}

/* A UD QP on port 1, with Q_Key qkey, through INIT and RTR to RTS (a
 * device's GSI QP, a datagram rsocket's QP). 0, or -1 with errno. */
int
cm_ud_qp_rts(struct ibv_qp *qp, uint32_t qkey)
{
	struct ibv_qp_attr qa;
	int rc;

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	qa.qkey = qkey;
	rc = ibv_modify_qp(qp, &qa,
			   IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				   IBV_QP_QKEY);
	if (rc == 0) {
		qa.qp_state = IBV_QPS_RTR;
		rc = ibv_modify_qp(qp, &qa, IBV_QP_STATE);
	}
	if (rc == 0) {
		qa.qp_state = IBV_QPS_RTS;
		qa.sq_psn = 0;
		rc = ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN);
	}
	if (rc != 0)
		errno = rc;
	return rc != 0 ? -1 : 0;
}

/* The GSI QP of device d: UD QPN 1, INIT -> RTR -> RTS. */
static int
agent_open(struct cm_dev *d, struct ibv_device *dev)
{
	struct ibv_qp_init_attr ia;
	struct ibv_port_attr pa;
	struct dpv_device_progress pr;
	unsigned int s;
	int i;

	d->ctx = ibv_open_device(dev);
	if (d->ctx == NULL)
		return -errno;
	if (ibv_query_port(d->ctx, 1, &pa) != 0)
		return -EIO;
	d->mtu = pa.active_mtu;
	for (i = 0; i < CM_MAX_GIDS && i < pa.gid_tbl_len; i++)
		if (ibv_query_gid(d->ctx, 1, i, &d->gid[i]) != 0)
			break;
	d->ngid = i;
	/* EUI-64 GUID: the interface ID of the link-local GID (index 0) */
	for (i = 8; d->ngid > 0 && i < 16; i++)
		d->guid = d->guid << 8 | d->gid[0].raw[i];
	d->pd = ibv_alloc_pd(d->ctx);
	d->app_pd = ibv_alloc_pd(d->ctx);
	d->ch = ibv_create_comp_channel(d->ctx);
	if (d->pd == NULL || d->app_pd == NULL || d->ch == NULL)
		return -ENOMEM;
	fcntl(d->ch->fd, F_SETFL, fcntl(d->ch->fd, F_GETFL) | O_NONBLOCK);
	d->cq = ibv_create_cq(d->ctx, CM_RECV_SLOTS + CM_SEND_SLOTS, d, d->ch,
			      0);
	d->buf = calloc(CM_RECV_SLOTS + CM_SEND_SLOTS, SLOT_LEN);
	if (d->cq == NULL || d->buf == NULL)
		return -ENOMEM;
	d->mr = ibv_reg_mr(d->pd, d->buf,
			   (CM_RECV_SLOTS + CM_SEND_SLOTS) * SLOT_LEN,
			   IBV_ACCESS_LOCAL_WRITE);
	if (d->mr == NULL)
		return -errno;
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = IBV_QPT_UD;
	ia.send_cq = ia.recv_cq = d->cq;
	ia.cap.max_send_wr = CM_SEND_SLOTS;
	ia.cap.max_recv_wr = CM_RECV_SLOTS;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	d->qp = dpv_gsi_qp_create(d->pd, &ia);
	if (d->qp == NULL)
		return -errno;
	if (cm_ud_qp_rts(d->qp, CM_GSI_QKEY) != 0)
		return -EIO;
	for (s = 0; s < CM_RECV_SLOTS; s++)
		if (post_recv(d, s) != 0)
			return -EIO;
	ibv_req_notify_cq(d->cq, 0);
	d->app_progress = dpv_device_progress_get(d->ctx, &pr) != 0 ||
			  pr.mode == DPV_DEVICE_PROGRESS_APP;
	return 0;
}

/* Drain device d's CQ: received MADs to the state machine, sent slots
 * freed. Under cm.lock. */
static void
agent_poll(struct cm_dev *d)
{
	struct ibv_wc wc[16];
	struct ibv_cq *cq;
	bool rearm = false;
	void *ctx;
	int n, i;

	/* events first, the arm after the poll: an arm over CQEs not yet
	 * polled fires at once (as on ConnectX) */
	while (ibv_get_cq_event(d->ch, &cq, &ctx) == 0) {
		ibv_ack_cq_events(cq, 1);
		rearm = true;
	}
	if (d->app_progress)
		dpv_device_poll(d->ctx, 0);
	while ((n = ibv_poll_cq(d->cq, 16, wc)) > 0) {
		for (i = 0; i < n; i++) {
			unsigned int s = (unsigned int)wc[i].wr_id;

			if (s >= CM_RECV_SLOTS) {
				s -= CM_RECV_SLOTS;
				if (s < CM_SEND_SLOTS && d->send_busy[s]) {
					ibv_destroy_ah(d->send_ah[s]);
					d->send_ah[s] = NULL;
					d->send_busy[s] = false;
				}
				continue;
			}
			if (wc[i].status == IBV_WC_SUCCESS &&
			    wc[i].byte_len >= CM_GRH_LEN) {
				uint8_t *p = d->buf + s * SLOT_LEN;

				cm_recv(d, p, p + CM_GRH_LEN,
					wc[i].byte_len - CM_GRH_LEN);
			}
			if (wc[i].status != IBV_WC_WR_FLUSH_ERR)
				post_recv(d, s);
		}
	}
	if (rearm)
		ibv_req_notify_cq(d->cq, 0);
}

static void *
cm_thread_main(void *arg)
{
	struct pollfd pfd[CM_MAX_DEVS + 1];
	(void)arg;

	for (;;) {
		int i, n = 0, tmo = 1000;
		bool fast = false;
		uint64_t now;
		struct cm_id *c;

		pthread_mutex_lock(&cm.lock);
		now = cm_now_ns();
		for (c = cm.ids; c != NULL; c = c->next) {
			if (c->state == CS_ADDR_QUERY)
				fast = true;
			if (c->armed || c->state == CS_TIMEWAIT) {
				uint64_t dl = c->armed ? c->deadline_ns
						       : c->timewait_ns;
				int64_t ms = ((int64_t)dl - (int64_t)now) /
					     1000000;

				if (ms < tmo)
					tmo = ms < 0 ? 0 : (int)ms + 1;
			}
		}
		pfd[n].fd = cm.wake[0];
		pfd[n++].events = POLLIN;
		for (i = 0; i < cm.ndev; i++) {
			if (cm.dev[i].app_progress)
				fast = true;
			pfd[n].fd = cm.dev[i].ch->fd;
			pfd[n++].events = POLLIN;
		}
		pthread_mutex_unlock(&cm.lock);
		if (fast && tmo > 10)
			tmo = 10;
		if (poll(pfd, (nfds_t)n, tmo) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents & POLLIN) {
			char b[64];

			if (read(cm.wake[0], b, sizeof(b)) < 0)
				CM_LOG("wake read: %s\n", strerror(errno));
		}
		pthread_mutex_lock(&cm.lock);
		if (cm.stopping) {
			pthread_mutex_unlock(&cm.lock);
			break;
		}
		for (i = 0; i < cm.ndev; i++)
			agent_poll(&cm.dev[i]);
		cm_ids_tick();
		pthread_mutex_unlock(&cm.lock);
	}
	return NULL;
}

/* The agent thread, with the application's signals blocked (as the
 * library's other threads: dpv_port_signals_block()): a signal sent to the
 * process goes to an application thread, and one blocked in a verbs call
 * returns EINTR, as with rdma-core. */
static int
agent_thread_start(void)
{
	sigset_t old;
	int rc;

	dpv_port_signals_block(&old);
	rc = pthread_create(&cm.thread, NULL, cm_thread_main, NULL);
	dpv_port_signals_restore(&old);
	return rc;
}

/* Open every device and start the CM thread, once. Under cm.lock. */
int
cm_init(void)
{
	int i, n, rc;

	if (cm.init_done)
		return cm.init_err;
	cm.init_done = true;
	cm.debug = getenv("DPV_RDMACM_DEBUG") != NULL;
	cm.list = ibv_get_device_list(&n);
	if (cm.list == NULL || n == 0) {
		cm.init_err = ENODEV;
		return cm.init_err;
	}
	for (i = 0; i < n && cm.ndev < CM_MAX_DEVS; i++) {
		rc = agent_open(&cm.dev[cm.ndev], cm.list[i]);
		if (rc != 0) {
			CM_LOG("%s: no GSI QP (%s)\n",
			       ibv_get_device_name(cm.list[i]), strerror(-rc));
			continue;
		}
		cm.ndev++;
	}
	if (cm.ndev == 0) {
		cm.init_err = ENODEV;
		return cm.init_err;
	}
	cm.next_comm_id = (uint32_t)(cm_now_ns() ^ (uint64_t)getpid() << 16);
	if (pipe2(cm.wake, O_CLOEXEC | O_NONBLOCK) != 0 ||
	    agent_thread_start() != 0) {
		cm.init_err = EAGAIN;
		return cm.init_err;
	}
	cm.thread_on = true;
	return 0;
}

/*
 * At exit, before libibverbs stops its ports: tell the peers of the
 * connections still up (DREQ, or REJ for a request not answered), wait
 * up to 200 ms for those sends, and park the CM thread.
 */
static void __attribute__((destructor)) cm_fini(void)
{
	uint64_t end = cm_now_ns() + 200000000ull;
	struct cm_id *c;
	int i, s, busy;

	pthread_mutex_lock(&cm.lock);
	for (c = cm.ids; c != NULL; c = c->next) {
		struct cm_msg m = {.attr = 0};

		if (c->destroying || c->dev == NULL)
			continue;
		if (c->state == CS_ESTABLISHED || c->state == CS_REP_SENT) {
			m.attr = CM_ATTR_DREQ;
			m.qpn = c->remote_qpn;
		} else if (c->state == CS_REQ_RCVD &&
			   c->id.qp_type != IBV_QPT_UD) {
			m.attr = CM_ATTR_REJ;
			m.reason = CM_REJ_CONSUMER;
		} else {
			continue;
		}
		cm_send_msg(c, &m, false);
		c->state = CS_DISCONNECTED;
	}
	do {
		busy = 0;
		for (i = 0; i < cm.ndev; i++) {
			agent_poll(&cm.dev[i]);
			for (s = 0; s < CM_SEND_SLOTS; s++)
				busy += cm.dev[i].send_busy[s];
		}
		if (busy)
			usleep(1000);
	} while (busy && cm_now_ns() < end);
	cm.stopping = true;
	pthread_mutex_unlock(&cm.lock);
}
