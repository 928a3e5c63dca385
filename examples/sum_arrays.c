/* Two ways to sum two arrays: two separate loops, and one merged loop.
 * Which is faster, by how much, and how sure can we be? This program uses
 * the programmatic API to run both, then compares them. */
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
    int hist = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--hist")) {
            hist = 1;
        } else {
            fprintf(stderr, "usage: %s [--hist]\n", argv[0]);
            return 2;
        }
    }
    vn_suite *s = vn_suite_create();
    vn_bench_opts o = {0};
    o.setup = setup;
    o.teardown = teardown;
    o.bytes_per_iter = 2.0 * N * sizeof(int);
    if (!s || vn_suite_add(s, "two_loops", two_loops, &o) || vn_suite_add(s, "merged_loop", merged_loop, &o)) {
        fprintf(stderr, "sum_arrays: cannot set up the suite\n");
        return 1;
    }
    vn_config cfg;
    vn_config_init(&cfg);
    vn_results r;
    int rc = vn_suite_run(s, &cfg, &r);
    vn_suite_destroy(s);
    if (rc) {
        fprintf(stderr, "sum_arrays: %s\n", vn_strerror(rc));
        return 1;
    }
    vn_buf b;
    vn_buf_init(&b, 0);
    vn_report_results_text(&r, 0, &b);
    if (hist)
        vn_report_results_hist(&r, 0, &b);
    fwrite(b.data, 1, b.len, stdout);
    vn_buf_free(&b);

    const vn_stats *two = &r.bench[0].stats, *one = &r.bench[1].stats;
    int failed = r.bench[0].error[0] || r.bench[1].error[0];
    if (!failed) {
        const vn_stats *fast = one->median <= two->median ? one : two;
        const vn_stats *slow = fast == one ? two : one;
        /* The ratio's extremes from the two medians' 95% intervals: a
         * conservative range, since each interval alone covers 95%. */
        double ratio = slow->median / fast->median;
        double lo = slow->median_ci[0] / fast->median_ci[1];
        double hi = slow->median_ci[1] / fast->median_ci[0];
        printf("\n%s is %.2fx faster than %s (between %.2fx and %.2fx from the medians' 95%% CIs)%s\n",
               fast == one ? "merged_loop" : "two_loops", ratio,
               fast == one ? "two_loops" : "merged_loop", lo, hi,
               lo > 1 ? "" : "; the difference is not significant");
        /* The two headlines leave out different samples when one of them
         * had too few from moments the core was its own (its shared_core
         * warning says so): then they describe different machines. */
        if (r.bench[0].left_out != r.bench[1].left_out)
            printf("but the two were not measured alike: one headline keeps samples the other "
                   "leaves out (see the shared_core and interference warnings); run it again\n");
    }
    vn_results_free(&r);
    return failed;
}
