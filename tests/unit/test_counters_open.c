/* Opening and reading counter groups on a fake PMU (fake_pmu.h): what
 * opens where hardware events do not exist, a group split when the PMU
 * holds fewer events than asked, the user-mode fallback of a strict
 * perf_event_paranoid, the events that must not fall back, the inherited
 * counters of a child on a kernel that refuses inherited group reads, and
 * reads with and without multiplexing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fake_pmu.h"

static vn_counters *open_ok(const char *list, pid_t pid, unsigned flags)
{
    vn_counters *c = NULL;
    char why[512] = "";
    int rc = vn__counters_open_sys(&fake_sys, list, pid, flags, &c, why, sizeof why);
    if (rc)
        fail_msg("open '%s': %d %s", list, rc, why);
    return c;
}

static const vn_counter_status *status(const vn_counter_info *ci, const char *name)
{
    for (size_t i = 0; i < ci->n; i++)
        if (!strcmp(ci->ev[i].name, name))
            return &ci->ev[i];
    fail_msg("no status for %s", name);
    return NULL;
}

static void virtual_machine_without_pmu(void **state)
{
    (void)state;
    fake_vm();
    vn_counters *c = open_ok("default,page-faults,context-switches", 0, 0);
    /* Never an error: the software events count, the rest are named. */
    assert_int_equal(vn_counters_n(c), 2);
    assert_string_equal(vn_counters_name(c, 0), "page-faults");
    assert_string_equal(vn_counters_name(c, 1), "context-switches");
    assert_null(vn_counters_name(c, 2));
    vn_counter_info ci;
    vn_counters_info(c, &ci);
    assert_string_equal(ci.requested, "default,page-faults,context-switches");
    assert_int_equal(ci.n, 8);
    assert_int_equal(ci.nopened, 2);
    assert_int_equal(ci.ngroups, 1);
    assert_int_equal(ci.split, 0);
    const vn_counter_status *s = status(&ci, "cycles");
    assert_int_equal(s->opened, 0);
    assert_int_equal(s->err, ENOENT);
    assert_int_equal(s->group, -1);
    assert_int_equal(s->cause, VN_COUNTER_VM_NO_PMU);
    assert_non_null(strstr(s->reason, "(kvm)"));
    assert_non_null(strstr(s->fix, "pmu=on"));
    assert_int_equal(status(&ci, "page-faults")->cause, VN_COUNTER_OPENED);
    assert_int_equal(status(&ci, "page-faults")->group, 0);

    /* Counting: page faults as the world makes them. */
    assert_int_equal(vn_counters_enable(c), 0);
    vn_counts a, b;
    assert_int_equal(vn_counters_read(c, &a), 0);
    SWC(PAGE_FAULTS) += 1000;
    SWC(CONTEXT_SWITCHES) += 3;
    fake.now += 5000;
    assert_int_equal(vn_counters_read(c, &b), 0);
    assert_int_equal(b.n, 2);
    assert_int_equal(b.v[0].value - a.v[0].value, 1000);
    assert_int_equal(b.v[1].value - a.v[1].value, 3);
    assert_int_equal(b.v[0].running - a.v[0].running, 5000);
    /* One read per group, not per event. */
    int reads = fake.reads;
    vn_counters_read(c, &b);
    assert_int_equal(fake.reads, reads + 1);
    vn_counters_destroy(c);
    assert_int_equal(fake_open_fds(), 0);
    vn_counters_destroy(NULL);
}

