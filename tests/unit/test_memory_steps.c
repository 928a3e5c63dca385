/* vn__mem_steps on synthetic latency curves: clean and noisy steps, a
 * level missing, no steps at all, two and four levels, with and without
 * the machine's cache sizes; and the finding's line. The noise comes from
 * a generator seeded here, so every run tests the same curves. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "suite/memory_steps.h"

#define K 1024.0
#define M (1024.0 * 1024)

static uint64_t seed;

/* splitmix64, as uniform on [-1, 1). */
static double jitter(void)
{
    uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-52 - 1;
}

/* A curve over 4 KiB .. hi in steps of x2: each level holds its latency up
 * to its size, the point after it is halfway (in log) to the next level,
 * and beyond the last size the last latency holds, rising slowly (as DRAM
 * does with TLB misses). noise: the relative spread of each point. */
typedef struct curve {
    double size[32], ns[32];
    size_t n;
} curve;

static curve make(const double *lat, const double *reach, size_t nlev, double hi, double noise)
{
    curve c = {.n = 0};
    for (double s = 4 * K; s <= hi; s *= 2) {
        size_t l = 0;
        while (l + 1 < nlev && s > reach[l])
            l++;
        double v = lat[l];
        /* The first size past a level's reach: half in it, half in the next. */
        if (l > 0 && s / 2 <= reach[l - 1])
            v = sqrt(lat[l - 1] * lat[l]);
        if (l == nlev - 1 && l > 0 && s > 4 * reach[l - 1])
            v *= 1 + 0.04 * log2(s / (4 * reach[l - 1]));
        c.size[c.n] = s;
        c.ns[c.n] = v * (1 + noise * jitter());
        c.n++;
    }
    return c;
}

static const long long caches3[] = {32 * 1024, 512 * 1024, 16 * 1024 * 1024};

static void assert_level(const vn__mem_level *l, const char *name, double ns, double to)
{
    assert_string_equal(l->name, name);
    assert_true(fabs(l->ns / ns - 1) < 0.15);
    if (to > 0)
        assert_true(l->to == to);
}

static void clean_steps_are_named_after_the_caches(void **s)
{
    (void)s;
    const double lat[] = {1.2, 3.6, 12, 90}, reach[] = {32 * K, 512 * K, 16 * M};
    curve c = make(lat, reach, 4, 512 * M, 0);
    vn__mem_level lv[VN__MEM_MAX_LEVELS];
    size_t n = vn__mem_steps(c.size, c.ns, c.n, caches3, 3, lv, VN__MEM_MAX_LEVELS);
    assert_int_equal(n, 4);
    assert_level(&lv[0], "L1", 1.2, 32 * K);
    assert_level(&lv[1], "L2", 3.6, 512 * K);
    assert_level(&lv[2], "L3", 12, 16 * M);
    assert_string_equal(lv[3].name, "DRAM");
    assert_true(lv[3].ns > 80 && lv[3].ns < 130);
    assert_true(lv[0].from == 4 * K && lv[0].cache == 32 * 1024 && lv[2].cache == 16 * 1024 * 1024);
    assert_true(lv[3].cache == 0);
}

static void noisy_steps_give_the_same_levels(void **s)
{
    (void)s;
    const double lat[] = {1.2, 3.6, 12, 90}, reach[] = {32 * K, 512 * K, 16 * M};
    seed = 42;
    for (int run = 0; run < 50; run++) {
        curve c = make(lat, reach, 4, 512 * M, 0.1);
        vn__mem_level lv[VN__MEM_MAX_LEVELS];
        size_t n = vn__mem_steps(c.size, c.ns, c.n, caches3, 3, lv, VN__MEM_MAX_LEVELS);
        assert_int_equal(n, 4);
        const char *names[] = {"L1", "L2", "L3", "DRAM"};
        for (size_t i = 0; i < 4; i++) {
            assert_string_equal(lv[i].name, names[i]);
            assert_true(fabs(lv[i].ns / lat[i] - 1) < 0.35);
        }
        /* Each cache's reach to within one step of the sweep. */
        for (size_t i = 0; i < 3; i++)
            assert_true(lv[i].to >= reach[i] / 2 && lv[i].to <= reach[i] * 2);
    }
}

