/* The settings of a run of benchmarks (vernier/bench.h runs them; the
 * results, vernier/results.h, keep them). */
#ifndef VERNIER_CONFIG_H
#define VERNIER_CONFIG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Settings of a run; vn_config_init() fills the defaults. */
typedef struct vn_config {
    /* sizeof (vn_config), set by vn_config_init: a program built against an
     * older header, whose struct ends sooner, keeps the defaults of what it
     * lacks; a size no vn_config_init set makes vn_suite_run() return
     * VN_EABI. Always start from vn_config_init(). */
    size_t size;
    double max_time;           /* seconds per benchmark (default 1; at most 86400) */
    double precision;          /* percent (default 1) */
    size_t min_samples;        /* default 10 */
    size_t max_samples;        /* default 10000; at most 10^7 */
    double warmup;             /* seconds of untimed warmup (default 0.02; at most 3600) */
    double min_sample_time;    /* seconds a sample lasts at least (default 0.00025) */
    int cpu;                   /* pin to this CPU; -1 no pinning */
    int threads;               /* default 1; above 1 not with cpu, cold or a CPU-time timer */
    int cold;                  /* evict the caches before each sample */
    const char *timer;         /* NULL: the timer `vernier clocks` selects */
    const char *filter;        /* POSIX extended regex on names; NULL all */
    int progress;              /* show progress on stderr */
    /* Performance counters: NULL or "default" for the default set, "none"
     * for none, or a list of names (`vernier env` lists what this machine
     * counts). Events this machine cannot count are named once in the
     * results and left out; a name that is no event makes vn_suite_run()
     * return VN_ENOENT (VN_ENOTSUP for a vendor's event name in a build
     * without libpfm4). */
    const char *counters;
    /* When set, checked between samples: non-zero stops the run, which then
     * reports what it has (vn_main points it at its SIGINT/SIGTERM flag). */
    const volatile int *stop_flag;
    /* Hold the CPUs' wake-up latency under this many microseconds while
     * measuring, through /dev/cpu_dma_latency, so that no sample pays the
     * exit from a deep idle state, as cyclictest does; -1 leaves the idle
     * states alone; VN_DMA_LATENCY_AUTO (the default) is 0 under a
     * hypervisor and -1 on bare metal, where every idle core polling could
     * lower the turbo clock of the one being measured. It takes root; in
     * the results, the value that was held, or -1 when none was. */
    int dma_latency_us;
    /* Non-zero (the default): the benchmarks take turns rather than each
     * running to its end before the next begins; each keeps its own budget
     * and stop rule. Rows compared with each other then meet the same
     * machine, when its speed or a neighbour on the core changes over
     * seconds. Over processes the processes are the turns: each runs the
     * rows one after another, in an order of its own (rows that take turns
     * a sample at a time fill the caches for each other); in one process
     * they take one sample each in an order shuffled every round. With
     * threads the rows run one after another, and the results record 0. */
    int interleave;
    /* For experiments on the engine itself: overrides of the thresholds
     * of its decision, "NAME=VALUE,..." (docs/engine.md lists the names,
     * such as shared_ratio=inf or shared_evidence=inf, which switch a rule off).
     * NULL (the default): every rule as documented. An unknown name or a
     * bad value makes vn_suite_run() return VN_EINVAL before measuring. */
    const char *policy;
    /* The row every other row is compared with (--baseline NAME), for the
     * benchmarks that name no baseline of their own; NULL: none. It must
     * name a row that runs (after the filter), or vn_suite_run() returns
     * VN_ENOENT before measuring. */
    const char *baseline;
    /* How many processes measure each benchmark: 1 measures in this
     * process only; N > 1 in exactly N fresh processes, one after another;
     * 0 (the default) as many as the variation between them asks for, 2
     * to 20. Each process is the program started again as a worker (a new
     * address-space layout, environment size and stack offset), and the
     * interval of every headline is taken across them. More than one needs
     * the program's own main, which the workers run again: vn_main() or
     * vn_suite_main(); vn_suite_run() measures in this process (0 means 1
     * there, and N > 1 is VN_EINVAL). */
    int processes;
} vn_config;

#define VN_DMA_LATENCY_AUTO (-2)

void vn_config_init(vn_config *c);

#ifdef __cplusplus
}
#endif
#endif
