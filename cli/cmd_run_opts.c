/* vernier run's command line: its --help, and its options read into a
 * vn_cli_run_opts with getopt_long, one handler per kind of option. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/internal.h"
#include "run/exec_internal.h"
#include "cmd_run_help.h"
#include "cmd_run_opts.h"
#include "base/format.h"
#include "base/options.h"

static const char *const CMD = "run";

/* ---- Parameters --------------------------------------------------------------- */

static int add_param(vn_cli_run_params *p, const char *spec, int range)
{
    const char *eq = strchr(spec, '=');
    const char *opt = range ? "--param-range" : "--param";
    if (!eq || eq == spec)
        return vn_cli_usage_error(CMD, "%s needs NAME=%s, not '%s'", opt,
                                  range ? "LO:HI[:STEP]" : "V1,V2,...", spec);
    for (const char *c = spec; c < eq; c++)
        if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
              (c > spec && *c >= '0' && *c <= '9')))
            return vn_cli_usage_error(CMD, "%s: '%.*s' is not a parameter name (letters, digits, _)",
                                      opt, (int)(eq - spec), spec);
    char **values;
    size_t n;
    char why[256];
    int rc = range ? vn__param_range(eq + 1, &values, &n, why, sizeof why)
                   : vn__param_list(eq + 1, &values, &n, why, sizeof why);
    if (rc)
        return vn_cli_usage_error(CMD, "%s: %s", opt, why);
    char *name = strndup(spec, (size_t)(eq - spec));
    for (size_t i = 0; i < p->n; i++)
        if (!strcmp(p->names[i], name)) {
            free(name);
            for (size_t k = 0; k < n; k++)
                free(values[k]);
            free(values);
            return vn_cli_usage_error(CMD, "parameter '%.*s' is given twice", (int)(eq - spec), spec);
        }
    p->v = realloc(p->v, (p->n + 1) * sizeof *p->v);
    p->owned = realloc(p->owned, (p->n + 1) * sizeof *p->owned);
    p->nowned = realloc(p->nowned, (p->n + 1) * sizeof *p->nowned);
    p->names = realloc(p->names, (p->n + 1) * sizeof *p->names);
    if (!p->v || !p->owned || !p->nowned || !p->names || !name)
        return vn_cli_fail(CMD, "out of memory");
    p->names[p->n] = name;
    p->owned[p->n] = values;
    p->nowned[p->n] = n;
    p->v[p->n] = (vn_run_param){name, (const char *const *)values, n};
    p->n++;
    return 0;
}

static void free_params(vn_cli_run_params *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->names[i]);
        for (size_t k = 0; k < p->nowned[i]; k++)
            free(p->owned[i][k]);
        free(p->owned[i]);
    }
    free(p->v);
    free(p->owned);
    free(p->nowned);
    free(p->names);
    memset(p, 0, sizeof *p);
}

/* NAME=VALUE for add_param, from an option's two words. */
static int add_param2(vn_cli_run_params *p, const char *name, const char *value, int range)
{
    size_t len = strlen(name) + strlen(value) + 2;
    char *spec = malloc(len);
    if (!spec)
        return vn_cli_fail(CMD, "out of memory");
    snprintf(spec, len, "%s=%s", name, value);
    int bad = add_param(p, spec, range);
    free(spec);
    return bad;
}

/* ---- Values -------------------------------------------------------------------- */

/* A number in [lo, hi], with a message when it is not. */
static int num(const char *opt, const char *s, double lo, double hi, double *out)
{
    char *end;
    *out = NAN; /* set on every path, an error's too */
    errno = 0;
    double v = vn__strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || v < lo || v > hi || s[0] == ' ' || s[0] == '+') {
        char a[32], b[32];
        vn__fmt_exact(a, sizeof a, lo);
        vn__fmt_exact(b, sizeof b, hi);
        return vn_cli_usage_error(CMD, "%s needs a number from %s to %s, not '%s'", opt, a, b, s);
    }
    *out = v;
    return 0;
}

