/* vernier compare: two sets of results files, BASE and NEW, compared
 * benchmark by benchmark (src/compare/), with a verdict a CI job can act on. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "compare/compare.h"
#include "base/fileutil.h"
#include "store/store.h"

#define CMD "compare"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: vernier compare [OPTIONS] BASE NEW\n"
            "       vernier compare [OPTIONS] BASE... -- NEW...\n"
            "\n"
            "Compare the benchmarks of NEW with those of the same name in BASE: the ratio\n"
            "of the headlines (below 1 is faster; of the means for Google Benchmark's\n"
            "aggregates) with its 95%% interval (over processes the two headlines' own\n"
            "intervals joined; Welch's t over aggregates; a bootstrap over runs or\n"
            "samples), the Mann-Whitney p-value and a verdict: faster when the whole\n"
            "interval is below 1 - threshold, slower when it is above 1 + threshold, else\n"
            "no change; no change too when a headline lies within the interval the other\n"
            "run printed for its next run, or when the fastest tenth of the processes did\n"
            "not move past the threshold the same way. A row whose run stopped short of\n"
            "its precision is held to the half-width it reached, where wider.\n"
            "Instruction counts are compared too when both sides have them.\n"
            "Each side is a file, or several before and after '--' (repetitions, pooled).\n"
            "A file is vernier.results/1 (a benchmark program's, vernier run's or vernier\n"
            "suite's --json), Google Benchmark's JSON (--benchmark_out, with repetitions\n"
            "or only their aggregates) or hyperfine's (--export-json); '-' reads standard\n"
            "input. Benchmarks pair by name; else by --map; else by the name with\n"
            "parameters written alike (BM_x/64/real_time and x/n=64 are both x/64).\n"
            "\n"
            "Options:\n"
            "  --threshold PCT       a change smaller than PCT percent is no change (the\n"
            "                        precision vernier's files were measured to, else 2)\n"
            "  --fail-on-regression  exit 3 when a benchmark is slower\n"
            "  --map OLD=NEW         pair the BASE benchmark OLD (a regex of the whole name;\n"
            "                        '\\=' for an '=' in it) with NEW's benchmark NEW (\\1 to\n"
            "                        \\9: OLD's groups); may be given again\n"
            "  --json FILE           also write vernier.compare/1 JSON to FILE; '-' writes\n"
            "                        only the JSON to standard output\n"
            "  --markdown FILE       also write a Markdown table (for a pull request); '-'\n"
            "                        writes only the table to standard output\n"
            "  --store URL           widen each interval by the variation between the\n"
            "                        earlier runs of the benchmark on BASE's machine kept\n"
            "                        there (at least 5, of the last 30 days, after their\n"
            "                        last change point): what one run cannot see\n"
            "  -h, --help            show this help\n"
            "\n"
            "Exit status: 0 when the files were compared, 3 when --fail-on-regression is\n"
            "given and a benchmark is slower, 4 when no benchmark could be compared (no\n"
            "name in common, or none comparable), 1 when a file cannot be read or is not\n"
            "results vernier reads, 2 for a usage error.\n");
}

#define MAX_MAPS 64

typedef struct opts {
    double threshold;
    int threshold_given;
    int fail_on_regression;
    vn__cmp_map maps[MAX_MAPS];
    size_t nmaps;
    const char *json, *markdown;
    const char *store;        /* --store: earlier runs widen the intervals */
    char **base, **new_;
    size_t nbase, nnew;
} opts;

/* Options and BASE files come before a "--", NEW files after it; without
 * one, the operands are exactly BASE and NEW. */
