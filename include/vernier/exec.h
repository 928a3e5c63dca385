/* Running commands: split a command line into words without a shell, find
 * the program, run it once with its own process group, a timeout and its
 * own resource usage. `vernier run` is built on this. */
#ifndef VERNIER_EXEC_H
#define VERNIER_EXEC_H

#include <stddef.h>
#include <sys/types.h>

#include "vernier/base.h"
#include "vernier/bench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Splits line into words the way a POSIX shell splits a simple command:
 * blanks separate words; single quotes keep everything; double quotes keep
 * everything but \\ before " \\ $ ` and newline; a backslash outside quotes
 * keeps the next character. Nothing is expanded: no variables, globs,
 * pipes or redirections (use --shell for those). On success *words is a
 * NULL-terminated array (vn_words_free) and *count its length; on a syntax
 * error (an unterminated quote, a trailing backslash) VN_EINVAL and a
 * message in err. */
int  vn_split_words(const char *line, char ***words, int *count, char *err, size_t errlen);
void vn_words_free(char **words);

/* 1 when line needs a shell to mean what it says: an unquoted pipe,
 * redirection, list operator, subshell, glob, comment, leading ~, an
 * expansion ($ or a backquote, also inside double quotes), several lines,
 * a first word that is a shell keyword or builtin, or a variable set before
 * the program; why then says which, in a few words ("it has '|' (a pipe)").
 * 0 for a simple command that vn_split_words runs as meant. */
int  vn_needs_shell(const char *line, char *why, size_t whylen);

/* Finds name along PATH (or checks it, when it contains a slash) and
 * writes the path of an executable file to out. VN_ENOENT when there is
 * none, -EACCES when the file exists but cannot be executed. */
int vn_which(const char *name, char *out, size_t outlen);

/* vernier-spawn, started once and kept: see vn_exec_opts.spawner. */
typedef struct vn_spawner vn_spawner;

typedef struct vn_exec_opts {
    char *const *argv;              /* the program and its arguments */
    const char *path;               /* the program's file, found beforehand (vn_which), so the
                                       PATH search is not timed; NULL: searched at the spawn */
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
    /* A small program (vernier-spawn) that starts the command and measures
     * it in vernier's place. Needed for an honest peak memory: a child
     * spawned from a process carries that process's peak resident memory
     * into its own ru_maxrss across the exec (the kernel keeps the
     * high-water mark of the address space it replaces), so a command run
     * from a 4 MiB process never reports less than 4 MiB; from the small
     * static helper the floor is its own few hundred KiB. The helper is
     * started once and serves every run, so no exec of its own comes
     * between two runs. NULL: spawn directly. Not used with on_spawn or
     * cgroup (to measure a group, move the helper into it with
     * vn_cgroup_join and vn_spawner_pid: its children follow). */
    vn_spawner *spawner;
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

/* Starts the helper program at path; vn_spawner_stop ends it. */
int  vn_spawner_start(const char *path, vn_spawner **out, char *err, size_t errlen);
void vn_spawner_stop(vn_spawner *s);
/* The helper's process id. */
long vn_spawner_pid(const vn_spawner *s);

/* The helper's side: reads one request after another from in_fd, runs each
 * command like vn_exec, and writes the outcome to out_fd, until in_fd ends.
 * stop_flag (raised by SIGTERM in the helper) stops the running command. */
int vn_spawner_serve(int in_fd, int out_fd, volatile int *stop_flag);

/* A cgroup for measuring the peak memory of a whole process tree: under
 * cgroup v2 (memory.peak) when its hierarchy has the memory controller,
 * else in the cgroup v1 memory hierarchy (memory.max_usage_in_bytes).
 * vn_cgroup_create makes a fresh child of this process's group, or says in
 * why (VN_ENOTSUP) why it cannot: no memory controller, no permission, a
 * kernel without memory.peak. */
int  vn_cgroup_create(char *dir, size_t dirlen, char *why, size_t whylen);
/* Under cgroup v2, a fresh group named first-SEQ beside first (the group
 * vn_cgroup_create made, which may be gone by now): for kernels that cannot
 * reset memory.peak, a new group per run is the reset. 0, or a negative
 * code with why (VN_EINVAL for no first or a seq of 0, VN_ENOTSUP when the
 * group cannot be made). */
int  vn_cgroup_create_next(const char *first, unsigned seq, char *next, size_t nextlen,
                           char *why, size_t whylen);
/* Moves process pid (and so its later children) into the group: 0 or -errno. */
int  vn_cgroup_join(const char *dir, long pid);
/* The group's peak, read through one open file: vn_cgroup_peak_open opens
 * it (a file descriptor, or -errno) and starts the count; vn_cgroup_peak
 * gives the peak since the last call, in KiB, and starts the next. Under
 * cgroup v2 a reset holds only for what is read through the same file, so
 * keep it open for the group's life. A kernel that cannot reset gives
 * -(peak) - 1. */
int  vn_cgroup_peak_open(const char *dir);
int  vn_cgroup_peak(int fd, long long *kib);
/* Removes the group, waiting up to a second for processes still exiting:
 * 0, or -errno (EBUSY: something the commands started is still in it). */
int  vn_cgroup_remove(const char *dir);

#ifdef __cplusplus
}
#endif
#endif
