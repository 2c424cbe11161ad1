/* SPDX-License-Identifier: BSD-3-Clause */
/* The dpv-test runner: registry, suite runner, EAL bring-up, main(). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "dpv_port.h"
#include "dpv_roce_icrc.h"
#include "dpv_test.h"
#include "port_rundir.h"

#ifndef DPV_SOURCE_ROOT
#define DPV_SOURCE_ROOT "."
#endif

static struct dpv_test *registry;
static int eal_state; /* 0 not tried, 1 up, -1 failed */
static const char *const kind_names[] = {"fast", "slow", "perf"};

void
dpv_test_add(struct dpv_test *t)
{
	struct dpv_test **p = &registry;

	/* keep the list sorted by name so listings are stable */
	while (*p != NULL && strcmp((*p)->name, t->name) < 0)
		p = &(*p)->next;
	t->next = *p;
	*p = t;
}

size_t
dpv_test_first_diff(const void *a, const void *b, size_t len)
{
	const uint8_t *x = a, *y = b;
	size_t i;

	for (i = 0; i < len; i++)
		if (x[i] != y[i])
			return i;
	return (size_t)-1;
}

const char *
dpv_test_captures_dir(void)
{
	static char path[4096];
	const char *env = getenv("DPV_CAPTURES");

	if (env != NULL)
		return env;
	snprintf(path, sizeof(path), "%s/../shared/captures", DPV_SOURCE_ROOT);
	return path;
}

/* EAL's runtime directory (<base>/dpvtest<pid>), removed at exit. */
static char rundir[PATH_MAX];

static void
rundir_remove(void)
{
	if (rundir[0] != '\0')
		rmdir(rundir);
}

int
dpv_test_eal_init(void)
{
	char prefix[64], *argv[32], *copy = NULL, *tok, *save;
	const char *env = getenv("DPV_TEST_EAL");
	int argc = 0, rc;
	sigset_t sigs;

	if (eal_state != 0)
		return eal_state > 0 ? 0 : -1;
	eal_state = -1;
	argv[argc++] = "dpv-test";
	if (env != NULL) {
		copy = strdup(env);
		for (tok = strtok_r(copy, " ", &save); tok != NULL && argc < 31;
		     tok = strtok_r(NULL, " ", &save))
			argv[argc++] = tok;
	} else {
		char base[PATH_MAX];

		/* what runs killed on a timeout left (issue 12.7) */
		if (dpv_eal_runtime_base(base, sizeof(base)) == 0)
			dpv_eal_stale_dirs_clean(base, "dpvtest");
		snprintf(prefix, sizeof(prefix), "--file-prefix=dpvtest%d",
			 (int)getpid());
		argv[argc++] = "--no-huge";
		argv[argc++] = "--no-pci";
		argv[argc++] = "--no-shconf";
		argv[argc++] = "-m";
		argv[argc++] = "256";
		argv[argc++] = "--log-level=lib.eal:error";
		argv[argc++] = "--log-level=lib.net:notice";
		argv[argc++] = prefix;
	}
	argv[argc] = NULL;
	/* before rte_eal_init: runs after telemetry's own exit handler has
	 * removed its socket, when the directory is empty */
	atexit(rundir_remove);
	/* as the library does when it starts EAL: EAL's threads take none
	 * of the signals sent to the process */
	dpv_port_signals_block(&sigs);
	rc = rte_eal_init(argc, argv);
	dpv_port_signals_restore(&sigs);
	if (rc < 0) {
		fprintf(stderr, "dpv-test: EAL init failed: %s\n",
			rte_strerror(rte_errno));
		return -1; /* copy is referenced by EAL; keep it */
	}
	eal_state = 1;
	/* as the library does once EAL is up (its ICRC code by SIMD width) */
	dpv_roce_icrc_select_best();
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	return 0;
}

static void
eal_fini(void)
{
	if (eal_state > 0)
		rte_eal_cleanup();
}

