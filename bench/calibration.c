/* How good is the counter's calibration? Thirty default (20 ms) calibrations
 * are compared with one long reference calibration; prints the spread in ppm
 * and how long each took. Run by bench/clocks.sh. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "clock/clock_api.h"
#include "vernier.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    unsigned ref_us = argc > 1 ? (unsigned)atoi(argv[1]) : 2000000u;
    enum { N = 30 };
    vn_calibration ref;
    if (vn_counter_calibrate(ref_us, &ref) != 0) {
        fprintf(stderr, "calibration: no CPU counter on this machine\n");
        return 77;
    }
    double dev[N], ms[N], bound[N];
    for (int i = 0; i < N; i++) {
        vn_calibration c;
        if (vn_counter_calibrate(0, &c) != 0)
            return 1;
        dev[i] = fabs(c.hz - ref.hz) / ref.hz * 1e6;
        ms[i] = c.duration_ns / 1e6;
        bound[i] = c.error_ppm;
    }
    qsort(dev, N, sizeof *dev, cmp);
    qsort(ms, N, sizeof *ms, cmp);
    qsort(bound, N, sizeof *bound, cmp);
    printf("reference      %.3f MHz over %.0f ms (+-%.2f ppm)\n", ref.hz / 1e6, ref.duration_ns / 1e6,
           ref.error_ppm);
    printf("%d calibrations of the default length:\n", N);
    printf("  deviation from reference  median %.2f ppm, max %.2f ppm (goal: < 500 ppm = 0.05%%)\n",
           dev[N / 2], dev[N - 1]);
    printf("  stated error bound        median %.2f ppm, max %.2f ppm\n", bound[N / 2], bound[N - 1]);
    printf("  duration                  median %.1f ms, max %.1f ms (goal: well under 100 ms)\n",
           ms[N / 2], ms[N - 1]);
    return dev[N - 1] < 500 && ms[N - 1] < 100 ? 0 : 1;
}
