/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Waking a sleeping progress thread with the port's receive interrupts.
 *
 * An idle progress thread sleeps, up to 1 ms at a time (10 ms after a
 * second of quiet), and a frame that arrives meanwhile waits for the sleep
 * to end. Where the port's driver has receive interrupts (DPDK's virtio,
 * including virtio-user, and the PCI drivers that take them through VFIO:
 * ixgbe, i40e, ice, mlx5, ena, vmxnet3, ...), the thread sleeps on them
 * instead, as l3fwd-power does: it arms each of the device's receive
 * queues (rte_eth_dev_rx_intr_enable()), looks at them once more (a frame
 * that came before the arming raised nothing), then waits in epoll on the
 * queues' event descriptors, a timer for the sleep's length and an
 * eventfd the process itself writes (dpv_port_wake_self()). The data path
 * is untouched: while the thread is awake the queues are not armed.
 *
 * Not used for memif (port_wake.c), the loopback port, nor the vhost
 * driver, whose interrupt handle is replaced each time its peer connects.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_interrupts.h>

#include "port_int.h"

/* epdata.data of the events: which descriptor woke the sleep */
#define TAG_RX	  ((void *)1)
#define TAG_SELF  ((void *)2)
#define TAG_TIMER ((void *)3)

static void
drain(int fd, void *arg)
{
	uint64_t v;

	RTE_SET_USED(arg);
	/* one read takes an eventfd's or a timerfd's whole count */
	if (read(fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		PORT_LOG(DEBUG, "wake-up descriptor %d: %s", fd,
			 strerror(errno));
}

static int
add_own(struct port_intr *pi, int fd, struct rte_epoll_event *ev, void *tag)
{
	memset(ev, 0, sizeof(*ev));
	ev->epdata.event = EPOLLIN;
	ev->epdata.data = tag;
	ev->epdata.cb_fun = drain;
	return rte_epoll_ctl(pi->epfd, EPOLL_CTL_ADD, fd, ev);
}

void
port_intr_init(struct port_intr *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->epfd = pi->selffd = pi->timerfd = -1;
}

int
port_intr_attach(struct port_intr *pi, uint16_t port, uint16_t qbase,
		 uint16_t nq)
{
	int rc;

	port_intr_init(pi);
	/* no such driver operation: -ENOTSUP, nothing logged */
	rc = rte_eth_dev_rx_intr_disable(port, qbase);
	if (rc != 0)
		return rc == -ENOTSUP ? rc : -EIO;
	pi->port = port;
	pi->qbase = qbase;
	pi->epfd = epoll_create1(EPOLL_CLOEXEC);
	pi->selffd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	pi->timerfd =
		timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (pi->epfd < 0 || pi->selffd < 0 || pi->timerfd < 0) {
		rc = -errno;
		goto fail;
	}
	if (add_own(pi, pi->selffd, &pi->self_ev, TAG_SELF) != 0 ||
	    add_own(pi, pi->timerfd, &pi->timer_ev, TAG_TIMER) != 0) {
		rc = -EIO;
		goto fail;
	}
	/* pi->nq counts the queues registered so far */
	for (; pi->nq < nq; pi->nq++) {
		rc = rte_eth_dev_rx_intr_ctl_q(port, qbase + pi->nq, pi->epfd,
					       RTE_INTR_EVENT_ADD, TAG_RX);
		if (rc != 0) {
			rc = rc < 0 ? rc : -EIO;
			goto fail;
		}
	}
	return 0;
fail:
	port_intr_detach(pi);
	return rc;
}

/* Undo what port_intr_attach() did, all of it or what it got to. */
void
port_intr_detach(struct port_intr *pi)
{
	for (uint16_t q = 0; q < pi->nq; q++)
		rte_eth_dev_rx_intr_ctl_q(pi->port, pi->qbase + q, pi->epfd,
					  RTE_INTR_EVENT_DEL, NULL);
	if (pi->epfd >= 0)
		close(pi->epfd);
	if (pi->selffd >= 0)
		close(pi->selffd);
	if (pi->timerfd >= 0)
		close(pi->timerfd);
	port_intr_init(pi);
}

bool
port_intr_sleep_begin(struct port_intr *pi)
{
	uint16_t q;

	/* against dpv_port_wake_self(): the flag, then the caller's look at
	 * its kick; the kick, then the look at the flag */
	__atomic_store_n(&pi->sleeping, 1, __ATOMIC_SEQ_CST);
	for (q = 0; q < pi->nq; q++)
		if (rte_eth_dev_rx_intr_enable(pi->port, pi->qbase + q) != 0)
			break;
	if (q == pi->nq)
		return true;
	/* a queue that cannot be armed now (no link, say): a timed sleep */
	while (q-- > 0)
		rte_eth_dev_rx_intr_disable(pi->port, pi->qbase + q);
	__atomic_store_n(&pi->sleeping, 0, __ATOMIC_RELAXED);
	return false;
}

void
port_intr_sleep(struct port_intr *pi, unsigned int us)
{
	struct itimerspec it = {
		.it_value = {.tv_sec = us / 1000000,
			     .tv_nsec = (long)(us % 1000000) * 1000},
	};
	struct rte_epoll_event ev[8];
	bool rx = false;
	int n;

	pi->sleeps++;
	if (us % 1000 == 0 && us / 1000 <= INT_MAX) {
		/* whole milliseconds (an idle thread's 1 and 10 ms naps):
		 * epoll's own timeout, one system call a sleep */
		n = rte_epoll_wait(pi->epfd, ev, RTE_DIM(ev), (int)(us / 1000));
	} else {
		/* the timer: a wake-up before it fires leaves it armed, and
		 * it may end a later sleep early (harmless: a look and
		 * another sleep) */
		if (us == 0)
			it.it_value.tv_nsec = 1000;
		if (timerfd_settime(pi->timerfd, 0, &it, NULL) != 0)
			return;
		n = rte_epoll_wait(pi->epfd, ev, RTE_DIM(ev), -1);
	}
	for (int i = 0; i < n; i++)
		rx |= ev[i].epdata.data == TAG_RX;
	if (rx)
		__atomic_fetch_add(&pi->taken, 1, __ATOMIC_RELAXED);
}

void
port_intr_sleep_end(struct port_intr *pi)
{
	for (uint16_t q = 0; q < pi->nq; q++)
		rte_eth_dev_rx_intr_disable(pi->port, pi->qbase + q);
	__atomic_store_n(&pi->sleeping, 0, __ATOMIC_RELAXED);
}

void
port_intr_wake(struct port_intr *pi)
{
	uint64_t one = 1;

	if (!__atomic_load_n(&pi->sleeping, __ATOMIC_SEQ_CST))
		return;
	if (write(pi->selffd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		PORT_LOG(DEBUG, "wake-up eventfd: %s", strerror(errno));
}
