/* The one decision of a row (engine/decide.c), driven with synthetic rows:
 * no clock, no machine. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/decide.h"
#include "stats/internal.h"
#include "stats/levels.h"
#include "main/all.h"

#define MAXN 400

static vn_sample row[MAXN];
static size_t nrow;

/* Appends n samples of value ns (spread evenly over +-spread around it),
 * each with tags and reference ref (ns a cycle) and a probe reading. */
static void add(size_t n, double ns, double spread, unsigned tags, double ref)
{
    for (size_t i = 0; i < n && nrow < MAXN; i++) {
        double f = n > 1 ? (double)i / (double)(n - 1) * 2 - 1 : 0;
        vn_sample s;
        memset(&s, 0, sizeof s);
        s.value = ns + spread * f;
        s.iters = 1000;
        s.tags = tags;
        s.ref_ns = ref;
        s.branch_cycles = 1;
        row[nrow++] = s;
    }
}

static vn__policy policy(void)
{
    vn_config c;
    vn_config_init(&c);
    vn__policy p;
    assert_int_equal(vn__policy_init(&p, &c), 0);
    return p;
}

/* A view of the row with the same empty loop (median om, interval
 * [olo, ohi], from n samples) for both kinds of moments, at a stop test
 * after one at which the precision held. */
static vn__row_view view(double om, double olo, double ohi, size_t n)
{
    vn__empty_view e = {om, olo, ohi, n};
    vn__row_view v = {.v = row, .n = nrow, .empty = {e, e}, .floor_ns = 1e-6, .probed = 1,
                      .streak = 1};
    return v;
}

static vn__decision decide(const vn__row_view *v, const vn__policy *p)
{
    vn__decision d;
    assert_int_equal(vn__decide(v, p, &d), 0);
    return d;
}

static int setup(void **state)
{
    (void)state;
    nrow = 0;
    return 0;
}

static void a_steady_body_is_a_precise_median_net_of_the_loop(void **state)
{
    (void)state;
    vn__policy p = policy();
    add(20, 10, 0.01, 0, 0.3);
    vn__row_view v = view(1, 0.99, 1.01, 10);
    vn__decision d = decide(&v, &p);
    assert_int_equal(d.head, VN__HEAD_MEDIAN);
    assert_true(fabs(d.value - 9) < 1e-9);
    assert_true(d.lo <= d.value && d.value <= d.hi && d.hi - d.lo < 0.03);
    assert_true(d.precise);
    assert_int_equal(d.verdict, VN__STOP_PRECISE);
    assert_int_equal(d.used, 20);
    assert_true(d.half_pct < 1);
}

static void the_precision_must_hold_at_two_looks_in_a_row(void **state)
{
    (void)state;
    vn__policy p = policy();
    add(20, 10, 0.01, 0, 0.3);
    vn__row_view v = view(1, 0.99, 1.01, 10);
    v.streak = 0;
    vn__decision d = decide(&v, &p);
    assert_true(d.precise);
    assert_int_equal(d.verdict, VN__GO_ON);
    v.streak = 1;
    assert_int_equal(decide(&v, &p).verdict, VN__STOP_PRECISE);
    /* One look is enough when the policy says so. */
    p.confirm = 1;
    v.streak = 0;
    assert_int_equal(decide(&v, &p).verdict, VN__STOP_PRECISE);
}

static void the_net_interval_carries_the_empty_loops_uncertainty(void **state)
{
    (void)state;
    vn__policy p = policy();
    add(40, 10, 0.01, 0, 0.3);
    vn__row_view v = view(1, 1, 1, 10);
    vn__decision sure = decide(&v, &p);
    v = view(1, 0.8, 1.2, 10);
    vn__decision unsure = decide(&v, &p);
    assert_true(fabs(sure.value - unsure.value) < 1e-12);
    /* Both halves widen by the empty loop's: +-0.2 in quadrature. */
    double h0 = sure.hi - sure.value, h1 = unsure.hi - unsure.value;
    assert_true(fabs(h1 - hypot(h0, 0.2)) < 1e-9);
    assert_true(unsure.value - unsure.lo > 0.2);
    assert_false(unsure.precise);
    /* And so does the interval in cycles, by the same in cycles (0.3 ns
     * a cycle). */
    double c0 = sure.cycles_hi - sure.cycles, c1 = unsure.cycles_hi - unsure.cycles;
    assert_true(fabs(sure.cycles - 9 / 0.3) < 1e-9);
    assert_true(fabs(c1 - hypot(c0, 0.2 / 0.3)) < 1e-9);
    assert_true(fabs((unsure.cycles - unsure.cycles_lo) -
                     hypot(sure.cycles - sure.cycles_lo, 0.2 / 0.3)) < 1e-9);
}

static void no_stop_before_the_minimum_samples(void **state)
{
    (void)state;
    vn__policy p = policy();
    p.min_samples = 30;
    add(20, 10, 0.01, 0, 0.3);
    vn__row_view v = view(1, 0.99, 1.01, 10);
    vn__decision d = decide(&v, &p);
    assert_true(d.precise);
    assert_int_equal(d.verdict, VN__GO_ON);
}

static void a_noisy_body_goes_on_until_a_limit(void **state)
{
    (void)state;
    vn__policy p = policy();
    add(30, 10, 3, 0, 0.3);
    vn__row_view v = view(1, 0.99, 1.01, 10);
    vn__decision d = decide(&v, &p);
    assert_int_equal(d.head, VN__HEAD_MEDIAN);
    assert_false(d.precise);
    assert_true(d.half_pct > 1);
    assert_int_equal(d.verdict, VN__GO_ON);
    v.elapsed_ns = p.budget_ns;
    assert_int_equal(decide(&v, &p).verdict, VN__STOP_MAX_TIME);
    p.max_samples = 30;
    assert_int_equal(decide(&v, &p).verdict, VN__STOP_MAX_SAMPLES);
    /* A looser precision is met by the same samples. */
    p = policy();
    p.precision = 0.5;
    v.elapsed_ns = 0;
    assert_int_equal(decide(&v, &p).verdict, VN__STOP_PRECISE);
}

static void a_body_like_the_empty_loop_is_bounded_by_its_fastest_sample(void **state)
{
    (void)state;
    vn__policy p = policy();
    /* The loop with the body overlaps the empty loop's interval; no
     * reference, so no cycle. */
    add(20, 1.02, 0.02, 0, NAN);
    vn__row_view v = view(1, 0.98, 1.02, 10);
    vn__decision d = decide(&v, &p);
    assert_int_equal(d.head, VN__HEAD_FASTEST);
    assert_true(fabs(d.value - 1.0) < 1e-9);
    assert_true(isnan(d.lo) && isnan(d.hi));
    /* Reproduced: five samples within 1% of the fastest. */
    assert_true(d.agree >= 5 && d.precise);
    /* The timer's floor bounds it from below. */
    v.floor_ns = 1.5;
    assert_true(fabs(decide(&v, &p).value - 1.5) < 1e-9);
}

static void a_fastest_sample_alone_is_not_reproduced(void **state)
{
    (void)state;
    vn__policy p = policy();
    add(1, 0.9, 0, 0, NAN);
    add(19, 1.1, 0.05, 0, NAN);
    vn__row_view v = view(1, 0.98, 1.2, 10);
    vn__decision d = decide(&v, &p);
    assert_int_equal(d.head, VN__HEAD_FASTEST);
    assert_int_equal(d.agree, 1);
    assert_false(d.precise);
}

static void under_half_the_empty_loop_is_code_placement(void **state)
{
    (void)state;
    vn__policy p = policy();
    /* Apart from the empty loop's interval, but 0.4 over a loop of 1. */
    add(20, 1.4, 0.01, 0, NAN);
    vn__row_view v = view(1, 0.99, 1.01, 10);
    assert_int_equal(decide(&v, &p).head, VN__HEAD_FASTEST);
    nrow = 0;
    add(20, 1.6, 0.01, 0, NAN);
    v = view(1, 0.99, 1.01, 10);
    assert_int_equal(decide(&v, &p).head, VN__HEAD_MEDIAN);
}

static void a_body_under_a_cycle_is_bounded_by_its_fastest_sample(void **state)
{
    (void)state;
    vn__policy p = policy();
    /* The body adds at most 0.1 ns to a loop of 1.0, a third of a cycle
     * of 0.3 ns: still the fastest sample bounds it, not the cycle. */
    add(20, 1.05, 0.05, 0, 0.3);
    vn__row_view v = view(1.02, 1.0, 1.06, 10);
    vn__decision d = decide(&v, &p);
    assert_int_equal(d.head, VN__HEAD_FASTEST);
    assert_true(fabs(d.value - 1.0) < 1e-12);
    assert_true(isnan(d.lo) && isnan(d.hi));
    /* A bound under what the timer can show is the timer's floor. */
    v.floor_ns = 1.2;
    assert_true(fabs(decide(&v, &p).value - 1.2) < 1e-12);
}

static void too_few_samples_have_no_interval(void **state)
{
    (void)state;
    vn__policy p = policy();
    add(5, 10, 0, 0, 0.3);
    vn__row_view v = view(1, 0.99, 1.01, 10);
    vn__decision d = decide(&v, &p);
    assert_int_equal(d.head, VN__HEAD_MEDIAN);
    assert_false(d.precise);
    p.min_samples = 5;
    p.max_samples = 5;
    assert_int_equal(decide(&v, &p).verdict, VN__STOP_MAX_SAMPLES);
}

