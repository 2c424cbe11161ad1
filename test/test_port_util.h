/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TEST_PORT_UTIL_H
#define TEST_PORT_UTIL_H

/* Helpers shared by the lib/port tests. */
#include <stddef.h>

/* Write text to a fresh temporary file named "<prefix>XXXXXX" (mkstemp);
 * its name goes to path (size bytes). 0 or -1. */
int test_port_write_tmp(char *path, size_t size, const char *prefix,
			const char *text);

#endif
