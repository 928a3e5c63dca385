/* vernier suite: the OS and machine microbenchmarks of src/suite/, run by
 * the engine with a benchmark program's options and outputs. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/internal.h"
#include "main/options.h"
#include "cli.h"
#include "base/fileutil.h"
#include "suite/suite.h"

static const char *const cmd = "suite";

/* The engine's options that the suite has its own of, or no use for. */
static const char *const not_passed[] = {"list", "help", "report", NULL};

enum { O_LIST = 1000, O_QUICK, O_SIZES, O_CPUS, O_NAGLE, O_REPORT, O_HELP };
static const struct option own[] = {
    {"list", no_argument, 0, O_LIST},   {"quick", no_argument, 0, O_QUICK},
    {"sizes", required_argument, 0, O_SIZES}, {"cpus", required_argument, 0, O_CPUS},
    {"nagle", no_argument, 0, O_NAGLE}, {"report", required_argument, 0, O_REPORT},
    {"help", no_argument, 0, O_HELP},
};
#define NOWN (sizeof own / sizeof own[0])

static void help(FILE *f)
{
    fprintf(f,
            "usage: vernier suite [OPTIONS] [NAME...]\n"
            "\n"
            "What the OS and the machine cost: system calls, files, processes, IPC, context\n"
            "switches, memory and timers, each figure with the engine's statistics (median,\n"
            "95%% CI, percentiles), warnings and outputs. NAME is a family (ipc) or one\n"
            "benchmark (ipc.tcp); without one, all run. A sweep has one row per size.\n"
            "\n"
            "Options:\n"
            "  --list         list the benchmarks (those NAMEs select) and what each measures\n"
            "  --quick        short budgets and small sweeps: seconds in all\n"
            "  --sizes LIST   the sizes of every sweep, e.g. 4,64,4K,1M (K and M: 1024s)\n"
            "  --cpus A,B     the benchmark thread on CPU A, the other end (ipc, ctxsw, a\n"
            "                 pipe's reader) on B\n"
            "  --nagle        TCP with Nagle's algorithm on (ipc.tcp), to see what it does\n"
            "  --report FILE  at the end, an HTML page of the results with plots (the\n"
            "                 sweeps on log axes), as 'vernier report' makes (needs gnuplot)\n"
            "  -h, --help     show this help\n"
            "\n"
            "The engine's options, as for a benchmark program (docs/engine.md), with a\n"
            "budget of 0.25 s per row by default (0.03 s with --quick):\n"
            "\n"
            "Engine options:\n");
    vn__main_options_help(f, not_passed);
    fprintf(f, "\n"
               "Exit status: 0 when every benchmark ran or was skipped with its reason, 1 when\n"
               "one failed, 2 for a usage error, 130 when interrupted.\n");
}

/* "4,64,4K,1M": sizes of 1 to 1 GiB; 0, or a usage error (2). */
static int parse_sizes(const char *s, int64_t **out, size_t *n)
{
    size_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    int64_t *v = calloc(cap, sizeof *v);
    if (!v)
        return vn_cli_fail(cmd, "out of memory");
    size_t k = 0;
    const char *p = s;
    for (;;) {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(p, &end, 10);
        unsigned long long mult = *end == 'K' ? 1024ull : *end == 'M' ? 1024ull * 1024 : *end == 'G' ? 1ull << 30 : 1;
        if (mult > 1)
            end++;
        if (end == p || (*end && *end != ',') || errno || *p == '-' || x == 0 || x > (1ull << 30) / mult) {
            free(v);
            return vn_cli_usage_error(cmd, "--sizes '%s': each size is a whole number of bytes from 1 to 1G, "
                                      "with K, M or G for 1024s, apart by commas", s);
        }
        v[k++] = (int64_t)(x * mult);
        if (!*end)
            break;
        p = end + 1;
    }
    *out = v;
    *n = k;
    return 0;
}

