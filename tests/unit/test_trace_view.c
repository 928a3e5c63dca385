/* vernier trace without a kernel: the kallsyms lookup on fixed text, and
 * the calls turned into one row of results with the findings a trace adds
 * (its mode, the probes' cost, losses, per-CPU and per-process lines). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "stats/levels.h"
#include "stats/stats_api.h"
#include "trace/trace.h"
#include "report/report.h"
#include "text_checks.h"

static int lookup(const char *text, const char *name)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    int t = vn__kallsyms_type(f, name);
    fclose(f);
    return t;
}

static void kallsyms(void **state)
{
    (void)state;
    const char *text = "ffffffff813827a0 T __pfx___x64_sys_getppid\n"
                       "ffffffff813827b0 t __do_sys_getppid\n"
                       "ffffffff813827b0 T __x64_sys_getppid\n"
                       "0000000000000000 d jiffies_64\n"
                       "ffffffffc0001000 t ext4_read\t[ext4]\n";
    assert_int_equal(lookup(text, "__x64_sys_getppid"), 'T');
    assert_int_equal(lookup(text, "__do_sys_getppid"), 't');
    assert_int_equal(lookup(text, "jiffies_64"), 'd');
    assert_int_equal(lookup(text, "ext4_read"), 't');
    /* A prefix or a longer name is not the name. */
    assert_int_equal(lookup(text, "__x64_sys_getpp"), 0);
    assert_int_equal(lookup(text, "getppid"), 0);
    assert_int_equal(lookup("", "x"), 0);
}

static void add(vn__trace_calls *c, uint64_t ns, uint32_t pid, uint32_t cpu, const char *comm)
{
    struct vn_trace_event e;
    memset(&e, 0, sizeof e);
    e.ns = ns;
    e.pid = pid;
    e.cpu = cpu;
    snprintf(e.comm, sizeof e.comm, "%s", comm);
    assert_int_equal(vn__trace_calls_add(c, &e), 0);
}

static const vn_finding *find(const vn_results *r, const char *id, size_t k)
{
    for (size_t i = 0; i < r->nfindings; i++)
        if (!strcmp(r->findings[i].id, id) && k-- == 0)
            return &r->findings[i];
    return NULL;
}

