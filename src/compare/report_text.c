/* The comparison for people: the console table and the Markdown table of a
 * pull request's comment, each followed by the same lines (the geometric
 * mean, what was not compared, warnings), one finding a line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "base/format.h"
#include "report/internal.h"

#define out(...) vn__textf(o, &err, __VA_ARGS__)

/* A line a person reads stays within this many columns. */
#define LINE_MAX_COLS 100

static char *fmt_ratio(char *s, size_t n, double r)
{
    if (isnan(r))
        snprintf(s, n, "-");
    else if (isinf(r))
        snprintf(s, n, "inf");
    else
        snprintf(s, n, r < 9.9995 ? "%.3fx" : "%.4gx", r);
    return s;
}

static char *fmt_p(char *s, size_t n, double p)
{
    if (isnan(p))
        snprintf(s, n, "-");
    else
        snprintf(s, n, p < 0.001 ? "<0.001" : "%.3f", p);
    return s;
}

static char *fmt_ci(char *s, size_t n, double lo, double hi)
{
    char a[24], b[24];
    if (isnan(lo))
        snprintf(s, n, "-");
    else
        snprintf(s, n, "%s-%s", fmt_ratio(a, sizeof a, lo), fmt_ratio(b, sizeof b, hi));
    return s;
}

/* A name for a terminal within cols columns: made printable, and cut with
 * "..." when longer. Returns the columns it takes. */
static size_t clip(char *dst, size_t n, const char *name, size_t cols)
{
    vn__fmt_printable(dst, n, name);
    size_t w = vn__text_width(dst);
    if (w <= cols)
        return w;
    /* Cut at a character's start, dropping characters from the end until
     * the rest and the dots fit. */
    size_t len = strlen(dst);
    while (len > 0) {
        do
            len--;
        while (len > 0 && ((unsigned char)dst[len] & 0xc0) == 0x80);
        dst[len] = '\0';
        if (vn__text_width(dst) + 3 <= cols)
            break;
    }
    strcat(dst, "...");
    return vn__text_width(dst);
}

static int any_insn(const vn__cmp_result *r)
{
    for (size_t i = 0; i < r->nrows; i++)
        if (!isnan(r->rows[i].insn_ratio))
            return 1;
    return 0;
}

/* Names joined by ", " after head, cut to fit one line with how many more. */
static void name_list(vn_buf *o, int *errp, const char *prefix, const char *head,
                      const char *const *names, size_t n)
{
    int err = *errp;
    if (!n)
        return;
    char line[LINE_MAX_COLS * 4 + 64];
    int used = snprintf(line, sizeof line, "%s%s (%zu): ", prefix, head, n);
    size_t i = 0;
    for (; i < n; i++) {
        char nm[LINE_MAX_COLS * 4];
        size_t w = clip(nm, sizeof nm, names[i], 40);
        size_t more = i + 1 < n ? 16 : 0; /* room for ", and 99 more" */
        if ((size_t)used + w + 2 + more > LINE_MAX_COLS && i > 0)
            break;
        used += snprintf(line + used, sizeof line - (size_t)used, "%s%s", i ? ", " : "", nm);
    }
    out("%s", line);
    if (i < n)
        out(", and %zu more", n - i);
    out("\n");
    *errp = err;
}

/* Why nothing was compared, in one line: what each side had, and what
 * would pair them. */
static void nothing(vn_buf *o, int *errp, const vn__cmp_result *r, const char *prefix)
{
    int err = *errp;
    size_t common = r->paired[0] + r->paired[1] + r->paired[2];
    if (!r->nbase || !r->nnew)
        out("%snothing compared: %s has no benchmark\n", prefix, !r->nbase ? "BASE" : "NEW");
    else if (!common)
        out("%snothing compared: no name of BASE (%zu) is in NEW (%zu), even as Google Benchmark "
            "writes parameters; pair them with --map OLD=NEW\n", prefix, r->nbase, r->nnew);
    else
        out("%snothing compared: none of the %zu benchmark%s both sides have could be compared "
            "(below)\n", prefix, common, common == 1 ? "" : "s");
    *errp = err;
}

/* The pairs made by a rule other than the name, a line per rule:
 * "paired by name form (2): BM_x/64 = x/n=64, ...". */
