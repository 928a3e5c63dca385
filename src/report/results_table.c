/* The engine's results as tables for other programs and other pages: CSV
 * (one row per benchmark, or one per sample) and a GitHub Markdown table.
 *
 * Rows are read through vernier/results.h, but for the per-thread medians
 * in Markdown's notes, an array no figure holds; the run's counter info
 * and the machine's warnings are read directly, as they have no accessor.
 *
 * CSV numbers are written with the shortest of %.15g and %.17g that reads
 * back as the same double, the same digits the JSON document holds, so a
 * script reading either file gets the same values. A value that is unknown
 * or does not apply is an empty field. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/format.h"
#include "results.h"

/* ---- CSV ---------------------------------------------------------------- */

/* Quoted as RFC 4180 asks when the field holds a comma, a quote or a line
 * break; quotes inside are doubled. */
static int csv_field(vn_buf *b, const char *s)
{
    int err = 0;
    if (strpbrk(s, ",\"\r\n")) {
        err = vn_buf_puts(b, "\"");
        for (const char *p = s; *p && !err; p++)
            err = *p == '"' ? vn_buf_puts(b, "\"\"") : vn_buf_append(b, p, 1);
        if (!err)
            err = vn_buf_puts(b, "\"");
    } else {
        err = vn_buf_puts(b, s);
    }
    return err;
}

/* A field and what ends it: a comma, or nothing for the last (the caller
 * ends the record, after the counter columns when there are any). */
static int csv_str(vn_buf *b, const char *s, int last)
{
    int err = csv_field(b, s);
    return err || last ? err : vn_buf_puts(b, ",");
}

static int csv_num(vn_buf *b, double v)
{
    char s[40];
    int err = vn_buf_puts(b, vn__fmt_exact(s, sizeof s, v));
    return err ? err : vn_buf_puts(b, ",");
}

/* The parameter column: the engine's one integer, or a command's values
 * as "name=value;name=value" (quoted when a value needs it). */
static int csv_param(vn_buf *b, const vn_result *r, const vn_run_result *x)
{
    if (x && x->nparams) {
        vn_buf t;
        vn_buf_init(&t, 0);
        int err = 0;
        for (size_t i = 0; i < x->nparams && !err; i++)
            err = vn_buf_printf(&t, "%s%s=%s", i ? ";" : "", x->pnames[i], x->pvalues[i]);
        if (!err)
            err = csv_str(b, t.data ? t.data : "", 0);
        vn_buf_free(&t);
        return err;
    }
    if (!vn_result_text(r, VN_TEXT_PARAM, 0)[0])
        return vn_buf_puts(b, ",");
    return vn_buf_printf(b, "%lld,", vn__param_value(r));
}

static const char *const summary_header =
    "name,param,unit,n,iters,median,median_ci_lo,median_ci_hi,mean,stddev,mad,min,max,"
    "p1,p5,p10,p25,p50,p75,p90,p95,p99,cycles,cpu,overhead,upper_bound,bound,"
    "bytes_per_sec,items_per_sec,stop,error,warnings\n";

/* With counters on, the rows go on after the warnings: one column per
 * opened event (net per iteration), the events that were scaled, then the
 * ratios; so a script that reads the columns before keeps working. The
 * event columns are "counter.NAME": "cycles" alone is taken by the
 * reference cycles. */
static int counters_on(const vn_results *r) { return r->counters.requested[0] != '\0'; }

static int csv_counter_header(vn_buf *b, const vn_results *r, int raw)
{
    int err = 0;
    for (size_t i = 0; i < r->counters.n && i < VN_COUNTERS_MAX && !err; i++)
        if (r->counters.ev[i].opened) {
            char name[VN_COUNTER_NAME_MAX + 16];
            snprintf(name, sizeof name, "counter.%s", r->counters.ev[i].name);
            err = vn_buf_puts(b, ",");
            if (!err)
                err = csv_field(b, name);
        }
    if (!raw && !err)
        err = vn_buf_puts(b, ",counters_scaled,ipc,branch_miss_pct,cache_miss_pct,insn_per_byte");
    return err;
}

/* The row's counter of that name: its index, or -1 when it has none. */
static int counter_of(const vn_result *res, const char *name)
{
    for (size_t i = 0; i < vn_result_counters(res); i++)
        if (!strcmp(vn_result_counter(res, i, NULL), name))
            return (int)i;
    return -1;
}

