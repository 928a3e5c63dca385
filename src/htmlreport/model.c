/* The page's model: the files read by the comparison's reader, each
 * benchmark's values sorted and summarized, the sweeps found and fitted,
 * and with two sides, the comparison. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int read_one(vn__rep_model *m, const vn__rep_file *f, char *err, size_t errlen)
{
    vn__cmp_error e;
    int rc = vn__cmp_read(&m->side[f->side], f->text, f->len, &e);
    if (rc == VN_EINVAL && e.line)
        snprintf(err, errlen, "'%s', line %zu, column %zu: %s", f->name, e.line, e.column, e.msg);
    else if (rc == VN_EINVAL)
        snprintf(err, errlen, "'%s': %s", f->name, e.msg);
    if (rc)
        return rc;
    /* The reader took it, so it parses: kept whole for its tables. */
    cJSON *root = cJSON_ParseWithLength(f->text, f->len);
    if (!root)
        return VN_ENOMEM;
    m->roots[m->nroots++] = root;
    return 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int series(vn__rep_series *s, const vn__cmp_bench *b)
{
    if (!b || !b->n)
        return 0;
    s->sorted = malloc(b->n * sizeof *s->sorted);
    if (!s->sorted)
        return VN_ENOMEM;
    memcpy(s->sorted, b->values, b->n * sizeof *s->sorted);
    qsort(s->sorted, b->n, sizeof *s->sorted, by_value);
    int rc = vn_stats_compute(s->sorted, b->n, &s->st);
    if (rc == VN_ENOMEM)
        return rc;
    /* Values a summary refuses (all one value overflowing, say) are not drawn. */
    s->n = rc ? 0 : b->n;
    return 0;
}

static int benches(vn__rep_model *m)
{
    size_t cap = m->side[0].nbench + m->side[1].nbench;
    m->bench = calloc(cap ? cap : 1, sizeof *m->bench);
    if (!m->bench)
        return VN_ENOMEM;
    for (int side = 0; side < m->nsides; side++)
        for (size_t i = 0; i < m->side[side].nbench; i++) {
            const vn__cmp_bench *b = &m->side[side].bench[i];
            vn__rep_bench *r = NULL;
            for (size_t k = 0; k < m->nbench && !r; k++)
                if (!strcmp(m->bench[k].name, b->name))
                    r = &m->bench[k];
            if (!r) {
                r = &m->bench[m->nbench++];
                r->name = b->name;
            }
            r->b[side] = b;
            if (series(&r->s[side], b))
                return VN_ENOMEM;
        }
    return 0;
}

/* The benchmark's first numeric parameter: its key, value and value as text. */
static const vn__cmp_param *numeric(const vn__cmp_bench *b, double *x)
{
    for (size_t i = 0; b && i < b->nparams; i++) {
        char *end;
        double v = strtod(b->params[i].value, &end);
        if (*b->params[i].value && !*end && isfinite(v)) {
            *x = v;
            return &b->params[i];
        }
    }
    return NULL;
}

/* "copy/size={size}": the name with the last place its value is written
 * (copy/size=64, or a command's "sleep 0.01") as {key}. Rows of one sweep
 * have the same; NULL without memory. */
static char *template_of(const char *name, const vn__cmp_param *p)
{
    const char *at = NULL;
    size_t vl = strlen(p->value);
    for (const char *q = name; (q = strstr(q, p->value)) != NULL; q++)
        at = q;
    size_t len = strlen(name) + strlen(p->key) + 3;
    char *t = malloc(len);
    if (!t)
        return NULL;
    if (at)
        snprintf(t, len, "%.*s{%s}%s", (int)(at - name), name, p->key, at + vl);
    else
        snprintf(t, len, "%s", name);
    return t;
}

