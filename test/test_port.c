/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/port without EAL: configuration file, environment, EAL arguments,
 * hugepage pre-check, GID table. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_common.h>

#include "dpv_build_config.h"
#include "dpv_port.h"
#include "dpv_test.h"
#include "test_port_util.h"

static char tmp_path[64];

/* Write text to a fresh temporary file; its name is in tmp_path. */
static int
write_tmp(const char *text)
{
	return test_port_write_tmp(tmp_path, sizeof(tmp_path),
				   "/tmp/dpv-port-conf-", text);
}

static int
load_text(struct dpv_config *cfg, const char *text, char *err, size_t len)
{
	int rc;

	dpv_config_init(cfg);
	if (write_tmp(text) != 0)
		return -EIO;
	err[0] = '\0';
	rc = dpv_config_load_file(cfg, tmp_path, err, len);
	unlink(tmp_path);
	return rc;
}

static int
ip4_is(const struct dpv_ip_addr *a, const char *ip, unsigned plen)
{
	struct in_addr v4;

	inet_pton(AF_INET, ip, &v4);
	return a->family == AF_INET && a->prefix_len == plen &&
	       memcmp(&a->addr[12], &v4, 4) == 0 && a->addr[10] == 0xff &&
	       a->addr[11] == 0xff && a->addr[0] == 0;
}

static int
ip6_is(const struct dpv_ip_addr *a, const char *ip, unsigned plen)
{
	uint8_t v6[16];

	inet_pton(AF_INET6, ip, v6);
	return a->family == AF_INET6 && a->prefix_len == plen &&
	       memcmp(a->addr, v6, 16) == 0;
}

static int
case_defaults(void)
{
	struct dpv_config cfg;

	dpv_config_init(&cfg);
	TEST_ASSERT_EQUAL(cfg.n_ports, 1, "one device by default");
	TEST_ASSERT_EQUAL(cfg.port[0].kind, DPV_PORT_KIND_AUTO, "");
	TEST_ASSERT_EQUAL(cfg.workers, 0, "application-driven by default");
	TEST_ASSERT_EQUAL(cfg.progress, DPV_PROGRESS_AUTO, "");
	TEST_ASSERT(strcmp(cfg.eal_args, DPV_EAL_DEFAULT_ARGS) == 0, "%s",
		    cfg.eal_args);
	TEST_ASSERT(strstr(cfg.eal_args, "--no-huge") != NULL, "");
	return TEST_SUCCESS;
}

static int
case_shipped_file(void)
{
	struct dpv_config cfg;
	char err[512] = "";
	int rc;

	dpv_config_init(&cfg);
	rc = dpv_config_load_file(&cfg, DPV_SOURCE_CONF, err, sizeof(err));
	TEST_ASSERT_EQUAL(rc, 0, "config/dpverbs.conf must be valid: %s", err);
	TEST_ASSERT_EQUAL(cfg.n_ports, 1, "");
	TEST_ASSERT_EQUAL(cfg.port[0].kind, DPV_PORT_KIND_AUTO,
			  "so that DPV_EAL's --vdev becomes dpv0");
	TEST_ASSERT_EQUAL(cfg.workers, 0, "");
	TEST_ASSERT(strstr(cfg.eal_args, "--no-huge") != NULL, "%s",
		    cfg.eal_args);
	return TEST_SUCCESS;
}

