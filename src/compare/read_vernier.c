/* vernier.results/1, of code (benchmark programs, vernier suite) or of
 * commands (vernier run): each benchmark's samples as its headline uses
 * them, so a comparison rests on the values the medians shown rest on. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/format.h"
#include "engine/internal.h"
#include "read_internal.h"
#include "stats/levels.h"
#include "stats/internal.h"

static int has_string(const cJSON *arr, const char *s)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, arr)
        if (cJSON_IsString(v) && !strcmp(v->valuestring, s))
            return 1;
    return 0;
}

/* A sample the headline leaves out carries a tag its row's left_out names. */
static int left_out(const cJSON *sample, const cJSON *out)
{
    const cJSON *tags = cJSON_GetObjectItemCaseSensitive(sample, "tags"), *t;
    cJSON_ArrayForEach(t, tags)
        if (cJSON_IsString(t) && has_string(out, t->valuestring))
            return 1;
    return 0;
}

static int params(vn__cmp_bench *b, const cJSON *obj)
{
    if (b->nparams || !cJSON_IsObject(obj))
        return 0;
    size_t n = (size_t)cJSON_GetArraySize(obj);
    if (!n)
        return 0;
    b->params = calloc(n, sizeof *b->params);
    if (!b->params)
        return VN_ENOMEM;
    const cJSON *p;
    cJSON_ArrayForEach(p, obj) {
        char num[40];
        const char *text = cJSON_IsString(p)   ? p->valuestring
                           : cJSON_IsNumber(p) ? vn__fmt_exact(num, sizeof num, p->valuedouble)
                           : cJSON_IsBool(p)   ? (cJSON_IsTrue(p) ? "true" : "false")
                                               : NULL;
        if (!text || !p->string)
            continue;
        vn__cmp_param *q = &b->params[b->nparams];
        q->key = strdup(p->string);
        q->value = strdup(text);
        b->nparams++;
        if (!q->key || !q->value)
            return VN_ENOMEM;
    }
    return 0;
}

/* The two numbers of arr, lo <= hi, into lo and hi; 0 when it is not such a pair. */
static int pair_of(const cJSON *arr, double *lo, double *hi)
{
    const cJSON *l = cJSON_GetArrayItem(arr, 0), *h = cJSON_GetArrayItem(arr, 1);
    if (cJSON_GetArraySize(arr) != 2 || !cJSON_IsNumber(l) || !cJSON_IsNumber(h) ||
        !(l->valuedouble <= h->valuedouble))
        return 0;
    *lo = l->valuedouble, *hi = h->valuedouble;
    return 1;
}

/* The interval for the next run's headline in the core state the
 * headline rests on, in ns and in reference cycles, from the headline's
 * units: the estimate's own (est_ci) widened for the next run's error, as
 * the run widened it. The interval the run printed (ci) also reaches the
 * processes it left out for the other state, as its next run may meet
 * that state throughout; compare matches the states itself, and with that
 * reach a loop over two arrays planted 10% slower was called slower in
 * 21% of tries instead of 61% (bench/RESULTS.md, 2026-12-02, part
 * 14). Where est_ci is absent or null: ci. short_of: the row stopped
 * short of the precision its run sought, and resolved no finer change
 * than the half-width it reached (b->reached, compare.c). */
static void next_run(vn__cmp_bench *b, const cJSON *units, int short_of)
{
    static const char *const name[2] = {"ns", "cycles"};
    b->next_files++;
    for (int u = 0; u < 2; u++) {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(units, name[u]);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "value");
        double *lo = &b->next_lo[u], *hi = &b->next_hi[u];
        if (cJSON_IsNumber(v) && v->valuedouble > 0 &&
            pair_of(cJSON_GetObjectItemCaseSensitive(o, "est_ci"), lo, hi)) {
            if (short_of)
                b->reached[u] = vn__levels_half_share(v->valuedouble, *lo, *hi);
            vn__levels_next_run(v->valuedouble, lo, hi);
        } else if (!pair_of(cJSON_GetObjectItemCaseSensitive(o, "ci"), lo, hi))
            *lo = *hi = NAN;
    }
}

