/* SPDX-License-Identifier: BSD-3-Clause */
/* Devices: port selection and set-up, GID table, queries, RX/TX. */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>

#include <rte_bus_vdev.h>
#include <rte_eth_ring.h>
#include <rte_devargs.h>
#include <rte_alarm.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_string_fns.h>

#include "dpv_port.h"
#include "dpv_port_fault.h"
#include "dpv_roce_gid.h"
#include "port_eal.h"
#include "port_int.h"

#define DEFAULT_DESC	   1024
#define DEFAULT_MBUFS	   8191
#define LOOPBACK_RING_SIZE 2048
#define INJECT_RING_SIZE   1024 /* frames handed over by dpv_port_rx_inject */
#define MEMPOOL_CACHE	   256
/* af_xdp: an mbuf must fit one 4 KiB UMEM chunk (PLATFORM.md) */
#define AF_XDP_MAX_DATAROOM 3840

struct dpv_port {
	unsigned idx;
	char name[16];
	uint16_t ethdev;
	uint16_t nb_q;	/* queues the library uses */
	uint16_t qbase; /* first of them */
	bool loopback;
	/* the fault layer was turned on: bursts go through it (port_fault.c) */
	bool fault_on;
	struct dpv_port_fault *fault;
	/* DPDK 22.11's memif unmaps its rings when the peer leaves without
	 * waiting for bursts in progress: bursts only on a link that is up,
	 * counted for the munmap() of port_memif_guard.c */
	bool link_gated;
	/* link_gated: port_unmap_epoch when a burst last saw the link up
	 * (0: not since the last change; see port_memif_guard.c) */
	uint32_t link_up_epoch;
	bool created; /* vdev made here: rte_vdev_uninit on release */
	bool started; /* started here: stopped on release */
	/* memif client: connects (again) when its server is there */
	bool memif_client;
	bool tx_kick; /* af_xdp: dpv_port_tx_kick() calls an empty burst */
	unsigned down_ticks; /* retry periods with the link down */
	char vdev_name[RTE_DEV_NAME_MAX_LEN];
	struct rte_ring *lo_rings[RTE_PMD_RING_MAX_RX_RINGS];
	struct rte_ring *inject; /* frames an application's RX loop got */
	struct rte_mempool *mp;
	uint8_t mac[6];
	uint32_t mtu;
	bool mtu_beyond_dev; /* carries more than it reports (memif,
			      * af_packet) */
	int socket_id;
	struct dpv_port_conf conf; /* addresses and neighbours */
	uint8_t gids[DPV_PORT_GID_TBL_LEN][16];
	bool gid_valid[DPV_PORT_GID_TBL_LEN];
	struct port_netdev nd; /* the kernel interface, if any */
	struct port_wake wake; /* memif: the peer's wake-up page */
	/* ports whose driver has them: sleeps end on receive interrupts */
	bool intr_want;
	struct port_intr intr;
};

static pthread_mutex_t port_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dpv_port *ports[DPV_PORT_MAX];
static unsigned n_ports; /* read without the lock: atomic accesses */
static bool init_done;
static int init_rc;
static unsigned n_workers;
static unsigned n_shards = 1;
static int progress_mode; /* enum dpv_progress_mode */
static unsigned name_gen; /* keeps vdev/ring/mempool names unique */
static struct dpv_config config;
/* ports EAL probed for us and we configured: closed at exit */
static bool close_at_exit[RTE_MAX_ETHPORTS];

unsigned
dpv_port_gid_table(const uint8_t mac[6], const struct dpv_ip_addr *addrs,
		   unsigned n, uint8_t gids[DPV_PORT_GID_TBL_LEN][16],
		   bool valid[DPV_PORT_GID_TBL_LEN])
{
	unsigned i, j, slot = DPV_PORT_GID_IPV4 + 1, filled = 1;
	int first_v4 = -1;
	uint32_t v4;
	uint8_t g[16];

	memset(valid, 0, sizeof(bool) * DPV_PORT_GID_TBL_LEN);
	dpv_roce_gid_from_mac(gids[DPV_PORT_GID_LINK_LOCAL], mac);
	valid[DPV_PORT_GID_LINK_LOCAL] = true;
	for (i = 0; i < n; i++) {
		if (addrs[i].family == AF_INET) {
			memcpy(&v4, &addrs[i].addr[12], 4);
			dpv_roce_gid_from_ipv4(g, v4);
		} else {
			dpv_roce_gid_from_ipv6(g, addrs[i].addr);
		}
		/* the same GID twice (or fe80:: equal to slot 0): once only */
		for (j = 0; j < DPV_PORT_GID_TBL_LEN; j++)
			if (valid[j] && memcmp(gids[j], g, 16) == 0)
				break;
		if (j < DPV_PORT_GID_TBL_LEN)
			continue;
		if (addrs[i].family == AF_INET && first_v4 < 0) {
			first_v4 = i;
			j = DPV_PORT_GID_IPV4;
		} else if (slot < DPV_PORT_GID_TBL_LEN) {
			j = slot++;
		} else {
			PORT_LOG(WARNING, "GID table full: address %u left out",
				 i);
			continue;
		}
		memcpy(gids[j], g, 16);
		valid[j] = true;
		filled++;
	}
	return filled;
}

/*
 * DPDK 22.11's memif reports a 1,518-byte max frame (and refuses a larger
 * MTU) yet carries larger frames chained over its ring buffers. Chained
 * frames are not safe though: its receive burst can end inside a chain and
 * hand the pieces up as separate frames. So the MTU of a memif port is what
 * fits one buffer (its bsize= devarg, 2,048 bytes by default; the library
 * gives memif vdevs it starts DPV_MEMIF_BSIZE), at most MEMIF_MAX_MTU: a
 * 4096-byte RoCE path MTU (4,096 bytes + 80 of IPv6/UDP/BTH/RETH/ICRC).
 */
#define MEMIF_MAX_MTU 4200
#define MEMIF_DEF_BSIZE 2048
/* af_xdp: frames of up to 3,456 bytes (AF_XDP_MAX_DATAROOM) */
#define AF_XDP_MAX_MTU 3400

/* Whether the port's driver is the one named (memif, af_xdp, af_packet). */
static bool
is_driver(const struct rte_eth_dev_info *di, const char *name)
{
	return di->driver_name != NULL && strstr(di->driver_name, name) != NULL;
}

static bool
is_memif(const struct rte_eth_dev_info *di)
{
	return is_driver(di, "memif");
}

/* Whether the thread sleeps on the port's af_packet sockets, which a
 * frame waiting makes readable (port_intr_attach_sockets()): with
 * DPV_AF_PACKET_WAKE=1 only. An event-driven ping-pong over a veth pair
 * halves its round trip, but ib_write_bw -s 64 fell from 0.27-0.41 to
 * 0.12-0.22 M msg/s in 9 runs of 9 with both ends so (with the sockets
 * only registered and the sleeps timed, 0.15-0.39), cause not found.
 * af_xdp's XDP sockets would do the same, but with both ends of a veth
 * pair sleeping on theirs an RC ping-pong stalled in 4 runs of 5 (the
 * requester's retransmissions never reached the responder's queue):
 * left out. */
