/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_PORT_H
#define DPV_PORT_H

/**
 * @file
 * Devices on DPDK ports: configuration, EAL bring-up, port set-up, the
 * GID table, and the RX/TX wrappers the engine uses.
 *
 * A dpverbs device (dpv0, dpv1, ...) is one DPDK ethdev plus its
 * addresses, static neighbours, one mempool and its RX/TX queues. Devices
 * come into being in one of two ways:
 *
 * - Standalone: dpv_port_init() (called by the first ibv_get_device_list())
 *   reads the configuration (dpv_port_conf.h: file, DPV_EAL, DPV_IP),
 *   starts EAL unless the application already did, creates or attaches
 *   the configured ports and starts them. With no configuration there is
 *   one device on an in-process loopback port (whatever it transmits it
 *   receives).
 * - Embedded: an application that owns EAL hands one of its ports to the
 *   stack with dpv_port_attach(). It calls dpv_port_fini() before its own
 *   rte_eal_cleanup().
 *
 * Control functions (init, attach, fini) are serialised by a lock and may
 * be called from any thread. Query functions read data that does not
 * change while a device exists. dpv_port_rx() and dpv_port_tx() follow
 * the ethdev rule: one thread per queue at a time.
 *
 * When the library started EAL itself, a destructor stops and closes the
 * ports at process exit and removes EAL's runtime directory; it does not
 * call rte_eal_cleanup(), which from a destructor races EAL's interrupt
 * thread (the kernel reclaims EAL's memory and threads). In a forked
 * child it does nothing. Log type: dpv.port.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "dpv_port_conf.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;
struct rte_mempool;

/** A device: opaque, owned by the library, valid until dpv_port_fini(). */
struct dpv_port;

/** Number of GID table entries of every device. */
#define DPV_PORT_GID_TBL_LEN 16

/** GID table slot of the link-local GID made from the MAC. */
#define DPV_PORT_GID_LINK_LOCAL 0
/** GID table slot of the first configured IPv4 address (IPv4-mapped). */
#define DPV_PORT_GID_IPV4 1

/** What ibv_query_port and ibv_query_device need to know about a device. */
struct dpv_port_info {
	char name[16];	     /**< "dpv0", "dpv1", ... */
	uint16_t ethdev;     /**< DPDK port id */
	uint8_t mac[6];	     /**< the device's MAC (source of its frames) */
	uint32_t mtu;	     /**< L3 MTU of the DPDK port (e.g. 1500, 9000) */
	bool link_up;	     /**< link state now (not cached) */
	uint32_t speed_mbps; /**< link speed, 0 if unknown */
	int socket_id;	     /**< NUMA socket of the port (0 if unknown) */
	int personality;     /**< enum dpv_personality (key "personality") */
	uint16_t part_id;    /**< vendor_part_id under DPV_PERSONALITY_MLX5 */
	/** Name of the device's kernel interface ("" if it has none) */
	char netdev[16];
	int netdev_ifindex; /**< its interface index, 0 if none */
	int rings;	     /**< enum dpv_rings (key "rings") */
};

/**
 * Set up the devices of this process, once. Idempotent: later calls
 * return the first call's result without doing anything.
 *
 * Reads the configuration (dpv_port_conf_read()), starts EAL with the
 * configured arguments unless it is already running (then the process is
 * in embedded mode and the application keeps EAL), creates or attaches
 * every configured port, configures its queues and mempool and starts it.
 * When the application attached devices with dpv_port_attach() before,
 * those are kept and the configuration's device sections are not used.
 *
 * All or nothing: when one device cannot be set up, the others are
 * released again.
 *
 * @return
 *   0 on success (at least one device exists); -EINVAL bad configuration
 *   (file, DPV_EAL, DPV_IP); -ENOENT DPV_CONF names a missing file;
 *   -ENOMEM no hugepages without --no-huge, or no memory for a mempool;
 *   -ENODEV a configured port does not exist; or another -errno from EAL
 *   or ethdev. A message naming the cause is logged (type dpv.port) in
 *   every failure case. The result stays until dpv_port_fini(); a failed
 *   rte_eal_init() cannot be retried in the same process at all.
 */
int dpv_port_init(void);

/**
 * Stop and release every device (ports the library created are removed,
 * the others stopped). EAL stays up, so dpv_port_init() may be called
 * again; when the library started EAL its ports are also closed at
 * process exit. Embedded applications call this before their own
 * rte_eal_cleanup().
 */
void dpv_port_fini(void);