/* chosen: the run chose its processes (--processes auto), seeking the
 * precision it was asked. */
static int row(vn__cmp_side *s, const cJSON *r, size_t i, int code, int chosen,
               vn__cmp_error *err)
{
    const char *name = vn__cmp_str(r, "name");
    if (!name || !*name)
        return vn__cmp_bad(err, "benchmarks[%zu] has no name", i);
    char where[48];
    snprintf(where, sizeof where, "benchmarks[%zu]", i);
    vn__cmp_bench *b;
    int rc = vn__cmp_bench_new(s, name, where, &b, err);
    if (rc)
        return rc;
    if (params(b, cJSON_GetObjectItemCaseSensitive(r, "params")))
        return VN_ENOMEM;
    const cJSON *th = vn__cmp_num(cJSON_GetObjectItemCaseSensitive(r, "threads"), "count");
    if (th && th->valuedouble >= 1 && th->valuedouble < 1e6)
        b->threads = (int)th->valuedouble;
    const char *stop = vn__cmp_str(r, "stop"), *error = vn__cmp_str(r, "error");
    if (stop && (!strcmp(stop, "failed") || !strcmp(stop, "skipped")))
        return vn__cmp_set_why(b, "%s%s%.160s", stop, error ? ": " : "", error ? error : "");
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "upper_bound"))) {
        /* No median to compare: the body is lost in the empty loop's noise. */
        const cJSON *bound = vn__cmp_num(r, "bound_ns");
        char t[32];
        return vn__cmp_set_why(b, "an upper bound (< %s)",
                               vn__fmt_ns_bound(t, sizeof t, bound ? bound->valuedouble : 0));
    }
    /* Code is timed net of the empty loop, as its headline (each sample of
     * its own process's); a command's run is its wall time as measured. */
    double overhead = 0;
    const cJSON *ov = vn__cmp_num(cJSON_GetObjectItemCaseSensitive(r, "overhead"), "ns");
    if (code && ov)
        overhead = ov->valuedouble;
    const cJSON *procs = code ? cJSON_GetObjectItemCaseSensitive(r, "processes") : NULL;
    int nprocs = cJSON_IsArray(procs) ? cJSON_GetArraySize(procs) : 0;
    const cJSON *out = code ? cJSON_GetObjectItemCaseSensitive(r, "left_out") : NULL;
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(r, "samples"), *x;
    if (!cJSON_IsArray(samples))
        return vn__cmp_bad(err, "benchmark '%.80s' has no samples array", name);
    size_t before = b->n, k = 0;
    cJSON_ArrayForEach(x, samples) {
        const cJSON *v = vn__cmp_num(x, "value");
        if (!v)
            return vn__cmp_bad(err, "benchmarks[%zu] ('%.80s'): samples[%zu] %s", i, name, k,
                               cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(x, "value"))
                                   ? "is out of range" : "has no value");
        /* A sample's time as measured, before the empty loop comes off. */
        if (v->valuedouble < 0)
            return vn__cmp_bad(err, "benchmarks[%zu] ('%.80s'): samples[%zu] is negative (%g ns)",
                               i, name, k, v->valuedouble);
        k++;
        if (out && left_out(x, out))
            continue;
        double om = overhead;
        const cJSON *pi = vn__cmp_num(x, "process");
        if (pi && pi->valuedouble >= 0 && pi->valuedouble < nprocs) {
            const cJSON *proc = cJSON_GetArrayItem(procs, (int)pi->valuedouble);
            /* A process the headline left out leaves its samples out too. */
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(proc, "left_out")))
                continue;
            const cJSON *pov = vn__cmp_num(proc, "overhead_ns");
            if (pov)
                om = pov->valuedouble;
        }
        double ns = v->valuedouble - om;
        if (!isfinite(ns))
            return vn__cmp_bad(err, "benchmark '%.80s': samples[%zu] is out of range", name, k - 1);
        if (vn__cmp_push(b, ns))
            return VN_ENOMEM;
    }
    if (b->n == before)
        return vn__cmp_set_why(b, "no samples");
    /* The units: each process's own value; a file from before there were
     * processes is one, its samples' median. */
    const cJSON *p, *head = cJSON_GetObjectItemCaseSensitive(r, "headline");
    const char *core = vn__cmp_str(head, "core");
    int own = core && !strcmp(core, "own"), on_shared = core && !strcmp(core, "shared");
    size_t units = 0;
    /* A body mostly off the CPU (asleep, waiting) takes the time it waits,
     * which the core's clock does not scale: its reference cycles say
     * nothing of it, and it compares in ns, as its headline is (the row's
     * median share, under VN__ON_CPU_MIN, as the engine asks of each
     * process). A 1 ms sleep's processes read steadier in
     * cycles by chance in 51 of 400 pairs of kept runs, which then compared
     * in them (bench/RESULTS.md, 2026-12-04). */
    const cJSON *oc = vn__cmp_num(r, "on_cpu");
    int off_cpu = oc && !vn__on_cpu(oc->valuedouble);
    cJSON_ArrayForEach(p, procs) {
        const cJSON *pv = vn__cmp_num(p, "value"), *pc = off_cpu ? NULL : vn__cmp_num(p, "cycles");
        const cJSON *pp = vn__cmp_num(p, "probe");
        if (!pv || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "upper_bound")) ||
            !(pv->valuedouble > 0))
            continue;
        /* The processes its headline left out (the other core state) are
         * left out here too, and kept apart: a run in that state compares
         * with them (state.c vn__cmp_match_state). */
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "left_out"))) {
            int shared = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "shared"));
            if (own ? shared : on_shared && !shared) {
                b->other_own = on_shared;
                if (vn__cmp_push_other(b, pv->valuedouble, pc ? pc->valuedouble : NAN,
                                       pp ? pp->valuedouble : NAN))
                    return VN_ENOMEM;
            }
            continue;
        }
        if (vn__cmp_push_unit(b, pv->valuedouble, pc ? pc->valuedouble : NAN,
                              pp ? pp->valuedouble : NAN))
            return VN_ENOMEM;
        units++;
    }
    if (code && !units) {
        double *v = vn__sorted_copy(b->values + before, b->n - before);
        if (!v)
            return VN_ENOMEM;
        double m = vn_percentile_sorted(v, b->n - before, 50);
        free(v);
        if (vn__cmp_push_unit(b, m, NAN, NAN))
            return VN_ENOMEM;
    }
    const char *unit = vn__cmp_str(head, "unit");
    if (unit && !strcmp(unit, "cycles"))
        b->cycles_headline = 1;
    b->core_shared |= on_shared;
    b->core_own |= own;
    b->core_both |= core && !strcmp(core, "both");
    if (code && head) {
        const cJSON *q = vn__cmp_num(head, "quantile");
        double low = q && q->valuedouble > 0 && q->valuedouble < 0.5 ? q->valuedouble : 0;
        b->low = b->next_files == 0 || b->low == low ? low : 0;
        next_run(b, cJSON_GetObjectItemCaseSensitive(head, "units"),
                 chosen && stop && strcmp(stop, "precision"));
    }
    const cJSON *insn = cJSON_GetObjectItemCaseSensitive(r, "counters");
    insn = vn__cmp_num(cJSON_GetObjectItemCaseSensitive(insn, "instructions"), "value");
    if (insn && vn__cmp_push_insn(b, insn->valuedouble))
        return VN_ENOMEM;
    return 0;
}