static bool
af_packet_wake(const struct rte_eth_dev_info *di)
{
	const char *env = getenv("DPV_AF_PACKET_WAKE");

	return env != NULL && strcmp(env, "1") == 0 &&
	       is_driver(di, "af_packet");
}

/* The value of devarg key ("bsize=", ...) of the port's device, or NULL. */
static const char *
devarg(const struct rte_eth_dev_info *di, const char *key)
{
	const struct rte_devargs *da =
		di->device ? rte_dev_devargs(di->device) : NULL;
	const char *v = da && da->args ? strstr(da->args, key) : NULL;

	return v ? v + strlen(key) : NULL;
}

/* The MTU of the kernel interface a vdev sits on (iface= devarg, in the
 * process's network namespace); 0: none, or not found. */
static uint32_t
iface_mtu(const struct rte_eth_dev_info *di)
{
	const char *i = devarg(di, "iface=");
	struct ifreq ifr = {0};
	size_t n;

	if (i == NULL)
		return 0;
	n = strcspn(i, ",");
	if (n == 0 || n >= sizeof(ifr.ifr_name))
		return 0;
	memcpy(ifr.ifr_name, i, n);
	if (port_if_ioctl(SIOCGIFMTU, &ifr) != 0 || ifr.ifr_mtu < RTE_ETHER_MIN_MTU)
		return 0;
	return (uint32_t)ifr.ifr_mtu;
}

/*
 * af_xdp: DPDK 22.11's PMD starts at a 1,500-byte MTU whatever its
 * interface carries, which gave a 1024 path MTU on a veth of MTU 3400
 * (half the bandwidth of a 2048 one). The MTU of a port with no mtu of its
 * own is its interface's, at most AF_XDP_MAX_MTU; 0: not af_xdp, or not
 * found.
 */
static uint32_t
af_xdp_mtu(const struct rte_eth_dev_info *di)
{
	return is_driver(di, "af_xdp")
		       ? RTE_MIN(iface_mtu(di), (uint32_t)AF_XDP_MAX_MTU)
		       : 0;
}

/*
 * af_packet: a frame's slot in the ring (framesz= devarg, 2,048 bytes by
 * default) also holds the kernel's packet header and address, and the
 * kernel cuts a longer frame short (at a 4096 path MTU, framesz=4224 cut
 * every full frame; 4352 carried them). A frame needs
 * AF_PACKET_FRAME_OVERHEAD bytes of its slot besides its own.
 */
#define AF_PACKET_FRAME_OVERHEAD 128

static bool
is_af_packet(const struct rte_eth_dev_info *di)
{
	return is_driver(di, "af_packet");
}

static uint32_t
af_packet_framesz(const struct rte_eth_dev_info *di)
{
	const char *f = devarg(di, "framesz=");
	uint32_t v = f ? (uint32_t)strtoul(f, NULL, 0) : 0;

	return v != 0 ? v : 2048;
}

/* The largest MTU af_packet's frame slots hold (see above). */
static uint32_t
af_packet_mtu_max(const struct rte_eth_dev_info *di)
{
	uint32_t f = af_packet_framesz(di);

	return f > RTE_ETHER_HDR_LEN + AF_PACKET_FRAME_OVERHEAD
		       ? f - RTE_ETHER_HDR_LEN - AF_PACKET_FRAME_OVERHEAD
		       : 0;
}

/*
 * af_packet with no mtu of its own: its interface's MTU where that is
 * above 1,500 bytes, as far as its frame slots hold such frames; 0
 * otherwise (the PMD's 1,500 then).
 */
static uint32_t
af_packet_mtu(const struct rte_eth_dev_info *di)
{
	uint32_t m;

	if (!is_af_packet(di))
		return 0;
	m = RTE_MIN(iface_mtu(di), af_packet_mtu_max(di));
	return m > RTE_ETHER_MTU ? m : 0;
}

static uint32_t
memif_mtu(const struct rte_eth_dev_info *di)
{
	const char *b = devarg(di, "bsize=");
	uint32_t bsize = b ? (uint32_t)strtoul(b, NULL, 0) : 0;
	uint32_t l2 = RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN + RTE_VLAN_HLEN;

	if (bsize == 0)
		bsize = MEMIF_DEF_BSIZE;
	if (bsize < l2 + RTE_ETHER_MTU)
		return RTE_ETHER_MTU;
	return RTE_MIN(bsize - l2, (uint32_t)MEMIF_MAX_MTU);
}

static uint32_t
frame_len(uint32_t mtu)
{
	return mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN + 2 * RTE_VLAN_HLEN;
}

/* Pool size: enough for every descriptor twice plus the engine's own. */
static uint32_t
pool_size(const struct dpv_port_conf *pc, uint16_t nq, uint16_t rxd,
	  uint16_t txd)
{
	uint32_t need = 2u * nq * (rxd + txd) + 2048, n = DEFAULT_MBUFS;

	if (pc->mbufs != 0)
		return pc->mbufs;
	while (n < need)
		n = n * 2 + 1;
	return n;
}