static void pair_lines(vn_buf *o, int *errp, const vn__cmp_result *r, const char *prefix)
{
    for (int rule = VN__CMP_RULE_MAP; rule <= VN__CMP_RULE_FORM; rule++) {
        size_t n = 0;
        for (size_t i = 0; i < r->nrows; i++)
            n += r->rows[i].rule == (vn__cmp_rule)rule;
        if (!n)
            continue;
        char *pairs[64];
        const char *list[64];
        size_t k = 0;
        for (size_t i = 0; i < r->nrows && k < 64; i++) {
            const vn__cmp_row *w = &r->rows[i];
            if (w->rule != (vn__cmp_rule)rule)
                continue;
            char a[256], b[256];
            vn__fmt_printable(a, sizeof a, w->name);
            vn__fmt_printable(b, sizeof b, w->new_name);
            size_t len = strlen(a) + strlen(b) + 4;
            pairs[k] = malloc(len);
            if (!pairs[k])
                break;
            snprintf(pairs[k], len, "%s = %s", a, b);
            list[k] = pairs[k];
            k++;
        }
        char head[48];
        snprintf(head, sizeof head, "paired by %s", vn__cmp_rule_name((vn__cmp_rule)rule));
        /* The count is of all such pairs; the line lists what fits. */
        name_list(o, errp, prefix, head, list, k);
        for (size_t i = 0; i < k; i++)
            free(pairs[i]);
        (void)n;
    }
}

/* The machines' facts that differ, with both values when the line has room. */
static void machine_line(vn_buf *o, int *errp, const vn__cmp_result *r, const char *prefix)
{
    int err = *errp;
    if (!r->differ)
        return;
    char full[1024] = "", names[256] = "";
    size_t fl = 0, nl = 0;
    for (int f = 0; f < VN__CMP_NFACTS; f++) {
        if (!(r->differ & (1u << f)))
            continue;
        char a[64], b[64];
        vn__fmt_printable(a, sizeof a, r->base_facts[f]);
        vn__fmt_printable(b, sizeof b, r->new_facts[f]);
        fl += (size_t)snprintf(full + fl, sizeof full - fl, "%s%s %s vs %s", fl ? ", " : "",
                               vn__cmp_fact_names[f], a, b);
        nl += (size_t)snprintf(names + nl, sizeof names - nl, "%s%s", nl ? ", " : "",
                               vn__cmp_fact_names[f]);
        if (fl >= sizeof full)
            fl = sizeof full - 1;
    }
    const char *head = "warning: the machines differ: ";
    if (strlen(prefix) + strlen(head) + vn__text_width(full) <= LINE_MAX_COLS)
        out("%s%s%s\n", prefix, head, full);
    else
        out("%s%s%s (the JSON has the values)\n", prefix, head, names);
    *errp = err;
}

