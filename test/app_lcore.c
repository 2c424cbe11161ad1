/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpv-app-lcore: application threads that drive an engine get an lcore id
 * of their own, for test/scripts/fast-app-lcore.sh. The library starts EAL
 * itself (no configuration: the loopback device); then THREADS threads
 * (default 3 x RTE_MAX_LCORE), one after the other, each call
 * ibv_poll_cq() once and check their lcore id before and after: none
 * before; after, one when EXPECT is "on" (an id given back at each
 * thread's exit, or the ids would run out), none when it is "off"
 * (DPV_APP_LCORE=0). The thread that started EAL keeps the main lcore's
 * id. Prints one RESULT line; exits 0 when every thread saw what EXPECT
 * says.
 *
 *   dpv-app-lcore on|off [THREADS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rte_lcore.h>

struct tres {
	struct ibv_cq *cq;
	unsigned before, after; /* lcore ids */
	int polled;		/* ibv_poll_cq's return */
};

static void *
thread_main(void *arg)
{
	struct tres *r = arg;
	struct ibv_wc wc;

	r->before = rte_lcore_id();
	r->polled = ibv_poll_cq(r->cq, 1, &wc);
	r->after = rte_lcore_id();
	return NULL;
}

int
main(int argc, char **argv)
{
	struct ibv_device **devs;
	struct ibv_context *ctx;
	struct ibv_cq *cq;
	unsigned nthr = 3 * RTE_MAX_LCORE, with_id = 0, bad = 0, n;
	unsigned main_id;
	bool expect;

	if (argc < 2 || (strcmp(argv[1], "on") && strcmp(argv[1], "off"))) {
		fprintf(stderr, "usage: %s on|off [THREADS]\n", argv[0]);
		return 2;
	}
	expect = strcmp(argv[1], "on") == 0;
	if (argc > 2)
		nthr = (unsigned)atoi(argv[2]);
	devs = ibv_get_device_list(NULL);
	if (devs == NULL || devs[0] == NULL) {
		fprintf(stderr, "no device\n");
		return 1;
	}
	ctx = ibv_open_device(devs[0]);
	cq = ctx ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	if (cq == NULL) {
		fprintf(stderr, "open or create_cq failed\n");
		return 1;
	}
	main_id = rte_lcore_id();
	for (n = 0; n < nthr; n++) {
		struct tres r = {.cq = cq};
		pthread_t t;

		if (pthread_create(&t, NULL, thread_main, &r) != 0 ||
		    pthread_join(t, NULL) != 0) {
			fprintf(stderr, "thread %u: create or join failed\n",
				n);
			return 1;
		}
		if (r.after != LCORE_ID_ANY)
			with_id++;
		if (r.polled != 0 || r.before != LCORE_ID_ANY ||
		    (r.after != LCORE_ID_ANY) != expect ||
		    r.after == main_id) {
			if (bad++ < 5)
				fprintf(stderr,
					"thread %u: poll %d, lcore %d before, "
					"%d after\n",
					n, r.polled, (int)r.before,
					(int)r.after);
		}
	}
	printf("RESULT app_lcore expect=%s threads=%u with_id=%u bad=%u "
	       "main_lcore=%u\n",
	       argv[1], nthr, with_id, bad, main_id);
	ibv_destroy_cq(cq);
	ibv_close_device(ctx);
	ibv_free_device_list(devs);
	return bad == 0 && main_id != LCORE_ID_ANY ? 0 : 1;
}