/* What the store keeps of the machine beside the facts compared: SMT,
 * the hypervisor, the microcode, and the ids of the machine's warnings. */
static int notes(vn__cmp_side *s, const cJSON *env, const cJSON *cpu)
{
    const cJSON *smt = cJSON_GetObjectItemCaseSensitive(cpu, "smt");
    const cJSON *hv = cJSON_GetObjectItemCaseSensitive(env, "hypervisor");
    const char *vendor = vn__cmp_str(hv, "vendor");
    int present = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(hv, "present"));
    char ids[512] = "";
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(env, "warnings")) {
        const char *id = vn__cmp_str(w, "id");
        if (id && strlen(ids) + strlen(id) + 2 < sizeof ids) {
            if (ids[0])
                strcat(ids, ",");
            strcat(ids, id);
        }
    }
    if (vn__cmp_set_note(s, VN__CMP_NOTE_SMT,
                         cJSON_IsBool(smt) ? (cJSON_IsTrue(smt) ? "on" : "off") : NULL) ||
        vn__cmp_set_note(s, VN__CMP_NOTE_HYPERVISOR,
                         hv ? (present ? (vendor ? vendor : "unknown") : "none") : NULL) ||
        vn__cmp_set_note(s, VN__CMP_NOTE_WARNINGS, env ? ids[0] ? ids : "none" : NULL) ||
        vn__cmp_set_note(s, VN__CMP_NOTE_MICROCODE, vn__cmp_str(cpu, "microcode")))
        return VN_ENOMEM;
    return 0;
}