static int csv_counter_cells(vn_buf *b, const vn_results *r, const vn_result *res)
{
    int err = 0;
    char scaled[1024] = "";
    uint32_t scaled_mask = (uint32_t)vn_result_figure(res, VN_COUNTERS_SCALED);
    for (size_t i = 0; i < r->counters.n && i < VN_COUNTERS_MAX && !err; i++) {
        if (!r->counters.ev[i].opened)
            continue;
        int c = counter_of(res, r->counters.ev[i].name);
        double value = NAN;
        const char *name = c >= 0 ? vn_result_counter(res, (size_t)c, &value) : NULL;
        char v[40];
        err = vn_buf_printf(b, ",%s", vn__fmt_exact(v, sizeof v, value));
        if (name && (scaled_mask >> c & 1u))
            snprintf(scaled + strlen(scaled), sizeof scaled - strlen(scaled), "%s%s",
                     scaled[0] ? ";" : "", name);
    }
    /* NAN in a row without counters. */
    double d[] = {vn_result_figure(res, VN_IPC), vn_result_figure(res, VN_BRANCH_MISS_PCT),
                  vn_result_figure(res, VN_CACHE_MISS_PCT),
                  vn_result_figure(res, VN_INSN_PER_BYTE)};
    if (!err)
        err = vn_buf_puts(b, ",");
    if (!err)
        err = csv_field(b, scaled);
    for (size_t i = 0; i < 4 && !err; i++) {
        char v[40];
        err = vn_buf_printf(b, ",%s", vn__fmt_exact(v, sizeof v, d[i]));
    }
    return err;
}

/* The statistics in the order of the summary's columns from median to max,
 * and the percentiles p1 to p99. */
static const vn_figure summary_figures[] = {VN_MEDIAN, VN_CI_LO, VN_CI_HI, VN_MEAN,
                                            VN_STDDEV, VN_MAD,   VN_MIN,   VN_MAX};
static const vn_figure percentiles[] = {VN_P1,  VN_P5,  VN_P10, VN_P25, VN_P50,
                                        VN_P75, VN_P90, VN_P95, VN_P99};

static int csv_summary_row(vn_buf *b, const vn_result *r, const vn_run_result *x)
{
    const char *error = vn_result_error(r);
    int have = vn_result_figure(r, VN_N) > 0 && !error[0];
    int bound = !isnan(vn_result_figure(r, VN_BOUND));
    /* Where the result is only a bound, the statistics are of the loop with
     * the body, and their location (median, mean, percentiles) is not the
     * body's: left empty, or a spreadsheet would plot it as the body's time.
     * The spread (stddev, mad) stays, and `bound` holds the number. */
    int loc = have && !bound;
    int err = csv_str(b, vn_result_name(r), 0);
    if (!err)
        err = csv_param(b, r, x);
    if (!err)
        err = csv_str(b, vn_result_text(r, VN_TEXT_UNIT, 0), 0);
    if (!err)
        err = vn_buf_printf(b, "%zu,%llu,", have ? (size_t)vn_result_figure(r, VN_N) : 0,
                            (unsigned long long)vn_result_figure(r, VN_ITERS));
    for (size_t i = 0; i < sizeof summary_figures / sizeof summary_figures[0] && !err; i++) {
        vn_figure f = summary_figures[i];
        int spread = f == VN_STDDEV || f == VN_MAD;
        err = csv_num(b, (spread ? have : loc) ? vn_result_figure(r, f) : NAN);
    }
    for (size_t i = 0; i < sizeof percentiles / sizeof percentiles[0] && !err; i++)
        err = csv_num(b, loc ? vn_result_figure(r, percentiles[i]) : NAN);
    if (!err)
        err = csv_num(b, loc ? vn_result_figure(r, VN_CYCLES) : NAN);
    if (!err)
        err = csv_num(b, loc ? vn_result_figure(r, VN_CPU) : NAN);
    if (!err)
        err = csv_num(b, vn_result_figure(r, VN_OVERHEAD));
    if (!err)
        err = vn_buf_printf(b, "%d,", bound);
    if (!err)
        err = csv_num(b, vn_result_figure(r, VN_BOUND));
    if (!err)
        err = csv_num(b, loc ? vn_result_figure(r, VN_BYTES_PER_SEC) : NAN);
    if (!err)
        err = csv_num(b, loc ? vn_result_figure(r, VN_ITEMS_PER_SEC) : NAN);
    const char *stop = vn_stop_name(vn_result_stop(r));
    if (!err)
        err = csv_str(b, stop ? stop : "unknown", 0);
    if (!err)
        err = csv_str(b, error, 0);
    char ids[VN_MAX_WARNINGS * 33] = "";
    size_t len = 0;
    for (size_t i = 0; i < vn_result_warnings(r); i++) {
        int n = snprintf(ids + len, sizeof ids - len, "%s%s", i ? ";" : "",
                         vn_result_warning(r, i, NULL));
        if (n < 0 || (size_t)n >= sizeof ids - len)
            break;
        len += (size_t)n;
    }
    return err ? err : csv_str(b, ids, 1);
}

