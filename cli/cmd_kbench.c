/* vernier kbench: kernel functions timed per call by the vernier_kbench
 * module, read from its sysfs files and reported like any other results.
 * It loads nothing: the module must be loaded already. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "kbench.h"

#define CMD "kbench"
#define MAX_TARGETS 64
#define MAX_PARAMS 16
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
            "off the others. Setting the module's knobs needs root.\n"
            "\n"
            "Options:\n"
            "  --list               list the targets and their settings, run nothing\n"
            "  --loop-count N       timed calls a target (1 to 1000000; default 10000)\n"
            "  --warmup N           untimed calls before them (0 to 1000000; default 100)\n"
            "  --irqs-off           run with interrupts and preemption off\n"
            "  --param NAME=VALUE   set a target's own setting NAME, for every target\n"
            "                       that has one (fib_lookup: dst)\n"
            "  --dst A.B.C.D        the destination fib_lookup routes (--param dst=)\n"
            "  --hist               also draw each target's distribution\n"
            "  --json FILE          also write vernier.results/1 JSON to FILE; '-' writes\n"
            "                       only the JSON to standard output\n"
            "  -h, --help           show this help\n"
            "\n"
            "Environment: VERNIER_KBENCH_SYSFS, the module's folder instead of\n"
            "/sys/kernel/vernier.\n"
            "\n"
            "Exit status: 0 on success, 1 when the module is not loaded, a knob cannot\n"
            "be set (not root) or a run fails, 2 for a usage error or an unknown\n"
            "target.\n");
}

typedef struct kb_opts {
    const char *root, *json;
    long loop_count, warmup;
    int irqs_off, hist, list;
    const char *param[MAX_PARAMS]; /* NAME=VALUE */
    size_t nparam;
} kb_opts;

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folders under root, sorted, "empty" first: the module's targets. */
static int list_targets(const char *root, char **names, size_t *n)
{
    DIR *d = opendir(root);
    if (!d) {
        if (errno == ENOENT && getenv("VERNIER_KBENCH_SYSFS"))
            return vn_cli_fail(CMD, "VERNIER_KBENCH_SYSFS names %s, which does not exist; unset it "
                               "for the module's own folder, or point it at one", root);
        if (errno == ENOENT)
            return vn_cli_fail(CMD, "%s not found: load the module (sudo insmod "
                               "kernel/vernier_kbench.ko)", root);
        return vn_cli_fail(CMD, "cannot read %s: %s", root, strerror(errno));
    }
    struct dirent *e;
    *n = 0;
    while ((e = readdir(d)) && *n < MAX_TARGETS)
        if (e->d_name[0] != '.' && e->d_type == DT_DIR && (names[*n] = strdup(e->d_name)))
            (*n)++;
    closedir(d);
    qsort(names, *n, sizeof *names, by_name);
    for (size_t i = 1; i < *n; i++)
        if (!strcmp(names[i], "empty")) {
            char *e = names[i];
            memmove(names + 1, names, i * sizeof *names);
            names[0] = e;
        }
    return *n ? VN_EXIT_OK : vn_cli_fail(CMD, "%s holds no targets: reload the module", root);
}

static int is_root_error(int e)
{
    return e == EACCES || e == EPERM || e == EROFS;
}

/* Writes value to root/target/file. 0, else 1 or 2 after a message. */
static int set_knob(const char *root, const char *target, const char *file, const char *value)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/%s", root, target, file);
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    int e = fd < 0 ? errno : 0;
    if (fd >= 0) {
        size_t len = strlen(value);
        if (write(fd, value, len) != (ssize_t)len)
            e = errno ? errno : EIO;
        if (close(fd) && !e)
            e = errno;
    }
    if (!e)
        return 0;
    if (is_root_error(e))
        return vn_cli_fail(CMD, "cannot set %s: %s; setting the module's knobs needs root "
                           "(sudo)", path, strerror(e));
    if (e == EINVAL)
        return vn_cli_usage_error(CMD, "the module refused %s for %s/%s", value, target, file);
    return vn_cli_fail(CMD, "cannot set %s: %s", path, strerror(e));
}

