/* What the console and Markdown views of the engine's results share: the
 * headline cells of a row, the warning marks, and the notes below the table.
 *
 * A row is read through the functions of vernier/results.h, as a program
 * would read it, so the table shows nothing a program cannot. What is read
 * from vn_results directly is the run's own context, which has no accessor:
 * the timer, the settings (the most samples), the processes it measured in. */
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/format.h"
#include "results.h"

_Static_assert(sizeof ((vn_result *)0)->name <= VN__CELL, "a name must fit in a cell");

const vn__col vn__results_cols[VN__NCOLS] = {
    [VN__COL_NAME] = {"benchmark", 0, 0, 0, NULL},
    [VN__COL_MEDIAN] = {"time", 1, 0, 0, NULL},
    [VN__COL_CI] = {"ci95", 0, 0, 0, NULL},
    [VN__COL_REL] = {"relative", 1, 1, 0, NULL},
    [VN__COL_CPU] = {"cpu", 1, 1, 0, NULL},
    [VN__COL_MEAN] = {"mean", 1, 0, 0, NULL},
    [VN__COL_MAD] = {"MAD", 1, 0, 0, NULL},
    [VN__COL_MIN] = {"min", 1, 0, 0, NULL},
    [VN__COL_P99] = {"p99", 1, 0, 0, NULL},
    [VN__COL_CYCLES] = {"cycles", 1, 1, 0, NULL},
    [VN__COL_RATE] = {"throughput", 1, 1, 0, NULL},
    [VN__COL_SAMPLES] = {"samples", 1, 0, 0, NULL},
    [VN__COL_PROCS] = {"procs", 1, 1, 0, NULL},
    [VN__COL_OVERHEAD] = {"overhead", 1, 0, 0, NULL},
    [VN__COL_MARKS] = {"warn", 0, 1, 0, NULL},
};

const vn__tag_name vn__tag_names[3] = {
    {VN_TAG_PREEMPTED, "preempted"},
    {VN_TAG_MIGRATED, "migrated"},
    {VN_TAG_SHARED_CORE, "shared_core"},
};

/* Each warning id: its letter in the warn column, and what --explain and
 * the JSON say it means and what to do about it. */
