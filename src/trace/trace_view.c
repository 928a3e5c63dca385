/* The calls `vernier trace` recorded, as the results the reporters know:
 * one row whose samples are the calls, so that the console, --hist, the
 * vernier.results/1 JSON and `vernier compare` work on them as on any
 * benchmark, and the findings a trace adds (its probes, their cost, what
 * was lost, the calls per CPU and per process). Pure: no I/O. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/levels.h"
#include "trace.h"

/* Breakdown lines shown, by most calls; the rest are summed on one line. */
#define MAX_LINES 8

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 1024;
    void *q = realloc(*p, c * size);
    if (!q)
        return VN_ENOMEM;
    *p = q;
    *cap = c;
    return 0;
}

/* The next draw of a 64-bit xorshift generator (Marsaglia's). */
static uint64_t draw(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9e3779b97f4a7c15u;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

int vn__trace_calls_add(vn__trace_calls *c, const struct vn_trace_event *e)
{
    size_t keep = c->keep ? c->keep : VN__TRACE_KEEP;
    c->seen++;
    size_t at = c->n;
    if (c->n >= keep) {
        /* Algorithm R: the seen-th call takes a slot with chance keep/seen. */
        uint64_t j = draw(&c->rng) % c->seen;
        if (j >= keep)
            return 0;
        at = (size_t)j;
    } else if (c->n == c->cap) {
        size_t cap = c->cap, c2 = c->cap, c3 = c->cap;
        if (grow((void **)&c->ns, &cap, c->n, sizeof *c->ns) ||
            grow((void **)&c->pid, &c2, c->n, sizeof *c->pid) ||
            grow((void **)&c->cpu, &c3, c->n, sizeof *c->cpu))
            return VN_ENOMEM;
        c->cap = cap;
    }
    /* A process's calls come in runs, so the last one is the likely match. */
    size_t i = c->nprocs && c->procs[c->nprocs - 1].pid == e->pid ? c->nprocs - 1 : 0;
    while (i < c->nprocs && c->procs[i].pid != e->pid)
        i++;
    if (i == c->nprocs) {
        if (grow((void **)&c->procs, &c->capprocs, c->nprocs, sizeof *c->procs))
            return VN_ENOMEM;
        c->procs[i].pid = e->pid;
        memcpy(c->procs[i].comm, e->comm, sizeof c->procs[i].comm);
        c->procs[i].comm[sizeof c->procs[i].comm - 1] = '\0';
        c->nprocs++;
    }
    c->ns[at] = (double)e->ns;
    c->pid[at] = e->pid;
    c->cpu[at] = e->cpu;
    if (at == c->n)
        c->n++;
    return 0;
}

void vn__trace_calls_free(vn__trace_calls *c)
{
    free(c->ns);
    free(c->pid);
    free(c->cpu);
    free(c->procs);
    memset(c, 0, sizeof *c);
}

typedef struct keyed {
    uint32_t key;
    double ns;
} keyed;

static int by_key_then_ns(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->ns > y->ns) - (x->ns < y->ns);
}

typedef struct group {
    uint32_t key;
    size_t n;
    double median, p99;
} group;

static int by_count(const void *a, const void *b)
{
    const group *x = a, *y = b;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return (x->key > y->key) - (x->key < y->key);
}

static const char *comm_of(const vn__trace_calls *c, uint32_t pid)
{
    for (size_t i = 0; i < c->nprocs; i++)
        if (c->procs[i].pid == pid)
            return c->procs[i].comm;
    return "?";
}

