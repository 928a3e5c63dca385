/* The store's series read back (store.h): each benchmark's results on a
 * machine, oldest first, and what the results before each say of it
 * (vn__store_learn). */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/levels.h"
#include "store/changes.h"
#include "store/store_internal.h"
#include "vernier/base.h"

/* ---- series ------------------------------------------------------------------- */

typedef struct names {
    char **v;
    size_t n, cap;
    const vn__store_query *q;
} names;

static int matches(const vn__store_query *q, const char *name)
{
    if (!q || !q->nnames)
        return 1;
    for (size_t i = 0; i < q->nnames; i++)
        if (q->exact ? !strcmp(q->names[i], name) : !fnmatch(q->names[i], name, 0))
            return 1;
    return 0;
}

static int name_row(void *ctx, size_t ncols, const char *const *vals)
{
    names *x = ctx;
    if (ncols < 1 || !vals[0] || !matches(x->q, vals[0]))
        return 0;
    if (x->n == x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 16;
        char **v = realloc(x->v, cap * sizeof *v);
        if (!v)
            return VN_ENOMEM;
        x->v = v;
        x->cap = cap;
    }
    if (!(x->v[x->n] = strdup(vals[0])))
        return VN_ENOMEM;
    x->n++;
    return 0;
}

typedef struct collect {
    vn__store_series *v;
    size_t n, cap;
    const char *name;
    int err;
} collect;

static double dnum(const char *s) { return s ? strtod(s, NULL) : NAN; }

static int point_row(void *ctx, size_t ncols, const char *const *vals)
{
    collect *c = ctx;
    if (ncols < 14)
        return 0;
    vn__store_series *last = c->n ? &c->v[c->n - 1] : NULL;
    if (!last || strcmp(last->name, c->name) || strcmp(last->machine, vals[5] ? vals[5] : "")) {
        if (c->n == c->cap) {
            size_t cap = c->cap ? 2 * c->cap : 8;
            vn__store_series *v = realloc(c->v, cap * sizeof *v);
            if (!v)
                return c->err = VN_ENOMEM;
            c->v = v;
            c->cap = cap;
        }
        last = &c->v[c->n];
        memset(last, 0, sizeof *last);
        last->name = strdup(c->name);
        last->machine = strdup(vals[5] ? vals[5] : "");
        c->n++;
        if (!last->name || !last->machine)
            return c->err = VN_ENOMEM;
    }
    vn__store_point *pt = realloc(last->pt, (last->n + 1) * sizeof *pt);
    if (!pt)
        return c->err = VN_ENOMEM;
    last->pt = pt;
    vn__store_point *p = &pt[last->n++];
    memset(p, 0, sizeof *p);
    p->run = vals[0] ? strtoll(vals[0], NULL, 10) : 0;
    p->time = dnum(vals[1]);
    snprintf(p->commit, sizeof p->commit, "%s", vals[2] ? vals[2] : "");
    snprintf(p->branch, sizeof p->branch, "%s", vals[3] ? vals[3] : "");
    p->dirty = vals[4] ? atoi(vals[4]) : -1;
    snprintf(p->unit, sizeof p->unit, "%s", vals[6] ? vals[6] : "ns");
    p->ns = p->value = dnum(vals[7]);
    p->est_lo = dnum(vals[8]);
    p->est_hi = dnum(vals[9]);
    p->nunits = vals[10] ? (size_t)strtoull(vals[10], NULL, 10) : 0;
    p->cycles = dnum(vals[11]);
    p->cycles_est_lo = dnum(vals[12]);
    p->cycles_est_hi = dnum(vals[13]);
    return 0;
}

/* A series in cycles when every result kept them and most of its files
 * compared in them; each result's value and intervals in its unit. The
 * store keeps the estimate's interval over the units; shown, as every
 * headline's, is the one for the next run. */
