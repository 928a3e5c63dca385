/* The stop rules tested again and again, by simulation: data drawn with
 * known answers go through the very functions the engine asks (vn__decide
 * for the samples of one process, vn__decide_row over processes), looked at
 * on the engine's schedule, and the intervals the rules stop with must hold
 * the true value about as often as they say.
 *
 * A rule that stops the first time an interval is narrow enough stops when
 * its spread happens to read small (Chow and Robbins's fixed-width rule, used
 * sequentially): its intervals then hold the truth less often than 95%. The
 * engine asks for the precision at two looks in a row; these tests measure
 * what that gives, and that it gives more than one look. The second level
 * is checked the same way against processes whose own values differ by a
 * known amount (Kalibera and Jones's two-level model), and against another
 * run's answer, which is what a person compares with. */
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

#define MAXN 2000

/* A standard normal deviate (Box-Muller), from the seeded generator. */
static double normal(vn_rng *r)
{
    double u = 1 - vn_rng_double(r), v = vn_rng_double(r);
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static vn__policy policy(int processes, size_t confirm)
{
    vn_config c;
    vn_config_init(&c);
    c.processes = processes;
    vn__policy p;
    assert_int_equal(vn__policy_init(&p, &c), 0);
    p.confirm = confirm;
    return p;
}

/* One process's samples, ns per iteration: the body's true median mu plus
 * normal noise of relative size sd, over an empty loop of exactly 1 ns. */
static void draw(vn_rng *g, vn_sample *v, size_t n, double mu, double sd)
{
    for (size_t i = 0; i < n; i++) {
        memset(&v[i], 0, sizeof v[i]);
        v[i].value = 1 + mu * (1 + sd * normal(g));
        v[i].iters = 1000;
        v[i].ref_ns = v[i].branch_cycles = v[i].cpu_ns = NAN;
    }
}

static vn__row_view view_of(const vn_sample *v, size_t n, size_t streak)
{
    vn__empty_view e = {1, 1, 1, 10};
    vn__row_view rv = {.v = v, .n = n, .empty = {e, e}, .floor_ns = 1e-9, .streak = streak};
    return rv;
}

/* One process sampled until the decision stops it, looked at as the engine
 * looks (after every sample to 64, then every n/32): the final decision. */
static vn__decision one_process(vn_rng *g, vn_sample *v, const vn__policy *p, double mu, double sd)
{
    size_t streak = 0;
    draw(g, v, MAXN, mu, sd);
    for (size_t n = p->min_samples;; n++) {
        if (n < MAXN && n >= 64 && n % (n / 32) != 0)
            continue;
        vn__row_view rv = view_of(v, n, streak);
        vn__decision d;
        assert_int_equal(vn__decide(&rv, p, &d), 0);
        streak = d.precise ? streak + 1 : 0;
        if (d.verdict != VN__GO_ON || n >= MAXN)
            return d;
    }
}

/* The share of runs whose interval holds the true median, over reps runs
 * of a body whose samples vary by sd around mu, asked for precision 1%. */
static double coverage_one(size_t confirm, double sd, size_t reps, uint64_t seed)
{
    vn__policy p = policy(1, confirm);
    p.max_samples = MAXN;
    p.budget_ns = INFINITY;
    vn_rng g;
    vn_rng_seed(&g, seed);
    vn_sample *v = malloc(MAXN * sizeof *v);
    assert_non_null(v);
    size_t hit = 0;
    for (size_t r = 0; r < reps; r++) {
        vn__decision d = one_process(&g, v, &p, 100, sd);
        hit += d.lo <= 100 && 100 <= d.hi;
    }
    free(v);
    return (double)hit / (double)reps;
}

static void one_process_intervals_hold_after_a_sequential_stop(void **state)
{
    (void)state;
    /* Spreads that stop at a few dozen samples to a few hundred: the range
     * where stopping on a lucky narrow interval happens. */
    const double sds[] = {0.02, 0.05, 0.1};
    double worst2 = 1, worst1 = 1;
    for (size_t i = 0; i < sizeof sds / sizeof sds[0]; i++) {
        double c2 = coverage_one(2, sds[i], 600, 11 + i);
        double c1 = coverage_one(1, sds[i], 600, 11 + i);
        print_message("one process, sd %.0f%%: coverage %.3f with two looks, %.3f with one\n",
                      100 * sds[i], c2, c1);
        worst2 = fmin(worst2, c2);
        worst1 = fmin(worst1, c1);
    }
    /* 95% asked; the order statistics' interval is conservative for a
     * fixed n, and the repeated look takes some of that back. */
    assert_true(worst2 >= 0.92);
    assert_true(worst2 >= worst1 - 0.01);
}

/* Processes whose own values differ: process i's true median is mu times
 * (1 + tau x z_i); its samples vary by sd around it. A run takes
 * processes, r samples each, until vn__decide_row stops it; its headline
 * and interval, and its true mean (mu), come back. */
typedef struct run_out {
    double value, lo, hi;
    size_t k;
} run_out;

/* What moves a process's true median away from mu, beyond tau x z: a
 * machine with a second state (a neighbour's cache use) that makes the
 * body slower by the share slow, entered and left at random and kept
 * from one process to the next with probability stay; or layouts of two
 * kinds, the second (share layout_p of processes) slower by layout. */
typedef struct machine {
    double slow, stay;
    double layout, layout_p;
    int state; /* the second state now */
} machine;

static double process_median(vn_rng *g, machine *mc, double mu, double tau)
{
    double m = mu * (1 + tau * normal(g));
    if (mc && mc->slow > 0) {
        if (vn_rng_double(g) >= mc->stay)
            mc->state = vn_rng_double(g) < 0.5;
        m *= 1 + (mc->state ? mc->slow : 0);
    }
    if (mc && mc->layout > 0 && vn_rng_double(g) < mc->layout_p)
        m *= 1 + mc->layout;
    return m;
}

static run_out run_on(vn_rng *g, vn_sample *v, const vn__policy *p, machine *mc, double mu,
                      double tau, double sd, size_t r)
{
    vn__decision proc[32];
    vn__row_state st = {0, 0, 0, 0, NAN, NAN};
    vn__policy in = *p;
    in.stop_on_precision = 0;
    in.min_samples = in.max_samples = r;
    for (size_t k = 1; k <= 20; k++) {
        double m = process_median(g, mc, mu, tau);
        draw(g, v, r, m, sd);
        vn__row_view rv = view_of(v, r, 0);
        assert_int_equal(vn__decide(&rv, &in, &proc[k - 1]), 0);
        st.samples += r;
        vn__row_decision rd;
        assert_int_equal(vn__decide_row(proc, k, p, &st, &rd), 0);
        st.streak = rd.precise ? st.streak + 1 : 0;
        if (rd.verdict != VN__GO_ON)
            return (run_out){rd.ns.value, rd.ns.lo, rd.ns.hi, k};
    }
    fail_msg("the row never stopped");
    return (run_out){0, 0, 0, 0};
}

static run_out run(vn_rng *g, vn_sample *v, const vn__policy *p, double mu, double tau, double sd,
                   size_t r)
{
    return run_on(g, v, p, NULL, mu, tau, sd, r);
}

/* The true headline of processes like run()'s: the policy's quantile of
 * their values (their mean for head_mean), from many of them; mu itself
 * for the median, their values' distribution being symmetric about it. */
static double true_headline(vn_rng *g, vn_sample *v, const vn__policy *p, double mu, double tau,
                            double sd, size_t r)
{
    enum { N = 20001 };
    double q = vn__policy_quantile(p);
    if (!(q < 0.5))
        return mu;
    vn__policy in = *p;
    in.stop_on_precision = 0;
    in.min_samples = in.max_samples = r;
    double *x = malloc(N * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < N; i++) {
        draw(g, v, r, process_median(g, NULL, mu, tau), sd);
        vn__row_view rv = view_of(v, r, 0);
        vn__decision d;
        assert_int_equal(vn__decide(&rv, &in, &d), 0);
        x[i] = d.value;
    }
    double *sorted = vn__sorted_copy(x, N);
    assert_non_null(sorted);
    double t = vn__levels_quantile(sorted, N, q);
    free(sorted);
    free(x);
    return t;
}

static void intervals_across_processes_hold_what_varies_between_them(void **state)
{
    (void)state;
    vn__policy p = policy(0, 2);
    p.budget_ns = INFINITY;
    p.max_samples = SIZE_MAX;
    vn_rng g;
    vn_rng_seed(&g, 2024);
    vn_sample *v = malloc(MAXN * sizeof *v);
    assert_non_null(v);
    /* Between processes: none, as much as their samples' own noise, and
     * three times the precision asked; within: a steady and a noisy body. */
    const double taus[] = {0, 0.003, 0.01, 0.03};
    const double sds[] = {0.01, 0.05};
    const size_t reps = 400;
    run_out *out = malloc(reps * sizeof *out);
    assert_non_null(out);
    double worst = 1, worst_next = 1, worst_pred = 1, best_pred = 0;
    for (size_t t = 0; t < sizeof taus / sizeof taus[0]; t++)
        for (size_t s = 0; s < sizeof sds / sizeof sds[0]; s++) {
            size_t hit = 0, next = 0, pred = 0, k = 0;
            double truth = true_headline(&g, v, &p, 100, taus[t], sds[s], 10);
            for (size_t i = 0; i < reps; i++) {
                out[i] = run(&g, v, &p, 100, taus[t], sds[s], 10);
                hit += out[i].lo <= truth && truth <= out[i].hi;
                k += out[i].k;
            }
            /* Another run's headline, as the next invocation gives it. */
            for (size_t i = 0; i + 1 < reps; i++) {
                next += out[i].lo <= out[i + 1].value && out[i + 1].value <= out[i].hi;
                /* The interval the results report: for the next run. */
                double lo = out[i].lo, hi = out[i].hi;
                vn__levels_next_run(out[i].value, &lo, &hi);
                pred += lo <= out[i + 1].value && out[i + 1].value <= hi;
            }
            double c = (double)hit / (double)reps, cn = (double)next / (double)(reps - 1);
            double cp = (double)pred / (double)(reps - 1);
            print_message("processes, tau %.1f%%, sd %.0f%%: coverage %.3f, of the next run %.3f "
                          "(%.3f for it), %.1f processes\n", 100 * taus[t], 100 * sds[s], c, cn,
                          cp, (double)k / (double)reps);
            worst = fmin(worst, c);
            worst_next = fmin(worst_next, cn);
            worst_pred = fmin(worst_pred, cp);
            best_pred = fmax(best_pred, cp);
        }
    free(out);
    free(v);
    /* 95% asked of the true value; two estimates of it agree about 83% of
     * the time when each interval is right. */
    assert_true(worst >= 0.90);
    assert_true(worst_next >= 0.75);
    /* The interval for the next run holds it about 95% of the time, and is
     * not made wide beyond that. */
    assert_true(worst_pred >= 0.90);
    assert_true(best_pred <= 0.995);
}

/* The machines of bench/RESULTS.md (2026-11-29): a chain whose processes
 * land in one of two layouts 1.3% apart, and a memory-bound body that a
 * neighbour slows by 40% for seconds at a time, so that a run's processes
 * meet its states in runs. The interval of a run must hold the next run's
 * headline about as often as two right intervals would (83%), and the
 * state kept from process to process must widen it, not leave it as
 * narrow as that of independent processes. */
static void intervals_hold_over_layouts_and_lasting_states(void **state)
{
    (void)state;
    vn__policy p = policy(0, 2);
    p.budget_ns = INFINITY;
    p.max_samples = SIZE_MAX;
    vn_rng g;
    vn_rng_seed(&g, 77);
    vn_sample *v = malloc(MAXN * sizeof *v);
    assert_non_null(v);
    const struct {
        const char *what;
        machine mc;
        double truth; /* the long-run mean over states and layouts */
    } cases[] = {
        {"two layouts 1.3% apart", {0, 0, 0.013, 0.35, 0}, 100 * (1 + 0.013 * 0.35)},
        {"a state kept 85% of the time", {0.4, 0.85, 0, 0, 0}, 100 * 1.2},
        {"a state kept 60% of the time", {0.4, 0.6, 0, 0, 0}, 100 * 1.2},
        {"one process in ten 10% slower", {0, 0, 0.10, 0.10, 0}, 100},
    };
    const size_t reps = 400;
    /* Of the next run's headline: with the layouts, as two right intervals
     * would; with the state kept 60% of the time, more often than the 0.32
     * that intervals of independent processes gave (0.47 widened). A state
     * kept 85% of the time mostly outlasts a run, which then sees nothing
     * to widen (0.58, 0.66 widened): printed, not asserted. */
    const double least[] = {0.80, 0, 0.40, 0.80};
    run_out *out = malloc(reps * sizeof *out);
    assert_non_null(out);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        machine mc = cases[c].mc;
        size_t next = 0, k = 0, hit = 0;
        for (size_t i = 0; i < reps; i++) {
            out[i] = run_on(&g, v, &p, &mc, 100, 0, 0.01, 10);
            hit += out[i].lo <= cases[c].truth && cases[c].truth <= out[i].hi;
            k += out[i].k;
        }
        for (size_t i = 0; i + 1 < reps; i++)
            next += out[i].lo <= out[i + 1].value && out[i + 1].value <= out[i].hi;
        double cn = (double)next / (double)(reps - 1);
        print_message("%s: coverage %.3f, of the next run %.3f, %.1f processes\n", cases[c].what,
                      (double)hit / (double)reps, cn, (double)k / (double)reps);
        assert_true(cn >= least[c]);
    }
    free(out);
    free(v);
}

