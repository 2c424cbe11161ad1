/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_VERBS_PORT_H
#define DPV_VERBS_PORT_H

/**
 * @file
 * The verbs front end's view of lib/port (lib/port/dpv_port.h): the
 * DPDK ports a device stands on, their GID tables and neighbours.
 */

#include <stdbool.h>
#include <stdint.h>

#include "dpv_port.h"

#endif
