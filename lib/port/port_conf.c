/* SPDX-License-Identifier: BSD-3-Clause */
/* Configuration: INI file (rte_cfgfile), DPV_EAL / DPV_IP, value parsers. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <rte_cfgfile.h>
#include <rte_ether.h>
#include <rte_string_fns.h>

#include "dpv_build_config.h"
#include "dpv_port_conf.h"
#include "port_int.h"

RTE_LOG_REGISTER(dpv_logtype_port, dpv.port, NOTICE);

void
port_log_init(void)
{
	int t;

	if (dpv_logtype_port != 0)
		return;
	t = rte_log_register_type_and_pick_level("dpv.port", RTE_LOG_NOTICE);
	if (t >= 0)
		dpv_logtype_port = t;
}

/* rte_cfgfile silently truncates longer names and values */
#define MAX_VALUE (CFG_VALUE_LEN - 2)
#define MAX_NAME  (CFG_NAME_LEN - 2)

void
dpv_port_conf_init(struct dpv_port_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->kind = DPV_PORT_KIND_AUTO;
	dpv_fault_conf_init(&c->fault);
}

void
dpv_config_init(struct dpv_config *cfg)
{
	unsigned i;

	memset(cfg, 0, sizeof(*cfg));
	strlcpy(cfg->eal_args, DPV_EAL_DEFAULT_ARGS, sizeof(cfg->eal_args));
	for (i = 0; i < DPV_PORT_MAX; i++)
		dpv_port_conf_init(&cfg->port[i]);
	cfg->n_ports = 1;
}

static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Parse one "ADDR[/PREFIX]" (already trimmed). */
static int
ip_parse_one(const char *s, struct dpv_ip_addr *a, bool allow_prefix)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	struct in_addr v4;
	unsigned long plen;
	unsigned max;

	if (strlcpy(buf, s, sizeof(buf)) >= sizeof(buf) || buf[0] == '\0')
		return -EINVAL;
	slash = strchr(buf, '/');
	if (slash != NULL) {
		if (!allow_prefix)
			return -EINVAL;
		*slash++ = '\0';
	}
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, buf, &v4) == 1) {
		a->family = AF_INET;
		a->addr[10] = 0xff;
		a->addr[11] = 0xff;
		memcpy(&a->addr[12], &v4, 4);
		max = 32;
	} else if (inet_pton(AF_INET6, buf, a->addr) == 1) {
		a->family = AF_INET6;
		max = 128;
	} else {
		return -EINVAL;
	}
	a->prefix_len = max;
	if (slash != NULL) {
		if (!isdigit((unsigned char)*slash))
			return -EINVAL;
		errno = 0;
		plen = strtoul(slash, &end, 10);
		if (errno != 0 || *end != '\0' || plen > max)
			return -EINVAL;
		a->prefix_len = plen;
	}
	return 0;
}

