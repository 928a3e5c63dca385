/* The pure side of the counters, on fixture values: scaling a multiplexed
 * count (and an event that never ran), the counts between two reads per
 * iteration, the medians with the empty loop's counts taken off, the
 * ratios, the plan of groups, the parser of lists, and the explanations of
 * events that do not open. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "counters/internal.h"
#include "machine/sysinfo_api.h"

static void scaling(void **state)
{
    (void)state;
    int s = -1;
    /* Counting all the time: the value as it is. */
    assert_true(vn_counter_scale(1000, 500, 500, &s) == 1000.0);
    assert_int_equal(s, 0);
    /* Half the time (the kernel took turns with another group): doubled,
     * and marked. */
    assert_true(vn_counter_scale(1000, 800, 400, &s) == 2000.0);
    assert_int_equal(s, 1);
    assert_true(fabs(vn_counter_scale(7, 3, 2, &s) - 10.5) < 1e-12);
    /* Never counted: unknown, neither 0 nor infinity. */
    assert_true(isnan(vn_counter_scale(0, 800, 0, &s)));
    assert_int_equal(s, 0);
    assert_true(isnan(vn_counter_scale(0, 0, 0, &s)));
    /* Running a hair above enabled (they are taken at different moments)
     * is not scaling. */
    assert_true(vn_counter_scale(10, 100, 101, &s) == 10.0);
    assert_int_equal(s, 0);
    /* No overflow where value * enabled would wrap 64 bits. */
    double v = vn_counter_scale(UINT64_MAX / 2, UINT64_MAX / 2, UINT64_MAX / 4, &s);
    assert_true(isfinite(v));
    assert_true(fabs(v / ((double)(UINT64_MAX / 2) * 2) - 1) < 1e-12);
    assert_true(isfinite(vn_counter_scale(UINT64_MAX, UINT64_MAX, 1, NULL)));
}

static vn_counts counts3(uint64_t a, uint64_t b, uint64_t c, uint64_t en, uint64_t run)
{
    vn_counts x;
    memset(&x, 0, sizeof x);
    x.n = 3;
    uint64_t v[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        x.v[i].value = v[i];
        x.v[i].enabled = en;
        x.v[i].running = run;
    }
    return x;
}

static void deltas_per_iteration(void **state)
{
    (void)state;
    double out[3];
    uint32_t sc;
    /* Fully counted: (b - a) / iters. */
    vn_counts a = counts3(100, 5000, 7, 1000, 1000), b = counts3(1100, 9000, 7, 3000, 3000);
    vn__ctr_delta(&a, &b, 1000, out, &sc);
    assert_true(out[0] == 1.0 && out[1] == 4.0 && out[2] == 0.0);
    assert_int_equal(sc, 0);

    /* Multiplexed in this interval only: the interval's own times scale it,
     * not the totals since the group opened. Before: 1000 of 1000 ns ran;
     * in the interval 2000 ns enabled, 500 ran. */
    b = counts3(1100, 9000, 7, 3000, 1500);
    vn__ctr_delta(&a, &b, 1000, out, &sc);
    assert_true(out[0] == 4.0 && out[1] == 16.0 && out[2] == 0.0);
    assert_int_equal(sc, 7); /* all three events of the group */

    /* The group did not run at all in the interval: unknown. */
    b = counts3(100, 5000, 7, 3000, 1000);
    vn__ctr_delta(&a, &b, 1000, out, &sc);
    assert_true(isnan(out[0]) && isnan(out[1]) && isnan(out[2]));
    assert_int_equal(sc, 0);

    /* Reads out of order (a reset between them) and zero iterations. */
    b = counts3(50, 9000, 7, 3000, 3000);
    vn__ctr_delta(&a, &b, 1000, out, &sc);
    assert_true(isnan(out[0]));
    assert_true(out[1] == 4.0);
    b = counts3(1100, 9000, 7, 3000, 3000);
    vn__ctr_delta(&a, &b, 0, out, &sc);
    assert_true(isnan(out[0]) && isnan(out[2]));

    /* Groups read separately have their own times: one event scaled. */
    b = counts3(1100, 9000, 7, 3000, 3000);
    b.v[2].running = 2000;
    b.v[2].value = 507;
    vn__ctr_delta(&a, &b, 100, out, &sc);
    assert_true(out[0] == 10.0 && out[2] == 10.0);
    assert_int_equal(sc, 4);
}