static const struct {
    char mark;
    const char *id;
    const char *explanation;
} marks[] = {
    {'V', "high_variance",
     "the samples spread widely around the median (their scaled MAD is over 5% of it), so the "
     "result depends on when it ran. Stop other work, pin the benchmark with --cpu, or give it "
     "more time with --max-time."},
    {'M', "multimodal",
     "the samples gather around two or more values (Silverman's test), so the median describes "
     "none of them: the code takes different paths, or the machine changed state during the "
     "run. Look at --hist, and measure the cases apart."},
    {'D', "drift",
     "the time per iteration grew or shrank steadily over the run (rank correlation with the "
     "sample order): the machine warmed up, throttled, or other work came and went. Add "
     "--warmup, or run on a quieter machine."},
    {'I', "interference",
     "samples during which the thread was preempted (an involuntary context switch) or moved "
     "to another CPU are counted and left out of the headline. Many of them mean other work "
     "competes for the CPUs: stop it, pin the benchmark with --cpu, or give it an isolated "
     "core."},
    {'T', "max_time",
     "sampling stopped at the time budget before the time's 95% CI was within the precision "
     "asked for; the row says how far it got. Waiting for quiet moments means other work "
     "kept interfering. Give it more time with --max-time, ask less with --precision, or "
     "quiet the machine."},
    {'N', "max_samples",
     "sampling stopped at the most samples allowed before the precision asked for was "
     "reached. Raise --max-samples, or ask less with --precision."},
    {'B', "debug_build",
     "the benchmark was compiled without optimization, so it measures code nobody ships. "
     "Build with -O2 (CMAKE_BUILD_TYPE=Release)."},
    {'Z', "dead_code",
     "the loop with the body cannot be told apart from the empty loop, so the table shows an "
     "upper bound. The compiler may have removed a body whose result is unused: pass the "
     "result to vn_keep(), or call vn_clobber(). Or the body is so short that it runs in the "
     "shadow of the loop's own increment and branch."},
    {'S', "speed_drift",
     "the reference loop that measures the core's clock (a chain of adds, one cycle each) "
     "moved during the run: frequency scaling, a thermal limit, or a busy sibling thread, and "
     "times in ns moved with it. The row's samples, or its processes, agreed better in "
     "reference cycles, so cycles is the headline that compares across runs: the ci95 column "
     "is of cycles (marked c), vernier compare compares cycles, and the ns stay beside them."},
    {'L', "processes_disagree",
     "the row's processes gave values further apart than their own samples allow, and further "
     "than the precision asked: a memory layout (where the code, the heap and the stack sit) "
     "or a state of the machine that some processes met and others did not moves this body. "
     "The interval across the processes says how much; --processes N, over 20, samples more "
     "of them."},
    {'X', "max_processes",
     "the row ran in the most processes allowed (20, or --processes N) before its interval "
     "across them was within the precision asked for: its processes differ more than that, "
     "and the finding says how many, at their spread, the precision would take. One run sees "
     "only the states of the machine it met: where the next run lands is known better from "
     "earlier ones (--store keeps them; vernier history widens the interval by how far they "
     "moved). Where a few processes ran far faster than the rest (a layout), the lower "
     "quartile sits next to them and their median is steadier: the finding then gives the "
     "median's interval, which --policy head_low=50 takes. Ask less with --precision, quiet "
     "the machine, or give --processes N (up to 1000) to run the count it gives."},
    {'W', "processes_vary",
     "the row's processes varied so much that even the most allowed (20 by default) would not "
     "bring the interval across them within the precision asked, so it stopped early (from K "
     "processes on, with --policy futile_after=K; off by default) with the interval they "
     "give. One run "
     "sees only the states of the machine it met: where the next run lands is known better "
     "from earlier ones (--store keeps them; vernier history widens the interval by how far "
     "they moved). Ask less with --precision, quiet the machine, or give "
     "--processes N to run N whole."},
    {'O', "overhead_dominates",
     "the empty loop is more than a quarter of the net time. An out-of-order core overlaps the "
     "body with the loop's own increment and branch, so subtracting the loop leaves the net "
     "time uncertain by up to the loop's cost. Do more work per iteration."},
    {'C', "timer_bound",
     "the timer's own cost and resolution are a large part of each sample, so its error shows "
     "in the result. Do more work per sample, choose a finer --timer, or drop --cold."},
    {'H', "shared_core",
     "a loop of taken branches timed around the samples saw the core slowed by another "
     "hardware thread (in a virtual machine, the host's) running beside it, in some samples, "
     "some processes or all of them. Such samples leave the headline when they ran slower than "
     "the quiet ones, such processes while two or more had a core of their own (the interval, "
     "a promise about the next run, reaches them where they read within 1.4 times the "
     "headline: --policy reach_within); when none had, "
     "the numbers are of a shared core, where code bound by the core's throughput runs up to "
     "twice as slow, and compare only with runs in that state. "
     "Turn SMT off, or pin the benchmark to a core whose sibling thread is idle."},
    {'P', "threads_oversubscribed",
     "more threads ran than CPUs this process may use, so they took turns: each thread's "
     "median is of the samples no turn interrupted, and the together rate is what the CPUs "
     "did. Use at most as many --threads as CPUs."},
    {'!', "too_short",
     "each run is so short that starting the process is a large part of it. Time more work "
     "per run."},
    {'!', "slow_first_run",
     "the first run was much slower than the rest: caches and page tables were cold. Add "
     "--warmup 1, or --prepare to measure every run cold."},
    {'!', "outliers",
     "some runs were far from the rest (beyond 3 IQR), usually because of other work on the "
     "machine. They are kept; the median ignores them."},
    {'!', "failed_runs",
     "some runs exited with an error; --ignore-failure kept them in the results."},
};

char vn__warning_mark(const char *id)
{
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        if (!strcmp(marks[i].id, id))
            return marks[i].mark;
    return '!';
}

const char *vn__warning_mark_id(char mark)
{
    if (mark == '!')
        return NULL;
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        if (marks[i].mark == mark)
            return marks[i].id;
    return NULL;
}

