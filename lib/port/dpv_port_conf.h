/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_PORT_CONF_H
#define DPV_PORT_CONF_H

/**
 * @file
 * The runtime configuration of dpverbs: what devices exist, on which DPDK
 * ports, with which addresses; and how EAL is started.
 *
 * Sources, later ones winning:
 *  1. built-in defaults: one device dpv0 on an in-process loopback port,
 *     EAL arguments "--no-huge --no-pci -m 512 --no-shconf";
 *  2. the INI file named by the environment variable DPV_CONF, else the
 *     built-in path DPV_DEFAULT_CONF (/etc/dpverbs/dpverbs.conf) if it
 *     exists; read with DPDK's rte_cfgfile;
 *  3. DPV_EAL (replaces the EAL arguments), DPV_IP (replaces dpv0's
 *     addresses), DPV_FAULT (replaces every device's fault layer
 *     settings) and DPV_NETDEV (dpv0's kernel interface).
 *
 * doc/guides/configuration.rst lists every key. All parsing functions
 * here are pure (no EAL needed) and report errors as -EINVAL plus a
 * message naming the file, section, key and value at fault.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dpv_port_fault.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Maximum number of devices (sections [dpv0] .. [dpv7]). */
#define DPV_PORT_MAX 8
/** Maximum addresses per device (GID slots 1..15). */
#define DPV_PORT_MAX_ADDRS 15
/** Maximum static neighbours per device. */
#define DPV_PORT_MAX_NEIGH 32
/** Size of the EAL argument string. */
#define DPV_EAL_ARGS_LEN 2048
/** Size of a port selector / vdev string. */
#define DPV_PORT_DEV_LEN 256

/** EAL arguments used when neither the file nor DPV_EAL gives any. */
#define DPV_EAL_DEFAULT_ARGS "--no-huge --no-pci -m 512 --no-shconf"

/** An IP address with prefix length. */
struct dpv_ip_addr {
	int family;	    /**< AF_INET or AF_INET6 */
	uint8_t prefix_len; /**< 0..32 (IPv4), 0..128 (IPv6) */
	/** IPv6 address, or the IPv4 address as ::ffff:a.b.c.d (network
	 *  order; the same bytes as the address's RoCE v2 GID). */
	uint8_t addr[16];
};

/** A static neighbour: IP address -> MAC. */
struct dpv_neigh {
	uint8_t ip[16]; /**< IPv6 or IPv4-mapped, as in struct dpv_ip_addr */
	uint8_t mac[6]; /**< its Ethernet address */
};

/** How a device finds its DPDK port (key "port" / "vdev"). */
enum dpv_port_kind {
	/** Unset: the first free DPDK port probed by EAL when the library
	 *  started EAL, else an in-process loopback port. */
	DPV_PORT_KIND_AUTO = 0,
	DPV_PORT_KIND_LOOPBACK, /**< in-process loopback (net_ring) */
	DPV_PORT_KIND_ID,	/**< DPDK port id (port_id) */
	DPV_PORT_KIND_NAME,	/**< ethdev name (dev), e.g. net_memif0 */
	DPV_PORT_KIND_VDEV,	/**< create the vdev "name,args" (dev) */
};

/** What a device says it is (key "personality"). */
enum dpv_personality {
	/** dpverbs' own identity: vendor 0xd9b0, part 0x6470. */
	DPV_PERSONALITY_DPVERBS = 0,
	/** An mlx5 device: Mellanox vendor id 0x02c9 and a ConnectX part id
	 *  (key "part_id", default 4119, ConnectX-5), as emulated NICs do. */
	DPV_PERSONALITY_MLX5,
};

/** Format of a device's rings (key "rings"). */
enum dpv_rings {
	/** ConnectX-4 and later formats (<infiniband/mlx5dv.h>); mlx5dv. */
	DPV_RINGS_MLX5 = 0,
	/** ConnectX-3 formats (<infiniband/mlx4dv.h>): mlx4 send WQEs and
	 *  32-byte CQEs; mlx4dv_init_obj describes them. */
	DPV_RINGS_MLX4,
};

/** vendor_part_id of a "personality = mlx5" device without "part_id". */
#define DPV_MLX5_DEFAULT_PART_ID 4119
/** The device's kernel interface (key "netdev", DPV_NETDEV). */
enum dpv_netdev_mode {
	/** Default: with the library owning EAL and a port that is neither
	 *  an in-process loopback nor memif, a TAP named like the device
	 *  (the next free dpv<N> if that name is taken), skipped when the
	 *  process may not create it; none in embedded mode. */
	DPV_NETDEV_AUTO = 0,
	DPV_NETDEV_OFF,	 /**< no kernel interface */
	DPV_NETDEV_NAME, /**< a TAP named netdev_name (any port kind) */
};

