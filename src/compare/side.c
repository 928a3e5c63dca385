/* A side of a comparison: its benchmarks, each with the values of every
 * file, and the machine's facts; and the helpers the format readers share. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read_internal.h"
#include "stats/internal.h"
#include "stats/levels.h"
#include "stats/stats_api.h"

const char *const vn__cmp_fact_names[VN__CMP_NFACTS] = {
    "CPU model", "CPUs", "MHz", "governor", "frequency scaling", "kernel", "host",
};

const char *vn__cmp_format_name(unsigned format)
{
    switch (format) {
    case VN__CMP_CODE: return "vernier results of code";
    case VN__CMP_COMMANDS: return "vernier results of commands";
    case VN__CMP_GBENCH: return "Google Benchmark JSON";
    case VN__CMP_HYPERFINE: return "hyperfine JSON";
    default: return "several formats";
    }
}

void vn__cmp_side_init(vn__cmp_side *s) { memset(s, 0, sizeof *s); }

static void bench_free(vn__cmp_bench *b)
{
    free(b->name);
    for (size_t i = 0; i < b->nparams; i++) {
        free(b->params[i].key);
        free(b->params[i].value);
    }
    free(b->params);
    free(b->values);
    free(b->insn);
    free(b->units);
    free(b->units_cycles);
    free(b->units_probe);
    free(b->other);
    free(b->other_cycles);
    free(b->other_probe);
    free(b->why);
}

void vn__cmp_side_free(vn__cmp_side *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nbench; i++)
        bench_free(&s->bench[i]);
    free(s->bench);
    for (int i = 0; i < VN__CMP_NFACTS; i++)
        free(s->facts[i]);
    for (int i = 0; i < VN__CMP_NNOTES; i++)
        free(s->notes[i]);
    memset(s, 0, sizeof *s);
}

vn__cmp_bench *vn__cmp_bench_find(const vn__cmp_side *s, const char *name)
{
    for (size_t i = 0; i < s->nbench; i++)
        if (!strcmp(s->bench[i].name, name))
            return &s->bench[i];
    return NULL;
}

vn__cmp_bench *vn__cmp_bench_at(vn__cmp_side *s, const char *name)
{
    vn__cmp_bench *b = vn__cmp_bench_find(s, name);
    if (b)
        return b;
    if (s->nbench == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        vn__cmp_bench *nb = realloc(s->bench, cap * sizeof *nb);
        if (!nb)
            return NULL;
        s->bench = nb;
        s->cap = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return NULL;
    b = &s->bench[s->nbench++];
    memset(b, 0, sizeof *b);
    b->name = copy;
    b->next_lo[0] = b->next_lo[1] = b->next_hi[0] = b->next_hi[1] = NAN;
    return b;
}

int vn__cmp_bench_new(vn__cmp_side *s, const char *name, const char *what, vn__cmp_bench **out,
                      vn__cmp_error *err)
{
    if (vn__cmp_bench_find(s, name))
        return vn__cmp_bad(err, "%s: a second benchmark named '%.80s' in one file; rename one, "
                                "or give them as separate files", what, name);
    *out = vn__cmp_bench_at(s, name);
    return *out ? 0 : VN_ENOMEM;
}

static int push(double **v, size_t *n, size_t *cap, double x)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 16;
        double *nv = realloc(*v, c * sizeof *nv);
        if (!nv)
            return VN_ENOMEM;
        *v = nv;
        *cap = c;
    }
    (*v)[(*n)++] = x;
    return 0;
}

int vn__cmp_push(vn__cmp_bench *b, double ns) { return push(&b->values, &b->n, &b->cap, ns); }

int vn__cmp_push_insn(vn__cmp_bench *b, double insn)
{
    return push(&b->insn, &b->ninsn, &b->capinsn, insn);
}

/* One value onto each of m arrays of one length n and capacity cap:
 * each grows as the others. */
