/* The bytes between a benchmark program and its worker processes
 * (engine/wire.h). Every number is written in this machine's own byte
 * order: both ends are the same program on the same machine. */
#include <stdlib.h>
#include <string.h>

#include "wire.h"

#define PLAN_MAGIC 0x31504e56u   /* "VNP1" */
#define PART_MAGIC 0x31524e56u   /* "VNR1" */
#define END_MAGIC 0x31454e56u    /* "VNE1" */
#define WIRE_VERSION 2u
/* A worker's answer holds at most this many samples or counts per row: a
 * length past it is no answer (and would overflow what is allocated). */
#define WIRE_MAX_ITEMS (1u << 28)

static int put(vn_buf *b, const void *p, size_t n) { return vn_buf_append(b, p, n); }
static int put_u32(vn_buf *b, uint32_t v) { return put(b, &v, sizeof v); }
static int put_u64(vn_buf *b, uint64_t v) { return put(b, &v, sizeof v); }
static int put_f64(vn_buf *b, double v) { return put(b, &v, sizeof v); }
static int put_str(vn_buf *b, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    int rc = put_u32(b, n);
    return rc ? rc : put(b, s, n);
}
static int put_doubles(vn_buf *b, const double *v, size_t n)
{
    int rc = put_u64(b, n);
    return rc || !n ? rc : put(b, v, n * sizeof *v);
}

/* A reader over bytes that fails, and stays failed, past their end. */
typedef struct rd {
    const unsigned char *p;
    size_t len, at;
    int bad;
} rd;

static void get(rd *r, void *out, size_t n)
{
    if (r->bad || n > r->len - r->at) {
        r->bad = 1;
        memset(out, 0, n);
        return;
    }
    memcpy(out, r->p + r->at, n);
    r->at += n;
}
static uint32_t get_u32(rd *r) { uint32_t v; get(r, &v, sizeof v); return v; }
static uint64_t get_u64(rd *r) { uint64_t v; get(r, &v, sizeof v); return v; }
static double get_f64(rd *r) { double v; get(r, &v, sizeof v); return v; }
static void get_str(rd *r, char *out, size_t n)
{
    uint32_t len = get_u32(r);
    if (r->bad || len >= n || len > r->len - r->at) {
        r->bad = 1;
        out[0] = '\0';
        return;
    }
    memcpy(out, r->p + r->at, len);
    out[len] = '\0';
    r->at += len;
}
/* n doubles into a fresh dbuf. */
static void get_doubles(rd *r, dbuf *d)
{
    uint64_t n = get_u64(r);
    if (r->bad || n > WIRE_MAX_ITEMS || n * sizeof(double) > r->len - r->at) {
        r->bad = 1;
        return;
    }
    d->v = malloc((n ? n : 1) * sizeof *d->v);
    if (!d->v) {
        r->bad = 2;
        return;
    }
    get(r, d->v, n * sizeof *d->v);
    d->n = d->cap = n;
}

int vn__wire_plan_write(const vn__wire_plan *p, vn_buf *out)
{
    int rc = put_u32(out, PLAN_MAGIC);
    rc = rc ? rc : put_u32(out, WIRE_VERSION);
    rc = rc ? rc : put_u32(out, (uint32_t)sizeof(vn_sample));
    rc = rc ? rc : put_u32(out, p->process);
    rc = rc ? rc : put_u64(out, p->seed);
    rc = rc ? rc : put_u32(out, (uint32_t)p->timer);
    rc = rc ? rc : put_f64(out, p->timer_cost_ns);
    rc = rc ? rc : put_f64(out, p->timer_resolution_ns);
    rc = rc ? rc : put_f64(out, p->counter_hz);
    rc = rc ? rc : put_f64(out, p->counter_error_ppm);
    rc = rc ? rc : put_u64(out, p->nrows);
    for (size_t i = 0; i < p->nrows && rc == 0; i++) {
        const vn__wire_row *w = &p->rows[i];
        rc = put_str(out, w->name);
        rc = rc ? rc : put_u64(out, w->iters);
        rc = rc ? rc : put_u64(out, w->samples);
        rc = rc ? rc : put_f64(out, w->share_ns);
        rc = rc ? rc : put_f64(out, w->settle_tol);
    }
    return rc;
}

int vn__wire_plan_read(const void *data, size_t len, vn__wire_plan *p)
{
    rd r = {data, len, 0, 0};
    memset(p, 0, sizeof *p);
    if (get_u32(&r) != PLAN_MAGIC || get_u32(&r) != WIRE_VERSION ||
        get_u32(&r) != (uint32_t)sizeof(vn_sample))
        return VN_EINVAL;
    p->process = get_u32(&r);
    p->seed = get_u64(&r);
    p->timer = (int32_t)get_u32(&r);
    p->timer_cost_ns = get_f64(&r);
    p->timer_resolution_ns = get_f64(&r);
    p->counter_hz = get_f64(&r);
    p->counter_error_ppm = get_f64(&r);
    uint64_t n = get_u64(&r);
    if (r.bad || n > 1000000 || n * 36 > len)
        return VN_EINVAL;
    p->rows = calloc(n ? n : 1, sizeof *p->rows);
    if (!p->rows)
        return VN_ENOMEM;
    p->nrows = n;
    for (size_t i = 0; i < n && !r.bad; i++) {
        vn__wire_row *w = &p->rows[i];
        get_str(&r, w->name, sizeof w->name);
        w->iters = get_u64(&r);
        w->samples = get_u64(&r);
        w->share_ns = get_f64(&r);
        w->settle_tol = get_f64(&r);
    }
    if (r.bad || r.at != len) {
        free(p->rows);
        p->rows = NULL;
        p->nrows = 0;
        return VN_EINVAL;
    }
    return 0;
}

