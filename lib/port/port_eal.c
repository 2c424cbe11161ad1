/* SPDX-License-Identifier: BSD-3-Clause */
/* EAL bring-up: argument building, the hugepage pre-check, rte_eal_init. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_string_fns.h>

#include "dpv_port.h"
#include "dpv_port_conf.h"
#include "dpv_roce_icrc.h"
#include "port_eal.h"
#include "port_int.h"
#include "port_rundir.h"

static bool
arg_is(const char *a, const char *opt)
{
	size_t n = strlen(opt);

	return strncmp(a, opt, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

/* -l 0-3, -l0-3, -c 0x3, -c3, --lcores ... */
static bool
arg_is_lcores(const char *a)
{
	if (arg_is(a, "--lcores") || arg_is(a, "--main-lcore"))
		return true;
	return a[0] == '-' && (a[1] == 'l' || a[1] == 'c') &&
	       (a[2] == '\0' || isdigit((unsigned char)a[2]));
}

/* The CPUs this thread may run on, as "0-1,4". */
static int
cpu_list(char *out, size_t len)
{
	cpu_set_t set;
	int c, start = -1, n = 0;
	size_t used = 0;

	out[0] = '\0';
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -errno;
	for (c = 0; c <= CPU_SETSIZE; c++) {
		bool in = c < CPU_SETSIZE && CPU_ISSET(c, &set);

		if (in && start < 0)
			start = c;
		if (!in && start >= 0) {
			if (c - 1 == start)
				n = snprintf(out + used, len - used, "%s%d",
					     used ? "," : "", start);
			else
				n = snprintf(out + used, len - used, "%s%d-%d",
					     used ? "," : "", start, c - 1);
			if (n < 0 || (size_t)n >= len - used)
				return -ENOSPC;
			used += n;
			start = -1;
		}
	}
	return used > 0 ? 0 : -ENOENT;
}

