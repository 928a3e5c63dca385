/* vernier run: time whole commands over many runs, and compare them. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner_internal.h"
#include "exec_internal.h"
#include "cli.h"
#include "cpu_list.h"
#include "format.h"
#include "interrupt.h"
#include "options.h"
#include "fileutil.h"

static const char *const CMD = "run";

/* Where `make install` puts vernier-spawn; the build defines it. */
#ifndef VN_LIBEXECDIR
#define VN_LIBEXECDIR "/usr/local/libexec/vernier"
#endif

static void help(FILE *f)
{
    fprintf(f,
            "usage: vernier run [OPTIONS] 'CMD A' 'CMD B' ...   (options may come anywhere)\n"
            "       vernier run [OPTIONS] -- CMD [ARGS...]\n"
            "\n"
            "Runs each command many times and reports the median wall time with its 95%% CI,\n"
            "the mean, the range, user and system time and the peak memory of each run, and\n"
            "compares the commands. Several commands take turns run by run, so drift hits\n"
            "all alike. hyperfine's options work with their meanings (see docs/run.md).\n"
            "A simple command runs directly, split into words as a shell would; one that needs\n"
            "a shell (| > && ; $ * ` ( ...) runs through sh -c, whose start-up is measured\n"
            "and subtracted.\n"
            "\n"
            "Runs:\n"
            "  -w, --warmup N          untimed runs of each command first (default 0)\n"
            "  -r, --runs N            exactly N timed runs of each command\n"
            "  -m, --min-runs N        otherwise: at least N runs (default 10) ...\n"
            "  --max-time SEC          ... then runs until the median is within --precision\n"
            "                          or SEC seconds of runs have passed (default 3)\n"
            "  -M, --max-runs N        at most N runs (default 10000)\n"
            "                          (also --min-samples, --max-samples, --min-time)\n"
            "  --precision PCT         stop when the median's 95%% CI is within +-PCT%% (default 1)\n"
            "  --order alternate|random|blocks  A B A B (default), shuffled blocks, or\n"
            "                          all runs of A, then all of B (drift falls on one)\n"
            "  --cpu N                 pin vernier and every command to CPU N\n"
            "  --dma-latency US|auto|off  keep CPUs out of idle states slower to wake than US\n"
            "                          microseconds while the runs last (root only; 'auto',\n"
            "                          the default, is 0 in a VM and 'off' on bare metal)\n"
            "  -p, --prepare CMD       a shell command before every timed run, untimed; once\n"
            "                          for all commands, or once per command, in order\n"
            "  -s, --setup CMD         a shell command once before a command's runs\n"
            "  -c, --cleanup CMD       a shell command once after a command's runs\n"
            "  -L, --parameter-list NAME V1,V2,...  run each command once per value, with\n"
            "                          {NAME} replaced (several -L: every combination)\n"
            "  -P, --parameter-scan NAME MIN MAX  the same for MIN..MAX, in steps of 1 or of\n"
            "  -D, --parameter-step-size STEP\n"
            "                          (also --param NAME=V1,V2 and --param-range NAME=LO:HI[:STEP])\n"
            "  -n, --command-name NAME  the name of a command in reports; once per command\n"
            "  --timeout SEC           stop a run (with its process group) after SEC seconds\n"
            "  -i, --ignore-failure    keep going after a non-zero exit, a signal or a timeout\n"
            "  -S, --shell SHELL       run every command through SHELL (\"bash --norc\");\n"
            "                          'default': only those that need one, through sh;\n"
            "                          'none': never (a command that needs one is an error)\n"
            "  -N                      the same as --shell=none\n"
            "  --output WHERE          the commands' stdout: null (default), pipe (read and\n"
            "                          dropped), inherit, or a FILE\n"
            "  --show-output           let the commands' output through (--output inherit)\n"
            "  --input FILE            the commands' standard input (default: /dev/null); '-',\n"
            "                          a pipe or a FIFO is read once, and every run gets a copy\n"
            "  --counters LIST         performance counters per run, following the command's\n"
            "                          children too: 'default', or names such as\n"
            "                          task-clock,page-faults,instructions (see vernier env)\n"
            "  --no-tree-peak          do not put the commands in a memory cgroup to measure\n"
            "                          the peak memory of their whole process tree\n"
            "\n"
            "Output:\n"
            "  --json FILE             vernier.results/1, every run included ('-' for stdout)\n"
            "  --csv FILE              one row per command ('-' for stdout)\n"
            "  --raw                   with --csv: one row per run instead\n"
            "  --markdown FILE         a Markdown table ('-' for stdout)\n"
            "  --export-json FILE      hyperfine's JSON layout (also --export-hyperfine)\n"
            "  --export-csv FILE       hyperfine's CSV layout (seconds)\n"
            "  --export-markdown FILE  hyperfine's Markdown table\n"
            "  -u, --time-unit UNIT    of --export-markdown: second, millisecond,\n"
            "                          microsecond or nanosecond (default: as hyperfine picks)\n"
            "  --hist                  the distribution of each command's run times\n"
            "  --style auto|full|basic|nocolor|color|none  colors and the progress bar:\n"
            "                          auto on a terminal; full both, basic neither, none\n"
            "                          no report either (files are still written)\n"
            "  --fake-exec FILE        do not run anything: take each run's numbers from FILE,\n"
            "                          one run per line 'WALL_MS [USER_MS SYS_MS MAXRSS_KIB EXIT]'\n"
            "                          (for testing reports; see docs/run.md)\n"
            "  --quiet                 no progress bar on stderr (shown on a terminal)\n"
            "  -h, --help              show this help\n"
            "\n"
            "Exit status: 0, 1 when a run failed or an output could not be written, 2 for a\n"
            "usage error, 130 after Ctrl-C, 143 after SIGTERM, 129 after SIGHUP (the runs so\n"
            "far are reported and written).\n");
}

