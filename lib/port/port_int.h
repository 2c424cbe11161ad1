/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_PORT_INT_H
#define DPV_PORT_INT_H

/* Internal to lib/port: the log type and helpers shared by its files. */

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_log.h>

extern int dpv_logtype_port;

/* Register the log type now if its constructor has not run yet (a call
 * from another constructor); RTE_LOG_REGISTER does it otherwise. */
void port_log_init(void);

#define PORT_LOG(level, fmt, ...)                                              \
	rte_log(RTE_LOG_##level, dpv_logtype_port, "dpv.port: " fmt "\n",      \
		##__VA_ARGS__)

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

/* Plain bursts of a device's queue (port.c); the fault layer calls them. */
struct dpv_port;
struct rte_mbuf;
uint16_t port_rx_burst(struct dpv_port *p, uint16_t q, struct rte_mbuf **pkts,
		       uint16_t n);
uint16_t port_tx_burst(struct dpv_port *p, uint16_t q, struct rte_mbuf **pkts,
		       uint16_t n);

/* The fault layer's configuration (port_fault_conf.c). */
struct dpv_fault_conf;
/* 0 if c is usable by the data path, else -EINVAL. */
int port_fault_conf_check(const struct dpv_fault_conf *c);

#endif
