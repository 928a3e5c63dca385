/* Results in Google Benchmark's JSON layout, with the field names and
 * types its 1.7 writer uses, so that its compare.py and the tools built to
 * read its files read vernier's results as they read its own.
 *
 * Google Benchmark's unit of repetition is a run of the benchmark, timed
 * as one; vernier's is the process (for vernier run, the run of the
 * command). Each process a row ran in is therefore one entry of run_type
 * "iteration", a repetition: its median per iteration net of its empty
 * loop, over as many iterations as its samples ran, so a reader's tests
 * (compare.py's U test) resample what varies between runs, as vernier's
 * own comparison does; for vernier run each run is one, its wall time net
 * of the shell's start-up. After them come the aggregates Google Benchmark
 * writes with --benchmark_repetitions: mean, median, stddev and cv, of the
 * same values (the console's headline is their lower quartile, or with
 * --policy head_low=50 their median).
 * An upper bound's repetitions are each process's fastest sample, with a
 * label that says so. A row with nothing to give (failed, skipped) is one
 * entry with error_occurred, as Google Benchmark writes an error.
 *
 * Rows are read through vernier/results.h, but for the per-process table
 * the repetitions come from (each process's value, empty loop, and whether
 * the headline left it out or it gave only a bound): the engine's own
 * account of its processes, with no accessor. The context reads the run's
 * machine snapshot and counter rate directly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/format.h"
#include "results.h"
#include "stats/stats_api.h"

/* The values of an entry, by kind. */
enum { V_REAL, V_CPU, V_BYTES, V_ITEMS };

