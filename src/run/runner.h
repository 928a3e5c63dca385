/* Timing whole commands over many runs (`vernier run`): interleaved runs of
 * several commands, warmup, adaptive stopping, prepare/setup/cleanup hooks,
 * parameter scans, timeouts and failures. Each command's runs are a
 * vn_run_result: the same sample record (vn_sample), statistics (vn_stats)
 * and warnings as the engine's rows, with what only a command has. */
#ifndef VERNIER_RUNNER_H
#define VERNIER_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "engine/results.h"
#include "run/exec_api.h"
#include "vernier/bench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A parameter scanned over values: {name} in the commands becomes each. */
typedef struct vn_run_param {
    const char *name;
    const char *const *values;
    size_t nvalues;
} vn_run_param;

/* Runs the command once; the default is vn_exec(). Tests replace it with an
 * executor that returns given times. */
typedef int (*vn_executor)(const vn_exec_opts *o, double *wall_ns, vn_proc_usage *u, char *err,
                           size_t errlen, void *ctx);

typedef struct vn_run_config {
    size_t size;                  /* sizeof (vn_run_config), set by vn_run_config_init: a program
                                   * built against an older header still works (docs/layers.md) */
    const char *const *commands;  /* as given: each is split into words, or run by sh -c */
    size_t ncommands;
    /* 0: a command runs through the shell only when it needs one
     * (pipes, redirections, globs, $...); 1: every command
     * does; -1: none does, and one that needs a shell is an error. The
     * shell's own start-up is measured and subtracted from the runs of the
     * commands that go through it. */
    int shell;
    const char *shell_cmd;        /* the shell as a command line ("bash --norc"); NULL: sh.
                                   * The hooks (prepare, setup, cleanup) run through it too. */
    const char *const *names;     /* names of the commands in order, {NAME} substituted; NULL
                                   * or fewer than commands: the rest go by their text */
    size_t nnames;
    size_t warmup;                /* untimed runs per command first */
    size_t runs;                  /* exactly this many runs; 0: adaptive */
    size_t min_runs;              /* adaptive: at least (default 10) */
    size_t max_runs;              /* adaptive: at most (default 10000) */
    double min_time;              /* adaptive: seconds of runs per command unless precise earlier (default 3; --max-time) */
    double precision;             /* adaptive: stop when the median's 95% CI is within +-this % (default 1) */
    int order_random;             /* shuffled blocks instead of A B A B */
    int order_blocks;             /* all runs of a command, with its warmup, before the next */
    int cpu;                      /* pin the calling thread, the helper and every command to
                                   * this CPU for the measurement (restored after); -1: not */
    uint64_t seed;                /* for --order random */
    const char *prepare;          /* shell command before every timed run, untimed */
    const char *const *prepares;  /* or one per command, in order (nprepares == ncommands) */
    size_t nprepares;
    const char *setup;            /* shell command once before a command's runs */
    const char *cleanup;          /* shell command once after them */
    const vn_run_param *params;
    size_t nparams;
    double timeout;               /* seconds per run; 0: none */
    int ignore_failure;           /* keep going after a non-zero exit, a signal or a timeout */
    int show_output;              /* let the command's stdout and stderr through (2: both
                                     to stderr, when stdout carries a report) */
    const char *input;            /* stdin file; NULL: /dev/null. One read only once ("-",
                                   * /dev/stdin, /dev/fd/N, a FIFO) is read to its end before
                                   * the first run, waiting at most timeout, and every run
                                   * reads that copy from its start */
    const char *output_file;      /* with show_output 0: the commands' stdout to this file */
    int output_pipe;              /* with show_output 0: their stdout through a pipe, read
                                   * and thrown away (what a program writing to /dev/null
                                   * may skip, it does) */
    int tree_memory;              /* measure the process tree's peak through a cgroup when possible */
    int progress;                 /* a progress line on stderr */
    const volatile int *stop_flag;/* non-zero: stop the runs, report what was measured */
    const char *counters;         /* performance counters per run (vernier/counters.h); NULL or "none": off */
    const char *helper;           /* vernier-spawn, for an honest peak memory (see vn_exec_opts) */
    vn_executor executor;         /* NULL: vn_exec */
    void *executor_ctx;
    int dma_latency_us;           /* hold the CPUs' wake-up latency under this while the commands
                                   * run (/dev/cpu_dma_latency, root only); -1: leave it;
                                   * VN_DMA_LATENCY_AUTO (default): 0 under a hypervisor, else -1.
                                   * The results' config says what was held. */
} vn_run_config;

