/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_PORT_FAULT_H
#define DPV_PORT_FAULT_H

/**
 * @file
 * The fault layer: a device's frames can be dropped, duplicated,
 * reordered, delayed and corrupted on their way between the engine and
 * the DPDK port, at given rates, per direction, optionally only for some
 * QPs or opcodes — a network that misbehaves on purpose, for tests and
 * for judging how a program copes (this machine's kernel has no netem).
 *
 * It sits in dpv_port_rx() / dpv_port_tx(), so everything the engine
 * sends or receives passes through it. Only RoCEv2 frames (UDP port 4791)
 * are touched; ARP, neighbour discovery and other frames pass unchanged.
 *
 * Off by default: a device whose fault layer was never turned on pays one
 * predictable branch per burst. Once turned on, a device keeps going
 * through the layer (a few loads per burst when its rates are all zero
 * again), so that no held frame is ever stranded.
 *
 * Deterministic: every decision comes from a xorshift generator per
 * device, queue and direction, seeded from the configuration's seed (and
 * the device index and queue). The same seed and the same sequence of
 * frames give the same faults; timing (what a burst holds) still varies
 * from run to run.
 *
 * What each fault does to a frame that matches the filters, decided in
 * this order, each with its own probability:
 *
 *  - drop: the frame is freed (counted in fault_<dir>_drop); nothing else.
 *  - corrupt: one bit, chosen at random between the BTH's PSN field and
 *    the end of the ICRC, is flipped, so the receiver's ICRC check drops
 *    the frame (its rx_drop_icrc counter).
 *  - dup: a copy of the frame is made and goes out right after it.
 *  - reorder (rate/W): the frame is held back until 1..W (at random) later
 *    frames of the same direction have passed it, or hold_us has elapsed,
 *    whichever comes first; so nothing waits for traffic that never comes.
 *  - delay (rate/US): the frame is held back for US microseconds.
 *
 * Held frames sit in a bounded array per queue and direction
 * (DPV_FAULT_HOLD_MAX); when it is full, frames that should be held pass
 * at once (counted in fault_hold_full). Held frames leave from the next
 * dpv_port_rx() or dpv_port_tx() of their queue after they are due: the
 * engine polls dpv_port_rx() each iteration. With the layer on, RX and TX
 * of one queue number must be called by one thread at a time (the engine
 * does that).
 *
 * The text syntax (DPV_FAULT, the configuration key "fault"), parsed by
 * dpv_fault_parse():
 *
 *     spec    := clause { (';' | blanks) clause }
 *     clause  := DIR ':' item { ',' item }  |  global
 *     DIR     := tx | rx | all             (all: both directions)
 *     item    := drop=P | dup=P | corrupt=P | reorder=P[/W] | delay=P[/US]
 *              | qp=N{+N} | op=OP{+OP}
 *     global  := seed=N | hold_us=N | qp=N{+N} | op=OP{+OP}
 *     P       := a probability 0..1 (0.01) or a percentage (1%)
 *     OP      := send | write | read | read_resp | atomic | ack |
 *                atomic_ack | an opcode name of lib/roce's table
 *                (rc_send_only, uc_rdma_write_first, ...) | a number 0..255
 *
 * e.g. "tx:drop=0.01,reorder=5%/8,dup=0.01;rx:corrupt=0.001;seed=7".
 * qp= and op= inside a DIR clause filter that direction, outside it both;
 * a frame is affected only when its BTH destination QP is in the qp list
 * (if any) and its opcode in the op list (if any). On TX the destination
 * QP of a request is the peer's QP number; on RX it is the local one.
 * doc/guides/fault.rst has the details and examples.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dpv_port;

/** Directions (index of dpv_fault_conf::dir). */
enum dpv_fault_dir {
	DPV_FAULT_TX = 0, /**< frames the device sends */
	DPV_FAULT_RX = 1, /**< frames the device receives */
	DPV_FAULT_NDIR	  /**< number of directions */
};

/** QP numbers one filter may list. */
#define DPV_FAULT_MAX_QPS 16
/** Largest reorder window (frames). */
#define DPV_FAULT_MAX_WINDOW 64
/** Frames held at most per queue and direction. */
#define DPV_FAULT_HOLD_MAX 512
/** Reorder window when "reorder=P" gives none. */
#define DPV_FAULT_DEF_WINDOW 8
/** Delay in microseconds when "delay=P" gives none. */
#define DPV_FAULT_DEF_DELAY_US 100
/** Longest a reordered frame is held when fewer than W frames follow. */
#define DPV_FAULT_DEF_HOLD_US 100
/** Longest delay or hold_us accepted (microseconds). */
#define DPV_FAULT_MAX_US 1000000

/** The faults of one direction. */
struct dpv_fault_dir_conf {
	double drop;	   /**< probability 0..1 that a frame is dropped */
	double corrupt;	   /**< ... that one bit of it is flipped */
	double dup;	   /**< ... that it is duplicated */
	double reorder;	   /**< ... that it is held back (reordered) */
	double delay;	   /**< ... that it is delayed */
	uint16_t window;   /**< reorder: 1..DPV_FAULT_MAX_WINDOW frames */
	uint32_t delay_us; /**< delay: 1..DPV_FAULT_MAX_US */
	unsigned n_qps;	   /**< entries of qps; 0: every QP */
	uint32_t qps[DPV_FAULT_MAX_QPS]; /**< BTH destination QPs affected */
	bool op_filter;	 /**< only the opcodes set in ops are affected */
	uint8_t ops[32]; /**< BTH opcodes: bit op % 8 of ops[op / 8] */
};