static int cmp_double_r(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A row's repetitions: its processes, or a command's runs. */
typedef struct reps {
    const vn_result *r;
    size_t n;
    double *real, *cpu;     /* per repetition, ns per iteration */
    uint64_t *iters;        /* per repetition */
    double *tmp;            /* room for n values */
    const char **label;     /* per repetition, Google Benchmark's label, or NULL */
} reps;

static double value(const reps *p, size_t k, int kind)
{
    double real = p->real[k];
    if (kind == V_REAL)
        return real;
    if (kind == V_CPU)
        /* The layout has no unknown CPU time, and its readers do arithmetic
         * on it: the wall time stands in, which code that computes spends
         * on the CPU anyway; so does it for a body whose CPU time, net of
         * the empty loop's, is not above 0 (a readers' geometric mean of
         * times would fail on it). */
        return isfinite(p->cpu[k]) && p->cpu[k] > 0 ? p->cpu[k] : real;
    double per = vn_result_figure(p->r, kind == V_BYTES ? VN_BYTES_PER_ITER : VN_ITEMS_PER_ITER);
    return per / (real * 1e-9);
}

/* The median of x[0..n) (reordered); NAN for none. */
static double median_of(double *x, size_t n)
{
    if (!n)
        return NAN;
    qsort(x, n, sizeof *x, cmp_double_r);
    return vn_percentile_sorted(x, n, 50);
}

/* A command's runs: each the wall time net of the shell's start-up, and
 * its CPU time. */
static void runs_of(reps *p, const vn_run_result *x)
{
    const vn_result *r = p->r;
    unsigned left_out = (unsigned)vn_result_figure(r, VN_LEFT_OUT);
    double overhead = vn_result_figure(r, VN_OVERHEAD);
    const vn_sample *s;
    p->n = 0;
    for (size_t i = 0; (s = vn_result_sample(r, i)) != NULL; i++) {
        if (s->tags & left_out)
            continue;
        p->real[p->n] = s->value - (isfinite(overhead) ? overhead : 0);
        p->cpu[p->n] = (x->proc[i].user_ns + x->proc[i].sys_ns) -
                       (x->shell_user_ns + x->shell_sys_ns);
        p->iters[p->n++] = s->iters;
    }
}

/* A row's processes: each one's median net of its own empty loop (its
 * value, as the headline averages them), its CPU time's median net the
 * same way, and the iterations of the samples it rests on. Every process
 * is a repetition, as every run is one of Google Benchmark's, so that
 * each benchmark has as many as the processes asked for (compare.py's
 * geometric mean weighs benchmarks by their entries); one the headline
 * left out, or that gave only an upper bound (its fastest sample), says
 * so in its label. */
static void processes_of(reps *p)
{
    const vn_result *r = p->r;
    unsigned left_out = (unsigned)vn_result_figure(r, VN_LEFT_OUT);
    p->n = 0;
    for (size_t k = 0; r->processes && k < r->nprocesses; k++) {
        const vn_process_result *q = &r->processes[k];
        if (!isfinite(q->value) || !(q->value > 0))
            continue;
        p->label[p->n] = q->left_out ? VN__GBENCH_LEFT_OUT
                         : q->upper_bound ? VN__GBENCH_BOUND
                                          : NULL;
        size_t m = 0;
        uint64_t iters = 0;
        const vn_sample *s;
        for (size_t i = 0; (s = vn_result_sample(r, i)) != NULL; i++) {
            if (s->process != (int)k || (s->tags & left_out))
                continue;
            iters += s->iters;
            if (isfinite(s->cpu_ns))
                p->tmp[m++] = s->cpu_ns - (isfinite(q->overhead_ns) ? q->overhead_ns : 0);
        }
        p->real[p->n] = q->value;
        p->cpu[p->n] = median_of(p->tmp, m);
        p->iters[p->n++] = iters;
    }
    /* Results with no processes of their own (a kernel module's): the
     * median of the statistics is the one repetition. For an upper bound
     * they are of the loop with the body, whose median is its 50th
     * percentile. */
    double n = vn_result_figure(r, VN_N);
    if (!r->nprocesses && n > 0) {
        int bound = !isnan(vn_result_figure(r, VN_BOUND));
        p->real[0] = vn_result_figure(r, bound ? VN_P50 : VN_MEDIAN);
        p->cpu[0] = vn_result_figure(r, VN_CPU);
        p->iters[0] = (uint64_t)n * (uint64_t)vn_result_figure(r, VN_ITERS);
        p->n = 1;
    }
}

static int has_rate(const vn_result *r, int kind)
{
    return vn_result_figure(r, kind == V_BYTES ? VN_BYTES_PER_ITER : VN_ITEMS_PER_ITER) > 0;
}


/* Aggregates as Google Benchmark computes them from its repetitions. */
enum { A_MEAN, A_MEDIAN, A_STDDEV, A_CV, A_COUNT };
static const char *const agg_names[A_COUNT] = {"mean", "median", "stddev", "cv"};

static double aggregate(const reps *p, int kind, int agg)
{
    double sum = 0, ss = 0;
    for (size_t k = 0; k < p->n; k++)
        sum += p->tmp[k] = value(p, k, kind);
    double mean = sum / (double)p->n;
    if (agg == A_MEAN)
        return mean;
    if (agg == A_MEDIAN) {
        qsort(p->tmp, p->n, sizeof *p->tmp, cmp_double_r);
        return vn_percentile_sorted(p->tmp, p->n, 50);
    }
    for (size_t k = 0; k < p->n; k++)
        ss += (p->tmp[k] - mean) * (p->tmp[k] - mean);
    double sd = p->n > 1 ? sqrt(ss / (double)(p->n - 1)) : 0;
    return agg == A_STDDEV ? sd : sd / mean;
}

/* Where a row sits among Google Benchmark's families (one registration
 * and its arguments): rows that share a name but for their parameter are
 * one family, its instances in order. */
typedef struct family {
    int index, instance;
    char base[VN__CELL];
} family;

static void next_family(family *f, const vn_result *r, int first)
{
    char base[sizeof f->base];
    snprintf(base, sizeof base, "%s", vn_result_name(r));
    char *slash = vn_result_text(r, VN_TEXT_PARAM, 0)[0] ? strrchr(base, '/') : NULL;
    if (slash)
        *slash = '\0';
    if (!first && !strcmp(base, f->base)) {
        f->instance++;
        return;
    }
    f->index = first ? 0 : f->index + 1;
    f->instance = 0;
    memcpy(f->base, base, sizeof base);
}

/* The members every entry begins with; rep < 0 for an aggregate. */
static void entry_head(vn__json *j, const vn_result *r, const family *f, const char *agg, size_t n,
                       long rep)
{
    char name[VN__CELL + 16];
    snprintf(name, sizeof name, "%s%s%s", vn_result_name(r), agg ? "_" : "", agg ? agg : "");
    vn__json_obj_begin(j, NULL);
    vn__json_str(j, "name", name);
    vn__json_int(j, "family_index", f->index);
    vn__json_int(j, "per_family_instance_index", f->instance);
    vn__json_str(j, "run_name", vn_result_name(r));
    vn__json_str(j, "run_type", agg ? "aggregate" : "iteration");
    vn__json_uint(j, "repetitions", n);
    if (rep >= 0)
        vn__json_int(j, "repetition_index", rep);
    vn__json_int(j, "threads", (long long)vn_result_figure(r, VN_THREADS));
}

/* A row without a median: its reason as Google Benchmark's error. */
static void error_entry(vn__json *j, const vn_result *r, const family *f)
{
    const char *error = vn_result_error(r);
    double bound = vn_result_figure(r, VN_BOUND);
    char msg[VN__CELL + 96];
    if (!isnan(bound)) {
        char t[32];
        snprintf(msg, sizeof msg, "an upper bound: < %s per iteration, no slower than the empty loop",
                 vn__fmt_ns_bound(t, sizeof t, bound));
    } else if (vn_result_stop(r) == VN_STOP_SKIPPED) {
        snprintf(msg, sizeof msg, "skipped: %s", error);
    } else {
        snprintf(msg, sizeof msg, "%s", error[0] ? error : "no samples");
    }
    entry_head(j, r, f, NULL, 1, 0);
    vn__json_bool(j, "error_occurred", 1);
    vn__json_str(j, "error_message", msg);
    vn__json_uint(j, "iterations", (uint64_t)vn_result_figure(r, VN_ITERS));
    vn__json_num(j, "real_time", 0);
    vn__json_num(j, "cpu_time", 0);
    vn__json_str(j, "time_unit", "ns");
    vn__json_obj_end(j);
}

/* The file's time unit and how many ns make one of it. */
typedef struct unit {
    const char *name;
    double ns;
} unit;

static unit unit_of(const vn__gbench_opts *o)
{
    static const unit units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    for (size_t i = 0; o && o->time_unit && i < 4; i++)
        if (!strcmp(o->time_unit, units[i].name))
            return units[i];
    return units[0];
}

static void rates(vn__json *j, const reps *p, long k, int agg)
{
    static const char *const keys[] = {"bytes_per_second", "items_per_second"};
    for (int kind = V_BYTES; kind <= V_ITEMS; kind++)
        if (has_rate(p->r, kind))
            vn__json_num(j, keys[kind - V_BYTES],
                         k >= 0 ? value(p, (size_t)k, kind) : aggregate(p, kind, agg));
}

static void row_entries(vn__json *j, const reps *p, const family *f, const vn__gbench_opts *o)
{
    const vn_result *r = p->r;
    unit u = unit_of(o);
    /* Only the aggregates, as Google Benchmark with
     * --benchmark_report_aggregates_only: unless there is one repetition,
     * which has none. */
    for (size_t k = 0; k < p->n && !(o && o->aggregates_only && p->n > 1); k++) {
        entry_head(j, r, f, NULL, p->n, (long)k);
        vn__json_uint(j, "iterations", p->iters[k]);
        vn__json_num(j, "real_time", value(p, k, V_REAL) / u.ns);
        vn__json_num(j, "cpu_time", value(p, k, V_CPU) / u.ns);
        vn__json_str(j, "time_unit", u.name);
        rates(j, p, (long)k, 0);
        /* Counters as Google Benchmark's perf counters: the row's, per
         * iteration and net of the empty loop, in every repetition. */
        for (size_t c = 0; c < vn_result_counters(r); c++) {
            double v = NAN;
            const char *name = vn_result_counter(r, c, &v);
            if (isfinite(v))
                vn__json_num(j, name, v);
        }
        /* Last, where Google Benchmark writes a label. */
        if (p->label && p->label[k])
            vn__json_str(j, "label", p->label[k]);
        vn__json_obj_end(j);
    }
    /* As Google Benchmark: aggregates only with more than one repetition. */
    for (int a = 0; p->n > 1 && a < A_COUNT; a++) {
        entry_head(j, r, f, agg_names[a], p->n, -1);
        vn__json_str(j, "aggregate_name", agg_names[a]);
        vn__json_str(j, "aggregate_unit", a == A_CV ? "percentage" : "time");
        vn__json_uint(j, "iterations", p->n);
        double per = a == A_CV ? 1 : u.ns; /* cv is a fraction, in any unit */
        vn__json_num(j, "real_time", aggregate(p, V_REAL, a) / per);
        vn__json_num(j, "cpu_time", aggregate(p, V_CPU, a) / per);
        vn__json_str(j, "time_unit", u.name);
        rates(j, p, -1, a);
        vn__json_obj_end(j);
    }
}

/* The context: the machine from the results' snapshot. mhz_per_cpu is the
 * counter's rate, which Google Benchmark also reads first (tsc_freq_khz),
 * else cpufreq's maximum; cpu_scaling_enabled as it decides: a governor
 * other than performance. */
static void context(vn__json *j, const vn_results *r, const char *exe, const char *date,
                    const vn__gbench_opts *o)
{
    const vn_sysinfo *s = &r->env;
    vn__json_obj_begin(j, "context");
    /* --benchmark_context's pairs come first, as Google Benchmark writes
     * them; a key that is also one of its own is written twice there too. */
    for (size_t i = 0; o && i < o->ncontext; i++) {
        const char *eq = strchr(o->context[i], '=');
        char key[256];
        snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - o->context[i]) : 0, o->context[i]);
        if (eq)
            vn__json_str(j, key, eq + 1);
    }
    vn__json_str(j, "date", date ? date : "");
    vn__json_str(j, "host_name", s->hostname);
    vn__json_str(j, "executable", exe ? exe : "");
    if (s->logical_cpus > 0)
        vn__json_int(j, "num_cpus", s->logical_cpus);
    else
        vn__json_null(j, "num_cpus");
    double mhz = isfinite(r->counter_hz) && r->counter_hz > 0 ? r->counter_hz / 1e6
                 : s->ncpus > 0 && s->cpus[0].max_khz > 0    ? (double)s->cpus[0].max_khz / 1e3
                                                              : NAN;
    if (isfinite(mhz))
        vn__json_int(j, "mhz_per_cpu", llround(mhz));
    else
        vn__json_null(j, "mhz_per_cpu");
    int scaling = 0;
    for (int i = 0; i < s->ncpus && s->cpus; i++)
        scaling |= s->cpus[i].governor[0] && strcmp(s->cpus[i].governor, "performance") != 0;
    vn__json_bool(j, "cpu_scaling_enabled", scaling);
    vn__json_arr_begin(j, "caches");
    for (int i = 0; i < s->ncaches && i < VN_SYSINFO_MAX_CACHES; i++) {
        const vn_cache_info *c = &s->caches[i];
        vn__json_obj_begin(j, NULL);
        vn__json_str(j, "type", c->type);
        vn__json_int(j, "level", c->level);
        vn__json_int(j, "size", c->size_bytes > 0 ? c->size_bytes : 0);
        vn__json_int(j, "num_sharing", c->shared_cpus > 0 ? c->shared_cpus : 0);
        vn__json_obj_end(j);
    }
    vn__json_arr_end(j);
    vn__json_arr_begin(j, "load_avg");
    for (int i = 0; i < 3; i++)
        vn__json_num(j, NULL, s->loadavg[i]);
    vn__json_arr_end(j);
    /* Google Benchmark's own build; here the benchmark program's, which is
     * what decides whether its times mean anything. */
    vn__json_str(j, "library_build_type", r->optimized ? "release" : "debug");
    vn__json_obj_end(j);
}

