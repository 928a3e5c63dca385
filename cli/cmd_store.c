/* vernier store add: results files kept in the store (src/store/), and the
 * helper that --store of the commands that measure calls after writing
 * their results. A build without the file reader (VN_NO_COMPARE) has
 * neither. */
#ifndef VN_NO_COMPARE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "compare/compare.h"
#include "store/store.h"

#define CMD "store"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: vernier store add [OPTIONS] FILE...\n"
            "\n"
            "Keep results files in the store: each FILE (vernier.results/1, Google\n"
            "Benchmark's JSON or hyperfine's, '-' for standard input) becomes one run,\n"
            "with every benchmark's units (processes, runs or repetitions), the machine\n"
            "it ran on, the git commit, branch and dirty flag of the working tree here\n"
            "(or --commit), the time and the tags. A run is written in one transaction:\n"
            "whole or not at all. The store is an SQLite file (made when missing, safe\n"
            "for many writers on one host) or a PostgreSQL database (postgresql://...,\n"
            "for a fleet of CI machines); by default $VERNIER_STORE, else\n"
            "~/.local/share/vernier/results.db. vernier history reads it.\n"
            "\n"
            "Options:\n"
            "  --store URL       the store: a file, sqlite:FILE or postgresql://...\n"
            "  --commit REV      the commit measured, instead of the working tree's\n"
            "  --branch NAME     its branch (with --commit)\n"
            "  --tag KEY=VALUE   a tag kept with the run; may be given again\n"
            "  --time SECONDS    when it ran, in seconds since 1970 (default: now)\n"
            "  --samples         keep every sample too, not only each unit (some 40 bytes\n"
            "                    a sample; also VERNIER_STORE_SAMPLES=1)\n"
            "  --from NAME       the name of what made the file, for the messages and the\n"
            "                    store (a benchmark program's --store gives its own)\n"
            "  -h, --help        show this help\n"
            "\n"
            "Exit status: 0 when every file was stored, 1 when a file cannot be read or\n"
            "the store cannot be opened or written, 2 for a usage error.\n");
}