int
dpv_ip_list_parse(const char *s, struct dpv_ip_addr *out, unsigned max,
		  unsigned *n, char *err, size_t errlen)
{
	char *copy, *tok, *save = NULL, *t;
	unsigned cnt = *n;
	int rc = 0;

	if (s == NULL || strspn(s, " \t") == strlen(s)) {
		port_err(err, errlen, "empty address list");
		return -EINVAL;
	}
	copy = strdup(s);
	if (copy == NULL)
		return -ENOMEM;
	/* a trailing or doubled comma is an empty element: an error */
	if (strstr(copy, ",,") != NULL || trim(copy)[0] == ',' ||
	    copy[strlen(copy) - 1] == ',') {
		port_err(err, errlen, "empty element in address list '%s'", s);
		free(copy);
		return -EINVAL;
	}
	for (tok = strtok_r(copy, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		t = trim(tok);
		if (cnt >= max) {
			port_err(err, errlen,
				 "too many addresses (max %u) in '%s'", max, s);
			rc = -EINVAL;
			break;
		}
		if (ip_parse_one(t, &out[cnt], true) < 0) {
			port_err(err, errlen,
				 "bad address '%s' (want IPv4 or IPv6 address "
				 "with optional /prefix)",
				 t);
			rc = -EINVAL;
			break;
		}
		cnt++;
	}
	free(copy);
	if (rc == 0)
		*n = cnt;
	return rc;
}

static int
mac_parse(const char *s, uint8_t mac[6])
{
	struct rte_ether_addr ea;

	if (strlen(s) != 17 || rte_ether_unformat_addr(s, &ea) != 0)
		return -EINVAL;
	memcpy(mac, ea.addr_bytes, 6);
	return 0;
}

int
dpv_neigh_list_parse(const char *s, struct dpv_neigh *out, unsigned max,
		     unsigned *n, char *err, size_t errlen)
{
	char *copy, *tok, *save = NULL, *t, *sep, *m;
	struct dpv_ip_addr a;
	unsigned cnt = *n;
	int rc = 0;

	copy = strdup(s);
	if (copy == NULL)
		return -ENOMEM;
	if (trim(copy)[0] == '\0' || strstr(copy, ",,") != NULL ||
	    copy[strlen(copy) - 1] == ',') {
		port_err(err, errlen, "empty element in neighbour list '%s'",
			 s);
		free(copy);
		return -EINVAL;
	}
	for (tok = strtok_r(copy, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		t = trim(tok);
		sep = t + strcspn(t, " \t=");
		if (*sep == '\0') {
			port_err(err, errlen,
				 "bad neighbour '%s' (want 'IP MAC', e.g. "
				 "'192.0.2.2 02:00:00:00:00:02')",
				 t);
			rc = -EINVAL;
			break;
		}
		*sep++ = '\0';
		m = sep + strspn(sep, " \t=");
		if (ip_parse_one(t, &a, false) < 0) {
			port_err(err, errlen, "bad neighbour address '%s'", t);
			rc = -EINVAL;
			break;
		}
		if (cnt >= max) {
			port_err(err, errlen, "too many neighbours (max %u)",
				 max);
			rc = -EINVAL;
			break;
		}
		if (mac_parse(m, out[cnt].mac) < 0) {
			port_err(err, errlen, "bad neighbour MAC '%s' for %s",
				 m, t);
			rc = -EINVAL;
			break;
		}
		memcpy(out[cnt].ip, a.addr, 16);
		cnt++;
	}
	free(copy);
	if (rc == 0)
		*n = cnt;
	return rc;
}

char *
dpv_ip_addr_str(const struct dpv_ip_addr *a, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	if (a->family == AF_INET)
		inet_ntop(AF_INET, &a->addr[12], ip, sizeof(ip));
	else
		inet_ntop(AF_INET6, a->addr, ip, sizeof(ip));
	snprintf(buf, len, "%s/%u", ip, a->prefix_len);
	return buf;
}

int
port_num_parse(const char *s, unsigned long lo, unsigned long hi,
	       unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno != 0 || *end != '\0' || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static int
bool_parse(const char *s, bool *out)
{
	static const char *const yes[] = {"yes", "true", "on", "1"};
	static const char *const no[] = {"no", "false", "off", "0"};
	unsigned i;

	for (i = 0; i < RTE_DIM(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* "off", "auto" or an interface name: 0, or -EINVAL. */
static int
netdev_parse(const char *v, enum dpv_netdev_mode *mode,
	     char name[DPV_NETDEV_NAME_LEN])
{
	size_t len = strlen(v);

	if (strcmp(v, "off") == 0 || strcmp(v, "no") == 0) {
		*mode = DPV_NETDEV_OFF;
		return 0;
	}
	if (strcmp(v, "auto") == 0) {
		*mode = DPV_NETDEV_AUTO;
		return 0;
	}
	/* what the kernel takes as a name (dev_valid_name()) */
	if (len == 0 || len >= DPV_NETDEV_NAME_LEN || strcmp(v, ".") == 0 ||
	    strcmp(v, "..") == 0 || strpbrk(v, "/: \t\n") != NULL)
		return -EINVAL;
	*mode = DPV_NETDEV_NAME;
	strlcpy(name, v, DPV_NETDEV_NAME_LEN);
	return 0;
}

#define NETDEV_WANT "want off, auto or an interface name of 1..15 characters"

static int
port_sel_parse(struct dpv_port_conf *pc, const char *v)
{
	unsigned long id;

	if (strcasecmp(v, "loopback") == 0) {
		pc->kind = DPV_PORT_KIND_LOOPBACK;
	} else if (strcasecmp(v, "auto") == 0) {
		pc->kind = DPV_PORT_KIND_AUTO;
	} else if (isdigit((unsigned char)v[0])) {
		if (port_num_parse(v, 0, RTE_MAX_ETHPORTS - 1, &id) < 0)
			return -EINVAL;
		pc->kind = DPV_PORT_KIND_ID;
		pc->port_id = id;
	} else {
		if (strpbrk(v, " \t,=") != NULL ||
		    strlcpy(pc->dev, v, sizeof(pc->dev)) >= sizeof(pc->dev))
			return -EINVAL;
		pc->kind = DPV_PORT_KIND_NAME;
	}
	return 0;
}

static int
vdev_parse(struct dpv_port_conf *pc, const char *v)
{
	size_t nlen = strcspn(v, ",");

	if (nlen == 0 || strpbrk(v, " \t") != NULL ||
	    strlcpy(pc->dev, v, sizeof(pc->dev)) >= sizeof(pc->dev))
		return -EINVAL;
	pc->kind = DPV_PORT_KIND_VDEV;
	return 0;
}

#define KEY_ERR(fmt, ...)                                                      \
	port_err(err, errlen, "%s: [%s] %s = %s: " fmt, path, sec, e->name,    \
		 e->value, ##__VA_ARGS__)

/* One key of a [dpvN] section. */
static int
device_key(struct dpv_port_conf *pc, const char *path, const char *sec,
	   const struct rte_cfgfile_entry *e, bool *ip_seen, bool *sel_seen,
	   char *err, size_t errlen)
{
	char sub[192];
	unsigned long v;
	const char *val = e->value;

	if (strcmp(e->name, "port") == 0 || strcmp(e->name, "vdev") == 0) {
		if (*sel_seen) {
			KEY_ERR("give one of 'port' and 'vdev', once");
			return -EINVAL;
		}
		*sel_seen = true;
		if (e->name[0] == 'p' ? port_sel_parse(pc, val) < 0
				      : vdev_parse(pc, val) < 0) {
			KEY_ERR("%s",
				e->name[0] == 'p'
					? "want loopback, auto, a DPDK port id "
					  "or an ethdev name"
					: "want 'driver_name[,key=value...]' "
					  "without blanks");
			return -EINVAL;
		}
	} else if (strcmp(e->name, "ip") == 0) {
		if (!*ip_seen)
			pc->n_addrs = 0;
		*ip_seen = true;
		if (dpv_ip_list_parse(val, pc->addrs, DPV_PORT_MAX_ADDRS,
				      &pc->n_addrs, sub, sizeof(sub)) < 0) {
			KEY_ERR("%s", sub);
			return -EINVAL;
		}
	} else if (strcmp(e->name, "neigh") == 0) {
		if (dpv_neigh_list_parse(val, pc->neigh, DPV_PORT_MAX_NEIGH,
					 &pc->n_neigh, sub, sizeof(sub)) < 0) {
			KEY_ERR("%s", sub);
			return -EINVAL;
		}
	} else if (strcmp(e->name, "mac") == 0) {
		static const uint8_t zero[6];

		if (mac_parse(val, pc->mac) < 0 || (pc->mac[0] & 1) ||
		    memcmp(pc->mac, zero, 6) == 0) {
			KEY_ERR("want a unicast MAC such as 02:00:00:00:00:01");
			return -EINVAL;
		}
		pc->has_mac = true;
	} else if (strcmp(e->name, "mtu") == 0) {
		if (port_num_parse(val, 68, 65535, &v) < 0) {
			KEY_ERR("want a number 68..65535");
			return -EINVAL;
		}
		pc->mtu = v;
	} else if (strcmp(e->name, "queues") == 0) {
		if (port_num_parse(val, 1, 16, &v) < 0) {
			KEY_ERR("want a number 1..16");
			return -EINVAL;
		}
		pc->queues = v;
	} else if (strcmp(e->name, "rx_desc") == 0 ||
		   strcmp(e->name, "tx_desc") == 0) {
		if (port_num_parse(val, 32, 32768, &v) < 0) {
			KEY_ERR("want a number 32..32768");
			return -EINVAL;
		}
		if (e->name[0] == 'r')
			pc->rx_desc = v;
		else
			pc->tx_desc = v;
	} else if (strcmp(e->name, "mbufs") == 0) {
		if (port_num_parse(val, 256, 1u << 22, &v) < 0) {
			KEY_ERR("want a number 256..4194304");
			return -EINVAL;
		}
		pc->mbufs = v;
	} else if (strcmp(e->name, "mbuf_size") == 0) {
		if (port_num_parse(val, 1024, 65535, &v) < 0) {
			KEY_ERR("want a number 1024..65535");
			return -EINVAL;
		}
		pc->mbuf_size = v;
	} else if (strcmp(e->name, "promisc") == 0) {
		if (bool_parse(val, &pc->promisc) < 0) {
			KEY_ERR("want yes or no");
			return -EINVAL;
		}
	} else if (strcmp(e->name, "personality") == 0) {
		if (strcmp(val, "dpverbs") == 0) {
			pc->personality = DPV_PERSONALITY_DPVERBS;
		} else if (strcmp(val, "mlx5") == 0) {
			pc->personality = DPV_PERSONALITY_MLX5;
		} else {
			KEY_ERR("want dpverbs or mlx5");
			return -EINVAL;
		}
	} else if (strcmp(e->name, "rings") == 0) {
		if (strcmp(val, "mlx5") == 0) {
			pc->rings = DPV_RINGS_MLX5;
		} else if (strcmp(val, "mlx4") == 0) {
			pc->rings = DPV_RINGS_MLX4;
		} else {
			KEY_ERR("want mlx5 or mlx4");
			return -EINVAL;
		}
	} else if (strcmp(e->name, "part_id") == 0) {
		if (port_num_parse(val, 1, 0xffff, &v) < 0) {
			KEY_ERR("want a PCI device id 1..0xffff");
			return -EINVAL;
		}
		pc->part_id = v;
	} else if (strcmp(e->name, "netdev") == 0) {
		if (netdev_parse(val, &pc->netdev, pc->netdev_name) < 0) {
			KEY_ERR(NETDEV_WANT);
			return -EINVAL;
		}
	} else if (strcmp(e->name, "fault") == 0) {
		/* repeatable: each line adds to the previous ones */
		if (dpv_fault_parse(val, &pc->fault, sub, sizeof(sub)) < 0) {
			KEY_ERR("%s", sub);
			return -EINVAL;
		}
	} else {
		KEY_ERR("unknown key (known: port, vdev, ip, mac, mtu, neigh, "
			"queues, rx_desc, tx_desc, mbufs, mbuf_size, promisc, "
			"fault, personality, part_id, netdev, rings)");
		return -EINVAL;
	}
	return 0;
}

/* "dpv<N>" with N in range: N, else -1. */
static int
device_section(const char *sec)
{
	unsigned long n;

	if (strncmp(sec, "dpv", 3) != 0 || sec[3] == '\0' ||
	    (sec[3] == '0' && sec[4] != '\0') ||
	    port_num_parse(sec + 3, 0, DPV_PORT_MAX - 1, &n) < 0)
		return -1;
	return (int)n;
}

static int
load_sections(struct dpv_config *cfg, struct rte_cfgfile *f, const char *path,
	      char *err, size_t errlen)
{
	struct rte_cfgfile_entry *ents = NULL;
	char sec[CFG_NAME_LEN];
	bool seen[DPV_PORT_MAX] = {false}, eal_seen = false;
	int ns = rte_cfgfile_num_sections(f, NULL, 0);
	int s, i, ne, dev, rc = 0;
	unsigned long v;
	unsigned n_ports = 0;

	for (s = 0; s < ns && rc == 0; s++) {
		ne = rte_cfgfile_section_num_entries_by_index(f, sec, s);
		if (ne < 0)
			break;
		free(ents);
		ents = calloc(ne + 1, sizeof(*ents));
		if (ents == NULL)
			return -ENOMEM;
		ne = rte_cfgfile_section_entries_by_index(f, s, sec, ents, ne);
		dev = device_section(sec);
		if (strcmp(sec, "GLOBAL") == 0 && ne == 0)
			continue;
		if (strcmp(sec, "GLOBAL") == 0) {
			port_err(err, errlen,
				 "%s: key '%s' is outside any section", path,
				 ents[0].name);
			rc = -EINVAL;
			break;
		}
		if (strcmp(sec, "eal") != 0 && strcmp(sec, "dpverbs") != 0 &&
		    dev < 0) {
			port_err(err, errlen,
				 "%s: unknown section [%s] (known: [eal], "
				 "[dpverbs], [dpv0] .. [dpv%d])",
				 path, sec, DPV_PORT_MAX - 1);
			rc = -EINVAL;
			break;
		}
		if (dev >= 0) {
			if (seen[dev]) {
				port_err(err, errlen,
					 "%s: section [%s] appears twice", path,
					 sec);
				rc = -EINVAL;
				break;
			}
			seen[dev] = true;
			if ((unsigned)dev + 1 > n_ports)
				n_ports = dev + 1;
		}
		bool ip_seen = false, sel_seen = false;

		for (i = 0; i < ne && rc == 0; i++) {
			struct rte_cfgfile_entry *e = &ents[i];

			if (strlen(e->name) > MAX_NAME ||
			    strlen(e->value) > MAX_VALUE) {
				port_err(err, errlen,
					 "%s: [%s] %s: name or value too long "
					 "(max %d characters; repeat the key "
					 "to continue a list)",
					 path, sec, e->name, MAX_VALUE);
				rc = -EINVAL;
			} else if (e->value[0] == '\0') {
				port_err(err, errlen,
					 "%s: [%s] %s: empty value", path, sec,
					 e->name);
				rc = -EINVAL;
			} else if (dev >= 0) {
				rc = device_key(&cfg->port[dev], path, sec, e,
						&ip_seen, &sel_seen, err,
						errlen);
			} else if (strcmp(sec, "eal") == 0 &&
				   strcmp(e->name, "args") == 0) {
				/* repeated "args" lines are joined */
				if (!eal_seen)
					cfg->eal_args[0] = '\0';
				else
					strlcat(cfg->eal_args, " ",
						sizeof(cfg->eal_args));
				eal_seen = true;
				if (strlcat(cfg->eal_args, e->value,
					    sizeof(cfg->eal_args)) >=
				    sizeof(cfg->eal_args)) {
					KEY_ERR("EAL arguments too long");
					rc = -EINVAL;
				}
			} else if (strcmp(sec, "dpverbs") == 0 &&
				   strcmp(e->name, "workers") == 0) {
				if (port_num_parse(e->value, 0, 64, &v) < 0) {
					KEY_ERR("want a number 0..64 (0 = "
						"application-driven progress)");
					rc = -EINVAL;
				} else {
					cfg->workers = v;
				}
			} else if (strcmp(sec, "dpverbs") == 0 &&
				   strcmp(e->name, "shards") == 0) {
				if (port_num_parse(e->value, 1,
						   DPV_SHARDS_MAX, &v) < 0) {
					KEY_ERR("want a number 1..%u (engines "
						"per device)", DPV_SHARDS_MAX);
					rc = -EINVAL;
				} else {
					cfg->shards = v;
				}
			} else if (strcmp(sec, "dpverbs") == 0 &&
				   strcmp(e->name, "progress") == 0) {
				if (strcmp(e->value, "thread") == 0) {
					cfg->progress = DPV_PROGRESS_THREAD;
				} else if (strcmp(e->value, "app") == 0) {
					cfg->progress = DPV_PROGRESS_APP;
				} else if (strcmp(e->value, "auto") == 0) {
					cfg->progress = DPV_PROGRESS_AUTO;
				} else if (strcmp(e->value, "workers") == 0) {
					cfg->progress = DPV_PROGRESS_WORKERS;
				} else {
					KEY_ERR("want thread, app, workers or "
						"auto");
					rc = -EINVAL;
				}
			} else {
				KEY_ERR("unknown key (known: [eal] args, "
					"[dpverbs] workers, shards, progress)");
				rc = -EINVAL;
			}
		}
	}
	free(ents);
	if (rc != 0)
		return rc;
	for (i = 0; i < (int)n_ports; i++) {
		if (!seen[i]) {
			port_err(err, errlen,
				 "%s: devices must be numbered without gaps: "
				 "[dpv%d] is missing",
				 path, i);
			return -EINVAL;
		}
		if (cfg->port[i].part_id != 0 &&
		    cfg->port[i].personality != DPV_PERSONALITY_MLX5) {
			port_err(err, errlen,
				 "%s: [dpv%d] part_id needs personality = mlx5",
				 path, i);
			return -EINVAL;
		}
	}
	if (n_ports > 0)
		cfg->n_ports = n_ports;
	return 0;
}

/* rte_cfgfile gives no reason for a failed load: find the line. */
static void
explain_syntax_error(const char *path, char *err, size_t errlen)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	unsigned lineno = 0;
	bool in_section = false;

	port_err(err, errlen, "%s: syntax error", path);
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *t, *c;

		lineno++;
		if (strlen(line) >= CFG_NAME_LEN + CFG_VALUE_LEN + 2 &&
		    strchr(line, '\n') != NULL) {
			port_err(err, errlen,
				 "%s:%u: line too long (max %d characters; "
				 "repeat the key to continue a list)",
				 path, lineno,
				 CFG_NAME_LEN + CFG_VALUE_LEN + 1);
			break;
		}
		c = strchr(line, ';');
		if (c != NULL)
			*c = '\0';
		t = trim(line);
		if (t[0] == '[') {
			if (strchr(t, ']') == NULL) {
				port_err(err, errlen,
					 "%s:%u: section name without ']'",
					 path, lineno);
				break;
			}
			in_section = true;
		} else if (strchr(t, '=') != NULL && !in_section) {
			port_err(err, errlen, "%s:%u: key outside any section",
				 path, lineno);
			break;
		}
	}
	fclose(f);
}

/* Lines without '=' are skipped by rte_cfgfile; treat them as errors. */
static int
check_stray_lines(const char *path, char *err, size_t errlen)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	unsigned lineno = 0;
	int rc = 0;

	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *c = strchr(line, ';'), *t;

		lineno++;
		if (c != NULL)
			*c = '\0';
		t = trim(line);
		if (t[0] != '\0' && t[0] != '[' && strchr(t, '=') == NULL) {
			port_err(err, errlen,
				 "%s:%u: '%s' is not 'key = value' or "
				 "'[section]' (comments start with ';')",
				 path, lineno, t);
			rc = -EINVAL;
			break;
		}
	}
	fclose(f);
	return rc;
}

int
dpv_config_load_file(struct dpv_config *cfg, const char *path, char *err,
		     size_t errlen)
{
	struct rte_cfgfile *f;
	struct dpv_config *tmp;
	int rc;

	if (access(path, F_OK) != 0) {
		port_err(err, errlen, "%s: no such file", path);
		return -ENOENT;
	}
	if (access(path, R_OK) != 0) {
		port_err(err, errlen, "%s: not readable: %s", path,
			 strerror(errno));
		return -EACCES;
	}
	rc = check_stray_lines(path, err, errlen);
	if (rc < 0)
		return rc;
	f = rte_cfgfile_load(path,
			     CFG_FLAG_GLOBAL_SECTION | CFG_FLAG_EMPTY_VALUES);
	if (f == NULL) {
		explain_syntax_error(path, err, errlen);
		return -EINVAL;
	}
	tmp = malloc(sizeof(*tmp));
	if (tmp == NULL) {
		rte_cfgfile_close(f);
		return -ENOMEM;
	}
	*tmp = *cfg;
	rc = load_sections(tmp, f, path, err, errlen);
	rte_cfgfile_close(f);
	if (rc == 0) {
		strlcpy(tmp->source, path, sizeof(tmp->source));
		*cfg = *tmp;
	}
	free(tmp);
	return rc;
}

int
dpv_config_apply_env(struct dpv_config *cfg, const char *eal, const char *ip,
		     char *err, size_t errlen)
{
	struct dpv_ip_addr addrs[DPV_PORT_MAX_ADDRS];
	char sub[192];
	unsigned n = 0;

	if (eal != NULL) {
		if (strspn(eal, " \t\n") == strlen(eal)) {
			port_err(
				err, errlen,
				"DPV_EAL is empty (unset it for the defaults)");
			return -EINVAL;
		}
		if (strlen(eal) >= sizeof(cfg->eal_args)) {
			port_err(err, errlen, "DPV_EAL too long (max %zu)",
				 sizeof(cfg->eal_args) - 1);
			return -EINVAL;
		}
	}
	if (ip != NULL && dpv_ip_list_parse(ip, addrs, DPV_PORT_MAX_ADDRS, &n,
					    sub, sizeof(sub)) < 0) {
		port_err(err, errlen, "DPV_IP=%s: %s", ip, sub);
		return -EINVAL;
	}
	if (eal != NULL) {
		strlcpy(cfg->eal_args, eal, sizeof(cfg->eal_args));
		/* DPV_EAL names the first device's port (usually a --vdev) */
		if (cfg->port[0].kind == DPV_PORT_KIND_LOOPBACK)
			cfg->port[0].kind = DPV_PORT_KIND_AUTO;
	}
	if (ip != NULL) {
		memcpy(cfg->port[0].addrs, addrs, sizeof(addrs));
		cfg->port[0].n_addrs = n;
	}
	return 0;
}

int
dpv_config_apply_fault(struct dpv_config *cfg, const char *spec, char *err,
		       size_t errlen)
{
	struct dpv_fault_conf fc;
	char sub[192];

	if (spec == NULL)
		return 0;
	dpv_fault_conf_init(&fc);
	if (dpv_fault_parse(spec, &fc, sub, sizeof(sub)) < 0) {
		port_err(err, errlen, "DPV_FAULT=%s: %s", spec, sub);
		return -EINVAL;
	}
	for (unsigned i = 0; i < DPV_PORT_MAX; i++)
		cfg->port[i].fault = fc;
	return 0;
}

int
dpv_config_apply_netdev(struct dpv_config *cfg, const char *v, char *err,
			size_t errlen)
{
	struct dpv_port_conf *pc = &cfg->port[0];

	if (v == NULL)
		return 0;
	if (netdev_parse(v, &pc->netdev, pc->netdev_name) < 0) {
		port_err(err, errlen, "DPV_NETDEV=%s: %s", v, NETDEV_WANT);
		return -EINVAL;
	}
	return 0;
}

int
dpv_config_read(struct dpv_config *cfg, char *err, size_t errlen)
{
	const char *path = getenv("DPV_CONF");
	char local[256];
	int rc;

	port_log_init();
	if (err == NULL || errlen == 0) {
		err = local;
		errlen = sizeof(local);
	}
	err[0] = '\0';

	dpv_config_init(cfg);
	if (path != NULL && path[0] != '\0') {
		rc = dpv_config_load_file(cfg, path, err, errlen);
	} else {
		rc = dpv_config_load_file(cfg, DPV_DEFAULT_CONF, err, errlen);
		if (rc == -ENOENT)
			rc = 0; /* no file is fine: defaults */
	}
	if (rc == 0)
		rc = dpv_config_apply_env(cfg, getenv("DPV_EAL"),
					  getenv("DPV_IP"), err, errlen);
	if (rc == 0)
		rc = dpv_config_apply_fault(cfg, getenv("DPV_FAULT"), err,
					    errlen);
	if (rc == 0)
		rc = dpv_config_apply_netdev(cfg, getenv("DPV_NETDEV"), err,
					     errlen);
	if (rc == 0 && getenv("DPV_SHARDS") != NULL) {
		unsigned long v;

		/* DPV_SHARDS=N: [dpverbs] shards */
		if (port_num_parse(getenv("DPV_SHARDS"), 1, DPV_SHARDS_MAX,
				   &v) < 0) {
			snprintf(err, errlen, "DPV_SHARDS=%s: want 1..%u",
				 getenv("DPV_SHARDS"), DPV_SHARDS_MAX);
			rc = -EINVAL;
		} else {
			cfg->shards = v;
		}
	}
	if (rc != 0)
		PORT_LOG(ERR, "configuration: %s", err);
	return rc;
}