/** Size of a kernel interface name (IFNAMSIZ). */
#define DPV_NETDEV_NAME_LEN 16

/** Settings of one device. Initialise with dpv_port_conf_init(). */
struct dpv_port_conf {
	enum dpv_port_kind kind;    /**< how the port is found */
	uint16_t port_id;	    /**< DPV_PORT_KIND_ID */
	char dev[DPV_PORT_DEV_LEN]; /**< DPV_PORT_KIND_NAME / _VDEV */
	uint32_t mtu;		    /**< L3 MTU; 0 = keep the port's */
	bool has_mac;		    /**< mac overrides the port's MAC */
	uint8_t mac[6];		    /**< with has_mac: the MAC (key "mac") */
	unsigned n_addrs;	    /**< entries of addrs */
	/** Addresses (key "ip"), in configuration order: the GID table */
	struct dpv_ip_addr addrs[DPV_PORT_MAX_ADDRS];
	unsigned n_neigh; /**< entries of neigh */
	/** Static neighbours (key "neigh") */
	struct dpv_neigh neigh[DPV_PORT_MAX_NEIGH];
	uint16_t queues;    /**< RX = TX queues; 0 = max(1, workers, shards) */
	uint16_t rx_desc;   /**< RX ring size; 0 = 1024 */
	uint16_t tx_desc;   /**< TX ring size; 0 = 1024 */
	uint32_t mbufs;	    /**< mempool size; 0 = 8191 */
	uint32_t mbuf_size; /**< data room; 0 = from the MTU */
	bool promisc;	    /**< enable promiscuous RX */
	/** Identity (key "personality"): enum dpv_personality */
	int personality;
	/** Ring format (key "rings"): enum dpv_rings */
	int rings;
	/** vendor_part_id under DPV_PERSONALITY_MLX5 (key "part_id");
	 *  0 = DPV_MLX5_DEFAULT_PART_ID */
	uint16_t part_id;
	/** Embedded mode only: the application configured and started the
	 *  port itself; the library uses queue queue_base (one queue) and
	 *  never stops or reconfigures the port. */
	bool app_configured;
	uint16_t queue_base; /**< with app_configured: the queue to use */
	/** The fault layer (key "fault", DPV_FAULT; dpv_port_fault.h): off
	 *  after dpv_port_conf_init(). */
	struct dpv_fault_conf fault;
	/** The kernel interface (key "netdev"): DPV_NETDEV_AUTO after
	 *  dpv_port_conf_init() */
	enum dpv_netdev_mode netdev;
	/** With DPV_NETDEV_NAME: the interface name */
	char netdev_name[DPV_NETDEV_NAME_LEN];
};

/** How a device's engine makes progress ([dpverbs] progress). */
enum dpv_progress_mode {
	DPV_PROGRESS_AUTO = 0, /**< a thread in standalone mode, else app */
	DPV_PROGRESS_THREAD,   /**< a background progress thread */
	DPV_PROGRESS_APP,      /**< only inside verbs calls */
	DPV_PROGRESS_WORKERS,  /**< worker lcores ([dpverbs] workers > 0) */
};

/** Most engine shards per device ([dpverbs] shards). */
#define DPV_SHARDS_MAX 8

/** The whole configuration. */
struct dpv_config {
	char eal_args[DPV_EAL_ARGS_LEN]; /**< whitespace-separated */
	unsigned workers;		 /**< worker lcores, 0 = app-driven */
	/** [dpverbs] shards: engines per device, each on its own port queue
	 *  pair and owning its own QPs (0 or 1: one) */
	unsigned shards;
	/** [dpverbs] progress: DPV_PROGRESS_AUTO (default), _THREAD, _APP,
	 *  _WORKERS */
	int progress;
	unsigned n_ports; /**< devices dpv0 .. dpv<n-1> */
	struct dpv_port_conf port[DPV_PORT_MAX]; /**< device n is port[n] */
	char source[256];			 /**< file read, "" if none */
};

/**
 * Set a device's settings to the defaults: auto port, no addresses, no
 * neighbours, every size 0 (chosen at start), fault layer off.
 *
 * @param c
 *   Settings to initialise (not NULL).
 */
