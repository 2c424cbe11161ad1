/* SPDX-License-Identifier: BSD-3-Clause */
/* dpv-cmd: the verbs actions behind the commands (cmd_qp.c). */
#ifndef DPV_CMD_H
#define DPV_CMD_H

#include <stdio.h>

#include <infiniband/verbs.h>

#define CMD_MAX_QPS 16

/** Print the devices (name, GUID). */
void cmd_show_devices(FILE *out);
/** Print dpv0's port state, MTU and first GIDs. */
void cmd_show_port(FILE *out);
/** Print the device's non-zero counters (dpv_device_counters()). */
void cmd_show_counters(FILE *out);
/** Print the QPs this tool created. */
void cmd_show_qps(FILE *out);
/** Create RC QP @p id (0..CMD_MAX_QPS-1) on the first device. @return 0/-1 */
int cmd_qp_create(FILE *out, unsigned id);
/** Destroy QP @p id (@p out NULL: silently). @return 0/-1 */
int cmd_qp_destroy(FILE *out, unsigned id);
/** Connect QPs @p a and @p b to each other and move both to RTS. */
int cmd_qp_connect(FILE *out, unsigned a, unsigned b);
/**
 * Run @p count operations @p op (send, write, read, atomic) of @p size
 * bytes from QP @p id to its peer, 32 in flight; check the data and print
 * the throughput line. @return 0, -1 on any error (printed).
 */
int cmd_traffic(FILE *out, unsigned id, const char *op, unsigned size,
		unsigned count);
/** Destroy everything. */
void cmd_cleanup(void);

#endif