static void medians_and_overhead(void **state)
{
    (void)state;
    /* Three samples of two events (rows are samples), with one NaN. */
    const double t[] = {10, 1, 12, NAN, 11, 3};
    assert_true(vn__ctr_median(t, 3, 2, 0, NULL) == 11);
    assert_true(vn__ctr_median(t, 3, 2, 1, NULL) == 2); /* of 1 and 3 */
    const unsigned char use[] = {1, 0, 1};
    assert_true(vn__ctr_median(t, 3, 2, 0, use) == 10.5);
    const unsigned char none[] = {0, 0, 0};
    assert_true(isnan(vn__ctr_median(t, 3, 2, 0, none)));
    assert_true(isnan(vn__ctr_median(t, 0, 2, 0, NULL)));

    /* A body of one add inside the loop: 3 instructions and 1 branch per
     * iteration as measured; the empty loop has 2 and 1. Net: 1 and 0, not
     * the loop's increment and branch too. */
    const double samples[] = {3.001, 1.0, 3.0, 1.0, 3.002, 1.001, 50, 9, 3.0, 1.0};
    const uint32_t scaled[] = {0, 2, 0, 0, 0};
    const unsigned char untagged[] = {1, 1, 1, 0, 1}; /* the fourth was preempted */
    const double empty[] = {2.0, 1.0, 2.001, 1.0, 1.999, 1.001};
    double net[2], over[2];
    int any[2];
    vn__ctr_summarize(samples, scaled, 5, untagged, empty, 3, NULL, 2, net, over, any);
    assert_true(fabs(net[0] - 1.0005) < 1e-9); /* median of 3.001, 3.0, 3.002, 3.0 minus 2.0 */
    assert_true(fabs(over[0] - 2.0) < 1e-12);
    assert_true(fabs(net[1] - 0.0) < 1e-9);
    assert_true(fabs(over[1] - 1.0) < 1e-12);
    assert_int_equal(any[0], 0);
    assert_int_equal(any[1], 1);

    /* Below zero is noise: 0. Without the empty loop's counts nothing is
     * taken off and the overhead is unknown. */
    const double low[] = {1.9, 1.95, 1.98};
    const double emp[] = {2.0, 2.0};
    vn__ctr_summarize(low, NULL, 3, NULL, emp, 2, NULL, 1, net, over, any);
    assert_true(net[0] == 0);
    /* Only the empty loop's samples in empty_use: those of the kind of
     * moments the samples came from. */
    const double three[] = {3.0, 3.0, 3.0};
    const double emp3[] = {2.0, 2.5, 2.5};
    const unsigned char first[] = {1, 0, 0};
    vn__ctr_summarize(three, NULL, 3, NULL, emp3, 3, first, 1, net, over, any);
    assert_true(over[0] == 2.0 && net[0] == 1.0);
    vn__ctr_summarize(three, NULL, 3, NULL, emp3, 3, NULL, 1, net, over, any);
    assert_true(over[0] == 2.5 && net[0] == 0.5);
    vn__ctr_summarize(low, NULL, 3, NULL, NULL, 0, NULL, 1, net, over, any);
    assert_true(net[0] == 1.95);
    assert_true(isnan(over[0]));
    /* Every sample unknown: unknown, not 0. */
    const double unknown[] = {NAN, NAN};
    vn__ctr_summarize(unknown, NULL, 2, NULL, emp, 2, NULL, 1, net, over, any);
    assert_true(isnan(net[0]));
}

static vn_counter_result cr(const char *name, double v)
{
    vn_counter_result c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "%s", name);
    c.value = v;
    return c;
}

