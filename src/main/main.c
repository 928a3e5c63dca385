/* vn_main(): a benchmark program's whole command line. The option names are
 * the same as the vernier tool's, so one habit serves both. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <regex.h>
#include <sched.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/decide.h"
#include "gbench_flags.h"
#include "engine/internal.h"
#include "main_report.h"
#include "options.h"
#include "options_internal.h"
#include "engine/results.h"
#include "engine/worker.h"
#include "base/cpu_list.h"
#include "base/interrupt.h"
#include "base/format.h"
#include "base/options.h"
#include "report/report.h"
#include "base/fileutil.h"

typedef struct outputs {
    const char *json, *csv, *markdown, *report, *store;
    int raw, hist, list, explain;
    int gbench;               /* --format gbench: --json in Google Benchmark's layout */
    const char *gb_out;       /* --benchmark_out: a file in Google Benchmark's layout */
    int gb_stdout;            /* --benchmark_format=json: that layout on standard output */
    const char *format;       /* --format as given, NULL when not */
} outputs;

/* Writes what a reporter made of the results into b (rc is its answer)
 * to path: 0, or 1 after a message. b is freed. */
static int emit_buf(const char *prog, const char *path, int rc, vn_buf *b)
{
    if (rc == 0)
        rc = vn_write_file_atomic(path, b->data ? b->data : "", b->len);
    vn_buf_free(b);
    if (rc) {
        if (!strcmp(path, "-"))
            fprintf(stderr, "%s: cannot write the results to standard output: %s\n", prog,
                    vn_strerror(rc));
        else {
            char msg[VN__WRITE_ERROR_MAX];
            fprintf(stderr, "%s: %s\n", prog, vn__write_error(msg, sizeof msg, path, rc));
        }
        return 1;
    }
    return 0;
}

static int emit(const char *prog, const char *path, int (*report)(const vn_results *, vn_buf *),
                const vn_results *r)
{
    vn_buf b;
    vn_buf_init(&b, VN_RESULTS_BUF_MAX); /* every sample is in it */
    return emit_buf(prog, path, report(r, &b), &b);
}

/* Google Benchmark's layout, dated now and named after the program as it
 * was started, as Google Benchmark names it. */
static int emit_gbench(const char *prog, const char *path, const char *argv0, const vn_results *r,
                       const vn_report_gbench_opts *opts)
{
    char date[40];
    vn_buf b;
    vn_buf_init(&b, VN_RESULTS_BUF_MAX);
    int rc = vn_report_results_gbench_opts(r, argv0,
                                           vn_report_gbench_date(date, sizeof date, time(NULL)),
                                           opts, &b);
    return emit_buf(prog, path, rc, &b);
}

static int csv_rows(const vn_results *r, vn_buf *b) { return vn_report_results_csv(r, 0, b); }
static int csv_raw(const vn_results *r, vn_buf *b) { return vn_report_results_csv(r, 1, b); }

/* The names of suite s's rows (a benchmark, or one per parameter value),
 * those filter (a valid POSIX extended expression, or NULL) matches:
 * printed one per line when print is set, and counted. */
static size_t each_name(const vn_suite *s, const char *filter, int print)
{
    regex_t re;
    int filtered = filter && regcomp(&re, filter, REG_EXTENDED | REG_NOSUB) == 0;
    size_t count = 0;
    for (size_t i = 0; i < s->n; i++) {
        size_t nv = s->v[i].nvalues ? s->v[i].nvalues : 1;
        for (size_t k = 0; k < nv; k++) {
            char name[sizeof ((vn_result *)0)->name];
            vn__row_name(&s->v[i], k, name, sizeof name);
            if (filtered && regexec(&re, name, 0, NULL, 0) != 0)
                continue;
            count++;
            char shown[sizeof name];
            if (print) /* as the table shows it: no control character */
                printf("%s\n", vn__fmt_printable(shown, sizeof shown, name));
        }
    }
    if (filtered)
        regfree(&re);
    return count;
}

/* Standard output written out: 0, or 1 with a message when it could not be
 * (closed, a full disk, a pipe whose reader left), which says why, as the
 * tool's does: errno still holds the reason when the write that failed was
 * an earlier one, since stdio sets it then and later writes fail alike. */