/* A machine whose second state makes the body 6 times slower (an 8 MiB
 * pointer chase whose cache a neighbour takes), its state drawn again at
 * even odds before a process with probability 0.4 or 0.15 (machine's
 * stay 0.6 or 0.85; printed as kept): the quantile's interval from
 * ranks (policy head_ranks, the default) holds the next run's headline
 * more often than the standard error's alone (0.907 and 0.817 against
 * 0.852 and 0.742, 20 processes a run). Its cost, where the processes
 * vary independently and alike: an interval about a third wider, which
 * held the next run 0.977 of the time against 0.955. */
static void states_far_apart_are_seen_through_ranks(void **state)
{
    (void)state;
    vn__policy p = policy(20, 2), q;
    p.budget_ns = INFINITY;
    p.max_samples = SIZE_MAX;
    assert_int_equal((int)p.head_ranks, 1);
    q = p;
    q.head_ranks = 0;
    vn_sample *v = malloc(MAXN * sizeof *v);
    assert_non_null(v);
    /* The last: no second state, processes 1% apart. */
    const double stays[] = {0.6, 0.85, 0};
    const size_t reps = 400;
    run_out *out = malloc(reps * sizeof *out);
    assert_non_null(out);
    for (size_t c = 0; c < sizeof stays / sizeof stays[0]; c++) {
        double cover[2], width[2] = {0, 0};
        for (int on = 0; on < 2; on++) {
            vn_rng g;
            vn_rng_seed(&g, 5 + c);
            machine mc = {stays[c] > 0 ? 5 : 0, stays[c], 0, 0, 0};
            for (size_t i = 0; i < reps; i++) {
                out[i] = run_on(&g, v, on ? &p : &q, &mc, 100, stays[c] > 0 ? 0 : 0.01, 0.01, 10);
                vn__levels_next_run(out[i].value, &out[i].lo, &out[i].hi);
                width[on] += (out[i].hi - out[i].lo) / (double)reps;
            }
            size_t next = 0;
            for (size_t i = 0; i + 1 < reps; i++)
                next += out[i].lo <= out[i + 1].value && out[i + 1].value <= out[i].hi;
            cover[on] = (double)next / (double)(reps - 1);
        }
        print_message("a state 6x slower kept %.0f%% of the time: next run held %.3f with ranks, "
                      "%.3f without, %.2fx as wide\n", 100 * stays[c], cover[1], cover[0],
                      width[1] / width[0]);
        if (stays[c] > 0)
            assert_true(cover[1] >= cover[0] + 0.04);
        else
            assert_true(cover[1] <= 0.99 && width[1] < 1.4 * width[0]);
    }
    free(out);
    free(v);
}

