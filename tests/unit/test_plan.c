/* How a row's budget is split over its processes (engine/plan.c), driven
 * with synthetic processes: no clock, no machine. */
#include <math.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "engine/plan.h"
#include "main/all.h"

static vn__policy policy(int processes)
{
    vn_config c;
    vn_config_init(&c);
    c.processes = processes;
    vn__policy p;
    assert_int_equal(vn__policy_init(&p, &c), 0);
    return p;
}

/* A process that took n samples of a row in elapsed ms, setup ms of it
 * before the first, its median ns with variance var among its samples. */
static void process(vn__part *part, vn__decision *d, size_t n, double elapsed, double setup,
                    double ns, double var)
{
    memset(part, 0, sizeof *part);
    part->S.n = n;
    part->elapsed_ns = elapsed * 1e6;
    part->setup_ns = setup * 1e6;
    memset(d, 0, sizeof *d);
    d->head = VN__HEAD_MEDIAN;
    d->value = ns;
    d->var = var;
    d->used = n;
}

static vn__row_decision row_of(double ns, double sd_processes, double within)
{
    vn__row_decision rd;
    memset(&rd, 0, sizeof rd);
    rd.ns = (vn__unit_view){ns, ns * 0.99, ns * 1.01};
    rd.sd_processes = sd_processes;
    rd.within = within;
    return rd;
}

static void the_first_process_takes_half_the_fewest_samples(void **state)
{
    (void)state;
    vn__policy p = policy(0);
    vn__row_state st = {0, 0, 0, 0, NAN, NAN};
    vn__plan plan;
    vn__plan_next(NULL, 0, NULL, NULL, &p, &st, &plan);
    assert_int_equal(plan.samples, p.min_samples / 2 > p.process_samples ? p.min_samples / 2
                                                                         : p.process_samples);
    assert_true(fabs(plan.share_ns - p.budget_ns / 4) < 1);
    /* A count asked for: the budget split evenly from the start. */
    p = policy(4);
    vn__plan_next(NULL, 0, NULL, NULL, &p, &st, &plan);
    assert_true(plan.samples < p.min_samples);
    assert_true(fabs(plan.share_ns - p.budget_ns / 4) < 1);
    p = policy(2);
    vn__plan_next(NULL, 0, NULL, NULL, &p, &st, &plan);
    assert_true(fabs(plan.share_ns - p.budget_ns / 2) < 1);
}

/* Kalibera and Jones: where processes agree beyond what their samples
 * explain, few processes with many samples; where they disagree, many with
 * few. The samples grow at most twofold from one process to the next. */
static void the_split_follows_where_the_variation_is(void **state)
{
    (void)state;
    vn__policy p = policy(0);
    vn__part parts[2];
    vn__decision proc[2];
    process(&parts[0], &proc[0], 5, 20, 10, 100, 0.04);
    process(&parts[1], &proc[1], 10, 12, 2, 100, 0.04);
    vn__row_state st = {32e6, 15, 0, 0, NAN, NAN};
    vn__plan agree, apart;
    vn__row_decision rd = row_of(100, 0.0, 0.04);
    vn__plan_next(parts, 2, proc, &rd, &p, &st, &agree);
    rd = row_of(100, 20.0, 0.04);
    vn__plan_next(parts, 2, proc, &rd, &p, &st, &apart);
    assert_true(agree.samples > apart.samples);
    assert_true(agree.samples <= 20);
    assert_true(apart.samples >= p.process_samples);
    /* Disagreeing processes need more of them: each gets a smaller share. */
    assert_true(apart.share_ns < agree.share_ns);
}

/* After the first process alone, what a later one costs before its
 * samples is not the first's calibration and warmup: the second process
 * takes the samples the fewest asked for still need, not the most the
 * split allows, and another process is judged to cost a few samples. */