static int parse(int argc, char **argv, opts *o)
{
    enum { O_THRESHOLD = 1000, O_FAIL, O_JSON, O_MARKDOWN, O_MAP, O_STORE };
    static const struct option longopts[] = {
        {"store", required_argument, NULL, O_STORE},
        {"threshold", required_argument, NULL, O_THRESHOLD},
        {"map", required_argument, NULL, O_MAP},
        {"fail-on-regression", no_argument, NULL, O_FAIL},
        {"json", required_argument, NULL, O_JSON},
        {"markdown", required_argument, NULL, O_MARKDOWN},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int split = argc;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--")) {
            split = i;
            break;
        }
    int c;
    optind = 1;
    while ((c = vn_cli_getopt(CMD, split, argv, "h", longopts)) != -1) {
        switch (c) {
        case O_THRESHOLD:
            if (vn_cli_parse_threshold(CMD, optarg, &o->threshold))
                return VN_EXIT_USAGE;
            o->threshold_given = 1;
            break;
        case O_FAIL:
            o->fail_on_regression = 1;
            break;
        case O_STORE:
            if (!optarg[0])
                return vn_cli_usage_error(CMD, "--store needs a file or a postgresql:// URL");
            o->store = optarg;
            break;
        case O_MAP: {
            if (o->nmaps == MAX_MAPS)
                return vn_cli_usage_error(CMD, "at most %d --map options", MAX_MAPS);
            char why[256];
            int rc = vn__cmp_map_parse(optarg, &o->maps[o->nmaps], why, sizeof why);
            if (rc == VN_ENOMEM)
                return vn_cli_fail(CMD, "out of memory");
            if (rc)
                return vn_cli_usage_error(CMD, "%s", why);
            o->nmaps++;
            break;
        }
        case O_JSON:
        case O_MARKDOWN:
            if (vn_cli_check_path(CMD, c == O_JSON ? "--json" : "--markdown", optarg))
                return VN_EXIT_USAGE;
            *(c == O_JSON ? &o->json : &o->markdown) = optarg;
            break;
        case 'h':
            usage(stdout);
            return -1;
        default:
            return VN_EXIT_USAGE;
        }
    }
    o->base = argv + optind;
    o->nbase = (size_t)(split - optind);
    if (split < argc) {
        o->new_ = argv + split + 1;
        o->nnew = (size_t)(argc - split - 1);
        if (!o->nbase || !o->nnew)
            return vn_cli_usage_error(CMD, "give at least one file on each side of '--'");
    } else {
        if (o->nbase != 2)
            return vn_cli_usage_error(CMD, "give BASE NEW, or BASE... -- NEW... for several "
                                           "files a side");
        o->new_ = o->base + 1;
        o->nbase = o->nnew = 1;
    }
    if (vn_cli_is_stdout(o->json) && vn_cli_is_stdout(o->markdown))
        return vn_cli_usage_error(CMD, "--json and --markdown cannot both write to standard output");
    size_t stdin_uses = 0;
    for (size_t i = 0; i < o->nbase + o->nnew; i++)
        stdin_uses += !strcmp(i < o->nbase ? o->base[i] : o->new_[i - o->nbase], "-");
    if (stdin_uses > 1)
        return vn_cli_usage_error(CMD, "standard input ('-') can be read only once");
    /* An output that is an input would be destroyed before it was read. */
    for (int s = 0; s < 2; s++) {
        const char *const *files = (const char *const *)(s ? o->new_ : o->base);
        size_t n = s ? o->nnew : o->nbase;
        if (vn_cli_check_not_input(CMD, "--json", o->json, files, n) ||
            vn_cli_check_not_input(CMD, "--markdown", o->markdown, files, n))
            return VN_EXIT_USAGE;
    }
    /* An output that cannot be written fails now, not after the reading. */
    const char *outs[] = {o->json, o->markdown};
    for (int i = 0; i < 2; i++) {
        int rc = outs[i] ? vn__output_check(outs[i]) : 0;
        if (rc) {
            char why[VN__WRITE_ERROR_MAX];
            return vn_cli_fail(CMD, "%s", vn__write_error(why, sizeof why, outs[i], rc));
        }
    }
    return 0;
}

int vn_cli_read_results(const char *cmd, const char *path, vn__cmp_side *side)
{
    const char *name = !strcmp(path, "-") ? "standard input" : path;
    /* A large file takes seconds: on a terminal, a line says which. */
    struct stat st;
    int shown = isatty(STDERR_FILENO) && strcmp(path, "-") && stat(path, &st) == 0 &&
                st.st_size > (16 << 20);
    if (shown)
        fprintf(stderr, "\rreading '%s' (%lld MiB)...", path, (long long)(st.st_size >> 20));
    vn_buf in;
    vn_buf_init(&in, 0);
    int status = vn_cli_slurp(cmd, path, &in);
    if (status) {
        vn_buf_free(&in);
        return status;
    }
    if (shown)
        fprintf(stderr, "\r\033[Kreading '%s': parsing...", path);
    vn__cmp_error err;
    int rc = vn__cmp_read(side, in.len ? in.data : "", in.len, &err);
    vn_buf_free(&in);
    if (shown)
        fprintf(stderr, "\r\033[K");
    if (rc == VN_EINVAL && err.line)
        return vn_cli_fail(cmd, "'%s', line %zu, column %zu: %s", name, err.line, err.column, err.msg);
    if (rc == VN_EINVAL)
        return vn_cli_fail(cmd, "'%s': %s", name, err.msg);
    if (rc)
        return vn_cli_fail(cmd, "cannot read '%s': %s", name, vn_strerror(rc));
    return VN_EXIT_OK;
}

static int read_side(char **files, size_t n, vn__cmp_side *side)
{
    for (size_t i = 0; i < n; i++) {
        int status = vn_cli_read_results(CMD, files[i], side);
        if (status)
            return status;
    }
    return VN_EXIT_OK;
}

