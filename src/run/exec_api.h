/* Running a command once, with its own process group, a timeout and its own
 * resource usage. `vernier run` (vernier/runner.h) is built on this. */
#ifndef VERNIER_EXEC_H
#define VERNIER_EXEC_H

#include <stddef.h>
#include <sys/types.h>

#include "vernier/base.h"
#include "vernier/bench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What wait4() says about one run of a command (vernier run), for that
 * child alone: not RUSAGE_CHILDREN, whose maximum RSS never goes down. */
typedef struct vn_proc_usage {
    double user_ns, sys_ns;
    long long maxrss_kib;      /* the run's peak resident set (ru_maxrss) */
    long long minflt, majflt;  /* page faults without and with I/O */
    long long nvcsw, nivcsw;   /* voluntary and involuntary context switches */
    long long tree_peak_kib;   /* the whole process tree's peak (cgroup memory.peak), -1 unknown */
    int exit_status;           /* -1 when killed by a signal */
    int signal;                /* 0 when it exited */
    int timed_out;             /* killed by vernier after --timeout */
} vn_proc_usage;

/* The helper program vernier run starts commands through; internal. */
struct vn__spawner;

typedef struct vn_exec_opts {
    char *const *argv;              /* the program and its arguments */
    const char *path;               /* the program's file, found beforehand, so the PATH
                                       search is not timed; NULL: searched at the spawn */
    const char *stdin_path;         /* NULL: /dev/null */
    const char *stdout_path;        /* with show_output 0: standard output to this file
                                       (created, truncated), standard error to /dev/null */
    int show_output;                /* 0: stdout and stderr go to /dev/null; 1: through;
                                       2: both to stderr (stdout carries a report) */
    double timeout;                 /* seconds; 0: none */
    const volatile int *stop_flag;  /* non-zero while waiting: stop the child */
    const char *cgroup;             /* a cgroup directory to run the child in, or NULL */
    /* Called with the child's pid after it exists and before it execs
     * (it waits for the go-ahead): the place to attach counters to it. */
    int (*on_spawn)(pid_t pid, void *ctx);
    void *ctx;
    /* Internal to the runner, which may start every command through a small
     * static helper (vernier-spawn) so that a command's peak memory is not
     * raised by vernier's own: a child carries its parent's peak resident
     * memory across the exec. Callers leave it NULL: spawn directly. */
    struct vn__spawner *spawner;
} vn_exec_opts;

enum {
    VN_EXEC_OK = 0,
    VN_EXEC_TIMED_OUT = 1,    /* killed with its process group after the timeout */
    VN_EXEC_INTERRUPTED = 2,  /* the stop flag was raised; the child was stopped */
};

/* Runs the command once. The wall time is CLOCK_MONOTONIC from the moment
 * the child is released to exec until it is reaped, so vernier's own fork
 * is not counted. Returns VN_EXEC_OK, VN_EXEC_TIMED_OUT, VN_EXEC_INTERRUPTED,
 * or a negative code when the command could not be started (the message in
 * err names the program and the reason). */
int vn_exec(const vn_exec_opts *o, double *wall_ns, vn_proc_usage *u, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
