/* SPDX-License-Identifier: BSD-3-Clause */
/* EAL runtime directories (<base>/dpv<pid>) left by dead processes, and
 * the memif socket files their servers made. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_common.h>

#include "port_int.h"
#include "port_rundir.h"

/* "<prefix><decimal pid>" and nothing else: the prefix
 * dpv_eal_argv_build gives is "dpv"; a user's own --file-prefix never
 * matches unless it is the same */
static pid_t
rundir_pid(const char *name, const char *prefix)
{
	size_t pl = strlen(prefix);
	char *end;
	long v;

	if (strncmp(name, prefix, pl) != 0 || name[pl] < '1' || name[pl] > '9')
		return 0;
	errno = 0;
	v = strtol(name + pl, &end, 10);
	if (errno != 0 || *end != '\0' || v <= 0 || v > INT_MAX)
		return 0;
	return (pid_t)v;
}

/* A socket that accepts a connection has a live owner (one in another
 * PID namespace, whose pid we cannot see). Telemetry's are SEQPACKET,
 * EAL's multi-process one DGRAM. */
static bool
socket_alive(int dfd, const char *name)
{
	static const int types[] = {SOCK_SEQPACKET, SOCK_STREAM, SOCK_DGRAM};
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char path[32];
	int fd, rc = -1, err = EPROTOTYPE;
	unsigned i;

	/* connect by /proc/self/fd/N/name: short whatever the base is */
	snprintf(path, sizeof(path), "/proc/self/fd/%d/", dfd);
	if (strlen(path) + strlen(name) >= sizeof(sa.sun_path))
		return true; /* cannot tell: keep it */
	memcpy(sa.sun_path, path, strlen(path));
	memcpy(sa.sun_path + strlen(path), name, strlen(name) + 1);
	for (i = 0; i < RTE_DIM(types) && err == EPROTOTYPE; i++) {
		fd = socket(AF_UNIX, types[i] | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return true;
		rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
		err = rc == 0 ? 0 : errno;
		close(fd);
	}
	return rc == 0 || (err != ECONNREFUSED && err != ENOENT);
}

/* EAL's primary process holds a write lock on its "config" file. */
static bool
file_locked(int dfd, const char *name)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	bool locked;

	if (fd < 0)
		return false;
	locked = fcntl(fd, F_GETLK, &fl) != 0 || fl.l_type != F_UNLCK;
	close(fd);
	return locked;
}

/* A name EAL 22.11 gives the files of its runtime directory. */
static bool
eal_file_name(const char *n)
{
	static const char *const prefixes[] = {"fbarray_", "mp_socket",
					       "dpdk_telemetry"};

	if (strcmp(n, "config") == 0 || strcmp(n, "hugepage_info") == 0 ||
	    strcmp(n, "telemetry") == 0)
		return true;
	for (unsigned i = 0; i < RTE_DIM(prefixes); i++)
		if (strncmp(n, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* One of ours: a link to the socket file of a memif server. */
static bool
memif_link_name(const char *n)
{
	return strncmp(n, DPV_RUNDIR_MEMIF_LINK, strlen(DPV_RUNDIR_MEMIF_LINK)) ==
	       0;
}

/* Remove the memif socket the link dfd/name points to if it is this
 * user's and no server listens on it (a live one may have taken the path
 * over), then the link. */
static void
memif_link_release(int dfd, const char *name)
{
	char target[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;
	struct stat st;
	ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);
	int pfd;

	if (n > 0 && target[0] == '/') {
		target[n] = '\0';
		slash = strrchr(target, '/');
		*slash = '\0';
		pfd = open(slash == target ? "/" : target,
			   O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (pfd >= 0) {
			if (fstatat(pfd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) ==
				    0 &&
			    S_ISSOCK(st.st_mode) && st.st_uid == geteuid() &&
			    !socket_alive(pfd, slash + 1))
				unlinkat(pfd, slash + 1, 0);
			close(pfd);
		}
	}
	unlinkat(dfd, name, 0);
}

void
port_rundir_memif_release(const char *rundir)
{
	struct dirent *de;
	DIR *d = opendir(rundir);

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL)
		if (memif_link_name(de->d_name))
			memif_link_release(dirfd(d), de->d_name);
	closedir(d);
}

int
port_rundir_memif_note(const char *rundir, const char *path)
{
	static unsigned next;
	char link[PATH_MAX];

	if (path[0] != '/')
		return -EINVAL;
	snprintf(link, sizeof(link), "%s/%s%u", rundir, DPV_RUNDIR_MEMIF_LINK,
		 next++);
	return symlink(path, link) == 0 ? 0 : -errno;
}

/* Empty the directory and remove it, unless it is another user's, holds
 * anything but EAL's files and our memif links, or something in it is in
 * use. */
static int
rundir_remove(int basefd, const char *dname)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int dfd, rc = 0;

	dfd = openat(basefd, dname,
		     O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dfd < 0)
		return -errno;
	d = fdopendir(dfd);
	if (d == NULL) {
		rc = -errno;
		close(dfd);
		return rc;
	}
	if (fstat(dfd, &st) != 0 || st.st_uid != geteuid()) {
		closedir(d);
		return -EPERM;
	}
	/* first pass: only EAL's files, none of them in use */
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode) && memif_link_name(de->d_name))
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !(S_ISSOCK(st.st_mode) || S_ISREG(st.st_mode)) ||
		    !eal_file_name(de->d_name) ||
		    (S_ISSOCK(st.st_mode) && socket_alive(dfd, de->d_name)) ||
		    (S_ISREG(st.st_mode) && file_locked(dfd, de->d_name))) {
			closedir(d);
			return -EBUSY;
		}
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (memif_link_name(de->d_name)) {
			memif_link_release(dfd, de->d_name);
			continue;
		}
		if (unlinkat(dfd, de->d_name, 0) != 0 && rc == 0)
			rc = -errno;
	}
	closedir(d);
	if (unlinkat(basefd, dname, AT_REMOVEDIR) != 0 && rc == 0)
		rc = -errno;
	return rc;
}

int
dpv_eal_stale_dirs_clean(const char *base, const char *prefix)
{
	struct dirent *de;
	int basefd, n = 0;
	DIR *d;

	if (base == NULL || prefix == NULL || prefix[0] == '\0')
		return -EINVAL;
	basefd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (basefd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(basefd);
	if (d == NULL) {
		close(basefd);
		return -errno;
	}
	while ((de = readdir(d)) != NULL) {
		pid_t pid = rundir_pid(de->d_name, prefix);

		if (pid == 0 || pid == getpid())
			continue;
		/* EPERM: alive, someone else's */
		if (kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		if (rundir_remove(basefd, de->d_name) == 0)
			n++;
	}
	closedir(d);
	return n;
}

void
port_rundir_clean_stale(void)
{
	char base[PATH_MAX];
	int n;

	if (dpv_eal_runtime_base(base, sizeof(base)) != 0)
		return;
	n = dpv_eal_stale_dirs_clean(base, "dpv");
	if (n > 0)
		PORT_LOG(INFO,
			 "removed %d runtime directories of dead processes "
			 "from %s",
			 n, base);
}

int
dpv_eal_runtime_base(char *buf, size_t len)
{
	const char *dir = "/var/run";
	int n;

	/* where EAL puts its runtime directories (eal_create_runtime_dir) */
	if (getuid() != 0) {
		dir = getenv("XDG_RUNTIME_DIR");
		if (dir == NULL)
			dir = "/tmp";
	}
	n = snprintf(buf, len, "%s/dpdk", dir);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