/* Reads root/target/file whole into b. 0, else 1 after a message. */
static int read_file(const char *root, const char *target, const char *file, vn_buf *b)
{
    char path[512], chunk[65536];
    snprintf(path, sizeof path, "%s/%s/%s", root, target, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (is_root_error(e))
            return vn_cli_fail(CMD, "cannot read %s: %s; running the module needs root (sudo)",
                               path, strerror(e));
        return vn_cli_fail(CMD, "cannot read %s: %s", path, strerror(e));
    }
    ssize_t got;
    int rc = 0;
    while ((got = read(fd, chunk, sizeof chunk)) > 0)
        if ((rc = vn_buf_append(b, chunk, (size_t)got)) != 0)
            break;
    int e = errno;
    close(fd);
    if (got < 0)
        return vn_cli_fail(CMD, "cannot read %s: %s", path, strerror(e));
    if (rc)
        return vn_cli_fail(CMD, "cannot read %s: %s", path, vn_strerror(rc));
    return 0;
}

static int has_file(const char *root, const char *target, const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/%s", root, target, file);
    return access(path, F_OK) == 0;
}

/* Sets the knobs of one target, runs it and reads its calls into row. */
static int run_target(const kb_opts *o, const char *target, vn__kbench_row *row)
{
    char v[32];
    int rc = 0;
    if (o->loop_count >= 0 && !rc)
        snprintf(v, sizeof v, "%ld\n", o->loop_count), rc = set_knob(o->root, target, "loop_count", v);
    if (o->warmup >= 0 && !rc)
        snprintf(v, sizeof v, "%ld\n", o->warmup), rc = set_knob(o->root, target, "warmup", v);
    if (!rc)
        rc = set_knob(o->root, target, "irqs_off", o->irqs_off ? "1\n" : "0\n");
    for (size_t i = 0; i < o->nparam && !rc; i++) {
        char name[64];
        const char *eq = strchr(o->param[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - o->param[i]), o->param[i]);
        if (has_file(o->root, target, name))
            rc = set_knob(o->root, target, name, eq + 1);
    }
    if (rc)
        return rc;
    vn_buf b;
    vn_buf_init(&b, SAMPLES_MAX);
    snprintf(row->name, sizeof row->name, "%s", target);
    rc = read_file(o->root, target, "run", &b);
    if (!rc && vn__kbench_parse_run(b.data ? b.data : "", &row->cycles))
        rc = vn_cli_fail(CMD, "%s/%s/run: not the module's summary; is the module from "
                         "this version of vernier?", o->root, target);
    vn_buf_reset(&b);
    if (!rc)
        rc = read_file(o->root, target, "samples", &b);
    if (!rc && vn__kbench_parse_samples(b.data ? b.data : "", b.len, &row->samples, &row->n))
        rc = vn_cli_fail(CMD, "%s/%s/samples: not one count a line", o->root, target);
    if (!rc && row->n != row->cycles.count)
        rc = vn_cli_fail(CMD, "%s: the module ran %llu calls but kept %zu samples; run again "
                         "(another run may have replaced them)", target,
                         (unsigned long long)row->cycles.count, row->n);
    vn_buf_free(&b);
    return rc;
}

static int list(const kb_opts *o, char **names, size_t n)
{
    static const char *const knobs[] = {"loop_count", "warmup", "irqs_off", "dst"};
    vn_buf out, b;
    vn_buf_init(&out, 0);
    vn_buf_init(&b, 4096);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        rc = vn_buf_printf(&out, "%-16s", names[i]);
        for (size_t k = 0; k < sizeof knobs / sizeof *knobs && !rc; k++) {
            if (!has_file(o->root, names[i], knobs[k]))
                continue;
            vn_buf_reset(&b);
            if ((rc = read_file(o->root, names[i], knobs[k], &b)) != 0)
                break;
            rc = vn_buf_printf(&out, " %s=%.*s", knobs[k], (int)strcspn(b.data ? b.data : "", "\n"),
                               b.data ? b.data : "");
        }
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
    return vn_cli_report_results(CMD, r, o->json, o->hist, vn_cli_report_flags(stdout));
}