const char *vn__warning_explanation(const char *id)
{
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        if (!strcmp(marks[i].id, id))
            return marks[i].explanation;
    return NULL;
}

void vn__warning_brief_of(const vn_result *r, size_t i, char *out, size_t n)
{
    const char *brief = vn_result_text(r, VN_TEXT_WARNING_BRIEF, i);
    const char *m = vn_result_text(r, VN_TEXT_WARNING, i);
    if (!brief || !m) {
        if (n)
            out[0] = '\0';
        return;
    }
    if (brief[0]) {
        snprintf(out, n, "%s", brief);
        return;
    }
    /* A message without a brief of its own: its first clause, cut at a
     * word when still long. */
    size_t len = strlen(m);
    const char *stops[] = {": ", "; ", ". "};
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
        const char *p = strstr(m, stops[i]);
        if (p && (size_t)(p - m) < len)
            len = (size_t)(p - m);
    }
    const size_t most = 60;
    if (len > most) {
        size_t k = most;
        while (k > 0 && m[k] != ' ')
            k--;
        snprintf(out, n, "%.*s ...", (int)(k ? k : most), m);
    } else {
        snprintf(out, n, "%.*s", (int)len, m);
    }
}

/* The +-% of the headline's confidence interval: the farther of its two
 * ends, so "+-1%" means both ends lie within 1% of it, the same sense in
 * which the engine stops at the precision asked for. When the headline
 * that compares across runs is in reference cycles (a body on the CPU,
 * whose clock moves), the interval is of cycles, and the cell ends in "c". */
static void ci_cell(char *s, size_t n, const vn_result *r)
{
    int cyc = vn_result_figure(r, VN_CYCLES_HEADLINE) != 0;
    double m = vn_result_figure(r, cyc ? VN_CYCLES : VN_MEDIAN);
    double lo = vn_result_figure(r, cyc ? VN_CYCLES_LO : VN_CI_LO);
    double hi = vn_result_figure(r, cyc ? VN_CYCLES_HI : VN_CI_HI);
    double half = fmax(m - lo, hi - m);
    /* Below 6 samples no pair of order statistics covers 95% (the widest,
     * [min, max], covers 50% of the time for 2): the column would claim
     * what the interval is not. */
    if (!isfinite(half) || !(m > 0) || half < 0 || !(vn_result_figure(r, VN_CI_LEVEL) >= 0.95)) {
        snprintf(s, n, "-");
        return;
    }
    const char *c = cyc ? "c" : "";
    double pct = half / m * 100;
    if (pct == 0)
        snprintf(s, n, "+-0%%%s", c); /* every sample the same */
    else if (pct < 0.005)
        snprintf(s, n, "+-<0.01%%%s", c); /* not +-0.00%: the interval has a width */
    else if (pct < 0.095)
        snprintf(s, n, "+-%.2f%%%s", pct, c);
    else if (pct < 9.95)
        snprintf(s, n, "+-%.1f%%%s", pct, c);
    else if (pct < 999.5)
        snprintf(s, n, "+-%.0f%%%s", pct, c);
    else
        snprintf(s, n, "+->999%%%s", c);
}

static void cycles_cell(char *s, size_t n, double c)
{
    if (!isfinite(c))
        snprintf(s, n, "-");
    else if (fabs(c) < 99999.95)
        snprintf(s, n, "%.1f", c);
    else
        vn__fmt_count(s, n, c);
}

static void rate_cell(char *s, size_t n, const vn_result *r)
{
    char a[48], b[48];
    double bytes = vn_result_figure(r, VN_BYTES_PER_SEC);
    double items = vn_result_figure(r, VN_ITEMS_PER_SEC);
    int has_b = isfinite(bytes), has_i = isfinite(items);
    if (has_b && has_i)
        snprintf(s, n, "%s, %s", vn__fmt_rate(a, sizeof a, bytes, "B"),
                 vn__fmt_rate(b, sizeof b, items, "items"));
    else if (has_b)
        vn__fmt_rate(s, n, bytes, "B");
    else if (has_i)
        vn__fmt_rate(s, n, items, "items");
    else
        snprintf(s, n, "-");
}

