/* SPDX-License-Identifier: BSD-3-Clause */
/* The fault layer's configuration: defaults, checks, text syntax. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_common.h>

#include "dpv_port_fault.h"
#include "dpv_roce_opcode.h"
#include "port_int.h"

/* Opcode groups of "op=": a name and the opcode table's mask bit. */
static const struct {
	const char *name;
	uint32_t flag;
} op_groups[] = {
	{"send", DPV_OPF_SEND},
	{"write", DPV_OPF_WRITE},
	{"read", DPV_OPF_READ},
	{"read_resp", DPV_OPF_READ_RESP},
	{"atomic", DPV_OPF_ATOMIC},
	{"ack", DPV_OPF_ACK},
	{"atomic_ack", DPV_OPF_ATOMIC_ACK},
};

void
dpv_fault_conf_init(struct dpv_fault_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->seed = 1;
	c->hold_us = DPV_FAULT_DEF_HOLD_US;
	for (unsigned d = 0; d < DPV_FAULT_NDIR; d++) {
		c->dir[d].window = DPV_FAULT_DEF_WINDOW;
		c->dir[d].delay_us = DPV_FAULT_DEF_DELAY_US;
	}
}

bool
dpv_fault_conf_active(const struct dpv_fault_conf *c)
{
	if (c == NULL)
		return false;
	for (unsigned d = 0; d < DPV_FAULT_NDIR; d++) {
		const struct dpv_fault_dir_conf *x = &c->dir[d];

		if (x->drop > 0 || x->corrupt > 0 || x->dup > 0 ||
		    x->reorder > 0 || x->delay > 0)
			return true;
	}
	return false;
}

static bool
prob_ok(double p)
{
	return p >= 0 && p <= 1; /* false for NaN */
}

/* 0 if c is usable by the data path, else -EINVAL. */
int
port_fault_conf_check(const struct dpv_fault_conf *c)
{
	if (c->hold_us < 1 || c->hold_us > DPV_FAULT_MAX_US)
		return -EINVAL;
	for (unsigned d = 0; d < DPV_FAULT_NDIR; d++) {
		const struct dpv_fault_dir_conf *x = &c->dir[d];

		if (!prob_ok(x->drop) || !prob_ok(x->corrupt) ||
		    !prob_ok(x->dup) || !prob_ok(x->reorder) ||
		    !prob_ok(x->delay))
			return -EINVAL;
		if (x->window < 1 || x->window > DPV_FAULT_MAX_WINDOW ||
		    x->delay_us < 1 || x->delay_us > DPV_FAULT_MAX_US ||
		    x->n_qps > DPV_FAULT_MAX_QPS)
			return -EINVAL;
		for (unsigned i = 0; i < x->n_qps; i++)
			if (x->qps[i] > 0xffffff)
				return -EINVAL;
	}
	return 0;
}

/* "0.01", "1%", "1e-3": a probability. */
static int
prob_parse(const char *s, double *out)
{
	char *end;
	double v;

	if (!isdigit((unsigned char)s[0]) && s[0] != '.')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s)
		return -EINVAL;
	if (*end == '%') {
		v /= 100;
		end++;
	}
	if (*end != '\0' || !prob_ok(v))
		return -EINVAL;
	*out = v;
	return 0;
}

static void
op_set(uint8_t ops[32], unsigned op)
{
	ops[op / 8] |= (uint8_t)(1u << (op % 8));
}

static bool
op_isset(const uint8_t ops[32], unsigned op)
{
	return ops[op / 8] & (1u << (op % 8));
}

/* One element of an op= list into ops. */
static int
op_parse(const char *s, uint8_t ops[32])
{
	unsigned long v;
	unsigned i, n = 0;

	for (i = 0; i < RTE_DIM(op_groups); i++) {
		if (strcasecmp(s, op_groups[i].name) != 0)
			continue;
		for (unsigned op = 0; op < 256; op++) {
			if (dpv_roce_opcode(op)->mask & op_groups[i].flag) {
				op_set(ops, op);
				n++;
			}
		}
		return n ? 0 : -EINVAL;
	}
	for (unsigned op = 0; op < 256; op++) {
		const char *name = dpv_roce_opcode(op)->name;

		if (name != NULL && strcasecmp(s, name) == 0) {
			op_set(ops, op);
			return 0;
		}
	}
	if (port_num_parse(s, 0, 255, &v) < 0)
		return -EINVAL;
	op_set(ops, v);
	return 0;
}

