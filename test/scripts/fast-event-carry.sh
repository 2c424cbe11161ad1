#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Completion events a waiter does not take (lib/verbs/verbs_cq.c,
# chan_leave()): dpv-event-carry raises two events in one polling window
# on the loopback device the library starts itself. With a progress
# thread the second stays in memory for the next wait (no write() and
# read() of the fd), and goes to the fd if the program waits in a poll()
# of it instead, or if another thread sleeps on it; with
# application-driven progress or a worker lcore it goes to the fd at
# once. Every run must pass in the mode it asked for.
# Usage: fast-event-carry.sh <lib dir> <source root> <build root>
set -u
LIB=${1:?usage: $0 <lib dir> <source root> <build root>}
BUILD=${3:?usage: $0 <lib dir> <source root> <build root>}
. "$(dirname "$0")/progress-modes.sh"
modes_setup "$BUILD" dpv-event-carry event_carry

# run NAME PROGRESS(0 app, 1 thread, 2 worker) CONF-LINES [env...]
run() {
	run_mode "$@" || return
	echo "PASS $1:"
	grep '^event_carry:' "$TMP/$1.out"
}

run thread 1 '' DPV_PROGRESS=thread
run app 0 '' DPV_PROGRESS=app
run worker 2 '[dpverbs]\nworkers = 1\n' DPV_PROGRESS=
exit $fail
