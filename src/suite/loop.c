/* loop: an empty counted loop of 10^2 to 10^9 iterations, each sample one
 * call timed whole between two reads of CLOCK_MONOTONIC, nothing taken off.
 * Short loops show the clock's floor and the call's own cost; long ones the
 * cost of an iteration. The fit of time against count (the suite's
 * summary) separates the two: a line, not guesswork. */
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

int vn__suite_loop(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
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
