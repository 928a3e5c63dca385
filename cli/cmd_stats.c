/* vernier stats: the statistics of numbers read from a file or a pipe, with
 * the same summary, JSON and histogram the engine writes for its samples. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "parse/numbers_parse.h"

#define CMD "stats"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: vernier stats [OPTIONS] [FILE|-]\n"
            "\n"
            "Summarize numbers, one per line, read from FILE or standard input: median\n"
            "with a distribution-free 95%% CI, mean with a t-interval, stddev, MAD,\n"
            "percentiles, Tukey outliers, modes (Silverman's test) and drift over the\n"
            "order of the values.\n"
            "Blank lines and lines starting with '#' are skipped.\n"
            "\n"
            "Options:\n"
            "  --column N   read field N (from 1) of each line: comma separated when the\n"
            "               first line that is not blank or a comment has a comma, else\n"
            "               separated by spaces or tabs; a first such line whose field N\n"
            "               is not a number is a header\n"
            "  --unit NAME  the unit of the values, shown after them; 'ns' shows\n"
            "               durations scaled to us, ms and s\n"
            "  --hist       also draw the distribution and the cumulative distribution\n"
            "  --json FILE  also write vernier.stats/1 JSON to FILE; '-' writes only\n"
            "               the JSON to standard output\n"
            "  -h, --help   show this help\n"
            "\n"
            "Input of up to 256 MiB is read (some 25 million numbers); a UTF-8\n"
            "byte-order mark at its start is skipped.\n"
            "\n"
            "Exit status: 0 on success, 1 when the input cannot be read, holds no\n"
            "numbers or something that is not a finite number, or spreads too wide\n"
            "for a double, or the JSON file cannot be written; 2 for a usage error.\n");
}

/* How many bytes of s come before its first control character. */
static size_t printing(const char *s)
{
    size_t n = 0;
    while (s[n] && (unsigned char)s[n] >= 0x20 && s[n] != 0x7f)
        n++;
    return n;
}

/* The whole input, file or pipe, in one buffer (at most VN_BUF_DEFAULT_MAX
 * bytes, far more than any list of measurements). */
static int read_all(FILE *in, const char *name, vn_buf *b)
{
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, in)) > 0)
        if (vn_buf_append(b, chunk, got))
            return vn_cli_fail(CMD, "'%s' is too large to read (more than %zu MiB); summarize "
                               "a sample of it, or split it", name, b->max >> 20);
    if (ferror(in))
        return vn_cli_fail(CMD, "cannot read '%s': %s; give a file of numbers, or '-' for "
                           "standard input", name, strerror(errno));
    return VN_EXIT_OK;
}

int cmd_stats(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"column", required_argument, NULL, 'c'},
        {"unit", required_argument, NULL, 'u'},
        {"hist", no_argument, NULL, 'H'},
        {"json", required_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *json_path = NULL, *unit = NULL;
    size_t column = 0;
    int hist = 0, c;
    optind = 1;
    while ((c = vn_cli_getopt(CMD, argc, argv, "h", longopts)) != -1) {
        switch (c) {
        case 'c':
            if (vn_cli_parse_size(CMD, "--column", optarg, 1, 1000000, &column))
                return VN_EXIT_USAGE;
            break;
        case 'u':
            if (!optarg[0] || strlen(optarg) > 32 || printing(optarg) != strlen(optarg))
                return vn_cli_usage_error(CMD, "--unit needs a name of 1 to 32 bytes, with no "
                                               "control characters");
            unit = optarg;
            break;
        case 'H':
            hist = 1;
            break;
        case 'j':
            if (vn_cli_check_path(CMD, "--json", optarg))
                return VN_EXIT_USAGE;
            json_path = optarg;
            break;
        case 'h':
            usage(stdout);
            return vn_cli_flushed(CMD);
        default:
            return VN_EXIT_USAGE;
        }
    }
    if (argc - optind > 1)
        return vn_cli_usage_error(CMD, "unexpected argument '%s'; give one FILE", argv[optind + 1]);
    const char *path = optind < argc ? argv[optind] : "-";
    if (vn_cli_check_not_input(CMD, "--json", json_path, &path, 1))
        return VN_EXIT_USAGE;
    int from_stdin = strcmp(path, "-") == 0;
    if (from_stdin && vn_cli_std_closed[0])
        return vn_cli_fail(CMD, "cannot read standard input: descriptor 0 is not open; give a FILE");
    const char *name = from_stdin ? "standard input" : path;

    vn_buf in;
    vn_buf_init(&in, 0);
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        int e = errno;
        vn_buf_free(&in);
        return vn_cli_fail(CMD, "cannot open '%s': %s; check the path, or give '-' for standard "
                           "input", path, strerror(e));
    }
    int status = read_all(f, name, &in);
    if (!from_stdin)
        fclose(f);
    if (status) {
        vn_buf_free(&in);
        return status;
    }

    double *x = NULL;
    size_t n = 0;
    vn__numbers_error perr;
    int rc = vn__parse_numbers(in.data, in.len, column, &x, &n, &perr);
    vn_buf_free(&in);
    if (rc == VN_EINVAL) {
        char msg[160];
        return vn_cli_fail(CMD, "%s%s%s", from_stdin ? "" : path, from_stdin ? "" : ": ",
                           vn__numbers_strerror(&perr, column, msg, sizeof msg));
    }
    if (rc)
        return vn_cli_fail(CMD, "cannot read the numbers: %s", vn_strerror(rc));
    if (n == 0) {
        free(x);
        return vn_cli_fail(CMD, "no numbers in %s%s%s; give one number per line", from_stdin ? "" : "'",
                           name, from_stdin ? "" : "'");
    }

    vn_stats st;
    rc = vn_stats_compute(x, n, &st);
    if (rc) {
        free(x);
        return vn_cli_fail(CMD, "cannot summarize the numbers: %s%s", vn_strerror(rc),
                           rc == VN_ERANGE ? " (their spread, or the interval of their mean, is too large "
                                             "for a double); give them in a larger unit" : "");
    }

    vn_buf out;
    vn_buf_init(&out, 0);
    if (json_path) {
        vn_histogram h = {0};
        rc = vn_histogram_compute_fenced(x, n, 0, &h);
        if (!rc)
            rc = vn_report_stats_json(&st, &h, unit, &out);
        vn_histogram_free(&h);
        if (rc)
            status = vn_cli_fail(CMD, "cannot format the JSON report: %s", vn_strerror(rc));
        else
            status = vn_cli_write(CMD, json_path, &out);
    }
    /* With "--json -" standard output carries the JSON alone, so a pipe into
     * a JSON reader is not broken by the text report. */
    if (status == VN_EXIT_OK && !vn_cli_is_stdout(json_path)) {
        vn_buf_reset(&out);
        unsigned flags = vn_cli_report_flags(stdout);
        rc = vn_report_stats_text(&st, unit, flags, &out);
        if (!rc && hist && !(rc = vn_buf_puts(&out, "\n")))
            rc = vn_report_histogram_text(x, n, unit, flags, &out);
        if (rc)
            status = vn_cli_fail(CMD, "cannot format the report: %s", vn_strerror(rc));
        else
            status = vn_cli_print(CMD, &out);
    }
    vn_buf_free(&out);
    free(x);
    return status;
}