/* A whole number in [lo, hi], with a message when it is not. */
static int whole(const char *opt, const char *s, double lo, double hi, double *out)
{
    double v;
    if (num(opt, s, lo, hi, &v))
        return VN_EXIT_USAGE;
    if (v != floor(v))
        return vn_cli_usage_error(CMD, "%s needs a whole number, not '%s'", opt, s);
    *out = v;
    return 0;
}

/* The index of s in words (n of them), or -1. */
static int word_of(const char *s, const char *const *words, int n)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(s, words[k]))
            return k;
    return -1;
}

/* ---- The options ----------------------------------------------------------------- */

enum {
    O_WARMUP = 256, O_RUNS, O_MINRUNS, O_MAXRUNS, O_MINTIME, O_PRECISION, O_ORDER, O_PREPARE,
    O_SETUP, O_CLEANUP, O_PARAM, O_RANGE, O_TIMEOUT, O_IGNORE, O_SHELL, O_SHOW, O_INPUT, O_JSON,
    O_CSV, O_RAW, O_MD, O_HF, O_HIST, O_FAKE, O_SEED, O_COUNTERS, O_CPU,
    O_DMA, O_NOTREE, O_MAXTIME, O_QUIET, O_MINSAMPLES, O_MAXSAMPLES, O_NAME, O_PLIST,
    O_PSCAN, O_PSTEP, O_NOSHELL, O_EXPCSV, O_EXPMD, O_UNIT, O_OUTPUT, O_STYLE, O_EXPLAIN,
    O_FORMAT, O_REPORT
};