static int parse_cpus(const char *s, vn__suite_ctx *ctx)
{
    char *end;
    long a = strtol(s, &end, 10), b = -1;
    if (end != s && *end == ',') {
        const char *q = end + 1;
        b = strtol(q, &end, 10);
        if (end == q)
            b = -1;
    }
    long max = sysconf(_SC_NPROCESSORS_CONF);
    if (*end || a < 0 || b < 0 || a >= max || b >= max)
        return vn_cli_usage_error(cmd, "--cpus '%s': two CPU numbers A,B from 0 to %ld", s, max - 1);
    ctx->cpu_a = (int)a;
    ctx->cpu_b = (int)b;
    return 0;
}

static int list(const char *const *names, size_t nnames)
{
    size_t n;
    const vn__suite_entry *e = vn__suite_entries(&n);
    for (size_t i = 0; i < n; i++) {
        int sel = nnames == 0;
        for (size_t k = 0; k < nnames && !sel; k++)
            sel = vn__suite_selects(&e[i], names[k]);
        if (sel)
            printf("%-24s %s\n", e[i].name, e[i].what);
    }
    return vn_cli_flushed(cmd);
}

/* Each NAME must select something; the message lists the families. */
static int check_names(char *const *names, size_t nnames)
{
    size_t n;
    const vn__suite_entry *e = vn__suite_entries(&n);
    for (size_t k = 0; k < nnames; k++) {
        int found = 0;
        for (size_t i = 0; i < n && !found; i++)
            found = vn__suite_selects(&e[i], names[k]);
        if (!found) {
            char fams[256] = "";
            for (size_t i = 0; i < n; i++)
                if (i == 0 || strcmp(e[i].family, e[i - 1].family))
                    snprintf(fams + strlen(fams), sizeof fams - strlen(fams), "%s%s", i ? ", " : "",
                             e[i].family);
            return vn_cli_usage_error(cmd, "no benchmark or family '%s' (families: %s; --list shows all)",
                                      names[k], fams);
        }
    }
    return 0;
}

/* --report's page, checked before the runs: a mistake is found at once. */
static int check_report(const char *path)
{
    if (!*path || !strcmp(path, "-"))
        return vn_cli_usage_error(cmd, "--report needs a file name for the page");
    int rc = vn__output_check(path);
    if (rc) {
        char why[VN__WRITE_ERROR_MAX];
        return vn_cli_fail(cmd, "%s", vn__write_error(why, sizeof why, path, rc));
    }
    return 0;
}

/* The run, then the page drawn from the results file it would write, in
 * this process: the tool has the page's code, which a benchmark
 * program's vn_main runs as 'vernier report'. */
static int run_and_report(vn_suite *s, int argc, char **argv, const char *path)
{
    vn_results res;
    int rc = vn__suite_main(s, argc, argv, &res, sizeof res);
    /* A usage error ran nothing; a failed or interrupted run is still drawn. */
    if (rc != VN_EXIT_USAGE && res.nbench) {
        vn_buf b;
        vn_buf_init(&b, VN_RESULTS_BUF_MAX);
        int err = vn_report_results_json(&res, &b);
        int status = err ? vn_cli_fail(cmd, "cannot format the results: %s", vn_strerror(err))
                         : vn_cli_report_from(cmd, &b, path);
        vn_buf_free(&b);
        rc = rc ? rc : status;
    }
    vn__results_clear(&res);
    return rc;
}

