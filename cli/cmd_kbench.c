/* vernier kbench: kernel functions timed per call by the vernier_kbench
 * module, driven through its debugfs files and reported like any other
 * results. It loads nothing: the module must be loaded already. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_kbench_files.h"
#include "kbench/kbench.h"

#define CMD "kbench"
#define MAX_PARAMS 16
#define DEFAULT_ROOT "/sys/kernel/debug/vernier"
/* The module's largest run (1000000 calls) as "samples" text. */
#define SAMPLES_MAX ((size_t)32 << 20)

static void usage(FILE *f)
{
    fprintf(f,
            "usage: vernier kbench [OPTIONS] [TARGET...]\n"
            "\n"
            "Time kernel functions per call with the vernier_kbench module (kernel/ in\n"
            "the source tree), which must be loaded first (sudo insmod\n"
            "kernel/vernier_kbench.ko). Each TARGET (all of them by default) runs\n"
            "loop-count calls, each between two ordered reads of the time stamp\n"
            "counter; the counts become nanoseconds at the counter's rate calibrated\n"
            "here, and the median of the empty target, the loop's own cost, is taken\n"
            "off the others. Every run starts from the module's defaults, so nothing\n"
            "carries over from an earlier run. Needs root (the module's files are in\n"
            "debugfs).\n"
            "\n"
            "Options:\n"
            "  --list               list the targets, what each calls and its settings\n"
            "  --loop-count N       timed calls a target on each CPU (1 to 1000000 over\n"
            "                       all CPUs; default 10000)\n"
            "  --warmup N           untimed calls before them (0 to 1000000; default 100)\n"
            "  --irqs-off           run with interrupts and preemption off, in chunks\n"
            "  --chunk-us N         the longest stretch with them off, in microseconds\n"
            "                       (1 to 10000; default 1000); a signal cancels a run\n"
            "                       between two chunks\n"
            "  --cpus LIST          run on these CPUs at once (0-1, 0,2), each starting\n"
            "                       its timed calls when all are there; a row per CPU\n"
            "                       and one for all (default: one CPU, this process's)\n"
            "  --seed N             the seed of the targets' input draws (default 1)\n"
            "  --param NAME=VALUE   set a target's own setting NAME, for every target\n"
            "                       that has one (fib_lookup: dst, dst_range)\n"
            "  --dst A.B.C.D        the first destination fib_lookup routes (--param dst=)\n"
            "  --dst-range N        how many destinations from it (--param dst_range=)\n"
            "  --hist               also draw each target's distribution\n"
            "  --explain            say in full what each finding means and what to do\n"
            "  --json FILE          also write vernier.results/1 JSON to FILE; '-' writes\n"
            "                       only the JSON to standard output\n"
            "  --store URL          also keep the results in the store vernier history\n"
            "                       reads (also $VERNIER_STORE); --commit, --branch and\n"
            "                       --tag KEY=VALUE as for vernier store add;\n"
            "                       --store-samples keeps every call's time too\n"
            "  -h, --help           show this help\n"
            "\n"
            "Environment: VERNIER_KBENCH_DIR, the module's folder instead of\n"
            DEFAULT_ROOT ".\n"
            "\n"
            "Exit status: 0 on success, 1 when the module is not loaded, a knob cannot\n"
            "be set (not root) or a run fails, 2 for a usage error or an unknown\n"
            "target, 130 when a signal cancelled a run.\n");
}

typedef struct kb_opts {
    const char *root, *json, *cpus;
#ifndef VN_NO_COMPARE
    vn_cli_store store;
#endif
    long loop_count, warmup, chunk_us;
    long long seed;
    int irqs_off, hist, list, explain;
    const char *param[MAX_PARAMS]; /* NAME=VALUE */
    size_t nparam;
} kb_opts;

