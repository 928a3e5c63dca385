/* The JSON of the tools people compare with: Google Benchmark's
 * (--benchmark_format=json or --benchmark_out) and hyperfine's
 * (--export-json), so results from before vernier, or from either tool,
 * compare with vernier's own. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/format.h"
#include "read_internal.h"

static double unit_ns(const char *unit)
{
    if (!unit || !strcmp(unit, "ns"))
        return 1;
    if (!strcmp(unit, "us"))
        return 1e3;
    if (!strcmp(unit, "ms"))
        return 1e6;
    if (!strcmp(unit, "s"))
        return 1e9;
    return NAN;
}

/* Google Benchmark names a counter as the program registered it; its perf
 * counters (--benchmark_perf_counters=INSTRUCTIONS) come out in capitals. */
static const cJSON *instructions(const cJSON *entry)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, entry)
        if (m->string && !strcasecmp(m->string, "instructions") && cJSON_IsNumber(m) &&
            isfinite(m->valuedouble))
            return m;
    return NULL;
}

/* An aggregate of a file written with only the aggregates: kept by the
 * name of the run it summarises, once per kind. */
static int gbench_aggregate(vn__cmp_side *s, const cJSON *e, size_t i, const char *name,
                            vn__cmp_error *err)
{
    static const char *const kinds[] = {"mean", "median", "stddev", "cv"};
    const char *kind = vn__cmp_str(e, "aggregate_name"), *run = vn__cmp_str(e, "run_name");
    int k = -1;
    for (int j = 0; kind && j < 4; j++)
        if (!strcmp(kind, kinds[j]))
            k = j;
    if (k < 0)
        return 0; /* BigO, RMS, a user's statistic: nothing to compare */
    /* Files from before run_name: the name less its "_mean". */
    char base[512];
    size_t nl = strlen(name), kl = strlen(kinds[k]);
    if (!(run && *run) && nl > kl + 1 && name[nl - kl - 1] == '_' && !strcmp(name + nl - kl, kinds[k])) {
        snprintf(base, sizeof base, "%.*s", (int)(nl - kl - 1), name);
        run = base;
    }
    const char *key = run && *run ? run : name;
    vn__cmp_bench *b = vn__cmp_bench_at(s, key);
    if (!b)
        return VN_ENOMEM;
    if (b->agg_seen & (1u << k))
        return vn__cmp_bad(err, "benchmarks[%zu]: a second '%s' aggregate of '%.80s' in one file; "
                                "give the runs as separate files", i, kinds[k], key);
    b->agg_seen |= 1u << k;
    const cJSON *t = vn__cmp_num(e, "real_time"), *reps = vn__cmp_num(e, "repetitions");
    double scale = unit_ns(vn__cmp_str(e, "time_unit"));
    if (!t || isnan(scale))
        return vn__cmp_bad(err, "benchmarks[%zu] ('%.80s'): no real_time in ns, us, ms or s", i, key);
    /* cv is a fraction of the mean, whatever the time unit. */
    double v = k == 3 ? t->valuedouble : t->valuedouble * scale;
    if (!(v >= 0) || !isfinite(v))
        return vn__cmp_bad(err, "benchmarks[%zu] ('%.80s'): the %s is %s", i, key, kinds[k],
                           v < 0 ? "negative" : "out of range");
    if (k == 0)
        b->agg_mean = v;
    else if (k == 1)
        b->agg_median = v;
    else if (k == 2)
        b->agg_sd = v;
    else if (!(b->agg_seen & 4u))
        b->agg_sd = -v; /* a cv, turned into a deviation once the mean is known */
    if (reps && reps->valuedouble >= 1)
        b->agg_n = reps->valuedouble < 1e9 ? (size_t)reps->valuedouble : 1000000000;
    return 0;
}