void dpv_port_conf_init(struct dpv_port_conf *c);

/**
 * Set a configuration to the built-in defaults (no file, no environment):
 * DPV_EAL_DEFAULT_ARGS, no workers, progress auto, one device dpv0 with
 * the defaults of dpv_port_conf_init().
 *
 * @param cfg
 *   Configuration to initialise (not NULL).
 */
void dpv_config_init(struct dpv_config *cfg);

/**
 * Read an INI configuration file into cfg (on top of what cfg holds).
 *
 * @param cfg
 *   Configuration to update; left unchanged on error.
 * @param path
 *   File name.
 * @param err
 *   Buffer for the error message (may be NULL).
 * @param errlen
 *   Its size.
 * @return
 *   0; -ENOENT the file does not exist; -EACCES not readable; -EINVAL
 *   syntax error, unknown section or key, bad value, or devices not
 *   numbered dpv0, dpv1, ... without gaps.
 */
int dpv_config_load_file(struct dpv_config *cfg, const char *path, char *err,
			 size_t errlen);

/**
 * Apply the environment overrides.
 *
 * @param cfg
 *   Configuration to update; left unchanged on error.
 * @param eal
 *   Value of DPV_EAL or NULL: replaces the EAL arguments; a dpv0 set to
 *   "port = loopback" becomes "port = auto", so that dpv0 uses the first
 *   port these arguments make EAL probe (e.g. their first --vdev).
 * @param ip
 *   Value of DPV_IP or NULL: replaces dpv0's addresses (a comma-separated
 *   list of ADDR/PREFIX, IPv4 or IPv6).
 * @param err
 *   Buffer for the error message (may be NULL).
 * @param errlen
 *   Its size.
 * @return
 *   0 or -EINVAL (eal empty or too long, ip not a valid address list;
 *   message in err).
 */
int dpv_config_apply_env(struct dpv_config *cfg, const char *eal,
			 const char *ip, char *err, size_t errlen);

/**
 * Apply DPV_FAULT: replace the fault layer settings of every device.
 *
 * @param cfg
 *   Configuration to update; left unchanged on error.
 * @param spec
 *   Value of DPV_FAULT (dpv_fault_parse() syntax), or NULL: nothing.
 * @param err
 *   Buffer for the error message (may be NULL).
 * @param errlen
 *   Its size.
 * @return
 *   0 or -EINVAL (message in err).
 */
int dpv_config_apply_fault(struct dpv_config *cfg, const char *spec, char *err,
			   size_t errlen);

/**
 * Apply DPV_NETDEV: replace dpv0's kernel interface setting (key
 * "netdev").
 *
 * @param cfg
 *   Configuration to update; left unchanged on error.
 * @param v
 *   Value of DPV_NETDEV: "off", "auto" or an interface name (1..15
 *   characters, no '/', ':' or blanks); NULL: nothing.
 * @param err
 *   Buffer for the error message (may be NULL).
 * @param errlen
 *   Its size.
 * @return
 *   0 or -EINVAL (message in err).
 */
int dpv_config_apply_netdev(struct dpv_config *cfg, const char *v, char *err,
			    size_t errlen);

/**
 * The process's configuration: defaults, then the file ($DPV_CONF, else
 * DPV_DEFAULT_CONF if it exists), then DPV_EAL, DPV_IP, DPV_FAULT and
 * DPV_NETDEV.
 * Errors are also logged.
 *
 * @param cfg
 *   Filled (from the defaults up; not NULL).
 * @param err
 *   Buffer for the error message (may be NULL).
 * @param errlen
 *   Its size.
 * @return
 *   0; -EINVAL bad file or environment; -ENOENT DPV_CONF names a file
 *   that does not exist (a missing default file is not an error);
 *   -EACCES the file is not readable; -ENOMEM.
 */
int dpv_config_read(struct dpv_config *cfg, char *err, size_t errlen);

/**
 * Parse a comma-separated list of addresses "192.0.2.1/24, 2001:db8::1/64".
 * A missing prefix means /32 (IPv4) or /128 (IPv6).
 *
 * @param s
 *   The list.
 * @param out
 *   Array to append to.
 * @param max
 *   Its capacity.
 * @param n
 *   In: entries already in out; out: entries after parsing.
 * @param err
 *   Buffer for the error message (may be NULL).
 * @param errlen
 *   Its size.
 * @return
 *   0; -EINVAL (empty list, bad address, bad prefix, too many, empty
 *   element; message in err); -ENOMEM.
 */