static int sweep_add(vn__rep_model *m, size_t bi, double x, const vn__cmp_param *p, char *title)
{
    vn__rep_sweep *s = NULL;
    for (size_t k = 0; k < m->nsweep && !s; k++)
        if (!strcmp(m->sweep[k].title, title) && !strcmp(m->sweep[k].key, p->key))
            s = &m->sweep[k];
    if (!s) {
        vn__rep_sweep *a = realloc(m->sweep, (m->nsweep + 1) * sizeof *a);
        if (!a)
            return free(title), VN_ENOMEM;
        m->sweep = a;
        s = &a[m->nsweep++];
        memset(s, 0, sizeof *s);
        s->title = title;
        s->key = p->key;
    } else
        free(title);
    size_t *b = realloc(s->bench, (s->n + 1) * sizeof *b);
    if (b)
        s->bench = b;
    double *xs = b ? realloc(s->x, (s->n + 1) * sizeof *xs) : NULL;
    if (!xs)
        return VN_ENOMEM;
    s->x = xs;
    /* In order of x, for the lines. */
    size_t at = s->n;
    while (at && s->x[at - 1] > x) {
        s->x[at] = s->x[at - 1];
        s->bench[at] = s->bench[at - 1];
        at--;
    }
    s->x[at] = x;
    s->bench[at] = bi;
    s->n++;
    return 0;
}

/* The complexity fit of a side of a sweep, through its medians, as
 * vn_main's line has it: only with 4 points or more, every size >= 1. */
static void fit(const vn__rep_model *m, vn__rep_sweep *s, int side)
{
    double n[64], t[64];
    size_t k = 0;
    for (size_t i = 0; i < s->n && k < 64; i++) {
        const vn__rep_series *v = &m->bench[s->bench[i]].s[side];
        if (!v->n || s->x[i] < 1)
            continue;
        n[k] = s->x[i];
        t[k++] = v->st.median;
    }
    s->fitted[side] = k >= 4 && vn_fit_bigo(n, t, k, &s->fit[side]) == 0;
}

static int sweeps(vn__rep_model *m)
{
    for (size_t i = 0; i < m->nbench; i++) {
        const vn__cmp_bench *b = m->bench[i].b[0] ? m->bench[i].b[0] : m->bench[i].b[1];
        double x;
        const vn__cmp_param *p = numeric(b, &x);
        if (!p)
            continue;
        char *title = template_of(b->name, p);
        if (!title || sweep_add(m, i, x, p, title))
            return VN_ENOMEM;
    }
    /* One row is no sweep: its plots are the benchmark's own. */
    size_t k = 0;
    for (size_t i = 0; i < m->nsweep; i++) {
        if (m->sweep[i].n >= 2) {
            m->sweep[k++] = m->sweep[i];
            continue;
        }
        free(m->sweep[i].title);
        free(m->sweep[i].bench);
        free(m->sweep[i].x);
    }
    m->nsweep = k;
    for (size_t i = 0; i < m->nsweep; i++)
        for (int side = 0; side < m->nsides; side++)
            fit(m, &m->sweep[i], side);
    return 0;
}

int vn__rep_model_read(vn__rep_model *m, const vn__rep_file *files, size_t nfiles,
                       const vn__cmp_options *cmp, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    vn__cmp_side_init(&m->side[0]);
    vn__cmp_side_init(&m->side[1]);
    m->nsides = 1;
    snprintf(err, errlen, "out of memory");
    m->roots = calloc(nfiles ? nfiles : 1, sizeof *m->roots);
    if (!m->roots)
        return VN_ENOMEM;
    for (size_t i = 0; i < nfiles; i++) {
        int rc = read_one(m, &files[i], err, errlen);
        if (rc)
            return rc;
        if (files[i].side)
            m->nsides = 2;
    }
    if (benches(m) || sweeps(m))
        return VN_ENOMEM;
    if (m->nsides == 2) {
        int rc = vn__cmp_compare(&m->side[0], &m->side[1], cmp, &m->cmp);
        if (rc == VN_EINVAL)
            snprintf(err, errlen, "cannot compare: %s", vn_strerror(rc));
        if (rc)
            return rc;
    }
    return 0;
}

void vn__rep_model_free(vn__rep_model *m)
{
    for (size_t i = 0; i < m->nroots; i++)
        cJSON_Delete(m->roots[i]);
    free(m->roots);
    for (size_t i = 0; i < m->nbench; i++)
        for (int s = 0; s < 2; s++)
            free(m->bench[i].s[s].sorted);
    free(m->bench);
    for (size_t i = 0; i < m->nsweep; i++) {
        free(m->sweep[i].title);
        free(m->sweep[i].bench);
        free(m->sweep[i].x);
    }
    free(m->sweep);
    vn__cmp_result_free(&m->cmp);
    vn__cmp_side_free(&m->side[0]);
    vn__cmp_side_free(&m->side[1]);
    memset(m, 0, sizeof *m);
}
