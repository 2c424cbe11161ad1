/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_VERBS_PORT_H
#define DPV_VERBS_PORT_H

/**
 * @file
 * The verbs front end's view of lib/port (CONTRACTS section 2). The port
 * functions are referenced weakly so that the front end still links (and
 * reports no device) in a build without lib/port.
 */

#include <stdbool.h>
#include <stdint.h>

#if __has_include("dpv_port.h")
#include "dpv_port.h"
#else
struct dpv_port;
struct dpv_port_info {
	char name[16];
	uint16_t ethdev;
	uint8_t mac[6];
	uint32_t mtu;
	bool link_up;
	uint32_t speed_mbps;
	int socket_id;
};
#define DPV_PORT_GID_TBL_LEN 16
int dpv_port_init(void);
unsigned dpv_port_count(void);
struct dpv_port *dpv_port_get(unsigned idx);
int dpv_port_query(const struct dpv_port *p, struct dpv_port_info *out);
int dpv_port_gid(const struct dpv_port *p, unsigned index, uint8_t gid[16]);
int dpv_port_gid_find(const struct dpv_port *p, const uint8_t gid[16]);
int dpv_port_neigh_lookup(const struct dpv_port *p, const uint8_t ip[16],
			  uint8_t mac[6]);
#endif

#pragma weak dpv_port_init
#pragma weak dpv_port_count
#pragma weak dpv_port_get
#pragma weak dpv_port_query
#pragma weak dpv_port_gid
#pragma weak dpv_port_gid_find
#pragma weak dpv_port_neigh_lookup

#endif
