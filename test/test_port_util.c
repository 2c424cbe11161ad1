/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/port test helpers (see test_port_util.h); registers no tests. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dpv_test.h"
#include "test_port_util.h"

void
test_port_memif_eal(char *buf, size_t len, const char *role, const char *sock)
{
	snprintf(buf, len,
		 "--no-huge --no-pci -m 256 --no-shconf "
		 "--vdev=net_memif0,role=%s,socket=%s,socket-abstract=no",
		 role, sock);
}

double
test_port_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
setenv_or_unset(const char *name, const char *value)
{
	if (value != NULL)
		setenv(name, value, 1);
	else
		unsetenv(name);
}

pid_t
test_port_spawn(const char *child_env, const char *role, const char *conf,
		const char *eal, const char *ip)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	setenv(child_env, role, 1);
	setenv_or_unset("DPV_CONF", conf);
	setenv_or_unset("DPV_EAL", eal);
	setenv_or_unset("DPV_IP", ip);
	execl("/proc/self/exe", "dpv-test", "--list", (char *)NULL);
	_exit(98);
}

int
test_port_reap(pid_t pid, double secs)
{
	double end = test_port_now() + secs;
	int st;

	while (test_port_now() < end) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	DPV_TEST_LOG("child %d killed after %.0f s", (int)pid, secs);
	return 129;
}

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