static void settle_unit(vn__store_series *v)
{
    size_t in = 0, all = 1;
    for (size_t i = 0; i < v->n; i++) {
        const vn__store_point *p = &v->pt[i];
        all &= p->cycles > 0 && isfinite(p->cycles);
        in += !strcmp(p->unit, "cycles");
    }
    v->in_cycles = v->n && all && 2 * in > v->n;
    for (size_t i = 0; i < v->n; i++) {
        vn__store_point *p = &v->pt[i];
        if (v->in_cycles) {
            p->value = p->cycles;
            p->est_lo = p->cycles_est_lo;
            p->est_hi = p->cycles_est_hi;
        }
        p->lo = p->est_lo;
        p->hi = p->est_hi;
        vn__levels_next_run(p->value, &p->lo, &p->hi);
    }
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int vn__store_series_of(vn__store *s, const vn__store_query *q, vn__store_series **out,
                        size_t *nout, char *why, size_t n)
{
    *out = NULL;
    *nout = 0;
    names nm = {.q = q};
    int rc = s->ops->exec(s, "SELECT DISTINCT name FROM results", NULL, 0, name_row, &nm, why, n);
    if (!rc && nm.n)
        qsort(nm.v, nm.n, sizeof *nm.v, by_text);
    collect c = {0};
    char since[32];
    snprintf(since, sizeof since, "%.6f", q && q->since > 0 ? q->since : 0.0);
    for (size_t i = 0; !rc && i < nm.n; i++) {
        c.name = nm.v[i];
        const char *p[] = {nm.v[i], since, q && q->machine ? q->machine : NULL,
                           q && q->branch ? q->branch : NULL};
        rc = s->ops->exec(s,
                          "SELECT r.id, r.time, r.commit_id, r.branch, r.dirty, m.fingerprint, s.unit, "
                          "s.value, s.lo, s.hi, s.nunits, s.cycles, s.cycles_lo, s.cycles_hi "
                          "FROM results s "
                          "JOIN runs r ON s.run = r.id JOIN machines m ON r.machine = m.id "
                          "WHERE s.name = $1 AND r.time >= $2 AND "
                          "(CAST($3 AS TEXT) IS NULL OR m.fingerprint = $3) AND "
                          "(CAST($4 AS TEXT) IS NULL OR r.branch = $4) ORDER BY m.fingerprint, r.time, r.id",
                          p, 4, point_row, &c, why, n);
        if (!rc && c.err)
            rc = c.err;
    }
    for (size_t i = 0; i < nm.n; i++)
        free(nm.v[i]);
    free(nm.v);
    if (rc) {
        vn__store_series_free(c.v, c.n);
        return rc;
    }
    for (size_t i = 0; i < c.n; i++)
        settle_unit(&c.v[i]);
    *out = c.v;
    *nout = c.n;
    return 0;
}

/* The between-run variance of before[0..n) as of now: the results used. */
static size_t between_of(const vn__store_point *before, size_t n, double now, size_t least,
                         size_t most, double max_age, int in_cycles, double *var)
{
    *var = 0;
    /* Twice the most it uses: enough to find a change point before them,
     * and a bounded cost whatever the length of the series. */
    size_t from = most && n > 2 * most ? n - 2 * most : 0;
    while (from < n && max_age > 0 && before[from].time < now - max_age)
        from++;
    size_t k = n - from;
    if (k < least)
        return 0;
    double *x = malloc(k * sizeof *x);
    if (!x)
        return 0;
    size_t m = 0;
    for (size_t i = from; i < n; i++) {
        double v = in_cycles ? before[i].cycles : before[i].ns;
        if (v > 0 && isfinite(v))
            x[m++] = v;
    }
    size_t used;
    int rc = vn__store_between(x, NULL, m, least, most, var, &used);
    free(x);
    return rc ? 0 : used;
}

size_t vn__store_series_between(const vn__store_series *v, double now, size_t least, size_t most,
                                double max_age, int in_cycles, double *var)
{
    return between_of(v->pt, v->n, now, least, most, max_age, in_cycles, var);
}

size_t vn__store_widen(const vn__store_point *before, size_t n, double now, double value,
                       double *lo, double *hi, size_t least, size_t most, double max_age,
                       int in_cycles)
{
    if (!(value > 0))
        return 0;
    double var;
    size_t used = between_of(before, n, now, least, most, max_age, in_cycles, &var);
    if (!used)
        return 0;
    /* The wider of the result's own interval (for the next run) and the
     * next run's as the series says a headline moves from one run to the
     * next: 1.96 x sqrt(2) x that, the difference of two runs (which
     * holds each run's own error already, so the two are not added). In
     * the value's unit: on a log scale the far end of a wide interval
     * runs away (2x for a memory-bound body whose runs spread 2x). */
    double own = isfinite(*lo) && isfinite(*hi) ? fmax(*hi - value, value - *lo) : 0;
    double half = fmax(own, vn__levels_next_half(var) * value);
    *lo = value - half;
    *hi = value + half;
    return used;
}

void vn__store_learn(vn__store_series *v, size_t from, size_t least, size_t most, double max_age)
{
    for (size_t i = 0; i < from && i < v->n; i++) {
        v->pt[i].lo_h = v->pt[i].hi_h = NAN;
        v->pt[i].learned_from = 0;
    }
    for (size_t i = from; i < v->n; i++) {
        vn__store_point *p = &v->pt[i];
        p->lo_h = p->lo;
        p->hi_h = p->hi;
        p->learned_from = vn__store_widen(v->pt, i, p->time, p->value, &p->lo_h, &p->hi_h, least,
                                          most, max_age, v->in_cycles);
        if (!p->learned_from)
            p->lo_h = p->hi_h = NAN;
    }
}

void vn__store_series_free(vn__store_series *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) {
        free(v[i].name);
        free(v[i].machine);
        free(v[i].pt);
    }
    free(v);
}