/* The lines below either table. */
static int footer(vn_buf *o, const vn__cmp_result *r, const char *prefix)
{
    int err = 0;
    char g[24], lo[24], hi[24];
    if (r->nrows) {
        out("%sgeometric mean %s", prefix, fmt_ratio(g, sizeof g, r->geomean));
        if (!isnan(r->geo_lo))
            out(" (%s-%s)", fmt_ratio(lo, sizeof lo, r->geo_lo), fmt_ratio(hi, sizeof hi, r->geo_hi));
        out(" of %zu: %zu faster, %zu slower, %zu no change", r->nrows, r->count[VN__CMP_FASTER],
            r->count[VN__CMP_SLOWER], r->count[VN__CMP_SAME]);
        if (r->count[VN__CMP_NO_INTERVAL])
            out(", %zu without an interval", r->count[VN__CMP_NO_INTERVAL]);
        out("\n");
    } else
        nothing(o, &err, r, prefix);
    size_t cycles = 0, aggs = 0, within = 0, aggs_bare = 0, still = 0, reach = 0, alone = 0;
    size_t moved[2][2] = {{0}};
    for (size_t i = 0; i < r->nrows; i++) {
        int agg = !strcmp(r->rows[i].method, "aggregates");
        const char *by = r->rows[i].unit_by;
        if (by && strcmp(by, "headline") && strcmp(by, "state"))
            moved[!strcmp(by, "steadier")][r->rows[i].cycles != 0]++;
        within += r->rows[i].within_next_run;
        still += r->rows[i].fast_end_still;
        reach += r->rows[i].within_reach;
        /* A verdict that no earlier run widened rests on two runs of about
         * a second each: what moves the machine over minutes (a
         * neighbour's hold on the shared cache) neither run saw
         * (bench/RESULTS.md, 2026-12-04: a pointer chase against the next
         * run, 6 of 39 tries called slower alone, at most 2 of 34-40 with
         * a store). */
        alone += !r->rows[i].learned_from && !strcmp(r->rows[i].method, "processes") &&
                 (r->rows[i].verdict == VN__CMP_FASTER || r->rows[i].verdict == VN__CMP_SLOWER);
        cycles += r->rows[i].cycles;
        aggs += agg;
        aggs_bare += agg && r->rows[i].verdict == VN__CMP_NO_INTERVAL;
    }
    if (r->count[VN__CMP_NO_INTERVAL] > aggs_bare)
        out("%snote: with one value on a side there is no interval, and no verdict; repeat the "
            "runs\n", prefix);
    if (aggs_bare)
        out("%snote: aggregates without a stddev, or of one repetition, give no interval and no "
            "verdict\n", prefix);
    if (r->one_process)
        out("%swarning: %zu compared on samples of one process, blind to variation between runs "
            "(--processes auto)\n", prefix, r->one_process);
    size_t learned = 0, least = SIZE_MAX, most = 0;
    for (size_t i = 0; i < r->nrows; i++)
        if (r->rows[i].learned_from) {
            learned++;
            least = r->rows[i].learned_from < least ? r->rows[i].learned_from : least;
            most = r->rows[i].learned_from > most ? r->rows[i].learned_from : most;
        }
    if (alone)
        out("%snote: %zu verdict%s on these runs alone: how far runs move apart is unseen "
            "(--store learns it)\n", prefix, alone, alone == 1 ? "" : "s");
    if (learned && least == most)
        out("%snote: %zu interval%s no narrower than the variation between %zu earlier runs in "
            "the store\n", prefix, learned, learned == 1 ? "" : "s", least);
    else if (learned)
        out("%snote: %zu intervals no narrower than the variation between %zu to %zu earlier "
            "runs in the store\n", prefix, learned, least, most);
    if (within)
        out("%snote: %zu called no change: a headline lies within the interval the other run "
            "printed\n", prefix, within);
    if (still)
        out("%snote: %zu called no change: the fastest tenth of the processes did not move with "
            "the headline\n", prefix, still);
    if (reach)
        out("%snote: %zu called no change: within the precision a run reached, short of the one "
            "asked\n", prefix, reach);
    if (r->state_matched)
        out("%snote: %zu compared through the processes one side left out for the core state "
            "the other's rested on\n", prefix, r->state_matched);
    if (r->state_bound)
        out("%snote: %zu compared across core states in ns: the side on a shared core read "
            "faster, which a sibling cannot cause\n", prefix, r->state_bound);
    if (aggs)
        out("%snote: %zu compared by their means (a side had only Google Benchmark's aggregates): "
            "Welch's t\n", prefix, aggs);
    if (cycles)
        out("%snote: %zu compared in reference cycles (marked c): code on the CPU, whose clock "
            "moves between runs\n", prefix, cycles);
    static const char *const why[2] = {"the unit they read alike in across core states",
                                       "the unit their processes hold steadier"};
    for (int s = 0; s < 2; s++)
        for (int c = 0; c < 2; c++)
            if (moved[s][c])
                out("%snote: %zu compared in %s, not their headlines' %s: %s\n", prefix,
                    moved[s][c], c ? "cycles" : "ns", c ? "ns" : "cycles", why[s]);
    pair_lines(o, &err, r, prefix);
    name_list(o, &err, prefix, "only in BASE", r->only_base, r->nonly_base);
    name_list(o, &err, prefix, "only in NEW", r->only_new, r->nonly_new);
    for (size_t i = 0; i < r->nskipped; i++) {
        char nm[LINE_MAX_COLS * 4], why[LINE_MAX_COLS * 4];
        size_t w = clip(nm, sizeof nm, r->skipped[i].name, 40);
        clip(why, sizeof why, r->skipped[i].why, LINE_MAX_COLS - 16 - strlen(prefix) - w);
        out("%snot comparable: %s: %s\n", prefix, nm, why);
    }
    machine_line(o, &err, r, prefix);
    if (r->base_formats != r->new_formats)
        out("%swarning: BASE is %s, NEW %s; their methods differ\n", prefix,
            vn__cmp_format_name(r->base_formats), vn__cmp_format_name(r->new_formats));
    return err;
}