void vn__results_cells(const vn_result *r, vn__cells *c)
{
    memset(c, 0, sizeof *c);
    /* A control character in a name would break the row in two. */
    vn__fmt_printable(c->s[VN__COL_NAME], sizeof c->s[0], vn_result_name(r));
    if (vn_result_error(r)[0]) {
        c->failed = 1;
        return;
    }
    size_t z = sizeof c->s[0];
    char bound[48];
    double cycles = vn_result_figure(r, VN_CYCLES);

    if (!isnan(vn_result_figure(r, VN_BOUND))) {
        /* The body cannot be told apart from the empty loop: the statistics
         * are of the loop with the body, whose median and mean are not the
         * body's, so only the bound and the spread are shown. */
        snprintf(c->s[VN__COL_MEDIAN], z, "< %s",
                 vn__fmt_ns_bound(bound, sizeof bound, vn_result_figure(r, VN_BOUND)));
        snprintf(c->s[VN__COL_CI], z, "-");
        snprintf(c->s[VN__COL_CPU], z, "-");
        snprintf(c->s[VN__COL_MEAN], z, "-");
        snprintf(c->s[VN__COL_MIN], z, "-");
        snprintf(c->s[VN__COL_P99], z, "-");
        snprintf(c->s[VN__COL_RATE], z, "-");
        if (isfinite(cycles) && cycles > 0)
            /* Rounded up, so it stays a bound. */
            snprintf(c->s[VN__COL_CYCLES], z, "< %.1f", ceil(cycles * 10) / 10);
        else
            snprintf(c->s[VN__COL_CYCLES], z, "-");
    } else {
        /* Without samples summarized the statistics are NAN, shown as "-". */
        vn__fmt_ns(c->s[VN__COL_MEDIAN], z, vn_result_figure(r, VN_MEDIAN));
        if (vn_result_figure(r, VN_N) > 0)
            ci_cell(c->s[VN__COL_CI], z, r);
        else
            snprintf(c->s[VN__COL_CI], z, "-");
        double cpu = vn_result_figure(r, VN_CPU);
        if (isfinite(cpu))
            vn__fmt_ns(c->s[VN__COL_CPU], z, cpu);
        else
            snprintf(c->s[VN__COL_CPU], z, "-");
        vn__fmt_ns(c->s[VN__COL_MEAN], z, vn_result_figure(r, VN_MEAN));
        vn__fmt_ns(c->s[VN__COL_MIN], z, vn_result_figure(r, VN_MIN));
        vn__fmt_ns(c->s[VN__COL_P99], z, vn_result_figure(r, VN_P99));
        cycles_cell(c->s[VN__COL_CYCLES], z, cycles);
        rate_cell(c->s[VN__COL_RATE], z, r);
    }
    vn__fmt_ns(c->s[VN__COL_MAD], z, vn_result_figure(r, VN_MAD));
    /* The median over the baseline row's (1.00x for the baseline itself). */
    vn__fmt_ratio(c->s[VN__COL_REL], z, vn_result_figure(r, VN_RATIO));

    char it[32];
    size_t used = (size_t)vn_result_figure(r, VN_SAMPLES), all = vn_result_samples(r);
    vn__fmt_count(it, sizeof it, vn_result_figure(r, VN_ITERS));
    /* A headline that rests on few of the samples (the others left out)
     * says how few: "12/61x512". */
    if (used < all && used < 20)
        snprintf(c->s[VN__COL_SAMPLES], z, "%zu/%zux%s", used, all, it);
    else
        snprintf(c->s[VN__COL_SAMPLES], z, "%zux%s", all, it);
    vn__fmt_ns(c->s[VN__COL_OVERHEAD], z, vn_result_figure(r, VN_OVERHEAD));
    /* The processes the row ran in, shown when some row ran in several. */
    double procs = vn_result_figure(r, VN_PROCESSES);
    if (procs > 1)
        snprintf(c->s[VN__COL_PROCS], z, "%zu", (size_t)procs);

    /* One mark per kind of warning: two unknown ids both show as one '!'. */
    size_t k = 0;
    for (size_t i = 0; i < vn_result_warnings(r) && k + 1 < z; i++) {
        char m = vn__warning_mark(vn_result_warning(r, i, NULL));
        if (!memchr(c->s[VN__COL_MARKS], m, k))
            c->s[VN__COL_MARKS][k++] = m;
    }
    c->s[VN__COL_MARKS][k] = '\0';
}

