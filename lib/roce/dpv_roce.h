/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_ROCE_H
#define DPV_ROCE_H

/**
 * @file
 * lib/roce: the RoCEv2 wire format as pure functions over buffers.
 *
 * - dpv_roce_hdr.h     header structures and per-field accessors
 * - dpv_roce_opcode.h  the 256-entry opcode table (DPV_OPF_* mask bits)
 * - dpv_roce_icrc.h    invariant CRC compute / check
 * - dpv_roce_pkt.h     frame parser (with rejection reasons) and builder
 * - dpv_roce_gid.h     GID <-> IPv4/IPv6/MAC, UDP source-port rule
 * - dpv_roce_nd.h      ARP and IPv6 Neighbor Discovery frames
 *
 * Nothing here keeps state between calls; every function may be called
 * from any thread. Log messages use the log type "dpv.roce".
 */

#include "dpv_roce_hdr.h"
#include "dpv_roce_opcode.h"
#include "dpv_roce_icrc.h"
#include "dpv_roce_pkt.h"
#include "dpv_roce_gid.h"
#include "dpv_roce_nd.h"

#endif /* DPV_ROCE_H */