static int
loopback_create(struct dpv_port *p, uint16_t nq, int socket)
{
	char name[RTE_RING_NAMESIZE];
	unsigned gen = name_gen++, i;
	int id;

	for (i = 0; i < nq; i++) {
		snprintf(name, sizeof(name), "dpv_lo%u_%u", gen, i);
		p->lo_rings[i] =
			rte_ring_create(name, LOOPBACK_RING_SIZE, socket,
					RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (p->lo_rings[i] == NULL) {
			PORT_LOG(ERR, "%s: loopback ring: %s", p->name,
				 rte_strerror(rte_errno));
			return -rte_errno;
		}
	}
	/* TX queue i feeds RX queue i: whatever is sent comes back */
	snprintf(name, sizeof(name), "dpv_lo%u", gen);
	id = rte_eth_from_rings(name, p->lo_rings, nq, p->lo_rings, nq, socket);
	if (id < 0) {
		PORT_LOG(ERR, "%s: loopback port: %s", p->name,
			 rte_strerror(rte_errno));
		return -rte_errno;
	}
	p->ethdev = id;
	p->loopback = true;
	p->created = true;
	snprintf(p->vdev_name, sizeof(p->vdev_name), "net_ring_%s", name);
	return 0;
}

static bool
ethdev_in_use(uint16_t id)
{
	unsigned i;

	for (i = 0; i < DPV_PORT_MAX; i++)
		if (ports[i] != NULL && ports[i]->ethdev == id)
			return true;
	return false;
}

/* Find or create the DPDK port a device's configuration names. */
static int
port_select(struct dpv_port *p, const struct dpv_port_conf *pc, uint16_t nq)
{
	char name[RTE_DEV_NAME_MAX_LEN];
	const char *args;
	uint16_t id;
	size_t nlen;
	int rc;

	switch (pc->kind) {
	case DPV_PORT_KIND_AUTO:
		if (dpv_port_eal_owned()) {
			RTE_ETH_FOREACH_DEV(id)
			{
				if (!ethdev_in_use(id)) {
					p->ethdev = id;
					return 0;
				}
			}
		}
		/* fall through */
	case DPV_PORT_KIND_LOOPBACK:
		return loopback_create(p, nq, rte_socket_id());
	case DPV_PORT_KIND_ID:
		if (!rte_eth_dev_is_valid_port(pc->port_id)) {
			PORT_LOG(ERR,
				 "%s: DPDK port %u does not exist (%u ports "
				 "available)",
				 p->name, pc->port_id,
				 rte_eth_dev_count_avail());
			return -ENODEV;
		}
		p->ethdev = pc->port_id;
		return 0;
	case DPV_PORT_KIND_NAME:
		if (rte_eth_dev_get_port_by_name(pc->dev, &id) != 0) {
			PORT_LOG(ERR,
				 "%s: no DPDK port named '%s' (give it to EAL "
				 "with --vdev=..., or use the key 'vdev')",
				 p->name, pc->dev);
			return -ENODEV;
		}
		p->ethdev = id;
		return 0;
	case DPV_PORT_KIND_VDEV:
		nlen = strcspn(pc->dev, ",");
		if (nlen >= sizeof(name))
			return -EINVAL;
		memcpy(name, pc->dev, nlen);
		name[nlen] = '\0';
		args = pc->dev[nlen] == ',' ? pc->dev + nlen + 1 : "";
		rc = rte_vdev_init(name, args);
		if (rc == -EEXIST) {
			PORT_LOG(NOTICE, "%s: vdev %s exists, using it",
				 p->name, name);
		} else if (rc != 0) {
			PORT_LOG(ERR, "%s: cannot create vdev '%s': %s",
				 p->name, pc->dev, rte_strerror(-rc));
			return rc < 0 ? rc : -ENODEV;
		} else {
			p->created = true;
			strlcpy(p->vdev_name, name, sizeof(p->vdev_name));
			port_eal_memif_note(pc->dev);
		}
		if (rte_eth_dev_get_port_by_name(name, &id) != 0) {
			PORT_LOG(ERR, "%s: vdev %s made no ethdev", p->name,
				 name);
			return -ENODEV;
		}
		p->ethdev = id;
		return 0;
	}
	return -EINVAL;
}

/*
 * Touch every page of a pool's memory once at creation: without
 * hugepages (--no-huge) the data rooms are untouched anonymous memory, and
 * first use of each page would be a page fault on the data path.
 */
static void
pool_prefault(struct rte_mempool *mp, void *opaque,
	      struct rte_mempool_memhdr *memhdr, unsigned mem_idx)
{
	volatile uint8_t *c = memhdr->addr;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	RTE_SET_USED(mp);
	RTE_SET_USED(opaque);
	RTE_SET_USED(mem_idx);
	for (size_t off = 0; off < memhdr->len; off += pg)
		c[off] = c[off];
}

static int
pool_create(struct dpv_port *p, const struct dpv_port_conf *pc,
	    const struct rte_eth_dev_info *di, uint16_t rxd, uint16_t txd)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	uint32_t room, n;

	room = pc->mbuf_size;
	if (room == 0) {
		room = RTE_PKTMBUF_HEADROOM +
		       RTE_ALIGN_CEIL(frame_len(p->mtu), 64);
		if (room < RTE_MBUF_DEFAULT_BUF_SIZE)
			room = RTE_MBUF_DEFAULT_BUF_SIZE;
		if (is_driver(di, "af_xdp") && room > AF_XDP_MAX_DATAROOM)
			room = AF_XDP_MAX_DATAROOM;
		/* af_packet copies a whole frame slot's data into one mbuf
		 * (and refuses a queue whose mbufs are smaller) */
		if (is_af_packet(di))
			room = RTE_MAX(room, RTE_PKTMBUF_HEADROOM +
						     af_packet_framesz(di));
	}
	if (room > UINT16_MAX)
		room = UINT16_MAX;
	n = pool_size(pc, p->nb_q, rxd, txd);
	snprintf(name, sizeof(name), "dpv_mp%u_%u", p->idx, name_gen++);
	p->mp = rte_pktmbuf_pool_create(name, n, MEMPOOL_CACHE, 0, room,
					p->socket_id);
	if (p->mp == NULL && rte_errno == ENOMEM && n > 2047) {
		PORT_LOG(WARNING, "%s: no memory for %u mbufs, trying %u",
			 p->name, n, n / 4);
		n /= 4;
		p->mp = rte_pktmbuf_pool_create(name, n, MEMPOOL_CACHE, 0, room,
						p->socket_id);
	}
	if (p->mp != NULL)
		rte_mempool_mem_iter(p->mp, pool_prefault, NULL);
	if (p->mp == NULL) {
		PORT_LOG(ERR,
			 "%s: mempool of %u mbufs of %u bytes: %s (raise -m in "
			 "the EAL arguments, or lower mbufs/mtu)",
			 p->name, n, room, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

/*
 * Start a memif client port with the driver's own error log quieted: it
 * logs every refused connect as an error ("Failed to connect socket"),
 * while a server that is not there yet is normal here (either process
 * may start first; memif_retry() connects later).
 */
static int
memif_client_start(struct dpv_port *p)
{
	int lt = rte_log_register("pmd.net.memif");
	int lvl = lt >= 0 ? rte_log_get_level(lt) : -1;
	int rc;

	if (lvl > (int)RTE_LOG_CRIT)
		rte_log_set_level(lt, RTE_LOG_CRIT);
	rc = rte_eth_dev_start(p->ethdev);
	if (lvl > (int)RTE_LOG_CRIT)
		rte_log_set_level(lt, (uint32_t)lvl);
	return rc;
}

/*
 * Whether to ask the port's driver for receive interrupts (port_intr.c):
 * not on the loopback port, memif (port_wake.c) or vhost (its interrupt
 * handle changes with each connection), nor with DPV_RX_INTR=0.
 */
static bool
rx_intr_wanted(const struct dpv_port *p, const struct rte_eth_dev_info *di)
{
	const char *env = getenv("DPV_RX_INTR");

	if (env != NULL && strcmp(env, "0") == 0)
		return false;
	return !p->loopback && !is_memif(di) && !is_driver(di, "vhost");
}

static int
port_configure_once(struct dpv_port *p, const struct dpv_port_conf *pc,
		    const struct rte_eth_dev_info *di, bool rxq_intr)
{
	struct rte_eth_conf ec;
	uint16_t rxd = pc->rx_desc ? pc->rx_desc : DEFAULT_DESC;
	uint16_t txd = pc->tx_desc ? pc->tx_desc : DEFAULT_DESC;
	uint16_t q;
	int rc;

	memset(&ec, 0, sizeof(ec));
	ec.rxmode.mtu = p->mtu_beyond_dev ? RTE_ETHER_MTU : p->mtu;
	if (p->nb_q > 1 && di->flow_type_rss_offloads != 0) {
		ec.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		ec.rx_adv_conf.rss_conf.rss_hf =
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP) &
			di->flow_type_rss_offloads;
	}
	if (di->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
		ec.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	ec.intr_conf.rxq = rxq_intr;
	rc = rte_eth_dev_configure(p->ethdev, p->nb_q, p->nb_q, &ec);
	if (rc != 0) {
		PORT_LOG_AT(rxq_intr ? RTE_LOG_INFO : RTE_LOG_ERR,
			    "%s: configuring DPDK port %u (%s) with %u queues, "
			    "MTU %u%s: %s",
			    p->name, p->ethdev, di->driver_name, p->nb_q,
			    p->mtu, rxq_intr ? ", receive interrupts" : "",
			    rte_strerror(-rc));
		return rc;
	}
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(p->ethdev, &rxd, &txd);
	if (rc != 0)
		return rc;
	if (p->mp == NULL) {
		rc = pool_create(p, pc, di, rxd, txd);
		if (rc != 0)
			return rc;
	}
	for (q = 0; q < p->nb_q; q++) {
		rc = rte_eth_rx_queue_setup(p->ethdev, q, rxd, p->socket_id,
					    NULL, p->mp);
		if (rc == 0)
			rc = rte_eth_tx_queue_setup(p->ethdev, q, txd,
						    p->socket_id, NULL);
		if (rc != 0) {
			PORT_LOG(ERR, "%s: queue %u set-up: %s", p->name, q,
				 rte_strerror(-rc));
			return rc;
		}
	}
	if (pc->has_mac && !p->loopback) {
		struct rte_ether_addr ea;

		memcpy(ea.addr_bytes, pc->mac, 6);
		rc = rte_eth_dev_default_mac_addr_set(p->ethdev, &ea);
		if (rc != 0)
			PORT_LOG(
				WARNING,
				"%s: the port does not take MAC from the "
				"configuration (%s); enabling promiscuous mode",
				p->name, rte_strerror(-rc));
	}
	if (pc->promisc || (pc->has_mac && !p->loopback && rc != 0))
		rte_eth_promiscuous_enable(p->ethdev);
	rc = p->memif_client ? memif_client_start(p)
			     : rte_eth_dev_start(p->ethdev);
	if (rc != 0 && p->memif_client) {
		/* the server is not there yet: come up with the link down
		 * and connect when it is, whichever process starts first */
		PORT_LOG(NOTICE,
			 "%s: memif server not there yet; connecting when it "
			 "is (link down until then)",
			 p->name);
		return 0;
	}
	if (rc != 0) {
		PORT_LOG_AT(rxq_intr ? RTE_LOG_INFO : RTE_LOG_ERR,
			    "%s: starting DPDK port %u%s: %s", p->name,
			    p->ethdev,
			    rxq_intr ? " with receive interrupts" : "",
			    rte_strerror(-rc));
		return rc;
	}
	p->started = true;
	return 0;
}

/*
 * Configure and start the port, with receive interrupts where they are
 * wanted (p->intr_want) unless the driver refuses them: then again
 * without.
 */
static int
port_configure(struct dpv_port *p, const struct dpv_port_conf *pc,
	       const struct rte_eth_dev_info *di)
{
	int rc = port_configure_once(p, pc, di, p->intr_want);

	if (rc != 0 && p->intr_want) {
		p->intr_want = false;
		rc = port_configure_once(p, pc, di, false);
	}
	return rc;
}

/*
 * Every MEMIF_RETRY_US in the EAL interrupt thread: a memif client that is
 * not connected (its server was not there, or went away and the link has
 * been down for MEMIF_RESTART_TICKS periods) starts again. No burst runs
 * on a memif port whose link is down (gated_burst), so stopping one
 * touches no ring in use.
 */
#define MEMIF_RETRY_US	    (200 * 1000)
#define MEMIF_RESTART_TICKS 5

static void
memif_retry(void *arg)
{
	struct dpv_port *p = arg;
	struct rte_eth_link l;

	if (p->started) {
		if (rte_eth_link_get_nowait(p->ethdev, &l) == 0 &&
		    l.link_status == RTE_ETH_LINK_UP)
			p->down_ticks = 0;
		else if (++p->down_ticks >= MEMIF_RESTART_TICKS &&
			 rte_eth_dev_stop(p->ethdev) == 0)
			p->started = false;
	}
	if (!p->started && memif_client_start(p) == 0) {
		p->started = true;
		p->down_ticks = 0;
		PORT_LOG(INFO, "%s: memif client connecting", p->name);
	}
	rte_eal_alarm_set(MEMIF_RETRY_US, memif_retry, p);
}

/* Is the port a memif vdev in the client role? */
static bool
memif_is_client(const struct rte_eth_dev_info *di)
{
	const struct rte_devargs *da;

	if (!is_memif(di) || di->device == NULL)
		return false;
	da = rte_dev_devargs(di->device);
	return da != NULL && da->args != NULL &&
	       (strstr(da->args, "role=client") != NULL ||
		strstr(da->args, "role=slave") != NULL);
}

static void
port_release(struct dpv_port *p)
{
	unsigned i;

	if (p->memif_client)
		rte_eal_alarm_cancel(memif_retry, p); /* waits for a run */
	port_wake_detach(&p->wake);
	port_intr_detach(&p->intr);
	if (p->started)
		port_fault_tx_drain(p->fault, p);
	if (p->started && rte_eth_dev_stop(p->ethdev) != 0)
		PORT_LOG(WARNING, "%s: stopping port %u failed", p->name,
			 p->ethdev);
	if (p->created)
		rte_vdev_uninit(p->vdev_name);
	for (i = 0; i < RTE_DIM(p->lo_rings); i++)
		rte_ring_free(p->lo_rings[i]);
	port_fault_free(p->fault, p->name);
	if (p->inject != NULL) {
		struct rte_mbuf *m = NULL;

		while (rte_ring_dequeue(p->inject, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(p->inject);
	}
	port_netdev_close(&p->nd);
	rte_mempool_free(p->mp);
	free(p);
}

/* Control path of the fault layer; port_lock held. */
static int
fault_apply(struct dpv_port *p, const struct dpv_fault_conf *c)
{
	int rc = port_fault_update(&p->fault, c, p->idx, p->nb_q, p->socket_id);

	if (rc == 0 && p->fault != NULL)
		__atomic_store_n(&p->fault_on, true, __ATOMIC_RELEASE);
	return rc;
}

/* Make device number idx from pc on ethdev (or per pc if ethdev < 0). */
static int
port_create(unsigned idx, const struct dpv_port_conf *pc, int ethdev)
{
	struct rte_eth_dev_info di;
	struct dpv_port *p;
	uint16_t nq, mtu16;
	int rc = 0;

	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	p->idx = idx;
	port_netdev_init(&p->nd);
	port_intr_init(&p->intr);
	snprintf(p->name, sizeof(p->name), "dpv%u", idx);
	p->conf = *pc;
	nq = pc->queues ? pc->queues : RTE_MAX(RTE_MAX(n_workers, n_shards), 1u);
	if (nq > RTE_PMD_RING_MAX_RX_RINGS)
		nq = RTE_PMD_RING_MAX_RX_RINGS;
	if (pc->app_configured)
		nq = 1;
	if (ethdev >= 0)
		p->ethdev = ethdev;
	else
		rc = port_select(p, pc, nq);
	if (rc != 0)
		goto fail;
	if (!p->created && ethdev_in_use(p->ethdev)) {
		PORT_LOG(ERR, "%s: DPDK port %u is already used by a device",
			 p->name, p->ethdev);
		rc = -EBUSY;
		goto fail;
	}
	rc = rte_eth_dev_info_get(p->ethdev, &di);
	if (rc != 0)
		goto fail;
	p->link_gated = di.driver_name != NULL &&
			strcmp(di.driver_name, "net_memif") == 0;
	if (p->link_gated) {
		/* binds the driver's munmap() here before its first unmap */
		bool guarded = port_unmap_guarded();

		PORT_LOG_AT(guarded ? RTE_LOG_DEBUG : RTE_LOG_WARNING,
			    "%s: memif unmaps through %s munmap()%s", p->name,
			    guarded ? "the library's" : "libc's",
			    guarded ? ""
				    : ": a peer leaving during a burst may "
				      "crash this process");
	}
	p->socket_id = rte_eth_dev_socket_id(p->ethdev);
	if (p->socket_id < 0)
		p->socket_id = 0;
	if (nq > di.max_rx_queues)
		nq = di.max_rx_queues;
	if (nq > di.max_tx_queues)
		nq = di.max_tx_queues;
	if (nq == 0)
		nq = 1;
	p->nb_q = nq;
	{
		char rname[RTE_RING_NAMESIZE];

		snprintf(rname, sizeof(rname), "dpv_inj%u", name_gen++);
		p->inject = rte_ring_create(rname, INJECT_RING_SIZE,
					    p->socket_id, RING_F_SC_DEQ);
		if (p->inject == NULL) {
			PORT_LOG(ERR, "%s: injection ring: %s", p->name,
				 rte_strerror(rte_errno));
			rc = -rte_errno;
			goto fail;
		}
	}
	p->mtu = pc->mtu;
	if (p->mtu == 0 && is_memif(&di))
		p->mtu = memif_mtu(&di);
	if (p->mtu == 0)
		p->mtu = af_xdp_mtu(&di);
	if (p->mtu == 0)
		p->mtu = af_packet_mtu(&di);
	if (p->mtu == 0)
		p->mtu = rte_eth_dev_get_mtu(p->ethdev, &mtu16) == 0 && mtu16
				 ? mtu16
				 : RTE_ETHER_MTU;
	/* memif and af_packet: DPDK 22.11 reports (and configures) at most a
	 * 1,518-byte frame, yet carries what fits its buffers (memif: bsize;
	 * af_packet: its framesz devarg, which the user sizes with the mtu
	 * or the interface's MTU, drivers/af_packet) */
	p->mtu_beyond_dev = (is_memif(&di) || is_af_packet(&di)) &&
			    p->mtu > RTE_ETHER_MTU &&
			    di.max_rx_pktlen <= RTE_ETHER_MAX_LEN;
	if (p->mtu_beyond_dev && is_af_packet(&di) &&
	    p->mtu > af_packet_mtu_max(&di)) {
		PORT_LOG(ERR,
			 "%s: mtu %u does not fit af_packet's %u-byte frames "
			 "(framesz= of the vdev: at least %u)",
			 p->name, p->mtu, af_packet_framesz(&di),
			 p->mtu + RTE_ETHER_HDR_LEN + AF_PACKET_FRAME_OVERHEAD);
		rc = -EINVAL;
		goto fail;
	}
	p->tx_kick = is_driver(&di, "af_xdp");
	if (pc->app_configured) {
		if (pc->queue_base >= di.nb_rx_queues ||
		    pc->queue_base >= di.nb_tx_queues) {
			PORT_LOG(ERR,
				 "%s: port %u has %u/%u queues configured, "
				 "queue %u asked for",
				 p->name, p->ethdev, di.nb_rx_queues,
				 di.nb_tx_queues, pc->queue_base);
			rc = -EINVAL;
			goto fail;
		}
		p->qbase = pc->queue_base;
		rc = pool_create(p, pc, &di, DEFAULT_DESC, DEFAULT_DESC);
	} else {
		p->memif_client = memif_is_client(&di);
		p->intr_want = rx_intr_wanted(p, &di);
		rc = port_configure(p, pc, &di);
	}
	if (rc != 0)
		goto fail;
	if (p->intr_want && p->started) {
		rc = port_intr_attach(&p->intr, p->ethdev, p->qbase, p->nb_q);
		if (rc == -ENOTSUP && af_packet_wake(&di)) {
			rc = port_intr_attach_sockets(&p->intr, p->ethdev,
						      p->qbase, p->nb_q);
			if (rc == 0)
				PORT_LOG(INFO,
					 "%s: idle sleeps end on frames in "
					 "the driver's sockets",
					 p->name);
			else
				PORT_LOG(INFO,
					 "%s: idle sleeps are timed (the "
					 "driver's sockets: %s)",
					 p->name, strerror(-rc));
		} else if (rc == 0)
			PORT_LOG(INFO,
				 "%s: idle sleeps end on receive interrupts",
				 p->name);
		else if (rc != -ENOTSUP)
			PORT_LOG(INFO, "%s: no receive interrupts (%s)",
				 p->name, strerror(-rc));
		rc = 0;
	}
	if (p->link_gated) {
		const struct rte_devargs *da =
			di.device != NULL ? rte_dev_devargs(di.device) : NULL;

		rc = port_wake_attach(&p->wake, da != NULL ? da->args : NULL,
				      p->memif_client);
		if (rc != 0)
			PORT_LOG(INFO, "%s: no memif wake-up page (%s)",
				 p->name, strerror(-rc));
		rc = 0;
	}
	if (p->memif_client &&
	    rte_eal_alarm_set(MEMIF_RETRY_US, memif_retry, p) != 0)
		PORT_LOG(WARNING, "%s: no memif reconnection (alarm)", p->name);
	if (!p->mtu_beyond_dev && rte_eth_dev_get_mtu(p->ethdev, &mtu16) == 0 &&
	    mtu16 != 0)
		p->mtu = mtu16;
	if (pc->has_mac) {
		memcpy(p->mac, pc->mac, 6);
	} else {
		struct rte_ether_addr ea;

		if (rte_eth_macaddr_get(p->ethdev, &ea) != 0 ||
		    rte_is_zero_ether_addr(&ea)) {
			if (p->loopback) {
				uint8_t lo[6] = {0x02, 0, 0, 0, 0, idx + 1};

				memcpy(ea.addr_bytes, lo, 6);
			} else {
				rte_eth_random_addr(ea.addr_bytes);
				PORT_LOG(WARNING,
					 "%s: port has no MAC, using a random "
					 "one",
					 p->name);
			}
		}
		memcpy(p->mac, ea.addr_bytes, 6);
	}
	if (p->loopback && p->conf.n_addrs == 0) {
		/* a loopback device is this host: 127.0.0.1/8 */
		struct dpv_ip_addr *a = &p->conf.addrs[0];

		memset(a, 0, sizeof(*a));
		a->family = AF_INET;
		a->prefix_len = 8;
		a->addr[10] = a->addr[11] = 0xff;
		a->addr[12] = 127;
		a->addr[15] = 1;
		p->conf.n_addrs = 1;
	}
	dpv_port_gid_table(p->mac, p->conf.addrs, p->conf.n_addrs, p->gids,
			   p->gid_valid);
	if (dpv_fault_conf_active(&pc->fault)) {
		char spec[512];

		rc = fault_apply(p, &pc->fault);
		if (rc != 0)
			goto fail;
		dpv_fault_format(&pc->fault, spec, sizeof(spec));
		PORT_LOG(NOTICE, "%s: fault layer on: %s", p->name, spec);
	}
	/* the kernel interface: asked for by name, or by default when the
	 * library owns EAL, except on memif (its two processes share a
	 * namespace as a rule, whose kernel would then own both ends'
	 * addresses and drop the ARP between them as martian); a failure
	 * leaves the device without one */
	if (pc->netdev == DPV_NETDEV_NAME ||
	    (pc->netdev == DPV_NETDEV_AUTO && !p->loopback && !is_memif(&di) &&
	     ethdev < 0 && dpv_port_eal_owned()))
		port_netdev_open(&p->nd, p->name, &p->conf, p->mac, p->mtu);
	if (dpv_port_eal_owned() && !p->created && !pc->app_configured)
		close_at_exit[p->ethdev] = true;
	ports[idx] = p;
	__atomic_store_n(&n_ports, idx + 1, __ATOMIC_RELEASE);
	PORT_LOG(INFO, "%s: DPDK port %u (%s), MTU %u, %u queue(s)", p->name,
		 p->ethdev, p->loopback ? "loopback" : di.driver_name, p->mtu,
		 p->nb_q);
	return idx;
fail:
	port_release(p);
	return rc < 0 ? rc : -EIO;
}

static void
release_all(void)
{
	unsigned i = __atomic_load_n(&n_ports, __ATOMIC_ACQUIRE);

	__atomic_store_n(&n_ports, 0, __ATOMIC_RELEASE);
	while (i-- > 0) {
		if (ports[i] != NULL)
			port_release(ports[i]);
		ports[i] = NULL;
	}
}

int
dpv_port_init(void)
{
	char err[512];
	bool attached;
	unsigned i;
	int rc;

	port_log_init();
	pthread_mutex_lock(&port_lock);
	if (init_done) {
		rc = init_rc;
		goto out;
	}
	rc = dpv_config_read(&config, err, sizeof(err));
	if (rc == 0)
		rc = port_eal_start(&config);
	if (rc == 0) {
		n_workers = config.workers;
		n_shards = config.shards ? config.shards : 1;
		progress_mode = config.progress;
		/* devices attached by the application replace the config's */
		attached = dpv_port_count() > 0;
		for (i = 0; !attached && i < config.n_ports; i++) {
			rc = port_create(i, &config.port[i], -1);
			if (rc < 0)
				break;
			rc = 0;
		}
		if (rc < 0)
			release_all();
	}
	init_done = true;
	init_rc = rc;
out:
	pthread_mutex_unlock(&port_lock);
	return rc;
}

void
dpv_port_fini(void)
{
	pthread_mutex_lock(&port_lock);
	release_all();
	init_done = false;
	init_rc = 0;
	pthread_mutex_unlock(&port_lock);
}

int
dpv_port_attach(uint16_t ethdev, const struct dpv_port_conf *conf)
{
	struct dpv_port_conf def;
	unsigned idx;
	int rc;

	port_log_init();
	if (rte_lcore_count() == 0)
		return -ENODEV;
	if (!rte_eth_dev_is_valid_port(ethdev))
		return -EINVAL;
	if (conf == NULL) {
		dpv_port_conf_init(&def);
		conf = &def;
	}
	if (conf->n_addrs > DPV_PORT_MAX_ADDRS ||
	    conf->n_neigh > DPV_PORT_MAX_NEIGH)
		return -EINVAL;
	pthread_mutex_lock(&port_lock);
	idx = __atomic_load_n(&n_ports, __ATOMIC_ACQUIRE);
	if (idx >= DPV_PORT_MAX) {
		rc = -ENOSPC;
	} else if (ethdev_in_use(ethdev)) {
		rc = -EBUSY;
	} else {
		rc = port_create(idx, conf, ethdev);
	}
	pthread_mutex_unlock(&port_lock);
	return rc;
}

unsigned
dpv_port_count(void)
{
	return __atomic_load_n(&n_ports, __ATOMIC_ACQUIRE);
}

struct dpv_port *
dpv_port_get(unsigned idx)
{
	if (idx >= dpv_port_count())
		return NULL;
	return ports[idx];
}

struct dpv_port *
dpv_port_by_name(const char *name)
{
	unsigned i, n = dpv_port_count();

	if (name == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (ports[i] != NULL && strcmp(ports[i]->name, name) == 0)
			return ports[i];
	return NULL;
}

int
dpv_port_query(const struct dpv_port *p, struct dpv_port_info *out)
{
	struct rte_eth_link link;

	if (p == NULL || out == NULL)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	strlcpy(out->name, p->name, sizeof(out->name));
	out->ethdev = p->ethdev;
	memcpy(out->mac, p->mac, 6);
	out->mtu = p->mtu;
	out->socket_id = p->socket_id;
	out->personality = p->conf.personality;
	out->rings = p->conf.rings;
	out->part_id = p->conf.part_id ? p->conf.part_id
				       : DPV_MLX5_DEFAULT_PART_ID;
	out->netdev_ifindex = p->nd.ifindex;
	strlcpy(out->netdev, p->nd.name, sizeof(out->netdev));
	memset(&link, 0, sizeof(link));
	if (rte_eth_link_get_nowait(p->ethdev, &link) == 0) {
		out->link_up = link.link_status == RTE_ETH_LINK_UP;
		out->speed_mbps = link.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN
					  ? 0
					  : link.link_speed;
	}
	return 0;
}

int
dpv_port_gid(const struct dpv_port *p, unsigned index, uint8_t gid[16])
{
	if (p == NULL || gid == NULL || index >= DPV_PORT_GID_TBL_LEN)
		return -EINVAL;
	if (!p->gid_valid[index])
		return -ENODATA;
	memcpy(gid, p->gids[index], 16);
	return 0;
}

int
dpv_port_gid_find(const struct dpv_port *p, const uint8_t gid[16])
{
	unsigned i;

	if (p == NULL || gid == NULL)
		return -EINVAL;
	for (i = 0; i < DPV_PORT_GID_TBL_LEN; i++)
		if (p->gid_valid[i] && memcmp(p->gids[i], gid, 16) == 0)
			return i;
	return -ENOENT;
}

int
dpv_port_addr(const struct dpv_port *p, unsigned idx, struct dpv_ip_addr *out)
{
	if (p == NULL || out == NULL)
		return -EINVAL;
	if (idx >= p->conf.n_addrs)
		return -ENOENT;
	*out = p->conf.addrs[idx];
	return 0;
}

int
dpv_port_neigh_lookup(const struct dpv_port *p, const uint8_t ip[16],
		      uint8_t mac[6])
{
	unsigned i;

	if (p == NULL || ip == NULL || mac == NULL)
		return -EINVAL;
	for (i = 0; i < p->conf.n_neigh; i++) {
		if (memcmp(p->conf.neigh[i].ip, ip, 16) == 0) {
			memcpy(mac, p->conf.neigh[i].mac, 6);
			return 0;
		}
	}
	if (p->loopback) {
		memcpy(mac, p->mac, 6);
		return 0;
	}
	return -ENOENT;
}

bool
dpv_port_is_loopback(const struct dpv_port *p)
{
	return p != NULL && p->loopback;
}

unsigned
dpv_port_index(const struct dpv_port *p)
{
	return p->idx;
}

uint16_t
dpv_port_queues(const struct dpv_port *p)
{
	return p->nb_q;
}

uint16_t
dpv_port_queue_base(const struct dpv_port *p)
{
	return p->qbase;
}

unsigned
dpv_port_workers(void)
{
	return n_workers;
}

unsigned
dpv_port_shards(void)
{
	return n_shards;
}

int
dpv_port_progress(void)
{
	return progress_mode;
}

/*
 * A burst on a memif port: only on a link that is up, and inside
 * port_burst_begin/end so that the driver's munmap() of the rings (when
 * the peer goes away) waits for it (port_memif_guard.c).
 */
static __rte_always_inline uint16_t
gated_burst(struct dpv_port *p, uint16_t queue, struct rte_mbuf **pkts,
	    uint16_t n, bool tx)
{
	struct rte_eth_link l;
	struct port_burst_slot *s;
	uint32_t epoch;
	uint16_t r = 0;

	s = port_burst_begin();
	/* read after the flag is raised (see port_burst_begin) */
	epoch = __atomic_load_n(&port_unmap_epoch, __ATOMIC_RELAXED);
	if (__atomic_load_n(&p->link_up_epoch, __ATOMIC_RELAXED) != epoch) {
		/* an unmap since the link was last seen up (or never seen
		 * up): look at it */
		if (rte_eth_link_get_nowait(p->ethdev, &l) != 0 ||
		    l.link_status != RTE_ETH_LINK_UP)
			goto out;
		/* remembered only if unmaps move the epoch (else every
		 * burst looks at the link) */
		if (port_unmap_guarded())
			__atomic_store_n(&p->link_up_epoch, epoch,
					 __ATOMIC_RELAXED);
	}
	r = tx ? rte_eth_tx_burst(p->ethdev, p->qbase + queue, pkts, n)
	       : rte_eth_rx_burst(p->ethdev, p->qbase + queue, pkts, n);
out:
	port_burst_end(s);
	return r;
}

static __rte_always_inline uint16_t
rx_burst(struct dpv_port *p, uint16_t queue, struct rte_mbuf **pkts,
	 uint16_t n)
{
	uint16_t got = 0;

	/* frames the application received for us come first */
	if (unlikely(!rte_ring_empty(p->inject)))
		got = (uint16_t)rte_ring_dequeue_burst(p->inject, (void **)pkts,
						       n, NULL);
	if (got < n && likely(!p->link_gated))
		got += rte_eth_rx_burst(p->ethdev, p->qbase + queue, pkts + got,
					n - got);
	else if (got < n)
		got += gated_burst(p, queue, pkts + got, n - got, false);
	return got;
}

uint16_t
port_rx_burst(struct dpv_port *p, uint16_t queue, struct rte_mbuf **pkts,
	      uint16_t n)
{
	return rx_burst(p, queue, pkts, n);
}

uint16_t
dpv_port_rx(struct dpv_port *p, uint16_t queue, struct rte_mbuf **pkts,
	    uint16_t n)
{
	if (unlikely(queue >= p->nb_q))
		return 0;
	if (unlikely(__atomic_load_n(&p->fault_on, __ATOMIC_ACQUIRE)))
		return port_fault_rx(p->fault, p, queue, pkts, n);
	return rx_burst(p, queue, pkts, n);
}

int
dpv_port_rx_inject(struct dpv_port *p, struct rte_mbuf **pkts, uint16_t n)
{
	if (p == NULL || (pkts == NULL && n != 0))
		return -EINVAL;
	return (int)rte_ring_enqueue_burst(p->inject, (void **)pkts, n, NULL);
}

static __rte_always_inline uint16_t
tx_burst(struct dpv_port *p, uint16_t queue, struct rte_mbuf **pkts,
	 uint16_t n)
{
	uint16_t r;

	if (likely(!p->link_gated))
		return rte_eth_tx_burst(p->ethdev, p->qbase + queue, pkts, n);
	r = gated_burst(p, queue, pkts, n, true);
	if (r != 0)
		port_wake_peer(&p->wake);
	return r;
}

/*
 * A progress thread's sleep that a frame ends: on the port's receive
 * interrupts (port_intr.c), or on a memif connection's wake-up page
 * (port_wake.c); a port has one at most.
 */
static bool
intr_on(const struct dpv_port *p)
{
	return p->intr.epfd >= 0;
}

bool
dpv_port_wake_sleep_begin(struct dpv_port *p)
{
	if (p == NULL)
		return false;
	if (intr_on(p))
		return port_intr_sleep_begin(&p->intr);
	return p->wake.pg != NULL && port_wake_sleep_begin(&p->wake);
}

void
dpv_port_wake_sleep(struct dpv_port *p, unsigned int us)
{
	if (intr_on(p))
		port_intr_sleep(&p->intr, us);
	else
		port_wake_sleep(&p->wake, us);
}

void
dpv_port_wake_sleep_end(struct dpv_port *p)
{
	if (intr_on(p))
		port_intr_sleep_end(&p->intr);
	else
		port_wake_sleep_end(&p->wake);
}

void
dpv_port_wake_self(struct dpv_port *p)
{
	if (p == NULL)
		return;
	if (intr_on(p))
		port_intr_wake(&p->intr);
	else if (p->wake.pg != NULL)
		port_wake_self(&p->wake);
}

void
dpv_port_wake_stats(struct dpv_port *p, uint64_t *sleeps, uint64_t *taken,
		    uint64_t *sent)
{
	*sleeps = *taken = *sent = 0;
	if (p == NULL)
		return;
	if (intr_on(p)) {
		*sleeps = p->intr.sleeps;
		*taken = __atomic_load_n(&p->intr.taken, __ATOMIC_RELAXED);
	} else if (p->wake.pg != NULL) {
		*sleeps = p->wake.sleeps;
		*taken =
			__atomic_load_n(&p->wake.wakes_taken, __ATOMIC_RELAXED);
		*sent = __atomic_load_n(&p->wake.wakes_sent, __ATOMIC_RELAXED);
	}
}

uint16_t
port_tx_burst(struct dpv_port *p, uint16_t queue, struct rte_mbuf **pkts,
	      uint16_t n)
{
	return tx_burst(p, queue, pkts, n);
}

uint16_t
dpv_port_tx(struct dpv_port *p, uint16_t queue, struct rte_mbuf **pkts,
	    uint16_t n)
{
	if (unlikely(queue >= p->nb_q))
		return 0;
	if (unlikely(__atomic_load_n(&p->fault_on, __ATOMIC_ACQUIRE)))
		return port_fault_tx(p->fault, p, queue, pkts, n);
	return tx_burst(p, queue, pkts, n);
}

bool
dpv_port_tx_kicks(const struct dpv_port *p)
{
	return p->tx_kick;
}

void
dpv_port_tx_kick(struct dpv_port *p, uint16_t queue)
{
	if (unlikely(p->tx_kick) && queue < p->nb_q)
		tx_burst(p, queue, NULL, 0);
}

int
dpv_port_fault_set(struct dpv_port *p, const struct dpv_fault_conf *c)
{
	int rc;

	if (p == NULL)
		return -EINVAL;
	pthread_mutex_lock(&port_lock);
	rc = fault_apply(p, c);
	pthread_mutex_unlock(&port_lock);
	return rc;
}

int
dpv_port_fault_get(const struct dpv_port *p, struct dpv_fault_conf *c)
{
	if (p == NULL || c == NULL)
		return -EINVAL;
	port_fault_get(__atomic_load_n(&p->fault, __ATOMIC_ACQUIRE), c);
	return 0;
}

int
dpv_port_fault_stats_get(const struct dpv_port *p, struct dpv_fault_stats *st)
{
	if (p == NULL || st == NULL)
		return -EINVAL;
	port_fault_stats(__atomic_load_n(&p->fault, __ATOMIC_ACQUIRE), st);
	return 0;
}

int
dpv_port_netdev_put(struct dpv_port *p, const struct rte_mbuf *m)
{
	if (p->nd.fd < 0)
		return -ENODEV;
	return port_netdev_put(&p->nd, m);
}

uint16_t
dpv_port_netdev_get(struct dpv_port *p, struct rte_mempool *mp,
		    struct rte_mbuf **pkts, uint16_t n)
{
	if (p->nd.fd < 0)
		return 0;
	return port_netdev_get(&p->nd, mp, pkts, n);
}

struct rte_mempool *
dpv_port_mempool(struct dpv_port *p)
{
	return p->mp;
}

/* Stop and close every port this library brought up. */
static void
port_shutdown(void)
{
	unsigned i;

	dpv_port_fini();
	for (i = 0; i < RTE_MAX_ETHPORTS; i++) {
		if (close_at_exit[i] && rte_eth_dev_is_valid_port(i))
			rte_eth_dev_close(i); /* stopped by dpv_port_fini */
	}
}

/* port_shutdown at exit: who runs it (EXIT_*), in exit_state */
enum { EXIT_IDLE, EXIT_IN_ALARM, EXIT_IN_MAIN, EXIT_DONE };
static int exit_state;

static void
port_shutdown_alarm(void *arg __rte_unused)
{
	int idle = EXIT_IDLE;

	if (!__atomic_compare_exchange_n(&exit_state, &idle, EXIT_IN_ALARM,
					 false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return; /* the exiting thread gave up waiting and did it */
	port_shutdown();
	__atomic_store_n(&exit_state, EXIT_DONE, __ATOMIC_RELEASE);
}

/* Wait up to ms for the state to leave 'from'; true if it did. */
static bool
exit_wait(int from, unsigned ms)
{
	unsigned n;

	for (n = 0; n < ms * 10; n++) {
		if (__atomic_load_n(&exit_state, __ATOMIC_ACQUIRE) != from)
			return true;
		rte_delay_us_sleep(100);
	}
	return false;
}

/*
 * Runs after plain destructors (the engine's), before DPDK's own.
 *
 * The ports are stopped and closed on the EAL interrupt thread, through an
 * alarm, not on the exiting thread: that thread serves memif's control
 * channel, and a peer's DISCONNECT arriving while the exiting thread tore
 * the same device down ran memif's region teardown twice at once (double
 * unmap and free, a SIGSEGV after the program's last output). On the
 * interrupt thread the two are serialised. If the thread does not take the
 * alarm within two seconds (an exit from inside an EAL callback, a wedged
 * handler) the exiting thread does it itself, as before.
 */
__attribute__((destructor(110))) static void
port_at_exit(void)
{
	int idle = EXIT_IDLE;

	if (!dpv_port_eal_owned())
		return; /* embedded, never started, or a forked child */
	if (rte_eal_alarm_set(1, port_shutdown_alarm, NULL) != 0 ||
	    !exit_wait(EXIT_IDLE, 2000)) {
		if (__atomic_compare_exchange_n(&exit_state, &idle,
						EXIT_IN_MAIN, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			rte_eal_alarm_cancel(port_shutdown_alarm, NULL);
			port_shutdown();
			__atomic_store_n(&exit_state, EXIT_DONE,
					 __ATOMIC_RELEASE);
		}
	}
	/* taken by the alarm: bounded wait for it to finish */
	if (!exit_wait(EXIT_IN_ALARM, 5000))
		PORT_LOG(WARNING, "port shutdown at exit did not finish");
	port_eal_at_exit();
}
