/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TEST_PORT_UTIL_H
#define TEST_PORT_UTIL_H

/* Helpers shared by the lib/port tests. */
#include <stddef.h>

/* Write text to a fresh temporary file named "<prefix>XXXXXX" (mkstemp);
 * its name goes to path (size bytes). 0 or -1. */
int test_port_write_tmp(char *path, size_t size, const char *prefix,
			const char *text);

#include <sys/types.h>

/* Fork and exec this binary (dpv-test) as a child: the environment
 * variable child_env set to role, DPV_CONF to conf, DPV_EAL to eal and
 * DPV_IP to ip (NULL: unset). A constructor of the test file reads
 * child_env and runs the role. The pid, or -1. */
pid_t test_port_spawn(const char *child_env, const char *role, const char *conf,
		      const char *eal, const char *ip);

/* Exit status of a child (128: killed by a signal), killing it with
 * SIGKILL after secs (then 129). */
int test_port_reap(pid_t pid, double secs);

/* EAL arguments of one end (role "server" or "client") of a memif pair
 * on the socket file sock (no hugepages, 256 MB). */
void test_port_memif_eal(char *buf, size_t len, const char *role,
			 const char *sock);

/* CLOCK_MONOTONIC in seconds. */
double test_port_now(void);

#endif
