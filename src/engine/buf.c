/* The engine's growable arrays: samples, doubles, and what goes with them. */
#include <stdlib.h>

#include "engine.h"

int vn__push_sample(samples *s, vn_sample x)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        vn_sample *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return VN_ENOMEM;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = x;
    return 0;
}

int vn__push_double(dbuf *d, double x)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        double *v = realloc(d->v, cap * sizeof *v);
        if (!v)
            return VN_ENOMEM;
        d->v = v;
        d->cap = cap;
    }
    d->v[d->n++] = x;
    return 0;
}

void vn__auxes_free(struct auxes *a) { free(a->after.v), free(a->cpu_share.v); }

void vn__empties_free(empties *e)
{
    free(e->ns.v), free(e->cyc.v), free(e->branch.v), free(e->counts.v);
}

/* The last sample's counts (n of them) at the end of d. */
int vn__push_counts(dbuf *d, const struct vn__run *r)
{
    int rc = 0;
    for (size_t i = 0, n = vn_counters_n(r->ctr); i < n && rc == 0; i++)
        rc = vn__push_double(d, r->cur[i]);
    return rc;
}