static int flush_stdout(const char *prog)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: cannot write to standard output: %s\n", prog,
                errno ? strerror(errno) : "an earlier write failed");
        return 1;
    }
    return 0;
}

/* The caller's results when nothing ran: zeroed, with their sizes set. */
static void keep_nothing(vn_results *keep, size_t keep_size)
{
    vn_results none;
    memset(&none, 0, sizeof none);
    if (keep)
        vn__results_give(keep, keep_size, &none);
}

/* The program around suite s (the registered benchmarks for vn_main(), or
 * the program's own for vn_suite_main(); keep as there). s stays the
 * caller's. */
static int main_parsed(int argc, char **argv, vn_suite *s, vn_results *keep, size_t keep_size,
                       const sigset_t *run_mask, const vn__gbench_flags *gf)
{
    const char *prog = vn__main_prog_name(argc > 0 ? argv[0] : NULL);
    vn_config cfg;
    vn_config_init(&cfg);
    cfg.progress = isatty(STDERR_FILENO);
    outputs o = {0};
    o.gb_out = gf->out;
    o.gb_stdout = gf->format == VN__GB_JSON;
    int interleave_asked = 0; /* --interleave given: an error with --threads, unlike the default */
    int max_given = 0;        /* --max-samples given, rather than its default */
    struct option longopts[VN__MAIN_NOPTIONS + 1];
    size_t nopts = vn__main_longopts(longopts, VN__MAIN_NOPTIONS, NULL);
    memset(&longopts[nopts], 0, sizeof longopts[nopts]);

    /* The options that take a real number: the range of each, what it sets. */
    const struct { int id; const char *name; double lo, hi, *to; } reals[] = {
        {O_PRECISION, "--precision", 1e-3, 100, &cfg.precision},
        {O_MAXTIME, "--max-time", 1e-3, 86400, &cfg.max_time},
        {O_WARMUP, "--warmup", 0, 3600, &cfg.warmup},
        {O_MINSAMPLETIME, "--min-sample-time", 1e-6, 10, &cfg.min_sample_time}};
    opterr = 0;
    optind = 1;
    int c;
    double v;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case O_LIST: o.list = 1; break;
        case O_FILTER: cfg.filter = optarg; break;
        case O_BASELINE: cfg.baseline = optarg; break;
        case O_JSON: o.json = optarg; break;
        case O_FORMAT:
            if (strcmp(optarg, "vernier") && strcmp(optarg, "gbench"))
                return vn__main_usage_error(prog, "--format is 'vernier' or 'gbench', not '%s'%s", optarg, "");
            o.format = optarg;
            o.gbench = !strcmp(optarg, "gbench");
            break;
        case O_CSV: o.csv = optarg; break;
        case O_RAW: o.raw = 1; break;
        case O_MD: o.markdown = optarg; break;
        case O_REPORT: o.report = optarg; break;
        case O_STORE:
            if (!*optarg)
                return vn__main_usage_error(prog, "--store needs a file or a postgresql:// URL%s%s", "", "");
            o.store = optarg;
            break;
        case O_HIST: o.hist = 1; break;
        case O_EXPLAIN: o.explain = 1; break;
        case O_COLD: cfg.cold = 1; break;
        case O_INTERLEAVE: cfg.interleave = interleave_asked = 1; break;
        case O_NO_INTERLEAVE: cfg.interleave = interleave_asked = 0; break;
        case O_QUIET: cfg.progress = 0; break;
        case O_TIMER: cfg.timer = optarg; break;
        case O_COUNTERS: cfg.counters = optarg; break;
        case O_POLICY: {
            /* Checked against the defaults now, so a typo is a usage error
             * rather than a run that fails after its setup. */
            char why[768] = "";
            vn__policy pol;
            vn_config dflt;
            vn_config_init(&dflt);
            if (vn__policy_init(&pol, &dflt) != 0 ||
                vn__policy_parse(&pol, optarg, why, sizeof why) != 0)
                return vn__main_usage_error(prog, "--policy: %s%s", why, "");
            cfg.policy = optarg;
            break;
        }
        case 'h':
        case O_HELP: vn__main_help(prog); return flush_stdout(prog);
        case O_PRECISION:
        case O_MAXTIME:
        case O_WARMUP:
        case O_MINSAMPLETIME:
            for (size_t k = 0; k < sizeof reals / sizeof reals[0]; k++)
                if (reals[k].id == c &&
                    vn__main_num(prog, reals[k].name, optarg, reals[k].lo, reals[k].hi, reals[k].to))
                    return 2;
            break;
        case O_MINSAMPLES:
            if (vn__main_whole(prog, "--min-samples", optarg, 1, 1e7, "a whole number", &v))
                return 2;
            cfg.min_samples = (size_t)v;
            break;
        case O_MAXSAMPLES:
            if (vn__main_whole(prog, "--max-samples", optarg, 1, 1e7, "a whole number", &v))
                return 2;
            cfg.max_samples = (size_t)v;
            max_given = 1;
            break;
        case O_CPU:
            if (vn__main_whole(prog, "--cpu", optarg, 0, CPU_SETSIZE - 1, "a CPU number", &v))
                return 2;
            cfg.cpu = (int)v;
            break;
        case O_DMA:
            if (!strcmp(optarg, "off") || !strcmp(optarg, "auto")) {
                cfg.dma_latency_us = optarg[0] == 'o' ? -1 : VN_DMA_LATENCY_AUTO;
                break;
            }
            if (vn__main_whole(prog, "--dma-latency", optarg, 0, 1000000, "'auto', 'off' or microseconds", &v))
                return 2;
            cfg.dma_latency_us = (int)v;
            break;
        case O_THREADS:
            if (vn__main_whole(prog, "--threads", optarg, 1, 1024, "a whole number", &v))
                return 2;
            cfg.threads = (int)v;
            break;
        case O_PROCESSES:
            if (!strcmp(optarg, "auto")) {
                cfg.processes = 0;
                break;
            }
            if (vn__main_whole(prog, "--processes", optarg, 1, 1000, "'auto' or a whole number", &v))
                return 2;
            cfg.processes = (int)v;
            break;
        default: {
            char msg[512];
            vn__option_error(msg, sizeof msg, c == ':' ? ':' : '?', argv[optind - 1], optopt, longopts);
            return vn__main_usage_error(prog, "%s%s", msg, "");
        }
        }
    }
    if (optind < argc)
        return vn__main_usage_error(prog, "unexpected argument '%s'%s", argv[optind], "");
    if (cfg.max_samples < cfg.min_samples) {
        char most[32], fewest[32];
        snprintf(most, sizeof most, "%zu", cfg.max_samples);
        snprintf(fewest, sizeof fewest, "%zu", cfg.min_samples);
        if (max_given)
            return vn__main_usage_error(prog, "--max-samples (%s) must be at least --min-samples (%s)", most,
                               fewest);
        return vn__main_usage_error(prog, "--min-samples %s is more than the most samples taken by default "
                           "(%s); raise --max-samples too", fewest, most);
    }
    if (o.raw && !o.csv)
        return vn__main_usage_error(prog, "--raw goes with --csv%s%s", "", "");
    if (o.format && !o.json)
        return vn__main_usage_error(prog, "--format goes with --json%s%s", "", "");
    if (cfg.threads > 1 && cfg.processes > 1)
        return vn__main_usage_error(prog, "--threads cannot go with --processes above 1 (threads started "
                           "together run in one process)%s%s", "", "");
    if (cfg.threads > 1 && (cfg.cpu >= 0 || cfg.cold || interleave_asked))
        return vn__main_usage_error(prog, "--threads cannot go with %s%s",
                           cfg.cpu >= 0 ? "--cpu (every thread would share one CPU)"
                           : cfg.cold   ? "--cold (one thread's eviction would disturb the others)"
                                        : "--interleave (threads started together take no turns)",
                           "");
    int to_stdout;
    {
        const char *outs[] = {o.json, o.csv, o.markdown, o.gb_out, o.gb_stdout ? "-" : NULL};
        static const char *const names[] = {"--json", "--csv", "--markdown", "--benchmark_out",
                                            "--benchmark_format=json"};
        char msg[600];
        if (vn__outputs_usage(names, outs, 5, &to_stdout, msg, sizeof msg))
            return vn__main_usage_error(prog, "%s%s", msg, "");
        for (int i = 0; i < 5; i++) {
            int rc = outs[i] ? vn__output_check(outs[i]) : 0;
            if (rc) {
                char msg[VN__WRITE_ERROR_MAX];
                fprintf(stderr, "%s: %s\n", prog, vn__write_error(msg, sizeof msg, outs[i], rc));
                return 1;
            }
        }
    }
    char tool[4096];
    const char *env_store = getenv("VERNIER_STORE");
    int store = o.store || (env_store && *env_store);
    if ((o.report || store) && vn__main_report_tool(tool, sizeof tool)) {
        fprintf(stderr, "%s: %s needs the vernier tool, which is neither next to this program nor "
                "on PATH; install vernier or add its folder to PATH\n", prog,
                o.report ? "--report" : o.store ? "--store" : "VERNIER_STORE");
        return 1;
    }
    if (o.report) {
        if (!*o.report || !strcmp(o.report, "-"))
            return vn__main_usage_error(prog, "--report needs a file name for the page%s%s", "", "");
        int rc = vn__output_check(o.report);
        if (rc) {
            char msg[VN__WRITE_ERROR_MAX];
            fprintf(stderr, "%s: %s\n", prog, vn__write_error(msg, sizeof msg, o.report, rc));
            return 1;
        }
    }
    if (cfg.timer) {
        vn_clock_id id;
        if (vn_clock_lookup(cfg.timer, &id) != 0 || !vn_clock_available(id)) {
            char names[512] = "";
            for (int i = 0; i < VN_CLOCK_COUNT; i++)
                if (vn_clock_available((vn_clock_id)i)) {
                    if (names[0])
                        strncat(names, ", ", sizeof names - strlen(names) - 1);
                    strncat(names, vn_clock_name((vn_clock_id)i), sizeof names - strlen(names) - 1);
                }
            return vn__main_usage_error(prog, "no usable clock named '%s' (clocks: %s)", cfg.timer, names);
        }
        if (cfg.threads > 1 && (vn_clock_flags(id) & VN_CLOCK_F_CPUTIME))
            return vn__main_usage_error(prog, "--threads needs a clock of elapsed time, not the CPU time of '%s'"
                               " (the process's counts every thread in each sample; a thread's own "
                               "spans no wall time)%s", cfg.timer, "");
    }
    if (cfg.cpu >= 0) {
        cpu_set_t allowed;
        if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && !CPU_ISSET(cfg.cpu, &allowed)) {
            char n[16], cpus[256];
            snprintf(n, sizeof n, "%d", cfg.cpu);
            vn__cpu_list(&allowed, cpus, sizeof cpus);
            return vn__main_usage_error(prog, "CPU %s is not available to this process (it may use CPUs %s)",
                               n, cpus);
        }
    }
    if (cfg.counters) {
        char why[1536];
        if (vn_counters_check(cfg.counters, why, sizeof why) != 0)
            return vn__main_usage_error(prog, "%s%s", why, "");
    }
    if (cfg.filter) {
        regex_t re;
        if (regcomp(&re, cfg.filter, REG_EXTENDED | REG_NOSUB) != 0)
            return vn__main_usage_error(prog, "--filter '%s' is not a valid regular expression%s", cfg.filter, "");
        regfree(&re);
    }

    /* --list, and a filter that matches nothing: a typo would otherwise
     * look like a run that passed. */
    size_t matching = each_name(s, cfg.filter, o.list);
    if (cfg.filter && matching == 0)
        return vn__main_usage_error(prog, "--filter '%s' matches no benchmark%s", cfg.filter,
                           o.list ? " (drop it to list them all)" : " (--list shows their names)");
    if (o.list)
        return flush_stdout(prog);
    char why[512];
    if (vn__baselines_check(s, &cfg, why, sizeof why) != 0)
        return vn__main_usage_error(prog, "%s%s", why, "");

    /* Ctrl-C, SIGTERM and SIGHUP stop the run between samples; what was measured is
     * still reported and written, marked interrupted. */
    vn__interrupt_catch();
    cfg.stop_flag = &vn__interrupted;

    /* The benchmarks run with the host's signal mask (SIGPIPE included, so
     * code they run or start behaves as it would without vernier); only
     * this program's own output is written with SIGPIPE held. */
    sigset_t held;
    pthread_sigmask(SIG_SETMASK, run_mask, &held);
    int wfd = vn__worker_fd();
    if (wfd >= 0) {
        /* This program, started again by itself to measure in a fresh
         * process: it measures, sends the samples and ends here. The code
         * after vn_main() runs once, in the process the user started. */
        int status = vn__worker_run(s, &cfg, wfd, prog);
        fflush(NULL);
        _exit(status);
    }
    vn_results res;
    vn__launch launch = {run_mask};
    int rc = vn__suite_run_launched(s, &cfg, &res, sizeof res, &launch);
    pthread_sigmask(SIG_SETMASK, &held, NULL);
    if (rc) {
        vn__interrupt_restore();
        fprintf(stderr, "%s: the run failed: %s\n", prog, vn_strerror(rc));
        return 1;
    }

    FILE *con = to_stdout ? stderr : stdout;
    vn_buf b;
    vn_buf_init(&b, 0);
    unsigned flags = vn__main_console_flags(fileno(con), gf->no_color, o.explain);
    int status = 0;
    if (vn_report_results_text(&res, flags, &b) == 0 && o.hist)
        vn_report_results_hist(&res, flags, &b);
    if (b.len && (fwrite(b.data, 1, b.len, con) != b.len || fflush(con) != 0)) {
        fprintf(stderr, "%s: cannot write the report to standard %s: %s\n", prog,
                con == stdout ? "output" : "error", strerror(errno));
        status = 1;
    }
    vn_buf_free(&b);

    if (o.json && o.gbench)
        status |= emit_gbench(prog, o.json, argc > 0 ? argv[0] : prog, &res, &gf->gb);
    else if (o.json)
        status |= emit(prog, o.json, vn_report_results_json, &res);
    if (o.gb_out)
        status |= emit_gbench(prog, o.gb_out, argc > 0 ? argv[0] : prog, &res, &gf->gb);
    if (o.gb_stdout)
        status |= emit_gbench(prog, "-", argc > 0 ? argv[0] : prog, &res, &gf->gb);
    if (o.csv)
        status |= emit(prog, o.csv, o.raw ? csv_raw : csv_rows, &res);
    if (o.markdown)
        status |= emit(prog, o.markdown, vn_report_results_markdown, &res);
    if (o.report)
        status |= vn__main_report(prog, tool, &res, o.report);
    /* Kept only when whole, as vernier run keeps its own. */
    if (store && !res.interrupted)
        status |= vn__main_store(prog, tool, &res, o.store);
    for (size_t i = 0; i < res.nbench; i++) {
        const vn_result *x = vn_results_at(&res, i);
        if (x->error[0] && x->stop != VN_STOP_SKIPPED)
            status = 1;
    }
    /* Only now: a second Ctrl-C while the files were written would have
     * left a temporary file behind. */
    vn__interrupt_restore();
    /* As the files say: a signal once the runs were over changed nothing. */
    int interrupted = res.interrupted;
    if (keep)
        vn__results_give(keep, keep_size, &res);
    else
        vn__results_clear(&res);
    if (interrupted) {
        fprintf(stderr, "%s: interrupted; the results so far were reported\n", prog);
        return vn__interrupt_exit_code();
    }
    return status;
}

