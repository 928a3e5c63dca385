/* Two ways to sum two arrays: two separate loops, and one merged loop.
 * Which is faster, by how much, and how sure can we be? This program builds
 * its suite at run time and runs it with every option of a benchmark
 * program (vn_suite_main); `--baseline two_loops` answers the question:
 *
 *     merged_loop is 1.85x faster than two_loops (1.83x-1.86x, 95%, 5 processes)
 *
 * from the ratio of the two in each of the processes that measured both. */
#include <stdio.h>
#include <stdlib.h>

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
    /* Every option of a benchmark program (--hist, --json FILE,
     * --baseline two_loops, ...), the same reports. */
    int rc = vn_suite_main(s, argc, argv, NULL);
    vn_suite_destroy(s);
    return rc;
}