static void preempted_samples_leave_while_enough_stay(void **state)
{
    (void)state;
    vn__policy p = policy();
    add(20, 10, 0.01, 0, 0.3);
    add(5, 50, 0, VN_TAG_PREEMPTED, 0.3);
    vn__row_view v = view(1, 0.99, 1.01, 10);
    vn__decision d = decide(&v, &p);
    assert_true(d.skip & VN_TAG_PREEMPTED);
    assert_int_equal(d.used, 20);
    assert_true(fabs(d.value - 9) < 1e-9);
    assert_int_equal(d.verdict, VN__STOP_PRECISE);
    /* Precise on 8 samples, the other 4 preempted: the minimum of 10 counts
     * the samples the headline rests on, so sampling goes on, to the budget
     * at the most, where the result is precise all the same. */
    nrow = 0;
    add(8, 10, 0.01, 0, 0.3);
    add(4, 50, 0, VN_TAG_PREEMPTED, 0.3);
    v = view(1, 0.99, 1.01, 10);
    d = decide(&v, &p);
    assert_int_equal(d.used, 8);
    assert_true(d.precise);
    assert_int_equal(d.verdict, VN__GO_ON);
    v.elapsed_ns = p.budget_ns;
    d = decide(&v, &p);
    assert_int_equal(d.verdict, VN__STOP_MAX_TIME);
    assert_true(d.precise);
    /* With fewer untagged samples than half the minimum, all count. */
    nrow = 0;
    add(4, 10, 0.01, 0, 0.3);
    add(16, 50, 0, VN_TAG_MIGRATED, 0.3);
    v = view(1, 0.99, 1.01, 10);
    d = decide(&v, &p);
    assert_int_equal(d.skip, 0);
    assert_int_equal(d.used, 20);
}

static void shared_samples_as_fast_as_quiet_ones_count(void **state)
{
    (void)state;
    vn__policy p = policy();
    add(20, 10, 0.01, 0, 0.3);
    add(20, 10.05, 0.01, VN_TAG_SHARED_CORE, 0.3);
    vn__row_view v = view(1, 0.99, 1.01, 10);
    vn__decision d = decide(&v, &p);
    assert_false(d.skip & VN_TAG_SHARED_CORE);
    assert_int_equal(d.used, 40);
    assert_false(d.waiting);
    assert_int_equal(d.verdict, VN__STOP_PRECISE);
}

static void shared_samples_slower_beyond_the_precision_leave(void **state)
{
    (void)state;
    vn__policy p = policy();
    add(20, 10, 0.01, 0, 0.3);
    add(20, 12, 0.01, VN_TAG_SHARED_CORE, 0.3);
    vn__row_view v = view(1, 0.99, 1.01, 10);
    vn__decision d = decide(&v, &p);
    assert_true(d.skip & VN_TAG_SHARED_CORE);
    assert_int_equal(d.used, 20);
    assert_true(fabs(d.value - 9) < 1e-9);
    assert_true(d.quiet);
    assert_int_equal(d.verdict, VN__STOP_PRECISE);
}

static void a_few_faster_quiet_samples_make_it_wait(void **state)
{
    (void)state;
    vn__policy p = policy();
    add(2, 10, 0.01, 0, 0.3);
    add(30, 12, 0.01, VN_TAG_SHARED_CORE, 0.3);
    vn__row_view v = view(1, 0.99, 1.01, 10);
    vn__decision d = decide(&v, &p);
    /* Too few quiet ones for a headline: the shared ones count, precise,
     * but sampling waits for quiet moments, to the budget at the most. */
    assert_false(d.skip & VN_TAG_SHARED_CORE);
    assert_true(d.waiting && d.precise);
    assert_int_equal(d.verdict, VN__GO_ON);
    v.elapsed_ns = p.budget_ns;
    assert_int_equal(decide(&v, &p).verdict, VN__STOP_MAX_TIME);
    /* One quiet sample is no evidence yet. */
    nrow = 0;
    add(1, 10, 0.01, 0, 0.3);
    add(30, 12, 0.01, VN_TAG_SHARED_CORE, 0.3);
    v = view(1, 0.99, 1.01, 10);
    d = decide(&v, &p);
    assert_false(d.waiting);
    assert_int_equal(d.verdict, VN__STOP_PRECISE);
}

static void a_core_shared_throughout_is_measured_as_it_is(void **state)
{
    (void)state;
    vn__policy p = policy();
    add(30, 12, 0.01, VN_TAG_SHARED_CORE, 0.3);
    vn__row_view v = view(1, 0.99, 1.01, 10);
    vn__decision d = decide(&v, &p);
    assert_int_equal(d.used, 30);
    assert_false(d.waiting);
    assert_false(d.quiet);
    assert_int_equal(d.verdict, VN__STOP_PRECISE);
    assert_true(fabs(d.value - 11) < 1e-9);
}

static void the_empty_loop_of_the_headlines_kind_is_subtracted(void **state)
{
    (void)state;
    vn__policy p = policy();
    add(30, 12, 0.01, VN_TAG_SHARED_CORE, 0.3);
    vn__row_view v = view(1, 0.99, 1.01, 10);
    v.empty[0] = (vn__empty_view){2, 1.99, 2.01, 10}; /* shared moments */
    assert_true(fabs(decide(&v, &p).value - 10) < 1e-9);
}

static void quiet_samples_slower_than_shared_ones_leave_nothing_out(void **state)
{
    (void)state;
    vn__policy p = policy();
    /* Something no probe sees slowed the "quiet" ones: they are no quiet
     * figure, and the shared samples stay. */
    add(20, 20, 0.01, 0, 0.3);
    add(20, 10, 0.01, VN_TAG_SHARED_CORE, 0.3);
    vn__row_view v = view(1, 0.99, 1.01, 10);
    vn__decision d = decide(&v, &p);
    assert_false(d.skip & VN_TAG_SHARED_CORE);
    assert_int_equal(d.used, 40);
}

static void without_probes_shared_tags_mean_nothing(void **state)
{
    (void)state;
    vn__policy p = policy();
    add(20, 10, 0.01, 0, 0.3);
    add(20, 12, 0.01, VN_TAG_SHARED_CORE, 0.3);
    vn__row_view v = view(1, 0.99, 1.01, 10);
    v.probed = 0;
    vn__decision d = decide(&v, &p);
    assert_false(d.skip & VN_TAG_SHARED_CORE);
    assert_int_equal(d.used, 40);
}

static void no_sample_no_headline(void **state)
{
    (void)state;
    vn__policy p = policy();
    vn__row_view v = view(1, 0.99, 1.01, 10);
    vn__decision d = decide(&v, &p);
    assert_int_equal(d.head, VN__HEAD_NONE);
    assert_int_equal(d.used, 0);
    assert_int_equal(d.verdict, VN__GO_ON);
}

/* ---- Overrides by name (vn_config.policy) --------------------------------- */

static vn__policy policy_of(const char *text)
{
    vn_config c;
    vn_config_init(&c);
    c.policy = text;
    vn__policy p;
    assert_int_equal(vn__policy_init(&p, &c), 0);
    return p;
}

static void overrides_are_parsed_by_name(void **state)
{
    (void)state;
    vn__policy d = policy(), p = policy_of("shared_ratio=1.5,empty_matched=3,min_untagged=inf,"
                                           "indistinct_share=0.25,shared_slower=inf,");
    assert_true(p.shared_ratio == 1.5);
    assert_int_equal(p.empty_matched, 3);
    assert_int_equal(p.min_untagged, SIZE_MAX);
    assert_true(p.indistinct_share == 0.25);
    assert_true(isinf(p.shared_slower));
    /* The others keep their defaults. */
    assert_int_equal(p.fastest_agree, d.fastest_agree);
    assert_int_equal(p.shared_evidence, d.shared_evidence);
    assert_true(p.precision == d.precision);
    /* NULL and "" are no overrides. */
    p = policy_of("");
    assert_memory_equal(&p, &d, sizeof p);
}

/* The probe's level of a core shared through the run: left to the
 * machine by default, off only where nothing is known to share a core (SMT
 * off, no hypervisor), and set or switched off by name. */
static void the_alone_probe_follows_the_machine(void **state)
{
    (void)state;
    assert_true(isnan(policy().alone_probe));
    assert_true(isinf(vn__alone_probe_for(0, 0)));
    assert_true(isinf(vn__alone_probe_for(-1, 0))); /* off x86, no hypervisor is read */
    assert_true(vn__alone_probe_for(1, 0) == 1.3);
    assert_true(vn__alone_probe_for(0, 1) == 1.3);
    assert_true(vn__alone_probe_for(-1, -1) == 1.3);
    assert_true(vn__alone_probe_for(0, -1) == 1.3);
    assert_true(policy_of("alone_probe=1.5").alone_probe == 1.5);
    assert_true(isinf(policy_of("alone_probe=inf").alone_probe));
}

/* The run's processes on a shared core, from their probes: by default the
 * middle of the widest gap, when wider than process_shared_ratio; with
 * process_fence, over the third-fastest times the fence, when that reads
 * as a core of its own. Probes from runs of bench/coverage.sh. */
static void the_run_s_probes_split_by_a_gap_or_a_fence(void **state)
{
    (void)state;
    vn__policy p = policy();
    p.alone_probe = 1.3;
    double gap[] = {1.60, 1.00, NAN, 1.01, 1.70, 1.02, 1.01};
    double at = vn__probe_limit(gap, 7, &p);
    assert_true(at > 1.02 && at < 1.60);
    /* Probes that rise from a core of its own without a gap of a tenth:
     * no gap to split at, so nothing is told apart... */
    const double rise[] = {1.004, 1.005, 1.006, 1.013, 1.06, 1.136, 1.188, 1.24, 1.3, 1.38, 1.47};
    double x[11];
    memcpy(x, rise, sizeof x);
    assert_true(isinf(vn__probe_limit(x, 11, &p)));
    /* ...where a fence a tenth over the third-fastest tells them. */
    p.process_fence = 1.1;
    memcpy(x, rise, sizeof x);
    at = vn__probe_limit(x, 11, &p);
    assert_true(at > 1.06 && at < 1.136);
    /* A gap within the shared ones put the limit among them (1.15 to 1.25
     * read as a core of its own); the fence keeps it over the quiet ones. */
    const double within[] = {1.00, 1.00, 1.01, 1.15, 1.20, 1.25, 1.90, 1.95};
    double y[8];
    memcpy(y, within, sizeof y);
    p.process_fence = 0;
    assert_true(vn__probe_limit(y, 8, &p) > 1.25);
    memcpy(y, within, sizeof y);
    p.process_fence = 1.1;
    at = vn__probe_limit(y, 8, &p);
    assert_true(at > 1.01 && at < 1.15);
    /* No fence where even the third-fastest reads as a shared core, nor
     * with two probes. */
    double shared[] = {1.35, 1.40, 1.50, 1.90};
    assert_true(isinf(vn__probe_limit(shared, 4, &p)));
    double two[] = {1.00, 1.50};
    assert_true(isinf(vn__probe_limit(two, 2, &p)));
}