int
dpv_eal_argv_build(const char *args, unsigned workers, unsigned memif_queues,
		   int pid, char *buf, size_t buflen, char **argv, int max,
		   char *err, size_t errlen)
{
	bool prefix = false, lcores = false, loglevel = false, nohuge = false,
	     inmem = false, vdev_next = false, simd = false, huge_files = false;
	char *p = buf, *end = buf + buflen, *save = NULL, *tok, cpus[256];
	int argc = 0, n;

#define PUSH_STR(fmt, ...)                                                     \
	do {                                                                   \
		n = snprintf(p, end - p, fmt, ##__VA_ARGS__);                  \
		if (n < 0 || n >= end - p || argc >= max - 1)                  \
			goto too_long;                                         \
		argv[argc++] = p;                                              \
		p += n + 1;                                                    \
	} while (0)

	if (max < 2 || buflen < 16)
		goto too_long;
	PUSH_STR("dpverbs");
	/* tokenise a copy that lives in buf */
	n = strlcpy(p, args != NULL ? args : "", end - p);
	if (n >= end - p)
		goto too_long;
	tok = strtok_r(p, " \t\n", &save);
	p += n + 1;
	for (; tok != NULL; tok = strtok_r(NULL, " \t\n", &save)) {
		const char *dev = arg_is(tok, "--vdev") && tok[6] == '='
					  ? tok + 7
					  : vdev_next ? tok : NULL;

		if (argc >= max - 1)
			goto too_long;
		vdev_next = strcmp(tok, "--vdev") == 0;
		if (dev != NULL && strncmp(dev, "net_memif", 9) == 0 &&
		    (strstr(dev, "bsize=") == NULL ||
		     (memif_queues > 1 && strstr(dev, "secret=") == NULL))) {
			/* frames of a 4096 path MTU in one memif buffer; with
			 * several queues, a secret that names their number:
			 * DPDK 22.11's memif server accepts a client with
			 * fewer rings and then reads its ring 0 from several
			 * queues (corrupt frames), while it refuses one with a
			 * secret other than its own */
			char bs[32] = "", sec[32] = "";

			if (strstr(dev, "bsize=") == NULL)
				snprintf(bs, sizeof(bs), ",bsize=%u",
					 DPV_MEMIF_BSIZE);
			if (memif_queues > 1 && strstr(dev, "secret=") == NULL)
				snprintf(sec, sizeof(sec), ",secret=dpvq%u",
					 memif_queues);
			PUSH_STR("%s%s%s", tok, bs, sec);
			continue;
		}
		argv[argc++] = tok;
		prefix |= arg_is(tok, "--file-prefix");
		lcores |= arg_is_lcores(tok);
		loglevel |= arg_is(tok, "--log-level");
		nohuge |= arg_is(tok, "--no-huge");
		inmem |= arg_is(tok, "--in-memory");
		simd |= arg_is(tok, "--force-max-simd-bitwidth");
		/* the user's own say over the hugepage files */
		huge_files |= arg_is(tok, "--huge-unlink") ||
			      arg_is(tok, "--single-file-segments");
	}
	if (nohuge && inmem) {
		port_err(err, errlen,
			 "EAL arguments: --in-memory cannot be combined with "
			 "--no-huge (DPDK 22.11 fails); use --no-shconf "
			 "instead");
		return -EINVAL;
	}
	if (!prefix)
		PUSH_STR("--file-prefix=dpv%d", pid);
	/* hugepage files named by our per-process prefix would outlive the
	 * process (holding their pages until the next EAL start clears
	 * them); no other process can know the prefix to attach anyway */
	if (!prefix && !nohuge && !inmem && !huge_files)
		PUSH_STR("--huge-unlink");
	if (!lcores && cpu_list(cpus, sizeof(cpus)) == 0) {
		if (workers == 0)
			PUSH_STR("--lcores=0@(%s)", cpus);
		else
			PUSH_STR("--lcores=(0-%u)@(%s)", workers, cpus);
	}
	/* rte_net_crc's AVX-512 code (the ICRC of every frame) is only used
	 * when EAL allows 512-bit SIMD: 1.7-2.5x the 64 KiB WRITE rate */
	if (!simd)
		PUSH_STR("--force-max-simd-bitwidth=512");
	if (!loglevel) {
		PUSH_STR("--log-level=lib.eal:warning");
		PUSH_STR("--log-level=lib.telemetry:error");
		/* rte_net_crc reports at INFO that AVX-512 is missing */
		PUSH_STR("--log-level=lib.net:notice");
	}
	argv[argc] = NULL;
	return argc;
too_long:
	port_err(err, errlen, "EAL arguments: too many or too long");
	return -EINVAL;
#undef PUSH_STR
}

/* Free hugepages of the default size from a meminfo file, -1 if unknown. */
static long
meminfo_free_huge(const char *path)
{
	char line[256];
	long v = -1;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "HugePages_Free: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* Free hugepages of every size (sysfs), -1 if unknown. */
static long
sysfs_free_huge(void)
{
	glob_t g;
	long total = -1, v;
	size_t i;

	if (glob("/sys/kernel/mm/hugepages/hugepages-*/free_hugepages", 0, NULL,
		 &g) != 0)
		return -1;
	for (i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");

		if (f == NULL)
			continue;
		if (fscanf(f, "%ld", &v) == 1)
			total = (total < 0 ? 0 : total) + v;
		fclose(f);
	}
	globfree(&g);
	return total;
}

static bool
hugetlbfs_mounted(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	if (f == NULL)
		return true; /* cannot tell: let EAL decide */
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = strstr(line, " hugetlbfs ") != NULL;
	fclose(f);
	return found;
}

int
dpv_eal_args_check(int argc, char **argv, const char *meminfo, char *err,
		   size_t errlen)
{
	bool in_memory = false;
	long free_pages;
	int i;

	for (i = 1; i < argc; i++) {
		if (arg_is(argv[i], "--no-huge"))
			return 0;
		in_memory |= arg_is(argv[i], "--in-memory");
	}
	free_pages =
		meminfo_free_huge(meminfo != NULL ? meminfo : "/proc/meminfo");
	if (meminfo == NULL && free_pages <= 0) {
		long s = sysfs_free_huge();

		if (s > free_pages)
			free_pages = s;
	}
	if (free_pages == 0) {
		port_err(
			err, errlen,
			"the EAL arguments lack --no-huge but no hugepages are "
			"free on this machine (HugePages_Free: 0); add "
			"'--no-huge -m 512' to DPV_EAL or [eal] args, or "
			"reserve hugepages (nr_hugepages) and mount hugetlbfs");
		return -ENOMEM;
	}
	/* EAL maps hugepages through a hugetlbfs mount (not --in-memory) */
	if (meminfo == NULL && !in_memory && !hugetlbfs_mounted()) {
		port_err(err, errlen,
			 "the EAL arguments lack --no-huge but no hugetlbfs is "
			 "mounted; mount one (mount -t hugetlbfs nodev "
			 "/dev/hugepages) or add --no-huge");
		return -ENOMEM;
	}
	return 0;
}

/* EAL state of this process. */
static int eal_err;   /* -errno of a failed start, sticky */
static bool eal_ours; /* this library called rte_eal_init */

/* Value of key in the devargs "name,k=v,k=v" (into out); false if absent. */
static bool
devarg(const char *args, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);

	for (const char *c = strchr(args, ','); c != NULL;
	     c = strchr(c + 1, ',')) {
		if (strncmp(c + 1, key, kl) == 0 && c[1 + kl] == '=') {
			size_t n = strcspn(c + 2 + kl, ",");

			if (n >= len)
				return false;
			memcpy(out, c + 2 + kl, n);
			out[n] = '\0';
			return true;
		}
	}
	return false;
}

/* The socket file of a memif server (the default role) on one: true and
 * path. arg: "--vdev=net_memif..." or "net_memif...". */
static bool
memif_server_file(const char *arg, char *path, size_t len)
{
	const char *dev = strncmp(arg, "--vdev=", 7) == 0 ? arg + 7 : arg;
	char v[16];

	return strncmp(dev, "net_memif", 9) == 0 &&
	       !(devarg(dev, "role", v, sizeof(v)) &&
		 strcmp(v, "server") != 0 && strcmp(v, "master") != 0) &&
	       devarg(dev, "socket-abstract", v, sizeof(v)) &&
	       strcmp(v, "no") == 0 && devarg(dev, "socket", path, len);
}

/*
 * A memif server on a socket file cannot start while the file of a server
 * that died is there (DPDK 22.11 does not replace it): remove such a file
 * when nothing listens on it any more.
 */
static void
memif_stale_socket(const char *arg)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	struct stat st;
	int fd, rc;

	if (!memif_server_file(arg, sun.sun_path, sizeof(sun.sun_path)) ||
	    stat(sun.sun_path, &st) != 0 || !S_ISSOCK(st.st_mode))
		return;
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (fd < 0)
		return;
	rc = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
	if (rc != 0 && errno == ECONNREFUSED && unlink(sun.sun_path) == 0)
		PORT_LOG(NOTICE,
			 "removed %s: a memif server socket no process listens "
			 "on",
			 sun.sun_path);
	close(fd);
}

