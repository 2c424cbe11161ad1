/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_PORT_EAL_H
#define DPV_PORT_EAL_H

/* Internal to lib/port: EAL start and clean-up. */

#include "dpv_port_conf.h"

/* Start EAL with cfg's arguments unless it is running; 0 or -errno. A
 * failed rte_eal_init is sticky (EAL cannot be initialised twice). */
int port_eal_start(const struct dpv_config *cfg);

/* After a vdev "name,args" (or "--vdev=...") was created: a memif server
 * on a socket file has the path noted in the runtime directory (when this
 * library started EAL), so that the file goes with the directory even if
 * the process is killed (port_rundir.h). */
void port_eal_memif_note(const char *dev);

/* At process exit, if this process's library started EAL: remove its
 * runtime directory and mark EAL gone, without rte_eal_cleanup(). */
void port_eal_at_exit(void);

#endif
