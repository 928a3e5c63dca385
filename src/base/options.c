/* Command-line messages: see options.h. */
#include "options.h"
#include "fileutil.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vn__option_error(char *msg, size_t len, int c, const char *arg, int opt,
                      const struct option *longopts)
{
    /* The long option the word names: itself, or the one it abbreviates. */
    const struct option *o = NULL;
    const char *name = NULL, *eq = NULL;
    size_t n = 0;
    int prefixed = 0;
    if (!strncmp(arg, "--", 2)) {
        name = arg + 2;
        eq = strchr(name, '=');
        n = eq ? (size_t)(eq - name) : strlen(name);
        const struct option *exact = NULL, *first = NULL;
        for (const struct option *p = longopts; p->name; p++) {
            if (strncmp(p->name, name, n) != 0)
                continue;
            if (strlen(p->name) == n)
                exact = p;
            prefixed++;
            if (!first)
                first = p;
        }
        o = exact ? exact : prefixed == 1 ? first : NULL;
    }
    /* getopt_long sets optopt to 0 for a long option it does not know, and
     * to the option's value for one it refused; any other value is a short
     * option, which may sit inside a cluster after a long one ("--quiet
     * -xq"), where the word getopt last passed is not the one refused. */
    int is_long = name && (opt == 0 || (o && !o->flag && o->val == opt));
    if (!is_long) {
        if (c == ':')
            snprintf(msg, len, "option '-%c' needs a value", opt);
        else if (opt > 0 && opt < 256)
            snprintf(msg, len, "unknown option '-%c'", opt);
        else
            snprintf(msg, len, "unknown option '%s'", arg);
    } else if (c == ':') {
        snprintf(msg, len, "option '--%s' needs a value", o ? o->name : name);
    } else if (o && eq && o->has_arg == no_argument) {
        snprintf(msg, len, "option '--%s' takes no value", o->name);
    } else if (!o && prefixed > 1) {
        size_t k = (size_t)snprintf(msg, len, "option '--%.*s' is ambiguous: it could be", (int)n, name);
        int i = 0;
        for (const struct option *p = longopts; p->name && k < len; p++)
            if (!strncmp(p->name, name, n))
                k += (size_t)snprintf(msg + k, len - k, "%s --%s", i++ ? "," : "", p->name);
    } else {
        snprintf(msg, len, "unknown option '%.*s'", (int)(n + 2), arg);
    }
}

/* The file path names, as one spelling: its real path when it exists,
 * else its folder's real path and its own name (a.json and ./a.json are one
 * file before either is written); the path itself when the folder is
 * missing too, which the write reports later. */
static void canonical(const char *path, char *out, size_t len)
{
    char real[PATH_MAX];
    if (realpath(path, real)) {
        snprintf(out, len, "%s", real);
        return;
    }
    char d[PATH_MAX], b[PATH_MAX];
    snprintf(d, sizeof d, "%s", path);
    snprintf(b, sizeof b, "%s", path);
    /* A spelling too long for out is cut, and two cut ones may then look
     * alike: a false "same file" only asks for another name. */
    if (!realpath(dirname(d), real) || snprintf(out, len, "%s/%s", real, basename(b)) < 0)
        snprintf(out, len, "%s", path);
}

int vn__outputs_usage(const char *const *opts, const char *const *paths, size_t n, int *to_stdout,
                      char *msg, size_t len)
{
    int dash = 0;
    char here[2 * PATH_MAX + 2], there[sizeof here];
    for (size_t i = 0; i < n; i++) {
        if (!paths[i])
            continue;
        if (!*paths[i]) {
            snprintf(msg, len, "%s needs a file name, or '-' for standard output", opts[i]);
            return 1;
        }
        /* Where stdout goes already is stdout too: the table then goes to stderr. */
        if ((!strcmp(paths[i], "-") || vn__is_stdout(paths[i])) && dash++) {
            snprintf(msg, len, "only one output can go to standard output ('-')");
            return 1;
        }
        if (!strcmp(paths[i], "-"))
            continue;
        canonical(paths[i], here, sizeof here);
        for (size_t k = 0; k < i; k++) {
            if (!paths[k] || !strcmp(paths[k], "-"))
                continue;
            canonical(paths[k], there, sizeof there);
            if (!strcmp(here, there)) {
                if (!strcmp(paths[i], paths[k]))
                    snprintf(msg, len, "%s and %s would both write '%s'; give each its own file",
                             opts[k], opts[i], paths[i]);
                else
                    snprintf(msg, len, "%s '%s' and %s '%s' are the same file; give each its own",
                             opts[k], paths[k], opts[i], paths[i]);
                return 1;
            }
        }
    }
    *to_stdout = dash;
    return 0;
}