/* Runs the targets (empty too, for the overhead, shown only when asked)
 * and reports them. */
static int measure(const kb_opts *o, char **run, size_t nrun, int show_empty)
{
    const vn_calibration *cal = vn_counter_calibration();
    if (!cal || !(cal->hz > 0))
        return vn_cli_fail(CMD, "the time stamp counter cannot be calibrated here, so its "
                           "counts cannot become nanoseconds; see 'vernier clocks'");
    vn__kbench_row rows[MAX_TARGETS + 1];
    memset(rows, 0, sizeof rows);
    int rc = 0;
    size_t n = 0;
    for (; n < nrun && !rc; n++)
        rc = run_target(o, run[n], &rows[n]);
    vn_results r;
    memset(&r, 0, sizeof r);
    if (!rc) {
        int err = vn__kbench_results(rows, n, cal->hz, &r);
        if (err)
            rc = vn_cli_fail(CMD, "cannot make the results: %s", vn_strerror(err));
    }
    for (size_t i = 0; i < n; i++)
        free(rows[i].samples);
    if (rc)
        return rc;
    if (!show_empty) {
        /* The empty target ran first, for the overhead only. */
        free(r.bench[0].samples);
        memmove(&r.bench[0], &r.bench[1], (r.nbench - 1) * sizeof *r.bench);
        r.nbench--;
    }
    int err = vn_sysinfo_collect(&r.env);
    if (err) {
        vn_results_free(&r);
        return vn_cli_fail(CMD, "cannot read the machine's settings: %s", vn_strerror(err));
    }
    r.config.min_samples = r.config.max_samples = o->loop_count >= 0 ? (size_t)o->loop_count
                                                                      : r.bench[0].nsamples;
    snprintf(r.note, sizeof r.note, "kernel functions timed per call by vernier_kbench%s; "
             "%.4g GHz counter calibrated in user space",
             o->irqs_off ? " with interrupts and preemption off" : "", cal->hz / 1e9);
    rc = report(o, &r);
    vn_results_free(&r);
    return rc;
}

static int parse_opts(int argc, char **argv, kb_opts *o)
{
    enum { O_LIST = 256, O_LOOP, O_WARMUP, O_IRQS, O_PARAM, O_DST, O_HIST, O_JSON };
    static const struct option longopts[] = {
        {"list", no_argument, NULL, O_LIST},
        {"loop-count", required_argument, NULL, O_LOOP},
        {"warmup", required_argument, NULL, O_WARMUP},
        {"irqs-off", no_argument, NULL, O_IRQS},
        {"param", required_argument, NULL, O_PARAM},
        {"dst", required_argument, NULL, O_DST},
        {"hist", no_argument, NULL, O_HIST},
        {"json", required_argument, NULL, O_JSON},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static char dst[64];
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
        case O_DST:
            snprintf(dst, sizeof dst, "dst=%s", optarg);
            optarg = dst;
            /* fall through */
        case O_PARAM: {
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
    kb_opts o = {.loop_count = -1, .warmup = -1};
    int rc = parse_opts(argc, argv, &o);
    if (rc)
        return rc < 0 ? vn_cli_flushed(CMD) : rc;
    const char *env = getenv("VERNIER_KBENCH_SYSFS");
    o.root = env && *env ? env : "/sys/kernel/vernier";
    char *names[MAX_TARGETS], *run[MAX_TARGETS + 1];
    size_t n = 0, nrun = 0;
    if ((rc = list_targets(o.root, names, &n)) != 0)
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
        } else if (nrun <= MAX_TARGETS) {
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
            found = has_file(o.root, run[k], name);
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
