/* The distribution of each benchmark's samples as a text histogram, net of
 * the loop overhead like the headline numbers, so the two views agree; for
 * an upper bound, of the loop with the body, as its statistics are. Every
 * row is read through vernier/results.h. */
#include <math.h>
#include <stdlib.h>

#include "base/format.h"
#include "results.h"

static int one(const vn_result *res, unsigned flags, vn_buf *b, int first)
{
    int color = (flags & VN_REPORT_COLOR) != 0;
    char name[VN__CELL], why[VN__CELL];
    int err = vn_buf_printf(b, "%s%s%s%s", first ? "" : "\n", color ? "\033[1m" : "",
                            vn__fmt_printable(name, sizeof name, vn_result_name(res)),
                            color ? "\033[0m" : "");
    if (err)
        return err;
    if (vn_result_error(res)[0])
        return vn_buf_printf(b, ": %s: %s\n",
                             vn_result_stop(res) == VN_STOP_SKIPPED ? "skipped" : "failed",
                             vn__fmt_printable(why, sizeof why, vn_result_error(res)));

    /* Without a measured overhead the samples are shown as measured, which
     * is also what the headline statistics then hold. */
    double overhead = vn_result_figure(res, VN_OVERHEAD), bound = vn_result_figure(res, VN_BOUND);
    int is_bound = !isnan(bound);
    int net = isfinite(overhead) && !is_bound;
    unsigned left_out = (unsigned)vn_result_figure(res, VN_LEFT_OUT);
    size_t all = vn_result_samples(res), n = 0;
    double *x = malloc((all ? all : 1) * sizeof *x);
    if (!x)
        return VN_ENOMEM;
    /* The samples of the headline: those without a tag it leaves out. */
    for (size_t i = 0; i < all; i++) {
        const vn_sample *s = vn_result_sample(res, i);
        if (s && !(s->tags & left_out))
            x[n++] = s->value - (net ? overhead : 0);
    }

    char oh[32];
    err = vn_buf_printf(b, ": %zu samples%s, ns per iteration", n,
                        is_bound ? " of the loop with the body" : "");
    if (!err && net)
        err = vn_buf_printf(b, " net of %s overhead", vn__fmt_ns(oh, sizeof oh, overhead));
    if (!err && n < all)
        err = vn_buf_printf(b, " (%zu tagged left out)", all - n);
    if (!err && is_bound) {
        char cut[32];
        err = vn_buf_printf(b, "; the body cannot be told apart from the empty loop: < %s",
                            vn__fmt_ns_bound(cut, sizeof cut, bound));
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
    for (size_t i = 0; i < vn_results_count(r); i++) {
        int err = one(vn_results_at(r, i), flags, b, i == 0);
        if (err)
            return err;
    }
    return 0;
}