/* Writes a command to root/target/run and says what its error means. */
static int command(const kb_opts *o, const char *target, const char *word)
{
    char path[512];
    int e = vn_kb_write_value(o->root, target, "run", word, path, sizeof path);
    switch (e) {
    case 0:
        return 0;
    case EINTR:
        fprintf(stderr, "vernier %s: %s: the run was cancelled by a signal\n", CMD, target);
        return 130;
    case E2BIG:
        return vn_cli_usage_error(CMD, "%s: more than 1000000 calls over all CPUs; lower "
                                  "--loop-count", target);
    case ENODEV:
        return vn_cli_usage_error(CMD, "%s: a CPU of --cpus %s is not online", target,
                                  o->cpus ? o->cpus : "");
    case EAGAIN:
        return vn_cli_fail(CMD, "%s: every call was dropped (the counter changed CPU, went back "
                           "or jumped); try --irqs-off", target);
    case EBUSY:
        return vn_cli_fail(CMD, "%s: another run is in progress; wait for it", target);
    default:
        if (vn_kb_is_root_error(e))
            return vn_cli_fail(CMD, "cannot write %s: %s; running the module needs root (sudo)",
                               path, strerror(e));
        return vn_cli_fail(CMD, "%s: %s failed: %s", path, word, strerror(e));
    }
}

/* Sets the knobs of one target from the module's defaults, runs it, reads
 * its calls into row and frees them in the module. */
static int run_target(const kb_opts *o, const char *target, vn__kbench_row *row)
{
    char v[32];
    int rc = command(o, target, "reset\n");
    if (o->loop_count >= 0 && !rc)
        snprintf(v, sizeof v, "%ld\n", o->loop_count), rc = vn_kb_set_knob(o->root, target, "loop_count", v);
    if (o->warmup >= 0 && !rc)
        snprintf(v, sizeof v, "%ld\n", o->warmup), rc = vn_kb_set_knob(o->root, target, "warmup", v);
    if (o->chunk_us >= 0 && !rc)
        snprintf(v, sizeof v, "%ld\n", o->chunk_us), rc = vn_kb_set_knob(o->root, target, "chunk_us", v);
    if (o->seed >= 0 && !rc)
        snprintf(v, sizeof v, "%lld\n", o->seed), rc = vn_kb_set_knob(o->root, target, "seed", v);
    if (o->cpus && !rc)
        rc = vn_kb_set_knob(o->root, target, "cpus", o->cpus);
    if (o->irqs_off && !rc)
        rc = vn_kb_set_knob(o->root, target, "irqs_off", "1\n");
    for (size_t i = 0; i < o->nparam && !rc; i++) {
        char name[64];
        const char *eq = strchr(o->param[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - o->param[i]), o->param[i]);
        if (vn_kb_has_file(o->root, target, name))
            rc = vn_kb_set_knob(o->root, target, name, eq + 1);
    }
    if (!rc)
        rc = command(o, target, "run\n");
    if (rc)
        return rc;
    vn_buf b;
    vn_buf_init(&b, SAMPLES_MAX);
    snprintf(row->name, sizeof row->name, "%s", target);
    rc = vn_kb_read(o->root, target, "result", &b);
    if (!rc && vn__kbench_parse_result(b.data ? b.data : "", &row->sum))
        rc = vn_cli_fail(CMD, "%s/%s/result: not the module's summary; is the module from "
                         "this version of vernier?", o->root, target);
    vn_buf_reset(&b);
    if (!rc)
        rc = vn_kb_read(o->root, target, "samples", &b);
    if (!rc && vn__kbench_parse_samples(b.data ? b.data : "", b.len, &row->samples, &row->n))
        rc = vn_cli_fail(CMD, "%s/%s/samples: not one count a line", o->root, target);
    if (!rc && row->n != row->sum.all.count)
        rc = vn_cli_fail(CMD, "%s: the module kept %llu calls but %zu samples; run again "
                         "(another run may have replaced them)", target,
                         (unsigned long long)row->sum.all.count, row->n);
    vn_buf_free(&b);
    /* The samples take memory in the kernel until cleared. */
    if (!rc)
        rc = command(o, target, "clear\n");
    return rc;
}

/* The knobs every target has: the rest of a target's files that take a
 * value are its own settings. */