static void a_bad_override_leaves_the_policy_untouched(void **state)
{
    (void)state;
    const char *bad[] = {"nope=1",          "one_cycle=0",   "shared_evidence=inf,x=1", "shared_ratio=-1",
                         "shared_ratio=x",  "min_untagged=", "shared_ratio",            "fastest_agree=1.5",
                         "fastest_agree=2,,min_interval=6", "shared_ratio=nan", "empty_matched=-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        vn_config c;
        vn_config_init(&c);
        c.policy = bad[i];
        vn__policy p, before;
        memset(&p, 0x5a, sizeof p);
        before = p;
        assert_int_equal(vn__policy_init(&p, &c), VN_EINVAL);
        assert_memory_equal(&p, &before, sizeof p);
    }
    /* The message names what is wrong, and the names there are. */
    char why[768];
    vn__policy p = policy();
    assert_int_equal(vn__policy_parse(&p, "nope=1", why, sizeof why), VN_EINVAL);
    assert_non_null(strstr(why, "'nope=1'"));
    assert_non_null(strstr(why, "shared_ratio"));
    assert_non_null(strstr(why, "empty_matched"));
}

static void shared_slower_inf_keeps_shared_samples(void **state)
{
    (void)state;
    add(20, 10, 0.01, 0, 0.3);
    add(20, 12, 0.01, VN_TAG_SHARED_CORE, 0.3);
    vn__row_view v = view(1, 0.99, 1.01, 10);
    vn__policy p = policy_of("shared_slower=inf");
    vn__decision d = decide(&v, &p);
    assert_false(d.skip & VN_TAG_SHARED_CORE);
    assert_int_equal(d.used, 40);
}

static void shared_evidence_inf_never_waits_for_quiet_moments(void **state)
{
    (void)state;
    add(2, 10, 0.01, 0, 0.3);
    add(30, 12, 0.01, VN_TAG_SHARED_CORE, 0.3);
    vn__row_view v = view(1, 0.99, 1.01, 10);
    vn__policy p = policy_of("shared_evidence=inf");
    vn__decision d = decide(&v, &p);
    assert_false(d.waiting);
    assert_int_equal(d.verdict, VN__STOP_PRECISE);
}

static void indistinct_share_0_takes_any_difference(void **state)
{
    (void)state;
    add(20, 1.4, 0.01, 0, NAN);
    vn__row_view v = view(1, 0.99, 1.01, 10);
    vn__policy p = policy_of("indistinct_share=0");
    vn__decision d = decide(&v, &p);
    assert_int_equal(d.head, VN__HEAD_MEDIAN);
    assert_true(fabs(d.value - 0.4) < 1e-9);
}

static void fastest_agree_1_trusts_a_lone_fastest_sample(void **state)
{
    (void)state;
    add(1, 0.9, 0, 0, NAN);
    add(19, 1.1, 0.05, 0, NAN);
    vn__row_view v = view(1, 0.98, 1.2, 10);
    vn__policy p = policy_of("fastest_agree=1");
    vn__decision d = decide(&v, &p);
    assert_int_equal(d.head, VN__HEAD_FASTEST);
    assert_true(d.precise);
}

static void min_untagged_inf_keeps_every_tagged_sample(void **state)
{
    (void)state;
    add(20, 10, 0.01, 0, 0.3);
    add(5, 50, 0, VN_TAG_PREEMPTED, 0.3);
    add(20, 12, 0.01, VN_TAG_SHARED_CORE, 0.3);
    vn__row_view v = view(1, 0.99, 1.01, 10);
    vn__policy p = policy_of("min_untagged=inf");
    vn__decision d = decide(&v, &p);
    assert_int_equal(d.skip, 0);
    assert_int_equal(d.used, 45);
}

/* Samples that all read the same count of ticks: the rounding of the
 * timer's two reads is what they are uncertain by, not nothing. */
static void a_body_that_reads_the_same_ticks_keeps_the_rounding(void **state)
{
    (void)state;
    vn__policy p = policy();
    add(30, 100, 0, 0, 1);
    vn__row_view v = view(1, 1, 1, 30);
    v.floor_ns = 0.01;
    vn__decision d = decide(&v, &p);
    assert_int_equal(d.head, VN__HEAD_MEDIAN);
    /* Half a step either side, however many samples: a steady time
     * between two counts reads as the nearer in most of them. */
    double qvar = (0.01 / 2 / 1.959963984540054) * (0.01 / 2 / 1.959963984540054);
    assert_true(fabs(d.qvar - qvar) < 1e-18);
    /* What a sample varies by still shrinks with them (the plan reads
     * var x used as a sample's). */
    assert_true(fabs(d.var - (M_PI / 2) * 0.01 * 0.01 / 6 / 30) < 1e-15);
    assert_true(fabs((d.hi - d.value) - 0.005) < 1e-12);
    assert_true(fabs((d.value - d.lo) - 0.005) < 1e-12);
    add(270, 100, 0, 0, 1);
    vn__row_view many = view(1, 1, 1, 30);
    many.floor_ns = 0.01;
    assert_true(fabs((decide(&many, &p).hi - d.value) - 0.005) < 1e-12);
    /* In cycles (1 ns a cycle here) no narrower: a row of one process
     * shows the interval in cycles, never one of no width. */
    assert_true(fabs((d.cycles_hi - d.cycles) - 0.005) < 1e-12);
    assert_true(fabs((d.cycles - d.cycles_lo) - 0.005) < 1e-12);
    /* Two processes that read it exactly alike: an interval with a width. */
    vn__decision proc[2] = {d, d};
    vn__row_state st = {1e6, 60, 1, 0, NAN, NAN};
    vn__row_decision rd;
    assert_int_equal(vn__decide_row(proc, 2, &p, &st, &rd), 0);
    assert_true(rd.ns.hi > rd.ns.value && rd.ns.lo < rd.ns.value);
    /* A noisier body keeps its own, wider interval. */
    nrow = 0;
    add(30, 100, 1, 0, 1);
    vn__decision n = decide(&v, &p);
    assert_true(n.var > 100 * qvar);
}

/* ---- A row over processes (vn__decide_row) ---- */

/* A process's own decision: a median value with a variance from its
 * samples, and its cycles (ns x c). */
static vn__decision proc_of(double ns, double var, double c)
{
    vn__decision d;
    memset(&d, 0, sizeof d);
    d.head = VN__HEAD_MEDIAN;
    d.value = ns;
    d.var = var;
    d.used = 10;
    d.cycles = c > 0 ? ns * c : NAN;
    d.block[0] = d.block[1] = ns;
    d.block_var[0] = d.block_var[1] = 2 * var;
    d.fastest = ns * 0.99;
    d.ref = 1 / c;
    d.rel_mad_ns = d.rel_mad_cycles = NAN;
    return d;
}

static vn__row_decision decide_row(const vn__decision *proc, size_t k, const vn__policy *p,
                                   size_t streak, double spent)
{
    vn__row_state st = {spent, 10 * k, streak, 0, NAN, NAN};
    vn__row_decision rd;
    assert_int_equal(vn__decide_row(proc, k, p, &st, &rd), 0);
    return rd;
}

static void processes_that_agree_stop_at_the_second_precise_look(void **state)
{
    (void)state;
    vn__policy p = policy_of("head_low=50");
    vn__decision proc[3] = {proc_of(100, 0.01, 3), proc_of(100.05, 0.01, 3),
                            proc_of(99.95, 0.01, 3)};
    /* Two processes: precise, but the look before had no interval. */
    vn__row_decision rd = decide_row(proc, 2, &p, 0, 1e6);
    assert_true(rd.precise);
    assert_int_equal(rd.verdict, VN__GO_ON);
    rd = decide_row(proc, 3, &p, 1, 2e6);
    assert_int_equal(rd.verdict, VN__STOP_PRECISE);
    assert_true(fabs(rd.ns.value - 100) < 1e-9);
    /* The interval is the median's: Student's t across the three values
     * on sqrt(pi / 2) times their deviation (too few for quartiles). */
    double sd = 0.05, half = 4.302652729911275 * sqrt(M_PI / 2) * sd / sqrt(3);
    assert_true(fabs((rd.ns.hi - rd.ns.lo) / 2 - half) < 1e-6);
    /* What varies is their samples' own noise: little between processes. */
    assert_true(rd.share_samples > rd.share_processes);
    assert_false(rd.disagree);
    assert_false(rd.cycles_headline);
}

static void processes_far_apart_say_so_and_go_on(void **state)
{
    (void)state;
    vn__policy p = policy();
    vn__decision proc[4] = {proc_of(100, 0.01, 3), proc_of(130, 0.01, 3), proc_of(101, 0.01, 3),
                            proc_of(129, 0.01, 3)};
    vn__row_decision rd = decide_row(proc, 4, &p, 1, 4e6);
    assert_false(rd.precise);
    assert_int_equal(rd.verdict, VN__GO_ON);
    assert_true(rd.share_processes > 0.9);
    assert_true(rd.disagree);
    /* The budget, with another process's least cost, ends it. */
    vn__row_state st = {0.9e9, 40, 0, 0.2e9, NAN, NAN};
    assert_int_equal(vn__decide_row(proc, 4, &p, &st, &rd), 0);
    assert_int_equal(rd.verdict, VN__STOP_MAX_TIME);
    /* As do the most processes. */
    p.max_processes = 4;
    assert_int_equal(decide_row(proc, 4, &p, 0, 1e6).verdict, VN__STOP_MAX_PROCESSES);
    /* A count of processes asked for (--processes 6, Google Benchmark's
     * repetitions) is run whole, whatever the budget: a slow machine takes
     * longer, it does not give fewer repetitions. */
    p.min_processes = p.max_processes = 6;
    assert_int_equal(vn__decide_row(proc, 4, &p, &st, &rd), 0);
    assert_int_equal(rd.verdict, VN__GO_ON);
}