static void a_missing_level_is_left_out_not_renamed(void **s)
{
    (void)s;
    /* A machine with two cache levels: the third plateau is memory. */
    const long long caches2[] = {32 * 1024, 2 * 1024 * 1024};
    const double lat[] = {1.5, 6, 110}, reach[] = {32 * K, 2 * M};
    curve c = make(lat, reach, 3, 256 * M, 0);
    vn__mem_level lv[VN__MEM_MAX_LEVELS];
    size_t n = vn__mem_steps(c.size, c.ns, c.n, caches2, 2, lv, VN__MEM_MAX_LEVELS);
    assert_int_equal(n, 3);
    assert_level(&lv[0], "L1", 1.5, 32 * K);
    assert_level(&lv[1], "L2", 6, 2 * M);
    assert_string_equal(lv[2].name, "DRAM");
    /* Three caches reported, but the curve shows no L2 step: L1, then L3. */
    const double lat2[] = {1.2, 12, 90}, reach2[] = {32 * K, 16 * M};
    c = make(lat2, reach2, 3, 512 * M, 0);
    n = vn__mem_steps(c.size, c.ns, c.n, caches3, 3, lv, VN__MEM_MAX_LEVELS);
    assert_int_equal(n, 3);
    assert_level(&lv[0], "L1", 1.2, 32 * K);
    assert_level(&lv[1], "L3", 12, 16 * M);
    assert_string_equal(lv[2].name, "DRAM");
}

static void a_flat_curve_is_one_level(void **s)
{
    (void)s;
    const double lat[] = {1.1}, reach[] = {1e30};
    seed = 7;
    curve c = make(lat, reach, 1, 64 * K, 0.05);
    vn__mem_level lv[VN__MEM_MAX_LEVELS];
    size_t n = vn__mem_steps(c.size, c.ns, c.n, caches3, 3, lv, VN__MEM_MAX_LEVELS);
    assert_int_equal(n, 1);
    assert_level(&lv[0], "L1", 1.1, 64 * K);
    assert_true(lv[0].from == 4 * K);
    /* Without cache sizes too. */
    n = vn__mem_steps(c.size, c.ns, c.n, NULL, 0, lv, VN__MEM_MAX_LEVELS);
    assert_int_equal(n, 1);
    assert_string_equal(lv[0].name, "L1");
}

static void two_and_four_levels_without_cache_sizes(void **s)
{
    (void)s;
    const double lat2[] = {1.0, 80}, reach2[] = {64 * K};
    curve c = make(lat2, reach2, 2, 64 * M, 0);
    vn__mem_level lv[VN__MEM_MAX_LEVELS];
    size_t n = vn__mem_steps(c.size, c.ns, c.n, NULL, 0, lv, VN__MEM_MAX_LEVELS);
    assert_int_equal(n, 2);
    assert_level(&lv[0], "L1", 1.0, 64 * K);
    assert_string_equal(lv[1].name, "DRAM");
    /* Two levels near each other in latency: named in order, no DRAM. */
    const double near[] = {1.0, 4.0};
    c = make(near, reach2, 2, 1 * M, 0);
    n = vn__mem_steps(c.size, c.ns, c.n, NULL, 0, lv, VN__MEM_MAX_LEVELS);
    assert_int_equal(n, 2);
    assert_string_equal(lv[1].name, "L2");
    /* Four levels. */
    const double lat4[] = {1.0, 4.0, 14, 100}, reach4[] = {48 * K, 1 * M, 32 * M};
    c = make(lat4, reach4, 4, 1024 * M, 0);
    n = vn__mem_steps(c.size, c.ns, c.n, NULL, 0, lv, VN__MEM_MAX_LEVELS);
    assert_int_equal(n, 4);
    assert_level(&lv[0], "L1", 1.0, 32 * K); /* 48K is not on the x2 sweep */
    assert_level(&lv[1], "L2", 4.0, 1 * M);
    assert_level(&lv[2], "L3", 14, 32 * M);
    assert_string_equal(lv[3].name, "DRAM");
}