static int common_file(const char *name)
{
    static const char *const files[] = {"loop_count", "warmup", "irqs_off", "chunk_us", "cpus",
                                        "seed", "description", "run", "result", "hist",
                                        "samples"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        if (!strcmp(name, files[i]))
            return 1;
    return 0;
}

/* Appends " NAME=VALUE" for each of the target's own settings. */
static int own_settings(const kb_opts *o, const char *target, vn_buf *out)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", o->root, target);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    char *names[MAX_PARAMS];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < MAX_PARAMS)
        if (e->d_name[0] != '.' && !common_file(e->d_name) && (names[n] = strdup(e->d_name)))
            n++;
    closedir(d);
    qsort(names, n, sizeof *names, vn_kb_by_name);
    vn_buf b;
    vn_buf_init(&b, 4096);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        vn_buf_reset(&b);
        if (!rc && !(rc = vn_kb_read(o->root, target, names[i], &b)))
            rc = vn_buf_printf(out, " %s=%.*s", names[i], (int)strcspn(b.data ? b.data : "", "\n"),
                               b.data ? b.data : "");
        free(names[i]);
    }
    vn_buf_free(&b);
    return rc;
}

/* Each target on a line, with what it calls (its "description") and its
 * own settings. */
static int list(const kb_opts *o, char **names, size_t n)
{
    vn_buf out, b;
    vn_buf_init(&out, 0);
    vn_buf_init(&b, 4096);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        vn_buf_reset(&b);
        const char *what = "";
        if (vn_kb_has_file(o->root, names[i], "description") &&
            !(rc = vn_kb_read(o->root, names[i], "description", &b)) && b.data)
            what = b.data;
        if (!rc)
            rc = vn_buf_printf(&out, "%-16s %.*s", names[i], (int)strcspn(what, "\n"), what);
        if (!rc)
            rc = own_settings(o, names[i], &out);
        if (!rc)
            rc = vn_buf_puts(&out, "\n");
    }
    if (!rc)
        rc = vn_cli_print(CMD, &out);
    vn_buf_free(&b);
    vn_buf_free(&out);
    return rc;
}

static int report(const kb_opts *o, vn_results *r)
{
    int status = vn_cli_report_results(CMD, r, o->json, o->hist,
                                       vn_cli_report_flags(stdout) |
                                           (o->explain ? VN_REPORT_EXPLAIN : 0));
#ifndef VN_NO_COMPARE
    if (!status)
        status = vn_cli_store_results(CMD, &o->store, r, o->json);
#endif
    return status;
}

/* The rows of one target's run: one for all its calls, then one a CPU
 * (NAME/cpu=K, the calls of that CPU) for a run on several. Takes the
 * run's samples. Returns how many rows, or -1 when memory ran short. */
static ptrdiff_t rows_of(vn__kbench_row *run, vn__kbench_row *rows)
{
    rows[0] = *run;
    size_t n = 1, at = 0;
    for (size_t c = 0; c < run->sum.ncpus; c++) {
        vn__kbench_row *r = &rows[n++];
        memset(r, 0, sizeof *r);
        snprintf(r->name, sizeof r->name, "%.40s/cpu=%u", run->name, run->sum.cpu[c]);
        r->sum.all = run->sum.per_cpu[c];
        r->n = (size_t)run->sum.per_cpu[c].count;
        r->samples = malloc(r->n * sizeof *r->samples);
        if (!r->samples)
            return -1;
        memcpy(r->samples, run->samples + at, r->n * sizeof *r->samples);
        at += r->n;
    }
    return (ptrdiff_t)n;
}

/* Runs the targets (empty too, for the overhead, shown only when asked)
 * and reports them. */
