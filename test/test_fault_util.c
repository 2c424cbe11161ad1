/* SPDX-License-Identifier: BSD-3-Clause */
/* A pair of devices on crossed ring ports (see test_fault_util.h). */
#include <stdio.h>
#include <sys/socket.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_eth_ring.h>
#include <rte_log.h>
#include <rte_ring.h>

#include "dpv_port.h"
#include "test_fault_util.h"

#define RING_SIZE 4096

int
test_fault_pair_create(struct test_fault_pair *pp, uint32_t mtu)
{
	static unsigned gen;
	char name[RTE_RING_NAMESIZE];
	struct dpv_port_info info;
	unsigned g = gen++;
	int id[2];

	memset(pp, 0, sizeof(*pp));
	for (int i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "tfw%d_%u_%d",
			 (int)getpid() % 1000, g, i);
		pp->ring[i] = rte_ring_create(name, RING_SIZE, SOCKET_ID_ANY,
					      RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (pp->ring[i] == NULL)
			goto fail;
	}
	for (int i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "tfp%u_%d", g, i);
		/* receive what the other one sends */
		id[i] = rte_eth_from_rings(name, &pp->ring[1 - i], 1,
					   &pp->ring[i], 1, SOCKET_ID_ANY);
		if (id[i] < 0)
			goto fail;
		snprintf(pp->vdev[i], sizeof(pp->vdev[i]), "net_ring_%s", name);
	}
	for (int i = 0; i < 2; i++) {
		struct dpv_port_conf c;
		int idx;

		dpv_port_conf_init(&c);
		c.mtu = mtu;
		c.mbufs = 4095;
		c.has_mac = true;
		c.mac[0] = 0x02;
		c.mac[5] = (uint8_t)(0x10 + i);
		c.n_addrs = 1;
		c.addrs[0].family = AF_INET;
		c.addrs[0].prefix_len = 24;
		c.addrs[0].addr[10] = c.addrs[0].addr[11] = 0xff;
		c.addrs[0].addr[12] = 192;
		c.addrs[0].addr[14] = 2;
		c.addrs[0].addr[15] = (uint8_t)(1 + i);
		pp->ip[i] = 0xc0000201u + i;
		/* ring ports cannot change their MAC: the device uses it
		 * anyway (and turns promiscuous mode on) after a warning */
		rte_log_set_level_pattern("dpv.port", RTE_LOG_ERR);
		idx = dpv_port_attach((uint16_t)id[i], &c);
		rte_log_set_level_pattern("dpv.port", RTE_LOG_NOTICE);
		if (idx < 0)
			goto fail;
		pp->port[i] = dpv_port_get((unsigned)idx);
		if (pp->port[i] == NULL ||
		    dpv_port_query(pp->port[i], &info) != 0)
			goto fail;
		memcpy(pp->mac[i], info.mac, 6);
	}
	return 0;
fail:
	test_fault_pair_destroy(pp);
	return -1;
}

void
test_fault_pair_destroy(struct test_fault_pair *pp)
{
	dpv_port_fini();
	for (int i = 0; i < 2; i++) {
		if (pp->vdev[i][0] != '\0')
			rte_vdev_uninit(pp->vdev[i]);
		rte_ring_free(pp->ring[i]);
	}
	memset(pp, 0, sizeof(*pp));
}