/* The headline over processes is their median: one process in another
 * state moves it no more than any other, and its interval, from the
 * quartiles, is not widened by that one as a deviation would be. */
static void one_slow_process_moves_the_median_little(void **state)
{
    (void)state;
    const double agree[] = {100, 100.2, 99.8, 100.1, 99.9, 100, 100.05, 99.95};
    double one_slow[8];
    memcpy(one_slow, agree, sizeof agree);
    one_slow[3] = 130;
    vn__levels a, b;
    assert_int_equal(vn__levels_compute(agree, NULL, 8, &a), 0);
    assert_int_equal(vn__levels_compute(one_slow, NULL, 8, &b), 0);
    assert_float_equal(a.median, 100, 1e-12);
    assert_true(fabs(b.median - 100) <= 0.1);
    assert_true(b.mean > 103);
    assert_true(b.median_lo <= 100 && 100 <= b.median_hi);
    assert_true(b.median_hi - b.median_lo < 2.0);
    assert_true(b.hi - b.lo > 10 * (b.median_hi - b.median_lo));
    /* Quartiles that meet (most values alike) fall back on the deviation:
     * never an interval of zero width over values that differ. */
    const double ties[] = {5, 5, 5, 5, 5, 5, 6};
    vn__levels t;
    assert_int_equal(vn__levels_compute(ties, NULL, 7, &t), 0);
    assert_true(t.median_hi - t.median_lo > 0);
    /* Too few for quartiles: sqrt(pi / 2) times Student's t on the deviation. */
    const double three[] = {1, 2, 3};
    assert_int_equal(vn__levels_compute(three, NULL, 3, &t), 0);
    assert_float_equal(t.median_hi - t.median, 4.302652729911275 * sqrt(M_PI / 2) / sqrt(3),
                       1e-9);
}

/* The next run's interval: sqrt(2) wider on each side, on the log scale
 * for times (a wide one stays above 0), linear where it crosses 0 but
 * never below 0 for a value above it, and none where there was none. */
