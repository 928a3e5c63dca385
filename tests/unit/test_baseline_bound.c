/* Rows compared with a baseline that is an upper bound (its body no slower
 * than its empty loop): the bound bounds each row's ratio from below, in
 * the direction the row's median over the bound gives; a row that is a
 * bound too, or has no median above 0, or no time, says what it lacks. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/internal.h"
#include "stats/internal.h"
#include "main/all.h"

static vn_result *row(vn_results *r, const char *name, double median, double bound_ns)
{
    vn_result *x = &r->bench[r->nbench++];
    memset(x, 0, sizeof *x);
    snprintf(x->name, sizeof x->name, "%s", name);
    snprintf(x->baseline, sizeof x->baseline, "base");
    x->unit = "ns";
    x->precision = 1;
    x->stats.n = isfinite(median) || bound_ns > 0 ? 20 : 0;
    x->stats.median = median;
    x->upper_bound = bound_ns > 0;
    x->bound_ns = bound_ns;
    return x;
}

/* The brief of the line that starts with name, or NULL. */
static const char *line_of(const vn_results *r, const char *name)
{
    for (size_t i = 0; i < vn_results_findings(r); i++) {
        const char *brief = NULL;
        vn_results_finding(r, i, &brief);
        if (brief && !strncmp(brief, name, strlen(name)) && brief[strlen(name)] == ' ')
            return brief;
        if (brief && !strncmp(brief, name, strlen(name)) && brief[strlen(name)] == ':')
            return brief;
    }
    return NULL;
}

/* An empty set of results with room for n rows. */
static void results_of(vn_results *r, size_t n)
{
    memset(r, 0, sizeof *r);
    r->size = sizeof *r;
    r->result_size = sizeof(vn_result);
    r->bench = calloc(n, sizeof *r->bench);
    assert_non_null(r->bench);
}

static void a_bound_baseline_bounds_each_ratio(void **state)
{
    (void)state;
    vn_results r;
    results_of(&r, 6);
    row(&r, "base", NAN, 0.25);
    row(&r, "slow", 100, 0);   /* 100 / 0.25: at least 400x slower */
    row(&r, "fast", 0.1, 0);   /* 0.1 / 0.25: at most 2.5x faster */
    row(&r, "tiny", NAN, 0.3); /* a bound too: nothing known */
    row(&r, "zero", 0, 0);     /* no median above 0 */
    row(&r, "none", NAN, 0);   /* no samples (interrupted): no line */
    assert_int_equal(vn__compare_rows(&r, NULL, 0), 0);

    const char *slow = line_of(&r, "slow"), *fast = line_of(&r, "fast");
    assert_non_null(slow);
    assert_string_equal(slow, "slow is at least 400x slower than base (< 0.25 ns, a bound)");
    assert_non_null(fast);
    assert_string_equal(fast, "fast is at most 2.50x faster than base (< 0.25 ns, a bound)");
    const char *tiny = line_of(&r, "tiny");
    assert_non_null(tiny);
    assert_non_null(strstr(tiny, "both upper bounds"));
    assert_non_null(strstr(tiny, "no ratio"));
    const char *zero = line_of(&r, "zero");
    assert_non_null(zero);
    assert_non_null(strstr(zero, "no median above 0"));
    assert_null(line_of(&r, "none"));
    for (size_t i = 0; i < vn_results_findings(&r); i++) {
        const char *brief = NULL;
        vn_results_finding(&r, i, &brief);
        assert_null(strstr(brief, "inf"));
        assert_null(strstr(brief, "nan"));
    }
    vn__results_clear(&r);
}

/* The demo's sums in an hour of a busy sibling: the baseline rests on its
 * two processes with a core of their own (2758 and 4218 ns), its eighteen
 * shared ones (4700 and more) left out; the row rests on all twenty (2540
 * to 3060). The ratio rests on the two both headlines keep (3060/2758 and
 * 2540/4218: their logs' mean), its interval reaching the eighteen's
 * median ratio, which would otherwise carry the ratio alone. */
static void the_ratio_rests_on_the_processes_both_headlines_keep(void **state)
{
    (void)state;
    vn_results r;
    results_of(&r, 2);
    vn_result *base = row(&r, "base", 2758, 0), *x = row(&r, "x", 2600, 0);
    enum { K = 20 };
    base->processes = calloc(K, sizeof *base->processes);
    x->processes = calloc(K, sizeof *x->processes);
    assert_non_null(base->processes);
    assert_non_null(x->processes);
    base->nprocesses = x->nprocesses = K;
    double others[K];
    size_t nother = 0;
    for (int i = 0; i < K; i++) {
        int own = i == 7 || i == 17;
        vn_process_result *b = &base->processes[i], *a = &x->processes[i];
        b->value = i == 17 ? 2758 : i == 7 ? 4218 : 4700 + 40 * i;
        a->value = i == 17 ? 3060 : i == 7 ? 2540 : 2600 + 10 * i;
        b->shared = a->shared = !own;
        b->left_out = !own;
        if (!own)
            others[nother++] = a->value / b->value;
    }
    assert_int_equal(vn__compare_rows(&r, NULL, 0), 0);
    assert_int_equal(x->ratio_processes, 1);
    assert_int_equal(x->ratio_n, 2);
    assert_int_equal(x->ratio_other, 18);
    double want = sqrt(3060.0 / 2758 * (2540.0 / 4218));
    assert_float_equal(x->ratio, want, 1e-9 * want);
    qsort(others, nother, sizeof *others, vn__cmp_double);
    double reach = (others[8] + others[9]) / 2;
    assert_true(reach < 0.6 && reach < want);
    assert_true(x->ratio_ci[0] <= reach * (1 + 1e-12) && x->ratio_ci[1] >= want);
    assert_true(x->ratio_range[0] <= reach && x->ratio_range[1] >= 3060.0 / 2758);
    vn__results_clear(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_bound_baseline_bounds_each_ratio),
        cmocka_unit_test(the_ratio_rests_on_the_processes_both_headlines_keep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