/* The median's other readings (policy median_mj, batch_signs) are off by
 * default and reach the row's interval when set: a core of 16 processes
 * and a slow four that ran together, whose batch medians call the row
 * serial and whose signs do not. */
static void the_median_readings_reach_the_row(void **state)
{
    (void)state;
    vn__decision proc[20];
    for (int i = 0; i < 20; i++)
        proc[i] = proc_of(i >= 5 && i < 10 && i != 7 ? 130 + i : 100 + 0.02 * ((i * 9) % 20), 0.01,
                          3);
    vn__policy p = policy_of("head_low=50");
    assert_int_equal(p.median_mj, 0);
    assert_int_equal(p.batch_signs, 0);
    vn__row_decision base = decide_row(proc, 20, &p, 0, 1e6);
    vn__policy q = policy_of("head_low=50,batch_signs=1");
    vn__row_decision signs = decide_row(proc, 20, &q, 0, 1e6);
    assert_true(base.serial > signs.serial);
    assert_true(signs.ns.hi - signs.ns.lo < base.ns.hi - base.ns.lo);
    assert_true(fabs(signs.ns.value - base.ns.value) < 1e-12);
    /* The bootstrap's error counts the slow four, 30% off, by how often
     * they would be the median, and that far out even a few times widens
     * it past the quartiles' reading of the core. */
    q = policy_of("head_low=50,batch_signs=1,median_mj=1");
    vn__row_decision mj = decide_row(proc, 20, &q, 0, 1e6);
    assert_true(mj.ns.hi - mj.ns.lo > 2 * (signs.ns.hi - signs.ns.lo));
    assert_true(fabs(mj.ns.value - base.ns.value) < 1e-12);
}

/* policy head_low makes a low quantile of the processes the headline,
 * with its interval, in ns and in cycles: the lower quartile by default;
 * 50 or more (or head_mean) the median (the mean). Five processes of
 * twenty 30% slow move the median and its interval, and the quartile
 * little. */
static void a_low_quantile_reaches_the_row(void **state)
{
    (void)state;
    vn__decision proc[20];
    double v[20];
    for (int i = 0; i < 20; i++) {
        v[i] = i % 4 == 1 ? 130 + i : 100 + 0.05 * ((i * 7) % 20);
        proc[i] = proc_of(v[i], 0.01, 3);
    }
    assert_int_equal(policy().head_low, 25);
    vn__policy p = policy_of("head_low=50");
    vn__row_decision base = decide_row(proc, 20, &p, 0, 1e6);
    vn__policy q = policy();
    vn__row_decision low = decide_row(proc, 20, &q, 0, 1e6);
    double *s = vn__sorted_copy(v, 20);
    assert_non_null(s);
    assert_float_equal(low.ns.value, vn__levels_quantile(s, 20, 0.25), 1e-12);
    free(s);
    assert_true(low.ns.value < base.ns.value);
    assert_true(low.ns.lo < low.ns.value && low.ns.value < low.ns.hi);
    assert_true(low.ns.hi - low.ns.lo < base.ns.hi - base.ns.lo);
    assert_true(low.cycles.value < base.cycles.value);
    q = policy_of("head_low=0");
    vn__row_decision half = decide_row(proc, 20, &q, 0, 1e6);
    assert_float_equal(half.ns.value, base.ns.value, 0);
    q = policy_of("head_low=25,head_mean=1");
    vn__row_decision mean = decide_row(proc, 20, &q, 0, 1e6);
    assert_true(mean.ns.value > base.ns.value);
}

/* A few layouts far faster than the rest (3 processes of 20 at 9.7, the
 * others about 15.5, as a copy of 512 bytes read): the quartile sits next
 * to them and its interval takes them in, the median's does not; the row
 * carries the median's half-width for the stop findings. The median as
 * the headline carries none. */
static void a_fast_few_leave_the_median_steadier(void **state)
{
    (void)state;
    vn__decision proc[20];
    for (int i = 0; i < 20; i++)
        proc[i] = proc_of(i % 7 == 3 ? 9.7 : 15.4 + 0.02 * ((i * 7) % 20), 0.0001, 3);
    vn__policy p = policy();
    vn__row_decision rd = decide_row(proc, 20, &p, 0, 1e6);
    assert_true(rd.median_half_pct > 0 && rd.median_half_pct < rd.half_pct / 2);
    vn__policy m = policy_of("head_low=50");
    vn__row_decision med = decide_row(proc, 20, &m, 0, 1e6);
    assert_true(isnan(med.median_half_pct));
    /* The same half-width as the median's own row gives. */
    assert_float_equal(rd.median_half_pct, med.half_pct, 1e-9);
}

/* Processes that vary so much that the most of them (20) would not bring
 * the interval within the precision stop once futile_after of them ran,
 * when it is set (off by default: they run to the most); those that would
 * get there go on. */
static void processes_beyond_reach_stop_early(void **state)
{
    (void)state;
    enum { K = 12 };
    assert_int_equal(policy().futile_after, SIZE_MAX);
    vn__policy p = policy_of("futile_after=12,head_low=50");
    vn__decision wide[K], near[K];
    for (int i = 0; i < K; i++) {
        wide[i] = proc_of(i % 2 ? 104 : 100, 0.01, 3);
        near[i] = proc_of(i % 2 ? 101.7 : 100, 0.01, 3);
    }
    /* About +-2.5% over 12: at 20 still about 2.5% x sqrt(12 / 20) x
     * t(19) / t(11), over 1%. */
    vn__row_decision rd = decide_row(wide, K, &p, 0, 1e6);
    assert_int_equal(rd.verdict, VN__STOP_PROCESSES_VARY);
    assert_true(rd.half_pct > 2 && rd.half_pct < 3.5);
    assert_true(fabs(rd.need - ceil(K * rd.half_pct * rd.half_pct)) < 1e-9);
    assert_int_equal(vn__stop_of(rd.verdict), VN_STOP_PROCESSES_VARY);
    assert_string_equal(vn_stop_name(VN_STOP_PROCESSES_VARY), "processes_vary");
    /* Fewer than futile_after: on. */
    assert_int_equal(decide_row(wide, K - 1, &p, 0, 1e6).verdict, VN__GO_ON);
    /* About +-1.1% over 12 would be within 1% long before 20: on. */
    rd = decide_row(near, K, &p, 0, 1e6);
    assert_false(rd.precise);
    assert_true(rd.half_pct > 1 && rd.half_pct < 1.5);
    assert_int_equal(rd.verdict, VN__GO_ON);
    /* Switched off (the default), below the fewest processes asked for,
     * or a count given, the row runs on. */
    vn__policy off = policy_of("head_low=50");
    assert_int_equal(decide_row(wide, K, &off, 0, 1e6).verdict, VN__GO_ON);
    /* ... to the most, and stops there with the count the precision
     * would take at their spread, for the finding to give. */
    vn__decision most[20];
    for (int i = 0; i < 20; i++)
        most[i] = proc_of(i % 2 ? 104 : 100, 0.01, 3);
    rd = decide_row(most, 20, &off, 0, 1e6);
    assert_int_equal(rd.verdict, VN__STOP_MAX_PROCESSES);
    assert_true(rd.half_pct > 1.5 && rd.need > 20);
    assert_true(fabs(rd.need - ceil(20 * rd.half_pct * rd.half_pct)) < 1e-9);
    off = policy_of("futile_after=12,min_processes=16,head_low=50"); /* over K */
    assert_int_equal(decide_row(wide, K, &off, 0, 1e6).verdict, VN__GO_ON);
    /* Out of budget it stops there, as any row does. */
    vn__row_state st = {0.9e9, 80, 0, 0.2e9, NAN, NAN};
    assert_int_equal(vn__decide_row(wide, K, &p, &st, &rd), 0);
    assert_int_equal(rd.verdict, VN__STOP_MAX_TIME);
    assert_int_equal(rd.kept, K);
    p.min_processes = p.max_processes = K + 2;
    assert_int_equal(decide_row(wide, K, &p, 0, 1e6).verdict, VN__GO_ON);
}

/* The run's probes fell in two groups (a core of its own at 1.0, shared at
 * 1.8): the headline rests on the processes with a core of their own when
 * two or more had one; one alone gives no interval across processes, and
 * then all of them carry it. */
static void one_process_on_its_own_core_does_not_carry_the_headline(void **state)
{
    (void)state;
    vn__policy p = policy();
    vn__decision proc[8];
    for (int i = 0; i < 8; i++) {
        proc[i] = proc_of(i < 2 ? 50 + i : 100 + i, 0.01, 3);
        proc[i].probe = i < 2 ? 1.0 : 1.8;
    }
    vn__row_state st = {1e6, 80, 0, 0, 1.3, NAN};
    vn__row_decision rd;
    /* Two on a core of their own: the headline is theirs. */
    assert_int_equal(vn__decide_row(proc, 8, &p, &st, &rd), 0);
    assert_int_equal(rd.kept, 2);
    assert_int_equal(rd.shared, 6);
    assert_false(rd.on_shared);
    assert_true(rd.ns.value >= 50 && rd.ns.value <= 51);
    /* One alone: not its samples' interval, but all eight's; with
     * shared_most on (one is under a quarter of them), the seven shared
     * ones', a shared core's. */
    proc[1] = proc_of(101, 0.01, 3);
    proc[1].probe = 1.8;
    assert_int_equal(vn__decide_row(proc, 8, &p, &st, &rd), 0);
    assert_int_equal(rd.kept, 8);
    assert_int_equal(rd.shared, 0);
    assert_false(rd.on_shared);
    assert_true(rd.ns.value > 100 && rd.ns.value < 105);
    assert_true(rd.ns.lo < 100 && rd.ns.hi > rd.ns.value);
    assert_false(isnan(rd.share_processes));
    p.shared_most = 1;
    assert_int_equal(vn__decide_row(proc, 8, &p, &st, &rd), 0);
    assert_int_equal(rd.kept, 7);
    assert_int_equal(rd.shared, 1);
    assert_true(rd.on_shared);
    assert_true(rd.ns.value > 100 && rd.ns.value < 105);
    p.shared_most = 0;
    /* None on a core of its own: all of them, on a shared core. */
    proc[0].probe = 1.8;
    assert_int_equal(vn__decide_row(proc, 8, &p, &st, &rd), 0);
    assert_int_equal(rd.kept, 8);
    assert_true(rd.on_shared);
}