static void next_run_interval_is_sqrt2_wider(void **state)
{
    (void)state;
    double lo = 99, hi = 102;
    vn__levels_next_run(100, &lo, &hi);
    assert_float_equal(lo, 100 * pow(0.99, sqrt(2)), 1e-9);
    assert_float_equal(hi, 100 * pow(1.02, sqrt(2)), 1e-9);
    assert_true(lo < 100 - 1.4 && lo > 100 - 1.43 && hi > 102.8 && hi < 102.85);
    lo = 10, hi = 190; /* wide: stays above 0 */
    vn__levels_next_run(100, &lo, &hi);
    assert_true(lo > 0 && lo < 10 && hi > 190);
    lo = -1, hi = 3; /* crosses 0: linear, from 0 up */
    vn__levels_next_run(1, &lo, &hi);
    assert_float_equal(lo, 0, 0);
    assert_float_equal(hi, 1 + 2 * sqrt(2), 1e-12);
    lo = -3, hi = 1; /* a value below 0 keeps its linear bounds */
    vn__levels_next_run(-1, &lo, &hi);
    assert_float_equal(lo, -1 - 2 * sqrt(2), 1e-12);
    assert_float_equal(hi, -1 + 2 * sqrt(2), 1e-12);
    double est[2], next[2];
    /* Three processes far apart (an 8 MiB pointer chase whose shared cache
     * came and went): the estimate's interval and the next run's start at
     * 0, not at a negative time. */
    double three[] = {95042, 22925, 21915};
    vn__levels far;
    assert_int_equal(vn__levels_compute(three, NULL, 3, &far), 0);
    assert_true(far.median_lo < 0);
    vn__levels_intervals(far.median, far.median_lo, far.median_hi, est, next);
    assert_true(est[0] == 0 && next[0] == 0);
    assert_true(est[1] == far.median_hi && next[1] > est[1]);
    lo = NAN, hi = NAN;
    vn__levels_next_run(1, &lo, &hi);
    assert_true(isnan(lo) && isnan(hi));
}

/* A quantile's interval from ranks (stats/levels.h): 1..16 dealt so that
 * each batch of 4 holds one of the 4 values below the quartile, none two
 * in a row, leave the share factor 1, and the ranks 4 -+ 1.96 sqrt(3)
 * rounded outward are 1 and 8; in order, the share's runs widen it.
 * Processes in two states far apart (100 and 700) that come in runs of
 * like ones: the quartile's interval reaches the other state, where the
 * standard error read next to the quartile, even widened by the serial
 * factor's 9, does not; the same values taking turns leave it in its
 * own. */
static void a_quantile_interval_from_ranks(void **state)
{
    (void)state;
    double dealt[16], ranked[16], lo, hi;
    for (int i = 0; i < 16; i++)
        dealt[i] = 1 + i / 4 + 4 * (i % 4), ranked[i] = i + 1;
    assert_float_equal(vn__levels_share_factor(dealt, 16, vn__levels_quantile(ranked, 16, 0.25)),
                       1, 0);
    assert_int_equal(vn__levels_rank_interval(dealt, ranked, 16, 0.25, &lo, &hi), 0);
    assert_float_equal(lo, 1, 0);
    assert_float_equal(hi, 8, 0);
    double f = vn__levels_share_factor(ranked, 16, vn__levels_quantile(ranked, 16, 0.25));
    assert_true(f > 5 && f <= 9);
    assert_int_equal(vn__levels_rank_interval(ranked, ranked, 16, 0.25, &lo, &hi), 0);
    assert_float_equal(hi, ceil(4 + 1.959963984540054 * sqrt(3 * f)), 0);
    assert_int_equal(vn__levels_rank_interval(ranked, ranked, 1, 0.25, &lo, &hi), VN_EINVAL);
    assert_int_equal(vn__levels_rank_interval(ranked, ranked, 16, 1, &lo, &hi), VN_EINVAL);

    /* Twelve fast and eight slow: in runs, and taking turns (three fast
     * and two slow in every batch of 5, the fastest five in three of the
     * batches, none two in a row). */
    static const double offs[12] = {0, 5, 10, 15, 1, 6, 11, 16, 2, 7, 12, 17};
    double runs[20], turns[20];
    for (int i = 0, j = 0; i < 20; i++) {
        runs[i] = (i < 12 ? 100 : 700) + 0.1 * i;
        turns[i] = i % 5 % 2 == 0 ? 100 + 0.1 * offs[j++] : 700 + 0.1 * i;
    }
    const vn__levels_opts se = {.gate = 1, .low = 0.25},
                          ranks = {.gate = 1, .low = 0.25, .ranks = 1};
    vn__levels a, b, c;
    assert_int_equal(vn__levels_compute_with(runs, NULL, 20, &se, &a), 0);
    assert_int_equal(vn__levels_compute_with(runs, NULL, 20, &ranks, &b), 0);
    assert_int_equal(vn__levels_compute_with(turns, NULL, 20, &ranks, &c), 0);
    assert_true(a.low < 110 && a.low_hi < 200);
    assert_true(b.low == a.low && b.low_hi >= 700 && b.low_lo <= a.low_lo);
    assert_true(c.low < 110 && c.low_hi < 200);
}

/* The same values in runs of like ones, and taking turns: the mean of
 * the first varies as that of fewer independent values, and its interval
 * is wider; the second's is not. */
static void runs_of_like_values_widen_the_interval(void **state)
{
    (void)state;
    const double runs[] = {10, 10.1, 9.9, 10, 12, 12.1, 11.9, 12};
    const double turns[] = {10, 12, 10.1, 12.1, 9.9, 11.9, 10, 12};
    vn__levels a, b;
    assert_int_equal(vn__levels_compute(runs, NULL, 8, &a), 0);
    assert_int_equal(vn__levels_compute(turns, NULL, 8, &b), 0);
    assert_float_equal(a.sd, b.sd, 1e-12);
    assert_true(a.serial > 4);
    assert_float_equal(b.serial, 1, 0);
    assert_true(a.hi - a.lo > 2 * (b.hi - b.lo));
    assert_float_equal(vn__levels_serial(runs, 3), 1, 0);
    /* A series in order, its lag-1 autocorrelation past the 0.8 it is held
     * to: the factor is 9, not a rounding above it. */
    double rising[40];
    for (int i = 0; i < 40; i++)
        rising[i] = i;
    assert_true(vn__levels_serial(rising, 40) <= 9);
    assert_float_equal(vn__levels_serial(rising, 40), 9, 1e-12);
}

/* A state that lasts a few processes, under noise that alternates from
 * one process to the next: the lag-1 autocorrelation sees nothing, the 4
 * batch medians see the step; with no state (the same values taking
 * turns) they agree and the factor stays 1. */
