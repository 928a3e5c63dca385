/* Command-line messages: see options.h. */
#include "options.h"

#include <stdio.h>
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

int vn__outputs_usage(const char *const *opts, const char *const *paths, size_t n, int *to_stdout,
                      char *msg, size_t len)
{
    int dash = 0;
    for (size_t i = 0; i < n; i++) {
        if (!paths[i])
            continue;
        if (!*paths[i]) {
            snprintf(msg, len, "%s needs a file name, or '-' for standard output", opts[i]);
            return 1;
        }
        if (!strcmp(paths[i], "-") && dash++) {
            snprintf(msg, len, "only one output can go to standard output ('-')");
            return 1;
        }
        for (size_t k = 0; k < i; k++)
            if (paths[k] && strcmp(paths[i], "-") && !strcmp(paths[i], paths[k])) {
                snprintf(msg, len, "%s and %s would both write '%s'; give each its own file", opts[k],
                         opts[i], paths[i]);
                return 1;
            }
    }
    *to_stdout = dash;
    return 0;
}