/** A device's fault configuration. Initialise with dpv_fault_conf_init(). */
struct dpv_fault_conf {
	uint64_t seed;	  /**< generator seed (default 1) */
	uint32_t hold_us; /**< reorder time bound, 1..DPV_FAULT_MAX_US */
	/** The faults of each direction, indexed by enum dpv_fault_dir */
	struct dpv_fault_dir_conf dir[DPV_FAULT_NDIR];
};

/**
 * Counters of the fault layer, X(name, description): per device, summed
 * over its queues. Names as DPV_STATS and rte_telemetry show them, with
 * the prefix "fault_".
 */
#define DPV_FAULT_COUNTERS(X)                                                  \
	X(tx_drop, "frames sent that were dropped")                            \
	X(tx_corrupt, "frames sent with one bit flipped")                      \
	X(tx_dup, "frames sent twice")                                         \
	X(tx_reorder, "frames sent held back (reordered)")                     \
	X(tx_delay, "frames sent delayed")                                     \
	X(rx_drop, "frames received that were dropped")                        \
	X(rx_corrupt, "frames received with one bit flipped")                  \
	X(rx_dup, "frames received twice")                                     \
	X(rx_reorder, "frames received held back (reordered)")                 \
	X(rx_delay, "frames received delayed")                                 \
	X(hold_full, "frames to hold that found the hold array full: passed")  \
	X(nombuf, "no mbuf for a duplicate or a writable copy: not done")

/** The counters (one field per DPV_FAULT_COUNTERS entry). */
struct dpv_fault_stats {
/** A field of struct dpv_fault_stats for counter n (description d). */
#define DPV_FAULT_CNT_FIELD(n, d) uint64_t n; /**< d */
	DPV_FAULT_COUNTERS(DPV_FAULT_CNT_FIELD)
#undef DPV_FAULT_CNT_FIELD
};

/**
 * Set a configuration to "no faults": every rate 0, seed 1, windows,
 * delays and hold_us at their defaults, no filters.
 * @param c
 *   Configuration to initialise.
 */
void dpv_fault_conf_init(struct dpv_fault_conf *c);

/**
 * @param c
 *   Configuration (NULL allowed).
 * @return
 *   true if some rate of c is above zero.
 */
bool dpv_fault_conf_active(const struct dpv_fault_conf *c);

/**
 * Parse the text syntax (see the file comment) into c, on top of what c
 * holds (so that several strings can be applied in turn; call
 * dpv_fault_conf_init() first for a fresh configuration). A rate given
 * twice: the last one wins. "off" alone resets c to no faults.
 *
 * @param spec
 *   The text.
 * @param c
 *   Configuration to update; unchanged on error.
 * @param err
 *   Buffer for a message naming the clause at fault (may be NULL).
 * @param errlen
 *   Its size.
 * @return
 *   0; -EINVAL (syntax, unknown name, value out of range, too many QPs,
 *   NULL spec or c).
 */
int dpv_fault_parse(const char *spec, struct dpv_fault_conf *c, char *err,
		    size_t errlen);

/**
 * Write a configuration in the text syntax (what dpv_fault_parse() reads
 * back to the same configuration); "off" when no rate is set.
 *
 * @param c
 *   Configuration.
 * @param buf
 *   Output buffer.
 * @param len
 *   Its size.
 * @return
 *   The length of the full text (as snprintf: >= len means truncated), or
 *   -EINVAL on NULL c or buf.
 */
int dpv_fault_format(const struct dpv_fault_conf *c, char *buf, size_t len);

/**
 * Turn a device's fault layer on, change it, or turn it off (c NULL or
 * without a rate). Safe while the device is in use, from any thread:
 * each queue takes the new configuration at its next burst (and restarts
 * its generators from the seed). Frames already held still leave when due.
 *
 * @param p
 *   Device.
 * @param c
 *   Configuration, or NULL for off.
 * @return
 *   0; -EINVAL (p NULL, c out of range: a rate outside 0..1, a window,
 *   delay or hold_us out of range, too many QPs); -ENOMEM.
 */
int dpv_port_fault_set(struct dpv_port *p, const struct dpv_fault_conf *c);

/**
 * Read a device's fault configuration.
 * @param p
 *   Device.
 * @param c
 *   Output (no faults if the layer was never turned on).
 * @return 0 or -EINVAL (NULL argument).
 */
int dpv_port_fault_get(const struct dpv_port *p, struct dpv_fault_conf *c);

/**
 * Read a device's fault counters (all zero if the layer was never on).
 * Racy but consistent per counter: the data path updates them meanwhile.
 * @param p
 *   Device.
 * @param st
 *   Output.
 * @return 0 or -EINVAL (NULL argument).
 */
int dpv_port_fault_stats_get(const struct dpv_port *p,
			     struct dpv_fault_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* DPV_PORT_FAULT_H */
