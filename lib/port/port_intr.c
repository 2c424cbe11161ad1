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
 * DPDK's af_packet driver has no receive interrupts, but each of its
 * queues is a kernel socket that poll() reports readable while frames
 * wait in its receive ring: the thread can wait on those sockets instead,
 * with nothing to arm (port_intr_attach_sockets(); opt-in, and not for
 * af_xdp's sockets: port.c's af_packet_wake() says why). A socket that
 * stays readable while no frame comes (a ring some other code of the
 * process owns, say) would keep the thread from sleeping: after
 * SOCK_SPURIOUS_MAX such wake-ups in a row the port goes back to timed
 * sleeps.
 *
 * Not used for memif (port_wake.c), the loopback port, nor the vhost
 * driver, whose interrupt handle is replaced each time its peer connects.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/if_packet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>

#include "port_int.h"

/* epdata.data of the events: which descriptor woke the sleep */
#define TAG_RX	  ((void *)1)
#define TAG_SELF  ((void *)2)
#define TAG_TIMER ((void *)3)

/* Sockets: wake-ups in a row that no frame seems to have caused (the
 * sleep ended by a socket within SOCK_SPURIOUS_US of its start, the last
 * one less than SOCK_SPURIOUS_GAP_US before) before timed sleeps again */
#define SOCK_SPURIOUS_MAX    256
#define SOCK_SPURIOUS_US     10
#define SOCK_SPURIOUS_GAP_US 100

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

/* The epoll set with the process's own eventfd and the timer (0 or
 * -errno; port_intr_detach() undoes it). */
static int
own_fds(struct port_intr *pi, uint16_t port, uint16_t qbase)
{
	pi->port = port;
	pi->qbase = qbase;
	pi->epfd = epoll_create1(EPOLL_CLOEXEC);
	pi->selffd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	pi->timerfd =
		timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (pi->epfd < 0 || pi->selffd < 0 || pi->timerfd < 0)
		return -errno;
	if (add_own(pi, pi->selffd, &pi->self_ev, TAG_SELF) != 0 ||
	    add_own(pi, pi->timerfd, &pi->timer_ev, TAG_TIMER) != 0)
		return -EIO;
	return 0;
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
	rc = own_fds(pi, port, qbase);
	if (rc != 0)
		goto fail;
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

/* Whether open descriptor fd is a packet socket as DPDK's af_packet
 * driver makes them: TPACKET_V2, bound to interface ifindex. */
static bool
sock_is(int fd, int ifindex)
{
	struct sockaddr_ll sll;
	socklen_t l = sizeof(int);
	struct stat st;
	int v;

	if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode) ||
	    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &l) != 0 ||
	    v != AF_PACKET)
		return false;
	l = sizeof(sll);
	if (getsockname(fd, (struct sockaddr *)&sll, &l) != 0 ||
	    sll.sll_ifindex != ifindex)
		return false;
	l = sizeof(v);
	return getsockopt(fd, SOL_PACKET, PACKET_VERSION, &v, &l) == 0 &&
	       v == TPACKET_V2;
}

/* The process's open sockets that sock_is(), up to max of them in fds:
 * how many there are (more than max: max + 1). */
static unsigned int
find_socks(int ifindex, int *fds, unsigned int max)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned int n = 0;
	struct dirent *de;

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL && n <= max) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);

		if (*end != '\0' || end == de->d_name || fd == dirfd(d) ||
		    fd > INT_MAX || !sock_is((int)fd, ifindex))
			continue;
		if (n < max)
			fds[n] = (int)fd;
		n++;
	}
	closedir(d);
	return n;
}

int
port_intr_attach_sockets(struct port_intr *pi, uint16_t port, uint16_t qbase,
			 uint16_t nq)
{
	struct rte_eth_dev_info di;
	unsigned int n;
	uint16_t p;
	int *fds, rc;

	port_intr_init(pi);
	if (rte_eth_dev_info_get(port, &di) != 0 || di.if_index == 0 ||
	    qbase != 0 || nq != di.nb_rx_queues)
		return -ENOTSUP;
	/* the sockets of one port of the driver: no other port of it in
	 * the process (its sockets are told apart by interface only) */
	RTE_ETH_FOREACH_DEV(p)
	{
		struct rte_eth_dev_info o;

		if (p != port && rte_eth_dev_info_get(p, &o) == 0 &&
		    o.driver_name != NULL && di.driver_name != NULL &&
		    strcmp(o.driver_name, di.driver_name) == 0)
			return -ENOTSUP;
	}
	fds = calloc(nq, sizeof(*fds));
	pi->sock_ev = calloc(nq, sizeof(*pi->sock_ev));
	if (fds == NULL || pi->sock_ev == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	/* one socket a queue, none of anything else */
	n = find_socks((int)di.if_index, fds, nq);
	if (n != nq) {
		rc = -ENOTSUP;
		goto fail;
	}
	rc = own_fds(pi, port, qbase);
	if (rc != 0)
		goto fail;
	for (; pi->nsock < n; pi->nsock++) {
		struct rte_epoll_event *ev = &pi->sock_ev[pi->nsock];

		/* readable while frames wait: nothing to read here, the
		 * receive burst takes them */
		ev->epdata.event = EPOLLIN;
		ev->epdata.data = TAG_RX;
		if (rte_epoll_ctl(pi->epfd, EPOLL_CTL_ADD, fds[pi->nsock],
				  ev) != 0) {
			rc = -EIO;
			goto fail;
		}
	}
	free(fds);
	return 0;
fail:
	free(fds);
	port_intr_detach(pi);
	return rc;
}

/* Undo what port_intr_attach() or port_intr_attach_sockets() did, all
 * of it or what it got to. */
void
port_intr_detach(struct port_intr *pi)
{
	for (uint16_t q = 0; q < pi->nq; q++)
		rte_eth_dev_rx_intr_ctl_q(pi->port, pi->qbase + q, pi->epfd,
					  RTE_INTR_EVENT_DEL, NULL);
	for (uint16_t i = 0; i < pi->nsock; i++)
		rte_epoll_ctl(pi->epfd, EPOLL_CTL_DEL, pi->sock_ev[i].fd,
			      &pi->sock_ev[i]);
	free(pi->sock_ev);
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

	if (pi->sock_off)
		return false;
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
	uint64_t t0 = rte_get_timer_cycles(), t1, us_hz;
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
	if (!rx)
		return;
	__atomic_fetch_add(&pi->taken, 1, __ATOMIC_RELAXED);
	if (pi->nsock == 0)
		return;
	/* a socket that ended the sleep at once, again right after the
	 * last one did: no frame of ours came, or the look before this
	 * sleep would have taken it and the thread would be busy */
	t1 = rte_get_timer_cycles();
	us_hz = rte_get_timer_hz() / 1000000;
	if (t1 - t0 < SOCK_SPURIOUS_US * us_hz &&
	    t0 - pi->sock_rx_at < SOCK_SPURIOUS_GAP_US * us_hz) {
		if (++pi->sock_spurious == SOCK_SPURIOUS_MAX) {
			pi->sock_off = true;
			PORT_LOG(WARNING,
				 "port %u: its sockets stay readable with no "
				 "frame to take: idle sleeps no longer end on "
				 "frames",
				 pi->port);
		}
	} else {
		pi->sock_spurious = 0;
	}
	pi->sock_rx_at = t1;
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