static int
case_good_file(void)
{
	struct dpv_config cfg;
	char err[512];
	int rc;

	rc = load_text(&cfg,
		       "; comment\n"
		       "[eal]\n"
		       "args = --no-huge --no-pci -m 256\n"
		       "args = "
		       "--vdev=net_memif0,role=server,socket=/tmp/"
		       "a.sock,socket-abstract=no\n"
		       "[dpverbs]\n"
		       "workers = 1\n"
		       "progress = app\n"
		       "[dpv0]\n"
		       "port = net_memif0\n"
		       "ip = 192.0.2.1/24, 2001:db8::1/64\n"
		       "ip = 198.51.100.1\n"
		       "mtu = 9000\n"
		       "mac = 02:00:00:00:00:0a\n"
		       "neigh = 192.0.2.2 02:00:00:00:00:0b, "
		       "2001:db8::2=02:00:00:00:00:0c\n"
		       "neigh = 203.0.113.9 52:54:00:00:02:0c\n"
		       "queues = 2\n"
		       "rx_desc = 512\n"
		       "tx_desc = 256\n"
		       "mbufs = 4095\n"
		       "mbuf_size = 3840\n"
		       "promisc = yes\n"
		       "netdev = rdma7\n"
		       "[dpv1]\n"
		       "port = 3\n"
		       "personality = mlx5\n"
		       "part_id = 0x101d\n"
		       "netdev = off\n"
		       "rings = mlx4\n"
		       "[dpv2]\n"
		       "personality = mlx5\n"
		       "vdev = net_af_packet0,iface=veth1,framesz=4224\n"
		       "[dpv3]\n"
		       "port = loopback ; trailing comment\n",
		       err, sizeof(err));
	TEST_ASSERT_EQUAL(rc, 0, "%s", err);
	TEST_ASSERT(strcmp(cfg.eal_args, "--no-huge --no-pci -m 256 "
					 "--vdev=net_memif0,role=server,socket="
					 "/tmp/a.sock,socket-abstract=no") == 0,
		    "args lines are joined: '%s'", cfg.eal_args);
	TEST_ASSERT_EQUAL(cfg.workers, 1, "");
	TEST_ASSERT_EQUAL(cfg.progress, DPV_PROGRESS_APP, "");
	TEST_ASSERT_EQUAL(cfg.n_ports, 4, "");
	TEST_ASSERT_EQUAL(cfg.port[0].kind, DPV_PORT_KIND_NAME, "");
	TEST_ASSERT(strcmp(cfg.port[0].dev, "net_memif0") == 0, "");
	TEST_ASSERT_EQUAL(cfg.port[0].n_addrs, 3, "");
	TEST_ASSERT(ip4_is(&cfg.port[0].addrs[0], "192.0.2.1", 24), "");
	TEST_ASSERT(ip6_is(&cfg.port[0].addrs[1], "2001:db8::1", 64), "");
	TEST_ASSERT(ip4_is(&cfg.port[0].addrs[2], "198.51.100.1", 32), "");
	TEST_ASSERT_EQUAL(cfg.port[0].mtu, 9000, "");
	TEST_ASSERT(cfg.port[0].has_mac && cfg.port[0].mac[5] == 0x0a, "");
	TEST_ASSERT_EQUAL(cfg.port[0].n_neigh, 3, "");
	TEST_ASSERT_EQUAL(cfg.port[0].neigh[1].mac[5], 0x0c, "");
	TEST_ASSERT_EQUAL(cfg.port[0].neigh[2].ip[15], 9, "");
	TEST_ASSERT_EQUAL(cfg.port[0].neigh[2].ip[10], 0xff, "v4-mapped");
	TEST_ASSERT_EQUAL(cfg.port[0].queues, 2, "");
	TEST_ASSERT_EQUAL(cfg.port[0].rx_desc, 512, "");
	TEST_ASSERT_EQUAL(cfg.port[0].tx_desc, 256, "");
	TEST_ASSERT_EQUAL(cfg.port[0].mbufs, 4095, "");
	TEST_ASSERT_EQUAL(cfg.port[0].mbuf_size, 3840, "");
	TEST_ASSERT(cfg.port[0].promisc, "");
	TEST_ASSERT_EQUAL(cfg.port[0].netdev, DPV_NETDEV_NAME, "");
	TEST_ASSERT(strcmp(cfg.port[0].netdev_name, "rdma7") == 0, "");
	TEST_ASSERT_EQUAL(cfg.port[1].netdev, DPV_NETDEV_OFF, "");
	TEST_ASSERT_EQUAL(cfg.port[2].netdev, DPV_NETDEV_AUTO, "default");
	TEST_ASSERT_EQUAL(cfg.port[1].kind, DPV_PORT_KIND_ID, "");
	TEST_ASSERT_EQUAL(cfg.port[1].port_id, 3, "");
	TEST_ASSERT_EQUAL(cfg.port[0].personality, DPV_PERSONALITY_DPVERBS, "");
	TEST_ASSERT_EQUAL(cfg.port[0].part_id, 0, "");
	TEST_ASSERT_EQUAL(cfg.port[1].personality, DPV_PERSONALITY_MLX5, "");
	TEST_ASSERT_EQUAL(cfg.port[1].part_id, 0x101d, "");
	TEST_ASSERT_EQUAL(cfg.port[0].rings, DPV_RINGS_MLX5, "default");
	TEST_ASSERT_EQUAL(cfg.port[1].rings, DPV_RINGS_MLX4, "");
	TEST_ASSERT_EQUAL(cfg.port[2].personality, DPV_PERSONALITY_MLX5, "");
	TEST_ASSERT_EQUAL(cfg.port[2].part_id, 0, "default: ConnectX-5");
	TEST_ASSERT_EQUAL(cfg.port[2].kind, DPV_PORT_KIND_VDEV, "");
	TEST_ASSERT(strcmp(cfg.port[2].dev,
			   "net_af_packet0,iface=veth1,framesz=4224") == 0,
		    "");
	TEST_ASSERT_EQUAL(cfg.port[3].kind, DPV_PORT_KIND_LOOPBACK, "");
	return TEST_SUCCESS;
}