int vn__results_stop_notes(const vn_results *r, const vn_run_results *runs, const char *prefix,
                           int limits, vn_buf *b)
{
    size_t count[VN_STOP_SKIPPED + 1] = {0};
    size_t n = vn_results_count(r);
    for (size_t i = 0; i < n; i++)
        if ((unsigned)vn_result_stop(vn_results_at(r, i)) <= VN_STOP_SKIPPED)
            count[vn_result_stop(vn_results_at(r, i))]++;
    /* How far each got, and whether it was waiting for quiet moments, is
     * its own warning's to say: the precision can be a benchmark's own. */
    int err = 0;
    if (!limits)
        count[VN_STOP_MAX_TIME] = count[VN_STOP_MAX_SAMPLES] = 0;
    if (count[VN_STOP_MAX_TIME] && !err)
        err = vn_buf_printf(b, "%s%zu of %zu stopped at the time budget (their max_time warnings say how far they got)\n",
                            prefix, count[VN_STOP_MAX_TIME], n);
    if (count[VN_STOP_MAX_SAMPLES] && !err && runs)
        err = vn_buf_printf(b, "%s%zu of %zu stopped at the most runs (%zu)\n", prefix,
                            count[VN_STOP_MAX_SAMPLES], n, r->config.max_samples);
    else if (count[VN_STOP_MAX_SAMPLES] && !err)
        err = vn_buf_printf(b, "%s%zu of %zu stopped at the most samples (their max_samples warnings say how far they got)\n",
                            prefix, count[VN_STOP_MAX_SAMPLES], n);
    if (count[VN_STOP_FAILED] && !err)
        err = vn_buf_printf(b, "%s%zu of %zu failed\n", prefix, count[VN_STOP_FAILED], n);
    /* Skipped all for one reason (a TMPDIR that cannot be used, a CPU
     * given twice): the reason itself, not a guess about the machine. */
    const char *why = NULL;
    int one_why = 1;
    for (size_t i = 0; i < n && one_why; i++) {
        const vn_result *x = vn_results_at(r, i);
        if (vn_result_stop(x) != VN_STOP_SKIPPED)
            continue;
        if (!why)
            why = vn_result_error(x);
        else if (strcmp(why, vn_result_error(x)))
            one_why = 0;
    }
    if (count[VN_STOP_SKIPPED] && !err && one_why && why && why[0] && strlen(why) < 80)
        err = vn_buf_printf(b, "%s%zu of %zu skipped: %s\n", prefix, count[VN_STOP_SKIPPED], n, why);
    else if (count[VN_STOP_SKIPPED] && !err)
        err = vn_buf_printf(b, "%s%zu of %zu skipped: this machine cannot run them (each row says why)\n",
                            prefix, count[VN_STOP_SKIPPED], n);
    if (count[VN_STOP_INTERRUPTED] && !err)
        err = vn_buf_printf(b, "%s%zu of %zu were interrupted and show the samples taken so far\n",
                            prefix, count[VN_STOP_INTERRUPTED], n);
    if (r->interrupted && !err)
        err = vn_buf_printf(b, "%sthe run was interrupted: benchmarks not shown did not run\n",
                            prefix);
    return err;
}

/* The timer's line: its name, read cost and resolution, and why it was
 * chosen when with_reason. */
static int timer_line(const vn_results *r, vn_buf *b, int with_reason)
{
    const char *name = vn_clock_name(r->timer);
    char cost[32], res[32];
    int err = vn_buf_printf(b, "timer: %s", name ? name : "unknown");
    if (!err && isfinite(r->timer_cost_ns))
        err = vn_buf_printf(b, ", %s per read", vn__fmt_ns(cost, sizeof cost, r->timer_cost_ns));
    if (!err && isfinite(r->timer_resolution_ns))
        err = vn_buf_printf(b, ", resolution %s",
                            vn__fmt_ns(res, sizeof res, r->timer_resolution_ns));
    if (!err && with_reason && r->timer_reason[0])
        err = vn_buf_printf(b, " (%s)", r->timer_reason);
    if (!err)
        err = vn_buf_puts(b, "\n");
    return err;
}

