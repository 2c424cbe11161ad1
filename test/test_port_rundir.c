/* SPDX-License-Identifier: BSD-3-Clause */
/* Stale EAL runtime directories: which are removed, which are kept. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "port_rundir.h"
#include "dpv_test.h"

static char base[64];

/* The pid of a process that has exited and been reaped. */
static pid_t
dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid;
}

static int
mkdir_in(const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", base, name);
	return mkdir(path, 0700);
}

static bool
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* A unix socket bound at dir/name; listening (fd kept open) or not. */
static int
sock_at(const char *dir, const char *name, bool listening)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", dir, name);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return -1;
	if (!listening) {
		close(fd);
		return 0;
	}
	return listen(fd, 1) == 0 ? fd : -1;
}

static int
touch(const char *dir, const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	return fd;
}

static int
rm_tree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	return system(cmd);
}

static int
rundir_cases(void)
{
	char stale[128], self[128], init[128], busy[128], locked[128],
		subdir[128], other[128], zero[128], foreign[128], name[32],
		path[256];
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	int lfd, up[2], down[2], listen_fd, rc;
	pid_t holder;
	char c;

	snprintf(base, sizeof(base), "/tmp/dpv-rundir-XXXXXX");
	TEST_ASSERT_NOT_NULL(mkdtemp(base), "mkdtemp");
	/* a dead process's directory: its files and stale sockets go */
	snprintf(name, sizeof(name), "dpv%d", (int)dead_pid());
	TEST_ASSERT_EQUAL(mkdir_in(name, stale, sizeof(stale)), 0, "");
	TEST_ASSERT_EQUAL(sock_at(stale, "dpdk_telemetry.v2", false), 0, "");
	close(touch(stale, "config"));
	/* ours, and a live process's (pid 1) */
	snprintf(name, sizeof(name), "dpv%d", (int)getpid());
	TEST_ASSERT_EQUAL(mkdir_in(name, self, sizeof(self)), 0, "");
	TEST_ASSERT_EQUAL(mkdir_in("dpv1", init, sizeof(init)), 0, "");
	/* a dead pid but a socket that answers (a process in another PID
	 * namespace), and one whose config another process has locked */
	snprintf(name, sizeof(name), "dpv%d", (int)dead_pid());
	TEST_ASSERT_EQUAL(mkdir_in(name, busy, sizeof(busy)), 0, "");
	listen_fd = sock_at(busy, "dpdk_telemetry.v2", true);
	TEST_ASSERT(listen_fd >= 0, "listening socket");
	snprintf(name, sizeof(name), "dpv%d", (int)dead_pid());
	TEST_ASSERT_EQUAL(mkdir_in(name, locked, sizeof(locked)), 0, "");
	lfd = touch(locked, "config");
	/* up: child -> parent "locked"; down: parent -> child "let go" */
	TEST_ASSERT(lfd >= 0 && pipe(up) == 0 && pipe(down) == 0, "");
	holder = fork();
	if (holder == 0) {
		/* the lock is the child's: F_GETLK ignores our own locks */
		if (fcntl(lfd, F_SETLK, &fl) == 0 && write(up[1], "l", 1) == 1)
			(void)read(down[0], &c, 1);
		_exit(0);
	}
	close(up[1]);
	TEST_ASSERT(holder > 0 && read(up[0], &c, 1) == 1, "lock holder");
	/* a directory with a subdirectory stays; foreign names stay */
	snprintf(name, sizeof(name), "dpv%d", (int)dead_pid());
	TEST_ASSERT_EQUAL(mkdir_in(name, subdir, sizeof(subdir)), 0, "");
	snprintf(path, sizeof(path), "%s/sub", subdir);
	TEST_ASSERT_EQUAL(mkdir(path, 0700), 0, "");
	/* a dead pid's directory with a file EAL does not make stays whole */
	snprintf(name, sizeof(name), "dpv%d", (int)dead_pid());
	TEST_ASSERT_EQUAL(mkdir_in(name, foreign, sizeof(foreign)), 0, "");
	close(touch(foreign, "config"));
	close(touch(foreign, "notes.txt"));
	TEST_ASSERT_EQUAL(mkdir_in("dpvtest-1", other, sizeof(other)), 0, "");
	TEST_ASSERT_EQUAL(mkdir_in("dpv0999999", zero, sizeof(zero)), 0, "");

	rc = dpv_eal_stale_dirs_clean(base, "dpv");
	/* release the lock holder */
	(void)write(down[1], "x", 1);
	waitpid(holder, NULL, 0);
	close(up[0]);
	close(down[0]);
	close(down[1]);
	close(lfd);
	close(listen_fd);
	TEST_ASSERT_EQUAL(rc, 1, "one stale directory removed");
	TEST_ASSERT(!exists(stale), "%s is gone", stale);
	TEST_ASSERT(exists(self), "our own directory stays");
	TEST_ASSERT(exists(init), "a live process's directory stays");
	TEST_ASSERT(exists(busy), "a directory whose socket answers stays");
	TEST_ASSERT(exists(locked), "a directory with a locked file stays");
	TEST_ASSERT(exists(subdir), "a directory with a subdirectory stays");
	snprintf(path, sizeof(path), "%s/config", foreign);
	TEST_ASSERT(exists(path), "nothing of a directory with a foreign file "
				  "is removed");
	TEST_ASSERT(exists(other) && exists(zero), "foreign names stay");
	/* stale once the lock holder and the listener are gone */
	TEST_ASSERT_EQUAL(dpv_eal_stale_dirs_clean(base, "dpv"), 2,
			  "after unlock");
	TEST_ASSERT(!exists(locked) && !exists(busy), "");
	/* another prefix: "dpvtest<dead pid>" only */
	TEST_ASSERT_EQUAL(dpv_eal_stale_dirs_clean(base, ""), -EINVAL, "");
	snprintf(name, sizeof(name), "dpvtest%d", (int)dead_pid());
	TEST_ASSERT_EQUAL(mkdir_in(name, stale, sizeof(stale)), 0, "");
	TEST_ASSERT_EQUAL(dpv_eal_stale_dirs_clean(base, "dpv"), 0, "");
	TEST_ASSERT_EQUAL(dpv_eal_stale_dirs_clean(base, "dpvtest"), 1, "");
	TEST_ASSERT(!exists(stale) && exists(other), "dpvtest-1: not a pid");
	snprintf(path, sizeof(path), "%s/none", base);
	TEST_ASSERT_EQUAL(dpv_eal_stale_dirs_clean(path, "dpv"), 0,
			  "no base: 0");
	TEST_ASSERT_EQUAL(dpv_eal_stale_dirs_clean(NULL, "dpv"), -EINVAL, "");
	TEST_ASSERT_EQUAL(dpv_eal_runtime_base(path, sizeof(path)), 0, "");
	TEST_ASSERT(strstr(path, "/dpdk") != NULL, "%s", path);
	TEST_ASSERT_EQUAL(dpv_eal_runtime_base(path, 4), -ENAMETOOLONG, "");
	return TEST_SUCCESS;
}