/* The first governor any CPU reports: one differing from the other side's
 * is what the warning is for, not a mix within one machine. */
static const char *governor(const cJSON *env)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(env, "cpufreq")) {
        const char *g = vn__cmp_str(c, "governor");
        if (g)
            return g;
    }
    return NULL;
}

int vn__cmp_read_vernier(vn__cmp_side *s, const cJSON *root, vn__cmp_error *err)
{
    const char *kind = vn__cmp_str(root, "kind");
    if (!kind || (strcmp(kind, "code") && strcmp(kind, "commands")))
        return vn__cmp_bad(err, "vernier.results/1 without a kind of code or commands");
    int code = !strcmp(kind, "code");
    s->formats = code ? VN__CMP_CODE : VN__CMP_COMMANDS;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "benchmarks"), *r;
    if (!cJSON_IsArray(list))
        return vn__cmp_bad(err, "vernier.results/1 without a benchmarks array");
    const cJSON *config = cJSON_GetObjectItemCaseSensitive(root, "config");
    const char *procs = vn__cmp_str(config, "processes");
    int sought = 0, chosen = procs && !strcmp(procs, "auto");
    size_t i = 0;
    cJSON_ArrayForEach(r, list) {
        int rc = row(s, r, i++, code, chosen, err);
        if (rc)
            return rc;
    }
    /* The precision the run was asked for, in percent: compare's
     * threshold when both sides say. Only a run that stopped a row on it
     * (reached, out of its processes' reach, or not reached by the most
     * processes the engine would choose to run) aimed at it: a fixed
     * count of runs (vernier run --runs N) or of processes (--processes
     * N, whose rows stop at N short of it), a trace or a kernel benchmark
     * carries the default without having sought it. */
    const cJSON *prec = vn__cmp_num(config, "precision");
    cJSON_ArrayForEach(r, list) {
        const char *stop = vn__cmp_str(r, "stop");
        sought |= stop && (!strcmp(stop, "precision") || !strcmp(stop, "processes_vary") ||
                           (chosen && !strcmp(stop, "max_processes")));
    }
    if (sought && prec && prec->valuedouble > 0 && prec->valuedouble < 100)
        s->precision = prec->valuedouble / 100;
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(root, "env");
    const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(env, "cpu");
    const cJSON *logical = vn__cmp_num(cpu, "logical");
    char n[32] = "";
    if (logical)
        vn__fmt_exact(n, sizeof n, logical->valuedouble);
    if (vn__cmp_set_fact(s, VN__CMP_FACT_CPU, vn__cmp_str(cpu, "model")) ||
        vn__cmp_set_fact(s, VN__CMP_FACT_CPUS, n) ||
        vn__cmp_set_fact(s, VN__CMP_FACT_GOVERNOR, governor(env)) ||
        vn__cmp_set_fact(s, VN__CMP_FACT_KERNEL, vn__cmp_str(env, "kernel")) ||
        vn__cmp_set_fact(s, VN__CMP_FACT_HOST, vn__cmp_str(env, "hostname")))
        return VN_ENOMEM;
    return notes(s, env, cpu);
}