/* Processes told apart by their probes whose two groups read the body
 * alike (their medians, in cycles, within the precision) all carry the
 * headline: none is left out, and the decision says they were alike. A
 * group a few precisions apart is left out as before; so with the rule
 * off. The unit is cycles: a shared group whose ns moved with the clock
 * but whose cycles did not reads alike. */
static void two_core_states_that_read_alike_carry_the_headline_together(void **state)
{
    (void)state;
    vn__policy p = policy();
    assert_int_equal(p.states_alike, 1);
    vn__decision proc[8];
    vn__row_state st = {1e6, 80, 0, 0, 1.3, NAN};
    vn__row_decision rd;
    for (int apart = 0; apart <= 1; apart++) {
        for (int i = 0; i < 8; i++) {
            int shared = i >= 5;
            /* The shared ones at a slower clock (2.5 cycles a ns against
             * 3): in ns 20% slower; in cycles alike, or 5 precisions off. */
            double cyc = 300 + 0.1 * i + (shared && apart ? 5 * 300 * p.precision : 0);
            double ghz = shared ? 2.5 : 3;
            proc[i] = proc_of(cyc / ghz, 0.01, ghz);
            proc[i].probe = shared ? 1.8 : 1.0;
        }
        assert_int_equal(vn__decide_row(proc, 8, &p, &st, &rd), 0);
        assert_int_equal(rd.alike, !apart);
        assert_int_equal(rd.kept, apart ? 5 : 8);
        assert_int_equal(rd.shared, apart ? 3 : 0);
        assert_false(rd.on_shared);
    }
    /* Alike, but the rule off: those with a core of their own. */
    for (int i = 5; i < 8; i++)
        proc[i].cycles = 300 + 0.1 * i; /* back to alike in cycles */
    p.states_alike = 0;
    assert_int_equal(vn__decide_row(proc, 8, &p, &st, &rd), 0);
    assert_false(rd.alike);
    assert_int_equal(rd.kept, 5);
    p.states_alike = 1;
    assert_int_equal(vn__decide_row(proc, 8, &p, &st, &rd), 0);
    assert_true(rd.alike);
    /* Without cycles, the ns decide: 20% apart, not alike. */
    for (int i = 0; i < 8; i++)
        proc[i].cycles = NAN;
    assert_int_equal(vn__decide_row(proc, 8, &p, &st, &rd), 0);
    assert_false(rd.alike);
    assert_int_equal(rd.kept, 5);
}

/* Two processes on a core of their own 9% apart, eighteen shared ones
 * between them: the shared ones' median lies within the interval of the
 * own ones' (states_alike 2, off by default: either group's within the
 * other's), which cannot tell the states apart, and the headline rests
 * on all twenty, its interval a few percent where the two alone gave one
 * many times as wide (states_alike 1). Two own ones that agree, the
 * shared ones twice as slow (x += x on a shared core): apart, the
 * headline the own ones'. */
static void too_few_on_their_own_core_to_tell_the_states_apart(void **state)
{
    (void)state;
    vn__policy p = policy();
    p.states_alike = 2;
    p.alike_low = 0; /* the medians, which the interval of either is about */
    vn__decision proc[20];
    vn__row_state st = {1e6, 80, 0, 0, 1.3, NAN};
    vn__row_decision rd, two;
    for (int i = 0; i < 20; i++) {
        double v = i == 0 ? 1088 : i == 1 ? 1001 : 1000 + 0.3 * i;
        proc[i] = proc_of(v / 3, 0.01, 3);
        proc[i].probe = i < 2 ? 1.0 : 1.8;
    }
    assert_int_equal(vn__decide_row(proc, 20, &p, &st, &rd), 0);
    assert_int_equal(rd.alike, 2);
    assert_int_equal(rd.kept, 20);
    assert_int_equal(rd.shared, 0);
    assert_true(rd.half_pct < 2);
    p.states_alike = 1;
    assert_int_equal(vn__decide_row(proc, 20, &p, &st, &two), 0);
    assert_false(two.alike);
    assert_int_equal(two.kept, 2);
    assert_true(two.half_pct > 10 * rd.half_pct);
    p.states_alike = 2;
    proc[0] = proc_of(1.00 / 3, 0.01, 3);
    proc[1] = proc_of(1.01 / 3, 0.01, 3);
    proc[0].probe = proc[1].probe = 1.0;
    for (int i = 2; i < 20; i++) {
        proc[i] = proc_of((2 + 0.01 * i) / 3, 0.01, 3);
        proc[i].probe = 1.8;
    }
    assert_int_equal(vn__decide_row(proc, 20, &p, &st, &rd), 0);
    assert_false(rd.alike);
    assert_int_equal(rd.kept, 2);
    assert_true(rd.ns.value < 0.34);
    /* The other way about: five on a core of their own that agree, two
     * shared ones 9% apart around them (a comparison through those two
     * gave a planted 10% an interval from 0.26 to 4.6): alike. Two shared
     * ones that agree 10% away from them: apart. */
    for (int apart = 0; apart <= 1; apart++) {
        for (int i = 0; i < 7; i++) {
            double v = i < 5 ? 1760 + i : apart ? 1930 + i : i == 5 ? 1752 : 1906;
            proc[i] = proc_of(v / 3, 0.01, 3);
            proc[i].probe = i < 5 ? 1.0 : 1.8;
        }
        assert_int_equal(vn__decide_row(proc, 7, &p, &st, &rd), 0);
        assert_int_equal(rd.alike, apart ? 0 : 2);
        assert_int_equal(rd.kept, apart ? 5 : 7);
    }
}

/* Two processes on a core of their own and eighteen shared, proc[0..20),
 * decided with a rule on (*flag 1: into *on) and off (0: *off): off, the
 * headline rests on the two alone; on, on all twenty, unless the shared
 * ones read slower. */
static void alike_only_with(const vn__decision *proc, vn__policy *p, size_t *flag, int slower,
                            vn__row_decision *on, vn__row_decision *off)
{
    vn__row_state st = {1e6, 80, 0, 0, 1.3, NAN};
    *flag = 1;
    assert_int_equal(vn__decide_row(proc, 20, p, &st, on), 0);
    *flag = 0;
    assert_int_equal(vn__decide_row(proc, 20, p, &st, off), 0);
    assert_false(off->alike);
    assert_int_equal(off->kept, 2);
    assert_int_equal(on->alike, !slower);
    assert_int_equal(on->kept, slower ? 2 : 20);
    assert_int_equal(on->shared, slower ? 18 : 0);
}

/* The shared group reading faster than the own one, which a sibling
 * thread cannot make it (two own processes at 1088 and 1001 cycles,
 * eighteen shared at 1000 to 1006): alike with states_one_sided (off by
 * default), the headline on all twenty and its interval within a few
 * percent, where the two alone gave one over ten times as wide. A fifth
 * slower (15% over the own ones' median), apart either way: the own ones
 * carry it. */
static void a_shared_group_that_reads_faster_reads_alike(void **state)
{
    (void)state;
    vn__policy p = policy();
    assert_int_equal(p.states_alike, 1);
    assert_int_equal(p.states_one_sided, 0);
    p.alike_low = 0; /* the medians alone, as the rule reads them */
    vn__decision proc[20];
    vn__row_decision rd, two;
    for (int slower = 0; slower <= 1; slower++) {
        for (int i = 0; i < 20; i++) {
            double v = i == 0 ? 1088 : i == 1 ? 1001 : 1000 + 0.3 * i;
            v *= i >= 2 && slower ? 1.2 : 1;
            proc[i] = proc_of(v / 3, 0.01, 3);
            proc[i].probe = i < 2 ? 1.0 : 1.8;
        }
        alike_only_with(proc, &p, &p.states_one_sided, slower, &rd, &two);
        if (!slower)
            assert_true(two.half_pct > 10 * rd.half_pct);
    }
}

/* One process alone on a core of its own among twenty shared ones (their
 * sums 1.7 times slower): the headline rests on all twenty, whose lower
 * quartile is a shared core's, and with lone_own (off by default) the row
 * says so; two on their own carry the headline either way, and says own. */
static void a_lone_process_on_its_own_core_leaves_the_row_shared(void **state)
{
    (void)state;
    vn__policy p = policy();
    assert_int_equal(p.lone_own, 0);
    vn__decision proc[20];
    vn__row_state st = {1e6, 80, 0, 0, 1.3, NAN};
    for (int owners = 1; owners <= 2; owners++) {
        for (int i = 0; i < 20; i++) {
            proc[i] = proc_of(i < owners ? 2760 + i : 4700 + 20 * i, 0.01, 3);
            proc[i].probe = i < owners ? 1.01 : 1.7;
        }
        for (size_t lone = 0; lone <= 1; lone++) {
            vn__row_decision rd;
            p.lone_own = lone;
            assert_int_equal(vn__decide_row(proc, 20, &p, &st, &rd), 0);
            assert_int_equal(rd.kept, owners == 1 ? 20 : 2);
            assert_int_equal(rd.on_shared, owners == 1 && lone);
            assert_true(owners == 1 ? rd.ns.value > 4700 : rd.ns.value < 2762);
        }
    }
}