int
dpv_test_run_suite(const struct dpv_test_suite *suite)
{
	const struct dpv_test_case *tc;
	unsigned int passed = 0, failed = 0, skipped = 0;
	int rc;

	printf(" + suite %s\n", suite->name);
	if (suite->setup != NULL) {
		rc = suite->setup();
		if (rc != TEST_SUCCESS) {
			printf(" + suite %s setup %s\n", suite->name,
			       rc == TEST_SKIPPED ? "skipped" : "failed");
			return rc == TEST_SKIPPED ? TEST_SKIPPED : TEST_FAILED;
		}
	}
	for (tc = suite->cases; tc->fn != NULL; tc++) {
		rc = tc->setup != NULL ? tc->setup() : TEST_SUCCESS;
		if (rc == TEST_SUCCESS) {
			rc = tc->fn();
			if (tc->teardown != NULL)
				tc->teardown();
		} else if (rc != TEST_SKIPPED) {
			rc = TEST_FAILED;
		}
		if (rc == TEST_SUCCESS)
			passed++;
		else if (rc == TEST_SKIPPED)
			skipped++;
		else
			failed++;
		printf(" + %-50s %s\n", tc->name,
		       rc == TEST_SUCCESS   ? "passed"
		       : rc == TEST_SKIPPED ? "skipped"
					    : "FAILED");
		fflush(stdout);
	}
	if (suite->teardown != NULL)
		suite->teardown();
	printf(" + suite %s: %u passed, %u failed, %u skipped\n", suite->name,
	       passed, failed, skipped);
	if (failed > 0)
		return TEST_FAILED;
	return passed > 0 ? TEST_SUCCESS : TEST_SKIPPED;
}

static int
run_one(const struct dpv_test *t)
{
	int rc;

	printf("=== %s (%s)\n", t->name, kind_names[t->kind]);
	fflush(stdout);
	rc = t->fn();
	printf("=== %s: %s\n", t->name,
	       rc == TEST_SUCCESS   ? "passed"
	       : rc == TEST_SKIPPED ? "skipped"
				    : "FAILED");
	fflush(stdout);
	return rc == TEST_SUCCESS || rc == TEST_SKIPPED ? rc : TEST_FAILED;
}

/*
 * One test in a process of its own, as meson runs each: tests change
 * what a process keeps (EAL, the device table a DPV_CONF made, ring
 * formats), so several in one process would see each other's. A test
 * that dies is a failure; the others still run.
 */
static int
run_forked(const struct dpv_test *t)
{
	int status, rc;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "dpv-test: fork: %s\n", strerror(errno));
		return TEST_FAILED;
	}
	if (pid == 0) {
		rc = run_one(t);
		eal_fini();
		exit(rc == TEST_SUCCESS ? 0 : rc == TEST_SKIPPED ? 77 : 1);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return TEST_FAILED;
	if (WIFSIGNALED(status)) {
		printf("=== %s: FAILED (signal %d)\n", t->name,
		       WTERMSIG(status));
		fflush(stdout);
		return TEST_FAILED;
	}
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	return rc == 0 ? TEST_SUCCESS : rc == 77 ? TEST_SKIPPED : TEST_FAILED;
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: dpv-test --list | --suite fast|slow|perf | NAME...\n"
		"  environment: DPV_TEST_EAL (EAL arguments), DPV_CAPTURES\n");
}

int
main(int argc, char **argv)
{
	const struct dpv_test *t;
	int i, rc, failed = 0, ran = 0, skipped = 0;

	if (argc < 2) {
		usage();
		return 2;
	}
	if (strcmp(argv[1], "--list") == 0) {
		for (t = registry; t != NULL; t = t->next)
			printf("%s %s\n", kind_names[t->kind], t->name);
		return 0;
	}
	if (strcmp(argv[1], "--suite") == 0) {
		if (argc != 3) {
			usage();
			return 2;
		}
		for (t = registry; t != NULL; t = t->next) {
			if (strcmp(kind_names[t->kind], argv[2]) != 0)
				continue;
			rc = run_forked(t);
			ran++;
			failed += rc == TEST_FAILED;
			skipped += rc == TEST_SKIPPED;
		}
		printf("%d passed, %d failed, %d skipped\n",
		       ran - failed - skipped, failed, skipped);
		eal_fini();
		return failed ? 1 : 0;
	}
	for (i = 1; i < argc; i++) {
		for (t = registry; t != NULL; t = t->next)
			if (strcmp(t->name, argv[i]) == 0)
				break;
		if (t == NULL) {
			fprintf(stderr, "dpv-test: no test named %s\n", argv[i]);
			return 2;
		}
		/* one test: in this process (a debugger sees it); more:
		 * each in its own */
		rc = argc == 2 ? run_one(t) : run_forked(t);
		ran++;
		failed += rc == TEST_FAILED;
		skipped += rc == TEST_SKIPPED;
	}
	eal_fini();
	if (failed)
		return 1;
	return skipped == ran ? TEST_SKIPPED : 0;
}