/* A tag as KEY=VALUE, a key of letters, digits, '_', '-' and '.'. */
static int check_tag(const char *cmd, const char *t)
{
    const char *eq = strchr(t, '=');
    if (!eq || eq == t)
        return vn_cli_usage_error(cmd, "--tag needs KEY=VALUE, not '%s'", t);
    for (const char *c = t; c < eq; c++)
        if (!(*c == '_' || *c == '-' || *c == '.' || (*c >= '0' && *c <= '9') ||
              (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
            return vn_cli_usage_error(cmd, "--tag: the key of '%s' may hold only letters, digits, "
                                           "'_', '-' and '.'", t);
    if (strchr(eq, '\n'))
        return vn_cli_usage_error(cmd, "--tag: '%.40s...' holds a line break", t);
    return 0;
}

int vn_cli_store_opts(const char *cmd, int c, const char *arg, vn_cli_store *st)
{
    switch (c) {
    case VN_CLI_OPT_STORE:
        if (!arg[0])
            return vn_cli_usage_error(cmd, "--store needs a file or a postgresql:// URL");
        st->url = arg;
        st->on = 1;
        return 0;
    case VN_CLI_OPT_COMMIT:
        if (!arg[0] || strlen(arg) > 40 || strchr(arg, '\n'))
            return vn_cli_usage_error(cmd, "--commit needs a revision of at most 40 characters");
        st->commit = arg;
        return 0;
    case VN_CLI_OPT_BRANCH:
        if (!arg[0] || strlen(arg) > 63 || strchr(arg, '\n'))
            return vn_cli_usage_error(cmd, "--branch needs a name of at most 63 characters");
        st->branch = arg;
        return 0;
    case VN_CLI_OPT_SAMPLES:
        st->samples = 1;
        return 0;
    case VN_CLI_OPT_TAG:
        if (st->ntags == VN_CLI_MAX_TAGS)
            return vn_cli_usage_error(cmd, "at most %d --tag options", VN_CLI_MAX_TAGS);
        if (check_tag(cmd, arg))
            return VN_EXIT_USAGE;
        st->tags[st->ntags++] = arg;
        return 0;
    default:
        return VN_EXIT_USAGE;
    }
}

/* The run's meta: the options, else the working tree's git. */
static void meta_of(const vn_cli_store *st, const char *source, vn__store_meta *m, char *buf,
                    size_t n)
{
    const char *env = getenv("VERNIER_STORE_SAMPLES");
    *m = (vn__store_meta){.dirty = -1, .source = source, .tags = st->tags, .ntags = st->ntags,
                          .time = st->time,
                          .samples = st->samples || (env && !strcmp(env, "1"))};
    if (st->commit) {
        m->commit = st->commit;
        m->branch = st->branch;
    } else {
        vn__store_git(NULL, m, buf, n);
        if (st->branch)
            m->branch = st->branch;
    }
}

static int store_side(const char *cmd, vn__store *s, const vn_cli_store *st, const char *source,
                      const vn__cmp_side *side, const char *what, int64_t *run, size_t *kept)
{
    char gitbuf[512], why[512];
    vn__store_meta m;
    meta_of(st, source, &m, gitbuf, sizeof gitbuf);
    if (vn__store_add(s, side, &m, run, kept, why, sizeof why) != 0)
        return vn_cli_fail(cmd, "%s was not stored in '%s': %s", what, vn__store_where(s), why);
    return VN_EXIT_OK;
}

/* What the store's earlier runs say of the run just kept: a line for each
 * benchmark whose interval they widen (by more than a tenth), at most 8
 * and how many more. A failure to read it back says nothing: the run is
 * kept. */
static void print_learned(FILE *f, const char *cmd, vn__store *s, const vn__cmp_side *side,
                          int64_t run)
{
    char fp[1024], why[256];
    vn__store_fingerprint(side, fp, sizeof fp);
    size_t shown = 0, more = 0;
    for (size_t i = 0; i < side->nbench; i++) {
        const char *name = side->bench[i].name;
        vn__store_query q = {.names = &name, .nnames = 1, .exact = 1, .machine = fp};
        vn__store_series *v;
        size_t nv;
        if (vn__store_series_of(s, &q, &v, &nv, why, sizeof why) != 0)
            return;
        for (size_t k = 0; nv && k < v[0].n; k++) {
            const vn__store_point *p = &v[0].pt[k];
            if (p->run != run || !(p->value > 0) || !isfinite(p->lo))
                continue;
            double lo = p->lo, hi = p->hi, own = fmax(p->hi - p->value, p->value - p->lo);
            size_t m = vn__store_widen(v[0].pt, k, p->time, p->value, &lo, &hi,
                                       VN__STORE_LEARN_LEAST, VN__STORE_LEARN_MOST,
                                       VN__STORE_LEARN_AGE, v[0].in_cycles);
            double half = fmax(hi - p->value, p->value - lo);
            if (!m || !(half > 1.1 * own))
                break;
            if (shown == 8) {
                more++;
                break;
            }
            fprintf(f, "vernier %s: %s +-%.2g%% is +-%.2g%% with history (its last %zu runs here "
                       "moved that much)\n", cmd, name, 100 * own / p->value, 100 * half / p->value, m);
            shown++;
        }
        vn__store_series_free(v, nv);
    }
    if (more)
        fprintf(f, "vernier %s: %zu more intervals widened by history: vernier history\n", cmd, more);
}

/* Where the results went, for a message: the file, or what became of them. */
static const char *kept_where(const char *written, char *buf, size_t n)
{
    if (!written)
        return "not written to a file (give --json FILE to keep them)";
    if (vn_cli_is_stdout(written))
        return "on standard output";
    snprintf(buf, n, "in '%s'", written);
    return buf;
}

int vn_cli_store_wanted(const vn_cli_store *st)
{
    const char *env = getenv("VERNIER_STORE");
    return st->on || (env && env[0]);
}

int vn_cli_store_json(const char *cmd, const vn_cli_store *st, const vn_buf *json,
                      const char *written)
{
    if (!vn_cli_store_wanted(st))
        return VN_EXIT_OK;
    char wbuf[4200];
    const char *kept = kept_where(written, wbuf, sizeof wbuf);
    vn__cmp_side side;
    vn__cmp_side_init(&side);
    vn__cmp_error err;
    int rc = vn__cmp_read(&side, json->data ? json->data : "", json->len, &err);
    if (rc) {
        vn__cmp_side_free(&side);
        return vn_cli_fail(cmd, "the results were not stored (%s); they are %s",
                           rc == VN_EINVAL ? err.msg : vn_strerror(rc), kept);
    }
    vn__store *s;
    char why[512];
    if (vn__store_open(st->url, &s, why, sizeof why) != 0) {
        vn__cmp_side_free(&side);
        return vn_cli_fail(cmd, "cannot use the store '%s': %s; the results are %s",
                           st->url ? st->url : "(default)", why, kept);
    }
    char source[64];
    snprintf(source, sizeof source, "vernier %s", cmd);
    int64_t run;
    size_t nkept;
    int status = store_side(cmd, s, st, source, &side, "the run", &run, &nkept);
    if (status)
        fprintf(stderr, "vernier %s: the results are %s\n", cmd, kept);
    else {
        fprintf(stderr, "vernier %s: kept in '%s' as run %lld\n", cmd, vn__store_where(s),
                (long long)run);
        print_learned(stderr, cmd, s, &side, run);
    }
    vn__store_close(s);
    vn__cmp_side_free(&side);
    return status;
}

int vn_cli_store_results(const char *cmd, const vn_cli_store *st, const vn_results *r,
                         const char *written)
{
    if (!vn_cli_store_wanted(st))
        return VN_EXIT_OK;
    vn_buf b;
    vn_buf_init(&b, VN_RESULTS_BUF_MAX);
    int rc = vn_report_results_json(r, &b);
    int status = rc ? vn_cli_fail(cmd, "the results were not stored: %s", vn_strerror(rc))
                    : vn_cli_store_json(cmd, st, &b, written);
    vn_buf_free(&b);
    return status;
}

static int add_file(vn__store *s, const vn_cli_store *st, const char *path, const char *from)
{
    const char *name = from ? from : !strcmp(path, "-") ? "standard input" : path;
    vn__cmp_side side;
    vn__cmp_side_init(&side);
    int status = vn_cli_read_results(CMD, path, &side);
    if (!status) {
        char source[300], what[300];
        snprintf(source, sizeof source, "%s %s", from ? "program" : "file", name);
        snprintf(what, sizeof what, "'%s'", name);
        int64_t run;
        size_t kept;
        status = store_side(CMD, s, st, source, &side, what, &run, &kept);
        if (!status && kept < side.nbench)
            printf("stored '%s': %zu of its %zu benchmarks (the others have no value: failed, or an "
                   "upper bound), run %lld\n", name, kept, side.nbench, (long long)run);
        else if (!status)
            printf("stored '%s': %zu benchmark%s, run %lld\n", name, kept, kept == 1 ? "" : "s",
                   (long long)run);
        if (!status)
            print_learned(stderr, CMD, s, &side, run);
    }
    vn__cmp_side_free(&side);
    return status;
}

int cmd_store(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage(stdout);
        return vn_cli_flushed(CMD);
    }
    if (argc < 2 || strcmp(argv[1], "add"))
        return vn_cli_usage_error(CMD, argc < 2 ? "which? 'vernier store add FILE...'"
                                                : "unknown action '%s': 'vernier store add FILE...'",
                                  argv[1]);
    argc--, argv++;
    static const struct option longopts[] = {
        VN_CLI_STORE_OPTIONS,
        {"time", required_argument, NULL, 't'},
        {"from", required_argument, NULL, 'f'},
        {"samples", no_argument, NULL, VN_CLI_OPT_SAMPLES},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    vn_cli_store st = {0};
    const char *from = NULL;
    int c;
    while ((c = vn_cli_getopt("store add", argc, argv, "h", longopts)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return vn_cli_flushed(CMD);
        }
        if (c == '?')
            return VN_EXIT_USAGE;
        if (c == 'f') {
            from = optarg;
            continue;
        }
        if (c == 't') {
            char *end;
            errno = 0;
            st.time = strtod(optarg, &end);
            if (!optarg[0] || *end || errno || !(st.time > 0))
                return vn_cli_usage_error(CMD, "--time needs seconds since 1970, not '%s'", optarg);
            continue;
        }
        if (vn_cli_store_opts(CMD, c, optarg, &st))
            return VN_EXIT_USAGE;
    }
    if (optind >= argc)
        return vn_cli_usage_error(CMD, "no FILE to store");
    vn__store *s;
    char why[512];
    if (vn__store_open(st.url, &s, why, sizeof why) != 0)
        return vn_cli_fail(CMD, "cannot use the store '%s': %s", st.url ? st.url : "(default)", why);
    int status = VN_EXIT_OK;
    for (int i = optind; i < argc && !status; i++)
        status = add_file(s, &st, argv[i], from);
    vn__store_close(s);
    if (!status)
        status = vn_cli_flushed(CMD);
    return status;
}
#endif
