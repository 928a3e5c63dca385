/* vernier run's private parts shared by its files: a row (one command
 * times one combination of parameter values), the state of a run, the
 * output-draining thread, and the functions the files call across. */
#ifndef VN_RUNNER_RUN_H
#define VN_RUNNER_RUN_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/decide.h"
#include "exec_internal.h"
#include "input.h"
#include "run/runner.h"

#define MAX_ROWS 10000
#define SHELL_RUNS 30      /* the shell's empty command: at least this many runs */
#define SHELL_RUNS_MAX 300 /* and at most this many */

/* A pipe whose far end a thread reads and throws away: a command whose
 * output goes to a pipe may behave as it does in a shell pipeline, unlike
 * one writing to /dev/null. The commands open the pipe's write end by its
 * /proc path, so the helper that spawns them needs no descriptor passed. */
typedef struct drain {
    int r, w;
    int stop[2];               /* written to end the thread */
    int running;
    pthread_t thread;
} drain;

/* Reads and drops what the commands write until the write end is closed by
 * all, or until drain_stop() says to stop: something a command left
 * running may hold the write end for good. The thread ends by returning,
 * never by cancellation, which is not safe to interrupt a read with under
 * every runtime (AddressSanitizer's thread teardown, for one). */

typedef struct row {
    char *text;                /* the command after substitution */
    char *label;               /* its name (-n) after substitution, or NULL */
    int shell;                 /* 1: run through the shell */
    char **argv;               /* what is executed */
    char *path;                /* argv[0]'s file, found before any run */
    char *prepare, *setup, *cleanup;
    size_t *choice;            /* the parameter values of this row */
    double *wall;              /* per timed run, ns as measured */
    double *counts;            /* per timed run, the counters' values (ncounters each) */
    vn_proc_usage *use;
    size_t n, cap;
    size_t warmed;
    int finished, cleaned, set_up;
    double spent_ns;           /* sum of this row's timed runs */
    double prepare_ns;         /* sum of its --prepare commands: the budget counts them too */
    size_t streak;             /* stop tests in a row, up to the last, at which the precision held */
    vn_stop stop;
    size_t failed_runs;
    char error[256];
} row;

typedef struct runctx {
    const vn_run_config *c;
    vn_executor exec;
    const char *cgroup;        /* NULL, or cgbuf */
    char cgbuf[1200];
    char first_group[1200];    /* the first group; renewed ones are first_group-1, -2, ... */
    char renew_why[1400];      /* why a fresh group could not be made */
    unsigned cg_seq;           /* groups made after the first, one per run without resets */
    int peak_resets;           /* 0 once the peak could be neither reset nor renewed */
    int helper_in_group;       /* the helper, and so each command, is in the cgroup */
    int peak_fd;               /* the cgroup's peak file, open for its life */
    /* Counters: the first run's handle names the events for the whole run;
     * every run opens its own on its child. */
    vn_counters *first;
    vn_counters *cur;
    size_t ncounters;
    char why[256];
    const char *shell_path;    /* the shell, found once; NULL: searched at each spawn */
    char **hook_shell;         /* the shell's words, for the hooks */
    const char *stdout_path;   /* the commands' standard output (--output FILE or pipe) */
    uint64_t t_start, t_drawn; /* when the runs began and the progress was last drawn */
    size_t planned_extra;      /* warmup runs, counted in the progress */
    vn__spawner *spawner;      /* vernier-spawn, when the run has one */
    vn__run_input input;       /* the copy of an input read only once */
} runctx;

/* run/drain.c: the commands' output through a pipe (--output pipe). */
int vn__drain_start(drain *d);
void vn__drain_stop(drain *d);

/* run/rows.c: the rows, their order and the progress line. */
void vn__free_rows(row *r, size_t n);
char **vn__shell_argv(const vn_run_config *c, const char *text);
int vn__grow(row *r);
/* The decision's thresholds for the runs of commands (vn__policy), and a
 * row's runs as the decision's view of them (v: room for r->n samples). */
void vn__run_policy(const vn_run_config *c, vn__policy *p);
/* The shell's own start-up, taken off the runs of a row run through it:
 * the median wall time of n empty commands (SHELL_RUNS to SHELL_RUNS_MAX)
 * with its 95% interval (order statistics), and the means of user and
 * system time. All 0 for a row run without a shell. */
typedef struct vn__shell_time {
    double wall, lo, hi, user, sys;
    size_t n;
} vn__shell_time;
int vn__runs_view(const row *r, const vn__shell_time *sh, vn_sample *v, vn__row_view *rv);
int vn__check_done(const vn_run_config *c, row *r, const vn__shell_time *sh);
size_t vn__round_order(row *rows, size_t n, const vn_run_config *c, vn_rng *rng, size_t *order);
void vn__progress(runctx *x, const row *rows, size_t nrows, const row *cur);
int vn__build_rows(const vn_run_config *c, row **out, size_t *nout, char *err, size_t errlen);

/* run/result.c: each row's result, and the comparison of the rows. */
int vn__fill_result(vn_run_result *res, row *r, const vn_run_config *c,
                    const vn__shell_time *sh);
int vn__run_counters_finish(vn_run_result *res, const vn_counters *c, double *counts);
int vn__compare(const vn_run_results *res, vn_run_compare **out, size_t *nout);

/* runner_exec.c: one command run, its counters and cgroup, the hooks. */
int vn__default_exec(const vn_exec_opts *o, double *wall_ns, vn_proc_usage *u, char *err,
                     size_t errlen, void *ctx);
void vn__add_note(vn_run_results *r, const char *fmt, ...) VN_PRINTF(2, 3);
void vn__describe_failure(const row *r, const char *where, int rc, const vn_proc_usage *u,
                             const vn_run_config *c, char *out, size_t outlen);
void vn__drop_counts(runctx *x);
int vn__hook(runctx *x, const char *what, const char *cmd, vn_run_failure *fail);
int vn__measure_shell(runctx *x, vn__shell_time *sh, char *err, size_t errlen);
int vn__o_counting(const runctx *x);
int vn__run_once(runctx *x, char *const *argv, const char *path, int show, double *wall,
                    vn_proc_usage *u, char *err, size_t errlen);
void vn__sweep_groups(runctx *x, vn_run_results *results, int report);
void vn__take_counts(runctx *x, double *out);
int vn__warm(runctx *x, row *r, const vn_run_config *c, vn_run_failure *fail);

#endif