/* The groups at the headline's quantile (alike_low, the default): a
 * division chain whose two processes on a core of their own read 459 and
 * 479 ns (one met a slower moment) and whose eighteen shared ones read 460
 * to 462 ns, their cycles 3% fewer (a reference the sibling slowed): the
 * medians part the groups in both units, the lower quartiles agree in ns,
 * and the headline rests on all twenty. Its figure in cycles, a unit the
 * groups do not read alike in, rests on the two on their own core with
 * alike_view (off by default: 1639 to 1710 cycles, where all twenty's
 * quartile reads the shared ones' 1592). Where the shared ones read 20%
 * slower in both units the groups stay apart. */
static void groups_alike_at_the_headline_quantile_read_alike(void **state)
{
    (void)state;
    vn__policy p = policy();
    assert_int_equal(p.alike_low, 1);
    assert_int_equal(p.alike_view, 0);
    vn__decision proc[20];
    vn__row_decision low, med, all;
    for (int slower = 0; slower <= 1; slower++) {
        for (int i = 0; i < 20; i++) {
            double ns = i == 0 ? 459 : i == 1 ? 479 : (460 + 0.1 * i) * (slower ? 1.2 : 1);
            proc[i] = proc_of(ns, 0.01, i < 2 ? 3.57 : 3.46);
            proc[i].probe = i < 2 ? 1.0 : 1.8;
        }
        alike_only_with(proc, &p, &p.alike_low, slower, &low, &med);
    }
    for (int i = 2; i < 20; i++)
        proc[i] = proc_of(460 + 0.1 * i, 0.01, 3.46), proc[i].probe = 1.8;
    p.alike_low = 1; /* alike_only_with leaves it off */
    p.alike_view = 1;
    vn__row_state st = {1e6, 80, 0, 0, 1.3, NAN};
    assert_int_equal(vn__decide_row(proc, 20, &p, &st, &low), 0);
    p.alike_view = 0;
    assert_int_equal(vn__decide_row(proc, 20, &p, &st, &all), 0);
    assert_int_equal(low.alike, 1);
    assert_int_equal(low.kept, 20);
    assert_true(low.cycles.value >= 459 * 3.57 && low.cycles.value <= 479 * 3.57);
    assert_true(all.cycles.value < 461 * 3.46);
    assert_float_equal(low.ns.value, all.ns.value, 1e-9);
}

/* With shared_most: processes told apart, too few of them on a core of
 * their own for the headline's quantile (under a quarter, for the lower
 * quartile): the headline is the shared ones', whose quartile and interval
 * are those of them alone; a quarter or more, or shared_most off (the
 * default), and it is the own ones'. Two of twenty gave an interval from 0
 * to 2.6 times the quartile. */
static void too_few_on_their_own_core_leave_it_to_the_shared(void **state)
{
    (void)state;
    vn__policy p = policy();
    assert_int_equal(p.shared_most, 0);
    p.shared_most = 1;
    vn__decision proc[20];
    double shared[18];
    vn__row_state st = {1e6, 80, 0, 0, 1.3, NAN};
    vn__row_decision rd, alone;
    for (int own = 2; own <= 5; own += 3) {
        for (int i = 0; i < 20; i++) {
            double v = i < own ? 90 + 7 * i : 100 + 0.1 * i;
            proc[i] = proc_of(v, 0.01, 3);
            proc[i].probe = i < own ? 1.0 : 1.8;
            if (i >= own)
                shared[i - own] = v;
        }
        assert_int_equal(vn__decide_row(proc, 20, &p, &st, &rd), 0);
        int few = own < 20 / 4;
        assert_int_equal(rd.on_shared, few);
        assert_int_equal(rd.kept, few ? 20 - own : own);
        assert_int_equal(rd.shared, few ? own : 20 - own);
        /* The shared ones' own decision, had they been all there was. */
        vn__decision only[18];
        for (int i = 0; i < 20 - own; i++) {
            only[i] = proc_of(shared[i], 0.01, 3);
            only[i].probe = 1.8;
        }
        assert_int_equal(vn__decide_row(only, (size_t)(20 - own), &p, &st, &alone), 0);
        if (few) {
            assert_true(fabs(rd.ns.value - alone.ns.value) < 1e-9);
            assert_true(fabs(rd.ns.lo - alone.ns.lo) < 1e-9);
            assert_true(fabs(rd.ns.hi - alone.ns.hi) < 1e-9);
            assert_true(rd.ns.hi / rd.ns.lo < 1.05);
        } else {
            assert_true(rd.ns.value < 100);
        }
    }
    /* Off: two of twenty carry it, and their interval is as wide as two
     * processes leave it. */
    p.shared_most = 0;
    for (int i = 0; i < 20; i++) {
        proc[i] = proc_of(i < 2 ? 90 + 7 * i : 100 + 0.1 * i, 0.01, 3);
        proc[i].probe = i < 2 ? 1.0 : 1.8;
    }
    assert_int_equal(vn__decide_row(proc, 20, &p, &st, &rd), 0);
    assert_false(rd.on_shared);
    assert_int_equal(rd.kept, 2);
    assert_true(rd.ns.hi / rd.ns.lo > 1.2);
}

/* No process told apart, every one with a probe over the level a core of
 * its own never reaches: the core was shared through the run, and the
 * headline rests on all of them, its numbers those of no split; one
 * process under the level, the level off or not known, no probe at all, or
 * a process told apart as shared (the run's probes fell in two groups),
 * and it was not. */
static void a_core_shared_through_the_run_is_decided(void **state)
{
    (void)state;
    const double probes[][4] = {{1.8, 1.9, 1.85, 1.8}, {1.0, 1.9, 1.85, 1.8},
                                {NAN, NAN, NAN, NAN}, {1.8, NAN, 1.8, 1.8}};
    const double levels[] = {1.3, NAN, INFINITY};
    const int shared[] = {1, 0, 0, 1};
    for (size_t k = 0; k < sizeof probes / sizeof probes[0]; k++)
        for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
            vn__policy p = policy();
            p.alone_probe = levels[l];
            vn__decision proc[4];
            for (int i = 0; i < 4; i++) {
                proc[i] = proc_of(100 + i, 0.01, 3);
                proc[i].probe = probes[k][i];
            }
            vn__row_state st = {1e6, 80, 0, 0, INFINITY, NAN};
            vn__row_decision rd, off;
            assert_int_equal(vn__decide_row(proc, 4, &p, &st, &rd), 0);
            assert_int_equal(rd.on_shared, l == 0 && shared[k]);
            assert_int_equal(rd.kept, 4);
            assert_int_equal(rd.shared, 0);
            p.alone_probe = INFINITY;
            assert_int_equal(vn__decide_row(proc, 4, &p, &st, &off), 0);
            assert_true(rd.ns.value == off.ns.value && rd.ns.lo == off.ns.lo && rd.ns.hi == off.ns.hi);
        }
    /* Told apart: the first process over the run's limit, the rest under
     * it, all over the level. */
    vn__policy p = policy();
    p.alone_probe = 1.3;
    vn__decision proc[4];
    for (int i = 0; i < 4; i++) {
        proc[i] = proc_of(100 + i, 0.01, 3);
        proc[i].probe = i == 0 ? 2.1 : 1.5;
    }
    vn__row_state st = {1e6, 80, 0, 0, 1.8, NAN};
    vn__row_decision rd;
    assert_int_equal(vn__decide_row(proc, 4, &p, &st, &rd), 0);
    assert_false(rd.on_shared);
}

/* Fewer than the headline's quantile of the processes under the level
 * (one middle reading among eight shared): the headline is a shared
 * core's, and the row says so; a quarter of them under it, or half for
 * the median, is not. Nothing told apart, no number changes. */