static const char *const raw_header = "name,param,sample,value,iters,tags,ref_ns,thread\n";

static int csv_sample_row(vn_buf *b, const vn_result *r, const vn_run_result *x, size_t i)
{
    const vn_sample *s = vn_result_sample(r, i);
    char tags[64] = "";
    for (size_t k = 0; k < sizeof vn__tag_names / sizeof vn__tag_names[0]; k++)
        if (s->tags & vn__tag_names[k].bit)
            snprintf(tags + strlen(tags), sizeof tags - strlen(tags), "%s%s", tags[0] ? ";" : "",
                     vn__tag_names[k].name);
    char v[40], ref[40], br[40];
    int err = csv_str(b, vn_result_name(r), 0);
    if (!err)
        err = csv_param(b, r, x);
    if (!err)
        err = vn_buf_printf(b, "%zu,%s,%llu,%s,%s,%d", i, vn__fmt_exact(v, sizeof v, s->value),
                            (unsigned long long)s->iters, tags,
                            vn__fmt_exact(ref, sizeof ref, s->ref_ns), s->thread);
    if (!err && !x)
        err = vn_buf_printf(b, ",%s", vn__fmt_exact(br, sizeof br, s->branch_cycles));
    /* A run of a command: what wait4() said about it. */
    if (!err && x) {
        const vn_proc_usage *u = &x->proc[i];
        char us[40], sy[40], sig[24] = "";
        if (u->signal)
            snprintf(sig, sizeof sig, "SIG%s", sigabbrev_np(u->signal) ? sigabbrev_np(u->signal) : "?");
        err = vn_buf_printf(b, ",%s,%s,%lld,%lld,%lld,%lld,%lld,", vn__fmt_exact(us, sizeof us, u->user_ns),
                            vn__fmt_exact(sy, sizeof sy, u->sys_ns), u->maxrss_kib, u->minflt,
                            u->majflt, u->nvcsw, u->nivcsw);
        if (!err && !u->signal)
            err = vn_buf_printf(b, "%d", u->exit_status);
        if (!err)
            err = vn_buf_printf(b, ",%s", sig);
    }
    return err;
}

/* In-process rows compared with a baseline: its name, the ratio of the
 * medians and its 95% interval; empty fields without one. */
static const char *const baseline_columns = ",baseline,ratio,ratio_lo,ratio_hi";

static int csv_baseline_cells(vn_buf *b, const vn_result *r)
{
    int err = vn_buf_puts(b, ",");
    if (!err)
        err = csv_field(b, vn_result_text(r, VN_TEXT_BASELINE, 0));
    /* NAN without a baseline. */
    double v[] = {vn_result_figure(r, VN_RATIO), vn_result_figure(r, VN_RATIO_LO),
                  vn_result_figure(r, VN_RATIO_HI)};
    for (size_t i = 0; i < 3 && !err; i++) {
        char s[40];
        err = vn_buf_printf(b, ",%s", vn__fmt_exact(s, sizeof s, v[i]));
    }
    return err;
}

/* The raw header's extra columns: for in-process samples, and for runs of
 * commands. */
static const char *const raw_bench_columns = ",branch_cycles";
static const char *const raw_run_columns = ",user,sys,maxrss_kib,minflt,majflt,nvcsw,nivcsw,exit_status,signal";

int vn__report_results_csv(const vn_results *r, const vn_run_results *runs, int raw, vn_buf *out)
{
    if (!out)
        return VN_EINVAL;
    int bad = vn__results_check(r);
    if (bad)
        return bad;
    /* The headers end in a newline; with counters their columns go first. */
    const char *h = raw ? raw_header : summary_header;
    int on = counters_on(r);
    int err = vn_buf_append(out, h, strlen(h) - 1);
    if (!err && raw)
        err = vn_buf_puts(out, runs ? raw_run_columns : raw_bench_columns);
    if (!err && !raw && !runs)
        err = vn_buf_puts(out, baseline_columns);
    if (!err && on)
        err = csv_counter_header(out, r, raw);
    if (!err)
        err = vn_buf_puts(out, "\n");
    for (size_t i = 0; i < vn_results_count(r) && !err; i++) {
        const vn_result *res = vn_results_at(r, i);
        const vn_run_result *x = runs ? &runs->commands[i] : NULL;
        if (!raw) {
            err = csv_summary_row(out, res, x);
            if (!err && !x)
                err = csv_baseline_cells(out, res);
            if (!err && on)
                err = csv_counter_cells(out, r, res);
            if (!err)
                err = vn_buf_puts(out, "\n");
        }
        const vn_sample *s;
        for (size_t k = 0; raw && (s = vn_result_sample(res, k)) != NULL && !err; k++) {
            err = csv_sample_row(out, res, x, k);
            for (size_t c = 0; on && c < r->counters.nopened && !err; c++) {
                char v[40];
                double x = s->counts && c < vn_result_counters(res) ? s->counts[c] : NAN;
                err = vn_buf_printf(out, ",%s", vn__fmt_exact(v, sizeof v, x));
            }
            if (!err)
                err = vn_buf_puts(out, "\n");
        }
    }
    return err;
}