static void groups_split_when_the_pmu_is_small(void **state)
{
    (void)state;
    /* Six hardware events on a PMU of four counters per group. */
    fake_reset(4);
    vn_counters *c = open_ok("default,task-clock", 0, 0);
    vn_counter_info ci;
    vn_counters_info(c, &ci);
    assert_int_equal(ci.nopened, 7);
    assert_int_equal(ci.split, 1);
    assert_int_equal(ci.max_group, 4);
    assert_int_equal(ci.ngroups, 3); /* hardware 4 + 2, task-clock alone */
    assert_int_equal(status(&ci, "cycles")->group, status(&ci, "branch-misses")->group);
    assert_int_equal(status(&ci, "cache-references")->group, status(&ci, "cache-misses")->group);
    assert_true(status(&ci, "cycles")->group != status(&ci, "cache-misses")->group);
    assert_true(status(&ci, "task-clock")->group != status(&ci, "cycles")->group);
    /* The order of reads is the order asked for, whatever the groups. */
    assert_string_equal(vn_counters_name(c, 0), "cycles");
    assert_string_equal(vn_counters_name(c, 6), "task-clock");
    assert_string_equal(vn_counters_unit(c, 6), "ns");
    /* Only the events in use stay open. */
    assert_int_equal(fake_open_fds(), 7);

    assert_int_equal(vn_counters_enable(c), 0);
    vn_counts a, b;
    vn_counters_read(c, &a);
    HWC(CPU_CYCLES) += 4000;
    HWC(INSTRUCTIONS) += 9000;
    HWC(CACHE_MISSES) += 10;
    fake.now += 1000;
    vn_counters_read(c, &b);
    assert_int_equal(b.v[0].value - a.v[0].value, 4000);
    assert_int_equal(b.v[1].value - a.v[1].value, 9000);
    assert_int_equal(b.v[5].value - a.v[5].value, 10);
    /* Disabled, nothing more counts; reset zeroes. */
    assert_int_equal(vn_counters_disable(c), 0);
    HWC(CPU_CYCLES) += 500;
    fake.now += 1000;
    vn_counts d;
    vn_counters_read(c, &d);
    assert_int_equal(d.v[0].value, b.v[0].value);
    assert_int_equal(vn_counters_reset(c), 0);
    vn_counters_read(c, &d);
    assert_int_equal(d.v[0].value, 0);
    vn_counters_destroy(c);

    /* One counter per group: every hardware event alone. */
    fake_reset(1);
    c = open_ok("cycles,instructions,branches", 0, 0);
    vn_counters_info(c, &ci);
    assert_int_equal(ci.ngroups, 3);
    assert_int_equal(ci.max_group, 1);
    vn_counters_destroy(c);

    /* Enough counters: one group, no split. */
    fake_reset(8);
    c = open_ok("default", 0, 0);
    vn_counters_info(c, &ci);
    assert_int_equal(ci.ngroups, 1);
    assert_int_equal(ci.split, 0);
    assert_int_equal(ci.max_group, 0);
    vn_counters_destroy(c);
}

static void multiplexed_reads_are_scaled(void **state)
{
    (void)state;
    fake_reset(8);
    fake.multiplex = 1;
    vn_counters *c = open_ok("instructions,page-faults", 0, 0);
    vn_counters_enable(c);
    vn_counts a, b;
    vn_counters_read(c, &a);
    HWC(INSTRUCTIONS) += 10000;
    SWC(PAGE_FAULTS) += 7;
    fake.now += 2000;
    vn_counters_read(c, &b);
    /* The kernel counted the hardware group half the time. */
    assert_int_equal(b.v[0].value - a.v[0].value, 5000);
    assert_int_equal(b.v[0].enabled - a.v[0].enabled, 2000);
    assert_int_equal(b.v[0].running - a.v[0].running, 1000);
    double per[2];
    uint32_t scaled;
    vn__ctr_delta(&a, &b, 100, per, &scaled);
    assert_true(per[0] == 100.0);   /* 10000 instructions over 100 iterations */
    assert_true(per[1] == 0.07);
    assert_int_equal(scaled, 1);    /* instructions only */

    /* A group that is never scheduled has no count, not a zero. */
    fake.never_runs = 1;
    vn_counters_read(c, &a);
    HWC(INSTRUCTIONS) += 10000;
    fake.now += 2000;
    vn_counters_read(c, &b);
    vn__ctr_delta(&a, &b, 100, per, &scaled);
    assert_true(isnan(per[0]));
    assert_true(per[1] == 0);

    /* A failed read is an error, and leaves the output alone. */
    fake.fail_reads = 1;
    vn_counts keep = b;
    assert_int_equal(vn_counters_read(c, &b), VN_EIO);
    assert_memory_equal(&keep, &b, sizeof b);
    vn_counters_destroy(c);
}

