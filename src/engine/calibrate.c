/* Calibration: the number of iterations a sample runs. */
#include <stdio.h>

#include "engine.h"
#include "base/format.h"

/* The batch: double the iterations (GMPBench's method) until one sample
 * lasts at least 1000 x (timer cost + resolution), so the timer's error is
 * under 0.1% of it, and at least the minimum sample time. 1 when the
 * benchmark failed or its iterations do not run (j->run.error says which),
 * 2 when the run was stopped (Ctrl-C) meanwhile. */
int vn__calibrate(job *j, uint64_t *iters_out, double *threshold_out, double *cap_out)
{
    double threshold = 1000.0 * (j->cost_ns + j->res_ns);
    if (!(threshold >= j->cfg.min_sample_time * 1e9))
        threshold = j->cfg.min_sample_time * 1e9;
    /* A coarse timer (monotonic_coarse: 4 ms) would ask for 4 s samples;
     * the budget must still hold the minimum samples, and the timer_bound
     * warning then says the timer's error is more than 0.1%. */
    double cap = j->cfg.max_time * 1e9 / (double)(j->cfg.min_samples + 1);
    if (threshold > cap) {
        threshold = cap;
        /* Only when the timer's share is what the cap cut: a short budget
         * that merely shortens samples below the minimum sample time leaves
         * the timer's error as small as ever. */
        j->timer_capped = cap < 1000.0 * (j->cost_ns + j->res_ns);
    }
    /* A fixed count (vn_bench_opts.iterations) is run once here, so that a
     * function that fails or skips says so before warmup. */
    uint64_t fixed = j->b->opts.iterations, iters = fixed ? fixed : 1;
    double took[64]; /* by doubling: took[k] for 2^k iterations */
    for (int k = 0;; k++) {
        double ns;
        unsigned tags;
        /* Ctrl-C between calibration samples too: one iteration of some
         * benchmarks takes seconds. */
        if (vn__stopping(j))
            return 2;
        if (vn__run_sample(j, j->b->fn, 1, iters, &ns, &tags))
            return 1;
        took[k] = ns;
        /* With --cold only the first iteration finds the caches cold, so a
         * sample is one iteration whatever the timer's resolution. */
        if (fixed || j->cfg.cold || iters >= MAX_ITERS)
            break;
        /* A thousand times the iterations in under twice the time: they
         * do not run. The compiler removed the loop, or computed what it
         * does without running it. A real loop, even one that runs a
         * hundred iterations a nanosecond, takes about 0.17 ms for 2^24
         * of them, against the timer's tens of ns for 2^14; one with a
         * fixed cost in each sample under the threshold (0.25 ms by
         * default; a larger one reaches it before 2^24) sees that cost
         * more than doubled by the thousand-fold iterations unless each
         * takes under 0.015 ns. An interrupted sample could fake it, so
         * the fastest of three of each size decides. A timer too coarse
         * to see either (both read 0) leaves it to the second test: no
         * loop runs a thousand iterations a nanosecond, so that many for
         * each ns of the threshold that still fall short do not run
         * either. Doubling on would reach 2^40 iterations, and the empty
         * loop would take minutes to run that many. */
        int flat = 0;
        if (k >= FLAT_FROM && ns < 2 * took[k - 10]) {
            double small = took[k - 10], big = ns, x;
            for (int r = 0; r < 2; r++) {
                if (vn__run_sample(j, j->b->fn, 1, iters >> 10, &x, &tags))
                    return 1;
                small = fmin(small, x);
                if (vn__run_sample(j, j->b->fn, 1, iters, &x, &tags))
                    return 1;
                big = fmin(big, x);
            }
            flat = big < 2 * small;
        }
        if (flat || (k >= 10 && ns < threshold && (double)iters >= 1000 * threshold)) {
            char a[32], b[32];
            snprintf(j->run.error, sizeof j->run.error,
                     "%llu iterations took %s and %llu took %s: they do not run, so there is "
                     "nothing to time; the compiler removed the loop or computed its result "
                     "without it (make each iteration's result matter with vn_keep())",
                     (unsigned long long)iters, vn__fmt_ns(b, sizeof b, ns),
                     (unsigned long long)(iters >> 10), vn__fmt_ns(a, sizeof a, took[k - 10]));
            return 1;
        }
        /* The first sample to reach the threshold may be the first to touch
         * its memory, or meet cold caches: slower than the samples after
         * warmup, which would then fall short of it (here, sum_arrays' first
         * 256 iterations reached 1 ms and the later ones took 0.65 ms). A
         * second one at the same size must reach it too. */
        if (ns >= threshold) {
            /* Past the budget's share of a sample (one iteration of seconds,
             * say): no longer sample fits, so a second one could only make
             * the run later. */
            if (ns >= cap)
                break;
            if (vn__stopping(j))
                return 2;
            if (vn__run_sample(j, j->b->fn, 1, iters, &ns, &tags))
                return 1;
            if (ns >= threshold)
                break;
        }
        iters *= 2;
    }
    *iters_out = iters;
    *threshold_out = threshold;
    *cap_out = cap;
    return 0;
}
