/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_VERBS_H
#define DPV_VERBS_H

/**
 * @file
 * Progress control of dpverbs devices, for applications that own EAL and
 * their lcore loop (embedded mode, see dpv_port.h and doc/guides/port.rst)
 * or want to know who runs a device's engine.
 *
 * Every device has one engine (its software HCA). It runs in one of three
 * ways, all with the same semantics:
 *   - application-driven: inside ibv_poll_cq(), ibv_post_send(),
 *     ibv_post_recv(), ibv_get_cq_event(), and dpv_device_poll();
 *   - a background progress thread (standalone, [dpverbs] progress =
 *     thread, the default when the library started EAL);
 *   - a worker lcore (standalone, [dpverbs] workers = N > 0): device i is
 *     owned by worker i % N; application threads never run the engine.
 *
 * In embedded mode only the application makes progress: it calls
 * dpv_device_poll() from its own lcore loop (or relies on verbs calls),
 * and may hand the stack frames its own RX loop received with
 * dpv_device_rx().
 * The functions are exported from libibverbs.so.1 under DPVERBS_0.1.
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ibv_context;
struct rte_mbuf;

/** Who runs a device's engine (dpv_device_progress.mode). */
enum dpv_device_progress_mode {
	DPV_DEVICE_PROGRESS_APP = 0, /**< application threads only */
	DPV_DEVICE_PROGRESS_THREAD,  /**< a background progress thread */
	DPV_DEVICE_PROGRESS_WORKER,  /**< a worker lcore */
};

/** Progress state of a device (dpv_device_progress_get()). */
struct dpv_device_progress {
	int mode;	       /**< enum dpv_device_progress_mode */
	unsigned lcore;	       /**< the worker lcore (mode WORKER), else 0 */
	uint64_t worker_polls; /**< engine iterations run by the worker */
	/**
	 * Progress requests from verbs calls (poll, post, event wait) while
	 * a thread or worker exists; with a worker they do not run the
	 * engine. 0 in mode APP (not counted).
	 */
	uint64_t app_calls;
};

/**
 * Run one iteration of the device's engine in the calling thread: receive
 * and process a burst of frames (responder, completer), send new work of
 * the device's QPs (at most @p budget packets per QP), write completions,
 * transmit. Takes the engine lock (waits for it if another thread, e.g. a
 * worker lcore, holds it). Safe in every progress mode and from any
 * thread; an embedded application calls it from its lcore loop.
 *
 * @param ctx
 *   An open device context (ibv_open_device()).
 * @param budget
 *   Packets per QP per call, 0 for the default (32).
 * @return
 *   The work done (frames received + sent + completions; 0 = idle), or
 *   -EINVAL if @p ctx is NULL, -ENODEV if the device has no transport
 *   (no engine).
 */
int dpv_device_poll(struct ibv_context *ctx, unsigned budget);

/**
 * Hand the device frames the application's own RX loop received for it
 * (embedded mode: RoCE v2 UDP 4791, ARP or ND frames that arrived on a
 * queue the application polls). They are queued (up to 1024) and the
 * engine processes them in its next iteration, before the frames of its
 * own queue, exactly as if it had received them. Safe from any thread.
 *
 * @param ctx
 *   An open device context.
 * @param pkts
 *   Frames, Ethernet header first; those taken belong to the stack (it
 *   frees them).
 * @param n
 *   Number of frames.
 * @return
 *   The number of frames taken, pkts[0 .. ret-1] (fewer than @p n when
 *   the queue is full: the caller still owns and frees the rest), or
 *   -EINVAL if @p ctx is NULL or @p pkts is NULL with @p n > 0, -ENODEV
 *   if the device has no transport.
 */
int dpv_device_rx(struct ibv_context *ctx, struct rte_mbuf **pkts,
		  uint16_t n);

/**
 * Tell who runs the device's engine and how often.
 *
 * @param ctx
 *   An open device context.
 * @param out
 *   Filled on success.
 * @return
 *   0, or -EINVAL if @p ctx or @p out is NULL, -ENODEV if the device has
 *   no transport.
 */
int dpv_device_progress_get(struct ibv_context *ctx,
			    struct dpv_device_progress *out);

/**
 * Say that the application is about to block on a completion channel's fd
 * in a poll(), select() or epoll_wait() of its own, after arming its CQs.
 * (ibv_get_cq_event() on a blocking fd says so itself.) The device's
 * progress thread, which naps while the application drives the device
 * (its verbs calls poll the engine), then stops napping and lands what
 * arrives, so that the event comes when the frame does rather than at the
 * end of a nap (up to 10 ms). Our rsockets call it before each sleep.
 * Cheap when the thread already knows (one atomic exchange); otherwise it
 * costs the thread's wake-up. No effect without a progress thread.
 *
 * @param ctx
 *   An open device context.
 * @return
 *   0, or -EINVAL if @p ctx is NULL.
 */
int dpv_device_app_blocks(struct ibv_context *ctx);

/** One counter of a device (dpv_device_counters()). */
struct dpv_device_counter {
	const char *name; /**< static string, e.g. "rx_drop_pkey" */
	uint64_t value;	  /**< its value when read */
};

/**
 * Read a device's counters: frames and bytes, every reason a received
 * frame was dropped (rx_drop_*, and rx_drop_parse_<reason> for each header
 * check of the parser), NAKs, retransmissions, ... The names and meanings
 * are listed in doc/guides/telemetry.rst; the same list is on the
 * telemetry socket (/dpverbs/counters) and in dpv-cmd's "show counters".
 * Safe from any thread; the values are a snapshot taken without the
 * engine lock (each one read whole).
 *
 * @param ctx
 *   An open device context.
 * @param out
 *   Output, @p n entries; may be NULL when @p n is 0 (to learn the
 *   number).
 * @param n
 *   Entries at @p out.
 * @return
 *   The number of counters the device has (entries beyond @p n are not
 *   written), or -EINVAL if @p ctx is NULL or @p out is NULL with @p n >
 *   0, -ENODEV if the device has no transport.
 */
int dpv_device_counters(struct ibv_context *ctx, struct dpv_device_counter *out,
			unsigned n);

#ifdef __cplusplus
}
#endif

#endif /* DPV_VERBS_H */