static void view(void **state)
{
    (void)state;
    vn__trace_calls c;
    memset(&c, 0, sizeof c);
    /* 3000 calls, past the first growth: pid 10 on CPU 1 takes 100..299 ns,
     * pid 20 on CPU 2 takes 1000 ns. */
    for (int i = 0; i < 2000; i++)
        add(&c, 100 + (uint64_t)(i % 200), 10, 1, "worker");
    for (int i = 0; i < 1000; i++)
        add(&c, 1000, 20, 2, "other");
    assert_int_equal(c.n, 3000);
    assert_int_equal(c.nprocs, 2);
    vn__trace_info in;
    memset(&in, 0, sizeof in);
    in.func = "vfs_read";
    in.mode = VN__TRACE_KPROBE;
    in.fallback = "'vfs_read' is not a function in the kernel's BTF";
    in.elapsed = 2;
    in.probe_ns = 85;
    snprintf(in.probe, sizeof in.probe, "kprobe/kretprobe on __x64_sys_getppid");
    in.lost.events = 3;
    vn_results r;
    assert_int_equal(vn__trace_view(&c, &in, &r), 0);
    assert_int_equal(r.nbench, 1);
    const vn_result *x = vn_results_at(&r, 0);
    assert_string_equal(x->name, "vfs_read");
    assert_int_equal(x->nsamples, 3000);
    assert_int_equal(x->samples[2999].iters, 1);
    assert_true(x->samples[2999].value == 1000);
    assert_true(x->overhead_ns == 0);
    assert_int_equal(x->stats.n, 3000);
    /* The interval shown is the next trace's: the calls' own interval of
     * their median (est_ci), sqrt(2) wider on the log scale. */
    double med, elo, ehi;
    assert_int_equal(vn_median_ci(c.ns, c.n, &med, &elo, &ehi), 0);
    assert_true(x->est_ci[0] == elo && x->est_ci[1] == ehi && x->stats.median == med);
    double lo = elo, hi = ehi;
    vn__levels_next_run(med, &lo, &hi);
    assert_true(x->stats.median_ci[0] == lo && x->stats.median_ci[1] == hi);
    assert_true(lo <= elo && hi >= ehi && isnan(x->cycles_est_ci[0]));
    /* The row's settings are the run's; the results schema wants them > 0. */
    assert_true(x->max_time == 2 && r.config.max_time == 2);
    assert_true(x->precision == r.config.precision && x->precision > 0);
    assert_int_equal(x->min_samples, 1);

    /* The function, its probes, its calls and the time they took; why
     * not fentry/fexit, in the fallback's own words, in the explanation. */
    const vn_finding *f = find(&r, "trace", 0);
    assert_non_null(f);
    assert_true(tc_in_order(f->brief, "vfs_read", "kprobe/kretprobe", NULL));
    assert_true(tc_numbers_are(f->brief, (const double[]){3000, 2.00}, 2));
    assert_non_null(strstr(f->explanation, in.fallback));
    /* The probes' cost, and what it was measured on. */
    f = find(&r, "trace_probe_cost", 0);
    assert_non_null(f);
    assert_non_null(strstr(f->brief, "85 ns"));
    assert_non_null(strstr(f->brief, in.probe));
    /* The calls lost, all 3 of them to the ring buffer (its count first
     * of the causes), none to the others. */
    f = find(&r, "trace_lost", 0);
    assert_non_null(f);
    assert_true(tc_numbers_are(f->brief, (const double[]){3, 3, 0, 0, 0}, 5));
    /* The busiest first: the CPU or process, its calls, their median and
     * p99, of each group's own calls. */
    f = find(&r, "trace_cpu", 0);
    assert_true(tc_numbers_are(f->brief, (const double[]){1, 2000, 200, 297}, 4));
    f = find(&r, "trace_cpu", 1);
    assert_true(tc_numbers_are(f->brief, (const double[]){2, 1000, 1000, 1000}, 4));
    assert_null(find(&r, "trace_cpu", 2));
    f = find(&r, "trace_pid", 0);
    assert_true(tc_numbers_are(f->brief, (const double[]){10, 2000, 200, 297}, 4));
    assert_non_null(strstr(f->brief, "(worker)"));
    f = find(&r, "trace_pid", 1);
    assert_true(tc_numbers_are(f->brief, (const double[]){20, 1000, 1000, 1000}, 4));
    assert_non_null(strstr(f->brief, "(other)"));
    assert_null(find(&r, "trace_pid", 2));
    vn__results_clear(&r);
    vn__trace_calls_free(&c);
}

static void one_cpu_no_breakdown_and_no_calls(void **state)
{
    (void)state;
    vn__trace_calls c;
    memset(&c, 0, sizeof c);
    vn__trace_info in;
    memset(&in, 0, sizeof in);
    in.func = "f";
    in.probe_ns = NAN;
    snprintf(in.probe, sizeof in.probe, "no getppid function");
    vn_results r;
    assert_int_equal(vn__trace_view(&c, &in, &r), VN_EINVAL);
    add(&c, 5, 1, 0, "a");
    add(&c, 7, 1, 0, "a");
    assert_int_equal(vn__trace_view(&c, &in, &r), 0);
    /* One CPU and one process say nothing the headline does not. */
    assert_null(find(&r, "trace_cpu", 0));
    assert_null(find(&r, "trace_pid", 0));
    assert_null(find(&r, "trace_lost", 0));
    /* A cost not measured is no number: the finding gives the reason. */
    const char *cost = find(&r, "trace_probe_cost", 0)->brief;
    assert_non_null(strstr(cost, in.probe));
    assert_int_equal(tc_numbers(cost, NULL, 0), 0);
    vn__results_clear(&r);
    vn__trace_calls_free(&c);
}

