/* Every engine asks the one decision (vn__decide, engine/decide.c) and none
 * decides on its own: a row in one process, threads started together, the
 * runs of a command, a kernel module's calls. Each is run here and must
 * have asked it; tests/layers/one_decision.sh checks that no other file
 * turns anything into a reason to stop. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/decide.h"
#include "engine/internal.h"
#include "kbench/kbench.h"
#include "main/all.h"

static void spin(vn_state *st)
{
    uint64_t x = 1;
    while (vn_next(st)) {
        x = x * 3 + 1;
        vn_keep(x);
    }
}

static void run_suite(int threads)
{
    vn_suite *s = vn_suite_create();
    assert_non_null(s);
    assert_int_equal(vn_suite_add(s, "spin", spin, NULL), 0);
    vn_config c;
    vn_config_init(&c);
    c.max_time = 0.05;
    c.warmup = 0;
    c.threads = threads;
    c.counters = "none";
    c.dma_latency_us = -1;
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    const vn_result *b = vn_results_at(&r, 0);
    assert_true(b->nsamples > 0);
    /* The reason it stopped is the decision's own. */
    assert_true(b->stop == VN_STOP_PRECISION || b->stop == VN_STOP_MAX_TIME ||
                b->stop == VN_STOP_MAX_SAMPLES);
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

static void a_row_in_one_process_asks_it(void **state)
{
    (void)state;
    size_t before = vn__decisions();
    run_suite(1);
    assert_true(vn__decisions() > before);
}

static void threads_started_together_ask_it(void **state)
{
    (void)state;
    size_t before = vn__decisions();
    run_suite(2);
    assert_true(vn__decisions() > before);
}

static int fake_exec(const vn_exec_opts *o, double *wall_ns, vn_proc_usage *u, char *err, size_t errlen,
                     void *ctx)
{
    (void)o, (void)err, (void)errlen, (void)ctx;
    memset(u, 0, sizeof *u);
    u->tree_peak_kib = -1;
    *wall_ns = 1e6;
    return VN_EXEC_OK;
}

/* vernier run of `true` through ex (ctx its context), with a shell or
 * not, runs times (0: adaptive, for at most max_time s of runs; 0: the
 * default); r is the caller's to free. */
static void run_true(vn_run_config *c, vn_executor ex, void *ctx, int shell, size_t runs,
                     double max_time, vn_run_results *r)
{
    static const char *const cmds[] = {"true"};
    vn_run_config_init(c);
    c->commands = cmds;
    c->ncommands = 1;
    c->shell = shell;
    c->runs = runs;
    if (max_time > 0)
        c->min_time = max_time;
    c->tree_memory = 0;
    c->dma_latency_us = -1;
    c->executor = ex;
    c->executor_ctx = ctx;
    vn_run_results_init(r);
    vn_run_compare *cmp = NULL;
    size_t ncmp = 0;
    vn_run_failure fail;
    char err[256];
    assert_int_equal(vn_run_commands(c, r, &cmp, &ncmp, &fail, err, sizeof err), 0);
    free(cmp);
}

static void the_runs_of_a_command_ask_it(void **state)
{
    (void)state;
    vn_run_config c;
    vn_run_results r;
    size_t before = vn__decisions();
    run_true(&c, fake_exec, NULL, 0, 0, 0, &r);
    /* Runs of exactly 1 ms: the median's interval is within the precision
     * at the first look from the fewest runs on, and again at the next. */
    size_t asked = vn__decisions() - before;
    assert_true(asked >= 2);
    assert_int_equal(r.commands[0].stop, VN_STOP_PRECISION);
    assert_int_equal(r.commands[0].nsamples, c.min_runs + 1);
    vn_run_results_free(&r);
}

/* The shell's empty command takes 0.5 to 1.5 ms, one of 11 steps, a
 * different one each call; the command itself 3 to 3.2 ms, one of 7. */
typedef struct shaky {
    unsigned shell_calls, runs;
} shaky;

static double shell_step(unsigned k) { return 0.5e6 + 1e6 * (double)(k * 7 % 11) / 10; }

static int shaky_shell(const vn_exec_opts *o, double *wall_ns, vn_proc_usage *u, char *err,
                       size_t errlen, void *ctx)
{
    (void)err, (void)errlen;
    shaky *s = ctx;
    memset(u, 0, sizeof *u);
    u->tree_peak_kib = -1;
    int empty = o->argv[1] && o->argv[2] && !o->argv[2][0];
    *wall_ns = empty ? shell_step(s->shell_calls++)
                     : 3e6 + 0.2e6 * (double)(s->runs++ * 5 % 7) / 6;
    return VN_EXEC_OK;
}

