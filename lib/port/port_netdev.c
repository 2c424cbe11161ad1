/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The exception-path kernel interface of a device: a TAP (/dev/net/tun)
 * carrying the device's MAC, MTU and addresses. The engine hands it the
 * frames that are not RoCE and sends what the kernel writes to it; the
 * kernel removes it when the descriptor closes (at the latest, at exit).
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if_arp.h>
#include <netinet/in.h>

#include <rte_mbuf.h>
#include <rte_string_fns.h>

#include "dpv_port_conf.h"
#include "port_int.h"

#define TUN_PATH "/dev/net/tun"

/* rtnetlink RTM_NEWADDR for one address; 0 or -errno. */
static int
addr_add(int ifindex, const struct dpv_ip_addr *a)
{
	struct {
		struct nlmsghdr nh;
		struct ifaddrmsg ifa;
		char attrs[2 * RTA_SPACE(16)];
	} req;
	struct {
		struct nlmsghdr nh;
		struct nlmsgerr err;
		char more[64];
	} ack;
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	struct timeval tv = {.tv_sec = 1};
	bool v4 = a->family == AF_INET;
	unsigned alen = v4 ? 4 : 16;
	const uint8_t *ip = v4 ? a->addr + 12 : a->addr;
	struct rtattr *rta;
	ssize_t n;
	int fd, rc = 0;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_type = RTM_NEWADDR;
	req.nh.nlmsg_flags =
		NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE;
	req.nh.nlmsg_seq = 1;
	req.ifa.ifa_family = (uint8_t)a->family;
	req.ifa.ifa_prefixlen = a->prefix_len;
	/* usable at once: no duplicate address detection */
	req.ifa.ifa_flags = v4 ? 0 : IFA_F_NODAD;
	req.ifa.ifa_scope = RT_SCOPE_UNIVERSE;
	req.ifa.ifa_index = (unsigned)ifindex;
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifa));
	for (unsigned type = IFA_ADDRESS; type <= IFA_LOCAL; type++) {
		rta = (struct rtattr *)((char *)&req +
					NLMSG_ALIGN(req.nh.nlmsg_len));
		rta->rta_type = (unsigned short)type;
		rta->rta_len = (unsigned short)RTA_LENGTH(alen);
		memcpy(RTA_DATA(rta), ip, alen);
		req.nh.nlmsg_len =
			NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0) {
		rc = -errno;
		goto out;
	}
	n = recv(fd, &ack, sizeof(ack), 0);
	if (n < 0)
		rc = -errno;
	else if ((size_t)n < NLMSG_LENGTH(sizeof(ack.err)) ||
		 ack.nh.nlmsg_type != NLMSG_ERROR)
		rc = -EPROTO;
	else
		rc = ack.err.error; /* 0 or -errno */
out:
	close(fd);
	return rc;
}

/* An interface ioctl on a throwaway socket; 0 or -errno. */
int
port_if_ioctl(unsigned long req, struct ifreq *ifr)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

	if (s < 0)
		return -errno;
	if (ioctl(s, req, ifr) < 0)
		rc = -errno;
	close(s);
	return rc;
}

/* Write a value into /proc/sys/net/ipv6/conf/<name>/<key>; best effort. */
static void
ipv6_sysctl(const char *name, const char *key, const char *val)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/%s", name,
		 key);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, val, strlen(val)) < 0)
		PORT_LOG(DEBUG, "%s: %s", path, strerror(errno));
	close(fd);
}