int vn__wire_part_write(uint32_t index, const vn__part *q, size_t nctr, vn_buf *out)
{
    int rc = put_u32(out, PART_MAGIC);
    rc = rc ? rc : put_u32(out, index);
    rc = rc ? rc : put_u32(out, (uint32_t)q->state);
    rc = rc ? rc : put_u32(out, (uint32_t)q->stop);
    rc = rc ? rc : put_u32(out, (uint32_t)q->skipped);
    rc = rc ? rc : put_str(out, q->error);
    rc = rc ? rc : put_u64(out, q->iters);
    const double f[] = {q->thr, q->efloor, q->floor_ns, q->elapsed_ns, q->setup_ns, q->bytes,
                        q->items};
    for (size_t i = 0; i < sizeof f / sizeof f[0] && rc == 0; i++)
        rc = put_f64(out, f[i]);
    rc = rc ? rc : put_u32(out, (uint32_t)q->timer_capped);
    rc = rc ? rc : put_u32(out, (uint32_t)q->waited);
    rc = rc ? rc : put_u64(out, nctr);
    rc = rc ? rc : put_u64(out, q->S.n);
    for (size_t i = 0; i < q->S.n && rc == 0; i++) {
        const vn_sample *s = &q->S.v[i];
        rc = put_f64(out, s->value);
        rc = rc ? rc : put_u64(out, s->iters);
        rc = rc ? rc : put_u32(out, s->tags);
        rc = rc ? rc : put_f64(out, s->ref_ns);
        rc = rc ? rc : put_u32(out, (uint32_t)s->thread);
        rc = rc ? rc : put_u32(out, s->counts_scaled);
        rc = rc ? rc : put_f64(out, s->branch_cycles);
        rc = rc ? rc : put_f64(out, s->cpu_ns);
    }
    rc = rc ? rc : put_doubles(out, q->cpu_share.v, q->cpu_share.n);
    rc = rc ? rc : put_doubles(out, q->counts.v, q->counts.n);
    rc = rc ? rc : put_doubles(out, q->E.ns.v, q->E.ns.n);
    rc = rc ? rc : put_doubles(out, q->E.cyc.v, q->E.cyc.n);
    rc = rc ? rc : put_doubles(out, q->E.branch.v, q->E.branch.n);
    rc = rc ? rc : put_doubles(out, q->E.counts.v, q->E.counts.n);
    return rc;
}

int vn__wire_end_write(vn_buf *out) { return put_u32(out, END_MAGIC); }

int vn__wire_part_read(const void *data, size_t len, size_t *pos, uint32_t *index, vn__part *q,
                       size_t *nctr)
{
    rd r = {data, len, *pos, 0};
    memset(q, 0, sizeof *q);
    uint32_t magic = get_u32(&r);
    if (!r.bad && magic == END_MAGIC) {
        *pos = r.at;
        return 1;
    }
    if (r.bad || magic != PART_MAGIC)
        return VN_EINVAL;
    *index = get_u32(&r);
    q->state = (int)get_u32(&r);
    q->stop = (vn_stop)get_u32(&r);
    q->skipped = (int)get_u32(&r);
    get_str(&r, q->error, sizeof q->error);
    q->iters = get_u64(&r);
    double *f[] = {&q->thr, &q->efloor, &q->floor_ns, &q->elapsed_ns, &q->setup_ns, &q->bytes,
                   &q->items};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        *f[i] = get_f64(&r);
    q->timer_capped = (int)get_u32(&r);
    q->waited = (int)get_u32(&r);
    uint64_t nc = get_u64(&r), n = get_u64(&r);
    if (r.bad || nc > VN_COUNTERS_MAX || n > WIRE_MAX_ITEMS || n * 44 > len - r.at)
        return VN_EINVAL;
    q->S.v = calloc(n ? n : 1, sizeof *q->S.v);
    if (!q->S.v)
        return VN_ENOMEM;
    q->S.n = q->S.cap = n;
    for (size_t i = 0; i < n && !r.bad; i++) {
        vn_sample *s = &q->S.v[i];
        s->value = get_f64(&r);
        s->iters = get_u64(&r);
        s->tags = get_u32(&r);
        s->ref_ns = get_f64(&r);
        s->thread = (int)get_u32(&r);
        s->counts_scaled = get_u32(&r);
        s->branch_cycles = get_f64(&r);
        s->cpu_ns = get_f64(&r);
    }
    get_doubles(&r, &q->cpu_share);
    get_doubles(&r, &q->counts);
    get_doubles(&r, &q->E.ns);
    get_doubles(&r, &q->E.cyc);
    get_doubles(&r, &q->E.branch);
    get_doubles(&r, &q->E.counts);
    /* Each array as long as its samples say, or the answer is no answer. */
    size_t ne = q->E.ns.n;
    if (!r.bad && (q->cpu_share.n != n || q->counts.n != n * nc || q->E.cyc.n != ne ||
                   q->E.branch.n != ne || q->E.counts.n != ne * nc))
        r.bad = 1;
    if (r.bad) {
        int rc = r.bad == 2 ? VN_ENOMEM : VN_EINVAL;
        vn__part_free(q);
        return rc;
    }
    *nctr = nc;
    *pos = r.at;
    return 0;
}
