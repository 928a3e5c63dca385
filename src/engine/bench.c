/* Suites of benchmarks: registration, options, the state a benchmark sees,
 * and the seeded generator. The measuring itself is in engine/suite.c and the files it calls. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/abi.h"
#include "internal.h"

/* ---- Registration by VN_BENCH ---------------------------------------------------- */

/* Constructors run before main() in an unspecified order; the list is
 * reversed on use so benchmarks run in the order of the source. */
static vn_bench_def *registered;

void vn__register(vn_bench_def *def)
{
    if (!def)
        return;
    def->next = registered;
    registered = def;
}

/* ---- Suites ---------------------------------------------------------------- */

vn_suite *vn__suite_create(int optimized)
{
    vn_suite *s = calloc(1, sizeof *s);
    if (s)
        s->optimized = optimized;
    return s;
}

void vn_suite_destroy(vn_suite *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].values);
    free(s->v);
    free(s);
}

void vn__suite_no_fit(vn_suite *s)
{
    if (s)
        s->no_fit = 1;
}

void vn__suite_set_hooks(vn_suite *s, const vn__hooks *h)
{
    s->has_hooks = h != NULL;
    if (h)
        s->hooks = *h;
}

/* Expands the parameter options into a list of values. */
static int param_values(const vn_bench_opts *o, int64_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (o->param_values && o->param_count) {
        /* A million rows is more than any suite runs; more is a count gone
         * wrong, and the bytes for it could wrap. */
        if (o->param_count > 1000000)
            return VN_EINVAL;
        *out = malloc(o->param_count * sizeof **out);
        if (!*out)
            return VN_ENOMEM;
        memcpy(*out, o->param_values, o->param_count * sizeof **out);
        *n = o->param_count;
        return 0;
    }
    if (o->param_values || o->param_count)
        return VN_EINVAL;
    if (!o->range_lo && !o->range_hi)
        return 0;
    int64_t mult = o->range_mult ? o->range_mult : 2;
    if (o->range_lo <= 0 || o->range_hi < o->range_lo || mult < 2)
        return VN_EINVAL;
    /* lo, lo*mult, ... up to hi; like Google Benchmark's ranges, hi itself
     * is always measured too. At most 64 values fit in an int64_t range. */
    int64_t v[65];
    size_t k = 0;
    for (int64_t x = o->range_lo;; x *= mult) {
        v[k++] = x;
        if (x > o->range_hi / mult)
            break;
    }
    if (v[k - 1] != o->range_hi)
        v[k++] = o->range_hi;
    *out = malloc(k * sizeof **out);
    if (!*out)
        return VN_ENOMEM;
    memcpy(*out, v, k * sizeof **out);
    *n = k;
    return 0;
}

/* A row's name: the benchmark's, and its parameter's value if it has one. */
void vn__row_name(const vn__bench *b, size_t k, char *name, size_t len)
{
    if (b->nvalues)
        snprintf(name, len, "%s/%s=%lld", b->name, b->opts.param_name ? b->opts.param_name : "n",
                 (long long)b->values[k]);
    else
        snprintf(name, len, "%s", b->name);
}

/* VN_EEXIST when a row the new benchmark would add has the name of
 * another row, its own or the suite's ("c" with size 1 and a benchmark
 * named "c/size=1", or a list that holds a value twice): --filter, the
 * reports and a comparison of two results files could not tell them apart. */
static int rows_are_new(const vn_suite *s, const char *name, const vn_bench_opts *o,
                        const int64_t *values, size_t nvalues)
{
    vn__bench nb;
    memset(&nb, 0, sizeof nb);
    snprintf(nb.name, sizeof nb.name, "%s", name);
    nb.opts = *o;
    nb.values = (int64_t *)values;
    nb.nvalues = nvalues;
    char mine[sizeof ((vn_result *)0)->name], theirs[sizeof mine];
    for (size_t k = 0; k < (nvalues ? nvalues : 1); k++) {
        vn__row_name(&nb, k, mine, sizeof mine);
        for (size_t k2 = 0; k2 < k; k2++)
            if (values[k2] == values[k])
                return VN_EEXIST;
        for (size_t i = 0; i < s->n; i++)
            for (size_t k2 = 0; k2 < (s->v[i].nvalues ? s->v[i].nvalues : 1); k2++) {
                vn__row_name(&s->v[i], k2, theirs, sizeof theirs);
                if (!strcmp(mine, theirs))
                    return VN_EEXIST;
            }
    }
    return 0;
}