int vn__report_gbench(const vn_results *r, const vn_run_results *runs, const char *executable,
                      const char *date, vn_buf *out, const vn__gbench_opts *opts)
{
    if (!out)
        return VN_EINVAL;
    int bad = vn__results_check(r);
    if (bad)
        return bad;
    size_t most = 1, nrows = vn_results_count(r);
    for (size_t i = 0; i < nrows; i++)
        if (vn_result_samples(vn_results_at(r, i)) > most)
            most = vn_result_samples(vn_results_at(r, i));
    double *tmp = malloc(3 * most * sizeof *tmp);
    uint64_t *iters = malloc(most * sizeof *iters);
    const char **label = calloc(most, sizeof *label);
    if (!tmp || !iters || !label) {
        free(tmp), free(iters), free(label);
        return VN_ENOMEM;
    }
    vn__json j;
    vn__json_init(&j, out, 1);
    vn__json_obj_begin(&j, NULL);
    context(&j, r, executable, date, opts);
    vn__json_arr_begin(&j, "benchmarks");
    family f = {0, 0, ""};
    for (size_t i = 0; i < nrows; i++) {
        const vn_result *row = vn_results_at(r, i);
        reps p = {row, 0, tmp + most, tmp + 2 * most, iters, tmp, label};
        memset(label, 0, most * sizeof *label);
        if (runs)
            runs_of(&p, &runs->commands[i]);
        else
            processes_of(&p);
        next_family(&f, row, i == 0);
        if (vn_result_error(row)[0] || p.n == 0)
            error_entry(&j, row, &f);
        else
            row_entries(&j, &p, &f, opts);
    }
    vn__json_arr_end(&j);
    vn__json_obj_end(&j);
    free(tmp), free(iters), free(label);
    return vn__json_finish(&j);
}