/* Open a TAP named (or patterned) want: the descriptor or -errno. */
static int
tap_open(const char *want, char name[IFNAMSIZ])
{
	struct ifreq ifr;
	int fd, rc;

	fd = open(TUN_PATH, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	strlcpy(ifr.ifr_name, want, sizeof(ifr.ifr_name));
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	strlcpy(name, ifr.ifr_name, IFNAMSIZ);
	return fd;
}

/* Hardware address, MTU, addresses, link up; 0 or -errno. */
static int
tap_setup(struct port_netdev *nd, const uint8_t mac[6], uint32_t mtu,
	  const struct dpv_ip_addr *addrs, unsigned n)
{
	char buf[64];
	struct ifreq ifr;
	int rc;

	memset(&ifr, 0, sizeof(ifr));
	strlcpy(ifr.ifr_name, nd->name, sizeof(ifr.ifr_name));
	ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
	memcpy(ifr.ifr_hwaddr.sa_data, mac, 6);
	rc = port_if_ioctl(SIOCSIFHWADDR, &ifr);
	if (rc != 0)
		return rc;
	ifr.ifr_mtu = (int)mtu;
	rc = port_if_ioctl(SIOCSIFMTU, &ifr);
	if (rc != 0)
		return rc;
	rc = port_if_ioctl(SIOCGIFINDEX, &ifr);
	if (rc != 0)
		return rc;
	nd->ifindex = ifr.ifr_ifindex;
	/* no router solicitations or address autoconfiguration on the wire;
	 * the link-local address (the device's GID 0) stays */
	ipv6_sysctl(nd->name, "accept_ra", "0");
	ipv6_sysctl(nd->name, "router_solicitations", "0");
	ipv6_sysctl(nd->name, "dad_transmits", "0");
	for (unsigned i = 0; i < n; i++) {
		const struct dpv_ip_addr *a = &addrs[i];

		/* the kernel has its loopback addresses on lo */
		if ((a->family == AF_INET && a->addr[12] == 127) ||
		    (a->family == AF_INET6 &&
		     IN6_IS_ADDR_LOOPBACK((const struct in6_addr *)a->addr))) {
			PORT_LOG(INFO, "%s: loopback address %s left to lo",
				 nd->name,
				 dpv_ip_addr_str(a, buf, sizeof(buf)));
			continue;
		}
		rc = addr_add(nd->ifindex, a);
		if (rc != 0) {
			PORT_LOG(WARNING, "%s: address %s: %s", nd->name,
				 dpv_ip_addr_str(a, buf, sizeof(buf)),
				 strerror(-rc));
		}
	}
	rc = port_if_ioctl(SIOCGIFFLAGS, &ifr);
	if (rc != 0)
		return rc;
	ifr.ifr_flags |= IFF_UP;
	return port_if_ioctl(SIOCSIFFLAGS, &ifr);
}

void
port_netdev_init(struct port_netdev *nd)
{
	memset(nd, 0, sizeof(*nd));
	nd->fd = -1;
}

int
port_netdev_open(struct port_netdev *nd, const char *dev_name,
		 const struct dpv_port_conf *pc, const uint8_t mac[6],
		 uint32_t mtu)
{
	bool named = pc->netdev == DPV_NETDEV_NAME;
	const char *want = named ? pc->netdev_name : dev_name;
	int fd, rc;

	port_netdev_init(nd);
	fd = tap_open(want, nd->name);
	/* the device's own name is taken (another process): the next free
	 * dpv<N> */
	if (fd < 0 && !named && fd != -ENOENT && fd != -EPERM && fd != -EACCES)
		fd = tap_open("dpv%d", nd->name);
	if (fd < 0) {
		if (named)
			PORT_LOG(WARNING, "%s: no kernel interface %s: %s",
				 dev_name, want, strerror(-fd));
		else
			PORT_LOG(INFO, "%s: no kernel interface: %s", dev_name,
				 strerror(-fd));
		return fd;
	}
	nd->fd = fd;
	rc = tap_setup(nd, mac, mtu, pc->addrs, pc->n_addrs);
	if (rc != 0) {
		rte_log(named ? RTE_LOG_WARNING : RTE_LOG_INFO,
			dpv_logtype_port,
			"dpv.port: %s: kernel interface %s not set up: %s\n",
			dev_name, nd->name, strerror(-rc));
		port_netdev_close(nd);
		return rc;
	}
	PORT_LOG(INFO, "%s: kernel interface %s (ifindex %d)", dev_name,
		 nd->name, nd->ifindex);
	return 0;
}

void
port_netdev_close(struct port_netdev *nd)
{
	if (nd->fd >= 0)
		close(nd->fd); /* the kernel removes the interface */
	port_netdev_init(nd);
}

int
port_netdev_put(struct port_netdev *nd, const struct rte_mbuf *m)
{
	struct iovec iov[16];
	int n = 0;

	for (; m != NULL; m = m->next) {
		if (n == (int)RTE_DIM(iov))
			return -EMSGSIZE;
		iov[n].iov_base = rte_pktmbuf_mtod(m, void *);
		iov[n++].iov_len = m->data_len;
	}
	return writev(nd->fd, iov, n) < 0 ? -errno : 0;
}

uint16_t
port_netdev_get(struct port_netdev *nd, struct rte_mempool *mp,
		struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t got = 0;

	while (got < n) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
		ssize_t len;

		if (m == NULL)
			break;
		len = read(nd->fd, rte_pktmbuf_mtod(m, void *),
			   rte_pktmbuf_tailroom(m));
		if (len <= 0) {
			rte_pktmbuf_free(m);
			break; /* EAGAIN: nothing more now */
		}
		m->data_len = (uint16_t)len;
		m->pkt_len = (uint32_t)len;
		pkts[got++] = m;
	}
	return got;
}