void vn_run_config_init(vn_run_config *c);

/* What stopped the runs early, for the caller's message and exit code. */
typedef struct vn_run_failure {
    int failed;                   /* a run failed and --ignore-failure was not given */
    char message[512];            /* one line: what failed and what to do */
} vn_run_failure;

/* The comparison of each command with the fastest. */
typedef struct vn_run_compare {
    size_t fastest;               /* index into results->commands */
    size_t other;
    double ratio;                 /* median(other) / median(fastest) */
    double ratio_err;             /* half-width of its 95% interval, from both medians' intervals */
    double p;                     /* Mann-Whitney U two-sided p-value */
    int significant;              /* p < 0.05 */
} vn_run_compare;

/* One command's runs (one row per command and parameter combination). */
typedef struct vn_run_result {
    size_t size;                  /* sizeof (vn_run_result) of the library that filled it */
    char name[192];               /* the user's name (-n), or the command line */
    int named;                    /* 1: name is the user's, shown in place of the command */
    char *command;                /* the command line, parameters substituted; owned */
    char **pnames, **pvalues;     /* the parameters of this row, nparams of each; owned */
    size_t nparams;
    /* One per run, in the order they ran: value is the wall time in ns as
     * measured (the shell's start-up not taken off), iters 1; counts points
     * into sample_counts with counters. Owned. */
    vn_sample *samples;
    vn_proc_usage *proc;          /* what wait4() said of each run, nsamples of them; owned */
    size_t nsamples;
    /* Of the runs' wall times, the shell's start-up taken off. */
    vn_stats stats;
    /* Through a shell: its own start-up (means of its runs), taken off the
     * wall times (shell_ns) and off the means of user and system time; 0
     * without a shell. The runs keep their own numbers. */
    double shell_ns, shell_user_ns, shell_sys_ns;
    /* 1: the command cannot be told apart from starting the shell; bound_ns,
     * its fastest run, is what it takes less than. */
    int upper_bound;
    double bound_ns;
    vn_stop stop;
    char error[256];              /* why the runs stopped when one failed, or "" */
    vn_bench_warning warnings[VN_MAX_WARNINGS];
    int nwarnings;
    /* With counters: per run, the command and what it started (medians of
     * the runs), in the order of vn_run_results.counters' opened events. */
    vn_counter_result counters[VN_COUNTERS_MAX];
    int ncounters;
    vn_counter_derived derived;
    double *sample_counts;        /* nsamples x ncounters, owned */
} vn_run_result;

/* Every command's runs, and what holds for all of them. */
typedef struct vn_run_results {
    size_t size;                  /* sizeof (vn_run_results), set by vn_run_results_init */
    vn_sysinfo env;
    vn_run_result *commands;      /* owned */
    size_t ncommands;
    /* The settings the runs were made with. */
    size_t min_runs, max_runs;
    double max_time, precision;
    int cpu;                      /* -1: not pinned */
    int interleave;               /* 1: the commands took turns run by run */
    int dma_latency_us;           /* the wake-up latency held, -1 none */
    int interrupted;
    char note[512];               /* something the reader must know about the whole run, or "" */
    vn_counter_info counters;     /* requested is "" when counters were off */
} vn_run_results;

/* Zeroes r and sets its size; vn_run_commands() refuses one not set up so
 * (VN_EABI). */
void vn_run_results_init(vn_run_results *r);
/* Frees what r owns and zeroes it, keeping its size; NULL does nothing. */
void vn_run_results_free(vn_run_results *r);

/* Runs every command (times every parameter combination). Fills results
 * (set up by vn_run_results_init; one vn_run_result per command row), the
 * comparisons (cmp, ncmp; free() it), and fail when a run failed. Returns
 * 0, or a negative code when nothing could be run (a command that does not
 * exist, a bad parameter): then err says why and results holds nothing. */
int vn_run_commands(const vn_run_config *c, vn_run_results *results, vn_run_compare **cmp,
                    size_t *ncmp, vn_run_failure *fail, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