int vn_report_results_gbench(const vn_results *r, const char *executable, const char *date,
                             vn_buf *out)
{
    return vn__report_gbench(r, NULL, executable, date, out, NULL);
}

int vn_report_results_gbench_opts(const vn_results *r, const char *executable, const char *date,
                                  const vn_report_gbench_opts *opts, vn_buf *out)
{
    if (opts && opts->time_unit && strcmp(opts->time_unit, "ns") && strcmp(opts->time_unit, "us") &&
        strcmp(opts->time_unit, "ms") && strcmp(opts->time_unit, "s"))
        return VN_EINVAL;
    if (opts && opts->ncontext && !opts->context)
        return VN_EINVAL;
    return vn__report_gbench(r, NULL, executable, date, out, opts);
}

char *vn_report_gbench_date(char *buf, size_t n, time_t t)
{
    struct tm tm;
    char zone[8];
    if (!buf || !n)
        return buf;
    buf[0] = '\0';
    if (!localtime_r(&t, &tm) || strftime(zone, sizeof zone, "%z", &tm) != 5)
        return buf;
    /* strftime writes the offset as +0200; the date has +02:00. */
    char day[24];
    if (strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
        return buf;
    if (snprintf(buf, n, "%s%.3s:%s", day, zone, zone + 3) >= (int)n)
        buf[0] = '\0';
    return buf;
}