static void batch_medians_see_a_state_that_lag_one_misses(void **state)
{
    (void)state;
    double step[20], turns[20];
    for (int i = 0; i < 20; i++) {
        step[i] = (i < 10 ? 100 : 110) + (i % 2 ? 8 : -8);
        turns[i] = (i % 4 < 2 ? 100 : 110) + (i % 2 ? 8 : -8);
    }
    vn__levels a, b;
    assert_int_equal(vn__levels_compute(step, NULL, 20, &a), 0);
    assert_int_equal(vn__levels_compute(turns, NULL, 20, &b), 0);
    assert_float_equal(a.sd, b.sd, 1e-12);
    assert_float_equal(vn__levels_serial(step, 20), 1, 0);
    assert_true(a.serial > 2 && a.serial <= 9);
    assert_float_equal(b.serial, 1, 0);
    /* Fewer than 8 values, or no interval: none. */
    assert_float_equal(vn__levels_batch_factor(step, 7, 1), 1, 0);
    assert_float_equal(vn__levels_batch_factor(step, 20, 0), 1, 0);
    /* Far apart batches: held to 9. */
    double far[8] = {1, 1, 100, 100, 1, 1, 100, 100};
    assert_float_equal(vn__levels_batch_factor(far, 8, 1), 9, 0);
}

/* Qn (Rousseeuw and Croux) and the batch factor's gate, the median's
 * interval's other readings for experiments (policy spread_qn,
 * batch_gate): Qn of 1..10 is the 15th smallest pairwise distance, 2,
 * times 2.2219 and 10 / 13.8; a tail of far values moves it little; the
 * batch factor is kept where the batches differ and dropped where they
 * take turns. */
static void qn_and_the_gated_batch_factor(void **state)
{
    (void)state;
    double x[10], tail[10];
    for (int i = 0; i < 10; i++)
        x[i] = i + 1, tail[i] = i < 7 ? 100 + i : 1000 * i;
    assert_float_equal(vn__qn(x, 10), 2.2219 * 2 * 10 / 13.8, 1e-12);
    assert_true(isnan(vn__qn(x, 1)));
    assert_true(vn__qn(tail, 10) < 20);
    double step[20], turns[20];
    for (int i = 0; i < 20; i++) {
        step[i] = (i < 10 ? 100 : 110) + (i % 2 ? 3 : -3);
        turns[i] = (i % 2 ? 110 : 100) + (i % 4 < 2 ? 3 : -3);
    }
    vn__levels a, gated, b, bg, q;
    const vn__levels_opts always = {.gate = 1}, gate = {.gate = 0.2},
                          qn = {.qn = 1, .gate = 1};
    assert_int_equal(vn__levels_compute_with(step, NULL, 20, &always, &a), 0);
    assert_int_equal(vn__levels_compute_with(step, NULL, 20, &gate, &gated), 0);
    assert_true(a.serial > 2);
    assert_float_equal(gated.serial, a.serial, 1e-12);
    assert_int_equal(vn__levels_compute_with(turns, NULL, 20, &always, &b), 0);
    assert_int_equal(vn__levels_compute_with(turns, NULL, 20, &gate, &bg), 0);
    assert_float_equal(bg.serial, 1, 0);
    assert_true(b.serial >= bg.serial);
    /* The defaults are vn__levels_compute's. */
    vn__levels d;
    assert_int_equal(vn__levels_compute(step, NULL, 20, &d), 0);
    assert_float_equal(d.median_hi, a.median_hi, 0);
    /* Qn in place of the quartiles: the median's half-width is t x
     * sqrt(pi / 2) x Qn x sqrt(serial / k). */
    assert_int_equal(vn__levels_compute_with(x, NULL, 10, &qn, &q), 0);
    assert_float_equal(q.median_hi - q.median,
                       vn_t975(9) * sqrt(M_PI / 2) * vn__qn(x, 10) * sqrt(q.serial / 10), 1e-9);
}

/* The median read through its signs and its bootstrap (policy
 * batch_signs, median_mj). Maritz and Jarrett's standard error of 1..10 is
 * 1.46607 (scipy's beta weights); of a tight core of 14 and six far
 * values, 1.68. The signs' batch factor of 0..19 in order is 20/3 (the
 * share above the median 0, 0, 1, 1 by batch against 1/2 each); where a
 * slow few come together in one batch among a core, the batch medians
 * call the values serial and the signs do not (the lag-1 factor of the
 * values stays), and the median's interval narrows by the root of the
 * two factors' ratio. */
static void the_median_read_through_its_signs_and_its_bootstrap(void **state)
{
    (void)state;
    double x[10], ramp[20], core[20], few[20];
    for (int i = 0; i < 10; i++)
        x[i] = i + 1;
    assert_float_equal(vn__levels_mj_se(x, 10), 1.4660725, 1e-6);
    assert_true(isnan(vn__levels_mj_se(x, 1)));
    for (int i = 0; i < 20; i++) {
        ramp[i] = i;
        core[i] = i < 14 ? 100 + 0.1 * i : 110 + 10 * (i - 14);
        /* The core's values in turn, a slow four in the second batch. */
        few[i] = i >= 5 && i < 10 && i != 7 ? 130 + 10 * i : 100 + 0.02 * ((i * 9) % 20);
    }
    assert_float_equal(vn__levels_mj_se(core, 20), 1.6832769, 1e-6);
    assert_float_equal(vn__levels_sign_batch_factor(ramp, 20, 9.5), 20.0 / 3, 1e-12);
    assert_float_equal(vn__levels_sign_batch_factor(ramp, 7, 3), 1, 0);
    vn__levels d, s, m;
    const vn__levels_opts se = {.gate = 1}, signs = {.gate = 1, .signs = 1},
                          mj = {.gate = 1, .mj = 1};
    assert_int_equal(vn__levels_compute_with(few, NULL, 20, &se, &d), 0);
    assert_int_equal(vn__levels_compute_with(few, NULL, 20, &signs, &s), 0);
    assert_float_equal(vn__levels_sign_batch_factor(few, 20, d.median), 1, 0);
    assert_float_equal(s.serial, vn__levels_serial(few, 20), 0);
    assert_true(d.serial > 2 * s.serial);
    assert_float_equal(s.median, d.median, 0);
    /* As doubles: the macro casts its first term, not the difference. */
    double sh = s.median_hi - s.median, dh = d.median_hi - d.median;
    assert_float_equal(sh, dh * sqrt(s.serial / d.serial), 1e-6);
    /* The bootstrap's standard error in place of the spread's: the
     * median's half-width is t x that x sqrt(serial). */
    assert_int_equal(vn__levels_compute_with(x, NULL, 10, &mj, &m), 0);
    double mh = m.median_hi - m.median;
    assert_float_equal(mh, vn_t975(9) * 1.4660725 * sqrt(m.serial), 1e-5);
}