int vn_report_results_csv(const vn_results *r, int raw, vn_buf *out)
{
    return vn__report_results_csv(r, NULL, raw, out);
}

/* ---- Markdown ----------------------------------------------------------- */

/* Whether GitHub Markdown could read '<' followed by c as the start of an
 * HTML tag or comment; "< 0.31 ns" is left as it is, readable in the source. */
static int tag_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c && strchr("/!?", c));
}

/* Text from outside (names, messages) with the characters that GitHub
 * Markdown would read as markup escaped by a backslash: a '|' would end the
 * table cell, a '*' or '_' start emphasis, '[' a link. A line break would
 * end the table row, so it becomes a space; another control character, or
 * a byte that is not UTF-8, becomes '?' as on the terminal. */
static int md_text(vn_buf *b, const char *s)
{
    int err = 0;
    for (const char *p = s; *p && !err; p++) {
        int ok, len = vn__text_char(p, &ok);
        if (*p == '\n' || *p == '\r')
            err = vn_buf_puts(b, " ");
        else if (!ok)
            err = vn_buf_puts(b, "?"), p += len - 1;
        else if (len > 1)
            err = vn_buf_append(b, p, (size_t)len), p += len - 1;
        else if (strchr("\\|`*_[]>~&", *p) || (*p == '<' && tag_start(p[1])))
            err = vn_buf_printf(b, "\\%c", *p);
        else
            err = vn_buf_append(b, p, 1);
    }
    return err;
}

/* The notes the console prints below its table, each one a list item. */
static int md_notes(vn_buf *b, const vn_results *r, const vn_run_results *runs)
{
    vn_buf tmp;
    vn_buf_init(&tmp, 0);
    int err = 0;
    for (size_t i = 0; i < vn_results_findings(r) && !err; i++) {
        const char *brief = "";
        vn_results_finding(r, i, &brief);
        err = vn_buf_printf(&tmp, "%s\n", brief);
    }
    if (!err)
        err = vn__results_counter_notes(r, runs, "", &tmp);
    if (!err)
        err = vn__results_timer_note(r, &tmp);
    if (!err)
        err = vn__results_stop_notes(r, runs, "", 1, &tmp);
    for (size_t i = 0; i < vn_results_count(r) && !err; i++) {
        const vn_result *res = vn_results_at(r, i);
        char a[32];
        int threads = (int)vn_result_figure(res, VN_THREADS);
        if (threads <= 1 || vn_result_error(res)[0])
            continue;
        double together = vn_result_figure(res, VN_ITERS_PER_SEC);
        err = vn_buf_printf(&tmp, "%s: %d threads, together %s", vn_result_name(res), threads,
                            vn__fmt_rate(a, sizeof a, together, "iter"));
        for (int k = 0; res->thread_median && k < threads && !err; k++)
            err = vn_buf_printf(&tmp, "%s%s", k ? ", " : "; median per thread with the loop ",
                                vn__fmt_ns(a, sizeof a, res->thread_median[k]));
        if (!err)
            err = vn_buf_puts(&tmp, "\n");
    }
    /* Each line of the notes becomes one escaped list item. */
    const char *p = tmp.len ? tmp.data : "";
    while (*p && !err) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        err = vn_buf_puts(b, "- ");
        if (!err)
            err = md_text(b, line);
        if (!err)
            err = vn_buf_puts(b, "\n");
        p += n + (e != NULL);
    }
    vn_buf_free(&tmp);
    return err;
}