static int gbench_entry(vn__cmp_side *s, const cJSON *e, size_t i, vn__cmp_error *err)
{
    const char *name = vn__cmp_str(e, "name");
    if (!name || !*name)
        return vn__cmp_bad(err, "benchmarks[%zu] has no name", i);
    /* Repetitions are entries of run_type "iteration"; the mean, median,
     * stddev (and BigO) computed from them are "aggregate" and would count
     * the same runs twice, unless the file has nothing else (read below).
     * Versions before run_type mark them by aggregate_name. */
    const char *type = vn__cmp_str(e, "run_type");
    if ((type && !strcmp(type, "aggregate")) || cJSON_GetObjectItemCaseSensitive(e, "aggregate_name"))
        return gbench_aggregate(s, e, i, name, err);
    vn__cmp_bench *b = vn__cmp_bench_at(s, name);
    if (!b)
        return VN_ENOMEM;
    /* One entry per repetition: more entries of a name than its
     * repetitions are two runs in one file, which would pool unseen. */
    /* Files from before Google Benchmark wrote "repetitions" repeat a
     * name for each repetition, with nothing to tell two runs apart. */
    const cJSON *reps = vn__cmp_num(e, "repetitions");
    size_t most = reps && reps->valuedouble >= 1 && reps->valuedouble < 1e18
                      ? (size_t)reps->valuedouble : SIZE_MAX;
    if (++b->file_reps > most)
        return vn__cmp_bad(err, "benchmarks[%zu]: '%.80s' appears %zu times in one file, for %zu "
                                "repetition%s; rename one, or give the runs as separate files",
                           i, name, b->file_reps, most, most == 1 ? "" : "s");
    const cJSON *th = vn__cmp_num(e, "threads");
    if (th && th->valuedouble >= 1 && th->valuedouble < 1e6)
        b->threads = (int)th->valuedouble;
    /* A process vernier's headline left out, or a bound, written for
     * compare.py's counts, is left out here too, as from the run's JSON. */
    const char *label = vn__cmp_str(e, "label");
    if (label && (!strcmp(label, VN__GBENCH_LEFT_OUT) || !strcmp(label, VN__GBENCH_BOUND)))
        return 0;
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "error_occurred"))) {
        const char *msg = vn__cmp_str(e, "error_message");
        return vn__cmp_set_why(b, "failed%s%.160s", msg ? ": " : "", msg ? msg : "");
    }
    const cJSON *t = vn__cmp_num(e, "real_time");
    const char *unit = vn__cmp_str(e, "time_unit");
    double scale = unit_ns(unit);
    if (!t)
        return vn__cmp_bad(err, "benchmarks[%zu] ('%.80s') %s", i, name,
                           cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e, "real_time"))
                               ? "has a real_time out of range" : "has no real_time");
    if (isnan(scale))
        return vn__cmp_bad(err, "benchmarks[%zu] ('%.80s'): unknown time_unit '%.16s' (ns, us, ms "
                                "or s)", i, name, unit);
    double ns = t->valuedouble * scale;
    if (!isfinite(ns))
        return vn__cmp_bad(err, "benchmarks[%zu] ('%.80s'): real_time is out of range", i, name);
    if (ns < 0)
        return vn__cmp_bad(err, "benchmarks[%zu] ('%.80s'): real_time is negative (%g %s)", i,
                           name, t->valuedouble, unit ? unit : "ns");
    if (vn__cmp_push(b, ns))
        return VN_ENOMEM;
    const cJSON *insn = instructions(e);
    if (insn && vn__cmp_push_insn(b, insn->valuedouble))
        return VN_ENOMEM;
    return 0;
}

/* After a file: an aggregate-only benchmark's cv becomes a deviation, and
 * one with neither values nor a mean says why it has nothing. Aggregates
 * beside values are dropped: the values are the same runs. */
static int gbench_finish(vn__cmp_side *s)
{
    for (size_t i = 0; i < s->nbench; i++) {
        vn__cmp_bench *b = &s->bench[i];
        if (b->n || b->why) {
            b->agg_n = 0;
            continue;
        }
        if (!(b->agg_seen & 1u) && !(b->agg_seen & 2u)) {
            if (vn__cmp_set_why(b, "no repetitions, and no mean or median of them"))
                return VN_ENOMEM;
            continue;
        }
        if (!(b->agg_seen & 1u))
            b->agg_mean = b->agg_median; /* the median stands for the mean */
        if (!(b->agg_seen & 2u))
            b->agg_median = b->agg_mean;
        if (b->agg_sd < 0)
            b->agg_sd = -b->agg_sd * b->agg_mean;
        if (!(b->agg_seen & (4u | 8u)))
            b->agg_sd = NAN; /* no spread: a mean with no interval */
        if (!b->agg_n)
            b->agg_n = 1;
    }
    return 0;
}