static void strict_paranoid_falls_back_to_user_mode(void **state)
{
    (void)state;
    fake_reset(8);
    fake.deny_kernel = 1;
    fake.facts = (vn__perf_facts){2, 0, 0, "", 1};
    vn_counters *c = open_ok("instructions,instructions:u,instructions:k,page-faults,"
                             "context-switches,cpu-migrations",
                             0, 0);
    vn_counter_info ci;
    vn_counters_info(c, &ci);
    /* As perf stat does: the user-mode part, said so. */
    assert_int_equal(status(&ci, "instructions")->opened, 1);
    assert_int_equal(status(&ci, "instructions")->user_only, 1);
    assert_int_equal(status(&ci, "page-faults")->user_only, 1);
    /* Asked for user mode: nothing to fall back from. */
    assert_int_equal(status(&ci, "instructions:u")->opened, 1);
    assert_int_equal(status(&ci, "instructions:u")->user_only, 0);
    /* Kernel mode asked for, or events that only happen in the kernel (a
     * user-mode count of them would always read 0): missing, with the fix. */
    const vn_counter_status *k = status(&ci, "instructions:k");
    assert_int_equal(k->opened, 0);
    assert_int_equal(k->err, EACCES);
    assert_int_equal(k->cause, VN_COUNTER_PARANOID);
    assert_non_null(strstr(k->fix, "perf_event_paranoid=1"));
    assert_int_equal(status(&ci, "context-switches")->opened, 0);
    assert_int_equal(status(&ci, "context-switches")->cause, VN_COUNTER_PARANOID);
    assert_int_equal(status(&ci, "cpu-migrations")->opened, 0);
    assert_int_equal(ci.nopened, 3);
    vn_counters_destroy(c);
}

static void a_child_with_inherit(void **state)
{
    (void)state;
    fake_reset(8);
    vn_counters *c = open_ok("instructions,page-faults", 4242, VN_COUNTERS_CHILD);
    vn_counter_info ci;
    vn_counters_info(c, &ci);
    assert_int_equal(ci.grouped, 1);
    /* On the child, disabled until its exec, inherited by its children. */
    int leaders = 0;
    for (int i = 0; i < FAKE_FDS; i++) {
        if (!fake.ev[i].used)
            continue;
        assert_int_equal(fake.ev[i].pid, 4242);
        assert_int_equal(fake.ev[i].attr.inherit, 1);
        if (fake.ev[i].leader == i) {
            leaders++;
            assert_int_equal(fake.ev[i].attr.disabled, 1);
            assert_int_equal(fake.ev[i].attr.enable_on_exec, 1);
        }
    }
    assert_int_equal(leaders, 2);
    vn_counters_destroy(c);

    /* A kernel that refuses inherit with group reads: one read per event,
     * each its own leader, each enabled by the exec. */
    fake_reset(8);
    fake.old_inherit = 1;
    c = open_ok("instructions,branches,page-faults", 4242, VN_COUNTERS_CHILD);
    vn_counters_info(c, &ci);
    assert_int_equal(ci.grouped, 0);
    assert_int_equal(ci.nopened, 3);
    assert_int_equal(ci.ngroups, 3);
    for (int i = 0; i < FAKE_FDS; i++)
        if (fake.ev[i].used) {
            assert_int_equal(fake.ev[i].leader, i);
            assert_int_equal(fake.ev[i].attr.enable_on_exec, 1);
            assert_int_equal(fake.ev[i].attr.read_format & PERF_FORMAT_GROUP, 0);
        }
    /* The exec: the kernel enables them (here, the test does). */
    for (int i = 0; i < FAKE_FDS; i++)
        if (fake.ev[i].used)
            fake_set_enabled(i, 1);
    HWC(INSTRUCTIONS) += 123;
    SWC(PAGE_FAULTS) += 45;
    fake.now += 100;
    vn_counts b;
    assert_int_equal(vn_counters_read(c, &b), 0);
    assert_int_equal(b.v[0].value, 123);
    assert_int_equal(b.v[2].value, 45);
    assert_int_equal(b.v[2].running, 100);
    vn_counters_enable(c);
    vn_counters_destroy(c);
}