/* A low quantile of the processes (policy head_low): the normal's
 * variance factor of the quartile is 1.856767 (scipy: 0.1875 /
 * phi(z_0.25)^2) and of the median pi / 2; Maritz and Jarrett's error of
 * the 3rd of 1..10 is 1.3194217 and of the 5th the median's; of a tight
 * core of 14 under six far values, at the 5th, 0.1855745, a tenth of the
 * median's 1.68: the quantile reads the dense part. The median's own
 * interval stays what it was. */
static void a_low_quantile_of_the_processes(void **state)
{
    (void)state;
    double x[10], core[20], three[3] = {1, 2, 10};
    for (int i = 0; i < 10; i++)
        x[i] = i + 1;
    for (int i = 0; i < 20; i++)
        core[i] = i < 14 ? 100 + 0.1 * i : 110 + 10 * (i - 14);
    assert_float_equal(vn__levels_quantile_var(0.25), 1.8567675, 1e-6);
    assert_float_equal(vn__levels_quantile_var(0.5), M_PI / 2, 1e-9);
    assert_true(isnan(vn__levels_quantile_var(0)) && isnan(vn__levels_quantile_var(1)));
    assert_float_equal(vn__levels_quantile(x, 10, 0.25), 2 + 11.0 / 12, 1e-12);
    assert_float_equal(vn__levels_mj_se_at(x, 10, 3), 1.3194217, 1e-6);
    assert_float_equal(vn__levels_mj_se_at(x, 10, 5), vn__levels_mj_se(x, 10), 1e-12);
    assert_true(isnan(vn__levels_mj_se_at(x, 10, 0)) && isnan(vn__levels_mj_se_at(x, 10, 11)));
    assert_float_equal(vn__levels_mj_se_at(core, 20, 5), 0.1855745, 1e-6);
    const vn__levels_opts se = {.gate = 1}, low = {.gate = 1, .low = 0.25};
    vn__levels d, l, s;
    assert_int_equal(vn__levels_compute_with(x, NULL, 10, &se, &d), 0);
    assert_true(isnan(d.low) && isnan(d.low_hi));
    assert_int_equal(vn__levels_compute_with(x, NULL, 10, &low, &l), 0);
    assert_float_equal(l.low, 2 + 11.0 / 12, 1e-12);
    double lh = l.low_hi - l.low, ll = l.low - l.low_lo;
    assert_float_equal(lh, vn_t975(9) * 1.3194217 * sqrt(l.serial), 1e-5);
    assert_float_equal(ll, lh, 1e-12);
    assert_float_equal(l.median_hi, d.median_hi, 0);
    /* Below 5 values, the normal theory on their standard deviation. */
    assert_int_equal(vn__levels_compute_with(three, NULL, 3, &low, &s), 0);
    double sh = s.low_hi - s.low;
    assert_float_equal(sh, vn_t975(2) * s.sd * sqrt(1.8567675 / 3), 1e-6);
}

/* Processes that vary independently: the serial factor is an estimate
 * too, and one that only ever widens. Taken as the ratio of the batch
 * medians' variance to the plain one, it seldom reaches 2 and widens the
 * interval by about a tenth on average; compared as half-widths (Student's
 * t for 3 degrees of freedom against k - 1), it reached 2 in 20-43% of
 * such runs and widened by 21-41%. */
static void independent_processes_are_seldom_called_serial(void **state)
{
    (void)state;
    vn_rng g;
    vn_rng_seed(&g, 31);
    const size_t ks[] = {8, 12, 20}, reps = 2000;
    for (size_t c = 0; c < sizeof ks / sizeof ks[0]; c++) {
        double x[20], widen = 0;
        size_t over2 = 0;
        for (size_t r = 0; r < reps; r++) {
            for (size_t i = 0; i < ks[c]; i++)
                x[i] = 100 + normal(&g);
            vn__levels l;
            assert_int_equal(vn__levels_compute(x, NULL, ks[c], &l), 0);
            over2 += l.serial > 2;
            widen += sqrt(l.serial);
        }
        print_message("%zu processes: factor over 2 in %.3f, width x%.3f\n", ks[c],
                      (double)over2 / (double)reps, widen / (double)reps);
        assert_true((double)over2 / (double)reps < 0.15);
        assert_true(widen / (double)reps < 1.17);
    }
}

/* Three processes that agree more closely than their own samples allow
 * (a 1 ms sleep's, within 0.02% of each other, each median uncertain by
 * 1%) did so by chance: the interval is at least the one their samples
 * give (their variances' median, the normal quantile), not the tiny one
 * between them. Values further apart than that
 * keep their own spread, and without the variances nothing changes. */
static void processes_vary_at_least_as_their_samples_do(void **state)
{
    (void)state;
    const double close[] = {100, 100.01, 99.99};
    const double var[] = {1, 1, 1};
    vn__levels a, b;
    assert_int_equal(vn__levels_compute(close, var, 3, &a), 0);
    assert_int_equal(vn__levels_compute(close, NULL, 3, &b), 0);
    double z = 1.959963984540054;
    assert_true(fabs(a.median_hi - a.median - z * sqrt(M_PI / 2 / 3)) < 1e-9);
    assert_true(fabs(a.hi - a.mean - z / sqrt(3)) < 1e-9);
    assert_true(b.median_hi - b.median < 0.1);
    /* The reported spread stays the values' own, and none of it between. */
    assert_float_equal(a.sd, b.sd, 1e-12);
    assert_float_equal(a.between, 0, 0);
    const double apart[] = {90, 100, 110};
    assert_int_equal(vn__levels_compute(apart, var, 3, &a), 0);
    assert_int_equal(vn__levels_compute(apart, NULL, 3, &b), 0);
    assert_float_equal(a.median_hi, b.median_hi, 1e-12);
    assert_float_equal(a.hi, b.hi, 1e-12);
    /* The median of the variances: one process of few samples far apart
     * does not widen the others' interval. */
    const double one_wild[] = {1, 1, 10000};
    assert_int_equal(vn__levels_compute(close, one_wild, 3, &a), 0);
    assert_true(fabs(a.median_hi - a.median - z * sqrt(M_PI / 2 / 3)) < 1e-9);
}