/**
 * Create a device on a DPDK port the application owns (embedded mode).
 * EAL must be running. The port gets queues, a mempool and is started
 * unless conf->app_configured is set (then it is used as the application
 * configured and started it; see struct dpv_port_conf).
 *
 * @param ethdev
 *   DPDK port id.
 * @param conf
 *   Device settings (addresses, MTU, neighbours...); NULL for defaults
 *   (dpv_port_conf_init()). conf->kind and conf->dev are ignored.
 * @return
 *   The new device's index (>= 0; its name is "dpv<index>") or -EINVAL
 *   (bad port id, bad conf), -ENODEV (EAL not running), -ENOSPC
 *   (DPV_PORT_MAX devices exist), -EBUSY (port already used by a
 *   device), -ENOMEM, or another -errno from ethdev set-up.
 */
int dpv_port_attach(uint16_t ethdev, const struct dpv_port_conf *conf);

/** @return the number of devices (0 before dpv_port_init()). */
unsigned dpv_port_count(void);

/**
 * @param idx
 *   Device index, 0 .. dpv_port_count() - 1.
 * @return
 *   The device, or NULL if idx is out of range.
 */
struct dpv_port *dpv_port_get(unsigned idx);

/**
 * Find a device by name.
 *
 * @param name
 *   Its name, e.g. "dpv1".
 * @return
 *   The device, or NULL if there is none with that name (or name is NULL).
 */
struct dpv_port *dpv_port_by_name(const char *name);

/**
 * Read a device's attributes; the link state is read now (no wait).
 *
 * @param p
 *   Device.
 * @param out
 *   Filled on success.
 * @return
 *   0, or -EINVAL if p or out is NULL.
 */
int dpv_port_query(const struct dpv_port *p, struct dpv_port_info *out);

/**
 * Read one GID table entry. All entries are RoCE v2 GIDs. Slot 0: the
 * link-local GID from the MAC; slot 1: the IPv4-mapped GID of the first
 * configured IPv4 address; slots 2...: the other configured addresses in
 * configuration order (further IPv4 addresses mapped, IPv6 as they are).
 *
 * @param p
 *   Device.
 * @param index
 *   Slot, 0 .. DPV_PORT_GID_TBL_LEN - 1.
 * @param gid
 *   Output, 16 bytes (network order), written only on success.
 * @return
 *   0; -EINVAL if p or gid is NULL or index >= DPV_PORT_GID_TBL_LEN;
 *   -ENODATA if the slot is empty (e.g. slot 1 without an IPv4 address).
 */
int dpv_port_gid(const struct dpv_port *p, unsigned index, uint8_t gid[16]);

/**
 * Find the slot of a GID in a device's table.
 *
 * @param p
 *   Device.
 * @param gid
 *   The GID, 16 bytes (network order).
 * @return
 *   The slot index (>= 0); -ENOENT if absent; -EINVAL if p or gid is NULL.
 */
int dpv_port_gid_find(const struct dpv_port *p, const uint8_t gid[16]);

/**
 * Build a GID table from a MAC and a list of addresses, as dpv_port_gid()
 * describes (pure function; what devices use internally).
 *
 * @param mac
 *   Ethernet address.
 * @param addrs
 *   Addresses in configuration order.
 * @param n
 *   Number of addresses.
 * @param gids
 *   Output table.
 * @param valid
 *   Output: which slots are filled.
 * @return
 *   The number of filled slots. Addresses that do not fit are left out
 *   (a warning is logged).
 */
unsigned dpv_port_gid_table(const uint8_t mac[6],
			    const struct dpv_ip_addr *addrs, unsigned n,
			    uint8_t gids[DPV_PORT_GID_TBL_LEN][16],
			    bool valid[DPV_PORT_GID_TBL_LEN]);

/**
 * Read a device's configured address.
 *
 * @param p
 *   Device.
 * @param idx
 *   Index in configuration order (127.0.0.1/8 is address 0 of a loopback
 *   device configured without one).
 * @param out
 *   Filled on success.
 * @return
 *   0; -EINVAL if p or out is NULL; -ENOENT if idx >= the number of
 *   addresses.
 */
int dpv_port_addr(const struct dpv_port *p, unsigned idx,
		  struct dpv_ip_addr *out);

/**
 * Look up a static neighbour (configuration key "neigh").
 *
 * @param p
 *   Device.
 * @param ip
 *   IPv6 address, or an IPv4 address in IPv4-mapped form (::ffff:a.b.c.d),
 *   i.e. the same 16 bytes as a RoCE v2 GID.
 * @param mac
 *   Output, written on success.
 * @return
 *   0, -ENOENT if not configured, -EINVAL on NULL. On a loopback device
 *   every address resolves to the device's own MAC.
 */
int dpv_port_neigh_lookup(const struct dpv_port *p, const uint8_t ip[16],
			  uint8_t mac[6]);