/* Google Benchmark's negative filter, against the names of suite s. */
static int negative_filter(const vn_suite *s, vn__gbench_flags *gf, const char *prog)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        n += s->v[i].nvalues ? s->v[i].nvalues : 1;
    char (*names)[sizeof ((vn_result *)0)->name] = malloc((n ? n : 1) * sizeof *names);
    const char **list = malloc((n ? n : 1) * sizeof *list);
    int rc = names && list ? 0 : VN_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; !rc && i < s->n; i++)
        for (size_t v = 0; v < (s->v[i].nvalues ? s->v[i].nvalues : 1); v++) {
            vn__row_name(&s->v[i], v, names[k], sizeof names[k]);
            list[k] = names[k];
            k++;
        }
    if (!rc)
        rc = vn__gbench_flags_resolve(gf, list, k, prog);
    free(names);
    free(list);
    return rc;
}

/* Google Benchmark's flags turned into the program's own first, then the
 * program as its options say. */
static int main_in_c_locale(int argc, char **argv, vn_suite *s, vn_results *keep,
                            size_t keep_size, const sigset_t *run_mask)
{
    keep_nothing(keep, keep_size);
    const char *prog = vn__main_prog_name(argc > 0 ? argv[0] : NULL);
    vn__gbench_flags gf;
    int rc = vn__gbench_flags_take(argc, argv, prog, &gf);
    if (rc == 0 && gf.negative_filter)
        rc = negative_filter(s, &gf, prog);
    if (rc == VN_ENOMEM)
        fprintf(stderr, "%s: out of memory\n", prog);
    else if (rc == 0)
        rc = main_parsed(gf.argc, gf.argv, s, keep, keep_size, run_mask, &gf);
    vn__gbench_flags_free(&gf);
    return rc == VN_ENOMEM ? 1 : rc;
}