static pid_t eal_pid; /* process that started it */
static char eal_buf[DPV_EAL_ARGS_LEN + 512];
static char *eal_argv[128];

bool
dpv_port_eal_owned(void)
{
	return eal_ours && eal_pid == getpid();
}

void
port_eal_memif_note(const char *dev)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char abs[PATH_MAX];
	const char *rt;
	int rc;

	if (!dpv_port_eal_owned() ||
	    !memif_server_file(dev, path, sizeof(path)))
		return;
	rt = rte_eal_get_runtime_dir();
	/* a relative path is the one EAL's process sees from its cwd */
	if (path[0] != '/' && getcwd(abs, sizeof(abs) - sizeof(path) - 1)) {
		strcat(abs, "/");
		strcat(abs, path);
	} else {
		strlcpy(abs, path, sizeof(abs));
	}
	rc = port_rundir_memif_note(rt, abs);
	if (rc != 0)
		PORT_LOG(DEBUG, "cannot note memif socket %s in %s: %s", abs,
			 rt, strerror(-rc));
}

int
port_eal_start(const struct dpv_config *cfg)
{
	char err[512];
	char *saved_optarg = optarg;
	int saved_optind = optind, saved_opterr = opterr, saved_optopt = optopt;
	int argc, i, rc;
	size_t used = 0;
	char line[1024];
	sigset_t sigs;

	if (eal_err != 0)
		return eal_err;
	if (eal_ours || rte_lcore_count() > 0) {
		/* the application may have used rte_net_crc before its EAL was
		 * up, which pins the scalar CRC; pick the vector one again */
		dpv_roce_icrc_select_best();
		return 0; /* ours already, or the application's */
	}
	/* the queues shards use (extra queues for workers carry nothing) */
	argc = dpv_eal_argv_build(cfg->eal_args, cfg->workers, cfg->shards,
				  getpid(),
				  eal_buf, sizeof(eal_buf), eal_argv,
				  RTE_DIM(eal_argv), err, sizeof(err));
	if (argc < 0) {
		PORT_LOG(ERR, "%s", err);
		return argc; /* not sticky: nothing was started */
	}
	rc = dpv_eal_args_check(argc, eal_argv, NULL, err, sizeof(err));
	if (rc < 0) {
		PORT_LOG(ERR, "%s", err);
		return rc;
	}
	for (i = 1; i < argc; i++)
		memif_stale_socket(eal_argv[i]);
	line[0] = '\0';
	for (i = 1; i < argc && used < sizeof(line); i++)
		used += snprintf(line + used, sizeof(line) - used, " %s",
				 eal_argv[i]);
	PORT_LOG(INFO, "starting EAL:%s", line);
	port_rundir_clean_stale(); /* what killed processes left */
	/* EAL's threads (interrupts, telemetry, worker lcores) take none of
	 * the application's signals */
	dpv_port_signals_block(&sigs);
	rc = rte_eal_init(argc, eal_argv);
	dpv_port_signals_restore(&sigs);
	optarg = saved_optarg;
	optind = saved_optind;
	opterr = saved_opterr;
	optopt = saved_optopt;
	if (rc < 0) {
		rc = rte_errno != 0 ? -rte_errno : -EIO;
		PORT_LOG(ERR, "EAL start failed (%s) with arguments:%s%s",
			 rte_strerror(-rc), line,
			 rc == -EACCES ? " -- without --no-huge EAL needs free "
					 "hugepages and a mounted hugetlbfs"
				       : "");
		eal_err = rc; /* rte_eal_init cannot be called again */
		return rc;
	}
	eal_ours = true;
	eal_pid = getpid();
	for (i = 1; i < argc; i++)
		port_eal_memif_note(eal_argv[i]);
	dpv_roce_icrc_select_best();
	return 0;
}