static void derived_metrics(void **state)
{
    (void)state;
    vn_counter_result c[] = {
        cr("cycles", 400),         cr("instructions", 1000),   cr("branches", 200),
        cr("branch-misses", 5),    cr("cache-references", 50), cr("cache-misses", 10),
    };
    vn_counter_derived d;
    vn__ctr_derive(c, 6, 250, &d);
    assert_true(d.ipc == 2.5);
    assert_true(d.branch_miss_pct == 2.5);
    assert_true(d.cache_miss_pct == 20);
    assert_true(d.insn_per_byte == 4);
    /* Without a throughput, with a zero or unknown part, with an event
     * missing: unknown, never infinite. */
    vn__ctr_derive(c, 6, NAN, &d);
    assert_true(isnan(d.insn_per_byte));
    c[0].value = 0;
    c[2].value = NAN;
    vn__ctr_derive(c, 6, 0, &d);
    assert_true(isnan(d.ipc) && isnan(d.branch_miss_pct) && isnan(d.insn_per_byte));
    assert_true(d.cache_miss_pct == 20);
    vn__ctr_derive(c + 3, 1, 100, &d);
    assert_true(isnan(d.ipc) && isnan(d.cache_miss_pct));
}

static void group_plans(void **state)
{
    (void)state;
    int g[8];
    /* Everything fits: software in group 0, hardware together in 1. */
    const int mix[] = {1, 1, 0, 1, 0, 1};
    assert_int_equal(vn__ctr_plan_groups(mix, 6, 6, g), 2);
    const int want1[] = {1, 1, 0, 1, 0, 1};
    assert_memory_equal(g, want1, sizeof want1);
    /* Four hardware events on a PMU that holds two per group: greedy, in
     * order. */
    assert_int_equal(vn__ctr_plan_groups(mix, 6, 2, g), 3);
    const int want2[] = {1, 1, 0, 2, 0, 2};
    assert_memory_equal(g, want2, sizeof want2);
    assert_int_equal(vn__ctr_plan_groups(mix, 6, 1, g), 5);
    const int want3[] = {1, 2, 0, 3, 0, 4};
    assert_memory_equal(g, want3, sizeof want3);
    /* Hardware only: groups from 0. Software only: one group. */
    const int hw[] = {1, 1, 1, 1, 1, 1, 1};
    assert_int_equal(vn__ctr_plan_groups(hw, 7, 3, g), 3);
    const int want4[] = {0, 0, 0, 1, 1, 1, 2};
    assert_memory_equal(g, want4, sizeof want4);
    const int sw[] = {0, 0, 0};
    assert_int_equal(vn__ctr_plan_groups(sw, 3, 4, g), 1);
    assert_true(g[0] == 0 && g[1] == 0 && g[2] == 0);
    /* A size of 0 means 1, never a division of nothing. */
    assert_int_equal(vn__ctr_plan_groups(hw, 2, 0, g), 2);
    assert_int_equal(vn__ctr_plan_groups(hw, 0, 4, g), 0);
}

/* Checks that why names every generic event of the registry, as a list of
 * what --counters takes. */
static void names_every_event(const char *why)
{
    size_t n;
    const vn_counter_event *ev = vn_counter_events(&n);
    for (size_t i = 0; i < n; i++) {
        const char *at = strstr(why, ev[i].name);
        if (!at)
            fail_msg("'%s' does not name '%s'", why, ev[i].name);
    }
}

/* A resolver that knows one vendor name, as libpfm4 would on one CPU. */
static int fake_resolve(const char *name, vn__ctr_spec *s)
{
    if (strcmp(name, "INST_RETIRED.ANY") != 0) {
        snprintf(s->pmus, sizeof s->pmus, "perf, perf_raw, skl");
        return VN_ENOENT;
    }
    s->type = 4;
    s->config = 0xc0;
    return 0;
}