int vn__report_results_markdown(const vn_results *r, const vn_run_results *runs, vn_buf *out)
{
    if (!out)
        return VN_EINVAL;
    int bad = vn__results_check(r);
    if (bad)
        return bad;
    size_t n = vn_results_count(r);
    vn__cells *rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows)
        return VN_ENOMEM;
    int shown[VN__NCOLS];
    vn__col cols[VN__NCOLS];
    vn__results_layout(r, 0, cols);
    for (size_t i = 0; i < n; i++) {
        vn__results_cells(vn_results_at(r, i), &rows[i]);
        vn__results_counter_cells(cols, vn_results_at(r, i), &rows[i]);
    }
    for (int k = 0; k < VN__NCOLS; k++) {
        /* The warn column's letters need a legend; the list below names
         * the warnings in full instead. */
        shown[k] = k != VN__COL_MARKS && !cols[k].optional;
        for (size_t i = 0; i < n && !shown[k] && k != VN__COL_MARKS; i++)
            shown[k] = !rows[i].failed && rows[i].s[k][0] && strcmp(rows[i].s[k], "-") != 0;
    }

    int err = 0;
    if (n) {
        /* Event names from libpfm4 hold '_', which Markdown reads as emphasis. */
        for (int k = 0; k < VN__NCOLS && !err; k++) {
            if (!shown[k])
                continue;
            err = vn_buf_puts(out, "| ");
            if (!err)
                err = md_text(out, cols[k].header);
            if (!err)
                err = vn_buf_puts(out, " ");
        }
        if (!err)
            err = vn_buf_puts(out, "|\n");
        for (int k = 0; k < VN__NCOLS && !err; k++)
            if (shown[k])
                err = vn_buf_puts(out, cols[k].right ? "|---:" : "|:---");
        if (!err)
            err = vn_buf_puts(out, "|\n");
    } else {
        err = vn_buf_puts(out, "No benchmarks ran.\n");
    }
    for (size_t i = 0; i < n && !err; i++) {
        const vn_result *res = vn_results_at(r, i);
        for (int k = 0; k < VN__NCOLS && !err; k++) {
            if (!shown[k])
                continue;
            /* A failed row has its error where the median would be. */
            const char *cell = k == VN__COL_NAME                      ? vn_result_name(res)
                               : rows[i].failed && k == VN__COL_MEDIAN ? vn_result_error(res)
                               : rows[i].failed                        ? ""
                                                                       : rows[i].s[k];
            err = vn_buf_puts(out, !rows[i].failed || k != VN__COL_MEDIAN   ? "| "
                                   : vn_result_stop(res) == VN_STOP_SKIPPED ? "| skipped: "
                                                                            : "| failed: ");
            if (!err)
                err = md_text(out, cell);
            if (!err)
                err = vn_buf_puts(out, " ");
        }
        if (!err)
            err = vn_buf_puts(out, "|\n");
    }

    int nwarn = r->env.nwarnings > 0;
    for (size_t i = 0; i < n; i++)
        nwarn |= vn_result_warnings(vn_results_at(r, i)) > 0;
    if (nwarn && !err)
        err = vn_buf_puts(out, "\nWarnings:\n\n");
    for (size_t i = 0; i < n && !err; i++) {
        const vn_result *res = vn_results_at(r, i);
        for (size_t k = 0; k < vn_result_warnings(res) && !err; k++) {
            err = vn_buf_puts(out, "- ");
            if (!err)
                err = md_text(out, vn_result_name(res));
            if (!err)
                err = vn_buf_puts(out, ": \\[");
            if (!err)
                err = md_text(out, vn_result_warning(res, k, NULL));
            if (!err)
                err = vn_buf_puts(out, "\\] ");
            if (!err)
                err = md_text(out, vn_result_text(res, VN_TEXT_WARNING, k));
            if (!err)
                err = vn_buf_puts(out, "\n");
        }
    }
    for (int k = 0; k < r->env.nwarnings && k < VN_SYSINFO_MAX_WARNINGS && !err; k++) {
        const vn_warning *w = &r->env.warnings[k];
        err = vn_buf_puts(out, "- machine: \\[");
        if (!err)
            err = md_text(out, w->id);
        if (!err)
            err = vn_buf_puts(out, "\\] ");
        if (!err)
            err = md_text(out, w->message);
        if (!err)
            err = vn_buf_puts(out, " (fix: ");
        if (!err)
            err = md_text(out, w->fix);
        if (!err)
            err = vn_buf_puts(out, ")\n");
    }
    if (!err)
        err = vn_buf_puts(out, "\nNotes:\n\n");
    if (!err)
        err = md_notes(out, r, runs);
    free(rows);
    return err;
}

int vn_report_results_markdown(const vn_results *r, vn_buf *out)
{
    return vn__report_results_markdown(r, NULL, out);
}