int vn__results_timer_brief(const vn_results *r, vn_buf *b) { return timer_line(r, b, 0); }

/* For --explain: how each row's variation split between its processes,
 * the two halves of a process's samples, and the samples within them (the
 * shares the JSON keeps as headline.variation), the first 8 rows. */
static int variation_shares(const vn_results *r, vn_buf *b)
{
    int err = 0;
    size_t shown = 0, more = 0;
    for (size_t i = 0; i < vn_results_count(r) && !err; i++) {
        const vn_result *x = vn_results_at(r, i);
        if (!isfinite(x->share_processes) || !isfinite(x->share_blocks) ||
            !isfinite(x->share_samples))
            continue;
        if (shown == 8) {
            more++;
            continue;
        }
        err = vn_buf_printf(b, "%s%s %.0f/%.0f/%.0f%%",
                            shown ? ", " : " Of each row's variation, the share between processes, "
                                           "between halves of a process's samples, and within: ",
                            x->name, 100 * x->share_processes, 100 * x->share_blocks,
                            100 * x->share_samples);
        shown++;
    }
    if (!err && more)
        err = vn_buf_printf(b, ", and %zu more", more);
    if (!err && shown)
        err = vn_buf_puts(b, ".");
    return err ? err : vn_buf_puts(b, "\n");
}

/* What a row's time is across its processes, said once for the run: the
 * quantile the rows measured in several processes share (the policy's),
 * or nothing for none (or their mean, an experiment's). */
static int headline_sentence(const vn_results *r, vn_buf *b)
{
    double q = NAN;
    for (size_t i = 0; i < vn_results_count(r); i++) {
        const vn_result *x = vn_results_at(r, i);
        if (x->head_quantile > 0)
            q = x->head_quantile;
    }
    if (q > 0 && q < 0.5)
        return vn_buf_printf(b, " A row's time is the %.0f%% quantile of its processes' values "
                                "(each its samples' median net of the empty loop): the machine's "
                                "neighbours and slower states only add time, so the faster "
                                "processes move less from run to run; --policy head_low=50 "
                                "gives their median.", 100 * q);
    return q == 0.5 ? vn_buf_puts(b, " A row's time is the median of its processes' values.") : 0;
}

int vn__results_processes_line(const vn_results *r, int full, vn_buf *b)
{
    if (!vn_results_count(r))
        return 0;
    if (r->processes == 0)
        return vn_buf_printf(b, "%s", full
            ? "processes: measured in this one process, so the intervals hold for its samples, "
              "not for another run's: a new process has another memory layout and meets the "
              "machine at another moment. A benchmark program measures in several by default "
              "(--processes).\n"
            : "variation between runs not measured: one process\n");
    char wall[32];
    snprintf(wall, sizeof wall, "%.2g s", r->processes_wall);
    if (full) {
        int err = vn_buf_printf(
            b, "processes: %zu, one after another within %s, each a fresh memory layout, "
               "environment size and stack offset; each interval is taken across a row's "
               "processes, so it holds what varied within those %s. Slower changes of the "
               "machine (its clock, its neighbours over minutes) are not in it: compare runs "
               "made close together, give a longer --max-time, or keep runs with --store: "
               "vernier history and compare --store widen intervals by how far results moved "
               "from run to run here.",
            r->processes, wall, wall);
        err = err ? err : headline_sentence(r, b);
        return err ? err : variation_shares(r, b);
    }
    /* One run sees the seconds it lasted, never the machine's states
     * between runs, however long it ran: said on a line of its own, with
     * what it did see. */
    return vn_buf_printf(b, "variation between runs not measured: %zu process%s within %s\n",
                         r->processes, r->processes == 1 ? "" : "es", wall);
}

int vn__results_timer_note(const vn_results *r, vn_buf *b) { return timer_line(r, b, 1); }

void vn__textf(vn_buf *b, int *err, const char *fmt, ...)
{
    if (*err)
        return;
    va_list ap;
    va_start(ap, fmt);
    *err = vn_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void vn__text_pad(vn__text *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        vn__textf(t->b, &t->err, " ");
}