/* Each bad file must fail with -EINVAL and a message naming the fault. */
static int
case_bad_files(void)
{
	static const struct {
		const char *text;
		const char *msg; /* substring the error must contain */
	} bad[] = {
		{"[dpv0]\nbogus = 1\n", "unknown key"},
		{"[dpv0]\nmtu = 12x\n", "mtu"},
		{"[dpv0]\nmtu = 20\n", "68..65535"},
		{"[dpv0]\nmtu = 70000\n", "mtu"},
		{"[dpv0]\nip = 192.0.2.300/24\n", "192.0.2.300"},
		{"[dpv0]\nip = 192.0.2.1/33\n", "192.0.2.1/33"},
		{"[dpv0]\nip = 2001:db8::1/129\n", "2001:db8::1/129"},
		{"[dpv0]\nip = 192.0.2.1/24,,192.0.2.2\n", "empty element"},
		{"[dpv0]\nip = 192.0.2.1/\n", "192.0.2.1/"},
		{"[dpv0]\nip =\n", "empty value"},
		{"[dpv0]\nmac = 01:00:5e:00:00:01\n", "unicast"},
		{"[dpv0]\nmac = 02:00:00:00:00\n", "mac"},
		{"[dpv0]\nmac = 00:00:00:00:00:00\n", "unicast"},
		{"[dpv0]\nneigh = 192.0.2.2\n", "neighbour"},
		{"[dpv0]\nneigh = 192.0.2.2 zz:00:00:00:00:01\n", "MAC"},
		{"[dpv0]\nneigh = 192.0.2.2/24 02:00:00:00:00:01\n", "address"},
		{"[dpv0]\nport = 99999\n", "port"},
		{"[dpv0]\nport = two words\n", "port"},
		{"[dpv0]\nport = 1\nvdev = net_null0\n", "one of"},
		{"[dpv0]\nvdev = ,x=1\n", "vdev"},
		{"[dpv0]\nqueues = 0\n", "queues"},
		{"[dpv0]\nqueues = 17\n", "1..16"},
		{"[dpv0]\nrx_desc = 8\n", "rx_desc"},
		{"[dpv0]\nmbufs = 10\n", "mbufs"},
		{"[dpv0]\nmbuf_size = 100000\n", "mbuf_size"},
		{"[dpv0]\npromisc = maybe\n", "yes or no"},
		{"[dpv0]\npersonality = mlx4\n", "dpverbs or mlx5"},
		{"[dpv0]\npersonality = mlx5\npart_id = 0\n", "1..0xffff"},
		{"[dpv0]\npersonality = mlx5\npart_id = 0x10000\n", "part_id"},
		{"[dpv0]\npart_id = 4119\n", "needs personality = mlx5"},
		{"[dpv0]\nnetdev = a/b\n", "interface name"},
		{"[dpv0]\nnetdev = sixteen-chars-xx\n", "1..15"},
		{"[dpv0]\nnetdev = ..\n", "interface name"},
		{"[dpv0]\nrings = mlx3\n", "mlx5 or mlx4"},
		{"[dpverbs]\nworkers = -1\n", "workers"},
		{"[dpverbs]\nworkers = 65\n", "0..64"},
		{"[dpverbs]\nprogress = spin\n", "thread, app, workers or auto"},
		{"[dpverbs]\nthreads = 2\n", "unknown key"},
		{"[eal]\nargv = -m 1\n", "unknown key"},
		{"[dpv8]\nport = loopback\n", "unknown section"},
		{"[dpv01]\nport = loopback\n", "unknown section"},
		{"[ports]\nport = loopback\n", "unknown section"},
		{"[dpv1]\nport = loopback\n", "[dpv0] is missing"},
		{"[dpv0]\nport = loopback\n[dpv0]\nmtu = 1500\n", "twice"},
		{"port = loopback\n[dpv0]\n", "outside any section"},
		{"[dpv0\nport = loopback\n", "']'"},
		{"[dpv0]\njust some words\n", "not 'key = value'"},
		{"# hash comment\n[dpv0]\n", "not 'key = value'"},
	};
	struct dpv_config cfg, before;
	char err[512], longline[400];
	unsigned i;
	int rc;

	for (i = 0; i < RTE_DIM(bad); i++) {
		rc = load_text(&cfg, bad[i].text, err, sizeof(err));
		TEST_ASSERT_EQUAL(rc, -EINVAL, "case %u: '%s' must fail", i,
				  bad[i].text);
		TEST_ASSERT(strstr(err, bad[i].msg) != NULL,
			    "case %u: message '%s' lacks '%s'", i, err,
			    bad[i].msg);
		printf("    bad file %2u -> %s\n", i, err);
	}
	/* a value longer than rte_cfgfile keeps is not silently cut */
	memset(longline, 'a', sizeof(longline));
	memcpy(longline, "[eal]\nargs = ", 13);
	longline[sizeof(longline) - 2] = '\n';
	longline[sizeof(longline) - 1] = '\0';
	rc = load_text(&cfg, longline, err, sizeof(err));
	TEST_ASSERT_EQUAL(rc, -EINVAL, "over-long line");
	TEST_ASSERT(strstr(err, "too long") != NULL, "%s", err);
	/* a failed load leaves the configuration unchanged */
	dpv_config_init(&before);
	cfg = before;
	if (write_tmp("[dpverbs]\nworkers = 2\n[dpv0]\nmtu = 1\n") != 0)
		return TEST_FAILED;
	rc = dpv_config_load_file(&cfg, tmp_path, err, sizeof(err));
	unlink(tmp_path);
	TEST_ASSERT_EQUAL(rc, -EINVAL, "");
	TEST_ASSERT_EQUAL(memcmp(&cfg, &before, sizeof(cfg)), 0,
			  "configuration changed by a failed load");
	/* missing file */
	rc = dpv_config_load_file(&cfg, "/nonexistent/dpverbs.conf", err,
				  sizeof(err));
	TEST_ASSERT_EQUAL(rc, -ENOENT, "");
	return TEST_SUCCESS;
}