static void the_runs_net_of_the_shell_carry_its_uncertainty(void **state)
{
    (void)state;
    shaky s = {0, 0};
    vn_run_config c;
    vn_run_results r;
    run_true(&c, shaky_shell, &s, 1, 20, 0, &r);
    const vn_run_result *x = &r.commands[0];
    /* The shell's steps a tenth of a millisecond apart never pin its
     * median to half the precision: it ran the most times, after 3 to warm
     * up, and its interval is that of those runs. */
    assert_int_equal(s.shell_calls, 3 + 300);
    double sh[300], shm, shlo, shhi;
    for (unsigned k = 0; k < 300; k++)
        sh[k] = shell_step(k + 3);
    assert_int_equal(vn_median_ci(sh, 300, &shm, &shlo, &shhi), 0);
    assert_true(shhi - shlo > 0.1e6);
    assert_true(fabs(x->shell_ns - shm) < 1e-6);
    /* The runs' own interval, net of the shell's median. */
    double net[20], m, lo, hi;
    assert_int_equal(x->nsamples, 20);
    for (size_t i = 0; i < 20; i++)
        net[i] = x->samples[i].value - shm;
    assert_int_equal(vn_median_ci(net, 20, &m, &lo, &hi), 0);
    assert_true(hi - lo > 0);
    /* Both uncertainties, each side's half-widths in quadrature. */
    assert_true(fabs(x->stats.median - m) < 1e-6);
    assert_true(fabs((m - x->stats.median_ci[0]) - hypot(m - lo, shhi - shm)) < 1e-6);
    assert_true(fabs((x->stats.median_ci[1] - m) - hypot(hi - m, shm - shlo)) < 1e-6);
    assert_true(fabs(x->stats.median_ci_level - 0.95) < 1e-12);
    vn_run_results_free(&r);
}

/* The same shell, its median known to no better than 0.1 ms, and runs
 * left to adapt: more runs of the command cannot bring the median's
 * interval within 1% of its 2 ms, so they run for the budget, and the
 * warning says the shell's start-up is why, and what to do. */
static void a_shell_known_too_roughly_is_named(void **state)
{
    (void)state;
    shaky s = {0, 0};
    vn_run_config c;
    vn_run_results r;
    run_true(&c, shaky_shell, &s, 1, 0, 0.2, &r);
    const vn_run_result *x = &r.commands[0];
    assert_int_equal(x->stop, VN_STOP_MAX_TIME);
    const char *why = NULL;
    for (int i = 0; i < x->nwarnings; i++)
        if (!strcmp(x->warnings[i].id, "max_time"))
            why = x->warnings[i].message;
    assert_non_null(why);
    assert_non_null(strstr(why, "the shell's start-up"));
    assert_non_null(strstr(why, "(-N)"));
    vn_run_results_free(&r);
}

static void a_kernel_modules_calls_ask_it(void **state)
{
    (void)state;
    uint64_t empty[40], work[40];
    for (int i = 0; i < 40; i++) {
        empty[i] = 100 + (uint64_t)(i % 3);
        work[i] = 1000 + (uint64_t)(i % 7);
    }
    vn__kbench_row rows[2] = {{.name = "empty", .samples = empty, .n = 40},
                              {.name = "work", .samples = work, .n = 40}};
    vn_results r;
    size_t before = vn__decisions();
    assert_int_equal(vn__kbench_results(rows, 2, 1e9, &r), 0);
    assert_true(vn__decisions() >= before + 2);
    const vn_result *w = vn_results_at(&r, 1);
    /* 1003 cycles net of the empty target's 101, at 1 GHz. */
    assert_false(w->upper_bound);
    assert_true(fabs(w->stats.median - 902) < 3);
    /* The empty target against no empty loop of its own is a median too. */
    assert_false(vn_results_at(&r, 0)->upper_bound);
    vn__results_clear(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_row_in_one_process_asks_it),
        cmocka_unit_test(threads_started_together_ask_it),
        cmocka_unit_test(the_runs_of_a_command_ask_it),
        cmocka_unit_test(the_runs_net_of_the_shell_carry_its_uncertainty),
        cmocka_unit_test(a_shell_known_too_roughly_is_named),
        cmocka_unit_test(a_kernel_modules_calls_ask_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