/* The program's options, messages and reports read and write numbers as
 * "1.5" whatever locale the host program set (a decimal comma would break
 * the JSON and the CSV, and refuse --max-time 0.1); the host's locale is
 * back when it returns. */
static int main_of(int argc, char **argv, vn_suite *s, vn_results *keep, size_t keep_size)
{
    vn__locale l = vn__locale_c_begin();
    /* getopt's globals are the host's too: they are as it left them after. */
    int err = opterr, ind = optind;
    /* Output to a pipe whose reader left (| head) is an error to report,
     * "cannot write", not a SIGPIPE that kills the host program: SIGPIPE is
     * held while this thread writes, and one it raised is taken off before
     * the host's mask is back. */
    sigset_t pipe, old;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, &old);
    int rc = main_in_c_locale(argc, argv, s, keep, keep_size, &old);
    struct timespec now = {0, 0};
    while (!sigismember(&old, SIGPIPE) && sigtimedwait(&pipe, NULL, &now) == SIGPIPE)
        ;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    opterr = err, optind = ind;
    vn__locale_c_end(l);
    return rc;
}

int vn__main(int argc, char **argv, int optimized)
{
    const char *prog = vn__main_prog_name(argc > 0 ? argv[0] : NULL);
    vn_suite *s = vn__suite_create(optimized);
    if (!s) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return 1;
    }
    const char *bad = NULL;
    int rc = vn__suite_add_registered(s, &bad);
    if (rc == VN_ENOMEM) {
        fprintf(stderr, "%s: out of memory\n", prog);
        rc = 1;
    } else if (rc) {
        /* A mistake in the program, as a bad option is one in its command
         * line: the program's usage is wrong. The help is still shown when
         * asked for: it needs no benchmark. */
        for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
            if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
                /* The options read as ever, SIGPIPE held: the help is the
                 * first thing they act on that ends the program. */
                main_of(argc, argv, s, NULL, 0);
                break;
            }
        fprintf(stderr, "%s: the benchmark '%s' cannot be registered: %s; give each VN_BENCH a "
                "function of its own name and valid options\n",
                prog, bad ? bad : "?", vn_strerror(rc));
        rc = 2;
    } else {
        rc = main_of(argc, argv, s, NULL, 0);
    }
    vn_suite_destroy(s);
    return rc;
}

