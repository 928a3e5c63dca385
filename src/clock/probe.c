/* Timer characterization: read latency, observed resolution, backward steps
 * and the distribution of deltas between consecutive reads.
 *
 * Latency and resolution are different things: a clock can tick every
 * nanosecond and still cost 25 ns to read, and then two consecutive reads
 * never differ by less than ~25 ns. Both are measured, never assumed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probe_internal.h"
#include "arch.h"
#include "internal.h"
#include "clock/probe.h"
#include "stats/int.h"
#include "stats/internal.h"

/* ---- The delta distribution (pure) ----------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Turns a list of forward non-zero deltas into sorted bins. Sorts in place. */
static int bins_from_deltas(uint64_t *deltas, size_t n, vn_delta_dist *out)
{
    out->bins = NULL;
    out->nbins = 0;
    if (!n)
        return 0;
    qsort(deltas, n, sizeof *deltas, cmp_u64);
    size_t nb = 1;
    for (size_t i = 1; i < n; i++)
        nb += deltas[i] != deltas[i - 1];
    out->bins = malloc(nb * sizeof *out->bins);
    if (!out->bins)
        return VN_ENOMEM;
    size_t b = 0;
    out->bins[0].delta = deltas[0];
    out->bins[0].count = 1;
    for (size_t i = 1; i < n; i++) {
        if (deltas[i] == deltas[i - 1]) {
            out->bins[b].count++;
        } else {
            b++;
            out->bins[b].delta = deltas[i];
            out->bins[b].count = 1;
        }
    }
    out->nbins = nb;
    return 0;
}

int vn__delta_dist_from_reads(const uint64_t *reads, size_t n, vn_delta_dist *out)
{
    if (!out || (!reads && n) || n > SIZE_MAX / sizeof(uint64_t))
        return VN_EINVAL;
    memset(out, 0, sizeof *out);
    out->ns_per_unit = 1.0;
    if (n < 2)
        return 0;
    uint64_t *deltas = malloc((n - 1) * sizeof *deltas);
    if (!deltas)
        return VN_ENOMEM;
    size_t nd = 0;
    for (size_t i = 1; i < n; i++) {
        if (reads[i] == reads[i - 1]) {
            out->zero++;
        } else if (reads[i] < reads[i - 1]) {
            uint64_t back = reads[i - 1] - reads[i];
            out->backwards++;
            if (back > out->max_backwards)
                out->max_backwards = back;
        } else {
            deltas[nd++] = reads[i] - reads[i - 1];
        }
    }
    out->pairs = n - 1;
    int rc = bins_from_deltas(deltas, nd, out);
    free(deltas);
    return rc;
}

void vn_delta_dist_free(vn_delta_dist *d)
{
    if (!d)
        return;
    free(d->bins);
    d->bins = NULL;
    d->nbins = 0;
}

int vn__delta_dist_resolution(const vn_delta_dist *d, uint64_t *min, uint64_t *median)
{
    uint64_t total = 0;
    for (size_t i = 0; i < d->nbins; i++)
        total += d->bins[i].count;
    if (!total)
        return VN_ENOENT;
    /* The lower median: the smallest delta with at least half the steps at
     * or below it. */
    uint64_t half = (total + 1) / 2, seen = 0;
    uint64_t med = d->bins[d->nbins - 1].delta;
    for (size_t i = 0; i < d->nbins; i++) {
        seen += d->bins[i].count;
        if (seen >= half) {
            med = d->bins[i].delta;
            break;
        }
    }
    if (min)
        *min = d->bins[0].delta;
    if (median)
        *median = med;
    return 0;
}

/* ---- Reading a clock n times, inline where it matters ----------------------- */

/* The clocks whose reads are inlined, each with its read expression. One
 * loop per clock, so a counter read is not behind an indirect call whose
 * cost would be charged to the clock; every other clock goes through
 * vn_clock_read(), whose call is part of what using that clock costs. */