static int push_rows(double **const *arr, const double *val, int m, size_t *n, size_t *cap)
{
    size_t nn = *n, cc = *cap;
    for (int i = 0; i < m; i++) {
        nn = *n;
        cc = *cap;
        int rc = push(arr[i], &nn, &cc, val[i]);
        if (rc)
            return rc;
    }
    *n = nn;
    *cap = cc;
    return 0;
}

int vn__cmp_push_unit(vn__cmp_bench *b, double ns, double cycles, double probe)
{
    double **const arr[] = {&b->units, &b->units_cycles, &b->units_probe};
    const double val[] = {ns, cycles, probe};
    return push_rows(arr, val, 3, &b->nunits, &b->capunits);
}

int vn__cmp_push_other(vn__cmp_bench *b, double ns, double cycles, double probe)
{
    double **const arr[] = {&b->other, &b->other_cycles, &b->other_probe};
    const double val[] = {ns, cycles, probe};
    return push_rows(arr, val, 3, &b->nother, &b->capother);
}

int vn__cmp_set_why(vn__cmp_bench *b, const char *fmt, ...)
{
    if (b->why)
        return 0;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    b->why = strdup(msg);
    return b->why ? 0 : VN_ENOMEM;
}

static int set_text(char **at, const char *value)
{
    if (!value || !*value)
        return 0;
    char *copy = strdup(value);
    if (!copy)
        return VN_ENOMEM;
    free(*at);
    *at = copy;
    return 0;
}

int vn__cmp_set_fact(vn__cmp_side *s, int fact, const char *value)
{
    return set_text(&s->facts[fact], value);
}

int vn__cmp_set_note(vn__cmp_side *s, int note, const char *value)
{
    return set_text(&s->notes[note], value);
}

int vn__cmp_bad(vn__cmp_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->line = err->column = 0;
    return VN_EINVAL;
}

const char *vn__cmp_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

const cJSON *vn__cmp_num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v : NULL;
}

double vn__cmp_probe(const vn__cmp_bench *b)
{
    double *v = malloc((b->nunits ? b->nunits : 1) * sizeof *v);
    size_t m = 0;
    for (size_t i = 0; v && i < b->nunits; i++)
        if (isfinite(b->units_probe[i]))
            v[m++] = b->units_probe[i];
    double med = NAN;
    if (m) {
        qsort(v, m, sizeof *v, vn__cmp_double);
        med = vn_percentile_sorted(v, m, 50);
    }
    free(v);
    return med;
}

/* A busy sibling thread slows the reference's chain of adds by 0 to 20%
 * from one process to the next, and a body follows it or not: a chain of
 * adds reads steady in cycles and moves in ns, a chain of divisions the
 * other way round (its processes at 417 to 419 ns and 1300 to 1520
 * cycles in one run). A clock that moves moves every body on the CPU in
 * ns alike. Where the two sides' references differ, the two units give
 * different ratios, and the one the processes themselves hold steady is
 * the one that speaks of the code (bench/RESULTS.md, 2026-12-04). */
int vn__cmp_steadier_unit(const vn__cmp_bench *b, const vn__cmp_bench *n)
{
    const vn__cmp_bench *side[2] = {b, n};
    size_t len[2], all = 0;
    for (int s = 0; s < 2; s++)
        all += len[s] = side[s]->nunits + side[s]->nother;
    double *ns = malloc(2 * (all ? all : 1) * sizeof *ns);
    if (!ns)
        return -1;
    double *cy = ns + all;
    size_t m = 0;
    for (int s = 0; s < 2; s++) {
        const vn__cmp_bench *x = side[s];
        for (size_t i = 0; i < x->nunits + x->nother; i++, m++) {
            int own = i < x->nunits;
            ns[m] = own ? x->units[i] : x->other[i - x->nunits];
            cy[m] = own ? x->units_cycles[i] : x->other_cycles[i - x->nunits];
        }
    }
    int which = vn__levels_which_steadier_in(ns, cy, len, 2, VN__LEVELS_STEADIER_GAIN);
    free(ns);
    return which == 1 ? 2 : which == -1 ? 1 : 0;
}
