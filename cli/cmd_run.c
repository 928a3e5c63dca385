/* vernier run: time whole commands over many runs, and compare them. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
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
            "usage: vernier run [OPTIONS] -- CMD [ARGS...]\n"
            "       vernier run [OPTIONS] 'CMD A' 'CMD B' ...\n"
            "\n"
            "Runs each command many times, without a shell (each string is split into\n"
            "words the way a shell would, with quotes and backslashes, but nothing is\n"
            "expanded), and reports the median wall time with its 95%% CI, the mean, the\n"
            "range, user and system time and the peak memory of each run, and compares the\n"
            "commands. Several commands take turns run by run, so drift hits all alike.\n"
            "\n"
            "Runs:\n"
            "  --warmup N              untimed runs of each command first (default 0)\n"
            "  --runs N                exactly N timed runs of each command\n"
            "  --min-samples N         otherwise: at least N runs (default 10) ...\n"
            "  --max-time SEC          ... then runs until the median is within --precision\n"
            "                          or SEC seconds of runs have passed (default 3)\n"
            "  --max-samples N         at most N runs (default 10000)\n"
            "                          (hyperfine's names work too: --min-runs, --min-time,\n"
            "                          --max-runs)\n"
            "  --precision PCT         stop when the median's 95%% CI is within +-PCT%% (default 1)\n"
            "  --order alternate|random|blocks  A B A B (default), shuffled blocks, or\n"
            "                          all runs of A, then all of B (no cross-talk, but drift\n"
            "                          falls on one command)\n"
            "  --cpu N                 pin vernier and every command to CPU N (on a VM, one\n"
            "                          vCPU can be much slower than another)\n"
            "  --dma-latency US|auto|off  while the runs last, keep CPUs out of idle\n"
            "                          states slower to wake than US microseconds, through\n"
            "                          /dev/cpu_dma_latency (root only); 'auto' (the default)\n"
            "                          is 0 in a VM and 'off' on bare metal\n"
            "  --prepare CMD           a shell command before every timed run, untimed\n"
            "  --setup CMD, --cleanup CMD  shell commands once before / after a command's runs\n"
            "  --param NAME=V1,V2,...  run each command once per value, replacing {NAME}\n"
            "  --param-range NAME=LO:HI[:STEP]  the same with a range\n"
            "  --timeout SEC           stop a run (with its process group) after SEC seconds\n"
            "  --ignore-failure        keep going after a non-zero exit, a signal or a timeout\n"
            "  --shell                 run each command with sh -c, and subtract the shell's start-up\n"
            "  --show-output           let the commands' output through (default: /dev/null)\n"
            "  --input FILE            the commands' standard input (default: /dev/null)\n"
            "  --counters LIST         performance counters per run, following the command's\n"
            "                          children too: 'default', or names such as\n"
            "                          task-clock,page-faults,instructions (see vernier env)\n"
            "  --no-tree-peak          do not put the commands in a memory cgroup to measure\n"
            "                          the peak memory of their whole process tree\n"
            "\n"
            "Output:\n"
            "  --json FILE             vernier.results/1, every run included ('-' for stdout)\n"
            "  --csv FILE, --markdown FILE, --raw (with --csv: one row per run)\n"
            "  --export-hyperfine FILE hyperfine's JSON layout, for its plotting scripts\n"
            "  --hist                  the distribution of each command's run times\n"
            "  --fake-exec FILE        do not run anything: take each run's numbers from FILE,\n"
            "                          one run per line 'WALL_MS [USER_MS SYS_MS MAXRSS_KIB EXIT]'\n"
            "                          (for testing reports; see docs/run.md)\n"
            "  --quiet                 no progress line on stderr (shown on a terminal)\n"
            "  -h, --help              show this help\n"
            "\n"
            "Exit status: 0, 1 when a run failed or an output could not be written, 2 for a\n"
            "usage error, 130 after Ctrl-C (the runs so far are reported and written).\n");
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
    int rc = range ? vn_param_range(eq + 1, &values, &n, why, sizeof why)
                   : vn_param_list(eq + 1, &values, &n, why, sizeof why);
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

static int write_out(const char *path, int (*rep)(const vn_results *, vn_buf *), const vn_results *r)
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

static int csv_rows(const vn_results *r, vn_buf *b) { return vn_report_results_csv(r, 0, b); }
static int csv_raw(const vn_results *r, vn_buf *b) { return vn_report_results_csv(r, 1, b); }

/* What can be told wrong with the commands before any run, as usage
 * errors: a word that looks like an option after the commands (options go
 * first), a line that cannot be split into words or holds none, and a
 * parameter whose {NAME} appears nowhere. */