int vn__cmp_read_gbench(vn__cmp_side *s, const cJSON *root, vn__cmp_error *err)
{
    s->formats = VN__CMP_GBENCH;
    const cJSON *e;
    size_t i = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, "benchmarks")) {
        int rc = gbench_entry(s, e, i++, err);
        if (rc)
            return rc;
    }
    if (gbench_finish(s))
        return VN_ENOMEM;
    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(root, "context");
    const cJSON *cpus = vn__cmp_num(ctx, "num_cpus"), *mhz = vn__cmp_num(ctx, "mhz_per_cpu");
    const cJSON *scaling = cJSON_GetObjectItemCaseSensitive(ctx, "cpu_scaling_enabled");
    char ncpus[32] = "", nmhz[32] = "";
    if (cpus)
        vn__fmt_exact(ncpus, sizeof ncpus, cpus->valuedouble);
    if (mhz)
        vn__fmt_exact(nmhz, sizeof nmhz, mhz->valuedouble);
    if (vn__cmp_set_fact(s, VN__CMP_FACT_HOST, vn__cmp_str(ctx, "host_name")) ||
        vn__cmp_set_fact(s, VN__CMP_FACT_CPUS, ncpus) || vn__cmp_set_fact(s, VN__CMP_FACT_MHZ, nmhz) ||
        vn__cmp_set_fact(s, VN__CMP_FACT_SCALING,
                         cJSON_IsBool(scaling) ? (cJSON_IsTrue(scaling) ? "on" : "off") : NULL))
        return VN_ENOMEM;
    return 0;
}

/* One command: every run's wall time, or, from a file without "times"
 * (hyperfine before 1.6, or edited), the median (else the mean) alone. */
static int hyperfine_result(vn__cmp_side *s, const cJSON *r, size_t i, vn__cmp_error *err)
{
    const char *name = vn__cmp_str(r, "command");
    if (!name || !*name)
        return vn__cmp_bad(err, "results[%zu] has no command", i);
    char where[48];
    snprintf(where, sizeof where, "results[%zu]", i);
    vn__cmp_bench *b;
    int rc = vn__cmp_bench_new(s, name, where, &b, err);
    if (rc)
        return rc;
    const cJSON *times = cJSON_GetObjectItemCaseSensitive(r, "times"), *t;
    if (cJSON_IsArray(times)) {
        size_t k = 0;
        cJSON_ArrayForEach(t, times) {
            if (!cJSON_IsNumber(t))
                return vn__cmp_bad(err, "results[%zu].times[%zu] ('%.80s') is not a number of "
                                        "seconds", i, k, name);
            if (!isfinite(t->valuedouble * 1e9))
                return vn__cmp_bad(err, "results[%zu].times[%zu] ('%.80s') is out of range", i, k,
                                   name);
            /* hyperfine clamps a run net of the shell's start-up at 0, and
             * writes that 0: read as written. Below 0 no tool writes. */
            if (t->valuedouble < 0)
                return vn__cmp_bad(err, "results[%zu].times[%zu] ('%.80s') is negative (%g s)", i,
                                   k, name, t->valuedouble);
            if (vn__cmp_push(b, t->valuedouble * 1e9))
                return VN_ENOMEM;
            k++;
        }
        return k ? 0 : vn__cmp_set_why(b, "no runs");
    }
    const cJSON *one = vn__cmp_num(r, "median");
    if (!one)
        one = vn__cmp_num(r, "mean");
    if (!one || !isfinite(one->valuedouble * 1e9))
        return vn__cmp_bad(err, "results[%zu] ('%.80s') has neither times nor a median or mean", i,
                           name);
    if (one->valuedouble < 0)
        return vn__cmp_bad(err, "results[%zu] ('%.80s'): the %s is negative (%g s)", i, name,
                           one->string, one->valuedouble);
    return vn__cmp_push(b, one->valuedouble * 1e9);
}

int vn__cmp_read_hyperfine(vn__cmp_side *s, const cJSON *root, vn__cmp_error *err)
{
    s->formats = VN__CMP_HYPERFINE;
    const cJSON *r;
    size_t i = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(root, "results")) {
        int rc = hyperfine_result(s, r, i++, err);
        if (rc)
            return rc;
    }
    return 0;
}
