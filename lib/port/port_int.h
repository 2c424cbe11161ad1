/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_PORT_INT_H
#define DPV_PORT_INT_H

/* Internal to lib/port: the log type and helpers shared by its files. */

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_branch_prediction.h>
#include <rte_log.h>

extern int dpv_logtype_port;

/* Register the log type now if its constructor has not run yet (a call
 * from another constructor); RTE_LOG_REGISTER does it otherwise. */
void port_log_init(void);

#define PORT_LOG(level, fmt, ...)                                              \
	PORT_LOG_AT(RTE_LOG_##level, fmt, ##__VA_ARGS__)
/* The same at a level chosen at run time (RTE_LOG_ERR, ...). */
#define PORT_LOG_AT(lvl, fmt, ...)                                             \
	rte_log((lvl), dpv_logtype_port, "dpv.port: " fmt "\n", ##__VA_ARGS__)

/* Format into an optional error buffer (NULL: nothing). */
static inline void __attribute__((format(printf, 3, 4)))
port_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* A number lo..hi (decimal, 0x hex or 0 octal, nothing else after it):
 * 0 and *out, or -EINVAL. */
int port_num_parse(const char *s, unsigned long lo, unsigned long hi,
		   unsigned long *out);

/* A memif connection's wake-up page (port_wake.c). */
struct wake_page;
struct port_wake {
	struct wake_page *pg; /* NULL: none */
	uint32_t *peer;	      /* the peer's futex word in pg */
	unsigned int self;    /* 0 memif server, 1 client */
	uint64_t sleeps;      /* sleeps the peer could end (this side's) */
	uint64_t wakes_taken; /* of those, ended by a wake-up */
	uint64_t wakes_sent;  /* wake-ups this side sent the peer */
	char name[32];	      /* shm name */
};

/* Map (making it if need be) the page of the memif connection whose
 * devargs are given; 0 or -errno (no page: nothing is woken). */
int port_wake_attach(struct port_wake *w, const char *devargs, bool client);
/* Unmap it; unlink it if the peer is gone. */
void port_wake_detach(struct port_wake *w);
/* The peer sleeps: wake it. */
void port_wake_peer_slow(struct port_wake *w);
/* dpv_port_wake_sleep_begin() and the rest on a page that is mapped
 * (w->pg set): port.c picks it or the port's receive interrupts */
bool port_wake_sleep_begin(struct port_wake *w);
void port_wake_sleep(struct port_wake *w, unsigned int us);
void port_wake_sleep_end(struct port_wake *w);
void port_wake_self(struct port_wake *w);

/* After a burst sent frames: wake the peer if it sleeps (one load). */
static inline void
port_wake_peer(struct port_wake *w)
{
	if (unlikely(w->peer != NULL &&
		     __atomic_load_n(w->peer, __ATOMIC_RELAXED) != 0))
		port_wake_peer_slow(w);
}

/* Sleeps on the port's receive interrupts (port_intr.c). */
#include <rte_interrupts.h>
struct port_intr {
	int epfd;    /* -1: no receive interrupts */
	int selffd;  /* eventfd: dpv_port_wake_self() */
	int timerfd; /* the sleep's length */
	uint16_t port, qbase, nq;
	uint32_t sleeping; /* between sleep_begin and sleep_end */
	uint64_t sleeps;   /* sleeps a frame could end */
	uint64_t taken;	   /* of those, ended by a frame */
	struct rte_epoll_event self_ev, timer_ev;
	/* the driver's sockets instead (port_intr_attach_sockets()) */
	struct rte_epoll_event *sock_ev; /* nsock of them */
	uint16_t nsock;
	bool sock_off;		/* they woke it for nothing: timed sleeps */
	uint32_t sock_spurious; /* such wake-ups in a row */
	uint64_t sock_rx_at;	/* when a socket last ended a sleep */
};
/* None. */
void port_intr_init(struct port_intr *pi);
/* Register queues qbase.. qbase + nq - 1 of a started port: 0, -ENOTSUP
 * (no receive interrupts), or another -errno. */
int port_intr_attach(struct port_intr *pi, uint16_t port, uint16_t qbase,
		     uint16_t nq);
/* Or, for af_packet (no receive interrupts, its queues kernel sockets),
 * the sockets of the port's queues qbase.. qbase + nq - 1, which must be
 * all of them: 0, or -ENOTSUP (not found for sure) or another -errno. */
int port_intr_attach_sockets(struct port_intr *pi, uint16_t port,
			     uint16_t qbase, uint16_t nq);
void port_intr_detach(struct port_intr *pi);
/* On attached interrupts (pi->epfd >= 0), as port_wake_*() above. Arm
 * the queues: true if a frame now ends a sleep (then the caller looks at
 * its queues once more, sleeps, and ends with port_intr_sleep_end()). */
bool port_intr_sleep_begin(struct port_intr *pi);
void port_intr_sleep(struct port_intr *pi, unsigned int us);
void port_intr_sleep_end(struct port_intr *pi);
/* End a sleep from this process (nothing if none). */
void port_intr_wake(struct port_intr *pi);

/* Plain bursts of a device's queue (port.c); the fault layer calls them. */
struct dpv_port;
struct rte_mbuf;
uint16_t port_rx_burst(struct dpv_port *p, uint16_t q, struct rte_mbuf **pkts,
		       uint16_t n);
uint16_t port_tx_burst(struct dpv_port *p, uint16_t q, struct rte_mbuf **pkts,
		       uint16_t n);

/*
 * Bursts on memif ports (port_memif_guard.c): a flag raised before the
 * link check that precedes a burst, lowered after it; munmap() waits
 * while one is raised. Each thread that bursts has its own flag, set with
 * plain stores: munmap()'s side makes the flags visible with
 * membarrier(2) (an asymmetric fence), so the data path pays no locked
 * instruction. Without membarrier (or when the slots run out) a thread
 * uses one shared counter with atomic read-modify-writes instead.
 */
struct port_burst_slot {
	uint32_t active; /* nonzero: in a gated burst */
} __attribute__((aligned(64))); /* threads share no line */

extern __thread struct port_burst_slot *port_burst_self
	__attribute__((tls_model("initial-exec")));
extern struct port_burst_slot port_burst_shared;
/* munmap() calls so far (port_memif_guard.c), bumped before the guard's
 * barrier: a burst that sees the count its port's link was last seen up
 * at needs no new look at the link (no ring has been unmapped since) */
extern uint32_t port_unmap_epoch;
/* Does the memif driver's munmap() come here (not to libc's)? */
bool port_unmap_guarded(void);
/* This thread's slot (the shared counter if none), assigned once. */
struct port_burst_slot *port_burst_slot_get(void);

static inline struct port_burst_slot *
port_burst_begin(void)
{
	struct port_burst_slot *s = port_burst_self;

	if (unlikely(s == NULL))
		s = port_burst_slot_get();
	if (likely(s != &port_burst_shared)) {
		s->active = 1;
		/* munmap()'s membarrier orders this store before the link
		 * check for this thread; the compiler must not reorder */
		__asm__ volatile("" ::: "memory");
	} else {
		/* a full barrier: the link is read after the raise is seen */
		__atomic_fetch_add(&s->active, 1, __ATOMIC_SEQ_CST);
	}
	return s;
}

static inline void
port_burst_end(struct port_burst_slot *s)
{
	if (likely(s != &port_burst_shared))
		__atomic_store_n(&s->active, 0, __ATOMIC_RELEASE);
	else
		__atomic_fetch_sub(&s->active, 1, __ATOMIC_RELEASE);
}

/* The fault layer (port_fault.c, port_fault_conf.c). */
struct dpv_port_fault;
struct dpv_fault_conf;
struct dpv_fault_stats;
/* 0 if c is usable by the data path, else -EINVAL. */
int port_fault_conf_check(const struct dpv_fault_conf *c);
/* Set the configuration, creating *f when c turns faults on. */
int port_fault_update(struct dpv_port_fault **f, const struct dpv_fault_conf *c,
		      unsigned dev_idx, uint16_t nb_q, int socket);
void port_fault_get(const struct dpv_port_fault *f, struct dpv_fault_conf *c);
void port_fault_stats(const struct dpv_port_fault *f,
		      struct dpv_fault_stats *st);
/* Free held frames and f; with DPV_STATS set, print the counters. */
void port_fault_free(struct dpv_port_fault *f, const char *name);
/* Send every frame held on transmit (the port is about to stop). */
void port_fault_tx_drain(struct dpv_port_fault *f, struct dpv_port *p);
/* dpv_port_rx()/dpv_port_tx() of a device whose fault layer was on. */
uint16_t port_fault_rx(struct dpv_port_fault *f, struct dpv_port *p, uint16_t q,
		       struct rte_mbuf **pkts, uint16_t n);
uint16_t port_fault_tx(struct dpv_port_fault *f, struct dpv_port *p, uint16_t q,
		       struct rte_mbuf **pkts, uint16_t n);

/* The exception-path kernel interface of a device (port_netdev.c). */
struct dpv_port_conf;
struct rte_mempool;
struct port_netdev {
	int fd;	     /* the TAP, -1: none */
	int ifindex; /* 0: none */
	char name[16];
};
/* No interface. */
void port_netdev_init(struct port_netdev *nd);
/* Create the TAP of device dev_name as pc->netdev says (named, or
 * dev_name / the next free dpv<N>), with mac, mtu and pc's addresses, up:
 * 0, or -errno (logged: INFO when only the default asked for it). */
int port_netdev_open(struct port_netdev *nd, const char *dev_name,
		     const struct dpv_port_conf *pc, const uint8_t mac[6],
		     uint32_t mtu);
/* An interface ioctl (SIOCGIF...) on a throwaway socket: 0 or -errno. */
struct ifreq;
int port_if_ioctl(unsigned long req, struct ifreq *ifr);
/* Close it: the kernel removes the interface. */
void port_netdev_close(struct port_netdev *nd);
/* Hand a frame to the kernel (a copy): 0 or -errno. */
int port_netdev_put(struct port_netdev *nd, const struct rte_mbuf *m);
/* Frames the kernel sent, up to n, in mbufs from mp. */
uint16_t port_netdev_get(struct port_netdev *nd, struct rte_mempool *mp,
			 struct rte_mbuf **pkts, uint16_t n);

#endif
