/* vernier report: results files made into one self-contained HTML page,
 * its plots drawn by gnuplot (src/htmlreport/); and the same page for
 * vernier run's and vernier suite's --report. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#ifdef VN_NO_COMPARE
/* A build without cJSON (the aarch64 cross build of the tests) reads no
 * results files, so it draws no page. */
int vn_cli_report_from(const char *cmd, vn_buf *json, const char *path)
{
    (void)json, (void)path;
    return vn_cli_fail(cmd, "this build has no vernier report (it is built without cJSON)");
}
#else
#include "base/fileutil.h"
#include "htmlreport/report.h"

#define CMD "report"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: vernier report [OPTIONS] FILE... -o FILE\n"
            "       vernier report [OPTIONS] BASE... -- NEW... -o FILE\n"
            "\n"
            "Make one self-contained HTML page of results (nothing to fetch to view it): per\n"
            "benchmark a histogram and a CDF of its samples with the median and its 95%%\n"
            "interval marked; for a sweep (rows of one numeric parameter) the medians\n"
            "against it on log axes with their intervals and the complexity fit; the\n"
            "machine, its warnings, the clock, the configuration and the findings as\n"
            "tables. Files before and after '--' are two sides, compared as 'vernier\n"
            "compare' does: the ratios drawn as bars with their intervals, coloured by\n"
            "verdict. A FILE is any results file 'vernier compare' reads; '-' reads\n"
            "standard input. The plots are drawn by gnuplot (Debian: gnuplot-nox).\n"
            "\n"
            "Options:\n"
            "  -o, --output FILE  write the page to FILE (needed)\n"
            "  --png DIR          also write every plot as a PNG image into DIR\n"
            "  --threshold PCT    with two sides, a change smaller than PCT percent is no\n"
            "                     change (the precision vernier's files were measured to,\n"
            "                     else 2)\n"
            "  -h, --help         show this help\n"
            "\n"
            "Exit status: 0 when the page was written, 1 when a file cannot be read or\n"
            "written, or gnuplot is missing or fails, 2 for a usage error.\n");
}

typedef struct opts {
    const char *output, *png;
    double threshold;
    int threshold_given;
    char **files;
    size_t nbase, nfiles;
} opts;

/* One run of getopt over argv[0..argc): the options, and the operands
 * left at the end (GNU order), which are files. */
static int options(int argc, char **argv, opts *o, char ***operands, size_t *n)
{
    enum { O_PNG = 1000, O_THRESHOLD };
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"png", required_argument, NULL, O_PNG},
        {"threshold", required_argument, NULL, O_THRESHOLD},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 0; /* a second vector (after "--") needs getopt started afresh */
    while ((c = vn_cli_getopt(CMD, argc, argv, "ho:", longopts)) != -1) {
        switch (c) {
        case 'o':
            if (!*optarg || !strcmp(optarg, "-"))
                return vn_cli_usage_error(CMD, "-o needs a file name for the page");
            o->output = optarg;
            break;
        case O_PNG:
            if (!*optarg)
                return vn_cli_usage_error(CMD, "--png needs a folder");
            o->png = optarg;
            break;
        case O_THRESHOLD:
            if (vn_cli_parse_threshold(CMD, optarg, &o->threshold))
                return VN_EXIT_USAGE;
            o->threshold_given = 1;
            break;
        case 'h':
            usage(stdout);
            return -1;
        default:
            return VN_EXIT_USAGE;
        }
    }
    *operands = argv + optind;
    *n = (size_t)(argc - optind);
    return 0;
}

/* Options anywhere; files before a "--" are BASE, after it NEW. */
static int parse(int argc, char **argv, opts *o)
{
    int split = argc;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--")) {
            split = i;
            break;
        }
    char **base, **new_ = NULL;
    size_t nbase, nnew = 0;
    int status = options(split, argv, o, &base, &nbase);
    if (!status && split < argc)
        status = options(argc - split, argv + split, o, &new_, &nnew);
    if (status)
        return status;
    if (split < argc && (!nbase || !nnew))
        return vn_cli_usage_error(CMD, "give at least one file on each side of '--'");
    if (!nbase)
        return vn_cli_usage_error(CMD, "give at least one results file");
    if (!o->output)
        return vn_cli_usage_error(CMD, "give -o FILE, the page to write");
    o->files = calloc(nbase + nnew, sizeof *o->files);
    if (!o->files)
        return vn_cli_fail(CMD, "out of memory");
    memcpy(o->files, base, nbase * sizeof *base);
    if (nnew)
        memcpy(o->files + nbase, new_, nnew * sizeof *new_);
    o->nbase = nbase;
    o->nfiles = nbase + nnew;
    size_t stdin_uses = 0;
    for (size_t i = 0; i < o->nfiles; i++)
        stdin_uses += !strcmp(o->files[i], "-");
    if (stdin_uses > 1)
        return vn_cli_usage_error(CMD, "standard input ('-') can be read only once");
    return 0;
}