static int measure(const kb_opts *o, char **run, size_t nrun, int show_empty)
{
    const vn_calibration *cal = vn_counter_calibration();
    if (!cal || !(cal->hz > 0))
        return vn_cli_fail(CMD, "the time stamp counter cannot be calibrated here, so its "
                           "counts cannot become nanoseconds; see 'vernier clocks'");
    size_t cap = nrun * (VN__KBENCH_MAX_CPUS + 1);
    vn__kbench_row *rows = calloc(cap, sizeof *rows);
    if (!rows)
        return vn_cli_fail(CMD, "%s", vn_strerror(VN_ENOMEM));
    int rc = 0;
    size_t n = 0, nempty = 0;
    uint64_t longest = 0;
    for (size_t i = 0; i < nrun && !rc; i++) {
        vn__kbench_row one;
        memset(&one, 0, sizeof one);
        rc = run_target(o, run[i], &one);
        if (rc) {
            free(one.samples);
            break;
        }
        longest = one.sum.longest_off > longest ? one.sum.longest_off : longest;
        ptrdiff_t k = rows_of(&one, rows + n);
        if (k < 0) {
            n += 1 + one.sum.ncpus;
            rc = vn_cli_fail(CMD, "%s", vn_strerror(VN_ENOMEM));
            break;
        }
        if (i == 0)
            nempty = (size_t)k;
        n += (size_t)k;
    }
    vn_results r;
    memset(&r, 0, sizeof r);
    if (!rc) {
        int err = vn__kbench_results(rows, n, cal->hz, &r);
        if (err)
            rc = vn_cli_fail(CMD, "cannot make the results: %s", vn_strerror(err));
    }
    for (size_t i = 0; i < n; i++)
        free(rows[i].samples);
    free(rows);
    if (rc)
        return rc;
    if (!show_empty) {
        /* The empty target ran first, for the overhead only. */
        for (size_t i = 0; i < nempty; i++)
            free(r.bench[i].samples);
        memmove(&r.bench[0], &r.bench[nempty], (r.nbench - nempty) * sizeof *r.bench);
        r.nbench -= nempty;
    }
    int err = vn_sysinfo_collect(&r.env);
    if (err) {
        vn__results_clear(&r);
        return vn_cli_fail(CMD, "cannot read the machine's settings: %s", vn_strerror(err));
    }
    r.config.min_samples = r.config.max_samples = o->loop_count >= 0 ? (size_t)o->loop_count
                                                                      : r.bench[0].nsamples;
    char off[96] = "";
    if (o->irqs_off)
        snprintf(off, sizeof off, " with interrupts and preemption off (at most %.3g us at a "
                 "stretch)", (double)longest * 1e6 / cal->hz);
    snprintf(r.note, sizeof r.note, "kernel functions timed per call by vernier_kbench%s%s%s; "
             "%.4g GHz counter calibrated in user space", off, o->cpus ? " on CPUs " : "",
             o->cpus ? o->cpus : "", cal->hz / 1e9);
    rc = report(o, &r);
    vn__results_clear(&r);
    return rc;
}

