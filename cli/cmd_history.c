/* vernier history: the stored results of each benchmark on each machine,
 * oldest first (src/store/), and `vernier history check`, the change
 * points in them (src/store/changes.c). */
#ifndef VN_NO_COMPARE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "base/format.h"
#include "base/json.h"
#include "htmlreport/report.h"
#include "store/changes.h"
#include "store/store.h"

#define CMD "history"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: vernier history [OPTIONS] [NAME...]\n"
            "       vernier history check [OPTIONS] [NAME...]\n"
            "\n"
            "Show the stored results of each benchmark, a series for each machine it ran\n"
            "on, oldest first: when, the commit, the headline with its 95%% interval and\n"
            "the units it rests on, and the interval widened by the variation between\n"
            "the results before it (history: from 5 of them, of the last 30 days, after\n"
            "their last change point). A series whose results all kept reference cycles\n"
            "and whose files mostly compared in them (code on the CPU) is read in them\n"
            "(marked c), else in ns. NAME is a benchmark's name or a pattern with * and ?\n"
            "(default: every benchmark). Results are stored with --store, $VERNIER_STORE\n"
            "or vernier store add.\n"
            "\n"
            "check finds the change points of each series: E-Divisive on the means with\n"
            "a permutation test (as Apache Otava does), on the logs of the headlines, a\n"
            "result far off its neighbours replaced by their median so that one outlier\n"
            "makes no change point. Each is printed with the commits between which it\n"
            "happened, the shift with its 95%% interval and its p-value.\n"
            "\n"
            "Options:\n"
            "  --store URL        the store: a file, sqlite:FILE or postgresql://...\n"
            "                     (default: $VERNIER_STORE, else\n"
            "                     ~/.local/share/vernier/results.db)\n"
            "  --machine TEXT     only series whose machine fingerprint holds TEXT\n"
            "  --branch NAME      only results of this branch\n"
            "  --since DATE       only results from DATE (YYYY-MM-DD) or the last Nd days\n"
            "  --last N           at most the last N results a series, on the console\n"
            "                     and in JSON (20; 0 for all)\n"
            "  --threshold PCT    check: a shift smaller than PCT percent is no change (2)\n"
            "  --p-value P        check: the largest p-value of a change point (0.001)\n"
            "  --fail-on-regression\n"
            "                     check: exit 3 when the newest change of a series is a\n"
            "                     slowdown past the threshold\n"
            "  --json FILE        also write the series (and change points) as JSON\n"
            "  --report FILE      also write an HTML page: a plot per series, its\n"
            "                     intervals and change points (needs gnuplot)\n"
            "  -h, --help         show this help\n"
            "\n"
            "Exit status: 0 when the store was read, 3 when --fail-on-regression is given\n"
            "and a series slowed down, 1 when the store cannot be read, 2 for a usage\n"
            "error.\n");
}

typedef struct opts {
    const char *store, *machine, *branch, *json, *report;
    double since, threshold, pmax;
    size_t last;
    int check, fail_on_regression;
} opts;

static int parse_since(const char *s, double *out)
{
    char *end;
    errno = 0;
    long days = strtol(s, &end, 10);
    if (end != s && !strcmp(end, "d") && !errno && days >= 0) {
        *out = (double)time(NULL) - 86400.0 * (double)days;
        return 0;
    }
    struct tm tm = {0};
    const char *rest = strptime(s, "%Y-%m-%d", &tm);
    if (!rest || *rest)
        return -1;
    tm.tm_isdst = -1;
    time_t t = mktime(&tm);
    if (t == (time_t)-1)
        return -1;
    *out = (double)t;
    return 0;
}