static void a_later_process_does_not_pay_the_first_ones_warmup(void **state)
{
    (void)state;
    vn__policy p = policy(0);
    vn__part part;
    vn__decision proc;
    /* 5 samples of 1 ms after 20 ms of calibration and warmup. */
    process(&part, &proc, 5, 25, 20, 100, 0.04);
    vn__row_state st = {25e6, 5, 0, 0, NAN, NAN};
    vn__row_decision rd = row_of(100, NAN, 0.04);
    vn__plan plan;
    vn__plan_next(&part, 1, &proc, &rd, &p, &st, &plan);
    assert_int_equal(plan.samples, p.min_samples - 5);
    /* Two samples' time before, and the fewest samples a process takes. */
    double least = vn__plan_least_ns(&part, 1, &p);
    assert_true(fabs(least - (2 + (double)p.process_samples) * 1e6) < 1);
    /* A first process whose setup was short keeps its own. */
    process(&part, &proc, 5, 5.5, 0.5, 100, 0.04);
    least = vn__plan_least_ns(&part, 1, &p);
    assert_true(fabs(least - (0.5 + (double)p.process_samples) * 1e6) < 1);
}

/* With a count asked for, a process takes the samples the split asks for,
 * not all its share of the budget would hold, and the share is what is
 * left over the processes to go. */
static void a_count_asked_for_splits_what_is_left_evenly(void **state)
{
    (void)state;
    vn__policy p = policy(3);
    vn__part parts[1];
    vn__decision proc[1];
    process(&parts[0], &proc[0], 5, 20, 10, 100, 4);
    vn__row_state st = {20e6, 5, 0, 0, NAN, NAN};
    vn__row_decision rd = row_of(100, NAN, 4);
    vn__plan plan;
    vn__plan_next(parts, 1, proc, &rd, &p, &st, &plan);
    assert_true(plan.samples <= 10);
    assert_true(plan.samples + st.samples >= p.min_samples);
    assert_true(fabs(plan.share_ns - (p.budget_ns - 20e6) / 2) < 1);
}

/* A row of a run that began at 0: its result, policy (processes as given)
 * and how it stands, stopped for its precision after its last process
 * (the run's last-th) ended at seen ms, having spent spent ms of its
 * budget. */
typedef struct late_row {
    job j;
    vn_result res;
    vn__part part;
} late_row;

static void late_row_init(late_row *r, const char *name, const char *baseline, int processes,
                          size_t last, double seen, double spent)
{
    memset(r, 0, sizeof *r);
    snprintf(r->res.name, sizeof r->res.name, "%s", name);
    snprintf(r->res.baseline, sizeof r->res.baseline, "%s", baseline);
    r->res.stop = VN_STOP_PRECISION;
    r->j.res = &r->res;
    r->j.pol = policy(processes);
    r->j.parts = &r->part;
    r->j.nparts = 1;
    r->part.run_process = last;
    r->j.done = 1;
    r->part.end_ns = (uint64_t)(seen * 1e6);
    r->j.rstate.spent_ns = spent * 1e6;
    r->j.rstate.next_cost_ns = 10e6;
}

static void a_row_that_stopped_early_comes_back_once_at_the_end(void **state)
{
    (void)state;
    late_row early, late, budget, timed_out, counted, off, bound, few;
    late_row_init(&early, "early", "", 0, 2, 300, 100);
    late_row_init(&late, "late", "", 0, 15, 800, 100);
    late_row_init(&budget, "budget", "", 0, 2, 300, 995);
    late_row_init(&timed_out, "timed_out", "", 0, 2, 300, 100);
    timed_out.res.stop = VN_STOP_MAX_TIME;
    late_row_init(&counted, "counted", "", 5, 2, 300, 100);
    late_row_init(&off, "off", "", 0, 2, 300, 100);
    assert_int_equal(vn__policy_parse(&off.j.pol, "late_look=0", NULL, 0), 0);
    late_row_init(&bound, "bound", "", 0, 2, 300, 100);
    bound.j.rdec.bound = 1;
    job *jobs[] = {&early.j, &late.j, &budget.j, &timed_out.j, &counted.j, &off.j, &bound.j};
    /* The run is 1000 ms and 20 processes old: only the row that stopped
     * in the first half of them, with budget left for another process,
     * comes back. */
    assert_int_equal(vn__plan_late(jobs, 7, 0, (uint64_t)1000e6, 20), 1);
    assert_false(early.j.done);
    assert_true(early.j.looked_late);
    for (size_t i = 1; i < 7; i++)
        assert_true(jobs[i]->done);
    /* Decided again and stopped early once more: it has had its look. */
    early.j.done = 1;
    assert_int_equal(vn__plan_late(jobs, 7, 0, (uint64_t)1000e6, 20), 0);
    assert_true(early.j.done);
    /* Half the run exactly, in time and in processes, is not early. */
    late_row_init(&early, "early", "", 0, 9, 500, 100);
    assert_int_equal(vn__plan_late(jobs, 1, 0, (uint64_t)1000e6, 20), 0);
    /* A first process that took most of a short run: the fifth of twenty
     * ended at 80% of its time, and it comes back all the same. */
    late_row_init(&few, "few", "", 0, 4, 800, 100);
    job *one[] = {&few.j};
    assert_int_equal(vn__plan_late(one, 1, 0, (uint64_t)1000e6, 20), 1);
    /* Early in time though late in processes (a long last process of its
     * own): it comes back too. */
    late_row_init(&few, "few", "", 0, 15, 300, 100);
    assert_int_equal(vn__plan_late(one, 1, 0, (uint64_t)1000e6, 20), 1);
}

