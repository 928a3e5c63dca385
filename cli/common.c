/* What every subcommand shares: error messages, option parsing, output files. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

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
    if (c == '?') {
        const char *arg = argv[optind - 1];
        /* getopt_long reports "--help=1" (a value for an option that takes
         * none) as '?' with optopt set to the option's value. */
        if (!strncmp(arg, "--", 2) && strchr(arg, '='))
            vn_cli_usage_error(cmd, "option '%.*s' takes no value", (int)(strchr(arg, '=') - arg), arg);
        else if (optopt && optopt < 256 && arg[0] == '-' && arg[1] != '-')
            vn_cli_usage_error(cmd, "unknown option '-%c'", optopt);
        else
            vn_cli_usage_error(cmd, "unknown option '%s'", arg);
        return '?';
    }
    if (c == ':') {
        vn_cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
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
    if (rc)
        return vn_cli_fail(cmd, "cannot write '%s': %s; choose a writable path", path,
                           vn_strerror(rc));
    return VN_EXIT_OK;
}

int vn_cli_print(const char *cmd, const vn_buf *buf)
{
    if ((buf->len && fwrite(buf->data, 1, buf->len, stdout) != buf->len) || fflush(stdout) != 0)
        return vn_cli_fail(cmd, "cannot write to standard output");
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
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    /* Digits only: strtoull would also take " 5", "+5" and "-1" (wrapped). */
    if (!isdigit((unsigned char)s[0]) || *end || errno || v < lo || v > hi)
        return vn_cli_usage_error(cmd, "%s needs an integer from %zu to %zu, not '%s'", opt, lo,
                                  hi, s);
    *out = (size_t)v;
    return 0;
}
