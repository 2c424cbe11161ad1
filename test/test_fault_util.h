/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TEST_FAULT_UTIL_H
#define TEST_FAULT_UTIL_H

/*
 * Two devices joined by a wire in one process: two net_ring ethdevs whose
 * rings are crossed (what one sends, the other receives), attached with
 * dpv_port_attach() as dpv<N> (192.0.2.1) and dpv<N+1> (192.0.2.2). The
 * fault layer and engine tests run over it.
 */
#include <stdint.h>

struct dpv_port;
struct rte_ring;

struct test_fault_pair {
	struct dpv_port *port[2];
	uint8_t mac[2][6];
	uint32_t ip[2];		  /* host order */
	struct rte_ring *ring[2]; /* ring[i]: frames port i sends */
	char vdev[2][64];
};

/* EAL must be up. Creates and starts both devices with the given L3 MTU
 * (0: the ring port's default). 0 or -1 (the pair is torn down again). */
int test_fault_pair_create(struct test_fault_pair *pp, uint32_t mtu);

/* Release every device (dpv_port_fini()), the two ethdevs and rings. */
void test_fault_pair_destroy(struct test_fault_pair *pp);

#endif
