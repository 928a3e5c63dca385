/* How well vn_modes_sorted finds modes: the share of planted two-normal
 * mixtures it calls multimodal (detection), and the share of normal and
 * lognormal samples it calls multimodal (false alarms), over many trials.
 * bench/modes.sh runs it; the tables are Markdown, for bench/RESULTS.md.
 *
 * usage: bench_modes [TRIALS [CV]]   (defaults 200 and 0.04)
 *
 * The mixtures are normals with means 100 and 100 (1 + sep), each with a
 * standard deviation of CV times its own mean, as timings spread in
 * proportion to their size. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "stats/stats_api.h"

static uint64_t state = 12345;

/* splitmix64: the samples' own generator, apart from the test's. */
static double unif(void)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) * 0x1p-53;
}

static double normal(void)
{
    return sqrt(-2 * log(unif())) * cos(6.283185307179586 * unif());
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Fills x with n values of the given kind and returns the modes found. */
enum kind { MIX, NORMAL, LOGNORMAL };

static size_t modes(enum kind kind, double a, double b, double cv, size_t n, double *x,
                    double *secs)
{
    for (size_t i = 0; i < n; i++) {
        if (kind == MIX) {
            double mu = unif() < a ? 100 : 100 * (1 + b);
            x[i] = mu + cv * mu * normal();
        } else if (kind == NORMAL) {
            x[i] = 100 + cv * 100 * normal();
        } else {
            x[i] = 100 * exp(a * normal());
        }
    }
    qsort(x, n, sizeof *x, cmp);
    vn_modes m;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (vn_modes_sorted(x, n, &m)) {
        fprintf(stderr, "bench_modes: vn_modes_sorted failed\n");
        exit(1);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *secs += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return m.count;
}

static const size_t sizes[] = {50, 100, 200, 400, 1000, 4000};
#define NSIZES (sizeof sizes / sizeof sizes[0])

int main(int argc, char **argv)
{
    int trials = argc > 1 ? atoi(argv[1]) : 200;
    double cv = argc > 2 ? atof(argv[2]) : 0.04;
    if (trials < 1 || !(cv > 0)) {
        fprintf(stderr, "usage: bench_modes [TRIALS [CV]]\n");
        return 2;
    }
    double *x = malloc(4000 * sizeof *x);
    if (!x)
        return 1;
    double secs[NSIZES] = {0};
    size_t calls[NSIZES] = {0};

    printf("Detection: share of %d trials with 2 or more modes found; normals %.0f%% CV each\n\n",
           trials, cv * 100);
    printf("| apart | mix   |");
    for (size_t k = 0; k < NSIZES; k++)
        printf(" n=%-4zu |", sizes[k]);
    printf("\n|-------|-------|");
    for (size_t k = 0; k < NSIZES; k++)
        printf("--------|");
    printf("\n");
    const double seps[] = {0.10, 0.20, 0.30}, mixes[] = {0.50, 0.75, 0.90};
    for (size_t si = 0; si < 3; si++)
        for (size_t mi = 0; mi < 3; mi++) {
            printf("| %3.0f%%  | %2.0f/%-2.0f |", seps[si] * 100, mixes[mi] * 100,
                   100 - mixes[mi] * 100);
            for (size_t k = 0; k < NSIZES; k++) {
                int hit = 0;
                for (int t = 0; t < trials; t++) {
                    hit += modes(MIX, mixes[mi], seps[si], cv, sizes[k], x, &secs[k]) >= 2;
                    calls[k]++;
                }
                printf(" %5.1f%% |", 100.0 * hit / trials);
            }
            printf("\n");
            fflush(stdout);
        }

    printf("\nFalse alarms: share of %d trials with 2 or more modes found\n\n", trials);
    printf("| data                  |");
    for (size_t k = 0; k < NSIZES; k++)
        printf(" n=%-4zu |", sizes[k]);
    printf("\n|-----------------------|");
    for (size_t k = 0; k < NSIZES; k++)
        printf("--------|");
    printf("\n");
    const struct {
        enum kind kind;
        double a;
        const char *name;
    } nulls[] = {{NORMAL, 0, "normal"},
                 {LOGNORMAL, 0.1, "lognormal sigma 0.1"},
                 {LOGNORMAL, 0.25, "lognormal sigma 0.25"},
                 {LOGNORMAL, 0.5, "lognormal sigma 0.5"},
                 {LOGNORMAL, 1.0, "lognormal sigma 1"}};
    for (size_t d = 0; d < sizeof nulls / sizeof nulls[0]; d++) {
        printf("| %-21s |", nulls[d].name);
        for (size_t k = 0; k < NSIZES; k++) {
            int hit = 0;
            for (int t = 0; t < trials; t++) {
                hit += modes(nulls[d].kind, nulls[d].a, 0, cv, sizes[k], x, &secs[k]) >= 2;
                calls[k]++;
            }
            printf(" %5.1f%% |", 100.0 * hit / trials);
        }
        printf("\n");
        fflush(stdout);
    }

    printf("\nTime per call (mean over all the samples above):\n\n");
    for (size_t k = 0; k < NSIZES; k++)
        printf("  n=%-5zu %7.3f ms\n", sizes[k], 1e3 * secs[k] / (double)calls[k]);
    free(x);
    return 0;
}