void vn_bench_opts_init(vn_bench_opts *o)
{
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
}

int vn_suite_add(vn_suite *s, const char *name, vn_bench_fn fn, const vn_bench_opts *opts)
{
    if (!s || !name || !*name || !fn)
        return VN_EINVAL;
    if (strlen(name) >= sizeof s->v[0].name - 32)
        return VN_ERANGE;
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i].name, name))
            return VN_EEXIST;
    vn_bench_opts o;
    vn_bench_opts_init(&o);
    if (opts && opts->size == 0) {
        /* A struct zeroed by hand: the first layout, through `timer`. */
        memcpy(&o, opts, VN__SIZE_THROUGH(vn_bench_opts, timer));
        o.size = sizeof o;
    } else if (opts && vn__abi_copy(&o, sizeof o, opts, VN__SIZE_THROUGH(vn_bench_opts, timer)) != 0) {
        return VN_EABI;
    }
    if (!(o.max_time >= 0 && isfinite(o.max_time)) || !(o.precision >= 0 && isfinite(o.precision)) ||
        !(o.bytes_per_iter >= 0 && isfinite(o.bytes_per_iter)) ||
        !(o.items_per_iter >= 0 && isfinite(o.items_per_iter)))
        return VN_EINVAL;
    /* The results keep the parameter's name in 32 bytes (vn_result.param_name). */
    if (o.param_name && (!*o.param_name || strlen(o.param_name) >= sizeof ((vn_result *)0)->param_name))
        return o.param_name[0] ? VN_ERANGE : VN_EINVAL;
    if (o.baseline && !*o.baseline)
        return VN_EINVAL;
    if (o.timer) {
        vn_clock_id id;
        if (vn_clock_lookup(o.timer, &id) != 0)
            return VN_ENOENT;
    }
    int64_t *values;
    size_t nvalues;
    int rc = param_values(&o, &values, &nvalues);
    if (rc)
        return rc;
    if ((rc = rows_are_new(s, name, &o, values, nvalues)) != 0) {
        free(values);
        return rc;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        vn__bench *v = realloc(s->v, cap * sizeof *v);
        if (!v) {
            free(values);
            return VN_ENOMEM;
        }
        s->v = v;
        s->cap = cap;
    }
    vn__bench *b = &s->v[s->n++];
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", name);
    b->fn = fn;
    b->opts = o;
    b->values = values;
    b->nvalues = nvalues;
    return 0;
}

int vn_suite_add_registered(vn_suite *s) { return vn__suite_add_registered(s, NULL); }

int vn__suite_add_registered(vn_suite *s, const char **bad)
{
    if (!s)
        return VN_EINVAL;
    size_t n = 0;
    for (vn_bench_def *d = registered; d; d = d->next)
        n++;
    vn_bench_def **order = malloc((n ? n : 1) * sizeof *order);
    if (!order)
        return VN_ENOMEM;
    size_t i = n;
    for (vn_bench_def *d = registered; d; d = d->next)
        order[--i] = d;
    int rc = 0;
    for (i = 0; i < n && rc == 0; i++)
        if ((rc = vn_suite_add(s, order[i]->name, order[i]->fn, order[i]->opts)) != 0 && bad)
            *bad = order[i]->name;
    free(order);
    return rc;
}

/* ---- The state ---------------------------------------------------------------- */

void *vn_state_data(const vn_state *st) { return st->run->data; }
void vn_state_set_data(vn_state *st, void *data) { st->run->data = data; }
void *vn_state_user(const vn_state *st) { return st->run->user; }
int64_t vn_state_param(const vn_state *st) { return st->run->param; }
uint64_t vn_state_iterations(const vn_state *st) { return st->run->iters; }
/* A throughput that is negative, infinite or NaN fails the row, as the
 * same value in vn_bench_opts fails vn_suite_add: silently dropped, the row
 * would just lack the rate it asked for. */
static int per_iter_ok(vn_state *st, const char *fn, const char *what, double v)
{
    if (v >= 0 && isfinite(v))
        return 1;
    char msg[128];
    snprintf(msg, sizeof msg, "%s() needs a finite number of %s of 0 or more, not %g", fn, what, v);
    vn_state_fail(st, msg);
    return 0;
}

void vn_state_set_bytes(vn_state *st, double bytes)
{
    if (per_iter_ok(st, "vn_state_set_bytes", "bytes", bytes))
        st->run->bytes = bytes;
}