static void a_step_within_a_level_stays_in_it(void **s)
{
    (void)s;
    /* L3 whose latency steps by 1.3x at 4M (the TLB's reach): still L3,
     * named once, where it is fastest. */
    double size[18], ns[18];
    size_t n = 0;
    for (double z = 4 * K; z <= 512 * M; z *= 2, n++) {
        size[n] = z;
        ns[n] = z <= 32 * K ? 1.2 : z <= 512 * K ? 3.6 : z <= 4 * M ? 11 : z <= 16 * M ? 15 : 95;
    }
    vn__mem_level lv[VN__MEM_MAX_LEVELS];
    size_t nl = vn__mem_steps(size, ns, n, caches3, 3, lv, VN__MEM_MAX_LEVELS);
    assert_int_equal(nl, 4);
    assert_string_equal(lv[2].name, "L3");
    assert_true(lv[2].ns >= 11 && lv[2].ns <= 15);
    assert_string_equal(lv[3].name, "DRAM");
}

/* The sizes of a --quick sweep: x4 steps. */
static const double quick[] = {4 * K, 16 * K, 64 * K, 256 * K, 1 * M, 4 * M, 16 * M};

static void a_quick_sweep_in_steps_of_four(void **s)
{
    (void)s;
    const double ns[] = {1.2, 1.25, 3.7, 3.9, 12, 13, 60};
    vn__mem_level lv[VN__MEM_MAX_LEVELS];
    size_t n = vn__mem_steps(quick, ns, 7, caches3, 3, lv, VN__MEM_MAX_LEVELS);
    assert_int_equal(n, 4);
    assert_level(&lv[0], "L1", 1.2, 16 * K);
    assert_level(&lv[1], "L2", 3.8, 256 * K);
    assert_level(&lv[2], "L3", 12.5, 4 * M);
    /* The last point alone, at the sweep's end, is where the next level
     * begins: a buffer the L3's size no longer fits in it. */
    assert_string_equal(lv[3].name, "DRAM");
    assert_true(lv[3].from == 16 * M && lv[3].ns == 60);
}

static void lone_points_near_each_other_are_a_level(void **s)
{
    (void)s;
    /* A real quick run: 1M and 4M are 1.4x apart, each a segment of its
     * own, yet together the L3 plateau, not two transitions. */
    const double ns[] = {1.19, 1.19, 2.91, 3.55, 10.7, 14.9, 91.4};
    vn__mem_level lv[VN__MEM_MAX_LEVELS];
    size_t n = vn__mem_steps(quick, ns, 7, caches3, 3, lv, VN__MEM_MAX_LEVELS);
    assert_int_equal(n, 4);
    assert_level(&lv[2], "L3", 12.8, 4 * M);
    assert_true(lv[2].from == 1 * M);
    assert_level(&lv[3], "DRAM", 91.4, 16 * M);
}

static void bad_points_and_small_inputs(void **s)
{
    (void)s;
    vn__mem_level lv[VN__MEM_MAX_LEVELS];
    assert_int_equal(vn__mem_steps(NULL, NULL, 0, NULL, 0, lv, VN__MEM_MAX_LEVELS), 0);
    const double size[] = {4 * K, 8 * K, NAN, 16 * K, -1}, ns[] = {1.0, NAN, 5.0, 1.1, 2.0};
    size_t n = vn__mem_steps(size, ns, 5, caches3, 3, lv, VN__MEM_MAX_LEVELS);
    assert_int_equal(n, 1);
    assert_true(lv[0].from == 4 * K && lv[0].to == 16 * K);
    /* Out of order is the same curve. */
    const double rs[] = {16 * K, 4 * K, 8 * K}, rn[] = {1.1, 1.0, 1.05};
    n = vn__mem_steps(rs, rn, 3, NULL, 0, lv, 1);
    assert_int_equal(n, 1);
    assert_true(lv[0].from == 4 * K && lv[0].to == 16 * K);
}