static int
case_ip_lists(void)
{
	struct dpv_ip_addr a[DPV_PORT_MAX_ADDRS];
	char err[256], s[64];
	unsigned n = 0;

	TEST_ASSERT_EQUAL(
		dpv_ip_list_parse("192.0.2.1/24,2001:db8::1/64, fe80::1", a,
				  DPV_PORT_MAX_ADDRS, &n, err, sizeof(err)),
		0, "%s", err);
	TEST_ASSERT_EQUAL(n, 3, "");
	TEST_ASSERT(ip6_is(&a[2], "fe80::1", 128), "no prefix -> /128");
	TEST_ASSERT(strcmp(dpv_ip_addr_str(&a[0], s, sizeof(s)),
			   "192.0.2.1/24") == 0,
		    "%s", s);
	TEST_ASSERT(strcmp(dpv_ip_addr_str(&a[1], s, sizeof(s)),
			   "2001:db8::1/64") == 0,
		    "%s", s);
	n = 0;
	TEST_ASSERT_EQUAL(dpv_ip_list_parse("192.0.2.1,192.0.2.2", a, 1, &n,
					    err, sizeof(err)),
			  -EINVAL, "capacity");
	TEST_ASSERT(strstr(err, "too many") != NULL, "%s", err);
	TEST_ASSERT_EQUAL(n, 0, "n unchanged on error");
	TEST_ASSERT_EQUAL(dpv_ip_list_parse("", a, 4, &n, err, sizeof(err)),
			  -EINVAL, "");
	TEST_ASSERT_EQUAL(
		dpv_ip_list_parse("192.0.2", a, 4, &n, err, sizeof(err)),
		-EINVAL, "");
	TEST_ASSERT_EQUAL(
		dpv_ip_list_parse("192.0.2.1/-1", a, 4, &n, err, sizeof(err)),
		-EINVAL, "");
	TEST_ASSERT_EQUAL(
		dpv_ip_list_parse("2001:db8:::1", a, 4, &n, err, sizeof(err)),
		-EINVAL, "");
	return TEST_SUCCESS;
}