void vn_state_set_items(vn_state *st, double items)
{
    if (per_iter_ok(st, "vn_state_set_items", "items", items))
        st->run->items = items;
}

void vn_state_skip(vn_state *st, const char *reason)
{
    vn_state_fail(st, reason ? reason : "skipped");
    st->run->skipped = 1;
}

void vn_state_set_time(vn_state *st, double ns)
{
    struct vn__run *r = st->run;
    if (!(ns >= 0 && isfinite(ns))) {
        char msg[128];
        snprintf(msg, sizeof msg, "vn_state_set_time() needs a finite time of 0 ns or more, not %g", ns);
        vn_state_fail(st, msg);
        return;
    }
    r->manual_ns = isnan(r->manual_ns) ? ns : r->manual_ns + ns;
}

void vn_state_fail(vn_state *st, const char *message)
{
    struct vn__run *r = st->run;
    r->failed = 1;
    snprintf(r->error, sizeof r->error, "%s", message ? message : "failed");
    /* Ends the loop at the next vn_next(). */
    st->remaining = 0;
}

/* The end of a sample. The engine read the timer just before calling the
 * function, and this reads it as the first thing after the loop, so what
 * lies between is the loop, the function's entry and a constant part of
 * this call; the empty loop has all of them too, and is subtracted. */
void vn__state_end(vn_state *st)
{
    struct vn__run *r = st->run;
    uint64_t t = vn__timer_read(r);
    if (r->phase == 1) {
        r->t_end = t;
        r->phase = 2;
        /* Right after the timer, so the read's system call is outside the
         * timed region; what it adds to the counts before the kernel takes
         * them, the empty loop has too. */
        if (r->ctr)
            r->ctr_ok &= vn_counters_read(r->ctr, &r->c1) == 0;
    }
}

/* ---- Small things ------------------------------------------------------------------- */

void vn_rng_seed(vn_rng *r, uint64_t seed)
{
    /* splitmix64 spreads any seed, 0 included, over the four words. */
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        r->s[i] = z ^ (z >> 31);
    }
}

uint64_t vn_rng_below(vn_rng *r, uint64_t n)
{
    if (n == 0)
        return 0;
#ifdef __SIZEOF_INT128__
    /* Lemire, "Fast Random Integer Generation in an Interval" (2019). */
    unsigned __int128 m = (unsigned __int128)vn_rng_next(r) * n;
    uint64_t low = (uint64_t)m;
    if (low < n) {
        uint64_t t = -n % n;
        while (low < t) {
            m = (unsigned __int128)vn_rng_next(r) * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
#else
    uint64_t limit = UINT64_MAX - UINT64_MAX % n, v;
    do
        v = vn_rng_next(r);
    while (v >= limit);
    return v % n;
#endif
}

void vn_config_init(vn_config *c)
{
    memset(c, 0, sizeof *c);
    c->size = sizeof *c;
    c->max_time = 1.0;
    c->precision = 1.0;
    c->min_samples = 10;
    c->max_samples = 10000;
    c->warmup = 0.02;
    c->min_sample_time = 0.00025;
    c->cpu = -1;
    c->dma_latency_us = VN_DMA_LATENCY_AUTO;
    c->threads = 1;
    c->interleave = 1;
}

const char *vn_stop_name(vn_stop s)
{
    static const char *const names[] = {"precision", "max_time", "max_samples", "failed",
                                        "interrupted", "skipped", "max_processes",
                                        "processes_vary"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "unknown";
}

void vn_suite_set_after(vn_suite *s, vn_suite_after_fn fn, void *ctx)
{
    if (s) {
        s->after = fn;
        s->after_ctx = ctx;
    }
}

int vn_results_add_finding(vn_results *r, const char *id, const char *brief, const char *explanation)
{
    if (!r || !id || !*id || !brief || !*brief)
        return VN_EINVAL;
    vn_finding *f = realloc(r->findings, (r->nfindings + 1) * sizeof *f);
    if (!f)
        return VN_ENOMEM;
    r->findings = f;
    f = &f[r->nfindings];
    memset(f, 0, sizeof *f);
    f->explanation = strdup(explanation ? explanation : "");
    if (!f->explanation)
        return VN_ENOMEM;
    snprintf(f->id, sizeof f->id, "%s", id);
    snprintf(f->brief, sizeof f->brief, "%s", brief);
    r->nfindings++;
    return 0;
}