static void lists(void **state)
{
    (void)state;
    vn__ctr_spec s[VN_COUNTERS_MAX];
    size_t n;
    char why[1024];
    assert_int_equal(vn__ctr_parse_list(NULL, NULL, s, VN_COUNTERS_MAX, &n, why, sizeof why), 0);
    assert_int_equal(n, 6);
    assert_string_equal(s[0].name, "cycles");
    assert_string_equal(s[5].name, "cache-misses");
    assert_true(s[0].hardware && s[0].generic);

    /* "default" adds to named ones; repeats are dropped; blanks trimmed. */
    assert_int_equal(vn__ctr_parse_list(" page-faults , default,cycles, instructions:u", NULL, s,
                                        VN_COUNTERS_MAX, &n, why, sizeof why),
                     0);
    assert_int_equal(n, 8);
    assert_string_equal(s[0].name, "page-faults");
    assert_false(s[0].hardware);
    assert_string_equal(s[1].name, "cycles");
    assert_string_equal(s[7].name, "instructions:u");
    assert_int_equal(s[7].exclude, VN_COUNTER_EXCLUDE_KERNEL);

    assert_int_equal(vn__ctr_parse_list("none", NULL, s, VN_COUNTERS_MAX, &n, why, sizeof why), 0);
    assert_int_equal(n, 0);

    /* Errors say what to do, on one line: the name given, and what to give
     * instead. */
    assert_int_equal(vn__ctr_parse_list("cyclse", NULL, s, VN_COUNTERS_MAX, &n, why, sizeof why),
                     VN_ENOENT);
    assert_non_null(strstr(why, "'cyclse'"));
    names_every_event(why);
    assert_non_null(strstr(why, "default"));
    assert_non_null(strstr(why, "none"));
    assert_null(strchr(why, '\n'));
    assert_int_equal(vn__ctr_parse_list("cycles,,page-faults", NULL, s, VN_COUNTERS_MAX, &n, why,
                                        sizeof why),
                     VN_EINVAL);
    assert_int_equal(vn__ctr_parse_list("none,cycles", NULL, s, VN_COUNTERS_MAX, &n, why,
                                        sizeof why),
                     VN_EINVAL);
    assert_int_equal(vn__ctr_parse_list("cycles;rm -rf", NULL, s, VN_COUNTERS_MAX, &n, why,
                                        sizeof why),
                     VN_EINVAL);
    assert_int_equal(vn__ctr_parse_list("default,task-clock", NULL, s, 3, &n, why, sizeof why),
                     VN_ERANGE);

    /* Vendor names: unknown without a resolver; with one, resolved, or
     * missing when opened (another CPU may have it), while a lower-case
     * unknown name stays a typo. */
    assert_int_equal(vn__ctr_parse_list("page-faults,INST_RETIRED.ANY", NULL, s, VN_COUNTERS_MAX,
                                        &n, why, sizeof why),
                     VN_ENOTSUP);
    assert_non_null(strstr(why, "'INST_RETIRED.ANY'"));
    assert_non_null(strstr(why, "libpfm4-dev"));
    names_every_event(why);
    assert_null(strchr(why, '\n'));
    /* The first bad name decides: a typo before a vendor name is a typo. */
    assert_int_equal(vn__ctr_parse_list("cyclse,INST_RETIRED.ANY", NULL, s, VN_COUNTERS_MAX, &n,
                                        why, sizeof why),
                     VN_ENOENT);
    assert_int_equal(vn__ctr_parse_list("INST_RETIRED.ANY,MEM_LOAD_RETIRED.L3_MISS", fake_resolve,
                                        s, VN_COUNTERS_MAX, &n, why, sizeof why),
                     0);
    assert_int_equal(n, 2);
    assert_int_equal(s[0].unresolved, 0);
    assert_int_equal(s[0].config, 0xc0);
    assert_null(s[0].generic);
    assert_int_equal(s[1].unresolved, 1);
    assert_string_equal(s[1].pmus, "perf, perf_raw, skl");
    assert_int_equal(vn__ctr_parse_list("cyclse", fake_resolve, s, VN_COUNTERS_MAX, &n, why,
                                        sizeof why),
                     VN_ENOENT);
}