static int
case_env(void)
{
	struct dpv_config cfg;
	char err[256];
	int rc;

	dpv_config_init(&cfg);
	rc = dpv_config_apply_env(
		&cfg,
		"--no-huge --no-pci -m 512 --vdev=net_memif0,role=server "
		"--file-prefix=p1",
		"192.0.2.1/24,2001:db8::1/64", err, sizeof(err));
	TEST_ASSERT_EQUAL(rc, 0, "%s", err);
	TEST_ASSERT(strstr(cfg.eal_args, "--file-prefix=p1") != NULL, "");
	TEST_ASSERT_EQUAL(cfg.port[0].n_addrs, 2, "");
	TEST_ASSERT(ip4_is(&cfg.port[0].addrs[0], "192.0.2.1", 24), "");
	TEST_ASSERT(ip6_is(&cfg.port[0].addrs[1], "2001:db8::1", 64), "");
	/* IPv6 alone */
	rc = dpv_config_apply_env(&cfg, NULL, "2001:db8::5/48", err,
				  sizeof(err));
	TEST_ASSERT_EQUAL(rc, 0, "%s", err);
	TEST_ASSERT_EQUAL(cfg.port[0].n_addrs, 1, "DPV_IP replaces the list");
	TEST_ASSERT(ip6_is(&cfg.port[0].addrs[0], "2001:db8::5", 48), "");
	/* bad values change nothing */
	rc = dpv_config_apply_env(&cfg, NULL, "192.0.2.1/40", err, sizeof(err));
	TEST_ASSERT_EQUAL(rc, -EINVAL, "");
	TEST_ASSERT(strstr(err, "DPV_IP") != NULL, "%s", err);
	rc = dpv_config_apply_env(&cfg, NULL, "not-an-address", err,
				  sizeof(err));
	TEST_ASSERT_EQUAL(rc, -EINVAL, "");
	rc = dpv_config_apply_env(&cfg, "  ", NULL, err, sizeof(err));
	TEST_ASSERT_EQUAL(rc, -EINVAL, "");
	TEST_ASSERT(strstr(err, "DPV_EAL") != NULL, "%s", err);
	TEST_ASSERT(ip6_is(&cfg.port[0].addrs[0], "2001:db8::5", 48), "");
	TEST_ASSERT(strstr(cfg.eal_args, "--file-prefix=p1") != NULL, "");
	/* DPV_NETDEV: dpv0's kernel interface */
	TEST_ASSERT_EQUAL(dpv_config_apply_netdev(&cfg, "off", err,
						  sizeof(err)),
			  0, "%s", err);
	TEST_ASSERT_EQUAL(cfg.port[0].netdev, DPV_NETDEV_OFF, "");
	TEST_ASSERT_EQUAL(dpv_config_apply_netdev(&cfg, "dpvk%d", err,
						  sizeof(err)),
			  0, "%s", err);
	TEST_ASSERT_EQUAL(cfg.port[0].netdev, DPV_NETDEV_NAME, "");
	TEST_ASSERT(strcmp(cfg.port[0].netdev_name, "dpvk%d") == 0, "");
	rc = dpv_config_apply_netdev(&cfg, "bad name", err, sizeof(err));
	TEST_ASSERT_EQUAL(rc, -EINVAL, "");
	TEST_ASSERT(strstr(err, "DPV_NETDEV") != NULL, "%s", err);
	TEST_ASSERT(strcmp(cfg.port[0].netdev_name, "dpvk%d") == 0,
		    "a bad value changes nothing");
	TEST_ASSERT_EQUAL(dpv_config_apply_netdev(&cfg, "auto", err,
						  sizeof(err)),
			  0, "%s", err);
	TEST_ASSERT_EQUAL(cfg.port[0].netdev, DPV_NETDEV_AUTO, "");

	/* dpv_config_read: DPV_CONF + env on top of the file */
	if (write_tmp("[eal]\nargs = --no-huge -m 64\n[dpv0]\nport = "
		      "loopback\nip = 198.51.100.7/24\n") != 0)
		return TEST_FAILED;
	setenv("DPV_CONF", tmp_path, 1);
	setenv("DPV_IP", "203.0.113.5/24", 1);
	unsetenv("DPV_EAL");
	rc = dpv_config_read(&cfg, err, sizeof(err));
	unsetenv("DPV_IP");
	TEST_ASSERT_EQUAL(rc, 0, "%s", err);
	TEST_ASSERT(strcmp(cfg.source, tmp_path) == 0, "");
	TEST_ASSERT(strcmp(cfg.eal_args, "--no-huge -m 64") == 0, "");
	TEST_ASSERT(ip4_is(&cfg.port[0].addrs[0], "203.0.113.5", 24),
		    "DPV_IP wins over the file");
	setenv("DPV_EAL", "--no-huge -m 128", 1);
	rc = dpv_config_read(&cfg, err, sizeof(err));
	unsetenv("DPV_EAL");
	TEST_ASSERT_EQUAL(rc, 0, "%s", err);
	TEST_ASSERT(strcmp(cfg.eal_args, "--no-huge -m 128") == 0,
		    "DPV_EAL wins over the file");
	TEST_ASSERT_EQUAL(cfg.port[0].kind, DPV_PORT_KIND_AUTO,
			  "DPV_EAL turns loopback into auto");
	TEST_ASSERT(ip4_is(&cfg.port[0].addrs[0], "198.51.100.7", 24), "");
	unlink(tmp_path);
	rc = dpv_config_read(&cfg, err, sizeof(err));
	TEST_ASSERT_EQUAL(rc, -ENOENT, "DPV_CONF naming a missing file");
	unsetenv("DPV_CONF");
	return TEST_SUCCESS;
}