static int parse_opts(int argc, char **argv, kb_opts *o)
{
    enum { O_LIST = 256, O_LOOP, O_WARMUP, O_IRQS, O_PARAM, O_DST, O_DST_RANGE, O_HIST, O_JSON,
           O_CHUNK, O_CPUS, O_SEED, O_EXPLAIN };
    static const struct option longopts[] = {
        {"list", no_argument, NULL, O_LIST},
        {"loop-count", required_argument, NULL, O_LOOP},
        {"warmup", required_argument, NULL, O_WARMUP},
        {"irqs-off", no_argument, NULL, O_IRQS},
        {"param", required_argument, NULL, O_PARAM},
        {"dst", required_argument, NULL, O_DST},
        {"dst-range", required_argument, NULL, O_DST_RANGE},
        {"chunk-us", required_argument, NULL, O_CHUNK},
        {"cpus", required_argument, NULL, O_CPUS},
        {"seed", required_argument, NULL, O_SEED},
        {"hist", no_argument, NULL, O_HIST},
        {"explain", no_argument, NULL, O_EXPLAIN},
        {"json", required_argument, NULL, O_JSON},
#ifndef VN_NO_COMPARE
        VN_CLI_STORE_OPTIONS,
#endif
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static char dst[64], range[64];
    size_t v;
    int c;
    optind = 1;
    while ((c = vn_cli_getopt(CMD, argc, argv, "h", longopts)) != -1) {
        switch (c) {
        case O_LIST: o->list = 1; break;
        case O_LOOP:
            if (vn_cli_parse_size(CMD, "--loop-count", optarg, 1, 1000000, &v))
                return VN_EXIT_USAGE;
            o->loop_count = (long)v;
            break;
        case O_WARMUP:
            if (vn_cli_parse_size(CMD, "--warmup", optarg, 0, 1000000, &v))
                return VN_EXIT_USAGE;
            o->warmup = (long)v;
            break;
        case O_IRQS: o->irqs_off = 1; break;
#ifndef VN_NO_COMPARE
        VN_CLI_STORE_CASES:
            if (vn_cli_store_opts(CMD, c, optarg, &o->store))
                return VN_EXIT_USAGE;
            break;
#endif
        case O_CHUNK:
            if (vn_cli_parse_size(CMD, "--chunk-us", optarg, 1, 10000, &v))
                return VN_EXIT_USAGE;
            o->chunk_us = (long)v;
            break;
        case O_SEED:
            if (vn_cli_parse_size(CMD, "--seed", optarg, 0, (size_t)1 << 62, &v))
                return VN_EXIT_USAGE;
            o->seed = (long long)v;
            break;
        case O_CPUS:
            /* The module checks the list: "0-1", "0,2", "1". */
            if (!*optarg || strspn(optarg, "0123456789,-") != strlen(optarg))
                return vn_cli_usage_error(CMD, "--cpus needs a list of CPUs such as 0-1 or 0,2, "
                                          "not '%s'", optarg);
            o->cpus = optarg;
            break;
        case O_DST_RANGE:
            snprintf(range, sizeof range, "dst_range=%s", optarg);
            optarg = range;
            goto param;
        case O_DST:
            snprintf(dst, sizeof dst, "dst=%s", optarg);
            optarg = dst;
            /* fall through */
        case O_PARAM:
        param: {
            const char *eq = strchr(optarg, '=');
            size_t k = eq ? (size_t)(eq - optarg) : 0;
            if (!eq || k == 0 || k >= 64 || strcspn(optarg, "/") < k || !eq[1] ||
                strchr(eq + 1, '\n'))
                return vn_cli_usage_error(CMD, "--param needs NAME=VALUE, not '%s'", optarg);
            if (o->nparam == MAX_PARAMS)
                return vn_cli_usage_error(CMD, "at most %d --param", MAX_PARAMS);
            o->param[o->nparam++] = optarg;
            break;
        }
        case O_HIST: o->hist = 1; break;
        case O_EXPLAIN: o->explain = 1; break;
        case O_JSON:
            if (vn_cli_check_path(CMD, "--json", optarg))
                return VN_EXIT_USAGE;
            o->json = optarg;
            break;
        case 'h':
            usage(stdout);
            return -1;
        default:
            return VN_EXIT_USAGE;
        }
    }
    return 0;
}

int cmd_kbench(int argc, char **argv)
{
    kb_opts o = {.loop_count = -1, .warmup = -1, .chunk_us = -1, .seed = -1};
    int rc = parse_opts(argc, argv, &o);
    if (rc)
        return rc < 0 ? vn_cli_flushed(CMD) : rc;
    const char *env = getenv("VERNIER_KBENCH_DIR");
    o.root = env && *env ? env : DEFAULT_ROOT;
    char *names[VN_KB_MAX_TARGETS], *run[VN_KB_MAX_TARGETS + 1];
    size_t n = 0, nrun = 0;
    if ((rc = vn_kb_list_targets(o.root, names, &n)) != 0)
        return rc;
    int show_empty = optind == argc;
    /* empty runs first whatever was asked: its median is the overhead. */
    if (strcmp(names[0], "empty")) {
        rc = vn_cli_fail(CMD, "%s has no target 'empty'; is the module from this version "
                         "of vernier?", o.root);
        goto done;
    }
    run[nrun++] = names[0];
    for (int a = optind; a < argc && !rc; a++) {
        size_t k = 0;
        while (k < n && strcmp(argv[a], names[k]))
            k++;
        if (k == n) {
            fprintf(stderr, "vernier %s: unknown target '%s'; the targets are:", CMD, argv[a]);
            for (size_t i = 0; i < n; i++)
                fprintf(stderr, " %s", names[i]);
            fprintf(stderr, "\n");
            rc = VN_EXIT_USAGE;
        } else if (k == 0) {
            show_empty = 1;
        } else if (nrun <= VN_KB_MAX_TARGETS) {
            run[nrun++] = names[k];
        }
    }
    if (optind == argc)
        for (size_t k = 1; k < n; k++)
            run[nrun++] = names[k];
    for (size_t i = 0; i < o.nparam && !rc; i++) {
        char name[64];
        const char *eq = strchr(o.param[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - o.param[i]), o.param[i]);
        int found = 0;
        for (size_t k = 0; k < nrun && !found; k++)
            found = vn_kb_has_file(o.root, run[k], name);
        if (!found)
            rc = vn_cli_usage_error(CMD, "no target asked for has a setting '%s'", name);
    }
    if (!rc)
        rc = o.list ? list(&o, names, n) : measure(&o, run, nrun, show_empty);
done:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    return rc;
}