/* A row's ratio to its baseline over processes is the median of the
 * processes' ratios with the median's interval: a process where a burst
 * met one row and not the other moves it no more than any other, where
 * it moved a geometric mean by its share and widened Student's t. In
 * simulation (rows 2x apart, 1% noise a process, one process in five with
 * one row 40% slower), the interval holds the true ratio at least 90% of
 * the time and the next run's ratio at least 75% (83% is what two right
 * intervals give), and the ratio moves from one run to the next far less
 * than the processes' geometric mean does. */
static void a_ratio_over_processes_is_their_median(void **state)
{
    (void)state;
    const double den[9] = {8247, 10035, 8252, 8254, 8375, 8915, 8250, 8252, 10869};
    const double num[9] = {4470, 5812, 4477, 4470, 4438, 4473, 4460, 6825, 4586};
    double r, lo, hi, lg[9];
    assert_int_equal(vn__levels_ratio(num, den, 9, &r, &lo, &hi), 0);
    vn__levels l;
    for (int i = 0; i < 9; i++)
        lg[i] = log(num[i] / den[i]);
    assert_int_equal(vn__levels_compute(lg, NULL, 9, &l), 0);
    assert_true(fabs(r - exp(l.median)) < 1e-12);
    assert_true(fabs(lo - exp(l.median_lo)) < 1e-12 && fabs(hi - exp(l.median_hi)) < 1e-12);
    /* The two processes a burst met pull the geometric mean and widen the
     * t-interval; the median's stays near the seven that agree. */
    assert_true(fabs(r - 0.5416) < 0.002);
    assert_true(hi - lo < exp(l.hi) - exp(l.lo));
    const double bad[2] = {1, -1}, one[2] = {1, 1};
    assert_int_equal(vn__levels_ratio(bad, one, 2, &r, &lo, &hi), VN_ERANGE);

    vn_rng g;
    vn_rng_seed(&g, 99);
    enum { RUNS = 400, K = 10 };
    double rs[RUNS], los[RUNS], his[RUNS], means[RUNS];
    size_t hit = 0;
    for (int i = 0; i < RUNS; i++) {
        double a[K], b[K];
        for (int k = 0; k < K; k++) {
            b[k] = 100 * (1 + 0.01 * normal(&g));
            a[k] = 50 * (1 + 0.01 * normal(&g));
            if (vn_rng_double(&g) < 0.2)
                *(vn_rng_double(&g) < 0.5 ? &a[k] : &b[k]) *= 1.4;
        }
        assert_int_equal(vn__levels_ratio(a, b, K, &rs[i], &los[i], &his[i]), 0);
        double s = 0;
        for (int k = 0; k < K; k++)
            s += log(a[k] / b[k]);
        means[i] = exp(s / K);
        hit += los[i] <= 0.5 && 0.5 <= his[i];
    }
    size_t next = 0;
    double spread_med = 0, spread_mean = 0;
    for (int i = 0; i + 1 < RUNS; i++) {
        next += los[i] <= rs[i + 1] && rs[i + 1] <= his[i];
        spread_med += fabs(log(rs[i + 1] / rs[i]));
        spread_mean += fabs(log(means[i + 1] / means[i]));
    }
    print_message("ratio over processes: true one held %.3f, next run's %.3f; mean |log| step "
                  "%.4f (geometric mean's %.4f)\n", (double)hit / RUNS,
                  (double)next / (RUNS - 1), spread_med / (RUNS - 1), spread_mean / (RUNS - 1));
    assert_true((double)hit / RUNS >= 0.90);
    assert_true((double)next / (RUNS - 1) >= 0.75);
    assert_true(spread_med < 0.7 * spread_mean);
}

/* Two runs' processes compared: the ratio of their headlines (here the
 * lower quartile) with an interval that joins the two headlines' own.
 * A few processes a neighbour slowed (one in five, 1.3 to 2 times) pull
 * the mean logs and widen an interval of them past a 10% shift (Welch's
 * found it in about 12% of such pairs); the quartile moves little. In
 * simulation, two runs of one program are called apart in at most 5% of
 * pairs, and a 10% shift is found in 80% or more. */
static void two_runs_compare_by_their_headlines(void **state)
{
    (void)state;
    const double a[6] = {100, 101, 99, 180, 100.5, 99.5}, b[6] = {110, 111, 109, 110.5, 240, 109};
    double r, lo, hi;
    assert_int_equal(vn__levels_ratio_headlines(a, 6, b, 6, 0.25, NULL, &r, &lo, &hi), 0);
    vn__levels la, lb;
    const vn__levels_opts o = {.gate = 1, .low = 0.25};
    assert_int_equal(vn__levels_compute_with(a, NULL, 6, &o, &la), 0);
    assert_int_equal(vn__levels_compute_with(b, NULL, 6, &o, &lb), 0);
    assert_true(fabs(r - lb.low / la.low) < 1e-12);
    double ha = fmax(log(la.low_hi / la.low), log(la.low / la.low_lo));
    double hb = fmax(log(lb.low_hi / lb.low), log(lb.low / lb.low_lo));
    assert_true(fabs(log(hi / r) - hypot(ha, hb)) < 1e-12);
    assert_true(fabs(log(r / lo) - hypot(ha, hb)) < 1e-12);
    /* The median when no low quantile is asked; one value a side: no interval. */
    assert_int_equal(vn__levels_ratio_headlines(a, 6, b, 6, 0, NULL, &r, &lo, &hi), 0);
    assert_true(fabs(r - 110.25 / 100.25) < 1e-12);
    assert_int_equal(vn__levels_ratio_headlines(a, 1, b, 6, 0.25, NULL, &r, &lo, &hi), 0);
    assert_true(isnan(lo) && isnan(hi));
    const double bad[2] = {1, 0};
    assert_int_equal(vn__levels_ratio_headlines(bad, 2, b, 6, 0.25, NULL, &r, &lo, &hi), VN_ERANGE);

    vn_rng g;
    vn_rng_seed(&g, 7);
    enum { RUNS = 400, K = 12 };
    size_t apart = 0, found = 0;
    for (int i = 0; i < RUNS; i++) {
        double x[K], y[K], z[K];
        double *sets[3] = {x, y, z};
        for (int s = 0; s < 3; s++)
            for (int k = 0; k < K; k++) {
                sets[s][k] = (s == 2 ? 110 : 100) * (1 + 0.01 * normal(&g));
                if (vn_rng_double(&g) < 0.2)
                    sets[s][k] *= 1.3 + 0.7 * vn_rng_double(&g);
            }
        assert_int_equal(vn__levels_ratio_headlines(x, K, y, K, 0.25, NULL, &r, &lo, &hi), 0);
        apart += lo > 1 || hi < 1;
        assert_int_equal(vn__levels_ratio_headlines(x, K, z, K, 0.25, NULL, &r, &lo, &hi), 0);
        found += lo > 1;
    }
    print_message("headlines compared: one program apart %.3f, a 10%% shift found %.3f\n",
                  (double)apart / RUNS, (double)found / RUNS);
    assert_true((double)apart / RUNS <= 0.05);
    assert_true((double)found / RUNS >= 0.80);
}