#define POSIX_CLOCKS(X)                                                   \
    X(VN_CLOCK_MONOTONIC, vn__posix_read(CLOCK_MONOTONIC))                \
    X(VN_CLOCK_MONOTONIC_RAW, vn__posix_read(CLOCK_MONOTONIC_RAW))        \
    X(VN_CLOCK_MONOTONIC_COARSE, vn__posix_read(CLOCK_MONOTONIC_COARSE))  \
    X(VN_CLOCK_REALTIME, vn__posix_read(CLOCK_REALTIME))                  \
    X(VN_CLOCK_BOOTTIME, vn__posix_read(CLOCK_BOOTTIME))                  \
    X(VN_CLOCK_PROCESS_CPUTIME, vn__posix_read(CLOCK_PROCESS_CPUTIME_ID)) \
    X(VN_CLOCK_THREAD_CPUTIME, vn__posix_read(CLOCK_THREAD_CPUTIME_ID))
#if defined(VN_HAVE_TSC)
#define INLINE_CLOCKS(X)                     \
    POSIX_CLOCKS(X)                          \
    X(VN_CLOCK_TSC, vn__rdtsc())             \
    X(VN_CLOCK_TSC_LFENCE, vn__rdtsc_lfence()) \
    X(VN_CLOCK_RDTSCP, vn__rdtscp_lfence())  \
    X(VN_CLOCK_TSC_CPUID, vn__cpuid_rdtsc())
#elif defined(VN_HAVE_CNTVCT)
#define INLINE_CLOCKS(X) POSIX_CLOCKS(X) X(VN_CLOCK_CNTVCT, vn__cntvct())
#else
#define INLINE_CLOCKS(X) POSIX_CLOCKS(X)
#endif

#define FILL_LOOP(expr)                     \
    do {                                    \
        for (size_t i_ = 0; i_ < n; i_++)   \
            out[i_] = (expr);               \
    } while (0)
#define FILL_CASE(id, expr) case id: FILL_LOOP(expr); break;

static void read_many(vn_clock_id id, uint64_t *out, size_t n)
{
    switch (id) {
    INLINE_CLOCKS(FILL_CASE)
    default: FILL_LOOP(vn_clock_read(id)); break;
    }
}

/* Eight reads per iteration, folded into a sum the compiler must compute,
 * so the loop's own cost is spread over eight reads. */
#define LAT_LOOP(expr)                                                      \
    do {                                                                    \
        for (size_t i_ = 0; i_ < iters; i_++) {                             \
            sink += (expr); sink += (expr); sink += (expr); sink += (expr); \
            sink += (expr); sink += (expr); sink += (expr); sink += (expr); \
        }                                                                   \
    } while (0)

#define LAT_CASE(id, expr) case id: LAT_LOOP(expr); break;


/* Time of iters x 8 reads, in ns of CLOCK_MONOTONIC_RAW. */
static uint64_t time_reads(vn_clock_id id, size_t iters)
{
    uint64_t sink = 0;
    uint64_t t0 = vn__posix_read(CLOCK_MONOTONIC_RAW);
    switch (id) {
    INLINE_CLOCKS(LAT_CASE)
    default: LAT_LOOP(vn_clock_read(id)); break;
    }
    uint64_t t1 = vn__posix_read(CLOCK_MONOTONIC_RAW);
    /* A volatile store of the sum keeps every read alive. */
    volatile uint64_t keep = sink;
    (void)keep;
    return t1 - t0;
}

#define MAX_BATCHES 256

/* The cost of one read: batches of reads long enough that the reference
 * clock's own cost at the edges is under 0.1%, repeated for budget_us; the
 * median batch is reported, so a preempted batch does not count. */
static double measure_latency(vn_clock_id id, unsigned budget_us)
{
    const uint64_t batch_ns = 50000; /* >= 1000 x the ~25 ns reference read */
    size_t iters = 4;
    uint64_t t;
    while ((t = time_reads(id, iters)) < batch_ns && iters < ((size_t)1 << 24))
        iters *= 2;
    double per[MAX_BATCHES];
    size_t nb = 0;
    per[nb++] = (double)t / (double)(iters * 8);
    uint64_t start = vn__posix_read(CLOCK_MONOTONIC_RAW);
    while (nb < MAX_BATCHES && (nb < 5 || vn__posix_read(CLOCK_MONOTONIC_RAW) - start <
                                              (uint64_t)budget_us * 1000u))
        per[nb++] = (double)time_reads(id, iters) / (double)(iters * 8);
    qsort(per, nb, sizeof *per, vn__cmp_double);
    return nb % 2 ? per[nb / 2] : (per[nb / 2 - 1] + per[nb / 2]) / 2.0;
}