/* "N+N+N" (qp) or "OP+OP" (op) into a filter of x. */
static int
filter_parse(const char *name, char *val, struct dpv_fault_dir_conf *x)
{
	char *tok, *save = NULL;
	unsigned long v;

	if (val[0] == '\0' || val[strlen(val) - 1] == '+' ||
	    strstr(val, "++") != NULL)
		return -EINVAL;
	if (strcmp(name, "qp") == 0) {
		x->n_qps = 0;
		for (tok = strtok_r(val, "+", &save); tok != NULL;
		     tok = strtok_r(NULL, "+", &save)) {
			if (x->n_qps == DPV_FAULT_MAX_QPS ||
			    port_num_parse(tok, 0, 0xffffff, &v) < 0)
				return -EINVAL;
			x->qps[x->n_qps++] = (uint32_t)v;
		}
		return 0;
	}
	memset(x->ops, 0, sizeof(x->ops));
	x->op_filter = true;
	if (strcmp(val, "none") == 0)
		return 0; /* no opcode is affected */
	for (tok = strtok_r(val, "+", &save); tok != NULL;
	     tok = strtok_r(NULL, "+", &save))
		if (op_parse(tok, x->ops) < 0)
			return -EINVAL;
	return 0;
}

/* One "name=value" of a direction clause into x. */
static int
item_parse(char *item, struct dpv_fault_dir_conf *x, char *err, size_t errlen)
{
	char *val = strchr(item, '='), *slash;
	unsigned long v;
	double p;

	if (val == NULL || val == item) {
		port_err(err, errlen, "'%s': want name=value", item);
		return -EINVAL;
	}
	*val++ = '\0';
	if (strcmp(item, "qp") == 0 || strcmp(item, "op") == 0) {
		if (filter_parse(item, val, x) < 0) {
			port_err(err, errlen, "%s=%s: want %s separated by '+'",
				 item, val,
				 item[0] == 'q' ? "QP numbers (at most 16)"
						: "opcode names or numbers");
			return -EINVAL;
		}
		return 0;
	}
	slash = strchr(val, '/');
	if (slash != NULL)
		*slash++ = '\0';
	if (prob_parse(val, &p) < 0) {
		port_err(err, errlen,
			 "%s=%s: want a probability 0..1 or a percentage "
			 "(0.01, 1%%)",
			 item, val);
		return -EINVAL;
	}
	if (strcmp(item, "reorder") == 0) {
		x->reorder = p;
		if (slash != NULL) {
			if (port_num_parse(slash, 1, DPV_FAULT_MAX_WINDOW, &v) <
			    0) {
				port_err(
					err, errlen,
					"reorder=%s/%s: want a window of 1..%d "
					"frames",
					val, slash, DPV_FAULT_MAX_WINDOW);
				return -EINVAL;
			}
			x->window = (uint16_t)v;
		}
		return 0;
	}
	if (strcmp(item, "delay") == 0) {
		x->delay = p;
		if (slash != NULL) {
			if (port_num_parse(slash, 1, DPV_FAULT_MAX_US, &v) <
			    0) {
				port_err(err, errlen,
					 "delay=%s/%s: want 1..%d microseconds",
					 val, slash, DPV_FAULT_MAX_US);
				return -EINVAL;
			}
			x->delay_us = (uint32_t)v;
		}
		return 0;
	}
	if (slash != NULL) {
		port_err(err, errlen,
			 "%s=%s/%s: only reorder and delay take "
			 "a '/' argument",
			 item, val, slash);
		return -EINVAL;
	}
	if (strcmp(item, "drop") == 0) {
		x->drop = p;
	} else if (strcmp(item, "dup") == 0) {
		x->dup = p;
	} else if (strcmp(item, "corrupt") == 0) {
		x->corrupt = p;
	} else {
		port_err(err, errlen,
			 "unknown fault '%s' (known: drop, dup, corrupt, "
			 "reorder, delay, qp, op)",
			 item);
		return -EINVAL;
	}
	return 0;
}

