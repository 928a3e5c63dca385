/* What vn_exec() and the helper's client share to wait (exec_wait.c).
 * Private to src/run/. */
#ifndef VN_EXEC_WAIT_H
#define VN_EXEC_WAIT_H

#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "run/exec_api.h"

/* How often a wait looks at the stop flag when no signal woke it. */
extern const struct timespec vn__exec_stop_check;

/* Blocks SIGINT, SIGTERM and SIGHUP on this thread (block: those three;
 * old: the mask before), so that they get in only inside a ppoll() given
 * old. */
void vn__exec_block_signals(sigset_t *block, sigset_t *old);

/* One ppoll() on p with the signal mask mask; an error other than a
 * signal sleeps a millisecond, so a caller's loop never spins. */
int vn__exec_wait_for(struct pollfd *p, const struct timespec *t, const sigset_t *mask);

/* Waits for child pid, started at t0 (CLOCK_MONOTONIC ns) with o: its wall
 * time and usage into wall_ns and u; VN_EXEC_OK, _TIMED_OUT or
 * _INTERRUPTED. */
int vn__exec_wait_child(const vn_exec_opts *o, pid_t pid, uint64_t t0, double *wall_ns,
                        vn_proc_usage *u);

#endif