static int
has_arg(int argc, char **argv, const char *a)
{
	int i;

	for (i = 0; i < argc; i++)
		if (strcmp(argv[i], a) == 0)
			return 1;
	return 0;
}

/* the argument starting with prefix, or "" */
static const char *
arg_with_prefix(int argc, char **argv, const char *prefix)
{
	int i;

	for (i = 0; i < argc; i++)
		if (strncmp(argv[i], prefix, strlen(prefix)) == 0)
			return argv[i];
	return "";
}

static int
case_eal_args(void)
{
	char buf[2048], *argv[64], err[256];
	int argc;

	argc = dpv_eal_argv_build(DPV_EAL_DEFAULT_ARGS, 0, 0, 4242, buf,
				  sizeof(buf), argv, 64, err, sizeof(err));
	TEST_ASSERT(argc > 5, "%s", err);
	TEST_ASSERT_NULL(argv[argc], "NULL-terminated");
	TEST_ASSERT(strcmp(argv[0], "dpverbs") == 0, "");
	TEST_ASSERT(has_arg(argc, argv, "--no-huge"), "");
	TEST_ASSERT(has_arg(argc, argv, "--file-prefix=dpv4242"),
		    "automatic file prefix");
	TEST_ASSERT(has_arg(argc, argv, "--log-level=lib.eal:warning"), "");
	TEST_ASSERT(has_arg(argc, argv, "--log-level=lib.telemetry:error"), "");
	TEST_ASSERT(has_arg(argc, argv, "--log-level=lib.net:notice"), "");
	TEST_ASSERT(arg_with_prefix(argc, argv, "--lcores=0@(")[0] != '\0',
		    "the application thread may use every allowed CPU");
	TEST_ASSERT(has_arg(argc, argv, "--force-max-simd-bitwidth=512"),
		    "AVX-512 CRC allowed");
	TEST_ASSERT(!has_arg(argc, argv, "--huge-unlink"), "no hugepages");
	/* on hugepages under our own prefix, their files go at once */
	argc = dpv_eal_argv_build("--no-pci -m 64", 0, 0, 7, buf, sizeof(buf),
				  argv, 64, err, sizeof(err));
	TEST_ASSERT(has_arg(argc, argv, "--huge-unlink"), "our prefix");
	argc = dpv_eal_argv_build("--no-pci --file-prefix=mine", 0, 0, 7, buf,
				  sizeof(buf), argv, 64, err, sizeof(err));
	TEST_ASSERT(!has_arg(argc, argv, "--huge-unlink"), "a user's prefix");
	argc = dpv_eal_argv_build("--no-pci --single-file-segments", 0, 0, 7,
				  buf, sizeof(buf), argv, 64, err, sizeof(err));
	TEST_ASSERT(!has_arg(argc, argv, "--huge-unlink"),
		    "segment files kept for zero-copy memif");
	argc = dpv_eal_argv_build("--no-pci --huge-unlink=never", 0, 0, 7,
				  buf, sizeof(buf), argv, 64, err, sizeof(err));
	TEST_ASSERT(!has_arg(argc, argv, "--huge-unlink"), "user's choice");
	argc = dpv_eal_argv_build("--no-pci --in-memory", 0, 0, 7, buf,
				  sizeof(buf), argv, 64, err, sizeof(err));
	TEST_ASSERT(argc > 0 && !has_arg(argc, argv, "--huge-unlink"),
		    "in memory: no files to unlink");
	/* given prefix, lcores and log level are kept as they are */
	argc = dpv_eal_argv_build(
		"--no-huge --file-prefix=p1 -l 0-1 --log-level=8 "
		"--force-max-simd-bitwidth=256",
		2, 0, 4242, buf, sizeof(buf), argv, 64, err, sizeof(err));
	TEST_ASSERT_EQUAL(argc, 7, "nothing added");
	TEST_ASSERT(!has_arg(argc, argv, "--file-prefix=dpv4242"), "");
	argc = dpv_eal_argv_build("--file-prefix x -l1", 3, 0, 7, buf,
				  sizeof(buf), argv, 64, err, sizeof(err));
	TEST_ASSERT_EQUAL(argc, 8, "two-word --file-prefix, -l1 recognised");
	argc = dpv_eal_argv_build("--no-huge", 2, 0, 7, buf, sizeof(buf), argv, 64,
				  err, sizeof(err));
	TEST_ASSERT(arg_with_prefix(argc, argv, "--lcores=(0-2)@(")[0] != '\0',
		    "workers get lcores");
	/* a memif vdev gets a buffer that holds a 4096 path MTU frame */
	argc = dpv_eal_argv_build(
		"--vdev=net_memif0,role=server --vdev net_memif1 "
		"--vdev=net_memif2,bsize=1024 --vdev=net_tap0",
		0, 0, 7, buf, sizeof(buf), argv, 64, err, sizeof(err));
	TEST_ASSERT(argc > 0, "%s", err);
	TEST_ASSERT(has_arg(argc, argv,
			    "--vdev=net_memif0,role=server,bsize=4352"), "");
	TEST_ASSERT(has_arg(argc, argv, "net_memif1,bsize=4352"), "two words");
	TEST_ASSERT(has_arg(argc, argv, "--vdev=net_memif2,bsize=1024"),
		    "a given bsize is kept");
	TEST_ASSERT(has_arg(argc, argv, "--vdev=net_tap0"), "others untouched");
	/* several queues: a secret that names their number, unless given */
	argc = dpv_eal_argv_build(
		"--vdev=net_memif0,role=server --vdev=net_memif1,secret=s "
		"--vdev=net_memif2,bsize=1024",
		2, 2, 7, buf, sizeof(buf), argv, 64, err, sizeof(err));
	TEST_ASSERT(argc > 0, "%s", err);
	TEST_ASSERT(has_arg(argc, argv,
			    "--vdev=net_memif0,role=server,bsize=4352,"
			    "secret=dpvq2"),
		    "%s", arg_with_prefix(argc, argv, "--vdev=net_memif0"));
	TEST_ASSERT(has_arg(argc, argv,
			    "--vdev=net_memif1,secret=s,bsize=4352"),
		    "a given secret is kept");
	TEST_ASSERT(has_arg(argc, argv,
			    "--vdev=net_memif2,bsize=1024,secret=dpvq2"),
		    "a given bsize is kept, the secret added");
	/* rejected combinations and overflow */
	argc = dpv_eal_argv_build("--no-huge --in-memory", 0, 0, 7, buf,
				  sizeof(buf), argv, 64, err, sizeof(err));
	TEST_ASSERT_EQUAL(argc, -EINVAL, "");
	TEST_ASSERT(strstr(err, "--in-memory") != NULL, "%s", err);
	argc = dpv_eal_argv_build("a b c d e f g h", 0, 0, 7, buf, sizeof(buf),
				  argv, 6, err, sizeof(err));
	TEST_ASSERT_EQUAL(argc, -EINVAL, "too many arguments");
	argc = dpv_eal_argv_build("--no-huge", 0, 0, 7, buf, 24, argv, 64, err,
				  sizeof(err));
	TEST_ASSERT_EQUAL(argc, -EINVAL, "buffer too small");
	return TEST_SUCCESS;
}