/* Two groups alike at a quantile: their lower quartiles (HF8: 100.08 of
 * four values from 100, and 100.57 of five from 100.5) within 1% of each
 * other, whatever the two slow values of the first do to its median; a
 * second group 2% lower is alike one-sided only; an empty group is
 * never alike. The groups come back sorted. */
static void groups_alike_at_a_quantile(void **state)
{
    (void)state;
    double a[] = {130, 100, 100.2, 125}, b[] = {101, 100.5, 100.7, 100.9, 100.6};
    assert_true(vn__levels_alike_at(a, 4, b, 5, 0.25, 0.01, 0));
    assert_float_equal(a[0], 100, 0);
    assert_float_equal(a[3], 130, 0);
    assert_false(vn__levels_alike_at(a, 4, b, 5, 0.5, 0.01, 0));
    double low[] = {98, 98.1, 98.2};
    assert_false(vn__levels_alike_at(a, 4, low, 3, 0.25, 0.01, 0));
    assert_true(vn__levels_alike_at(a, 4, low, 3, 0.25, 0.01, 1));
    assert_false(vn__levels_alike_at(a, 0, b, 5, 0.25, 0.01, 0));
    assert_false(vn__levels_alike_at(a, 4, b, 0, 0.25, 0.01, 1));
}

/* The steadier unit over two groups (two runs' processes), each about
 * its own means. A body whose ns hold (0.1%) while a sibling slows the
 * reference 0 to 14% from one process to the next, so that its cycles
 * scatter, reads steadier in ns, though a clock 10% slower in the second
 * group moved its ns there (and not its cycles): the shift between the
 * groups is left out, where the test over all of them at once sees it.
 * A body that follows the reference holds its cycles instead. Equal
 * variances in both units call one steadier in about 5% of draws (2.5%
 * each way); fewer pairs than groups + 3 tell nothing. */
static void the_steadier_unit_within_groups(void **state)
{
    (void)state;
    double ref[] = {1, 1, 1.04, 1.08, 1.12, 1, 1.14, 1.06}, ns[16], cy[16], add_ns[16], add_cy[16];
    for (size_t i = 0; i < 16; i++) {
        double clock = i < 8 ? 1 : 1.1, r = ref[i % 8] * clock, own = 1 + 0.001 * (double)(i % 3);
        ns[i] = 100 * clock * own;
        cy[i] = ns[i] * 3 / r;
        add_cy[i] = 300 * own;
        add_ns[i] = add_cy[i] * r / 3;
    }
    size_t len[] = {8, 8};
    assert_int_equal(vn__levels_which_steadier_in(ns, cy, len, 2, 0.5), -1);
    assert_int_equal(vn__levels_which_steadier(ns, cy, 16, 0.5), 0);
    assert_int_equal(vn__levels_which_steadier_in(add_ns, add_cy, len, 2, 0.5), 1);
    assert_int_equal(vn__levels_which_steadier(ns, cy, 8, 0.5),
                     vn__levels_which_steadier_in(ns, cy, len, 1, 0.5));
    size_t few[] = {2, 2};
    assert_int_equal(vn__levels_which_steadier_in(ns, cy, few, 2, 0.5), 0);
    vn_rng g;
    vn_rng_seed(&g, 11);
    int called = 0;
    const int draws = 4000;
    for (int d = 0; d < draws; d++) {
        for (size_t i = 0; i < 16; i++) {
            double shift = i < 8 ? 1 : 1.05, common = 1 + 0.01 * normal(&g);
            ns[i] = 100 * shift * common * (1 + 0.01 * normal(&g));
            cy[i] = 300 * shift * common * (1 + 0.01 * normal(&g));
        }
        called += vn__levels_which_steadier_in(ns, cy, len, 2, 1) != 0;
    }
    assert_true(called < 0.065 * draws);
    assert_true(called > 0.02 * draws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(groups_alike_at_a_quantile),
        cmocka_unit_test(the_steadier_unit_within_groups),
        cmocka_unit_test(batch_medians_see_a_state_that_lag_one_misses),
        cmocka_unit_test(independent_processes_are_seldom_called_serial),
        cmocka_unit_test(processes_vary_at_least_as_their_samples_do),
        cmocka_unit_test(one_process_intervals_hold_after_a_sequential_stop),
        cmocka_unit_test(intervals_across_processes_hold_what_varies_between_them),
        cmocka_unit_test(intervals_hold_over_layouts_and_lasting_states),
        cmocka_unit_test(states_far_apart_are_seen_through_ranks),
        cmocka_unit_test(runs_of_like_values_widen_the_interval),
        cmocka_unit_test(next_run_interval_is_sqrt2_wider),
        cmocka_unit_test(qn_and_the_gated_batch_factor),
        cmocka_unit_test(the_median_read_through_its_signs_and_its_bootstrap),
        cmocka_unit_test(a_low_quantile_of_the_processes),
        cmocka_unit_test(a_quantile_interval_from_ranks),
        cmocka_unit_test(one_slow_process_moves_the_median_little),
        cmocka_unit_test(a_ratio_over_processes_is_their_median),
        cmocka_unit_test(two_runs_compare_by_their_headlines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
