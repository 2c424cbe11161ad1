/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfv_rss_check: reads the report nfv_forwarder -r wrote and predicts,
 * with DPDK's own software Toeplitz hash (rte_softrss() from rte_thash.h)
 * and the same key and indirection table, the receive queue of every flow
 * the forwarder saw. Prints predicted and counted frames per queue and
 * exits 0 when every flow arrived on its predicted queue and the counts
 * per queue agree. With -n N it also checks that each device saw exactly
 * N distinct flows.
 *
 * Usage: nfv_rss_check [-n flows] REPORT
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_thash.h>

#define MAX_DEV 2
#define MAX_Q	16

struct dev {
	char name[32];
	unsigned long long counted[MAX_Q], predicted[MAX_Q];
	unsigned int flows;
};

static struct dev devs[MAX_DEV];
static unsigned int ndev;

static struct dev *
dev_of(const char *name)
{
	for (unsigned int i = 0; i < ndev; i++)
		if (strcmp(devs[i].name, name) == 0)
			return &devs[i];
	if (ndev == MAX_DEV)
		return NULL;
	snprintf(devs[ndev].name, sizeof(devs[ndev].name), "%s", name);
	return &devs[ndev++];
}

int
main(int argc, char **argv)
{
	uint8_t key[40];
	unsigned int table[64], tsize = 0, nkey = 0, want_flows = 0;
	unsigned long long wrong = 0, frames = 0;
	char line[256], dn[32], sa[16], da[16];
	int opt, bad = 0;
	FILE *f;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n')
			goto usage;
		want_flows = atoi(optarg);
	}
	if (optind != argc - 1)
		goto usage;
	f = fopen(argv[optind], "r");
	if (f == NULL) {
		perror(argv[optind]);
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned int q, sport, dport;
		unsigned long long n;
		struct in_addr s, d;
		struct dev *dv;
		char *tok;

		if (strncmp(line, "key ", 4) == 0) {
			for (tok = strtok(line + 4, " \n"); tok && nkey < 40;
			     tok = strtok(NULL, " \n"))
				key[nkey++] = strtoul(tok, NULL, 16);
		} else if (strncmp(line, "table ", 6) == 0) {
			for (tok = strtok(line + 6, " \n"); tok && tsize < 64;
			     tok = strtok(NULL, " \n"))
				table[tsize++] = atoi(tok);
		} else if (sscanf(line, "queue %31s %u %llu", dn, &q, &n) ==
			   3) {
			dv = dev_of(dn);
			if (dv == NULL || q >= MAX_Q)
				goto malformed;
			dv->counted[q] = n;
		} else if (sscanf(line, "flow %31s %15s %15s %u %u %u %llu", dn,
				  sa, da, &sport, &dport, &q, &n) == 7) {
			struct rte_ipv4_tuple t;
			uint32_t h;
			unsigned int pq;

			dv = dev_of(dn);
			if (dv == NULL || tsize == 0 || nkey != 40 ||
			    !inet_pton(AF_INET, sa, &s) ||
			    !inet_pton(AF_INET, da, &d))
				goto malformed;
			/* rte_softrss takes the tuple in host byte order */
			t.src_addr = ntohl(s.s_addr);
			t.dst_addr = ntohl(d.s_addr);
			t.sport = sport;
			t.dport = dport;
			h = rte_softrss((uint32_t *)&t, RTE_THASH_V4_L4_LEN,
					key);
			pq = table[h % tsize];
			if (pq >= MAX_Q)
				goto malformed;
			dv->predicted[pq] += n;
			dv->flows++;
			frames += n;
			if (pq != q) {
				wrong += n;
				printf("flow %s %s:%u -> %s:%u: hash %08x, "
				       "predicted queue %u, arrived on %u "
				       "(%llu frames)\n",
				       dn, sa, sport, da, dport, h, pq, q, n);
			}
		}
	}
	fclose(f);
	for (unsigned int i = 0; i < ndev; i++) {
		struct dev *dv = &devs[i];

		printf("%s: %u flows;", dv->name, dv->flows);
		for (unsigned int q = 0; q < MAX_Q; q++) {
			if (dv->counted[q] == 0 && dv->predicted[q] == 0)
				continue;
			printf(" q%u predicted %llu counted %llu%s", q,
			       dv->predicted[q], dv->counted[q],
			       dv->predicted[q] == dv->counted[q]
				       ? ""
				       : " (MISMATCH)");
			bad |= dv->predicted[q] != dv->counted[q];
		}
		printf("\n");
		if (want_flows && dv->flows != want_flows) {
			printf("%s: %u flows seen, want %u\n", dv->name,
			       dv->flows, want_flows);
			bad = 1;
		}
	}
	if (ndev == 0 || frames == 0) {
		printf("no frames in the report\n");
		bad = 1;
	}
	printf("%s: %llu frames, %llu on a queue rte_softrss() did not "
	       "predict\n",
	       bad || wrong ? "FAIL" : "OK", frames, wrong);
	return bad || wrong ? 1 : 0;
malformed:
	fprintf(stderr, "%s: malformed report line: %s", argv[optind], line);
	return 2;
usage:
	fprintf(stderr, "usage: %s [-n flows] REPORT\n", argv[0]);
	return 2;
}