static const struct option longopts[] = {
    {"warmup", required_argument, NULL, O_WARMUP},
    {"runs", required_argument, NULL, O_RUNS},
    {"min-runs", required_argument, NULL, O_MINRUNS},
    {"max-runs", required_argument, NULL, O_MAXRUNS},
    {"min-time", required_argument, NULL, O_MINTIME},
    /* The names a benchmark program takes (vn_main) for the same things. */
    {"min-samples", required_argument, NULL, O_MINSAMPLES},
    {"max-samples", required_argument, NULL, O_MAXSAMPLES},
    {"max-time", required_argument, NULL, O_MAXTIME},
    {"quiet", no_argument, NULL, O_QUIET},
    {"precision", required_argument, NULL, O_PRECISION},
    {"order", required_argument, NULL, O_ORDER},
    {"cpu", required_argument, NULL, O_CPU},
    {"dma-latency", required_argument, NULL, O_DMA},
    {"no-tree-peak", no_argument, NULL, O_NOTREE},
    {"seed", required_argument, NULL, O_SEED},
    {"prepare", required_argument, NULL, O_PREPARE},
    {"setup", required_argument, NULL, O_SETUP},
    {"cleanup", required_argument, NULL, O_CLEANUP},
    {"param", required_argument, NULL, O_PARAM},
    {"param-range", required_argument, NULL, O_RANGE},
    {"timeout", required_argument, NULL, O_TIMEOUT},
    {"ignore-failure", no_argument, NULL, O_IGNORE},
    {"shell", required_argument, NULL, O_SHELL},
    {"command-name", required_argument, NULL, O_NAME},
    {"parameter-list", required_argument, NULL, O_PLIST},
    {"parameter-scan", required_argument, NULL, O_PSCAN},
    {"parameter-step-size", required_argument, NULL, O_PSTEP},
    {"export-json", required_argument, NULL, O_HF},
    {"export-csv", required_argument, NULL, O_EXPCSV},
    {"export-markdown", required_argument, NULL, O_EXPMD},
    {"time-unit", required_argument, NULL, O_UNIT},
    {"output", required_argument, NULL, O_OUTPUT},
    {"style", required_argument, NULL, O_STYLE},
    {"show-output", no_argument, NULL, O_SHOW},
    {"input", required_argument, NULL, O_INPUT},
    {"json", required_argument, NULL, O_JSON},
    {"format", required_argument, NULL, O_FORMAT},
    {"csv", required_argument, NULL, O_CSV},
    {"raw", no_argument, NULL, O_RAW},
    {"markdown", required_argument, NULL, O_MD},
    {"export-hyperfine", required_argument, NULL, O_HF},
    {"hist", no_argument, NULL, O_HIST},
    {"report", required_argument, NULL, O_REPORT},
#ifndef VN_NO_COMPARE
    VN_CLI_STORE_OPTIONS,
#endif
    {"explain", no_argument, NULL, O_EXPLAIN},
    {"fake-exec", required_argument, NULL, O_FAKE},
    {"counters", required_argument, NULL, O_COUNTERS},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* hyperfine's short options, as the long ones they stand for. */
static int long_of(int o)
{
    static const struct { char c; int o; } map[] = {
        {'w', O_WARMUP}, {'r', O_RUNS}, {'m', O_MINRUNS}, {'M', O_MAXRUNS}, {'p', O_PREPARE},
        {'s', O_SETUP}, {'c', O_CLEANUP}, {'n', O_NAME}, {'L', O_PLIST}, {'P', O_PSCAN},
        {'D', O_PSTEP}, {'S', O_SHELL}, {'N', O_NOSHELL}, {'i', O_IGNORE}, {'u', O_UNIT},
    };
    for (size_t k = 0; k < sizeof map / sizeof map[0]; k++)
        if (map[k].c == o)
            return map[k].o;
    return o;
}

/* The option just read as it was typed, into o->typed: "-m" for a short
 * one, "--min-runs" for a long one (by its value in longopts). */
static void typed_as(vn_cli_run_opts *o, int opt)
{
    if (opt > 0 && opt < 256) {
        snprintf(o->typed, sizeof o->typed, "-%c", opt);
        return;
    }
    for (const struct option *l = longopts; l->name; l++)
        if (l->val == opt) {
            snprintf(o->typed, sizeof o->typed, "--%s", l->name);
            return;
        }
    snprintf(o->typed, sizeof o->typed, "the option");
}

/* What an option handler says of an option that is not one of its own. */
#define NOT_MINE (-1)

/* How many runs, when, and how long: 0, NOT_MINE, or 2 after a message. */
static int take_runs(vn_cli_run_opts *o, int opt, const char *arg)
{
    vn_run_config *c = &o->c;
    double v;
    /* Messages name the option as it was typed: -m, or --min-runs. */
    const char *as = o->typed;
    switch (opt) {
    case O_WARMUP: if (whole(as, arg, 0, 1e6, &v)) return 2; c->warmup = (size_t)v; return 0;
    case O_RUNS:
        if (whole(as, arg, 1, 1e6, &v)) return 2;
        c->runs = (size_t)v;
        o->runs_set = 1;
        snprintf(o->runs_as, sizeof o->runs_as, "%s", as);
        return 0;
    case O_MINRUNS:
    case O_MINSAMPLES:
        if (whole(as, arg, 1, 1e6, &v)) return 2;
        c->min_runs = (size_t)v;
        o->minmax_set = o->min_set = 1;
        snprintf(o->min_as, sizeof o->min_as, "%s", as);
        return 0;
    case O_MAXRUNS:
    case O_MAXSAMPLES:
        if (whole(as, arg, 1, 1e6, &v)) return 2;
        c->max_runs = (size_t)v;
        o->minmax_set = 1;
        snprintf(o->max_as, sizeof o->max_as, "%s", as);
        return 0;
    case O_MINTIME: if (num(as, arg, 0, 86400, &v)) return 2; c->min_time = v; return 0;
    case O_MAXTIME: if (num(as, arg, 0, 86400, &v)) return 2; c->min_time = v; return 0;
    case O_PRECISION: if (num(as, arg, 1e-3, 100, &v)) return 2; c->precision = v; return 0;
    case O_CPU: if (whole(as, arg, 0, CPU_SETSIZE - 1, &v)) return 2; c->cpu = (int)v; return 0;
    case O_SEED: if (num(as, arg, 0, 1e18, &v)) return 2; c->seed = (uint64_t)v; return 0;
    case O_TIMEOUT: if (num(as, arg, 1e-3, 86400 * 7, &v)) return 2; c->timeout = v; return 0;
    case O_DMA: {
        char *end;
        long us = strtol(arg, &end, 10);
        if (!strcmp(arg, "off"))
            c->dma_latency_us = -1;
        else if (!strcmp(arg, "auto"))
            c->dma_latency_us = VN_DMA_LATENCY_AUTO;
        else if (arg[0] < '0' || arg[0] > '9' || *end || us > 1000000)
            return vn_cli_usage_error(CMD, "--dma-latency needs microseconds from 0 to 1000000, 'auto' or 'off', not '%s'",
                                      arg);
        else
            c->dma_latency_us = (int)us;
        return 0;
    }
    case O_ORDER:
        c->order_random = c->order_blocks = 0;
        if (!strcmp(arg, "random"))
            c->order_random = 1;
        else if (!strcmp(arg, "blocks"))
            c->order_blocks = 1;
        else if (strcmp(arg, "alternate"))
            return vn_cli_usage_error(CMD, "--order is 'alternate', 'random' or 'blocks', not '%s'", arg);
        return 0;
    }
    return NOT_MINE;
}

/* -S/--shell SHELL: a shell that is there, 'default' or 'none'. */
static int take_shell(vn_run_config *c, const char *arg)
{
    if (!strcmp(arg, "none")) {
        c->shell = -1, c->shell_cmd = NULL;
        return 0;
    }
    if (!strcmp(arg, "default")) {
        c->shell = 0, c->shell_cmd = NULL;
        return 0;
    }
    char **w = NULL, why[256];
    int nw = 0;
    int bad = vn__split_words(arg, &w, &nw, why, sizeof why) != 0 || !nw || !w[0][0];
    vn__words_free(w);
    w = NULL;
    if (bad)
        return vn_cli_usage_error(CMD, "-S/--shell needs a shell such as 'bash' or 'bash --norc', "
                                  "'default' or 'none', not '%s'", arg);
    /* A shell that is not there is told now, as a usage error. */
    char path[4096];
    vn__split_words(arg, &w, &nw, why, sizeof why);
    int found = vn__which(w[0], path, sizeof path) == 0;
    if (!found)
        vn_cli_usage_error(CMD, "the shell %s%s%s was not found; check the name given "
                           "to -S/--shell", vn__quote_for(w[0]), w[0], vn__quote_for(w[0]));
    vn__words_free(w);
    if (!found)
        return VN_EXIT_USAGE;
    c->shell = 1, c->shell_cmd = arg;
    return 0;
}

/* How each run is made: hooks, shell, input and output, counters. */
static int take_exec(vn_cli_run_opts *o, int opt, const char *arg)
{
    vn_run_config *c = &o->c;
    switch (opt) {
    case O_NAME: o->names[o->nnames++] = arg; return 0;
    case O_PREPARE: o->preps[o->npreps++] = arg; return 0;
    case O_SETUP: c->setup = arg; return 0;
    case O_CLEANUP: c->cleanup = arg; return 0;
    case O_IGNORE: c->ignore_failure = 1; return 0;
    case O_SHELL: return take_shell(c, arg);
    case O_NOSHELL: c->shell = -1; c->shell_cmd = NULL; return 0;
    case O_SHOW: c->show_output = 1, c->output_pipe = 0, c->output_file = NULL; return 0;
    case O_INPUT: c->input = arg; return 0;
    case O_NOTREE: c->tree_memory = 0; return 0;
    case O_OUTPUT:
        c->show_output = 0, c->output_pipe = 0, c->output_file = NULL;
        if (!strcmp(arg, "inherit"))
            c->show_output = 1;
        else if (!strcmp(arg, "pipe"))
            c->output_pipe = 1;
        else if (!*arg)
            return vn_cli_usage_error(CMD, "--output is null, pipe, inherit or a file name");
        else if (strcmp(arg, "null"))
            c->output_file = arg;
        return 0;
    case O_COUNTERS: {
        char why[1536];
        if (vn_counters_check(arg, why, sizeof why) != 0)
            return vn_cli_usage_error(CMD, "%s", why);
        c->counters = arg;
        return 0;
    }
    }
    return NOT_MINE;
}

/* What is reported, and where. */
static int take_report(vn_cli_run_opts *o, int opt, const char *arg)
{
    static const char *const styles[] = {"auto", "full", "basic", "nocolor", "color", "none"};
    static const char *const units[] = {"second", "millisecond", "microsecond", "nanosecond"};
    int k;
    switch (opt) {
    case O_JSON: o->out[VN_CLI_RUN_JSON] = arg; return 0;
    case O_CSV: o->out[VN_CLI_RUN_CSV] = arg; return 0;
    case O_MD: o->out[VN_CLI_RUN_MD] = arg; return 0;
    case O_HF: o->out[VN_CLI_RUN_HF_JSON] = arg; return 0;
    case O_EXPCSV: o->out[VN_CLI_RUN_HF_CSV] = arg; return 0;
    case O_EXPMD: o->out[VN_CLI_RUN_HF_MD] = arg; return 0;
    case O_RAW: o->raw = 1; return 0;
    case O_FORMAT:
        if (strcmp(arg, "vernier") && strcmp(arg, "gbench"))
            return vn_cli_usage_error(CMD, "--format is 'vernier' or 'gbench', not '%s'", arg);
        o->format = arg;
        o->gbench = !strcmp(arg, "gbench");
        return 0;
    case O_REPORT: o->report = arg; return 0;
#ifndef VN_NO_COMPARE
    VN_CLI_STORE_CASES:
        return vn_cli_store_opts(CMD, opt, arg, &o->store) ? VN_EXIT_USAGE : 0;
#endif
    case O_HIST: o->hist = 1; return 0;
    case O_EXPLAIN: o->explain = 1; return 0;
    case O_FAKE: o->fake_path = arg; return 0;
    case O_QUIET: o->c.progress = 0, o->quiet = 1; return 0;
    case O_UNIT:
        if ((k = word_of(arg, units, 4)) < 0)
            return vn_cli_usage_error(CMD, "-u/--time-unit is second, millisecond, microsecond or "
                                      "nanosecond, not '%s'", arg);
        o->unit_s = pow(1e-3, k);
        return 0;
    case O_STYLE:
        if (word_of(arg, styles, 6) < 0)
            return vn_cli_usage_error(CMD, "--style is auto, full, basic, nocolor, color or none, not '%s'",
                                      arg);
        o->style = arg;
        return 0;
    }
    return NOT_MINE;
}

/* hyperfine's -L NAME VALUES and -P NAME MIN MAX, and vernier's --param and
 * --param-range: the words after -L's and -P's own are their other values. */
static int take_params(vn_cli_run_opts *o, int opt, int argc, char **argv)
{
    switch (opt) {
    case O_PARAM: return add_param(&o->params, optarg, 0);
    case O_RANGE: return add_param(&o->params, optarg, 1);
    case O_PSTEP: o->step = optarg; return 0;
    case O_PLIST:
        if (optind + 1 > argc)
            return vn_cli_usage_error(CMD, "-L/--parameter-list needs NAME VALUES");
        optind++;
        return add_param2(&o->params, optarg, argv[optind - 1], 0);
    case O_PSCAN:
        if (optind + 2 > argc)
            return vn_cli_usage_error(CMD, "-P/--parameter-scan needs NAME MIN MAX");
        if (o->scan[0])
            return vn_cli_usage_error(CMD, "-P/--parameter-scan is given twice; use -L for more parameters");
        o->scan[0] = optarg, o->scan[1] = argv[optind], o->scan[2] = argv[optind + 1];
        optind += 2;
        return 0;
    }
    return NOT_MINE;
}

/* What only the options together say: -P with its -D, one --prepare for
 * all commands, --raw with --csv, --format with --json. */
static int finish(vn_cli_run_opts *o)
{
    if (o->step && !o->scan[0])
        return vn_cli_usage_error(CMD, "-D/--parameter-step-size goes with -P/--parameter-scan");
    if (o->scan[0]) {
        const char *step = o->step;
        size_t len = strlen(o->scan[1]) + strlen(o->scan[2]) + (step ? strlen(step) : 0) + 8;
        char *range = malloc(len);
        if (!range)
            return vn_cli_fail(CMD, "out of memory");
        snprintf(range, len, "%s:%s%s%s", o->scan[1], o->scan[2], step ? ":" : "", step ? step : "");
        int bad = add_param2(&o->params, o->scan[0], range, 1);
        free(range);
        if (bad)
            return bad;
    }
    if (o->npreps == 1)
        o->c.prepare = o->preps[0];
    if (o->out[VN_CLI_RUN_CSV] == NULL && o->raw)
        return vn_cli_usage_error(CMD, "--raw goes with --csv");
    if (o->out[VN_CLI_RUN_JSON] == NULL && o->format)
        return vn_cli_usage_error(CMD, "--format goes with --json");
    return 0;
}

int vn_cli_run_opts_parse(int argc, char **argv, vn_cli_run_opts *o)
{
    memset(o, 0, sizeof *o);
    vn_run_config_init(&o->c);
    o->c.progress = isatty(STDERR_FILENO);
    o->style = "auto";
    /* -n and -p may each come once per command: pointers into argv. */
    o->names = calloc((size_t)argc, sizeof *o->names);
    o->preps = calloc((size_t)argc, sizeof *o->preps);
    /* The words as given: getopt reorders argv, and "--" is told apart
     * from its original place. */
    o->given = malloc((size_t)argc * sizeof *o->given);
    if (!o->names || !o->preps || !o->given)
        return vn_cli_fail(CMD, "out of memory");
    memcpy(o->given, argv, (size_t)argc * sizeof *o->given);
    optind = 1;
    int opt;
    /* Options anywhere, as hyperfine takes them: a command's own options
     * stay inside its quotes, or after "--". */
    while ((opt = vn_cli_getopt(CMD, argc, argv, "hNiw:r:m:M:p:s:c:n:L:P:D:S:u:", longopts)) != -1) {
        typed_as(o, opt);
        opt = long_of(opt);
        if (opt == 'h') {
            vn_cli_run_help(stdout);
            return vn_cli_flushed(CMD);
        }
        int rc = take_runs(o, opt, optarg);
        if (rc == NOT_MINE)
            rc = take_exec(o, opt, optarg);
        if (rc == NOT_MINE)
            rc = take_report(o, opt, optarg);
        if (rc == NOT_MINE)
            rc = take_params(o, opt, argc, argv);
        /* NOT_MINE: '?', which getopt has told. Any failure here is in the
         * command line, out of memory included, as it always was. */
        if (rc)
            return VN_EXIT_USAGE;
    }
    return finish(o) ? VN_EXIT_USAGE : -1;
}

void vn_cli_run_opts_free(vn_cli_run_opts *o)
{
    free_params(&o->params);
    free(o->names);
    free(o->preps);
    free(o->given);
    if (o->cmds_owned)
        free(o->cmds);
    free(o->joined);
    o->names = o->preps = o->cmds = NULL;
    o->given = NULL;
    o->joined = NULL;
}