/* Checks that line gives each of items, in this order. */
static void in_order(const char *line, const char *const *items, size_t n)
{
    const char *at = line;
    for (size_t i = 0; i < n; i++) {
        const char *next = strstr(at, items[i]);
        if (!next)
            fail_msg("'%s' lacks '%s' after '%s'", line, items[i], at);
        at = next + strlen(items[i]);
    }
}

static void the_brief_fits_on_a_line(void **s)
{
    (void)s;
    const double lat[] = {1.2, 3.6, 12, 90}, reach[] = {32 * K, 512 * K, 16 * M};
    curve c = make(lat, reach, 4, 512 * M, 0);
    vn__mem_level lv[VN__MEM_MAX_LEVELS];
    size_t n = vn__mem_steps(c.size, c.ns, c.n, caches3, 3, lv, VN__MEM_MAX_LEVELS);
    char b[128];
    vn__mem_steps_brief(lv, n, caches3, 3, b, sizeof b);
    assert_true(strlen(b) <= 100);
    /* Each level with its latency and the size it reaches, DRAM last, then
     * the caches the machine reports. */
    static const char *const parts[] = {"L1 1.2 ns", "32K",  "L2 3.6 ns", "512K",        "L3 12 ns",
                                        "16M",       "DRAM",      "32K/512K/16M"};
    in_order(b, parts, sizeof parts / sizeof parts[0]);
    assert_null(strstr(b, "e+"));
    /* Many levels with long names: shorter, still one line. */
    vn__mem_level many[VN__MEM_MAX_LEVELS];
    for (size_t i = 0; i < VN__MEM_MAX_LEVELS; i++)
        many[i] = (vn__mem_level){"L9", 123.456, 1000, 1000 + (double)i, 0};
    const long long odd[] = {1000, 2000, 3000, 4000, 5000};
    vn__mem_steps_brief(many, VN__MEM_MAX_LEVELS, odd, 5, b, sizeof b);
    assert_true(strlen(b) <= 100 && !strncmp(b, "memory: L9 123 ns", 17));
}

static void sizes_in_short(void **s)
{
    (void)s;
    char b[16];
    vn__mem_fmt_size(32 * K, b, sizeof b);
    assert_string_equal(b, "32K");
    vn__mem_fmt_size(16 * M, b, sizeof b);
    assert_string_equal(b, "16M");
    vn__mem_fmt_size(1024 * M, b, sizeof b);
    assert_string_equal(b, "1G");
    vn__mem_fmt_size(1536 * K, b, sizeof b);
    assert_string_equal(b, "1536K");
    vn__mem_fmt_size(100, b, sizeof b);
    assert_string_equal(b, "100");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clean_steps_are_named_after_the_caches),
        cmocka_unit_test(noisy_steps_give_the_same_levels),
        cmocka_unit_test(a_missing_level_is_left_out_not_renamed),
        cmocka_unit_test(a_flat_curve_is_one_level),
        cmocka_unit_test(two_and_four_levels_without_cache_sizes),
        cmocka_unit_test(a_step_within_a_level_stays_in_it),
        cmocka_unit_test(a_quick_sweep_in_steps_of_four),
        cmocka_unit_test(lone_points_near_each_other_are_a_level),
        cmocka_unit_test(bad_points_and_small_inputs),
        cmocka_unit_test(the_brief_fits_on_a_line),
        cmocka_unit_test(sizes_in_short),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
