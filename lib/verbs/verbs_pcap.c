/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Traffic capture: DPV_PCAP=<file> writes every frame a device's engine
 * receives and transmits on its port queue to a pcapng file (rte_pcapng),
 * through ethdev RX/TX callbacks, so neither the engine nor the port
 * changes. "%p" in the name is replaced by the process id. Only in
 * standalone mode (the library started EAL); the file is complete after
 * every written batch and closed at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pcapng.h>

#include "dpv_port.h"
#include "verbs_int.h"
#include "verbs_ops.h"

#define CAP_SNAPLEN 16384 /* more than the largest frame of any port */
#define CAP_MBUFS 1023
#define CAP_BATCH 32

static pthread_mutex_t cap_lock = PTHREAD_MUTEX_INITIALIZER;
static rte_pcapng_t *cap;
static struct rte_mempool *cap_mp;
static bool cap_tried;

static void
cap_write(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
	  enum rte_pcapng_direction dir)
{
	struct rte_mbuf *c[CAP_BATCH];
	uint64_t ts = rte_get_tsc_cycles();
	unsigned int k = 0;

	pthread_mutex_lock(&cap_lock);
	if (cap == NULL)
		goto out;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = rte_pcapng_copy(port, queue, pkts[i],
						     cap_mp, UINT32_MAX, ts,
						     dir);

		if (m == NULL)
			continue; /* pool empty: the frame is not recorded */
		c[k++] = m;
		if (k == CAP_BATCH || i + 1 == n) {
			if (rte_pcapng_write_packets(cap, c, k) < 0)
				VERBS_LOG(WARNING, "DPV_PCAP: write failed");
			rte_pktmbuf_free_bulk(c, k);
			k = 0;
		}
	}
	if (k != 0) {
		rte_pcapng_write_packets(cap, c, k);
		rte_pktmbuf_free_bulk(c, k);
	}
out:
	pthread_mutex_unlock(&cap_lock);
}

static uint16_t
cap_rx(uint16_t port, uint16_t queue, struct rte_mbuf *pkts[], uint16_t n,
       uint16_t max, void *arg)
{
	RTE_SET_USED(max);
	RTE_SET_USED(arg);
	if (n != 0)
		cap_write(port, queue, pkts, n, RTE_PCAPNG_DIRECTION_IN);
	return n;
}

static uint16_t
cap_tx(uint16_t port, uint16_t queue, struct rte_mbuf *pkts[], uint16_t n,
       void *arg)
{
	RTE_SET_USED(arg);
	if (n != 0)
		cap_write(port, queue, pkts, n, RTE_PCAPNG_DIRECTION_OUT);
	return n;
}

/* Open the file once per process. Called with cap_lock held. */
static int
cap_open(const char *spec)
{
	char path[4096];
	size_t o = 0;
	int fd;

	for (const char *s = spec; *s && o + 16 < sizeof(path); s++) {
		if (s[0] == '%' && s[1] == 'p') {
			o += snprintf(path + o, sizeof(path) - o, "%d",
				      (int)getpid());
			s++;
		} else {
			path[o++] = *s;
		}
	}
	path[o] = '\0';
	cap_mp = rte_pktmbuf_pool_create("dpv_pcap", CAP_MBUFS, 0, 0,
					 rte_pcapng_mbuf_size(CAP_SNAPLEN),
					 SOCKET_ID_ANY);
	if (cap_mp == NULL) {
		VERBS_LOG(ERR, "DPV_PCAP: no mbuf pool: %s",
			  rte_strerror(rte_errno));
		return ENOMEM;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		int err = errno;

		VERBS_LOG(ERR, "DPV_PCAP: %s: %s", path, strerror(err));
		rte_mempool_free(cap_mp);
		cap_mp = NULL;
		return err;
	}
	cap = rte_pcapng_fdopen(fd, NULL, NULL, "dpverbs", NULL);
	if (cap == NULL) {
		VERBS_LOG(ERR, "DPV_PCAP: %s: cannot start pcapng", path);
		close(fd);
		rte_mempool_free(cap_mp);
		cap_mp = NULL;
		return EIO;
	}
	VERBS_LOG(INFO, "DPV_PCAP: capturing to %s", path);
	return 0;
}

int
dpv_verbs_pcap_attach(struct dpv_device *dev)
{
	const char *spec = getenv("DPV_PCAP");
	struct dpv_port_info info;
	uint16_t q;
	int rc = 0;

	if (spec == NULL || *spec == '\0' || dev->port == NULL)
		return 0;
	if (dpv_port_query(dev->port, &info) != 0)
		return EINVAL;
	pthread_mutex_lock(&cap_lock);
	if (!cap_tried) {
		cap_tried = true;
		rc = cap_open(spec);
	} else if (cap == NULL) {
		rc = EIO;
	}
	pthread_mutex_unlock(&cap_lock);
	if (rc != 0)
		return rc;
	/* the engine polls the first queue of its port */
	q = dpv_port_queue_base(dev->port);
	if (rte_eth_add_rx_callback(info.ethdev, q, cap_rx, NULL) == NULL ||
	    rte_eth_add_tx_callback(info.ethdev, q, cap_tx, NULL) == NULL) {
		VERBS_LOG(ERR, "DPV_PCAP: %s: no ethdev callback: %s",
			  dev->vdev.device.name, rte_strerror(rte_errno));
		return ENOTSUP;
	}
	return 0;
}

void
dpv_verbs_pcap_close(void)
{
	pthread_mutex_lock(&cap_lock);
	if (cap != NULL) {
		rte_pcapng_close(cap);
		cap = NULL;
	}
	pthread_mutex_unlock(&cap_lock);
}