/* ---- Probing one clock ------------------------------------------------------- */

#define CHUNK 256

int vn_probe_clock(vn_clock_id id, const vn_probe_opts *opts, vn_clock_probe *out)
{
    if (!out || !vn_clock_exists(id))
        return VN_EINVAL;
    vn_probe_opts o = {4000, 4000, (size_t)1 << 16};
    if (opts) {
        if (opts->latency_us)
            o.latency_us = opts->latency_us;
        if (opts->resolution_us)
            o.resolution_us = opts->resolution_us;
        if (opts->max_reads)
            o.max_reads = opts->max_reads;
    }
    memset(out, 0, sizeof *out);
    out->id = id;
    out->latency_ns = out->resolution_ns = out->resolution_median_ns = out->getres_ns = NAN;
    out->unit_ns = NAN;
    out->available = vn_clock_available(id);
    if (!out->available)
        return VN_ENOTSUP;
    double gr;
    if (vn_clock_getres_ns(id, &gr) == 0)
        out->getres_ns = gr;

    out->latency_ns = measure_latency(id, o.latency_us);

    /* Resolution: read back to back in chunks, keeping only the deltas that
     * are not zero, until the time is spent and enough steps were seen. A
     * coarse clock needs several of its ticks to show one; 50 ms caps it. */
    uint64_t min_ns = (uint64_t)o.resolution_us * 1000u;
    if (isfinite(out->getres_ns) && out->getres_ns * 4 > (double)min_ns)
        min_ns = (uint64_t)(out->getres_ns * 4);
    if (min_ns > 50000000u)
        min_ns = 50000000u;
    if (o.max_reads > VN_PROBE_MAX_READS)
        return VN_EINVAL;
    uint64_t *deltas = malloc(o.max_reads * sizeof *deltas);
    if (!deltas)
        return VN_ENOMEM;
    uint64_t chunk[CHUNK + 1];
    size_t nd = 0;
    vn_delta_dist d = {0};
    read_many(id, chunk, 1);
    uint64_t start = vn__posix_read(CLOCK_MONOTONIC_RAW);
    for (;;) {
        read_many(id, chunk + 1, CHUNK);
        for (size_t i = 1; i <= CHUNK; i++) {
            if (chunk[i] == chunk[i - 1])
                d.zero++;
            else if (chunk[i] < chunk[i - 1])
                d.backwards++;
            else if (nd < o.max_reads)
                deltas[nd++] = chunk[i] - chunk[i - 1];
        }
        d.pairs += CHUNK;
        chunk[0] = chunk[CHUNK];
        uint64_t el = vn__posix_read(CLOCK_MONOTONIC_RAW) - start;
        if (nd >= o.max_reads || el >= 2 * min_ns + 100000000u)
            break;
        if (el >= min_ns && nd >= 16)
            break;
    }
    out->reads = d.pairs + 1;
    out->backwards = d.backwards;
    int rc = bins_from_deltas(deltas, nd, &d);
    uint64_t unit;
    /* bins_from_deltas sorted them. */
    if (rc == 0 && vn__iunit_sorted(deltas, nd, &unit) == 0)
        out->unit_ns = vn_clock_delta_ns(id, unit);
    free(deltas);
    if (rc)
        return rc;
    uint64_t mn, med;
    if (vn__delta_dist_resolution(&d, &mn, &med) == 0) {
        out->resolution_ns = vn_clock_delta_ns(id, mn);
        out->resolution_median_ns = vn_clock_delta_ns(id, med);
    }

    vn_delta_dist_free(&d);
    return 0;
}

int vn_probe_distribution(vn_clock_id id, size_t n, vn_delta_dist *out)
{
    if (!out || n < 2 || n > VN_PROBE_MAX_READS || !vn_clock_exists(id))
        return VN_EINVAL;
    memset(out, 0, sizeof *out);
    if (!vn_clock_available(id))
        return VN_ENOTSUP;
    uint64_t *reads = malloc(n * sizeof *reads);
    if (!reads)
        return VN_ENOMEM;
    read_many(id, reads, n);
    int rc = vn__delta_dist_from_reads(reads, n, out);
    free(reads);
    out->ns_per_unit = vn_clock_delta_ns(id, 1000000000u) / 1e9;
    return rc;
}
