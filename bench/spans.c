/* What a chain of dependent adds gets from the CPU, second by second, read
 * four ways: spans of 1000 adds (about 250 ns, seldom met by an
 * interruption: the median of 2000), spans of 500000 adds (about 120 us,
 * which take their share of every interruption: the median of 40), and
 * the engine's reference probe, two spans of 10000 adds with the faster
 * kept, beside the median of five such spans; with the share of a 10 ms
 * spin of clock reads lost in gaps over 1 us (the CPU taken away: an
 * interrupt, the host). All in ns per 1000 adds, each the median of a
 * second's windows.
 *
 * Reference cycles (docs/engine.md, item 8) hold still when the clock
 * moves; this shows when the long spans move and the probe does not,
 * which is what cycles cannot cancel.
 *
 *     taskset -c 1 build/bench/bench_spans [seconds, default 60]
 */
#define _GNU_SOURCE /* CLOCK_MONOTONIC_RAW */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "now_ns.h"

#define SHORT 2000 /* spans of 1000 adds a window */
#define LONG 40    /* spans of 500000 adds a window */
#define PROBES 64  /* probes a window */
#define WINDOWS 256

static double now_ns(void) { return now_ns_of(CLOCK_MONOTONIC_RAW); }

/* The time of n blocks of 100 dependent adds, in ns. */
static double chain(long n)
{
    uint64_t x = 1;
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
#if defined(__x86_64__)
        __asm__ __volatile__(".rept 100\n\tadd %0, %0\n\t.endr" : "+r"(x));
#elif defined(__aarch64__)
        __asm__ __volatile__(".rept 100\n\tadd %0, %0, %0\n\t.endr" : "+r"(x));
#else
        x += x;
#endif
    }
    return now_ns() - t0;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp);
    return v[n / 2];
}

/* The share of a spin of ms milliseconds lost in gaps over 1 us. */
static double gaps(double ms)
{
    double start = now_ns(), a = start, lost = 0;
    while (a - start < ms * 1e6) {
        double b = now_ns();
        if (b - a > 1000)
            lost += b - a;
        a = b;
    }
    return lost / (a - start);
}

int main(int argc, char **argv)
{
#if !defined(__x86_64__) && !defined(__aarch64__)
    fprintf(stderr, "bench_spans: no chain of dependent adds for this CPU (x86-64, arm64 only)\n");
    return 0;
#endif
    double secs = argc > 1 ? atof(argv[1]) : 60;
    if (!(secs > 0)) {
        fprintf(stderr, "usage: bench_spans [seconds > 0]\n");
        return 2;
    }
    static double s[SHORT], l[LONG], w[WINDOWS][5];
    double t0 = now_ns(), last = t0;
    size_t n = 0;
    printf("%6s %7s %7s %7s %7s %7s\n", "s", "gaps%", "short", "long", "best2", "med5");
    while (now_ns() - t0 < secs * 1e9) {
        double lost = gaps(10);
        for (int i = 0; i < SHORT; i++)
            s[i] = chain(10);
        for (int i = 0; i < LONG; i++)
            l[i] = chain(5000) / 500;
        double best[PROBES], mid[PROBES], p[5];
        for (int i = 0; i < PROBES; i++) {
            for (int j = 0; j < 5; j++)
                p[j] = chain(100) / 10;
            best[i] = p[0] < p[1] ? p[0] : p[1];
            mid[i] = median(p, 5);
        }
        w[n][0] = lost;
        w[n][1] = median(s, SHORT);
        w[n][2] = median(l, LONG);
        w[n][3] = median(best, PROBES);
        w[n][4] = median(mid, PROBES);
        n++;
        if (now_ns() - last >= 1e9 || n == WINDOWS) {
            double col[WINDOWS], out[5];
            for (int c = 0; c < 5; c++) {
                for (size_t i = 0; i < n; i++)
                    col[i] = w[i][c];
                out[c] = median(col, n);
            }
            printf("%6.1f %6.2f%% %7.1f %7.1f %7.1f %7.1f\n", (now_ns() - t0) / 1e9, 100 * out[0],
                   out[1], out[2], out[3], out[4]);
            fflush(stdout);
            n = 0;
            last = now_ns();
        }
    }
    return 0;
}