static void most_processes_shared_is_a_shared_core(void **state)
{
    (void)state;
    struct {
        const char *policy;
        size_t under;
        int shared;
    } cases[] = {{"head_low=25", 0, 1}, {"head_low=25", 1, 1}, {"head_low=25", 2, 0},
                 {"head_low=50", 3, 1}, {"head_low=50", 4, 0}, {"head_mean=1", 1, 0},
                 {"head_mean=1", 0, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        vn__policy p = policy_of(cases[c].policy);
        p.alone_probe = 1.3;
        vn__decision proc[8];
        for (size_t i = 0; i < 8; i++) {
            proc[i] = proc_of(100 + i, 0.01, 3);
            proc[i].probe = i < cases[c].under ? 1.21 : 1.6 + 0.01 * (double)i;
        }
        vn__row_state st = {1e6, 80, 0, 0, INFINITY, NAN};
        vn__row_decision rd, off;
        assert_int_equal(vn__decide_row(proc, 8, &p, &st, &rd), 0);
        assert_int_equal(rd.on_shared, cases[c].shared);
        assert_int_equal(rd.kept, 8);
        assert_int_equal(rd.shared, 0);
        p.alone_probe = INFINITY;
        assert_int_equal(vn__decide_row(proc, 8, &p, &st, &off), 0);
        assert_false(off.on_shared);
        assert_true(rd.ns.value == off.ns.value && rd.ns.lo == off.ns.lo &&
                    rd.ns.hi == off.ns.hi);
    }
}

static void a_clock_that_moved_makes_cycles_the_headline(void **state)
{
    (void)state;
    vn__policy p = policy();
    /* The rule alone, without cycles first for a body on the CPU. */
    p.cycles_first = 0;
    /* Up to 3% apart in ns, within 0.1% in cycles: the clock, not the body,
     * moved. */
    const double ns[5] = {100, 103, 97, 101.5, 98.5}, wobble[5] = {1, 1.001, 0.999, 1.0005, 1};
    vn__decision proc[5], same[5];
    for (int i = 0; i < 5; i++) {
        proc[i] = proc_of(ns[i], 0.01, 3 * 100 / ns[i] * wobble[i]);
        same[i] = proc_of(ns[i], 0.01, 3);
        proc[i].on_cpu = same[i].on_cpu = 1;
    }
    vn__row_decision rd = decide_row(proc, 5, &p, 1, 1e6);
    assert_true(rd.cycles_headline);
    assert_true(rd.clock_moved);
    assert_true(fabs(rd.cycles.value - 300) < 0.2);
    assert_true(rd.precise);
    /* Where cycles spread as much as ns, ns stays the headline. */
    assert_false(decide_row(same, 5, &p, 1, 1e6).cycles_headline);
    /* And three processes are too few to tell. */
    assert_false(decide_row(proc, 3, &p, 1, 1e6).cycles_headline);
    /* A body that mostly waits keeps the wall clock's ns, though its
     * wake-ups moved with the clock: the finding still says it moved. */
    for (int i = 0; i < 5; i++)
        proc[i].on_cpu = 0.05;
    rd = decide_row(proc, 5, &p, 1, 1e6);
    assert_false(rd.cycles_headline);
    assert_true(rd.clock_moved);
}

/* A body on the CPU compares across runs in cycles unless its processes
 * agree better in ns; a body that waits, or cycles_first=0, keeps ns
 * unless the clock moved during the run. */
static void a_body_on_the_cpu_compares_in_cycles(void **state)
{
    (void)state;
    vn__policy p = policy();
    const double ns[5] = {100, 103, 97, 101.5, 98.5};
    /* Cycles spread as ns does (the clock held still), on the CPU. */
    vn__decision same[5], waits[5], mem[5];
    for (int i = 0; i < 5; i++) {
        same[i] = proc_of(ns[i], 0.01, 3);
        same[i].on_cpu = 1;
        waits[i] = same[i];
        waits[i].on_cpu = 0.05;
        /* 300 ns throughout while the clock moved 3% apart: steadier in ns. */
        mem[i] = proc_of(300, 0.01, 3 * 100 / ns[i]);
        mem[i].value = 300 * (1 + 1e-4 * i);
        mem[i].on_cpu = 1;
    }
    vn__row_decision rd = decide_row(same, 5, &p, 1, 1e6);
    assert_true(rd.cycles_headline);
    assert_false(rd.clock_moved);
    /* Three processes tell nothing either way: cycles for a body on the CPU. */
    assert_true(decide_row(same, 3, &p, 1, 1e6).cycles_headline);
    assert_false(decide_row(waits, 5, &p, 1, 1e6).cycles_headline);
    assert_false(decide_row(mem, 5, &p, 1, 1e6).cycles_headline);
    /* One process: its samples' verdicts, the same way. */
    same[0].ns_steadier = 0;
    assert_true(decide_row(same, 1, &p, 0, 1e6).cycles_headline);
    same[0].ns_steadier = 1;
    assert_false(decide_row(same, 1, &p, 0, 1e6).cycles_headline);
    same[0].ns_steadier = 0;
    /* cycles_first=0: only a clock that moved makes cycles the unit. */
    p.cycles_first = 0;
    assert_false(decide_row(same, 5, &p, 1, 1e6).cycles_headline);
}

/* A chain of divisions beside a busy sibling: its processes hold 500 ns
 * while the reference, which the sibling slows, reads 2.64 to 2.98 cycles
 * a ns (their probes read a shared core, 1.7). The headline is ns; its
 * cycles are the ns at the rate of the processes nothing slowed (the
 * second-highest, 2.97: one reading above the rest may be a lucky
 * moment), the interval's width kept as a share. With ns_at_clock=0, or
 * no process beside a busy sibling (the clock moved, and a body bound by
 * memory did not follow it), they are the processes' cycles as read. */
static void cycles_beside_steady_ns_are_at_the_unslowed_rate(void **state)
{
    (void)state;
    vn__policy p = policy();
    assert_int_equal(p.ns_at_clock, 1);
    p.alone_probe = 1.3;
    const double ns[6] = {500, 500.1, 499.9, 500.05, 499.95, 500.02};
    const double rate[6] = {2.97, 2.80, 2.99, 2.64, 2.85, 2.72};
    vn__decision proc[6];
    for (int i = 0; i < 6; i++) {
        proc[i] = proc_of(ns[i], 0.01, rate[i]);
        proc[i].on_cpu = 1;
        proc[i].probe = 1.0;
    }
    vn__row_decision alone = decide_row(proc, 6, &p, 1, 1e6);
    assert_false(alone.cycles_headline);
    assert_true(isnan(alone.clock_rate));
    assert_true(alone.cycles.value < alone.ns.value * 2.85);
    for (int i = 0; i < 6; i++)
        proc[i].probe = rate[i] < 2.9 ? 1.7 : 1.0;
    vn__row_decision at = decide_row(proc, 6, &p, 1, 1e6);
    p.ns_at_clock = 0;
    vn__row_decision as = decide_row(proc, 6, &p, 1, 1e6);
    assert_false(at.cycles_headline);
    assert_false(as.cycles_headline);
    assert_float_equal(at.cycles.value, at.ns.value * 2.97, 1e-6);
    assert_true(as.cycles.value < at.ns.value * 2.85);
    assert_float_equal((at.cycles.hi - at.cycles.lo) / at.cycles.value,
                       (as.cycles.hi - as.cycles.lo) / as.cycles.value, 1e-12);
    assert_float_equal(at.ns.value, as.ns.value, 1e-12);
    assert_float_equal(at.clock_rate, 2.97, 1e-12);
    assert_true(isnan(as.clock_rate));
    assert_float_equal(alone.cycles.value, as.cycles.value, 1e-9);
    /* The rule alone: the higher of two, the second-highest of three;
     * nothing at a body under 0. */
    vn__unit_view n = {100, 99, 101}, c = {250, 240, 260};
    const double x3[3] = {100, 100, 50}, c3[3] = {280, 300, 155};
    assert_float_equal(vn__at_clock(&n, &c, x3, c3, 2), 3, 1e-12);
    assert_float_equal(c.value, 300, 1e-9);
    assert_float_equal(c.lo, 288, 1e-9);
    assert_float_equal(c.hi, 312, 1e-9);
    assert_float_equal(vn__at_clock(&n, &c, x3, c3, 3), 3, 1e-12);
    c.value = 250;
    assert_float_equal(vn__at_clock(&n, &c, x3, c3, 3), 3, 1e-12);
    assert_float_equal(c.value, 300, 1e-9);
    n.value = -1;
    assert_true(isnan(vn__at_clock(&n, &c, x3, c3, 3)));
    assert_float_equal(c.value, 300, 1e-9);
}

/* The busy sibling is looked for among the processes the headline rests
 * on. Five with a core of their own hold 500 ns while their clock moved
 * (2.64 to 2.97 cycles a ns); three on a shared core read 650 ns and are
 * left out. Their probes must not move the five's cycles: those stay as
 * read. */
static void a_left_out_sibling_leaves_the_cycles_as_read(void **state)
{
    (void)state;
    vn__policy p = policy();
    p.alone_probe = 1.3;
    const double ns[8] = {500, 500.1, 499.9, 500.05, 499.95, 650, 651, 649};
    const double rate[8] = {2.97, 2.80, 2.64, 2.72, 2.85, 2.5, 2.5, 2.5};
    vn__decision proc[8];
    for (int i = 0; i < 8; i++) {
        proc[i] = proc_of(ns[i], 0.01, rate[i]);
        proc[i].on_cpu = 1;
        proc[i].probe = i < 5 ? 1.0 : 1.7;
    }
    vn__row_state st = {1e6, 80, 0, 0, 1.3, NAN};
    vn__row_decision split;
    assert_int_equal(vn__decide_row(proc, 8, &p, &st, &split), 0);
    assert_int_equal(split.kept, 5);
    assert_int_equal(split.shared, 3);
    assert_false(split.cycles_headline);
    assert_true(isnan(split.clock_rate));
    assert_true(split.cycles.value < split.ns.value * 2.85);
    /* One of the five at alone_probe, under the split: a sibling met among
     * them moves the cycles to the second-highest rate of the five. */
    p.alone_probe = 1.1;
    proc[3].probe = 1.15;
    vn__row_decision met;
    assert_int_equal(vn__decide_row(proc, 8, &p, &st, &met), 0);
    assert_int_equal(met.kept, 5);
    assert_float_equal(met.clock_rate, 2.85, 1e-12);
    assert_float_equal(met.cycles.value, met.ns.value * 2.85, 1e-6);
}

static void one_process_bound_makes_the_row_a_bound(void **state)
{
    (void)state;
    vn__policy p = policy();
    vn__decision proc[3] = {proc_of(1, 0.0001, 3), proc_of(1, 0.0001, 3), proc_of(1, 0.0001, 3)};
    proc[1].head = VN__HEAD_FASTEST;
    proc[1].value = proc[1].fastest = 0.5;
    proc[1].agree = 6;
    proc[1].precise = 1;
    vn__row_decision rd = decide_row(proc, 3, &p, 1, 1e6);
    assert_true(rd.bound);
    assert_true(fabs(rd.bound_value - 0.5) < 1e-12);
    assert_true(rd.disagree); /* the others gave medians */
    assert_true(rd.precise);
    /* Every process a bound: they agree within the precision, or not. */
    vn__decision b[3];
    for (int i = 0; i < 3; i++) {
        b[i] = proc_of(1, 0.0001, 3);
        b[i].head = VN__HEAD_FASTEST;
        b[i].value = b[i].fastest = i == 2 ? 0.5 * 1.005 : 0.5;
        b[i].agree = 6;
    }
    assert_false(decide_row(b, 3, &p, 1, 1e6).disagree);
    b[2].value = b[2].fastest = 0.5 * 1.8; /* one cycle in two, two in the third */
    rd = decide_row(b, 3, &p, 1, 1e6);
    assert_true(rd.disagree);
    assert_true(fabs(rd.bound_value - 0.5) < 1e-12);
}

/* A bound across processes is the lowest floor any found; once the last
 * bound_settled processes found none lower, it is settled even though no
 * five samples reproduce the lowest (x += x: one lucky process in 20). */
static void a_bound_settles_when_no_lower_floor_turns_up(void **state)
{
    (void)state;
    vn__policy p = policy();
    double floors[6] = {0.50, 0.33, 0.49, 0.50, 0.48, 0.31};
    vn__decision b[6];
    for (int i = 0; i < 6; i++) {
        b[i] = proc_of(1, 0.0001, 3);
        b[i].head = VN__HEAD_FASTEST;
        b[i].value = b[i].fastest = floors[i];
        b[i].agree = 1;
    }
    /* Two processes after the lowest: not yet. */
    assert_false(decide_row(b, 4, &p, 1, 1e6).precise);
    vn__row_decision rd = decide_row(b, 5, &p, 1, 1e6);
    assert_true(rd.precise);
    assert_true(fabs(rd.bound_value - 0.33) < 1e-12);
    assert_int_equal(rd.verdict, VN__STOP_PRECISE);
    /* A lower floor among the last three: it goes on. */
    assert_false(decide_row(b, 6, &p, 1, 1e6).precise);
    p.bound_settled = 0;
    assert_false(decide_row(b, 5, &p, 1, 1e6).precise);
}

static void a_count_asked_for_runs_that_many(void **state)
{
    (void)state;
    vn_config c;
    vn_config_init(&c);
    c.processes = 3;
    vn__policy p;
    assert_int_equal(vn__policy_init(&p, &c), 0);
    assert_int_equal(p.min_processes, 3);
    assert_int_equal(p.max_processes, 3);
    vn__decision proc[3] = {proc_of(100, 0.01, 3), proc_of(100, 0.01, 3), proc_of(100, 0.01, 3)};
    assert_int_equal(decide_row(proc, 2, &p, 5, 1e6).verdict, VN__GO_ON);
    assert_int_equal(decide_row(proc, 3, &p, 0, 1e6).verdict, VN__STOP_PRECISE);
    vn__decision apart[3] = {proc_of(100, 0.01, 3), proc_of(150, 0.01, 3), proc_of(80, 0.01, 3)};
    assert_int_equal(decide_row(apart, 3, &p, 0, 1e6).verdict, VN__STOP_MAX_PROCESSES);
    /* One process: its own decision stands. */
    c.processes = 1;
    assert_int_equal(vn__policy_init(&p, &c), 0);
    proc[0].verdict = VN__STOP_MAX_TIME;
    assert_int_equal(decide_row(proc, 1, &p, 0, 1e6).verdict, VN__STOP_MAX_TIME);
}

/* With ref_off: three of ten processes whose reference read half again
 * as slow as the run's while the body's ns stayed put read the body's
 * cycles a third low; they leave the headline, whose lower quartile
 * then is the others' (300 cycles, not 200). A clock that fell moves the
 * ns with the reference: such processes stay. None leaves when fewer than
 * two others would remain, nor with the rule off (the default). */
static void a_reference_slow_while_the_body_is_not_leaves_the_headline(void **state)
{
    (void)state;
    vn__policy p = policy();
    assert_true(p.ref_off == 0);
    vn__decision proc[10];
    double ref = 1.0 / 3;
    for (int clock = 0; clock <= 1; clock++) {
        for (int i = 0; i < 10; i++) {
            int slow = i < 3;
            double ns = (slow && clock ? 150 : 100) + 0.1 * i;
            proc[i] = proc_of(ns, 0.01, slow ? 2 : 3);
            proc[i].ref_mid = slow ? 1.5 * ref : ref;
            proc[i].probe = 1.0;
        }
        if (clock) {
            for (int i = 0; i < 3; i++)
                proc[i].cycles = proc[i].value / proc[i].ref_mid;
        }
        assert_int_equal(vn__ref_off(proc, 10, ref, &p), 0);
        vn__row_decision all = decide_row(proc, 10, &p, 1, 1e6);
        assert_int_equal(all.ref_off, 0);
        p.ref_off = 0.05;
        assert_int_equal(vn__ref_off(proc, 10, ref, &p), clock ? 0 : 3);
        vn__row_decision rd = decide_row(proc, 10, &p, 1, 1e6);
        assert_int_equal(rd.ref_off, clock ? 0 : 3);
        assert_int_equal(rd.kept, clock ? 10 : 7);
        if (!clock) {
            assert_true(all.cycles.value < 250);
            assert_true(fabs(rd.cycles.value - 300) < 3);
        } else {
            assert_true(fabs(rd.cycles.value - 300) < 3);
        }
        p.ref_off = 0;
    }
    /* Three processes, two of them slow: one would remain, so none leaves. */
    p.ref_off = 0.05;
    for (int i = 0; i < 3; i++) {
        proc[i] = proc_of(100, 0.01, i < 2 ? 2 : 3);
        proc[i].ref_mid = i < 2 ? 1.5 * ref : ref;
    }
    assert_int_equal(vn__ref_off(proc, 3, ref, &p), 0);
    assert_false(proc[0].ref_off || proc[1].ref_off);
    /* The run's reference unknown: none. */
    assert_int_equal(vn__ref_off(proc, 3, NAN, &p), 0);
}

static void a_process_with_no_value_is_left_out(void **state)
{
    (void)state;
    vn__policy p = policy();
    vn__decision proc[3] = {proc_of(100, 0.01, 3), proc_of(100, 0.01, 3), proc_of(100, 0.01, 3)};
    proc[1].head = VN__HEAD_NONE;
    proc[1].value = NAN;
    vn__row_decision rd = decide_row(proc, 3, &p, 1, 1e6);
    assert_true(fabs(rd.ns.value - 100) < 1e-9);
    assert_true(isfinite(rd.ns.lo));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(a_steady_body_is_a_precise_median_net_of_the_loop, setup),
        cmocka_unit_test_setup(two_core_states_that_read_alike_carry_the_headline_together, setup),
        cmocka_unit_test_setup(a_body_on_the_cpu_compares_in_cycles, setup),
        cmocka_unit_test_setup(cycles_beside_steady_ns_are_at_the_unslowed_rate, setup),
        cmocka_unit_test_setup(a_left_out_sibling_leaves_the_cycles_as_read, setup),
        cmocka_unit_test_setup(the_precision_must_hold_at_two_looks_in_a_row, setup),
        cmocka_unit_test_setup(the_net_interval_carries_the_empty_loops_uncertainty, setup),
        cmocka_unit_test_setup(no_stop_before_the_minimum_samples, setup),
        cmocka_unit_test_setup(a_noisy_body_goes_on_until_a_limit, setup),
        cmocka_unit_test_setup(a_body_like_the_empty_loop_is_bounded_by_its_fastest_sample, setup),
        cmocka_unit_test_setup(a_fastest_sample_alone_is_not_reproduced, setup),
        cmocka_unit_test_setup(under_half_the_empty_loop_is_code_placement, setup),
        cmocka_unit_test_setup(a_body_under_a_cycle_is_bounded_by_its_fastest_sample, setup),
        cmocka_unit_test_setup(too_few_samples_have_no_interval, setup),
        cmocka_unit_test_setup(a_body_that_reads_the_same_ticks_keeps_the_rounding, setup),
        cmocka_unit_test_setup(preempted_samples_leave_while_enough_stay, setup),
        cmocka_unit_test_setup(shared_samples_as_fast_as_quiet_ones_count, setup),
        cmocka_unit_test_setup(shared_samples_slower_beyond_the_precision_leave, setup),
        cmocka_unit_test_setup(a_few_faster_quiet_samples_make_it_wait, setup),
        cmocka_unit_test_setup(a_core_shared_throughout_is_measured_as_it_is, setup),
        cmocka_unit_test_setup(the_empty_loop_of_the_headlines_kind_is_subtracted, setup),
        cmocka_unit_test_setup(quiet_samples_slower_than_shared_ones_leave_nothing_out, setup),
        cmocka_unit_test_setup(without_probes_shared_tags_mean_nothing, setup),
        cmocka_unit_test(one_process_on_its_own_core_does_not_carry_the_headline),
        cmocka_unit_test(too_few_on_their_own_core_to_tell_the_states_apart),
        cmocka_unit_test(a_shared_group_that_reads_faster_reads_alike),
        cmocka_unit_test(groups_alike_at_the_headline_quantile_read_alike),
        cmocka_unit_test(a_lone_process_on_its_own_core_leaves_the_row_shared),
        cmocka_unit_test(too_few_on_their_own_core_leave_it_to_the_shared),
        cmocka_unit_test(a_core_shared_through_the_run_is_decided),
        cmocka_unit_test(most_processes_shared_is_a_shared_core),
        cmocka_unit_test_setup(no_sample_no_headline, setup),
        cmocka_unit_test_setup(overrides_are_parsed_by_name, setup),
        cmocka_unit_test_setup(the_alone_probe_follows_the_machine, setup),
        cmocka_unit_test(the_run_s_probes_split_by_a_gap_or_a_fence),
        cmocka_unit_test_setup(a_bad_override_leaves_the_policy_untouched, setup),
        cmocka_unit_test_setup(shared_slower_inf_keeps_shared_samples, setup),
        cmocka_unit_test_setup(shared_evidence_inf_never_waits_for_quiet_moments, setup),
        cmocka_unit_test_setup(indistinct_share_0_takes_any_difference, setup),
        cmocka_unit_test_setup(fastest_agree_1_trusts_a_lone_fastest_sample, setup),
        cmocka_unit_test_setup(min_untagged_inf_keeps_every_tagged_sample, setup),
        cmocka_unit_test_setup(processes_that_agree_stop_at_the_second_precise_look, setup),
        cmocka_unit_test_setup(processes_far_apart_say_so_and_go_on, setup),
        cmocka_unit_test_setup(the_median_readings_reach_the_row, setup),
        cmocka_unit_test_setup(a_low_quantile_reaches_the_row, setup),
        cmocka_unit_test_setup(a_fast_few_leave_the_median_steadier, setup),
        cmocka_unit_test_setup(processes_beyond_reach_stop_early, setup),
        cmocka_unit_test_setup(a_clock_that_moved_makes_cycles_the_headline, setup),
        cmocka_unit_test_setup(one_process_bound_makes_the_row_a_bound, setup),
        cmocka_unit_test_setup(a_bound_settles_when_no_lower_floor_turns_up, setup),
        cmocka_unit_test_setup(a_count_asked_for_runs_that_many, setup),
        cmocka_unit_test_setup(a_process_with_no_value_is_left_out, setup),
        cmocka_unit_test_setup(a_reference_slow_while_the_body_is_not_leaves_the_headline, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
