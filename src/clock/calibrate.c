/* The counter's rate, measured against CLOCK_MONOTONIC_RAW.
 *
 * Each end of the interval is a counter read bracketed by two reference
 * reads; the narrowest of several brackets is kept, so a preemption in one
 * attempt does not widen the error. Over 20 ms with brackets of ~100 ns the
 * bound is ~10 ppm, far inside the 0.05% a sample needs. */
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "arch.h"
#include "internal.h"
#include "vernier/base.h"

#define BRACKET_TRIES 16
#define DEFAULT_US 20000u

int vn__calibration_from_points(uint64_t ra0, uint64_t c0, uint64_t ra1,
                                uint64_t rb0, uint64_t c1, uint64_t rb1,
                                double *hz, double *error_ppm)
{
    if (ra1 < ra0 || rb1 < rb0 || rb0 <= ra1 || c1 <= c0)
        return VN_EINVAL;
    /* The counter read happened somewhere inside each bracket; take the
     * middles, and half of each width as the uncertainty of that end. */
    double mid0 = (double)ra0 + (double)(ra1 - ra0) / 2.0;
    double mid1 = (double)rb0 + (double)(rb1 - rb0) / 2.0;
    double span = mid1 - mid0;
    double half_widths = (double)(ra1 - ra0) / 2.0 + (double)(rb1 - rb0) / 2.0;
    *hz = (double)(c1 - c0) * 1e9 / span;
    *error_ppm = half_widths / span * 1e6;
    return 0;
}

#ifdef VN_HAVE_COUNTER
static void bracket(uint64_t *r0, uint64_t *c, uint64_t *r1)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < BRACKET_TRIES; i++) {
        uint64_t a = vn__posix_read(CLOCK_MONOTONIC_RAW);
        uint64_t x = vn__counter_ordered();
        uint64_t b = vn__posix_read(CLOCK_MONOTONIC_RAW);
        if (b >= a && b - a < best) {
            best = b - a;
            *r0 = a;
            *c = x;
            *r1 = b;
        }
    }
}

int vn_counter_calibrate(unsigned duration_us, vn_calibration *out)
{
    if (!out)
        return VN_EINVAL;
    if (vn__tsc_facts()->present != 1)
        return VN_ENOTSUP;
    if (!duration_us)
        duration_us = DEFAULT_US;
    uint64_t start = vn__posix_read(CLOCK_MONOTONIC_RAW);
    uint64_t ra0 = 0, c0 = 0, ra1 = 0, rb0 = 0, c1 = 0, rb1 = 0;
    bracket(&ra0, &c0, &ra1);
    /* Sleeping is fine: an invariant counter ticks on in idle states, and a
     * non-invariant one is reported as such anyway. */
    struct timespec ts = {duration_us / 1000000u, (long)(duration_us % 1000000u) * 1000};
    while (nanosleep(&ts, &ts) != 0)
        ;
    bracket(&rb0, &c1, &rb1);
    vn_calibration c;
    int rc = vn__calibration_from_points(ra0, c0, ra1, rb0, c1, rb1, &c.hz, &c.error_ppm);
    if (rc)
        return rc;
    c.duration_ns = (double)(vn__posix_read(CLOCK_MONOTONIC_RAW) - start);
    *out = c;
    return 0;
}
#else
int vn_counter_calibrate(unsigned duration_us, vn_calibration *out)
{
    (void)duration_us;
    (void)out;
    return VN_ENOTSUP;
}
#endif

static pthread_once_t calib_once = PTHREAD_ONCE_INIT;
static vn_calibration calib;
static int calib_ok;

/* A calibration whose brackets were all widened by preemption (or by the
 * hypervisor) is repeated, with a longer interval, up to three times; the
 * best one is kept. 500 ppm is the 0.05% a sample can afford. */
static void calib_init(void)
{
    unsigned us = DEFAULT_US;
    for (int attempt = 0; attempt < 4; attempt++, us *= 2) {
        vn_calibration c;
        if (vn_counter_calibrate(us, &c) != 0)
            continue;
        if (!calib_ok || c.error_ppm < calib.error_ppm) {
            calib = c;
            calib_ok = 1;
        }
        if (calib.error_ppm <= 50)
            break;
    }
    if (calib_ok && calib.error_ppm > 500)
        calib_ok = 0;
}

/* A worker process takes the calibration of the program that started it:
 * one measured rate for every process of a run, not one each. */
static vn_calibration preset;
static int have_preset;

void vn__counter_calibration_preset(const vn_calibration *c)
{
    preset = *c;
    have_preset = 1;
}

const vn_calibration *vn_counter_calibration(void)
{
    if (have_preset)
        return &preset;
    pthread_once(&calib_once, calib_init);
    return calib_ok ? &calib : NULL;
}

/* 64x64 -> 128-bit product, shifted right by 32 with rounding to nearest,
 * saturating. */
static uint64_t mul_shift32(uint64_t a, uint64_t b)
{
#ifdef __SIZEOF_INT128__
    unsigned __int128 p = (unsigned __int128)a * b + (1u << 31);
    p >>= 32;
    return p >> 64 ? UINT64_MAX : (uint64_t)p;
#else
    uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    ll += 1u << 31; /* cannot overflow: al * bl <= (2^32 - 1)^2 */
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    uint64_t lo = (mid << 32) | (ll & 0xffffffffu);
    if (hi >> 32)
        return UINT64_MAX;
    return (hi << 32) | (lo >> 32);
#endif
}

int vn_tickconv_init(vn_tickconv *c, double hz)
{
    if (!c || !(hz >= 1e3 && hz <= 1e11))
        return VN_EINVAL;
    c->hz = hz;
    c->mult = (uint64_t)llround(4294967296.0 * 1e9 / hz);
    return 0;
}

uint64_t vn_ticks_to_ns(const vn_tickconv *c, uint64_t ticks) { return mul_shift32(ticks, c->mult); }