static int parse(int argc, char **argv, opts *o)
{
    enum { O_STORE = 1000, O_MACHINE, O_BRANCH, O_SINCE, O_LAST, O_THRESHOLD, O_P, O_FAIL, O_JSON,
           O_REPORT };
    static const struct option longopts[] = {
        {"store", required_argument, NULL, O_STORE},
        {"machine", required_argument, NULL, O_MACHINE},
        {"branch", required_argument, NULL, O_BRANCH},
        {"since", required_argument, NULL, O_SINCE},
        {"last", required_argument, NULL, O_LAST},
        {"threshold", required_argument, NULL, O_THRESHOLD},
        {"p-value", required_argument, NULL, O_P},
        {"fail-on-regression", no_argument, NULL, O_FAIL},
        {"json", required_argument, NULL, O_JSON},
        {"report", required_argument, NULL, O_REPORT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    char *end;
    while ((c = vn_cli_getopt(CMD, argc, argv, "h", longopts)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return -1;
        case O_STORE:
            if (!optarg[0])
                return vn_cli_usage_error(CMD, "--store needs a file or a postgresql:// URL");
            o->store = optarg;
            break;
        case O_MACHINE:
            o->machine = optarg;
            break;
        case O_BRANCH:
            o->branch = optarg;
            break;
        case O_SINCE:
            if (parse_since(optarg, &o->since))
                return vn_cli_usage_error(CMD, "--since needs YYYY-MM-DD or Nd, not '%s'", optarg);
            break;
        case O_LAST:
            if (vn_cli_parse_size(CMD, "--last", optarg, 0, 1000000, &o->last))
                return VN_EXIT_USAGE;
            break;
        case O_THRESHOLD:
            if (vn_cli_parse_threshold(CMD, optarg, &o->threshold))
                return VN_EXIT_USAGE;
            break;
        case O_P:
            errno = 0;
            o->pmax = strtod(optarg, &end);
            if (!optarg[0] || *end || errno || !(o->pmax > 0 && o->pmax < 1))
                return vn_cli_usage_error(CMD, "--p-value needs a number between 0 and 1, not '%s'",
                                          optarg);
            break;
        case O_FAIL:
            o->fail_on_regression = 1;
            break;
        case O_JSON:
        case O_REPORT:
            if (vn_cli_check_path(CMD, c == O_JSON ? "--json" : "--report", optarg))
                return VN_EXIT_USAGE;
            *(c == O_JSON ? &o->json : &o->report) = optarg;
            break;
        default:
            return VN_EXIT_USAGE;
        }
    }
    if ((o->fail_on_regression || o->pmax != 0.001) && !o->check)
        return vn_cli_usage_error(CMD, "%s is an option of 'vernier history check'",
                                  o->fail_on_regression ? "--fail-on-regression" : "--p-value");
    return 0;
}

static void fmt_when(char *s, size_t n, double t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!localtime_r(&tt, &tm) || !strftime(s, n, "%Y-%m-%d %H:%M", &tm))
        snprintf(s, n, "?");
}

/* The 95% half-width as a percentage of the value; "-" when unknown. */
static void fmt_half(char *s, size_t n, double v, double lo, double hi)
{
    if (isfinite(lo) && isfinite(hi) && v != 0)
        snprintf(s, n, "+-%.2g%%", 100 * fmax(hi - v, v - lo) / fabs(v));
    else
        snprintf(s, n, "-");
}

static void fmt_commit(char *s, size_t n, const vn__store_point *p)
{
    snprintf(s, n, "%.10s%s", p->commit[0] ? p->commit : "-", p->dirty > 0 ? "+" : "");
}

/* The machine's fingerprint holds o->machine (none given: every one). */
static int machine_ok(const opts *o, const char *fp)
{
    return !o->machine || strstr(fp, o->machine);
}

static void print_series(const opts *o, const vn__store_series *v, const vn__store_changes *ch)
{
    size_t from = o->last && v->n > o->last ? v->n - o->last : 0;
    printf("%s: %zu result%s%s", v->name, v->n, v->n == 1 ? "" : "s",
           v->in_cycles ? " in reference cycles" : "");
    if (from)
        printf(" (the last %zu; --last 0 for all)", v->n - from);
    printf("\n  on %s\n  %-16s  %-11s %-12s %10s %9s %9s\n", v->machine, "when", "commit", "branch",
           "headline", "ci95", "history");
    for (size_t i = from; i < v->n; i++) {
        const vn__store_point *p = &v->pt[i];
        char when[32], commit[16], val[32], half[16], learned[16];
        fmt_when(when, sizeof when, p->time);
        fmt_commit(commit, sizeof commit, p);
        vn__fmt_headline(val, sizeof val, p->value, v->in_cycles);
        fmt_half(half, sizeof half, p->value, p->lo, p->hi);
        fmt_half(learned, sizeof learned, p->value, p->lo_h, p->hi_h);
        const char *mark = "";
        for (size_t c = 0; ch && c < ch->n; c++)
            if (ch->at[c].index == i)
                mark = ch->at[c].ratio > 1 ? "  <- slower" : "  <- faster";
        printf("  %s  %-11s %-12.12s %10s %9s %9s %4zu units%s\n", when, commit,
               p->branch[0] ? p->branch : "-", val, half, learned, p->nunits, mark);
    }
}

/* A change point: the commits on both sides, its shift and its p-value. */
static void print_change(const vn__store_series *v, const vn__store_change *c, double threshold)
{
    const vn__store_point *a = &v->pt[c->index - 1], *b = &v->pt[c->index];
    char ca[16], cb[16];
    fmt_commit(ca, sizeof ca, a);
    fmt_commit(cb, sizeof cb, b);
    const char *what = c->ratio > 1 + threshold ? "slower" : c->ratio < 1 - threshold ? "faster"
                                                                                     : "no change";
    printf("  %s..%s: %.3fx [%.3f, %.3f] %s, p = %.3g\n", ca, cb, c->ratio, c->lo, c->hi, what,
           c->p);
}

static void json_pair(vn__json *j, const char *key, double a, double b)
{
    vn__json_arr_begin(j, key);
    vn__json_num(j, NULL, a);
    vn__json_num(j, NULL, b);
    vn__json_arr_end(j);
}

/* The series' last results from `from` on, and every change point (their
 * index counts from the series' first result, of which `skipped` are
 * left out). */
static void json_series(vn__json *j, const vn__store_series *v, const vn__store_changes *ch,
                        double threshold, size_t from)
{
    vn__json_obj_begin(j, NULL);
    vn__json_str(j, "name", v->name);
    vn__json_str(j, "machine", v->machine);
    vn__json_str(j, "unit", v->in_cycles ? "cycles" : "ns");
    vn__json_uint(j, "skipped", from);
    vn__json_arr_begin(j, "results");
    for (size_t i = from; i < v->n; i++) {
        const vn__store_point *p = &v->pt[i];
        vn__json_obj_begin(j, NULL);
        vn__json_int(j, "run", p->run);
        vn__json_num(j, "time", p->time);
        vn__json_str(j, "commit", p->commit[0] ? p->commit : NULL);
        vn__json_str(j, "branch", p->branch[0] ? p->branch : NULL);
        vn__json_bool(j, "dirty", p->dirty);
        vn__json_str(j, "unit", p->unit);
        vn__json_num(j, "value", p->value);
        vn__json_num(j, "ns", p->ns);
        vn__json_num(j, "cycles", p->cycles);
        json_pair(j, "ci", p->lo, p->hi);
        json_pair(j, "est_ci", p->est_lo, p->est_hi);
        vn__json_uint(j, "units", p->nunits);
        json_pair(j, "ci_history", p->lo_h, p->hi_h);
        vn__json_uint(j, "learned_from", p->learned_from);
        vn__json_obj_end(j);
    }
    vn__json_arr_end(j);
    if (ch) {
        vn__json_arr_begin(j, "changes");
        for (size_t c = 0; c < ch->n; c++) {
            const vn__store_change *x = &ch->at[c];
            vn__json_obj_begin(j, NULL);
            vn__json_uint(j, "index", x->index);
            vn__json_str(j, "before", v->pt[x->index - 1].commit[0] ? v->pt[x->index - 1].commit : NULL);
            vn__json_str(j, "after", v->pt[x->index].commit[0] ? v->pt[x->index].commit : NULL);
            vn__json_num(j, "ratio", x->ratio);
            json_pair(j, "ci", x->lo, x->hi);
            vn__json_num(j, "p", x->p);
            vn__json_str(j, "verdict", x->ratio > 1 + threshold   ? "slower"
                                       : x->ratio < 1 - threshold ? "faster"
                                                                  : "no change");
            vn__json_obj_end(j);
        }
        vn__json_arr_end(j);
    }
    vn__json_obj_end(j);
}

/* The change points of a series, on its headlines: 9999 permutations a
 * test, seeded by the series' length so that the same history gives the
 * same answer; segments of at least 2 results. */
static int changes_of(const vn__store_series *v, double pmax, vn__store_changes *out)
{
    double *x = malloc((v->n ? v->n : 1) * sizeof *x);
    if (!x)
        return VN_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < v->n; i++)
        x[m++] = v->pt[i].value;
    int rc = vn__store_changes_find(x, m, pmax, 9999, 2, 0x5eed + m, out);
    free(x);
    return rc;
}

