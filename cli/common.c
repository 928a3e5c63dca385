/* What every subcommand shares: error messages, option parsing, output files. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "base/options.h"
#include "base/fileutil.h"
#include "base/format.h"

int vn_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "vernier %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "; see 'vernier %s --help'\n", cmd);
    va_end(ap);
    return VN_EXIT_USAGE;
}

int vn_cli_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "vernier %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return VN_EXIT_FAIL;
}

int vn_cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
                  const struct option *longopts)
{
    /* A leading ':' makes getopt report a missing argument as ':' and stay
     * silent, so the messages below are the only ones printed. */
    char spec[64];
    /* A leading '+' (stop at the first operand) must stay first. */
    if (shortopts[0] == '+')
        snprintf(spec, sizeof spec, "+:%s", shortopts + 1);
    else
        snprintf(spec, sizeof spec, ":%s", shortopts);
    opterr = 0;
    int c = getopt_long(argc, argv, spec, longopts, NULL);
    if (c == '?' || c == ':') {
        char msg[512];
        vn__option_error(msg, sizeof msg, c, argv[optind - 1], optopt, longopts);
        vn_cli_usage_error(cmd, "%s", msg);
        return '?';
    }
    return c;
}

unsigned vn_cli_report_flags(FILE *f)
{
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        return 0;
    return isatty(fileno(f)) ? VN_REPORT_COLOR : 0;
}

int vn_cli_write(const char *cmd, const char *path, const vn_buf *buf)
{
    if (strcmp(path, "-") == 0)
        fflush(stdout);
    int rc = vn_write_file_atomic(path, buf->data ? buf->data : "", buf->len);
    if (rc) {
        char msg[VN__WRITE_ERROR_MAX];
        return vn_cli_fail(cmd, "%s", vn__write_error(msg, sizeof msg, path, rc));
    }
    return VN_EXIT_OK;
}

int vn_cli_print(const char *cmd, const vn_buf *buf)
{
    if (buf->len && fwrite(buf->data, 1, buf->len, stdout) != buf->len)
        return vn_cli_fail(cmd, "cannot write to standard output: %s", strerror(errno));
    return vn_cli_flushed(cmd);
}

int vn_cli_flushed(const char *cmd)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return VN_EXIT_OK;
    /* The reason (no space left on device, a reader that left) says what
     * to do: errno still holds it when the write that failed was an
     * earlier one, since stdio sets it then and later writes fail alike. */
    const char *why = errno ? strerror(errno) : "an earlier write failed";
    if (cmd)
        return vn_cli_fail(cmd, "cannot write to standard output: %s", why);
    fprintf(stderr, "vernier: cannot write to standard output: %s\n", why);
    return VN_EXIT_FAIL;
}

int vn_cli_std_closed[3];

void vn_cli_guard_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) >= 0)
            continue;
        vn_cli_std_closed[fd] = 1;
        int n = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
        if (n >= 0 && n != fd) {
            dup2(n, fd);
            close(n);
        }
    }
}

int vn_cli_is_stdout(const char *path)
{
    return path && (!strcmp(path, "-") || vn__is_stdout(path));
}

int vn_cli_check_not_input(const char *cmd, const char *opt, const char *out,
                           const char *const *inputs, size_t n)
{
    if (!out || !strcmp(out, "-"))
        return VN_EXIT_OK;
    for (size_t i = 0; i < n; i++)
        if (inputs[i] && strcmp(inputs[i], "-") && vn__same_file(out, inputs[i]))
            return vn_cli_usage_error(cmd, "%s '%s' is the input '%s': writing it would destroy "
                                           "it; write the output elsewhere", opt, out, inputs[i]);
    return VN_EXIT_OK;
}

int vn_cli_check_path(const char *cmd, const char *opt, const char *path)
{
    if (!path || !*path)
        return vn_cli_usage_error(cmd, "%s needs a file name, or '-' for standard output", opt);
    return VN_EXIT_OK;
}

int vn_cli_parse_size(const char *cmd, const char *opt, const char *s, size_t lo, size_t hi,
                      size_t *out)
{
    unsigned long long v;
    if (vn__parse_digits(s, &v) || v < lo || v > hi)
        return vn_cli_usage_error(cmd, "%s needs an integer from %zu to %zu, not '%s'", opt, lo,
                                  hi, s);
    *out = (size_t)v;
    return 0;
}

int vn_cli_parse_threshold(const char *cmd, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !(v >= 0 && v < 100))
        return vn_cli_usage_error(cmd, "--threshold needs a percentage from 0 to below 100, "
                                       "not '%s'", s);
    *out = v / 100;
    return 0;
}

int vn_cli_slurp(const char *cmd, const char *path, vn_buf *in)
{
    int from_stdin = !strcmp(path, "-");
    const char *name = from_stdin ? "standard input" : path;
    if (from_stdin && vn_cli_std_closed[0])
        return vn_cli_fail(cmd, "cannot read standard input: descriptor 0 is not open; give a file");
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return vn_cli_fail(cmd, "cannot open '%s': %s; check the path", path, strerror(errno));
    char chunk[65536];
    size_t got;
    int rc = 0;
    while (!rc && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
        rc = vn_buf_append(in, chunk, got);
    int bad = ferror(f);
    if (!from_stdin)
        fclose(f);
    /* The reader wants a terminating NUL past the text. */
    if (!rc && !bad && (rc = vn_buf_append(in, "", 1)) == 0)
        in->len--;
    if (rc)
        return vn_cli_fail(cmd, "'%s' is too large to read (more than %zu MiB)", name, in->max >> 20);
    if (bad)
        return vn_cli_fail(cmd, "cannot read '%s': %s", name, strerror(errno));
    return VN_EXIT_OK;
}

int vn_cli_report_results(const char *cmd, const vn_results *r, const char *json, int hist,
                          unsigned flags)
{
    vn_buf b;
    vn_buf_init(&b, 0);
    int status = VN_EXIT_OK, rc;
    if (json) {
        rc = vn_report_results_json(r, &b);
        status = rc ? vn_cli_fail(cmd, "cannot format the JSON report: %s", vn_strerror(rc))
                    : vn_cli_write(cmd, json, &b);
    }
    if (status == VN_EXIT_OK && !vn_cli_is_stdout(json)) {
        vn_buf_reset(&b);
        rc = vn_report_results_text(r, flags, &b);
        if (!rc && hist && !(rc = vn_buf_puts(&b, "\n")))
            rc = vn_report_results_hist(r, flags, &b);
        status = rc ? vn_cli_fail(cmd, "cannot format the report: %s", vn_strerror(rc))
                    : vn_cli_print(cmd, &b);
    }
    vn_buf_free(&b);
    return status;
}
