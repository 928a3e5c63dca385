/* The clean parent of the process family's fork rows: vernier-noop
 * --fork-server MIB (cli/noop_helper.c, which describes what it says),
 * started, asked and stopped. fork copies the page tables of its whole
 * caller, so a fork from vernier would also pay for everything else the
 * run holds; the server holds the memory its row names and little else.
 * The rows (process.c) decide what to time; this file speaks to the
 * server. */
#ifndef VN_SUITE_FORK_SERVER_H
#define VN_SUITE_FORK_SERVER_H

#include <stddef.h>
#include <sys/types.h>

#include "vernier/bench.h"

typedef struct vn__fork_server {
    pid_t pid;           /* 0: not running */
    int to, from;        /* its standard input (commands), its standard output (answers) */
    size_t mib;          /* what it touched */
} vn__fork_server;

/* Starts path --fork-server mib, in a process group of its own (so the
 * terminal's Ctrl-C is vernier's to see, which then stops it), and waits
 * until it has touched its memory. 0; or -1 with the row skipped (the
 * server could not map the memory) or failed (it could not be started,
 * died, or answered something else), and the server stopped. */
int vn__fork_server_start(vn__fork_server *f, const char *path, size_t mib, vn_state *st);

/* Has the running server fork once and wait ('f': the child _exits at
 * once; 'x': it execs the server's program, vernier-noop), and sets *ns
 * to the time it measured. 0; a positive wait status when the child did
 * not exit 0 (the row is the caller's to fail: it knows what the child
 * ran); or -1 with the row failed (the server's fork failed, it died or
 * answered something else). */
int vn__fork_server_fork(vn__fork_server *f, int cmd, double *ns, vn_state *st);

/* Closes its input, which ends it, and waits for it: after a while one that
 * does not end (a program in vernier-noop's place that is no server) is
 * killed. Nothing when it is not running. */
void vn__fork_server_stop(vn__fork_server *f);

#endif