static int write_pngs(const char *cmd, const char *dir, const vn__rep_output *out)
{
    if (mkdir(dir, 0777) && errno != EEXIST)
        return vn_cli_fail(cmd, "cannot make the folder '%s': %s", dir, strerror(errno));
    for (size_t i = 0; i < out->npng; i++) {
        size_t len = strlen(dir) + strlen(out->png[i].name) + 2;
        char *path = malloc(len);
        if (!path)
            return vn_cli_fail(cmd, "out of memory");
        snprintf(path, len, "%s/%s", dir, out->png[i].name);
        int status = vn_cli_write(cmd, path, &out->png[i].data);
        free(path);
        if (status)
            return status;
    }
    return VN_EXIT_OK;
}

/* The page of files, written to path, and the PNGs to png_dir (or not). */
static int make(const char *cmd, const vn__rep_file *files, size_t n, const vn__rep_options *ro,
                const char *path, const char *png_dir)
{
    vn__rep_output out;
    vn__rep_output_init(&out);
    char err[512];
    int rc = vn__rep_make(files, n, ro, &out, err, sizeof err);
    int status = rc ? vn_cli_fail(cmd, "%s", err) : vn_cli_write(cmd, path, &out.html);
    if (!status && png_dir)
        status = write_pngs(cmd, png_dir, &out);
    vn__rep_output_free(&out);
    return status;
}

int vn_cli_report_from(const char *cmd, vn_buf *json, const char *path)
{
    /* The reader wants a '\0' past the text. */
    if (vn_buf_append(json, "", 1))
        return vn_cli_fail(cmd, "out of memory");
    json->len--;
    vn__rep_options ro;
    vn__rep_options_init(&ro);
    vn__rep_file f = {"these results", json->data, json->len, 0};
    return make(cmd, &f, 1, &ro, path, NULL);
}

/* Checked before any work: a typo in a folder is not found after the drawing. */
static int check_outputs(const opts *o)
{
    int rc = vn__output_check(o->output);
    if (rc) {
        char msg[VN__WRITE_ERROR_MAX];
        return vn_cli_fail(CMD, "%s", vn__write_error(msg, sizeof msg, o->output, rc));
    }
    if (vn_cli_check_not_input(CMD, "-o", o->output, (const char *const *)o->files, o->nfiles))
        return VN_EXIT_USAGE;
    struct stat st;
    if (o->png && !stat(o->png, &st) && !S_ISDIR(st.st_mode))
        return vn_cli_fail(CMD, "--png '%s' is a file, not a folder", o->png);
    /* The folder, made later, must be makeable (or writable) now: a page
     * written and then no PNGs would be half a result. */
    if (o->png) {
        int exists = stat(o->png, &st) == 0;
        char *parent = exists ? strdup(o->png) : vn__parent_dir(o->png);
        if (!parent)
            return vn_cli_fail(CMD, "out of memory");
        int ok = access(parent, W_OK | X_OK) == 0;
        int e = errno;
        free(parent);
        if (!ok)
            return vn_cli_fail(CMD, "cannot write the PNGs to '%s': %s; give --png a folder you "
                                    "can write", o->png, strerror(e));
    }
    return 0;
}

int cmd_report(int argc, char **argv)
{
    opts o = {0};
    vn__rep_options ro;
    vn__rep_options_init(&ro);
    o.threshold = ro.cmp.threshold;
    int status = parse(argc, argv, &o);
    if (!status)
        status = check_outputs(&o);
    vn_buf *in = status ? NULL : calloc(o.nfiles, sizeof *in);
    vn__rep_file *files = status ? NULL : calloc(o.nfiles, sizeof *files);
    if (!status && (!in || !files))
        status = vn_cli_fail(CMD, "out of memory");
    size_t nread = 0;
    for (; !status && nread < o.nfiles; nread++) {
        vn_buf_init(&in[nread], 0);
        status = vn_cli_slurp(CMD, o.files[nread], &in[nread]);
        const char *name = o.files[nread];
        files[nread] = (vn__rep_file){!strcmp(name, "-") ? "standard input" : name,
                                      in[nread].data ? in[nread].data : "", in[nread].len,
                                      nread >= o.nbase};
    }
    if (!status) {
        ro.cmp.threshold = o.threshold;
        ro.cmp.threshold_from_files = !o.threshold_given;
        ro.png = o.png != NULL;
        status = make(CMD, files, o.nfiles, &ro, o.output, o.png);
    }
    for (size_t i = 0; i < nread; i++)
        vn_buf_free(&in[i]);
    free(in);
    free(files);
    free(o.files);
    return status < 0 ? vn_cli_flushed(CMD) : status;
}
#endif