static int
case_hugepage_check(void)
{
	char *with[] = {"dpverbs", "--no-huge", "-m", "64", NULL};
	char *without[] = {"dpverbs", "--no-pci", "-m", "64", NULL};
	char err[512] = "";
	int rc;

	if (write_tmp("MemTotal: 1000 kB\nHugePages_Total: 0\nHugePages_Free: "
		      "0\n") != 0)
		return TEST_FAILED;
	rc = dpv_eal_args_check(4, without, tmp_path, err, sizeof(err));
	TEST_ASSERT_EQUAL(rc, -ENOMEM, "no hugepages, no --no-huge");
	TEST_ASSERT(strstr(err, "--no-huge") != NULL, "%s", err);
	printf("    message: %s\n", err);
	TEST_ASSERT_EQUAL(
		dpv_eal_args_check(4, with, tmp_path, err, sizeof(err)), 0,
		"--no-huge needs no hugepages");
	unlink(tmp_path);
	if (write_tmp("HugePages_Total: 64\nHugePages_Free: 64\n") != 0)
		return TEST_FAILED;
	TEST_ASSERT_EQUAL(
		dpv_eal_args_check(4, without, tmp_path, err, sizeof(err)), 0,
		"free hugepages");
	unlink(tmp_path);
	return TEST_SUCCESS;
}