/* ---- The fake executor: numbers from a file --------------------------------- */

typedef struct fake {
    double *v;     /* 5 numbers per line */
    size_t n, next;
} fake;

static int fake_load(const char *path, fake *f)
{
    FILE *in = fopen(path, "r");
    if (!in)
        return vn_cli_fail(CMD, "cannot read '%s': %s", path, strerror(errno));
    char line[256];
    size_t lineno = 0;
    memset(f, 0, sizeof *f);
    while (fgets(line, sizeof line, in)) {
        lineno++;
        if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
            continue;
        double x[5] = {0, 0, 0, 0, 0};
        int k = sscanf(line, "%lf %lf %lf %lf %lf", &x[0], &x[1], &x[2], &x[3], &x[4]);
        int finite = 1;
        for (int i = 0; i < 5; i++)
            finite &= isfinite(x[i]) != 0;
        if (k < 1 || !(x[0] >= 0) || !finite) {
            fclose(in);
            free(f->v);
            return vn_cli_fail(CMD, "%s: line %zu: expected 'WALL_MS [USER_MS SYS_MS MAXRSS_KIB EXIT]'",
                               path, lineno);
        }
        double *nv = realloc(f->v, (f->n + 1) * 5 * sizeof *nv);
        if (!nv) {
            fclose(in);
            free(f->v);
            return vn_cli_fail(CMD, "out of memory");
        }
        f->v = nv;
        memcpy(f->v + f->n * 5, x, sizeof x);
        f->n++;
    }
    int bad = ferror(in) ? errno : 0;
    fclose(in);
    if (bad) {
        free(f->v);
        return vn_cli_fail(CMD, "cannot read '%s': %s", path, strerror(bad));
    }
    if (!f->n)
        return vn_cli_fail(CMD, "'%s' has no runs in it", path);
    return 0;
}

static int fake_exec(const vn_exec_opts *o, double *wall_ns, vn_proc_usage *u, char *err,
                     size_t errlen, void *ctx)
{
    (void)o, (void)err, (void)errlen;
    fake *f = ctx;
    const double *x = f->v + (f->next++ % f->n) * 5;
    memset(u, 0, sizeof *u);
    *wall_ns = x[0] * 1e6;
    u->user_ns = x[1] * 1e6;
    u->sys_ns = x[2] * 1e6;
    u->maxrss_kib = (long long)x[3];
    u->exit_status = (int)x[4];
    u->tree_peak_kib = -1;
    return VN_EXEC_OK;
}

/* ---- Options ----------------------------------------------------------------- */

typedef struct params {
    vn_run_param *v;
    char ***owned;   /* the value arrays, to free */
    size_t *nowned;
    char **names;
    size_t n;
} params;

static int add_param(params *p, const char *spec, int range)
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

static void free_params(params *p)
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
}

static int whole(const char *opt, const char *s, double lo, double hi, double *out);

static int num(const char *opt, const char *s, double lo, double hi, double *out)
{
    char *end;
    *out = NAN; /* set on every path, an error's too */
    errno = 0;
    double v = vn__strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || v < lo || v > hi || s[0] == ' ' || s[0] == '+')
        return vn_cli_usage_error(CMD, "%s needs a number from %g to %g, not '%s'", opt, lo, hi, s);
    *out = v;
    return 0;
}