static int check_commands(const vn_run_config *c, int dashdash)
{
    for (size_t i = 0; i < c->ncommands; i++) {
        const char *cmd = c->commands[i];
        if (!dashdash && cmd[0] == '-') {
            const char *q = vn__quote_for(cmd);
            vn_cli_usage_error(CMD, "%s%s%s comes after the commands: options go before them (to run "
                               "a command whose words start with '-', put it after --)", q, cmd, q);
            return 1;
        }
        if (c->shell) {
            if (!cmd[strspn(cmd, " \t\n")]) {
                vn_cli_usage_error(CMD, "command %zu is empty; give a shell command to run", i + 1);
                return 1;
            }
            continue;
        }
        char **w = NULL, why[256];
        int n = 0;
        if (vn_split_words(cmd, &w, &n, why, sizeof why) != 0) {
            const char *q = vn__quote_for(cmd);
            vn_cli_usage_error(CMD, "cannot split %s%s%s into words: %s", q, cmd, q, why);
            return 1;
        }
        int empty = n == 0 || !w[0][0];
        vn_words_free(w);
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
        O_DMA, O_NOTREE, O_MAXTIME, O_QUIET, O_MINSAMPLES, O_MAXSAMPLES
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
        {"shell", no_argument, NULL, O_SHELL},
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
    int raw = 0, hist = 0, runs_set = 0, minmax_set = 0;
    params P = {0};
    double v;
    int status = VN_EXIT_USAGE;
    optind = 1;
    int o;
    /* "+": options end at the first command, so a command's own options
     * are never taken for vernier's. */
    while ((o = vn_cli_getopt(CMD, argc, argv, "+h", longopts)) != -1) {
        switch (o) {
        case 'h': help(stdout); free_params(&P); return vn_cli_flushed(CMD);
        case O_WARMUP: if (whole("--warmup", optarg, 0, 1e6, &v)) goto usage; c.warmup = (size_t)v; break;
        case O_RUNS: if (whole("--runs", optarg, 1, 1e6, &v)) goto usage; c.runs = (size_t)v; runs_set = 1; break;
        case O_MINRUNS:
        case O_MINSAMPLES:
            if (whole(o == O_MINRUNS ? "--min-runs" : "--min-samples", optarg, 1, 1e6, &v)) goto usage;
            c.min_runs = (size_t)v;
            minmax_set = 1;
            break;
        case O_MAXRUNS:
        case O_MAXSAMPLES:
            if (whole(o == O_MAXRUNS ? "--max-runs" : "--max-samples", optarg, 1, 1e6, &v)) goto usage;
            c.max_runs = (size_t)v;
            minmax_set = 1;
            break;
        case O_MINTIME: if (num("--min-time", optarg, 0, 86400, &v)) goto usage; c.min_time = v; break;
        case O_MAXTIME: if (num("--max-time", optarg, 0, 86400, &v)) goto usage; c.min_time = v; break;
        case O_QUIET: c.progress = 0; break;
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
        case O_PREPARE: c.prepare = optarg; break;
        case O_SETUP: c.setup = optarg; break;
        case O_CLEANUP: c.cleanup = optarg; break;
        case O_PARAM: if (add_param(&P, optarg, 0)) goto usage; break;
        case O_RANGE: if (add_param(&P, optarg, 1)) goto usage; break;
        case O_IGNORE: c.ignore_failure = 1; break;
        case O_SHELL: c.shell = 1; break;
        case O_SHOW: c.show_output = 1; break;
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
    if (raw && !csv) {
        vn_cli_usage_error(CMD, "--raw goes with --csv");
        goto usage;
    }
    int to_stdout;
    {
        const char *outs[] = {json, csv, md, hf};
        static const char *const names[] = {"--json", "--csv", "--markdown", "--export-hyperfine"};
        char msg[600];
        if (vn__outputs_usage(names, outs, 4, &to_stdout, msg, sizeof msg)) {
            vn_cli_usage_error(CMD, "%s", msg);
            goto usage;
        }
        for (int i = 0; i < 4; i++) {
            /* A path that cannot be written fails now, not after the runs. */
            int rc = outs[i] ? vn_output_check(outs[i]) : 0;
            if (rc) {
                char msg[VN__WRITE_ERROR_MAX];
                status = vn_cli_fail(CMD, "%s", vn__write_error(msg, sizeof msg, outs[i], rc));
                free_params(&P);
                return status;
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
    if (c.max_runs < c.min_runs) {
        vn_cli_usage_error(CMD, "--max-samples (%zu) must be at least --min-samples (%zu)", c.max_runs,
                           c.min_runs);
        goto usage;
    }
    struct stat in_st;
    if (c.input && stat(c.input, &in_st) == 0 && S_ISDIR(in_st.st_mode)) {
        status = vn_cli_fail(CMD, "cannot read --input '%s': it is a directory; give a file", c.input);
        free_params(&P);
        return status;
    }
    if (c.input && access(c.input, R_OK) != 0) {
        status = vn_cli_fail(CMD, "cannot read --input '%s': %s", c.input, strerror(errno));
        free_params(&P);
        return status;
    }

    /* The commands: after "--", one command as its words; otherwise each
     * argument is a command line. */
    int dashdash = optind > 1 && !strcmp(argv[optind - 1], "--");
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
            free_params(&P);
            return vn_cli_fail(CMD, "out of memory");
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
    if (check_commands(&c, dashdash)) {
        free(joined);
        free(cmds == (const char **)(argv + optind) ? NULL : cmds);
        goto usage;
    }

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

    vn_results res;
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
    vn_buf b;
    vn_buf_init(&b, 0);
    status = VN_EXIT_OK;
    if (vn_report_run_text(&res, cmp, ncmp, vn_cli_report_flags(con), &b) == 0 && hist)
        vn_report_results_hist(&res, vn_cli_report_flags(con), &b);
    if (b.len && (fwrite(b.data, 1, b.len, con) != b.len || fflush(con) != 0))
        status = vn_cli_fail(CMD, "cannot write the report");
    vn_buf_free(&b);
    if (json)
        status |= write_out(json, vn_report_results_json, &res);
    if (csv)
        status |= write_out(csv, raw ? csv_raw : csv_rows, &res);
    if (md)
        status |= write_out(md, vn_report_results_markdown, &res);
    if (hf)
        status |= write_out(hf, vn_report_hyperfine_json, &res);
    /* Only now: a second Ctrl-C while the files were written would have
     * left a temporary file behind. */
    vn__interrupt_restore();
    if (fail.failed) {
        fprintf(stderr, "vernier run: %s\n", fail.message);
        status = VN_EXIT_FAIL;
    }
    int interrupted = res.interrupted || vn__interrupted; /* also while the files were written */
    vn_results_free(&res);
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
    free_params(&P);
    return status;
usage:
    free_params(&P);
    return VN_EXIT_USAGE;
}