static size_t matches(const char *text, const char *pattern, char **names, size_t max, int *rc)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    size_t n = 0;
    *rc = vn__kallsyms_match(f, pattern, names, max, &n);
    fclose(f);
    return n;
}

/* Patterns take text functions only, once each, without compiler-made
 * copies; more matches than asked for say so. */
static void kallsyms_patterns(void **state)
{
    (void)state;
    const char *text = "ffffffff81000000 T vfs_read\n"
                       "ffffffff81000010 t vfs_readv\n"
                       "ffffffff81000020 t vfs_read.cold\n"
                       "ffffffff81000030 D vfs_data\n"
                       "ffffffff81000040 T vfs_read\n"
                       "ffffffffc0001000 t vfs_mod\t[mymod]\n"
                       "ffffffff81000050 T vfs_write\n";
    char *names[8];
    int rc;
    size_t n = matches(text, "vfs_*", names, 8, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(n, 4);
    assert_string_equal(names[0], "vfs_read");
    assert_string_equal(names[1], "vfs_readv");
    assert_string_equal(names[2], "vfs_mod");
    assert_string_equal(names[3], "vfs_write");
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    n = matches(text, "vfs_read?", names, 8, &rc);
    assert_true(rc == 0 && n == 1 && !strcmp(names[0], "vfs_readv"));
    free(names[0]);
    n = matches(text, "vfs_*", names, 2, &rc);
    assert_true(rc == VN_E2BIG_MATCHES && n == 2);
    free(names[0]);
    free(names[1]);
    assert_int_equal(matches(text, "nothing*", names, 8, &rc), 0);
    assert_int_equal(rc, 0);
}

/* Two functions traced at once: a row each, each with its own findings,
 * and no per-CPU lines (which would not say whose calls they are). */
static void two_functions_a_row_each(void **state)
{
    (void)state;
    vn__trace_calls a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    for (int i = 0; i < 100; i++) {
        add(&a, 100 + (uint64_t)i, 1, (uint32_t)(i % 2), "x");
        add(&b, 5000, 2, (uint32_t)(i % 2), "y");
    }
    vn__trace_info in;
    memset(&in, 0, sizeof in);
    in.mode = VN__TRACE_FENTRY;
    in.fallback = "";
    in.elapsed = 1;
    in.probe_ns = NAN;
    in.no_breakdown = 1;
    in.func = "f_a";
    vn_results r;
    assert_int_equal(vn__trace_view(&a, &in, &r), 0);
    in.func = "f_b";
    assert_int_equal(vn__trace_view_add(&r, &b, &in), 0);
    assert_int_equal(r.nbench, 2);
    assert_string_equal(vn_results_at(&r, 0)->name, "f_a");
    assert_string_equal(vn_results_at(&r, 1)->name, "f_b");
    assert_true(vn_results_at(&r, 1)->stats.median == 5000);
    const char *traced = find(&r, "trace", 1)->brief;
    assert_true(tc_in_order(traced, "f_b", "fentry/fexit", NULL));
    assert_true(tc_numbers_are(traced, (const double[]){100, 1.00}, 2));
    assert_null(find(&r, "trace_cpu", 0));
    vn__trace_calls empty;
    memset(&empty, 0, sizeof empty);
    assert_int_equal(vn__trace_view_add(&r, &empty, &in), VN_EINVAL);
    assert_int_equal(r.nbench, 2);
    vn__results_clear(&r);
    vn__trace_calls_free(&a);
    vn__trace_calls_free(&b);
}

/* A sanitizer keeps freed memory in quarantine and shadows all of it, so
 * what a process takes is the sanitizer's, not the code's. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

static long max_rss_kb(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

/* A trace of 12 million calls (a hot function for minutes) keeps a uniform
 * sample of VN__TRACE_KEEP of them: its percentiles are the whole's within
 * a fraction of a percent, and the calls, the results and their JSON stay
 * under the 128 MiB the help promises. The calls' durations are a known
 * mix (a value from 1000 to 1999 ns, one in ten 20000 ns), so the whole's
 * percentiles are known. */
static void a_long_trace_keeps_a_bounded_uniform_sample(void **state)
{
    (void)state;
    long before = max_rss_kb();
    vn__trace_calls c;
    memset(&c, 0, sizeof c);
    /* Fewer calls under a sanitizer, which is ten times slower: still many
     * times the sample. */
    const uint64_t n = SANITIZED ? 3000000 : 12000000;
    for (uint64_t i = 0; i < n; i++)
        add(&c, i % 10 == 9 ? 20000 : 1000 + (i * 7919) % 1000, 10 + (uint32_t)(i % 3),
            (uint32_t)(i % 2), "w");
    assert_int_equal(c.n, VN__TRACE_KEEP);
    assert_true(c.seen == n);
    vn__trace_info in;
    memset(&in, 0, sizeof in);
    in.func = "hot";
    in.mode = VN__TRACE_FENTRY;
    in.fallback = "";
    in.elapsed = 300;
    in.probe_ns = NAN;
    in.lost.entries = n + 5;
    in.lost.timed = n;
    in.lost.sum_ns = n * 3000;
    in.lost.log2[9] = n / 2;
    in.lost.log2[14] = n - n / 2;
    vn_results r;
    assert_int_equal(vn__trace_view(&c, &in, &r), 0);
    vn_buf b;
    vn_buf_init(&b, 0);
    assert_int_equal(vn_report_results_json(&r, &b), 0);
    const vn_stats *st = &vn_results_at(&r, 0)->stats;
    /* The whole: 90% spread evenly over 1000..1999, 10% at 20000. So the
     * median is 1555 (the 5/9 point of 1000..1999), p90 is at the edge. */
    assert_true(fabs(st->median - 1555) < 6);
    assert_true(fabs(st->pct[2] - 1111) < 6); /* p10 */
    assert_true(st->pct[8] == 20000);         /* p99 */
    long grew = max_rss_kb() - before;
    print_message("%llu calls: %zu kept, RSS grew %ld KiB\n", (unsigned long long)n, c.n, grew);
    if (!SANITIZED)
        assert_true(grew < 128 * 1024);
    /* Every call counted, though a sample of them kept: the probes'
     * count, the sample's size beside the calls it was drawn from, the
     * calls still open, and the log2 histogram's range and mean. */
    const char *traced = find(&r, "trace", 0)->brief;
    assert_true(tc_in_order(traced, "hot", "fentry/fexit", NULL));
    assert_true(tc_numbers_are(traced, (const double[]){(double)n, 300.00}, 2));
    assert_true(tc_numbers_are(find(&r, "trace_sample", 0)->brief,
                               (const double[]){VN__TRACE_KEEP, (double)n}, 2));
    assert_true(tc_numbers_are(find(&r, "trace_open", 0)->brief, (const double[]){5}, 1));
    assert_true(tc_numbers_are(find(&r, "trace_log2", 0)->brief,
                               (const double[]){512, 32767, 3000}, 3));
    char want[128];
    snprintf(want, sizeof want, "512-1023 ns: %llu; 16384-32767 ns: %llu", (unsigned long long)(n / 2),
             (unsigned long long)(n - n / 2));
    assert_non_null(strstr(find(&r, "trace_log2", 0)->explanation, want));
    vn_buf_free(&b);
    vn__results_clear(&r);
    vn__trace_calls_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kallsyms),
        cmocka_unit_test(view),
        cmocka_unit_test(one_cpu_no_breakdown_and_no_calls),
        cmocka_unit_test(a_long_trace_keeps_a_bounded_uniform_sample),
        cmocka_unit_test(kallsyms_patterns),
        cmocka_unit_test(two_functions_a_row_each),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