/* vernier-spawn: next to this program (a build tree), in ../libexec/vernier
 * beside its bin directory (an install, wherever it was moved), else where
 * the build said it would be installed. NULL when none exists: commands
 * are then started directly, and a note says their peak memory cannot be
 * lower than vernier's own. */
static const char *find_helper(char *buf, size_t n)
{
    char self[4096];
    ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
    if (l > 0) {
        self[l] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            static const char *const rel[] = {"vernier-spawn", "../libexec/vernier/vernier-spawn"};
            for (size_t i = 0; i < 2; i++) {
                snprintf(buf, n, "%s/%s", self, rel[i]);
                if (access(buf, X_OK) == 0)
                    return buf;
            }
        }
    }
    snprintf(buf, n, "%s/vernier-spawn", VN_LIBEXECDIR);
    return access(buf, X_OK) == 0 ? buf : NULL;
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

/* Joins argv words into one line for display, quoting words that need it. */
static char *join_words(char **w, int n)
{
    vn_buf b;
    vn_buf_init(&b, 0);
    for (int i = 0; i < n; i++) {
        if (i)
            vn_buf_puts(&b, " ");
        /* Braces stay bare: {NAME} is a parameter, and no shell reads this. */
        if (w[i][0] && !strpbrk(w[i], " \t\n'\"\\$`*?[]()<>|&;#~")) {
            vn_buf_puts(&b, w[i]);
            continue;
        }
        vn_buf_puts(&b, "'");
        for (const char *c = w[i]; *c; c++)
            vn_buf_puts(&b, *c == '\'' ? "'\\''" : (char[]){*c, 0});
        vn_buf_puts(&b, "'");
    }
    return b.data;
}

static int write_out(const char *path, int (*rep)(const vn_run_results *, vn_buf *),
                     const vn_run_results *r)
{
    /* Every run of a million is a few hundred bytes of JSON: more than the
     * buffers' usual limit, which is for reports, not results. */
    vn_buf b;
    vn_buf_init(&b, VN_RESULTS_BUF_MAX);
    int rc = rep(r, &b);
    int status = rc ? vn_cli_fail(CMD, "cannot format '%s': %s", path, vn_strerror(rc))
                    : vn_cli_write(CMD, path, &b);
    vn_buf_free(&b);
    return status;
}

static int csv_rows(const vn_run_results *r, vn_buf *b) { return vn_report_run_csv(r, 0, b); }
/* --time-unit for write_out's reporter, which takes the results alone. */
static double md_unit;
static int hyperfine_md(const vn_run_results *r, vn_buf *b) { return vn_report_hyperfine_markdown(r, md_unit, b); }
static int csv_raw(const vn_run_results *r, vn_buf *b) { return vn_report_run_csv(r, 1, b); }

/* What can be told wrong with the commands before any run, as usage
 * errors: a word that looks like an option after the commands (options go
 * first), a line that cannot be split into words or holds none, and a
 * parameter whose {NAME} appears nowhere. */
static int check_commands(const vn_run_config *c)
{
    for (size_t i = 0; i < c->ncommands; i++) {
        const char *cmd = c->commands[i];
        char need[160];
        int needs = vn__needs_shell(cmd, need, sizeof need);
        if (needs && c->shell < 0) {
            const char *q = vn__quote_for(cmd);
            vn_cli_usage_error(CMD, "%s%s%s needs a shell (%s); drop -N/--shell=none", q, cmd, q, need);
            return 1;
        }
        if (c->shell > 0 || needs) {
            if (!cmd[strspn(cmd, " \t\n")]) {
                vn_cli_usage_error(CMD, "command %zu is empty; give a shell command to run", i + 1);
                return 1;
            }
            continue;
        }
        char **w = NULL, why[256];
        int n = 0;
        if (vn__split_words(cmd, &w, &n, why, sizeof why) != 0) {
            const char *q = vn__quote_for(cmd);
            vn_cli_usage_error(CMD, "cannot split %s%s%s into words: %s", q, cmd, q, why);
            return 1;
        }
        int empty = n == 0 || !w[0][0];
        vn__words_free(w);
        if (empty) {
            vn_cli_usage_error(CMD, "command %zu is empty; give a program to run", i + 1);
            return 1;
        }
    }
    for (size_t k = 0; k < c->nparams; k++) {
        char mark[300];
        snprintf(mark, sizeof mark, "{%s}", c->params[k].name);
        int used = (c->prepare && strstr(c->prepare, mark)) || (c->setup && strstr(c->setup, mark)) ||
                   (c->cleanup && strstr(c->cleanup, mark));
        for (size_t i = 0; i < c->nprepares && !used; i++)
            used = strstr(c->prepares[i], mark) != NULL;
        for (size_t i = 0; i < c->nnames && !used; i++)
            used = strstr(c->names[i], mark) != NULL;
        for (size_t i = 0; i < c->ncommands && !used; i++)
            used = strstr(c->commands[i], mark) != NULL;
        if (!used) {
            vn_cli_usage_error(CMD, "parameter %s: %s appears in no command or hook; put it where "
                               "its values go", c->params[k].name, mark);
            return 1;
        }
    }
    return 0;
}