int vn__suite_main(vn_suite *s, int argc, char **argv, vn_results *keep, size_t keep_size)
{
    const char *prog = vn__main_prog_name(argc > 0 ? argv[0] : NULL);
    if (keep && keep_size < VN__RESULTS_FIRST) {
        fprintf(stderr, "%s: the results are %s\n", prog, vn_strerror(VN_EABI));
        return 1;
    }
    if (!s) {
        keep_nothing(keep, keep_size);
        fprintf(stderr, "%s: no suite to run\n", prog);
        return 1;
    }
    return main_of(argc, argv, s, keep, keep_size);
}

int vn_suite_main(vn_suite *s, int argc, char **argv, vn_results **keep)
{
    if (!keep)
        return vn__suite_main(s, argc, argv, NULL, 0);
    *keep = NULL;
    vn_results *r = calloc(1, sizeof *r);
    if (!r) {
        const char *prog = vn__main_prog_name(argc > 0 ? argv[0] : NULL);
        fprintf(stderr, "%s: %s\n", prog, vn_strerror(VN_ENOMEM));
        return 1;
    }
    int rc = vn__suite_main(s, argc, argv, r, sizeof *r);
    /* Nothing ran (--help, --list, a usage error): no results to keep. */
    if (!r->bench) {
        vn_results_free(r);
        return rc;
    }
    *keep = r;
    return rc;
}