int vn__cmp_report_text(const vn__cmp_result *r, const vn__cmp_files *f, unsigned flags, vn_buf *o)
{
    (void)f;
    int err = 0, insn = any_insn(r);
    size_t namew = 9; /* "benchmark" */
    size_t maxw = insn ? 24 : 32;
    for (size_t i = 0; i < r->nrows; i++) {
        char nm[512];
        size_t w = clip(nm, sizeof nm, r->rows[i].name, maxw);
        if (w > namew)
            namew = w;
    }
    if (r->nrows)
        out("%-*s %9s %9s %8s %15s %7s  %-*s%s\n", (int)namew, "benchmark", "BASE", "NEW", "ratio",
            "95% CI", "p", insn ? 11 : 0, "verdict", insn ? "  instr" : "");
    for (size_t i = 0; i < r->nrows; i++) {
        const vn__cmp_row *w = &r->rows[i];
        char nm[512], a[24], b[24], ra[24], ci[48], p[16], in[24];
        size_t cols = clip(nm, sizeof nm, w->name, maxw);
        const char *on = "", *off = "";
        if ((flags & VN_REPORT_COLOR) && (w->verdict == VN__CMP_FASTER || w->verdict == VN__CMP_SLOWER)) {
            on = w->verdict == VN__CMP_FASTER ? "\033[32m" : "\033[31m";
            off = "\033[0m";
        }
        out("%s%*s %9s %9s %8s %15s %7s  %s%-*s%s", nm, (int)(namew - cols), "",
            vn__fmt_headline(a, sizeof a, w->base_median, w->cycles),
            vn__fmt_headline(b, sizeof b, w->new_median, w->cycles),
            fmt_ratio(ra, sizeof ra, w->ratio), fmt_ci(ci, sizeof ci, w->lo, w->hi),
            fmt_p(p, sizeof p, w->p), on, insn ? 11 : 0, vn__cmp_verdict_name(w->verdict), off);
        if (insn)
            out("  %s", fmt_ratio(in, sizeof in, w->insn_ratio));
        out("\n");
    }
    if (!err && r->nrows)
        err = vn_buf_puts(o, "\n");
    return err ? err : footer(o, r, "");
}

/* Text in a Markdown table cell: the characters Markdown would act on are
 * escaped, a '|' above all, which would end the cell. */
static void md_cell(vn_buf *o, int *errp, const char *s)
{
    int err = *errp;
    char p[1024];
    vn__fmt_printable(p, sizeof p, s);
    for (const char *c = p; *c && !err; c++) {
        if (strchr("\\`*_|<>[]#", *c))
            err = vn_buf_puts(o, "\\");
        if (!err)
            err = vn_buf_append(o, c, 1);
    }
    *errp = err;
}

int vn__cmp_report_markdown(const vn__cmp_result *r, const vn__cmp_files *f, vn_buf *o)
{
    int err = 0, insn = any_insn(r);
    out("**vernier compare**: NEW against BASE, ratio of the headlines (below 1 is faster), "
        "95%% interval across processes (or runs), Mann-Whitney p, threshold %g%%\n\n",
        r->opt.threshold * 100);
    for (int side = 0; side < 2 && f; side++) {
        size_t n = side ? f->nnew : f->nbase;
        out("%s: ", side ? "NEW" : "BASE");
        for (size_t i = 0; i < n; i++) {
            out("%s`", i ? ", " : "");
            md_cell(o, &err, side ? f->new_[i] : f->base[i]);
            out("`");
        }
        out("%s", side ? "\n\n" : "  \n");
    }
    out("| benchmark | BASE | NEW | ratio | 95%% CI | p | verdict |%s\n", insn ? " instructions |" : "");
    out("|:--|--:|--:|--:|:-:|--:|:--|%s\n", insn ? "--:|" : "");
    for (size_t i = 0; i < r->nrows; i++) {
        const vn__cmp_row *w = &r->rows[i];
        char a[24], b[24], ra[24], ci[48], p[16], in[24];
        const char *em = w->verdict == VN__CMP_FASTER || w->verdict == VN__CMP_SLOWER ? "**" : "";
        out("| ");
        md_cell(o, &err, w->name);
        out(" | %s | %s | %s%s%s | %s | %s | %s%s%s |",
            vn__fmt_headline(a, sizeof a, w->base_median, w->cycles),
            vn__fmt_headline(b, sizeof b, w->new_median, w->cycles), em, fmt_ratio(ra, sizeof ra, w->ratio), em,
            fmt_ci(ci, sizeof ci, w->lo, w->hi), fmt_p(p, sizeof p, w->p), em,
            vn__cmp_verdict_name(w->verdict), em);
        if (insn)
            out(" %s |", fmt_ratio(in, sizeof in, w->insn_ratio));
        out("\n");
    }
    out("\n");
    return err ? err : footer(o, r, "- ");
}
