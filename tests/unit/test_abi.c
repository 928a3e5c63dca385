/* Structs that grow (docs/layers.md): a caller's struct from an older
 * header keeps working, its missing fields taking their defaults, and one
 * that no _init set, or one from a newer header, is refused with VN_EABI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "abi.h"
#include "vernier.h"

/* Two layouts of one struct: the second added a field. */
typedef struct old_opts {
    size_t size;
    int a;
} old_opts;
typedef struct new_opts {
    size_t size;
    int a;
    double b;
} new_opts;

static void init_new(new_opts *o)
{
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
    o->a = 1;
    o->b = 2.5;
}

static void an_older_caller_gets_the_defaults_of_what_it_lacks(void **state)
{
    (void)state;
    old_opts old = {sizeof old, 7};
    new_opts full;
    init_new(&full);
    assert_int_equal(vn__abi_copy(&full, sizeof full, &old, VN__SIZE_THROUGH(old_opts, a)), 0);
    assert_int_equal(full.a, 7);          /* the caller's */
    assert_true(full.b == 2.5);           /* the default: its header had no b */
    assert_int_equal(full.size, sizeof full);

    new_opts cur;
    init_new(&cur);
    cur.b = 9;
    init_new(&full);
    assert_int_equal(vn__abi_copy(&full, sizeof full, &cur, VN__SIZE_THROUGH(old_opts, a)), 0);
    assert_true(full.b == 9);
}

static void a_size_no_init_set_is_refused(void **state)
{
    (void)state;
    new_opts full, keep;
    init_new(&full);
    keep = full;
    struct {
        size_t size;
        int a;
        double b, c;
    } newer = {sizeof newer, 3, 4, 5};
    assert_int_equal(vn__abi_copy(&full, sizeof full, &newer, VN__SIZE_THROUGH(old_opts, a)), VN_EABI);
    old_opts zero = {0, 3};
    assert_int_equal(vn__abi_copy(&full, sizeof full, &zero, VN__SIZE_THROUGH(old_opts, a)), VN_EABI);
    old_opts odd = {sizeof(new_opts) - 1, 3};
    assert_int_equal(vn__abi_copy(&full, sizeof full, &odd, VN__SIZE_THROUGH(old_opts, a)), VN_EABI);
    assert_memory_equal(&full, &keep, sizeof full); /* untouched */
    assert_non_null(strstr(vn_strerror(VN_EABI), "vernier.h"));
}

static int fake_exec(const vn_exec_opts *o, double *wall_ns, vn_proc_usage *u, char *err,
                     size_t errlen, void *ctx)
{
    (void)o, (void)err, (void)errlen;
    ++*(int *)ctx;
    memset(u, 0, sizeof *u);
    u->tree_peak_kib = -1;
    *wall_ns = 1e6;
    return VN_EXEC_OK;
}

static int run(vn_run_config *c, int *calls, char *err, size_t errlen)
{
    static const char *const cmds[] = {"true"};
    c->commands = cmds;
    c->ncommands = 1;
    c->runs = 3;
    c->tree_memory = 0;
    c->dma_latency_us = -1;
    c->executor = fake_exec;
    c->executor_ctx = calls;
    vn_run_results r;
    vn_run_results_init(&r);
    vn_run_compare *cmp = NULL;
    size_t ncmp = 0;
    vn_run_failure fail;
    int rc = vn_run_commands(c, &r, &cmp, &ncmp, &fail, err, errlen);
    if (rc == 0) {
        assert_int_equal(r.ncommands, 1);
        assert_int_equal(r.commands[0].size, sizeof r.commands[0]);
        assert_int_equal(r.commands[0].nsamples, 3);
        free(cmp);
        vn_run_results_free(&r);
    }
    return rc;
}

static void the_runner_checks_its_config_size(void **state)
{
    (void)state;
    char err[256] = "";
    int calls = 0;
    vn_run_config c;
    vn_run_config_init(&c);
    assert_int_equal(c.size, sizeof c);
    assert_int_equal(run(&c, &calls, err, sizeof err), 0);
    assert_int_equal(calls, 3);

    /* Not set up by vn_run_config_init: refused before anything runs. */
    memset(&c, 0, sizeof c);
    calls = 0;
    assert_int_equal(run(&c, &calls, err, sizeof err), VN_EABI);
    assert_int_equal(calls, 0);
    assert_non_null(strstr(err, "vernier.h"));

    /* From a newer header than this library's. */
    vn_run_config_init(&c);
    c.size = sizeof c + sizeof(size_t);
    assert_int_equal(run(&c, &calls, err, sizeof err), VN_EABI);
    assert_int_equal(calls, 0);
}

/* A benchmark to run: one iteration that does nothing. */
static void nothing(vn_state *st)
{
    while (vn_next(st))
        ;
}

static void the_engine_checks_its_config_size(void **state)
{
    (void)state;
    vn_suite *s = vn_suite_create();
    assert_non_null(s);
    assert_int_equal(vn_suite_add(s, "nothing", nothing, NULL), 0);
    vn_config c;
    vn_config_init(&c);
    assert_int_equal(c.size, sizeof c);
    c.max_time = 0.01;
    c.warmup = 0;
    c.dma_latency_us = -1;
    vn_results r;
    /* A caller whose header ends at interleave: the rest keeps its
     * defaults, and the run goes ahead. */
    c.size = VN__SIZE_THROUGH(vn_config, interleave);
    assert_int_equal(vn_suite_run(s, &c, &r), 0);
    assert_int_equal(r.nbench, 1);
    vn_results_free(&r);
    /* Not set up by vn_config_init, or from a newer header: refused. */
    c.size = 0;
    assert_int_equal(vn_suite_run(s, &c, &r), VN_EABI);
    c.size = sizeof c + sizeof(size_t);
    assert_int_equal(vn_suite_run(s, &c, &r), VN_EABI);
    vn_suite_destroy(s);
}

/* The results are the caller's memory too: one not set up by
 * vn_run_results_init, or from another header, is refused before any run. */
static void the_runner_checks_its_results_size(void **state)
{
    (void)state;
    static const char *const cmds[] = {"true"};
    int calls = 0;
    vn_run_config c;
    vn_run_config_init(&c);
    c.commands = cmds;
    c.ncommands = 1;
    c.runs = 2;
    c.tree_memory = 0;
    c.dma_latency_us = -1;
    c.executor = fake_exec;
    c.executor_ctx = &calls;
    vn_run_compare *cmp = NULL;
    size_t ncmp = 0;
    vn_run_failure fail;
    char err[256] = "";
    size_t sizes[] = {0, sizeof(vn_run_results) - sizeof(size_t), sizeof(vn_run_results) + sizeof(size_t)};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        vn_run_results r;
        memset(&r, 0, sizeof r);
        r.size = sizes[i];
        assert_int_equal(vn_run_commands(&c, &r, &cmp, &ncmp, &fail, err, sizeof err), VN_EABI);
        assert_non_null(strstr(err, "vernier.h"));
    }
    assert_int_equal(calls, 0);
    vn_run_results_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_older_caller_gets_the_defaults_of_what_it_lacks),
        cmocka_unit_test(a_size_no_init_set_is_refused),
        cmocka_unit_test(the_runner_checks_its_config_size),
        cmocka_unit_test(the_engine_checks_its_config_size),
        cmocka_unit_test(the_runner_checks_its_results_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