/* One finding per CPU (by_cpu) or process, the busiest first. */
static int breakdown(vn_results *r, const vn__trace_calls *c, int by_cpu)
{
    keyed *k = malloc(c->n * sizeof *k);
    group *g = malloc(c->n * sizeof *g);
    int err = k && g ? 0 : VN_ENOMEM;
    size_t ng = 0;
    for (size_t i = 0; !err && i < c->n; i++)
        k[i] = (keyed){by_cpu ? c->cpu[i] : c->pid[i], c->ns[i]};
    if (!err) {
        qsort(k, c->n, sizeof *k, by_key_then_ns);
        double *v = malloc(c->n * sizeof *v);
        if (!v)
            err = VN_ENOMEM;
        for (size_t i = 0; !err && i < c->n;) {
            size_t j = i;
            while (j < c->n && k[j].key == k[i].key) {
                v[j - i] = k[j].ns;
                j++;
            }
            g[ng++] = (group){k[i].key, j - i, vn_percentile_sorted(v, j - i, 50),
                              vn_percentile_sorted(v, j - i, 99)};
            i = j;
        }
        free(v);
    }
    /* One CPU or one process says nothing the headline does not. */
    if (!err && ng > 1) {
        qsort(g, ng, sizeof *g, by_count);
        size_t rest = 0;
        for (size_t i = 0; !err && i < ng; i++) {
            if (i >= MAX_LINES) {
                rest += g[i].n;
                continue;
            }
            char brief[128], who[48];
            if (by_cpu)
                snprintf(who, sizeof who, "cpu %u", g[i].key);
            else
                snprintf(who, sizeof who, "pid %u (%s)", g[i].key, comm_of(c, g[i].key));
            snprintf(brief, sizeof brief, "%s: %zu calls, median %.0f ns, p99 %.0f ns", who, g[i].n,
                     g[i].median, g[i].p99);
            err = vn_results_add_finding(r, by_cpu ? "trace_cpu" : "trace_pid", brief, NULL);
        }
        if (!err && rest) {
            char brief[128];
            snprintf(brief, sizeof brief, "%zu more %s: %zu calls", ng - MAX_LINES,
                     by_cpu ? "CPUs" : "processes", rest);
            err = vn_results_add_finding(r, by_cpu ? "trace_cpu" : "trace_pid", brief, NULL);
        }
    }
    free(k);
    free(g);
    return err;
}