void
port_eal_at_exit(void)
{
	const char *rt;

	if (!dpv_port_eal_owned())
		return;
	/*
	 * No rte_eal_cleanup() here: from a destructor it races the EAL
	 * interrupt thread, which goes on serving memif control sockets and
	 * alarms and faulted on interrupt handles in memory the clean-up had
	 * released (issue 12.2). There is no way in 22.11 to stop that thread
	 * first, and at exit the kernel reclaims the memory and threads
	 * anyway. The ports were stopped and closed by the caller; the
	 * runtime directory is removed here (its telemetry socket is unlinked
	 * by an atexit handler, which runs before destructors).
	 */
	rt = rte_eal_get_runtime_dir();
	eal_ours = false;
	eal_err = -ESHUTDOWN;
	if (rt != NULL && rt[0] != '\0') {
		port_rundir_memif_release(rt);
		rmdir(rt);
	}
}

void
dpv_port_app_sigset(sigset_t *s)
{
	static const int fault_sigs[] = {SIGSEGV, SIGBUS,  SIGFPE,
					 SIGILL,  SIGTRAP, SIGSYS};

	sigfillset(s);
	for (unsigned int i = 0; i < RTE_DIM(fault_sigs); i++)
		sigdelset(s, fault_sigs[i]);
}

void
dpv_port_signals_block(sigset_t *old)
{
	sigset_t s;

	dpv_port_app_sigset(&s);
	pthread_sigmask(SIG_BLOCK, &s, old);
}

void
dpv_port_signals_restore(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}