static int
gid_is(const uint8_t gid[16], const char *ip6)
{
	uint8_t want[16];

	inet_pton(AF_INET6, ip6, want);
	return memcmp(gid, want, 16) == 0;
}

static int
case_gid_table(void)
{
	/* the rxe capture's server: MAC 52:54:00:00:02:0b, 192.0.2.11 */
	const uint8_t mac[6] = {0x52, 0x54, 0x00, 0x00, 0x02, 0x0b};
	uint8_t gids[DPV_PORT_GID_TBL_LEN][16];
	bool valid[DPV_PORT_GID_TBL_LEN];
	struct dpv_ip_addr a[DPV_PORT_MAX_ADDRS + 2];
	char err[256];
	unsigned n = 0, i, filled;

	TEST_ASSERT_EQUAL(
		dpv_ip_list_parse(
			"2001:db8::11/64, 192.0.2.11/24, 198.51.100.11/24, "
			"192.0.2.11/24, fe80::5054:ff:fe00:20b",
			a, RTE_DIM(a), &n, err, sizeof(err)),
		0, "%s", err);
	filled = dpv_port_gid_table(mac, a, n, gids, valid);
	TEST_ASSERT_EQUAL(filled, 4, "duplicates are left out");
	TEST_ASSERT(valid[0] && gid_is(gids[0], "fe80::5054:ff:fe00:20b"),
		    "link-local GID from the MAC");
	TEST_ASSERT(valid[1] && gid_is(gids[1], "::ffff:192.0.2.11"),
		    "slot 1: first IPv4 address");
	TEST_ASSERT(valid[2] && gid_is(gids[2], "2001:db8::11"), "");
	TEST_ASSERT(valid[3] && gid_is(gids[3], "::ffff:198.51.100.11"), "");
	for (i = 4; i < DPV_PORT_GID_TBL_LEN; i++)
		TEST_ASSERT(!valid[i], "slot %u must be empty", i);
	/* no IPv4 address: slot 1 stays empty, IPv6 goes to slot 2 */
	n = 0;
	dpv_ip_list_parse("2001:db8::12/64", a, RTE_DIM(a), &n, err,
			  sizeof(err));
	filled = dpv_port_gid_table(mac, a, n, gids, valid);
	TEST_ASSERT_EQUAL(filled, 2, "");
	TEST_ASSERT(!valid[1] && valid[2], "");
	/* more addresses than slots: the table stays at 16 */
	n = 0;
	for (i = 0; i < DPV_PORT_MAX_ADDRS + 2; i++) {
		char s[64];

		snprintf(s, sizeof(s), "2001:db8::%x", i + 1);
		TEST_ASSERT_EQUAL(dpv_ip_list_parse(s, a, RTE_DIM(a), &n, err,
						    sizeof(err)),
				  0, "%s", err);
	}
	filled = dpv_port_gid_table(mac, a, n, gids, valid);
	TEST_ASSERT_EQUAL(filled, DPV_PORT_GID_TBL_LEN - 1, "");
	return TEST_SUCCESS;
}

static const struct dpv_test_suite port_conf_suite = {
	.name = "port-conf",
	.cases =
		{
			TEST_CASE(case_defaults),
			TEST_CASE(case_shipped_file),
			TEST_CASE(case_good_file),
			TEST_CASE(case_bad_files),
			TEST_CASE(case_ip_lists),
			TEST_CASE(case_env),
			TEST_CASE(case_eal_args),
			TEST_CASE(case_hugepage_check),
			TEST_CASE(case_gid_table),
			TEST_CASES_END(),
		},
};

static int
test_port_conf(void)
{
	return dpv_test_run_suite(&port_conf_suite);
}

DPV_TEST_REGISTER_FAST(port_conf, test_port_conf);