int cmd_suite(int argc, char **argv)
{
    struct option longopts[NOWN + 64];
    memcpy(longopts, own, sizeof own);
    size_t nl = NOWN + vn__main_longopts(longopts + NOWN, 63 - NOWN, not_passed);
    memset(&longopts[nl], 0, sizeof longopts[nl]);

    vn__suite_ctx ctx;
    vn__suite_ctx_init(&ctx);
    int64_t *sizes = NULL;
    int do_list = 0, rc = 0;
    const char *report = NULL;
    /* The engine's arguments: its defaults for the suite first, so that the
     * user's own, after them, win. */
    char **eargv = calloc((size_t)argc * 2 + 8, sizeof *eargv);
    char **strs = calloc((size_t)argc + 4, sizeof *strs);
    size_t ne = 0, ns = 0;
    if (!eargv || !strs) {
        free(eargv), free(strs);
        return vn_cli_fail(cmd, "out of memory");
    }
    eargv[ne++] = "vernier suite";
    size_t defaults_at = ne;
    ne += 3; /* --max-time, --warmup and --processes, filled once --quick is known */
    int c;
    optind = 1;
    while (rc == 0 && (c = vn_cli_getopt(cmd, argc, argv, "h", longopts)) != -1) {
        switch (c) {
        case O_LIST: do_list = 1; break;
        case O_QUICK: ctx.quick = 1; break;
        case O_SIZES:
            free(sizes);
            sizes = NULL;
            rc = parse_sizes(optarg, &sizes, &ctx.nsizes);
            ctx.sizes = sizes;
            break;
        case O_CPUS: rc = parse_cpus(optarg, &ctx); break;
        case O_NAGLE: ctx.nagle = 1; break;
        case O_REPORT: rc = check_report(optarg); report = optarg; break;
        case 'h':
        case O_HELP:
            help(stdout);
            rc = -1;
            break;
        case '?': rc = VN_EXIT_USAGE; break;
        default: {
            /* An engine option: handed on as --name or --name=value. */
            const struct option *o = NULL;
            for (size_t i = NOWN; i < nl && !o; i++)
                if (longopts[i].val == c)
                    o = &longopts[i];
            if (!o) {
                rc = VN_EXIT_USAGE;
                break;
            }
            size_t len = strlen(o->name) + (optarg ? strlen(optarg) : 0) + 4;
            char *a = malloc(len);
            if (!a) {
                rc = vn_cli_fail(cmd, "out of memory");
                break;
            }
            snprintf(a, len, "--%s%s%s", o->name, optarg ? "=" : "", optarg ? optarg : "");
            strs[ns++] = eargv[ne++] = a;
        }
        }
    }
    char *const *names = argv + optind;
    size_t nnames = rc == 0 ? (size_t)(argc - optind) : 0;
    if (rc == 0)
        rc = check_names(names, nnames);
    if (rc == 0 && do_list)
        rc = list((const char *const *)names, nnames);
    else if (rc == 0) {
        /* Seconds in all with --quick; about two minutes for everything
         * without it. */
        eargv[defaults_at] = ctx.quick ? "--max-time=0.03" : "--max-time=0.25";
        eargv[defaults_at + 1] = ctx.quick ? "--warmup=0.002" : "--warmup=0.01";
        /* In this process: the families start children, servers and
         * sockets of their own, which a worker process would start again
         * for every process. --processes measures in several all the same. */
        eargv[defaults_at + 2] = "--processes=1";
        if (ctx.cpu_a >= 0) {
            static char cpu[32];
            snprintf(cpu, sizeof cpu, "--cpu=%d", ctx.cpu_a);
            eargv[ne++] = cpu;
        }
        vn_suite *s = vn_suite_create();
        vn_suite_set_after(s, vn__suite_after, &ctx);
        /* Each family says what its sweep means in its own lines (the
         * loop's fitted line); a complexity line beside them would be noise. */
        vn__suite_no_fit(s);
        size_t n;
        const vn__suite_entry *e = vn__suite_entries(&n);
        for (size_t i = 0; i < n && s && rc == 0; i++) {
            int sel = nnames == 0;
            for (size_t k = 0; k < nnames && !sel; k++)
                sel = vn__suite_selects(&e[i], names[k]);
            int err = sel ? e[i].add(s, &ctx, e[i].name) : 0;
            if (err)
                rc = vn_cli_fail(cmd, "cannot set up %s: %s", e[i].name, vn_strerror(err));
        }
        if (!s)
            rc = vn_cli_fail(cmd, "out of memory");
        if (rc == 0 && !report)
            rc = vn_suite_main(s, (int)ne, eargv, NULL);
        else if (rc == 0)
            rc = run_and_report(s, (int)ne, eargv, report);
        vn_suite_destroy(s);
    }
    vn__suite_ctx_free(&ctx);
    for (size_t i = 0; i < ns; i++)
        free(strs[i]);
    free(strs);
    free(eargv);
    free(sizes);
    return rc < 0 ? vn_cli_flushed(cmd) : rc;
}
