/* The env reporters on fixture snapshots, compared byte for byte with golden
 * files in tests/golden/ (see golden.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "golden.h"
#include "report/internal.h"
#include "text_checks.h"

static void collect(const char *tree, vn_sysinfo *s)
{
    char root[4096];
    snprintf(root, sizeof root, "%s/%s", VN_FIXTURES, tree);
    assert_int_equal(vn_sysinfo_collect_at(root, s), 0);
}

static void golden(const char *tree, const char *stem)
{
    vn_sysinfo s;
    collect(tree, &s);
    vn_buf b;
    vn_buf_init(&b, 0);
    char name[128];

    assert_int_equal(vn_report_env_text(&s, 0, &b), 0);
    snprintf(name, sizeof name, "%s.txt", stem);
    check_golden(name, &b);
    assert_null(strchr(b.data, '\033')); /* no color unless asked */

    vn_buf_reset(&b);
    assert_int_equal(vn_report_env_json(&s, &b), 0);
    snprintf(name, sizeof name, "%s.json", stem);
    check_golden(name, &b);

    vn_buf_free(&b);
    vn_sysinfo_free(&s);
}

static void laptop(void **state) { (void)state; golden("sysroot-laptop", "env-laptop"); }
static void tuned(void **state) { (void)state; golden("sysroot-tuned", "env-tuned"); }
static void vm(void **state) { (void)state; golden("sysroot-vm", "env-vm"); }
static void minimal(void **state) { (void)state; golden("sysroot-minimal", "env-minimal"); }

static void text_details(void **state)
{
    (void)state;
    vn_sysinfo s;
    collect("sysroot-laptop", &s);
    vn_buf b;
    vn_buf_init(&b, 0);

    /* Eight identical CPUs condense to one line with the current range:
     * the governor, the driver, the range and the current one. */
    assert_int_equal(vn_report_env_text(&s, 0, &b), 0);
    char line[512];
    assert_true(tc_line(b.data, "  cpu0-7 ", line, sizeof line));
    assert_true(tc_in_order(line, "powersave", "intel_pstate", "400-4700 MHz", "400-4100 MHz", NULL));
    assert_int_equal(tc_lines(b.data, "  cpu"), 1);
    /* Each warning: a line of its id and message, then its fix; then
     * their count. */
    assert_int_equal(s.nwarnings, 6);
    assert_int_equal((int)tc_lines(b.data, "! "), s.nwarnings);
    /* A long fix is wrapped at 100 columns, its lines under its first. */
    assert_true(tc_lines_within(b.data, 100));
    char *whole = tc_unwrap_rows(b.data, 5, (const char *const[]){"why: ", "fix: ", NULL});
    assert_non_null(whole);
    for (int i = 0; i < s.nwarnings; i++) {
        const vn_warning *w = &s.warnings[i];
        char head[64];
        snprintf(head, sizeof head, "\n! %s: ", w->id);
        const char *at = strstr(whole, head);
        assert_non_null(at);
        at += strlen(head);
        assert_int_equal(strncmp(at, w->message, strlen(w->message)), 0);
        at += strlen(w->message);
        assert_int_equal(strncmp(at, "\n  fix: ", 8), 0);
        assert_int_equal(strncmp(at + 8, w->fix, strlen(w->fix)), 0);
        assert_int_equal(at[8 + strlen(w->fix)], '\n');
    }
    free(whole);
    size_t len = strlen(b.data);
    assert_true(len > 12 && strcmp(b.data + len - 11, "6 warnings\n") == 0);

    /* One CPU that differs splits the run. */
    snprintf(s.cpus[3].governor, sizeof s.cpus[3].governor, "performance");
    vn_buf_reset(&b);
    assert_int_equal(vn_report_env_text(&s, 0, &b), 0);
    assert_non_null(strstr(b.data, "cpu0-2 "));
    assert_non_null(strstr(b.data, "cpu3 "));
    assert_non_null(strstr(b.data, "cpu4-7 "));

    /* Color marks warnings (yellow) and only when asked. */
    vn_buf_reset(&b);
    assert_int_equal(vn_report_env_text(&s, VN_REPORT_COLOR, &b), 0);
    assert_non_null(strstr(b.data, "\033[33m! governor: "));

    /* No warnings at all says so, on one line of the section, with no
     * count and no fix. */
    s.nwarnings = 0;
    vn_buf_reset(&b);
    assert_int_equal(vn_report_env_text(&s, 0, &b), 0);
    const char *last = strstr(b.data, "\nWarnings\n");
    assert_non_null(last);
    last += strlen("\nWarnings\n");
    assert_true(strlen(last) > 1 && strchr(last, '\n') == last + strlen(last) - 1);
    assert_int_equal(tc_numbers(last, NULL, 0), 0);
    assert_int_equal(tc_lines(b.data, "! "), 0);
    assert_null(strstr(b.data, "  fix: "));

    vn_buf_free(&b);
    vn_sysinfo_free(&s);
}

static void embedded_object(void **state)
{
    (void)state;
    vn_sysinfo s;
    collect("sysroot-tuned", &s);
    vn_buf b;
    vn_buf_init(&b, 0);
    vn__json j;
    vn__json_init(&j, &b, 0);
    vn__json_obj_begin(&j, NULL);
    vn__json_sysinfo(&j, "env", &s);
    vn__json_obj_end(&j);
    assert_int_equal(vn__json_finish(&j), 0);
    assert_int_equal(strncmp(b.data, "{\"env\":{\"hostname\":\"bench01\",", 29), 0);
    assert_non_null(strstr(b.data, "\"cpu\":{\"model\":\"Intel(R) Xeon(R) CPU E5-2637 v4 @ "
                                   "3.50GHz\",\"vendor\":\"GenuineIntel\",\"logical\":8,"
                                   "\"physical_cores\":8,\"sockets\":2,\"smt\":false,"
                                   "\"microcode\":\"0xb000040\"}"));
    assert_non_null(strstr(b.data, "\"isolcpus\":\"2-3,6-7\""));
    assert_non_null(strstr(b.data, "\"warnings\":[]}}"));
    /* The embedded snapshot has no schema of its own. */
    assert_null(strstr(b.data, "\"schema\""));
    vn_buf_free(&b);
    vn_sysinfo_free(&s);
}

static void errors(void **state)
{
    (void)state;
    vn_sysinfo s;
    collect("sysroot-laptop", &s);
    vn_buf b;
    vn_buf_init(&b, 64); /* far too small for the report */
    assert_int_equal(vn_report_env_text(&s, 0, &b), VN_ENOMEM);
    vn_buf_reset(&b);
    assert_int_equal(vn_report_env_json(&s, &b), VN_ENOMEM);
    assert_int_equal(vn_report_env_json(NULL, &b), VN_EINVAL);
    assert_int_equal(vn_report_env_text(&s, 0, NULL), VN_EINVAL);
    vn_buf_free(&b);
    vn_sysinfo_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(laptop),   cmocka_unit_test(tuned),
        cmocka_unit_test(vm),       cmocka_unit_test(minimal),
        cmocka_unit_test(text_details), cmocka_unit_test(embedded_object),
        cmocka_unit_test(errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
