/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/port test helpers (see test_port_util.h); registers no tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_port_util.h"

int
test_port_write_tmp(char *path, size_t size, const char *prefix,
		    const char *text)
{
	ssize_t len = strlen(text);
	int fd;

	snprintf(path, size, "%sXXXXXX", prefix);
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (write(fd, text, len) != len) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}