/* The number of entries of dir (without . and ..), or -1. */
static int
entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

/* The links to memif socket files: a stale directory takes the sockets
 * nothing listens on with it, never a live one or a file that is no
 * socket; a link of another name keeps the directory. */
static int
memif_link_cases(void)
{
	char dir[128], keep[128], name[32], path[256], sock[256];
	int listen_fd, rc;

	snprintf(base, sizeof(base), "/tmp/dpv-rundir-XXXXXX");
	TEST_ASSERT_NOT_NULL(mkdtemp(base), "mkdtemp");
	snprintf(name, sizeof(name), "dpv%d", (int)dead_pid());
	TEST_ASSERT_EQUAL(mkdir_in(name, dir, sizeof(dir)), 0, "");
	close(touch(dir, "config"));
	TEST_ASSERT_EQUAL(sock_at(base, "dead.sock", false), 0, "");
	listen_fd = sock_at(base, "live.sock", true);
	TEST_ASSERT(listen_fd >= 0, "listening socket");
	close(touch(base, "file.sock"));
	TEST_ASSERT_EQUAL(port_rundir_memif_note(dir, "rel.sock"), -EINVAL,
			  "relative path");
	snprintf(sock, sizeof(sock), "%s/dead.sock", base);
	TEST_ASSERT_EQUAL(port_rundir_memif_note(dir, sock), 0, "");
	snprintf(sock, sizeof(sock), "%s/live.sock", base);
	TEST_ASSERT_EQUAL(port_rundir_memif_note(dir, sock), 0, "");
	snprintf(sock, sizeof(sock), "%s/file.sock", base);
	TEST_ASSERT_EQUAL(port_rundir_memif_note(dir, sock), 0, "");
	/* the same with a link of a name that is not ours: kept whole */
	snprintf(name, sizeof(name), "dpv%d", (int)dead_pid());
	TEST_ASSERT_EQUAL(mkdir_in(name, keep, sizeof(keep)), 0, "");
	snprintf(path, sizeof(path), "%s/link", keep);
	snprintf(sock, sizeof(sock), "%s/dead.sock", base);
	TEST_ASSERT_EQUAL(symlink(sock, path), 0, "");

	rc = dpv_eal_stale_dirs_clean(base, "dpv");
	TEST_ASSERT_EQUAL(rc, 1, "the directory with our links removed");
	TEST_ASSERT(!exists(dir), "%s is gone", dir);
	TEST_ASSERT(exists(keep), "a foreign link keeps its directory");
	snprintf(path, sizeof(path), "%s/dead.sock", base);
	TEST_ASSERT(!exists(path), "the socket nothing listens on is gone");
	snprintf(path, sizeof(path), "%s/live.sock", base);
	TEST_ASSERT(exists(path), "a listening socket stays");
	snprintf(path, sizeof(path), "%s/file.sock", base);
	TEST_ASSERT(exists(path), "a file that is no socket stays");
	/* at exit: the links of the own directory and dead sockets go */
	close(listen_fd);
	snprintf(sock, sizeof(sock), "%s/live.sock", base);
	TEST_ASSERT_EQUAL(port_rundir_memif_note(keep, sock), 0, "");
	port_rundir_memif_release(keep);
	TEST_ASSERT(!exists(sock), "released: %s", sock);
	TEST_ASSERT_EQUAL(entries(keep), 1, "only the foreign link is left");
	return TEST_SUCCESS;
}

static int
test_port_rundir(void)
{
	int rc = rundir_cases();

	if (base[0] != '\0')
		rm_tree();
	base[0] = '\0';
	if (rc == TEST_SUCCESS)
		rc = memif_link_cases();

	if (base[0] != '\0')
		rm_tree(); /* also after a failed case */
	return rc;
}

DPV_TEST_REGISTER_FAST(port_rundir, test_port_rundir);