/**
 * Whether a device is an in-process loopback port (port = loopback, or
 * auto without a probed port).
 *
 * @param p
 *   Device (NULL: false).
 * @return
 *   true for a loopback port, false otherwise.
 */
bool dpv_port_is_loopback(const struct dpv_port *p);

/**
 * A device's index.
 *
 * @param p
 *   Device (not NULL).
 * @return
 *   Its index: its name is "dpv<index>", dpv_port_get(index) returns it.
 */
unsigned dpv_port_index(const struct dpv_port *p);

/**
 * How many queues the library uses on a device.
 *
 * @param p
 *   Device (not NULL).
 * @return
 *   The number of RX queues (= TX queues), 1 for an application-configured
 *   port.
 */
uint16_t dpv_port_queues(const struct dpv_port *p);

/**
 * The first ethdev queue the library uses on a device: queue q of
 * dpv_port_rx() / dpv_port_tx() is ethdev queue base + q.
 *
 * @param p
 *   Device (not NULL).
 * @return
 *   0 normally; the configured queue_base for an application-configured
 *   port (dpv_port_conf::app_configured).
 */
uint16_t dpv_port_queue_base(const struct dpv_port *p);

/**
 * @return the configured number of worker lcores (0 = application-driven
 *   progress); valid after dpv_port_init().
 */
unsigned dpv_port_workers(void);

/**
 * @return the configured number of engine shards per device ([dpverbs]
 *   shards, 1 by default; a device gets as many as its port has queues,
 *   see dpv_port_queues()); valid after dpv_port_init().
 */
unsigned dpv_port_shards(void);

/**
 * @return the configured progress mode ([dpverbs] progress, enum
 *   dpv_progress_mode; DPV_PROGRESS_AUTO without one); valid after
 *   dpv_port_init().
 */
int dpv_port_progress(void);

/** @return true if this library started EAL (standalone mode). */
bool dpv_port_eal_owned(void);

/**
 * Before a progress thread sleeps: make a frame that arrives end the
 * sleep, then look at the receive queues once more (a frame that came
 * before this call may not have been seen). On a port with receive
 * interrupts it arms them; on memif it tells the peer (a dpverbs process
 * that shares the connection's wake-up page), at the cost of a
 * membarrier().
 *
 * @param p
 *   Device (NULL: false).
 * @return
 *   true if a frame can wake this side: then dpv_port_wake_sleep() and
 *   dpv_port_wake_sleep_end() follow; false: sleep without.
 */
bool dpv_port_wake_sleep_begin(struct dpv_port *p);

/**
 * Sleep up to @p us microseconds, or until a frame arrives (or
 * dpv_port_wake_self()).
 *
 * @param p
 *   Device, after dpv_port_wake_sleep_begin() answered true.
 * @param us
 *   The longest sleep.
 */
void dpv_port_wake_sleep(struct dpv_port *p, unsigned int us);

/**
 * The sleep is over (or was not taken): frames no longer wake this side.
 *
 * @param p
 *   Device, after dpv_port_wake_sleep_begin() answered true.
 */
void dpv_port_wake_sleep_end(struct dpv_port *p);

/**
 * End a sleep of dpv_port_wake_sleep() from this process (the
 * application blocks in a verbs call). Nothing if none is going on.
 *
 * @param p
 *   Device (NULL: nothing).
 */
void dpv_port_wake_self(struct dpv_port *p);

/**
 * The device's wake-up counters.
 *
 * @param p
 *   Device.
 * @param sleeps
 *   Sleeps a frame could end.
 * @param taken
 *   Of those, the ones a frame ended.
 * @param sent
 *   Wake-ups sent to the memif peer (0 on other ports).
 */
void dpv_port_wake_stats(struct dpv_port *p, uint64_t *sleeps, uint64_t *taken,
			 uint64_t *sent);

/**
 * The signals an application handles that the library's own threads must
 * never take: all but those a fault raises in the faulting thread
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS).
 *
 * @param s
 *   Filled with that set.
 */
void dpv_port_app_sigset(sigset_t *s);

/**
 * Block the signals of dpv_port_app_sigset() in the calling thread, so
 * that a thread it creates before dpv_port_signals_restore() inherits
 * the mask and a signal sent to the process goes to one of the
 * application's threads (one blocked in a verbs call then returns EINTR
 * as with rdma-core). The library does so around rte_eal_init() (EAL's
 * threads) and when it creates its own threads.
 *
 * @param old
 *   Receives the thread's mask before.
 */
void dpv_port_signals_block(sigset_t *old);