static void bad_arguments(void **state)
{
    (void)state;
    fake_reset(8);
    vn_counters *c = NULL;
    char why[256];
    assert_int_equal(vn__counters_open_sys(&fake_sys, "page-faults", 0, VN_COUNTERS_CHILD, &c,
                                           why, sizeof why),
                     VN_EINVAL); /* a child needs its pid */
    assert_int_equal(vn__counters_open_sys(&fake_sys, "page-faults", -1, 0, &c, why, sizeof why),
                     VN_EINVAL);
    assert_int_equal(vn__counters_open_sys(&fake_sys, "page-faults", 0, 0x80, &c, why, sizeof why),
                     VN_EINVAL);
    assert_int_equal(vn__counters_open_sys(&fake_sys, "page-faults", 0, 0, NULL, why, sizeof why),
                     VN_EINVAL);
    assert_int_equal(vn__counters_open_sys(&fake_sys, "bogus", 0, 0, &c, why, sizeof why),
                     VN_ENOENT);
    assert_non_null(strstr(why, "'bogus'"));
    assert_null(c);
    assert_int_equal(fake_open_fds(), 0);
    /* "none": a handle with nothing in it, which reads nothing. */
    c = open_ok("none", 0, 0);
    assert_int_equal(vn_counters_n(c), 0);
    vn_counts z;
    assert_int_equal(vn_counters_read(c, &z), 0);
    assert_int_equal(z.n, 0);
    vn_counters_destroy(c);
    assert_int_equal(vn_counters_read(NULL, &z), VN_EINVAL);
    assert_int_equal(vn_counters_enable(NULL), VN_EINVAL);
    assert_int_equal(vn_counters_n(NULL), 0);
    vn_counter_info ci;
    vn_counters_info(NULL, &ci);
    assert_int_equal(ci.n, 0);
}

static void the_probe(void **state)
{
    (void)state;
    fake_vm();
    vn_counter_info ci;
    assert_int_equal(vn__counters_probe_sys(&fake_sys, &ci), 0);
    assert_int_equal(ci.n, 16);
    assert_int_equal(ci.nopened, 4); /* the software events */
    assert_int_equal(status(&ci, "task-clock")->opened, 1);
    assert_int_equal(status(&ci, "LLC-load-misses")->opened, 0);
    assert_int_equal(status(&ci, "LLC-load-misses")->cause, VN_COUNTER_VM_NO_PMU);
    /* Each opened alone and closed at once. */
    assert_int_equal(fake.max_open, 1);
    assert_int_equal(fake_open_fds(), 0);

    fake_reset(2);
    assert_int_equal(vn__counters_probe_sys(&fake_sys, &ci), 0);
    assert_int_equal(ci.nopened, 16);
    assert_int_equal(vn__counters_probe_sys(&fake_sys, NULL), VN_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(virtual_machine_without_pmu),
        cmocka_unit_test(groups_split_when_the_pmu_is_small),
        cmocka_unit_test(multiplexed_reads_are_scaled),
        cmocka_unit_test(strict_paranoid_falls_back_to_user_mode),
        cmocka_unit_test(a_child_with_inherit),
        cmocka_unit_test(bad_arguments),
        cmocka_unit_test(the_probe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
