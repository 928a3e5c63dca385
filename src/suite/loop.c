/* loop: an empty counted loop of 10^2 to 10^9 iterations, each sample one
 * call timed whole between two reads of CLOCK_MONOTONIC, nothing taken off.
 * Short loops show the clock's floor and the call's own cost; long ones the
 * cost of an iteration. The fit of time against count (the suite's
 * summary) separates the two: a line, not guesswork. */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "suite/suite.h"

/* Not inlined, so every sample pays one real call, as code that calls a
 * loop does; the empty asm makes each iteration happen (no closed form). */
__attribute__((noinline)) static void count_to(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        __asm__ __volatile__("" : "+r"(i));
}

static void loop_body(vn_state *st)
{
    uint64_t n = (uint64_t)vn_state_param(st);
    vn_state_set_items(st, (double)n); /* iterations of the loop a second */
    struct timespec a, b;
    while (vn_next(st)) {
        clock_gettime(CLOCK_MONOTONIC, &a);
        count_to(n);
        clock_gettime(CLOCK_MONOTONIC, &b);
        vn_state_set_time(st, (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec));
    }
}

/* The line time = fixed + n x per-iteration through the medians, each
 * weighted by 1 / time^2 so that the short loops, where the fixed cost
 * shows, count as much as the long ones; and from which count on the fixed
 * cost is under 1% of a loop's time. */
static int loop_fit(vn_results *r, const vn__suite_ctx *ctx)
{
    (void)ctx;
    double n[16], t[16], w[16], a, b, r2;
    size_t k = vn__suite_sweep(r, "loop", n, t, 16);
    for (size_t i = 0; i < k; i++)
        w[i] = 1 / (t[i] * t[i]);
    if (k < 3 || vn_fit_line(n, t, w, k, &a, &b, &r2) != 0)
        return 0;
    double from = b > 0 ? 99 * fabs(a) / b : NAN;
    char brief[128], why[512];
    snprintf(brief, sizeof brief, "loop: %.3g ns an iteration, %.3g ns fixed (fit of %zu counts, r2 %.4f)%s",
             b, a, k, r2, r2 < 0.99 ? "; no line fits well" : "");
    snprintf(why, sizeof why,
             "A least-squares line through the medians of the loop rows, time = fixed + count x "
             "per-iteration, each weighted by 1/time^2. The fixed part is the clock's two reads and "
             "the call: from about %.3g iterations on it is under 1%% of a loop's time, and the "
             "time per iteration is the loop's own. r2 is the share of the variance the line "
             "explains; under 0.99, the cost per iteration changed with the count (caches, "
             "frequency) and the line describes none of them well.",
             from);
    return vn_results_add_finding(r, "loop.fit", brief, why);
}

int vn__suite_loop(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    int rc = vn__suite_summarize(ctx, loop_fit);
    if (rc)
        return rc;
    static const int64_t all[] = {100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};
    vn_bench_opts o;
    vn_bench_opts_init(&o);
    o.iterations = 1; /* one call a sample: the loop is the unit */
    o.manual_time = 1; /* whole, the clock's floor and the call included */
    o.param_name = "n";
    o.param_values = all;
    /* Quick: to 10^7, a few ms a call. */
    o.param_count = ctx->quick ? 6 : sizeof all / sizeof all[0];
    return vn_suite_add(s, name, loop_body, &o);
}