/**
 * Restore the mask dpv_port_signals_block() saved.
 *
 * @param old
 *   That mask.
 */
void dpv_port_signals_restore(const sigset_t *old);

/**
 * Receive frames (rte_eth_rx_burst on the device's port).
 *
 * @param p
 *   Device.
 * @param queue
 *   Queue, 0 .. dpv_port_queues() - 1 (relative to dpv_port_queue_base()).
 * @param pkts
 *   Output array of at least n entries.
 * @param n
 *   Maximum frames.
 * @return
 *   The number of frames received (0 if none, or if queue is out of
 *   range). The caller frees them.
 */
uint16_t dpv_port_rx(struct dpv_port *p, uint16_t queue, struct rte_mbuf **pkts,
		     uint16_t n);

/**
 * Hand the device frames that arrived on a queue the application polls
 * (embedded mode: its own RX loop got RoCE, ARP or ND frames for the
 * device). They wait in a per-device ring (1024 frames) and are returned
 * by the next dpv_port_rx() of the device, before the frames of its own
 * queue. Safe from several threads at once.
 *
 * @param p
 *   Device.
 * @param pkts
 *   Frames, Ethernet header first. Those taken belong to the stack.
 * @param n
 *   Number of frames.
 * @return
 *   The number of frames taken (pkts[0 .. ret-1]; fewer than n when the
 *   ring is full: the caller still owns the rest), or -EINVAL if p is
 *   NULL or pkts is NULL with n > 0.
 */
int dpv_port_rx_inject(struct dpv_port *p, struct rte_mbuf **pkts, uint16_t n);

/**
 * Send frames (rte_eth_tx_burst on the device's port).
 *
 * @param p
 *   Device.
 * @param queue
 *   Queue, 0 .. dpv_port_queues() - 1.
 * @param pkts
 *   Frames, Ethernet header first.
 * @param n
 *   Number of frames.
 * @return
 *   The number of frames taken (freed by the driver once sent); the
 *   caller still owns pkts[ret .. n-1]. 0 if queue is out of range or
 *   the link is down (bound every retry loop).
 */
uint16_t dpv_port_tx(struct dpv_port *p, uint16_t queue, struct rte_mbuf **pkts,
		     uint16_t n);

/**
 * Make the port send what earlier bursts left in its transmit ring.
 * DPDK 22.11's af_xdp (copy mode) hands frames to the kernel only when a
 * burst kicks its socket: frames a burst left in the ring may wait for
 * the next burst, which a requester waiting for ACKs does not make. An
 * empty burst kicks (drivers/af_xdp: it helps, but some streams of small
 * messages still lose frames there). Other ports: nothing.
 *
 * @param p
 *   The port.
 * @param queue
 *   Its queue, as for dpv_port_tx().
 */
void dpv_port_tx_kick(struct dpv_port *p, uint16_t queue);

/**
 * Whether dpv_port_tx_kick() does anything on this port (af_xdp).
 *
 * @param p
 *   The port.
 * @return
 *   True if the port is to be kicked.
 */
bool dpv_port_tx_kicks(const struct dpv_port *p);

/**
 * Hand a frame received on the wire to the device's kernel interface
 * (the exception path: frames that are not RoCE). The frame is copied;
 * the caller keeps m. Never blocks (a full interface queue drops it).
 *
 * @param p
 *   Device (not NULL).
 * @param m
 *   The frame, starting at its Ethernet header (may be chained).
 * @return
 *   0; -ENODEV if the device has no kernel interface; -EMSGSIZE if m has
 *   more than 16 segments; another -errno from writev(2).
 */
int dpv_port_netdev_put(struct dpv_port *p, const struct rte_mbuf *m);

/**
 * Take the frames the kernel sent on the device's kernel interface, to be
 * sent on the port. Never blocks.
 *
 * @param p
 *   Device (not NULL).
 * @param mp
 *   Pool for the frames (an mbuf holds one frame of the port's MTU).
 * @param pkts
 *   Output: the frames, owned by the caller.
 * @param n
 *   At most this many.
 * @return
 *   The number of frames in pkts (0 without an interface, when there is
 *   nothing to read, or when mp is empty).
 */
uint16_t dpv_port_netdev_get(struct dpv_port *p, struct rte_mempool *mp,
			     struct rte_mbuf **pkts, uint16_t n);

/**
 * A device's mbuf pool, for the frames the engine builds.
 *
 * @param p
 *   Device (not NULL).
 * @return
 *   The pool, sized for the device's MTU (one frame per mbuf).
 */
struct rte_mempool *dpv_port_mempool(struct dpv_port *p);

#ifdef __cplusplus
}
#endif

#endif /* DPV_PORT_H */