static int findings(vn_results *r, const vn__trace_calls *c, const vn__trace_info *in)
{
    char brief[512], why[1024]; /* the finding cuts a brief at 127 bytes */
    /* The calls timed: the probes' own count, which holds the calls the
     * ring buffer could not, else those recorded here. */
    uint64_t total = in->lost.timed ? in->lost.timed : c->seen;
    snprintf(brief, sizeof brief, "traced %s with %s: %llu calls in %.2f s", in->func,
             vn__trace_mode_name(in->mode), (unsigned long long)total, in->elapsed);
    snprintf(why, sizeof why, "Each call is timed in the kernel from the entry probe to the return "
             "probe (bpf_ktime_get_ns), so it includes part of the probes' own cost, which is not "
             "subtracted (the overhead column is 0). The probes saw %llu entries and timed %llu "
             "returns. %s.%s%s", (unsigned long long)in->lost.entries,
             (unsigned long long)in->lost.timed,
             in->mode == VN__TRACE_FENTRY ? "fentry/fexit attach through BTF trampolines, the "
             "cheaper kind" : "kprobes trap into the kernel's breakpoint handler and cost more than "
             "fentry/fexit", in->fallback && in->fallback[0] ? " Not fentry/fexit: " : "",
             in->fallback ? in->fallback : "");
    int err = vn_results_add_finding(r, "trace", brief, why);
    if (!err) {
        if (isfinite(in->probe_ns))
            snprintf(brief, sizeof brief, "probe cost: %.0f ns per call (%s)", in->probe_ns, in->probe);
        else
            snprintf(brief, sizeof brief, "probe cost unknown: %s", in->probe);
        err = vn_results_add_finding(r, "trace_probe_cost", brief,
                                     "What the entry and return probes add to each call, as its "
                                     "caller sees it: syscall(SYS_getppid) timed in a loop without "
                                     "and with the same probes on the getppid system call (11 "
                                     "rounds of 3000 calls a side), the difference of the medians "
                                     "per call; +- is half the interquartile range of the probed "
                                     "rounds. The time is the rounds' own, then the probes' load "
                                     "and attach, which the trace itself repeats.");
    }
    uint64_t lost = in->lost.events + in->lost.starts + in->lost.kernel + in->lost.deep;
    if (!err && lost) {
        snprintf(brief, sizeof brief, "lost %llu calls: %llu ring buffer full, %llu start map full, "
                 "%llu nested too deep, %llu skipped by the kernel", (unsigned long long)lost,
                 (unsigned long long)in->lost.events, (unsigned long long)in->lost.starts,
                 (unsigned long long)in->lost.deep, (unsigned long long)in->lost.kernel);
        err = vn_results_add_finding(r, "trace_lost", brief,
                                     "Calls the probes saw but could not record: the ring buffer "
                                     "was full (the reader fell behind; the count and the log2 "
                                     "histogram still hold them), too many calls were in flight at "
                                     "once, a call was nested deeper than 32 on its thread, or the "
                                     "kernel did not run a probe inside another. The statistics "
                                     "leave them out; filter with --pid or --cpu, or trace a less "
                                     "frequent function.");
    }
    /* Entries neither timed nor lost above: still in flight at the end,
     * or their return was never seen. */
    uint64_t settled = in->lost.timed + in->lost.starts + in->lost.deep;
    uint64_t open = in->lost.entries > settled ? in->lost.entries - settled : 0;
    if (!err && open) {
        if (in->mode == VN__TRACE_KPROBE)
            snprintf(brief, sizeof brief, "%llu calls entered without a return seen: still running "
                     "at the end, or missed by the kretprobe", (unsigned long long)open);
        else
            snprintf(brief, sizeof brief, "%llu calls still running when the trace ended",
                     (unsigned long long)open);
        err = vn_results_add_finding(r, "trace_open", brief,
                                     "Calls whose entry the probes saw and whose return they did "
                                     "not, so they are not timed. With fentry/fexit that means the "
                                     "call had not returned when the trace stopped. A kretprobe "
                                     "also misses the return of a call when more calls are in "
                                     "flight at once than its instances (maxactive, by default "
                                     "twice the CPUs and at least 10): trace with fentry/fexit "
                                     "(the default where the kernel has BTF) to time them all.");
    }
    if (!err && in->lost.unmatched) {
        snprintf(brief, sizeof brief, "%llu returns of calls begun before the trace, not timed",
                 (unsigned long long)in->lost.unmatched);
        err = vn_results_add_finding(r, "trace_unmatched", brief, NULL);
    }
    if (!err && in->lost.timed) {
        /* The exact log2 histogram of every call, as funclatency prints it:
         * the range in the brief, each bucket in the explanation. */
        char buckets[900] = "";
        size_t at = 0;
        int lo = -1, hi = -1;
        for (int b = 0; b < VN_TRACE_LOG2_BUCKETS; b++) {
            if (!in->lost.log2[b])
                continue;
            lo = lo < 0 ? b : lo;
            hi = b;
            if (at < sizeof buckets - 64)
                at += (size_t)snprintf(buckets + at, sizeof buckets - at, "%s%llu-%llu ns: %llu",
                                       at ? "; " : "", b ? 1ull << b : 0ull,
                                       b < 63 ? (1ull << (b + 1)) - 1 : ~0ull,
                                       (unsigned long long)in->lost.log2[b]);
        }
        snprintf(brief, sizeof brief, "every call in log2 buckets: %llu to %llu ns, mean %.0f ns "
                 "(--explain)", lo > 0 ? 1ull << lo : 0ull, hi < 63 ? (1ull << (hi + 1)) - 1 : ~0ull,
                 (double)in->lost.sum_ns / (double)in->lost.timed);
        snprintf(why, sizeof why, "Counted in the kernel for every call timed, whatever the ring "
                 "buffer and the sample kept: %s.", buckets);
        err = vn_results_add_finding(r, "trace_log2", brief, why);
    }
    if (!err && c->seen > c->n) {
        snprintf(brief, sizeof brief, "statistics of a uniform sample of %zu of the %llu calls "
                 "recorded", c->n, (unsigned long long)c->seen);
        err = vn_results_add_finding(r, "trace_sample", brief,
                                     "A long trace keeps a uniform random sample of the calls "
                                     "(reservoir sampling), so its memory stays bounded: the "
                                     "percentiles and the median are those of the sample, within "
                                     "a fraction of a percentile of the whole's; the count and the "
                                     "log2 histogram are of every call.");
    }
    if (!err && !in->no_breakdown)
        err = breakdown(r, c, 1);
    if (!err && !in->no_breakdown)
        err = breakdown(r, c, 0);
    return err;
}