/* Formats with one reporter and writes to path (or, with path NULL, prints). */
static int emit(const char *path, int rc, vn_buf *b)
{
    if (rc)
        return vn_cli_fail(CMD, "cannot format the comparison: %s", vn_strerror(rc));
    return path ? vn_cli_write(CMD, path, b) : vn_cli_print(CMD, b);
}

static int report(const opts *o, const vn__cmp_result *r)
{
    vn__cmp_files files = {(const char *const *)o->base, (const char *const *)o->new_, o->nbase,
                           o->nnew};
    vn_buf b;
    vn_buf_init(&b, 0);
    int status = VN_EXIT_OK, to_stdout = 0;
    if (o->json) {
        status = emit(o->json, vn__cmp_report_json(r, &files, &b), &b);
        to_stdout = vn_cli_is_stdout(o->json);
    }
    if (!status && o->markdown) {
        vn_buf_reset(&b);
        status = emit(o->markdown, vn__cmp_report_markdown(r, &files, &b), &b);
        to_stdout |= vn_cli_is_stdout(o->markdown);
    }
    /* A file on standard output is alone there, so a pipe reads it whole. */
    if (!status && !to_stdout) {
        vn_buf_reset(&b);
        status = emit(NULL, vn__cmp_report_text(r, &files, vn_cli_report_flags(stdout), &b), &b);
    }
    vn_buf_free(&b);
    return status;
}

/* What the store's earlier runs of each BASE benchmark, on BASE's
 * machine, say of the variation between runs (vn__store_between). */
static int learn(const char *url, vn__cmp_side *base)
{
    vn__store *s;
    char why[512], fp[1024];
    if (vn__store_open_reader(url, &s, why, sizeof why) != 0)
        return vn_cli_fail(CMD, "cannot read the store '%s': %s", url, why);
    vn__store_fingerprint(base, fp, sizeof fp);
    int status = VN_EXIT_OK;
    for (size_t i = 0; i < base->nbench && !status; i++) {
        vn__cmp_bench *b = &base->bench[i];
        const char *name = b->name;
        vn__store_query q = {.names = &name, .nnames = 1, .exact = 1, .machine = fp};
        vn__store_series *v;
        size_t nv;
        if (vn__store_series_of(s, &q, &v, &nv, why, sizeof why) != 0) {
            status = vn_cli_fail(CMD, "cannot read the store '%s': %s", url, why);
            break;
        }
        if (nv) {
            struct timespec now;
            clock_gettime(CLOCK_REALTIME, &now);
            for (int c = 0; c < 2; c++)
                b->hist_runs[c] = vn__store_series_between(&v[0], (double)now.tv_sec,
                                                           VN__STORE_LEARN_LEAST, VN__STORE_LEARN_MOST,
                                                           VN__STORE_LEARN_AGE, c, &b->hist_var[c]);
        }
        vn__store_series_free(v, nv);
    }
    vn__store_close(s);
    return status;
}

int cmd_compare(int argc, char **argv)
{
    opts o = {0};
    vn__cmp_options copt;
    vn__cmp_options_init(&copt);
    o.threshold = copt.threshold;
    int status = parse(argc, argv, &o);
    if (status) {
        for (size_t i = 0; i < o.nmaps; i++)
            vn__cmp_map_free(&o.maps[i]);
        return status < 0 ? vn_cli_flushed(CMD) : status;
    }
    copt.threshold = o.threshold;
    copt.threshold_from_files = !o.threshold_given;
    copt.maps = o.maps;
    copt.nmaps = o.nmaps;
    vn__cmp_side base, new_;
    vn__cmp_side_init(&base);
    vn__cmp_side_init(&new_);
    vn__cmp_result r = {0};
    status = read_side(o.base, o.nbase, &base);
    if (!status)
        status = read_side(o.new_, o.nnew, &new_);
    if (!status && o.store)
        status = learn(o.store, &base);
    if (!status) {
        int rc = vn__cmp_compare(&base, &new_, &copt, &r);
        status = rc ? vn_cli_fail(CMD, "cannot compare: %s", vn_strerror(rc)) : report(&o, &r);
    }
    /* Nothing compared: a gate that passed now would pass by accident. */
    if (!status && !r.nrows)
        status = VN_EXIT_NOTHING;
    if (!status && o.fail_on_regression && r.count[VN__CMP_SLOWER])
        status = VN_EXIT_REGRESSION;
    for (size_t i = 0; i < o.nmaps; i++)
        vn__cmp_map_free(&o.maps[i]);
    vn__cmp_result_free(&r);
    vn__cmp_side_free(&base);
    vn__cmp_side_free(&new_);
    return status;
}
