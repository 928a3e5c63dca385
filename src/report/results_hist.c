/* The distribution of each benchmark's samples as a text histogram, net of
 * the loop overhead like the headline numbers, so the two views agree; for
 * an upper bound, of the loop with the body, as its statistics are. */
#include <math.h>
#include <stdlib.h>

#include "base/format.h"
#include "results.h"

static int one(const vn_result *res, unsigned flags, vn_buf *b, int first)
{
    int color = (flags & VN_REPORT_COLOR) != 0;
    char name[sizeof res->name], why[sizeof res->error];
    int err = vn_buf_printf(b, "%s%s%s%s", first ? "" : "\n", color ? "\033[1m" : "",
                            vn__fmt_printable(name, sizeof name, res->name), color ? "\033[0m" : "");
    if (err)
        return err;
    if (res->error[0])
        return vn_buf_printf(b, ": %s: %s\n", res->stop == VN_STOP_SKIPPED ? "skipped" : "failed",
                             vn__fmt_printable(why, sizeof why, res->error));

    /* Without a measured overhead the samples are shown as measured, which
     * is also what the headline statistics then hold. */
    int net = isfinite(res->overhead_ns) && !res->upper_bound;
    size_t n = 0;
    double *x = malloc((res->nsamples ? res->nsamples : 1) * sizeof *x);
    if (!x)
        return VN_ENOMEM;
    /* The samples of the headline: those without a tag it leaves out. */
    for (size_t i = 0; i < res->nsamples; i++)
        if (!(res->samples[i].tags & res->left_out))
            x[n++] = res->samples[i].value - (net ? res->overhead_ns : 0);

    char oh[32];
    err = vn_buf_printf(b, ": %zu samples%s, ns per iteration", n,
                        res->upper_bound ? " of the loop with the body" : "");
    if (!err && net)
        err = vn_buf_printf(b, " net of %s overhead", vn__fmt_ns(oh, sizeof oh, res->overhead_ns));
    if (!err && n < res->nsamples)
        err = vn_buf_printf(b, " (%zu tagged left out)", res->nsamples - n);
    if (!err && res->upper_bound) {
        char bound[32];
        err = vn_buf_printf(b, "; the body cannot be told apart from the empty loop: < %s",
                            vn__fmt_ns_bound(bound, sizeof bound, res->bound_ns));
    }
    if (!err)
        err = vn_buf_puts(b, "\n");
    if (!err && n)
        err = vn_report_histogram_text(x, n, "ns", flags, b);
    else if (!err)
        err = vn_buf_puts(b, "  no samples\n");
    free(x);
    return err;
}

int vn_report_results_hist(const vn_results *r, unsigned flags, vn_buf *b)
{
    if (!b)
        return VN_EINVAL;
    int bad = vn__results_check(r);
    if (bad)
        return bad;
    for (size_t i = 0; i < r->nbench; i++) {
        int err = one(vn_results_at(r, i), flags, b, i == 0);
        if (err)
            return err;
    }
    return 0;
}