int cmd_run(int argc, char **argv)
{
    enum {
        O_WARMUP = 256, O_RUNS, O_MINRUNS, O_MAXRUNS, O_MINTIME, O_PRECISION, O_ORDER, O_PREPARE,
        O_SETUP, O_CLEANUP, O_PARAM, O_RANGE, O_TIMEOUT, O_IGNORE, O_SHELL, O_SHOW, O_INPUT, O_JSON,
        O_CSV, O_RAW, O_MD, O_HF, O_HIST, O_FAKE, O_SEED, O_COUNTERS, O_CPU,
        O_DMA, O_NOTREE, O_MAXTIME, O_QUIET, O_MINSAMPLES, O_MAXSAMPLES, O_NAME, O_PLIST,
        O_PSCAN, O_PSTEP, O_NOSHELL, O_EXPCSV, O_EXPMD, O_UNIT, O_OUTPUT, O_STYLE
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
        {"csv", required_argument, NULL, O_CSV},
        {"raw", no_argument, NULL, O_RAW},
        {"markdown", required_argument, NULL, O_MD},
        {"export-hyperfine", required_argument, NULL, O_HF},
        {"hist", no_argument, NULL, O_HIST},
        {"fake-exec", required_argument, NULL, O_FAKE},
        {"counters", required_argument, NULL, O_COUNTERS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    vn_run_config c;
    vn_run_config_init(&c);
    c.progress = isatty(STDERR_FILENO);
    const char *json = NULL, *csv = NULL, *md = NULL, *hf = NULL, *fake_path = NULL;
    const char *hcsv = NULL, *hmd = NULL, *style = "auto", *step = NULL;
    const char *scan[3] = {NULL, NULL, NULL};
    double unit_s = 0;
    int raw = 0, hist = 0, runs_set = 0, minmax_set = 0, min_set = 0, quiet = 0;
    params P = {0};
    /* -n and -p may each come once per command: pointers into argv. */
    const char **names = calloc((size_t)argc, sizeof *names);
    const char **preps = calloc((size_t)argc, sizeof *preps);
    size_t nnames = 0, npreps = 0;
    /* The words as given: getopt reorders argv, and "--" is told apart
     * from its original place. */
    char **given = malloc((size_t)argc * sizeof *given);
    if (!names || !preps || !given) {
        free(names), free(preps), free(given);
        return vn_cli_fail(CMD, "out of memory");
    }
    memcpy(given, argv, (size_t)argc * sizeof *given);
    double v;
    int status = VN_EXIT_USAGE;
    optind = 1;
    int o;
    /* Options anywhere, as hyperfine takes them: a command's own options
     * stay inside its quotes, or after "--". */
    while ((o = vn_cli_getopt(CMD, argc, argv, "hNiw:r:m:M:p:s:c:n:L:P:D:S:u:", longopts)) != -1) {
        switch (o) {
        case 'w': o = O_WARMUP; break;
        case 'r': o = O_RUNS; break;
        case 'm': o = O_MINRUNS; break;
        case 'M': o = O_MAXRUNS; break;
        case 'p': o = O_PREPARE; break;
        case 's': o = O_SETUP; break;
        case 'c': o = O_CLEANUP; break;
        case 'n': o = O_NAME; break;
        case 'L': o = O_PLIST; break;
        case 'P': o = O_PSCAN; break;
        case 'D': o = O_PSTEP; break;
        case 'S': o = O_SHELL; break;
        case 'N': o = O_NOSHELL; break;
        case 'i': o = O_IGNORE; break;
        case 'u': o = O_UNIT; break;
        default: break;
        }
        switch (o) {
        case 'h':
            help(stdout);
            free_params(&P), free(names), free(preps), free(given);
            return vn_cli_flushed(CMD);
        case O_NAME: names[nnames++] = optarg; break;
        case O_PLIST:
        case O_PSCAN: {
            /* hyperfine's -L NAME VALUES and -P NAME MIN MAX: the words
             * after the option's own are its other values. */
            const char *opt = o == O_PLIST ? "-L/--parameter-list" : "-P/--parameter-scan";
            int more = o == O_PLIST ? 1 : 2;
            if (optind + more > argc) {
                vn_cli_usage_error(CMD, "%s needs %s", opt, o == O_PLIST ? "NAME VALUES" : "NAME MIN MAX");
                goto usage;
            }
            if (o == O_PSCAN) {
                if (scan[0]) {
                    vn_cli_usage_error(CMD, "-P/--parameter-scan is given twice; use -L for more parameters");
                    goto usage;
                }
                scan[0] = optarg, scan[1] = argv[optind], scan[2] = argv[optind + 1];
                optind += 2;
                break;
            }
            char *spec = malloc(strlen(optarg) + strlen(argv[optind]) + 2);
            if (!spec) {
                vn_cli_fail(CMD, "out of memory");
                goto usage;
            }
            sprintf(spec, "%s=%s", optarg, argv[optind]);
            optind++;
            int bad = add_param(&P, spec, 0);
            free(spec);
            if (bad)
                goto usage;
            break;
        }
        case O_PSTEP: step = optarg; break;
        case O_NOSHELL: c.shell = -1; c.shell_cmd = NULL; break;
        case O_EXPCSV: hcsv = optarg; break;
        case O_EXPMD: hmd = optarg; break;
        case O_UNIT: {
            static const char *const un[] = {"second", "millisecond", "microsecond", "nanosecond"};
            unit_s = 0;
            for (int k = 0; k < 4; k++)
                if (!strcmp(optarg, un[k]))
                    unit_s = pow(1e-3, k);
            if (unit_s == 0) {
                vn_cli_usage_error(CMD, "-u/--time-unit is second, millisecond, microsecond or "
                                   "nanosecond, not '%s'", optarg);
                goto usage;
            }
            break;
        }
        case O_OUTPUT:
            c.show_output = 0, c.output_pipe = 0, c.output_file = NULL;
            if (!strcmp(optarg, "inherit"))
                c.show_output = 1;
            else if (!strcmp(optarg, "pipe"))
                c.output_pipe = 1;
            else if (!*optarg) {
                vn_cli_usage_error(CMD, "--output is null, pipe, inherit or a file name");
                goto usage;
            } else if (strcmp(optarg, "null"))
                c.output_file = optarg;
            break;
        case O_STYLE: {
            static const char *const st[] = {"auto", "full", "basic", "nocolor", "color", "none"};
            int ok = 0;
            for (int k = 0; k < 6; k++)
                ok |= !strcmp(optarg, st[k]);
            if (!ok) {
                vn_cli_usage_error(CMD, "--style is auto, full, basic, nocolor, color or none, not '%s'",
                                   optarg);
                goto usage;
            }
            style = optarg;
            break;
        }
        case O_WARMUP: if (whole("--warmup", optarg, 0, 1e6, &v)) goto usage; c.warmup = (size_t)v; break;
        case O_RUNS: if (whole("--runs", optarg, 1, 1e6, &v)) goto usage; c.runs = (size_t)v; runs_set = 1; break;
        case O_MINRUNS:
        case O_MINSAMPLES:
            if (whole(o == O_MINRUNS ? "--min-runs" : "--min-samples", optarg, 1, 1e6, &v)) goto usage;
            c.min_runs = (size_t)v;
            minmax_set = min_set = 1;
            break;
        case O_MAXRUNS:
        case O_MAXSAMPLES:
            if (whole(o == O_MAXRUNS ? "--max-runs" : "--max-samples", optarg, 1, 1e6, &v)) goto usage;
            c.max_runs = (size_t)v;
            minmax_set = 1;
            break;
        case O_MINTIME: if (num("--min-time", optarg, 0, 86400, &v)) goto usage; c.min_time = v; break;
        case O_MAXTIME: if (num("--max-time", optarg, 0, 86400, &v)) goto usage; c.min_time = v; break;
        case O_QUIET: c.progress = 0, quiet = 1; break;
        case O_PRECISION: if (num("--precision", optarg, 1e-3, 100, &v)) goto usage; c.precision = v; break;
        case O_CPU: if (whole("--cpu", optarg, 0, CPU_SETSIZE - 1, &v)) goto usage; c.cpu = (int)v; break;
        case O_DMA: {
            char *end;
            long us = strtol(optarg, &end, 10);
            if (!strcmp(optarg, "off")) {
                c.dma_latency_us = -1;
            } else if (!strcmp(optarg, "auto")) {
                c.dma_latency_us = VN_DMA_LATENCY_AUTO;
            } else if (optarg[0] < '0' || optarg[0] > '9' || *end || us > 1000000) {
                vn_cli_usage_error(CMD, "--dma-latency needs microseconds from 0 to 1000000, 'auto' or 'off', not '%s'",
                                   optarg);
                goto usage;
            } else {
                c.dma_latency_us = (int)us;
            }
            break;
        }
        case O_SEED: if (num("--seed", optarg, 0, 1e18, &v)) goto usage; c.seed = (uint64_t)v; break;
        case O_TIMEOUT: if (num("--timeout", optarg, 1e-3, 86400 * 7, &v)) goto usage; c.timeout = v; break;
        case O_ORDER:
            c.order_random = c.order_blocks = 0;
            if (!strcmp(optarg, "random"))
                c.order_random = 1;
            else if (!strcmp(optarg, "blocks"))
                c.order_blocks = 1;
            else if (strcmp(optarg, "alternate")) {
                vn_cli_usage_error(CMD, "--order is 'alternate', 'random' or 'blocks', not '%s'", optarg);
                goto usage;
            }
            break;
        case O_PREPARE: preps[npreps++] = optarg; break;
        case O_SETUP: c.setup = optarg; break;
        case O_CLEANUP: c.cleanup = optarg; break;
        case O_PARAM: if (add_param(&P, optarg, 0)) goto usage; break;
        case O_RANGE: if (add_param(&P, optarg, 1)) goto usage; break;
        case O_IGNORE: c.ignore_failure = 1; break;
        case O_SHELL:
            if (!strcmp(optarg, "none")) {
                c.shell = -1, c.shell_cmd = NULL;
            } else if (!strcmp(optarg, "default")) {
                c.shell = 0, c.shell_cmd = NULL;
            } else {
                char **w = NULL, why[256];
                int nw = 0;
                int bad = vn__split_words(optarg, &w, &nw, why, sizeof why) != 0 || !nw || !w[0][0];
                vn__words_free(w);
                w = NULL;
                if (bad) {
                    vn_cli_usage_error(CMD, "-S/--shell needs a shell such as 'bash' or 'bash --norc', "
                                       "'default' or 'none', not '%s'", optarg);
                    goto usage;
                }
                /* A shell that is not there is told now, as a usage error. */
                char path[4096];
                vn__split_words(optarg, &w, &nw, why, sizeof why);
                int found = vn__which(w[0], path, sizeof path) == 0;
                if (!found)
                    vn_cli_usage_error(CMD, "the shell %s%s%s was not found; check the name given "
                                       "to -S/--shell", vn__quote_for(w[0]), w[0], vn__quote_for(w[0]));
                vn__words_free(w);
                if (!found)
                    goto usage;
                c.shell = 1, c.shell_cmd = optarg;
            }
            break;
        case O_SHOW: c.show_output = 1, c.output_pipe = 0, c.output_file = NULL; break;
        case O_INPUT: c.input = optarg; break;
        case O_JSON: json = optarg; break;
        case O_CSV: csv = optarg; break;
        case O_RAW: raw = 1; break;
        case O_MD: md = optarg; break;
        case O_HF: hf = optarg; break;
        case O_HIST: hist = 1; break;
        case O_FAKE: fake_path = optarg; break;
        case O_NOTREE: c.tree_memory = 0; break;
        case O_COUNTERS: {
            char why[1536];
            if (vn_counters_check(optarg, why, sizeof why) != 0) {
                vn_cli_usage_error(CMD, "%s", why);
                goto usage;
            }
            c.counters = optarg;
            break;
        }
        default: goto usage;
        }
    }
    if (step && !scan[0]) {
        vn_cli_usage_error(CMD, "-D/--parameter-step-size goes with -P/--parameter-scan");
        goto usage;
    }
    if (scan[0]) {
        size_t len = strlen(scan[0]) + strlen(scan[1]) + strlen(scan[2]) + (step ? strlen(step) : 0) + 8;
        char *spec = malloc(len);
        if (!spec) {
            vn_cli_fail(CMD, "out of memory");
            goto usage;
        }
        snprintf(spec, len, "%s=%s:%s%s%s", scan[0], scan[1], scan[2], step ? ":" : "", step ? step : "");
        int bad = add_param(&P, spec, 1);
        free(spec);
        if (bad)
            goto usage;
    }
    if (npreps == 1)
        c.prepare = preps[0];
    if (raw && !csv) {
        vn_cli_usage_error(CMD, "--raw goes with --csv");
        goto usage;
    }
    int to_stdout;
    {
        const char *outs[] = {json, csv, md, hf, hcsv, hmd};
        static const char *const onames[] = {"--json", "--csv", "--markdown", "--export-json",
                                              "--export-csv", "--export-markdown"};
        char msg[600];
        if (vn__outputs_usage(onames, outs, 6, &to_stdout, msg, sizeof msg)) {
            vn_cli_usage_error(CMD, "%s", msg);
            goto usage;
        }
        for (int i = 0; i < 6; i++) {
            /* A path that cannot be written fails now, not after the runs. */
            int rc = outs[i] ? vn_output_check(outs[i]) : 0;
            if (rc) {
                char msg[VN__WRITE_ERROR_MAX];
                status = vn_cli_fail(CMD, "%s", vn__write_error(msg, sizeof msg, outs[i], rc));
                goto failed;
            }
        }
        /* The report owns standard output: the commands' go with their
         * standard error. */
        if (to_stdout && c.show_output)
            c.show_output = 2;
    }
    if (runs_set && minmax_set) {
        vn_cli_usage_error(CMD, "--runs fixes the number of runs; drop --min-samples/--max-samples");
        goto usage;
    }
    /* Only a maximum under the default minimum: the maximum wins, as in hyperfine. */
    if (c.max_runs < c.min_runs && !min_set)
        c.min_runs = c.max_runs;
    if (c.max_runs < c.min_runs) {
        vn_cli_usage_error(CMD, "--max-samples (%zu) must be at least --min-samples (%zu)", c.max_runs,
                           c.min_runs);
        goto usage;
    }
    /* A CPU this process may not use is a mistake in the command line, as
     * in a benchmark program: a usage error, found before any run. */
    cpu_set_t allowed;
    if (c.cpu >= 0 && !fake_path && sched_getaffinity(0, sizeof allowed, &allowed) == 0 &&
        !CPU_ISSET(c.cpu, &allowed)) {
        char cpus[256];
        vn__cpu_list(&allowed, cpus, sizeof cpus);
        vn_cli_usage_error(CMD, "CPU %d is not available to this process (it may use CPUs %s)", c.cpu,
                           cpus);
        goto usage;
    }
    struct stat in_st;
    if (c.input && stat(c.input, &in_st) == 0 && S_ISDIR(in_st.st_mode)) {
        status = vn_cli_fail(CMD, "cannot read --input '%s': it is a directory; give a file", c.input);
        goto failed;
    }
    /* "-" is vernier's standard input, read once before the first run. */
    if (c.input && strcmp(c.input, "-") != 0 && access(c.input, R_OK) != 0) {
        status = vn_cli_fail(CMD, "cannot read --input '%s': %s", c.input, strerror(errno));
        goto failed;
    }
    if (c.output_file) {
        /* Created now, so a path that cannot be written fails before any run. */
        int fd = open(c.output_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0) {
            status = vn_cli_fail(CMD, "cannot write --output '%s': %s", c.output_file, strerror(errno));
            goto failed;
        }
        close(fd);
    }
    /* --style: colors and the progress bar, or no report at all. */
    int no_report = !strcmp(style, "none");
    int color = -1; /* -1: as the terminal says */
    if (!strcmp(style, "basic") || no_report)
        c.progress = 0, color = 0;
    else if (!strcmp(style, "full"))
        c.progress = !quiet, color = 1;
    else if (!strcmp(style, "nocolor"))
        c.progress = !quiet, color = 0;
    else if (!strcmp(style, "color"))
        c.progress = 0, color = 1;

    /* The commands: after "--" with nothing before it, one command as its
     * words; otherwise each argument is a command line. getopt moved the
     * operands behind "--", so its place is looked up in the words as given. */
    int dashdash = 0;
    if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
        int at = 0;
        for (int k = 1; k < argc && !at; k++)
            if (!strcmp(given[k], "--"))
                at = k;
        dashdash = at && argc - at - 1 == argc - optind;
    }
    char *joined = NULL;
    const char **cmds = NULL;
    size_t ncmds = 0;
    if (optind >= argc) {
        vn_cli_usage_error(CMD, "no command to run");
        goto usage;
    }
    if (dashdash) {
        joined = join_words(argv + optind, argc - optind);
        cmds = malloc(sizeof *cmds);
        if (!joined || !cmds) {
            free(joined);
            free(cmds);
            status = vn_cli_fail(CMD, "out of memory");
            goto failed;
        }
        cmds[0] = joined;
        ncmds = 1;
    } else {
        cmds = (const char **)(argv + optind);
        ncmds = (size_t)(argc - optind);
    }
    c.commands = cmds;
    c.ncommands = ncmds;
    c.params = P.v;
    c.nparams = P.n;
    c.names = names;
    c.nnames = nnames;
    if (npreps > 1) {
        c.prepares = preps;
        c.nprepares = npreps;
    }
    if (nnames > ncmds) {
        vn_cli_usage_error(CMD, "-n/--command-name is given %zu times for %zu command%s; name each "
                           "command once, in order", nnames, ncmds, ncmds == 1 ? "" : "s");
        goto usage_cmds;
    }
    if (npreps > 1 && npreps != ncmds) {
        vn_cli_usage_error(CMD, "-p/--prepare is given %zu times for %zu commands; give it once, or "
                           "once per command", npreps, ncmds);
        goto usage_cmds;
    }
    if (check_commands(&c))
        goto usage_cmds;

    char helper[4200];
    c.helper = find_helper(helper, sizeof helper);

    fake F = {0};
    if (fake_path) {
        if (fake_load(fake_path, &F)) {
            status = VN_EXIT_FAIL;
            goto done;
        }
        c.executor = fake_exec;
        c.executor_ctx = &F;
    }

    vn__interrupt_catch();
    c.stop_flag = &vn__interrupted;

    vn_run_results res;
    vn_run_results_init(&res);
    vn_run_compare *cmp = NULL;
    size_t ncmp = 0;
    vn_run_failure fail;
    char err[512] = "";
    int rc = vn_run_commands(&c, &res, &cmp, &ncmp, &fail, err, sizeof err);
    if (rc) {
        vn__interrupt_restore();
        status = vn_cli_fail(CMD, "%s", err[0] ? err : vn_strerror(rc));
        goto done;
    }

    FILE *con = to_stdout ? stderr : stdout;
    unsigned flags = color < 0 ? vn_cli_report_flags(con) : color ? VN_REPORT_COLOR : 0;
    vn_buf b;
    vn_buf_init(&b, 0);
    status = VN_EXIT_OK;
    if (!no_report && vn_report_run_text(&res, cmp, ncmp, flags, &b) == 0 && hist)
        vn_report_run_hist(&res, flags, &b);
    if (b.len && (fwrite(b.data, 1, b.len, con) != b.len || fflush(con) != 0))
        status = vn_cli_fail(CMD, "cannot write the report: %s", strerror(errno));
    vn_buf_free(&b);
    if (json)
        status |= write_out(json, vn_report_run_json, &res);
    if (csv)
        status |= write_out(csv, raw ? csv_raw : csv_rows, &res);
    if (md)
        status |= write_out(md, vn_report_run_markdown, &res);
    if (hf)
        status |= write_out(hf, vn_report_hyperfine_json, &res);
    if (hcsv)
        status |= write_out(hcsv, vn_report_hyperfine_csv, &res);
    if (hmd) {
        md_unit = unit_s;
        status |= write_out(hmd, hyperfine_md, &res);
    }
    /* Only now: a second Ctrl-C while the files were written would have
     * left a temporary file behind. */
    vn__interrupt_restore();
    if (fail.failed) {
        fprintf(stderr, "vernier run: %s\n", fail.message);
        status = VN_EXIT_FAIL;
    }
    /* The results say whether the runs were cut short; a signal that came
     * once they were over changed nothing in them, so the message and the
     * exit status follow the results, as the files do. */
    int interrupted = res.interrupted;
    vn_run_results_free(&res);
    free(cmp);
    if (interrupted) {
        fprintf(stderr, "vernier run: interrupted; the runs so far were reported\n");
        status = vn__interrupt_exit_code();
    }
done:
    free(F.v);
    if (dashdash)
        free(cmds);
    free(joined);
failed:
    free_params(&P);
    free(names), free(preps), free(given);
    return status;
usage_cmds:
    if (dashdash)
        free(cmds);
    free(joined);
usage:
    free_params(&P);
    free(names), free(preps), free(given);
    return VN_EXIT_USAGE;
}