static void a_baseline_comes_back_with_the_row_compared_with_it(void **state)
{
    (void)state;
    late_row base, row;
    late_row_init(&base, "two_loops", "", 0, 19, 900, 100);
    late_row_init(&row, "merged_loop", "two_loops", 0, 3, 200, 100);
    job *jobs[] = {&base.j, &row.j};
    assert_int_equal(vn__plan_late(jobs, 2, 0, (uint64_t)1000e6, 20), 1);
    assert_false(row.j.done);
    assert_false(base.j.done); /* their ratio is taken process by process */
    assert_false(base.j.looked_late);
}

static void a_row_on_a_shared_core_waits_while_the_run_goes_on(void **state)
{
    (void)state;
    late_row shared, own, going, bound, spent, most, off;
    late_row_init(&shared, "shared", "", 0, 3, 300, 100);
    shared.j.rdec.on_shared = 1;
    late_row_init(&own, "own", "", 0, 3, 300, 100);
    late_row_init(&going, "going", "", 0, 3, 300, 100);
    going.j.done = 0;
    late_row_init(&bound, "bound", "", 0, 3, 300, 100);
    bound.j.rdec.on_shared = bound.j.rdec.bound = 1;
    late_row_init(&spent, "spent", "", 0, 3, 300, 995);
    spent.j.rdec.on_shared = 1;
    late_row_init(&most, "most", "", 0, 3, 300, 100);
    most.j.rdec.on_shared = 1;
    most.j.nparts = most.j.pol.max_processes;
    late_row_init(&off, "off", "", 0, 3, 300, 100);
    off.j.rdec.on_shared = 1;
    assert_int_equal(vn__policy_parse(&off.j.pol, "wait_own=0", NULL, 0), 0);
    job *jobs[] = {&shared.j, &own.j, &going.j, &bound.j, &spent.j, &most.j, &off.j};
    /* Another row still goes on: of the rows that stopped, only the one on
     * a shared core, a time and not a bound, with budget and processes
     * left and the rule on, goes on with it. */
    assert_int_equal(vn__plan_wait_own(jobs, 7), 1);
    assert_false(shared.j.done);
    for (size_t i = 1; i < 7; i++)
        assert_int_equal(jobs[i]->done, i != 2);
    /* Nothing else goes on: it stops where its precision stopped it. */
    shared.j.done = 1;
    going.j.done = 1;
    assert_int_equal(vn__plan_wait_own(jobs, 7), 0);
    assert_true(shared.j.done);
    /* A count asked for is run whole, no more. */
    late_row counted;
    late_row_init(&counted, "counted", "", 5, 3, 300, 100);
    counted.j.rdec.on_shared = 1;
    going.j.done = 0;
    job *two[] = {&counted.j, &going.j};
    assert_int_equal(vn__plan_wait_own(two, 2), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_first_process_takes_half_the_fewest_samples),
        cmocka_unit_test(the_split_follows_where_the_variation_is),
        cmocka_unit_test(a_count_asked_for_splits_what_is_left_evenly),
        cmocka_unit_test(a_later_process_does_not_pay_the_first_ones_warmup),
        cmocka_unit_test(a_row_that_stopped_early_comes_back_once_at_the_end),
        cmocka_unit_test(a_baseline_comes_back_with_the_row_compared_with_it),
        cmocka_unit_test(a_row_on_a_shared_core_waits_while_the_run_goes_on),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