/* "tx:...", "rx:...", "all:..." */
static int
dir_clause(char *cl, char *colon, struct dpv_fault_conf *c, char *err,
	   size_t errlen)
{
	char *tok, *save = NULL, *items = colon + 1;
	bool dirs[DPV_FAULT_NDIR] = {false};

	*colon = '\0';
	if (strcmp(cl, "tx") == 0)
		dirs[DPV_FAULT_TX] = true;
	else if (strcmp(cl, "rx") == 0)
		dirs[DPV_FAULT_RX] = true;
	else if (strcmp(cl, "all") == 0)
		dirs[DPV_FAULT_TX] = dirs[DPV_FAULT_RX] = true;
	else {
		port_err(err, errlen, "'%s:': want tx:, rx: or all:", cl);
		return -EINVAL;
	}
	if (items[0] == '\0' || items[strlen(items) - 1] == ',' ||
	    strstr(items, ",,") != NULL) {
		port_err(err, errlen, "%s: empty fault list element", cl);
		return -EINVAL;
	}
	for (tok = strtok_r(items, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		for (unsigned d = 0; d < DPV_FAULT_NDIR; d++) {
			char copy[128];

			if (!dirs[d])
				continue;
			/* item_parse cuts its argument: a copy per direction */
			if (strlen(tok) >= sizeof(copy)) {
				port_err(err, errlen, "'%.32s...' too long",
					 tok);
				return -EINVAL;
			}
			strcpy(copy, tok);
			if (item_parse(copy, &c->dir[d], err, errlen) < 0)
				return -EINVAL;
		}
	}
	return 0;
}

static int
global_clause(char *cl, struct dpv_fault_conf *c, char *err, size_t errlen)
{
	char *val = strchr(cl, '=');
	unsigned long v;
	char *end;

	if (val == NULL) {
		port_err(err, errlen,
			 "'%s': want DIR:fault=... (DIR tx, rx or all), "
			 "seed=N, hold_us=N, qp=... or op=...",
			 cl);
		return -EINVAL;
	}
	*val++ = '\0';
	if (strcmp(cl, "seed") == 0) {
		if (!isdigit((unsigned char)val[0]))
			goto bad;
		errno = 0;
		c->seed = strtoull(val, &end, 0);
		if (errno != 0 || *end != '\0')
			goto bad;
		return 0;
	}
	if (strcmp(cl, "hold_us") == 0) {
		if (port_num_parse(val, 1, DPV_FAULT_MAX_US, &v) < 0)
			goto bad;
		c->hold_us = (uint32_t)v;
		return 0;
	}
	if (strcmp(cl, "qp") == 0 || strcmp(cl, "op") == 0) {
		char copy[256];

		if (strlen(val) >= sizeof(copy))
			goto bad;
		for (unsigned d = 0; d < DPV_FAULT_NDIR; d++) {
			strcpy(copy, val);
			if (filter_parse(cl, copy, &c->dir[d]) < 0)
				goto bad;
		}
		return 0;
	}
	port_err(err, errlen,
		 "unknown setting '%s' (a fault needs a direction: tx:%s=..., "
		 "rx:, all:)",
		 cl, cl);
	return -EINVAL;
bad:
	port_err(err, errlen, "%s=%s: bad value", cl, val);
	return -EINVAL;
}

int
dpv_fault_parse(const char *spec, struct dpv_fault_conf *c, char *err,
		size_t errlen)
{
	struct dpv_fault_conf tmp;
	char *copy, *cl, *save = NULL;
	int rc = 0;

	if (spec == NULL || c == NULL) {
		port_err(err, errlen, "no fault specification");
		return -EINVAL;
	}
	copy = strdup(spec);
	if (copy == NULL)
		return -ENOMEM;
	tmp = *c;
	for (cl = strtok_r(copy, "; \t\n", &save); cl != NULL && rc == 0;
	     cl = strtok_r(NULL, "; \t\n", &save)) {
		char *colon = strchr(cl, ':'), *eq = strchr(cl, '=');

		if (strcmp(cl, "off") == 0)
			dpv_fault_conf_init(&tmp);
		else if (colon != NULL && (eq == NULL || colon < eq))
			rc = dir_clause(cl, colon, &tmp, err, errlen);
		else
			rc = global_clause(cl, &tmp, err, errlen);
	}
	free(copy);
	if (rc == 0)
		*c = tmp;
	return rc;
}

/* Shortest decimal that reads back to the same double. */
static void
prob_str(double p, char *buf, size_t len)
{
	for (int prec = 6; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, p);
		if (strtod(buf, NULL) == p)
			return;
	}
}