static void checks_of_the_public_kind(void **state)
{
    (void)state;
    char why[1536];
    assert_int_equal(vn_counters_check("default", why, sizeof why), 0);
    assert_int_equal(vn_counters_check("page-faults,context-switches", why, sizeof why), 0);
    assert_int_equal(vn_counters_check("bogus", why, sizeof why), VN_ENOENT);
    int rc = vn_counters_check("page-faults,MEM_LOAD_RETIRED.L3_MISS", why, sizeof why);
    if (vn_counters_have_pfm()) {
        assert_int_equal(rc, 0);
    } else {
        /* Without libpfm4 a vendor name is not a typo: say what is missing. */
        assert_int_equal(rc, VN_ENOTSUP);
        assert_non_null(strstr(why, "'MEM_LOAD_RETIRED.L3_MISS'"));
        assert_non_null(strstr(why, "libpfm4-dev"));
        names_every_event(why);
    }
    /* The registry: every name is found, the defaults are the six. */
    size_t n, defaults = 0;
    const vn_counter_event *ev = vn_counter_events(&n);
    assert_int_equal(n, 16);
    for (size_t i = 0; i < n; i++) {
        assert_ptr_equal(vn_counter_event_find(ev[i].name), &ev[i]);
        assert_non_null(ev[i].description);
        assert_non_null(ev[i].column);
        defaults += (size_t)ev[i].is_default;
    }
    assert_int_equal(defaults, 6);
    assert_null(vn_counter_event_find("nope"));
    assert_string_equal(vn_counter_event_find("task-clock")->unit, "ns");
    assert_true(vn_counter_event_find("context-switches")->kernel_side);
}

/* 1 when s holds num as a whole number, not as part of a longer one or of
 * a name. */
static int has_number(const char *s, const char *num)
{
    size_t len = strlen(num);
    for (const char *p = strstr(s, num); p; p = strstr(p + 1, num)) {
        int before = p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '.' || p[-1] == '_');
        int after = isalnum((unsigned char)p[len]) || (p[len] == '.' && isdigit((unsigned char)p[len + 1]));
        if (!before && !after)
            return 1;
    }
    return 0;
}

