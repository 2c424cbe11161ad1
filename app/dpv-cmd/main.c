/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpv-cmd: a testpmd-style interactive tool on DPDK's cmdline library.
 *   dpv-cmd                interactive (line editing, history, help)
 *   dpv-cmd -f FILE        run the commands of FILE, then exit
 *   dpv-cmd < FILE         the same from standard input (not a terminal)
 * Exit status: 0, or 1 if a command failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>
#include <cmdline_socket.h>

#include "cmd.h"

static int failed;

/* ---- show devices | port | qps | counters */
struct show_res {
	cmdline_fixed_string_t show;
	cmdline_fixed_string_t what;
};

static void
show_cb(void *res, struct cmdline *cl, void *data)
{
	struct show_res *r = res;

	(void)cl;
	(void)data;
	if (!strcmp(r->what, "devices"))
		cmd_show_devices(stdout);
	else if (!strcmp(r->what, "port"))
		cmd_show_port(stdout);
	else if (!strcmp(r->what, "counters"))
		cmd_show_counters(stdout);
	else
		cmd_show_qps(stdout);
}

static cmdline_parse_token_string_t show_tok =
	TOKEN_STRING_INITIALIZER(struct show_res, show, "show");
static cmdline_parse_token_string_t show_what = TOKEN_STRING_INITIALIZER(
	struct show_res, what, "devices#port#qps#counters");
static cmdline_parse_inst_t cmd_show = {
	.f = show_cb,
	.help_str = "show devices|port|qps|counters",
	.tokens = {(void *)&show_tok, (void *)&show_what, NULL},
};

/* ---- qp create|destroy ID */
struct qp_res {
	cmdline_fixed_string_t qp;
	cmdline_fixed_string_t action;
	uint16_t id;
};

static void
qp_cb(void *res, struct cmdline *cl, void *data)
{
	struct qp_res *r = res;
	int rc;

	(void)cl;
	(void)data;
	if (!strcmp(r->action, "create"))
		rc = cmd_qp_create(stdout, r->id);
	else
		rc = cmd_qp_destroy(stdout, r->id);
	failed |= rc != 0;
}

static cmdline_parse_token_string_t qp_tok =
	TOKEN_STRING_INITIALIZER(struct qp_res, qp, "qp");
static cmdline_parse_token_string_t qp_action =
	TOKEN_STRING_INITIALIZER(struct qp_res, action, "create#destroy");
static cmdline_parse_token_num_t qp_id =
	TOKEN_NUM_INITIALIZER(struct qp_res, id, RTE_UINT16);
static cmdline_parse_inst_t cmd_qp = {
	.f = qp_cb,
	.help_str = "qp create|destroy ID: an RC QP on the first device",
	.tokens = {(void *)&qp_tok, (void *)&qp_action, (void *)&qp_id, NULL},
};

/* ---- connect A B */
struct conn_res {
	cmdline_fixed_string_t connect;
	uint16_t a, b;
};

static void
conn_cb(void *res, struct cmdline *cl, void *data)
{
	struct conn_res *r = res;

	(void)cl;
	(void)data;
	failed |= cmd_qp_connect(stdout, r->a, r->b) != 0;
}

static cmdline_parse_token_string_t conn_tok =
	TOKEN_STRING_INITIALIZER(struct conn_res, connect, "connect");
static cmdline_parse_token_num_t conn_a =
	TOKEN_NUM_INITIALIZER(struct conn_res, a, RTE_UINT16);
static cmdline_parse_token_num_t conn_b =
	TOKEN_NUM_INITIALIZER(struct conn_res, b, RTE_UINT16);
static cmdline_parse_inst_t cmd_conn = {
	.f = conn_cb,
	.help_str = "connect A B: QPs A and B to each other, both to RTS",
	.tokens = {(void *)&conn_tok, (void *)&conn_a, (void *)&conn_b, NULL},
};

/* ---- traffic ID send|write|read|atomic SIZE COUNT */
struct traffic_res {
	cmdline_fixed_string_t traffic;
	uint16_t id;
	cmdline_fixed_string_t op;
	uint32_t size, count;
};

static void
traffic_cb(void *res, struct cmdline *cl, void *data)
{
	struct traffic_res *r = res;

	(void)cl;
	(void)data;
	failed |= cmd_traffic(stdout, r->id, r->op, r->size, r->count) != 0;
}

static cmdline_parse_token_string_t tr_tok =
	TOKEN_STRING_INITIALIZER(struct traffic_res, traffic, "traffic");
static cmdline_parse_token_num_t tr_id =
	TOKEN_NUM_INITIALIZER(struct traffic_res, id, RTE_UINT16);
static cmdline_parse_token_string_t tr_op = TOKEN_STRING_INITIALIZER(
	struct traffic_res, op, "send#write#read#atomic");
static cmdline_parse_token_num_t tr_size =
	TOKEN_NUM_INITIALIZER(struct traffic_res, size, RTE_UINT32);
static cmdline_parse_token_num_t tr_count =
	TOKEN_NUM_INITIALIZER(struct traffic_res, count, RTE_UINT32);
static cmdline_parse_inst_t cmd_traffic_inst = {
	.f = traffic_cb,
	.help_str = "traffic ID send|write|read|atomic SIZE COUNT: from QP ID "
		    "to its peer, data checked, throughput printed",
	.tokens = {(void *)&tr_tok, (void *)&tr_id, (void *)&tr_op,
		   (void *)&tr_size, (void *)&tr_count, NULL},
};

/* ---- quit */
struct quit_res {
	cmdline_fixed_string_t quit;
};

static void
quit_cb(void *res, struct cmdline *cl, void *data)
{
	(void)res;
	(void)data;
	cmdline_quit(cl);
}

static cmdline_parse_token_string_t quit_tok =
	TOKEN_STRING_INITIALIZER(struct quit_res, quit, "quit");
static cmdline_parse_inst_t cmd_quit = {
	.f = quit_cb,
	.help_str = "quit",
	.tokens = {(void *)&quit_tok, NULL},
};

static cmdline_parse_ctx_t main_ctx[] = {
	(cmdline_parse_inst_t *)&cmd_show,
	(cmdline_parse_inst_t *)&cmd_qp,
	(cmdline_parse_inst_t *)&cmd_conn,
	(cmdline_parse_inst_t *)&cmd_traffic_inst,
	(cmdline_parse_inst_t *)&cmd_quit,
	NULL};

int
main(int argc, char **argv)
{
	struct cmdline *cl;
	int opt;
	const char *file = NULL;

	while ((opt = getopt(argc, argv, "f:h")) != -1) {
		if (opt == 'f') {
			file = optarg;
		} else {
			fprintf(stderr, "usage: %s [-f FILE]\n", argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (file != NULL)
		cl = cmdline_file_new(main_ctx, "", file);
	else if (isatty(0))
		cl = cmdline_stdin_new(main_ctx, "dpv> ");
	else
		cl = cmdline_new(main_ctx, "", 0, 1);
	if (cl == NULL) {
		fprintf(stderr, "dpv-cmd: cannot read %s\n",
			file ? file : "standard input");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	cmdline_interact(cl);
	if (file == NULL && isatty(0))
		cmdline_stdin_exit(cl);
	else
		cmdline_free(cl);
	cmd_cleanup();
	return failed ? 1 : 0;
}