/* Append to buf (at *pos, as snprintf). */
static void __attribute__((format(printf, 4, 5)))
out(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*pos < len ? buf + *pos : NULL,
		      *pos < len ? len - *pos : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*pos += (size_t)n;
}

static void
ops_format(const uint8_t ops[32], char *buf, size_t len, size_t *pos)
{
	uint8_t left[32];
	const char *sep = "";

	memcpy(left, ops, sizeof(left));
	for (unsigned g = 0; g < RTE_DIM(op_groups); g++) {
		bool all = true, any = false;

		for (unsigned op = 0; op < 256; op++) {
			if (!(dpv_roce_opcode(op)->mask & op_groups[g].flag))
				continue;
			any = true;
			all = all && op_isset(left, op);
		}
		if (!any || !all)
			continue;
		out(buf, len, pos, "%s%s", sep, op_groups[g].name);
		sep = "+";
		for (unsigned op = 0; op < 256; op++)
			if (dpv_roce_opcode(op)->mask & op_groups[g].flag)
				left[op / 8] &= (uint8_t) ~(1u << (op % 8));
	}
	for (unsigned op = 0; op < 256; op++) {
		if (!op_isset(left, op))
			continue;
		out(buf, len, pos, "%s%u", sep, op);
		sep = "+";
	}
	if (sep[0] == '\0')
		out(buf, len, pos, "none");
}

int
dpv_fault_format(const struct dpv_fault_conf *c, char *buf, size_t len)
{
	static const char *const dname[] = {"tx", "rx"};
	size_t pos = 0;
	char p[32];

	if (c == NULL || buf == NULL)
		return -EINVAL;
	if (len > 0)
		buf[0] = '\0';
	if (!dpv_fault_conf_active(c)) {
		out(buf, len, &pos, "off");
		return (int)pos;
	}
	for (unsigned d = 0; d < DPV_FAULT_NDIR; d++) {
		const struct dpv_fault_dir_conf *x = &c->dir[d];
		const char *sep = ":";

		if (!(x->drop > 0 || x->corrupt > 0 || x->dup > 0 ||
		      x->reorder > 0 || x->delay > 0))
			continue;
		out(buf, len, &pos, "%s", dname[d]);
#define RATE(name)                                                             \
	if (x->name > 0) {                                                     \
		prob_str(x->name, p, sizeof(p));                               \
		out(buf, len, &pos, "%s" #name "=%s", sep, p);                 \
		sep = ",";                                                     \
	}
		RATE(drop)
		RATE(corrupt)
		RATE(dup)
#undef RATE
		if (x->reorder > 0) {
			prob_str(x->reorder, p, sizeof(p));
			out(buf, len, &pos, "%sreorder=%s/%u", sep, p,
			    x->window);
			sep = ",";
		}
		if (x->delay > 0) {
			prob_str(x->delay, p, sizeof(p));
			out(buf, len, &pos, "%sdelay=%s/%u", sep, p,
			    x->delay_us);
			sep = ",";
		}
		for (unsigned i = 0; i < x->n_qps; i++)
			out(buf, len, &pos, "%s%#x",
			    i ? "+" : ",qp=", x->qps[i]);
		if (x->op_filter) {
			out(buf, len, &pos, ",op=");
			ops_format(x->ops, buf, len, &pos);
		}
		out(buf, len, &pos, ";");
	}
	out(buf, len, &pos, "seed=%" PRIu64, c->seed);
	if (c->hold_us != DPV_FAULT_DEF_HOLD_US)
		out(buf, len, &pos, ";hold_us=%u", c->hold_us);
	return (int)pos;
}