int dpv_ip_list_parse(const char *s, struct dpv_ip_addr *out, unsigned max,
		      unsigned *n, char *err, size_t errlen);

/**
 * Parse one neighbour list "IP MAC, IP MAC" (IP and MAC separated by
 * blanks or '='; elements by commas).
 *
 * @param s
 *   The list.
 * @param out
 *   Array to append to.
 * @param max
 *   Its capacity.
 * @param n
 *   In: entries already in out; out: entries after parsing.
 * @param err
 *   Buffer for the error message (may be NULL).
 * @param errlen
 *   Its size.
 * @return
 *   0; -EINVAL (empty element, bad IP or MAC, too many; message in err);
 *   -ENOMEM.
 */
int dpv_neigh_list_parse(const char *s, struct dpv_neigh *out, unsigned max,
			 unsigned *n, char *err, size_t errlen);

/**
 * Format an address as "192.0.2.1/24" or "2001:db8::1/64".
 *
 * @param a
 *   The address (not NULL).
 * @param buf
 *   Output; INET6_ADDRSTRLEN + 4 bytes always suffice.
 * @param len
 *   Its size (the text is truncated to fit).
 * @return
 *   buf.
 */
char *dpv_ip_addr_str(const struct dpv_ip_addr *a, char *buf, size_t len);

/** memif buffer size dpv_eal_argv_build() gives memif vdevs without one:
 * a frame of a 4096-byte RoCE path MTU fits one buffer. */
#define DPV_MEMIF_BSIZE 4352

/**
 * Turn EAL arguments into an argv for rte_eal_init(), adding what the
 * library needs when the arguments do not say it:
 * --file-prefix=dpv<pid> (so processes coexist), an --lcores mapping of
 * lcores 0..workers onto the CPUs the process may run on (so EAL does not
 * pin the application's thread to one CPU), and when no --log-level is
 * given --log-level=lib.eal:warning --log-level=lib.telemetry:error.
 * Without --force-max-simd-bitwidth, --force-max-simd-bitwidth=512 (so that
 * rte_net_crc may use AVX-512 for the ICRC where the CPU has it).
 * A memif vdev without bsize= gets bsize=DPV_MEMIF_BSIZE: DPDK 22.11's
 * memif splits frames chained over several of its buffers when its
 * receive burst ends inside the chain, so every frame must fit one buffer.
 * With memif_queues above 1, a memif vdev without secret= gets
 * secret=dpvq<memif_queues>, so that only a peer with as many queues
 * connects (DPDK 22.11's memif server accepts a client with fewer rings
 * and then serves its extra queues from ring 0).
 *
 * @param args
 *   Whitespace-separated arguments (no quoting).
 * @param workers
 *   Worker lcores wanted.
 * @param memif_queues
 *   Queue pairs a memif port carries traffic on ([dpverbs] shards); 0 or
 *   1: one.
 * @param pid
 *   Process id for the file prefix.
 * @param buf
 *   Storage for the strings argv points into.
 * @param buflen
 *   Its size.
 * @param argv
 *   Output, argv[0] = "dpverbs", NULL-terminated.
 * @param max
 *   Capacity of argv (including the NULL).
 * @param err
 *   Buffer for the error message (may be NULL).
 * @param errlen
 *   Its size.
 * @return
 *   argc (> 0), or -EINVAL (too many arguments / too long, or
 *   --in-memory together with --no-huge, which EAL 22.11 rejects).
 */
int dpv_eal_argv_build(const char *args, unsigned workers,
		       unsigned memif_queues, int pid, char *buf, size_t buflen,
		       char **argv, int max, char *err, size_t errlen);

/**
 * Check before rte_eal_init() that the arguments can work on this
 * machine: without --no-huge, free hugepages are needed, and (unless
 * --in-memory) a mounted hugetlbfs; EAL otherwise fails with a misleading
 * "Permission denied".
 *
 * @param argc
 *   Argument count.
 * @param argv
 *   Arguments.
 * @param meminfo
 *   Path of the meminfo file (NULL: /proc/meminfo and sysfs, and the
 *   hugetlbfs mount is checked too); for tests.
 * @param err
 *   Buffer for the error message (may be NULL).
 * @param errlen
 *   Its size.
 * @return
 *   0 or -ENOMEM (message in err).
 */
int dpv_eal_args_check(int argc, char **argv, const char *meminfo, char *err,
		       size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* DPV_PORT_CONF_H */