static void explanations(void **state)
{
    (void)state;
    vn__ctr_spec cycles, insn_k, cs, named;
    size_t n;
    vn__ctr_parse_list("cycles", NULL, &cycles, 1, &n, NULL, 0);
    vn__ctr_parse_list("instructions:k", NULL, &insn_k, 1, &n, NULL, 0);
    vn__ctr_parse_list("context-switches", NULL, &cs, 1, &n, NULL, 0);
    memset(&named, 0, sizeof named);
    snprintf(named.name, sizeof named.name, "INST_RETIRED.ANY");
    named.hardware = named.unresolved = 1;
    snprintf(named.pmus, sizeof named.pmus, "perf, perf_raw");
    char r[192], f[192];
/* Why spec could not open with errno err on a machine with facts: the
 * cause, with the reason into r and the fix into f. */
#define EXPLAIN(spec, err, facts) vn__ctr_explain(spec, err, facts, r, sizeof r, f, sizeof f)

    /* This machine: a KVM guest without a virtual PMU. The reason names the
     * hypervisor; the fix is the way to a PMU there. */
    vn__perf_facts vm = {2, 1, 1, "kvm", 0};
    assert_int_equal(EXPLAIN(&cycles, ENOENT, &vm), VN_COUNTER_VM_NO_PMU);
    assert_non_null(strstr(r, "(kvm)"));
    assert_non_null(strstr(f, "pmu=on"));
    char vm_fix[192];
    snprintf(vm_fix, sizeof vm_fix, "%s", f);
    assert_int_equal(EXPLAIN(&cycles, EOPNOTSUPP, &vm), VN_COUNTER_VM_NO_PMU);
    /* A named event on a machine without a PMU: unknown by name, and the
     * fix is still the way to a PMU. */
    assert_int_equal(EXPLAIN(&named, ENOENT, &vm), VN_COUNTER_UNRESOLVED);
    assert_non_null(strstr(r, "'INST_RETIRED.ANY'"));
    assert_non_null(strstr(r, "(perf, perf_raw)"));
    assert_string_equal(f, vm_fix);

    /* Bare metal without a driver, and with a PMU that lacks the event. */
    vn__perf_facts metal = {1, 0, 0, "", 0};
    assert_int_equal(EXPLAIN(&cycles, ENOENT, &metal), VN_COUNTER_NO_PMU_DRIVER);
    assert_string_not_equal(f, vm_fix);
    metal.cpu_pmu = 1;
    assert_int_equal(EXPLAIN(&cycles, ENOENT, &metal), VN_COUNTER_NO_EVENT);
    assert_int_equal(EXPLAIN(&cycles, EOPNOTSUPP, &metal), VN_COUNTER_MODE_UNSUPPORTED);
    assert_int_equal(EXPLAIN(&cycles, EINVAL, &metal), VN_COUNTER_REJECTED);
    /* A named event the PMU lacks: the fix points at this CPU's event list. */
    assert_int_equal(EXPLAIN(&named, ENOENT, &metal), VN_COUNTER_UNRESOLVED);
    assert_non_null(strstr(f, "showevtinfo"));

    /* perf_event_paranoid: the kernel part needs 1 or less, anything 2. The
     * reason gives the setting's value, the fix the value to set. */
    vn__perf_facts strict = {2, 0, 0, "", 1};
    assert_int_equal(EXPLAIN(&insn_k, EACCES, &strict), VN_COUNTER_PARANOID);
    assert_non_null(strstr(r, "perf_event_paranoid"));
    assert_true(has_number(r, "2"));
    assert_non_null(strstr(f, "kernel.perf_event_paranoid=1"));
    assert_non_null(strstr(f, "CAP_PERFMON"));
    assert_int_equal(EXPLAIN(&cs, EACCES, &strict), VN_COUNTER_PARANOID);
    assert_non_null(strstr(f, "perf_event_paranoid=1"));
    vn__ctr_spec user = cycles;
    user.exclude = VN_COUNTER_EXCLUDE_KERNEL;
    strict.paranoid = 3;
    assert_int_equal(EXPLAIN(&user, EPERM, &strict), VN_COUNTER_PARANOID);
    assert_true(has_number(r, "3"));
    assert_non_null(strstr(f, "perf_event_paranoid=2"));
    /* Refused although the setting allows it: a filter is in the way. */
    vn__perf_facts open = {-1, 0, 0, "", 1};
    assert_int_equal(EXPLAIN(&cycles, EPERM, &open), VN_COUNTER_BLOCKED);
    assert_non_null(strstr(f, "--cap-add"));
    vn__perf_facts root = {2, 1, 0, "", 1};
    assert_int_equal(EXPLAIN(&insn_k, EACCES, &root), VN_COUNTER_BLOCKED);
    vn__perf_facts unknown = {VN_SYSINFO_PARANOID_UNKNOWN, -1, -1, "", -1};
    assert_int_equal(EXPLAIN(&insn_k, EACCES, &unknown), VN_COUNTER_BLOCKED);
    assert_true(r[0] != '\0');

    /* The rest: no perf events at all, no fds, a busy PMU, a software
     * event the kernel lacks, and an errno with no story, which the reason
     * names and no fix follows. */
    assert_int_equal(EXPLAIN(&cycles, ENOSYS, &metal), VN_COUNTER_NO_PERF_EVENTS);
    assert_non_null(strstr(f, "CONFIG_PERF_EVENTS=y"));
    assert_int_equal(EXPLAIN(&cs, EMFILE, &metal), VN_COUNTER_NO_FDS);
    assert_non_null(strstr(f, "ulimit -n"));
    assert_int_equal(EXPLAIN(&cs, ENFILE, &metal), VN_COUNTER_NO_FDS);
    assert_int_equal(EXPLAIN(&cycles, EBUSY, &metal), VN_COUNTER_PMU_BUSY);
    assert_int_equal(EXPLAIN(&cs, ENOENT, &vm), VN_COUNTER_NO_SOFTWARE_EVENT);
    assert_int_equal(EXPLAIN(&cs, E2BIG, &metal), VN_COUNTER_OTHER_ERRNO);
    assert_non_null(strstr(r, "perf_event_open"));
    assert_non_null(strstr(r, strerror(E2BIG)));
    assert_string_equal(f, "");

    /* Every reason and fix is one line. */
    assert_null(strchr(vm_fix, '\n'));
    assert_null(strchr(r, '\n'));
#undef EXPLAIN
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scaling),         cmocka_unit_test(deltas_per_iteration),
        cmocka_unit_test(medians_and_overhead), cmocka_unit_test(derived_metrics),
        cmocka_unit_test(group_plans),     cmocka_unit_test(lists),
        cmocka_unit_test(checks_of_the_public_kind), cmocka_unit_test(explanations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
