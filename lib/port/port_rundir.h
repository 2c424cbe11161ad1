/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_PORT_RUNDIR_H
#define DPV_PORT_RUNDIR_H

/*
 * Internal to lib/port: EAL runtime directories that processes killed
 * before their exit path ran (SIGKILL, a crash) left behind.
 *
 * EAL keeps a directory per file prefix, <base>/<prefix>; ours is
 * "dpv<pid>" (dpv_eal_argv_build()). One is stale when its pid is not a
 * live process, it belongs to this user, it holds only what EAL puts
 * there (regular files and sockets named config, hugepage_info,
 * fbarray_*, mp_socket*, telemetry, dpdk_telemetry*, no subdirectory),
 * no socket in it accepts a connection and no file in it is locked (EAL's
 * primary locks "config"): a process in another PID namespace, whose pid
 * we cannot see, still answers on its sockets.
 *
 * A memif server on a socket file (socket-abstract=no) leaves that file
 * when it is killed, wherever it is. So the library notes each such path
 * in its runtime directory, as a symbolic link DPV_RUNDIR_MEMIF_LINK<n>;
 * removing a stale directory removes the sockets its links point to when
 * they are this user's and nothing listens on them (a live server may have
 * taken the path over), and so does a normal exit.
 */

#include <stddef.h>

/** Name prefix of the links to memif socket files in a runtime dir. */
#define DPV_RUNDIR_MEMIF_LINK "dpv_memif_"

/*
 * Remove the stale "<prefix><pid>" directories under base (the directory
 * itself and the EAL files in it), never this process's own. prefix is
 * "dpv" for the library's EAL, "dpvtest" for the test runner's.
 * Returns the number removed (>= 0; 0 when base does not exist), -EINVAL
 * on NULL or an empty prefix, or -errno if base cannot be read.
 */
int dpv_eal_stale_dirs_clean(const char *base, const char *prefix);

/*
 * Where EAL 22.11 creates its runtime directories for this user:
 * "/var/run/dpdk" for root, "$XDG_RUNTIME_DIR/dpdk" or "/tmp/dpdk"
 * otherwise. 0, or -ENAMETOOLONG if it does not fit len bytes.
 */
int dpv_eal_runtime_base(char *buf, size_t len);

/*
 * At EAL start: clean the stale directories of this user's base (logs how
 * many went). Never fails the start.
 */
void port_rundir_clean_stale(void);

/*
 * Note the memif server socket file path (absolute) in the runtime
 * directory rundir. 0, -EINVAL for a relative path, or -errno of
 * symlink().
 */
int port_rundir_memif_note(const char *rundir, const char *path);

/*
 * At exit: remove the noted memif sockets of rundir that nothing listens
 * on any more, and the links.
 */
void port_rundir_memif_release(const char *rundir);

#endif
