/* The JSON of the tools people compare with: Google Benchmark's
 * (--benchmark_format=json or --benchmark_out) and hyperfine's
 * (--export-json), so results from before vernier, or from either tool,
 * compare with vernier's own. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "format.h"
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

static int gbench_entry(vn__cmp_side *s, const cJSON *e, size_t i, vn__cmp_error *err)
{
    const char *name = vn__cmp_str(e, "name");
    if (!name || !*name)
        return vn__cmp_bad(err, "benchmarks[%zu] has no name", i);
    /* Repetitions are entries of run_type "iteration"; the mean, median,
     * stddev (and BigO) computed from them are "aggregate" and would count
     * the same runs twice. Versions before run_type mark them by
     * aggregate_name. */
    const char *type = vn__cmp_str(e, "run_type");
    if ((type && !strcmp(type, "aggregate")) || cJSON_GetObjectItemCaseSensitive(e, "aggregate_name"))
        return 0;
    vn__cmp_bench *b = vn__cmp_bench_at(s, name);
    if (!b)
        return VN_ENOMEM;
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "error_occurred"))) {
        const char *msg = vn__cmp_str(e, "error_message");
        return vn__cmp_set_why(b, "failed%s%.160s", msg ? ": " : "", msg ? msg : "");
    }
    const cJSON *t = vn__cmp_num(e, "real_time");
    const char *unit = vn__cmp_str(e, "time_unit");
    double scale = unit_ns(unit);
    if (!t)
        return vn__cmp_bad(err, "benchmark '%.80s' has no real_time", name);
    if (isnan(scale))
        return vn__cmp_bad(err, "benchmark '%.80s': unknown time_unit '%.16s' (ns, us, ms or s)",
                           name, unit);
    double ns = t->valuedouble * scale;
    if (!isfinite(ns))
        return vn__cmp_bad(err, "benchmark '%.80s': real_time is out of range", name);
    if (vn__cmp_push(b, ns))
        return VN_ENOMEM;
    const cJSON *insn = instructions(e);
    if (insn && vn__cmp_push_insn(b, insn->valuedouble))
        return VN_ENOMEM;
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
    vn__cmp_bench *b = vn__cmp_bench_at(s, name);
    if (!b)
        return VN_ENOMEM;
    const cJSON *times = cJSON_GetObjectItemCaseSensitive(r, "times"), *t;
    if (cJSON_IsArray(times)) {
        size_t k = 0;
        cJSON_ArrayForEach(t, times) {
            if (!cJSON_IsNumber(t) || !isfinite(t->valuedouble * 1e9))
                return vn__cmp_bad(err, "command '%.80s': times[%zu] is not a number of seconds",
                                   name, k);
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
        return vn__cmp_bad(err, "command '%.80s' has neither times nor a median or mean", name);
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