int vn__trace_view(const vn__trace_calls *c, const vn__trace_info *in, vn_results *out)
{
    if (!c || !in || !c->n)
        return VN_EINVAL;
    vn_results r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    r.result_size = sizeof(vn_result);
    r.bench = calloc(1, sizeof *r.bench);
    if (!r.bench)
        return VN_ENOMEM;
    r.nbench = 1;
    vn_result *x = r.bench;
    int err = 0;
    snprintf(x->name, sizeof x->name, "%s", in->func);
    x->unit = "ns";
    x->samples = calloc(c->n, sizeof *x->samples);
    if (!x->samples)
        err = VN_ENOMEM;
    for (size_t i = 0; !err && i < c->n; i++)
        x->samples[i] = (vn_sample){.value = c->ns[i], .iters = 1, .thread = 0, .ref_ns = NAN,
                                    .branch_cycles = NAN, .cpu_ns = NAN};
    x->nsamples = x->headline_samples = c->n;
    x->iters = 1;
    x->threads = 1;
    /* Nothing is subtracted (the views take overhead_ns off every sample):
     * only part of the probes' cost falls between the two timestamps, so
     * it is reported beside, as a finding. */
    x->overhead_ns = 0;
    x->cycles = x->ref_ns = x->ref_spread = x->overhead_cycles = NAN;
    x->overhead_cycles_spread = NAN;
    x->bytes_per_sec = x->items_per_sec = NAN;
    x->cpu_ns = x->on_cpu = NAN;
    x->ratio = x->ratio_ci[0] = x->ratio_ci[1] = NAN;
    x->stop = in->interrupted ? VN_STOP_INTERRUPTED : VN_STOP_MAX_TIME;
    x->elapsed = in->elapsed;
    x->timer = VN_CLOCK_MONOTONIC;
    if (!err)
        err = vn_stats_compute(c->ns, c->n, &x->stats);
    /* The interval shown is the next trace's, as every row's is; the
     * calls' own interval of their median is the estimate's. */
    x->cycles_ci[0] = x->cycles_ci[1] = x->cycles_est_ci[0] = x->cycles_est_ci[1] = NAN;
    x->share_processes = x->share_blocks = x->share_samples = NAN;
    x->est_ci[0] = x->est_ci[1] = NAN;
    if (!err)
        vn__levels_intervals(x->stats.median, x->stats.median_ci[0], x->stats.median_ci[1],
                             x->est_ci, x->stats.median_ci);
    r.timer = VN_CLOCK_MONOTONIC;
    snprintf(r.timer_reason, sizeof r.timer_reason,
             "bpf_ktime_get_ns in the kernel, at the function's entry and return");
    r.timer_cost_ns = NAN;
    r.timer_resolution_ns = 1;
    r.counter_hz = NAN;
    r.optimized = 1;
    r.interrupted = in->interrupted;
    snprintf(r.note, sizeof r.note, "each sample is one call of the kernel function %s, traced with %s",
             in->func, vn__trace_mode_name(in->mode));
    vn_config_init(&r.config);
    r.config.min_samples = 1;
    r.config.max_time = in->elapsed;
    r.config.warmup = 0;
    /* The row's own settings are the run's: left at 0, the JSON would say
     * it was sampled for no time at no precision, which the schema refuses. */
    x->max_time = r.config.max_time;
    x->precision = r.config.precision;
    x->min_samples = r.config.min_samples;
    if (!err)
        err = findings(&r, c, in);
    if (err) {
        vn__results_clear(&r);
        return err;
    }
    *out = r;
    return 0;
}

int vn__trace_view_add(vn_results *into, const vn__trace_calls *c, const vn__trace_info *in)
{
    vn_results one;
    int err = vn__trace_view(c, in, &one);
    if (err)
        return err;
    vn_result *b = realloc(into->bench, (into->nbench + 1) * sizeof *b);
    if (!b) {
        vn__results_clear(&one);
        return VN_ENOMEM;
    }
    into->bench = b;
    size_t had = into->nfindings;
    for (size_t i = 0; !err && i < one.nfindings; i++)
        err = vn_results_add_finding(into, one.findings[i].id, one.findings[i].brief,
                                     one.findings[i].explanation);
    if (err) {
        /* Back as it was: the findings added go. */
        for (size_t i = had; i < into->nfindings; i++)
            free(into->findings[i].explanation);
        into->nfindings = had;
        vn__results_clear(&one);
        return err;
    }
    /* The row moves: its memory is into's now. */
    into->bench[into->nbench++] = one.bench[0];
    one.nbench = 0;
    into->interrupted |= one.interrupted;
    if (in->elapsed > into->config.max_time)
        into->config.max_time = in->elapsed;
    snprintf(into->note, sizeof into->note, "each sample is one call of a kernel function, traced "
             "with BPF probes; a row a function");
    vn__results_clear(&one);
    return 0;
}