int cmd_history(int argc, char **argv)
{
    opts o = {.last = 20, .threshold = 0.02, .pmax = 0.001};
    if (argc >= 2 && !strcmp(argv[1], "check")) {
        o.check = 1;
        argc--, argv++;
    }
    int rc = parse(argc, argv, &o);
    if (rc < 0)
        return vn_cli_flushed(CMD);
    if (rc)
        return rc;
    vn__store *s;
    char why[512];
    if (vn__store_open_reader(o.store, &s, why, sizeof why) != 0)
        return vn_cli_fail(CMD, "cannot read the store '%s': %s", o.store ? o.store : "(default)", why);
    vn__store_query q = {.names = (const char *const *)argv + optind,
                         .nnames = (size_t)(argc - optind), .branch = o.branch, .since = o.since};
    vn__store_series *v;
    size_t nv;
    if (vn__store_series_of(s, &q, &v, &nv, why, sizeof why) != 0) {
        vn__store_close(s);
        return vn_cli_fail(CMD, "cannot read the store '%s': %s", vn__store_where(s), why);
    }
    /* The series asked for, each learned and (check) tested. */
    size_t keep = 0;
    for (size_t i = 0; i < nv; i++) {
        if (!machine_ok(&o, v[i].machine)) {
            free(v[i].name);
            free(v[i].machine);
            free(v[i].pt);
            continue;
        }
        v[keep++] = v[i];
    }
    nv = keep;
    vn__store_changes *ch = o.check ? calloc(nv ? nv : 1, sizeof *ch) : NULL;
    int status = o.check && !ch ? vn_cli_fail(CMD, "out of memory") : VN_EXIT_OK, slower = 0;
    for (size_t i = 0; i < nv && !status; i++) {
        /* Only the results shown (--last), and they only from the results
         * before them. */
        size_t from = o.last && v[i].n > o.last ? v[i].n - o.last : 0;
        vn__store_learn(&v[i], from, VN__STORE_LEARN_LEAST, VN__STORE_LEARN_MOST,
                        VN__STORE_LEARN_AGE);
        if (!o.check)
            continue;
        int e = changes_of(&v[i], o.pmax, &ch[i]);
        if (e)
            status = vn_cli_fail(CMD, "cannot test '%s' for changes: %s", v[i].name, vn_strerror(e));
        else if (ch[i].n && ch[i].at[ch[i].n - 1].ratio > 1 + o.threshold)
            slower = 1;
    }
    int to_stdout = o.json && vn_cli_is_stdout(o.json);
    for (size_t i = 0; i < nv && !status && !to_stdout; i++) {
        const vn__store_changes *c = ch ? &ch[i] : NULL;
        print_series(&o, &v[i], c);
        if (c && !c->n)
            printf("  no change point (p <= %.3g)\n", o.pmax);
        for (size_t k = 0; c && k < c->n; k++)
            print_change(&v[i], &c->at[k], o.threshold);
    }
    if (!status && !nv && !to_stdout)
        printf("no stored results%s in '%s'\n", q.nnames || o.machine || o.branch || o.since > 0
                                                     ? " match" : "", vn__store_where(s));
    if (!status && o.json) {
        vn_buf jb;
        vn_buf_init(&jb, 0);
        vn__json j;
        vn__json_init(&j, &jb, 1);
        vn__json_obj_begin(&j, NULL);
        vn__json_str(&j, "format", "vernier.history/1");
        vn__json_str(&j, "store", vn__store_where(s));
        vn__json_arr_begin(&j, "series");
        for (size_t i = 0; i < nv; i++)
            json_series(&j, &v[i], ch ? &ch[i] : NULL, o.threshold,
                        o.last && v[i].n > o.last ? v[i].n - o.last : 0);
        vn__json_arr_end(&j);
        vn__json_obj_end(&j);
        int jr = vn__json_finish(&j);
        status = jr ? vn_cli_fail(CMD, "cannot format the JSON: %s", vn_strerror(jr))
                    : vn_cli_write(CMD, o.json, &jb);
        vn_buf_free(&jb);
    }
    if (!status && o.report) {
        vn__rep_options ro;
        vn__rep_options_init(&ro);
        vn_buf page;
        vn_buf_init(&page, VN_RESULTS_BUF_MAX);
        char err[512];
        int rc = vn__rep_history(v, nv, ch, o.threshold, vn__store_where(s), &ro, &page, err,
                                 sizeof err);
        status = rc ? vn_cli_fail(CMD, "cannot draw the page: %s", err)
                    : vn_cli_write(CMD, o.report, &page);
        vn_buf_free(&page);
    }
    for (size_t i = 0; ch && i < nv; i++)
        vn__store_changes_free(&ch[i]);
    free(ch);
    vn__store_series_free(v, nv);
    vn__store_close(s);
    if (!status)
        status = vn_cli_flushed(CMD);
    if (!status && o.fail_on_regression && slower)
        status = VN_EXIT_REGRESSION;
    return status;
}
#endif
