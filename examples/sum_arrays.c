/* Two ways to sum two arrays: two separate loops, and one merged loop.
 * Which is faster, by how much, and how sure can we be? This program builds
 * its suite at run time, runs it with every option of a benchmark program
 * (vn_suite_main), then compares the two from the results. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vernier.h>

#define N (1 << 14) /* 2 x 64 KiB: more than L1, well inside L2 */

static int sum_of_two_arrays(const int *a, const int *b, int size)
{
    int sum1 = 0, sum2 = 0;
    for (int i = 0; i < size; i++)
        sum1 += a[i];
    for (int i = 0; i < size; i++)
        sum2 += b[i];
    return sum1 + sum2;
}

static int sum_of_two_arrays_merged(const int *a, const int *b, int size)
{
    int sum = 0;
    for (int i = 0; i < size; i++)
        sum += a[i] + b[i];
    return sum;
}

static void setup(vn_state *st)
{
    int *a = malloc(2 * N * sizeof *a);
    if (!a) {
        vn_state_fail(st, "out of memory");
        return;
    }
    vn_rng rng;
    vn_rng_seed(&rng, 7);
    for (int i = 0; i < 2 * N; i++)
        a[i] = (int)vn_rng_below(&rng, 1000);
    vn_state_set_data(st, a);
}

static void teardown(vn_state *st) { free(vn_state_data(st)); }

static void two_loops(vn_state *st)
{
    const int *a = vn_state_data(st);
    while (vn_next(st))
        vn_keep(sum_of_two_arrays(a, a + N, N));
}

static void merged_loop(vn_state *st)
{
    const int *a = vn_state_data(st);
    while (vn_next(st))
        vn_keep(sum_of_two_arrays_merged(a, a + N, N));
}

int main(int argc, char **argv)
{
    vn_suite *s = vn_suite_create();
    vn_bench_opts o = {0};
    o.setup = setup;
    o.teardown = teardown;
    o.bytes_per_iter = 2.0 * N * sizeof(int);
    if (!s || vn_suite_add(s, "two_loops", two_loops, &o) || vn_suite_add(s, "merged_loop", merged_loop, &o)) {
        fprintf(stderr, "sum_arrays: cannot set up the suite\n");
        vn_suite_destroy(s);
        return 1;
    }
    /* Every option of a benchmark program (--hist, --json FILE, ...), the
     * same reports; then the results are ours, to compare the two. */
    vn_results r;
    int rc = vn_suite_main(s, argc, argv, &r);
    vn_suite_destroy(s);
    /* The rows through vn_results_at(), which steps by the library's size
     * of a row: it holds if the library is newer than this program. */
    const vn_result *two = NULL, *one = NULL;
    for (size_t i = 0; i < r.nbench; i++) {
        const vn_result *x = vn_results_at(&r, i);
        if (!strcmp(x->name, "two_loops"))
            two = x;
        else if (!strcmp(x->name, "merged_loop"))
            one = x;
    }
    /* Both measured, neither a bound: the medians and their intervals. */
    if (two && one && !two->error[0] && !one->error[0] && two->stats.n && one->stats.n &&
        !two->upper_bound && !one->upper_bound) {
        const vn_stats *t = &two->stats, *m = &one->stats;
        const vn_stats *fast = m->median <= t->median ? m : t;
        const vn_stats *slow = fast == m ? t : m;
        /* The ratio's extremes from the two medians' 95% intervals: a
         * conservative range, since each interval alone covers 95%. */
        double ratio = slow->median / fast->median;
        double lo = slow->median_ci[0] / fast->median_ci[1];
        double hi = slow->median_ci[1] / fast->median_ci[0];
        /* The comparison goes where the table went: stderr when stdout
         * carries a result file. */
        FILE *out = stdout;
        for (int i = 1; i < argc; i++)
            if (!strcmp(argv[i], "-"))
                out = stderr;
        fprintf(out, "\n%s is %.2fx faster than %s (%.2fx to %.2fx from the medians' 95%% CIs)%s\n",
                fast == m ? "merged_loop" : "two_loops", ratio, fast == m ? "two_loops" : "merged_loop",
                lo, hi, lo > 1 ? "" : ": not significant");
        /* The two headlines leave out different samples when one of them
         * had too few from moments the core was its own (its shared_core
         * warning says so): then they describe different machines. */
        if (two->left_out != one->left_out)
            fprintf(out, "but one headline keeps samples the other leaves out (see the H and I "
                         "lines): run it again\n");
    }
    vn_results_free(&r);
    return rc;
}
