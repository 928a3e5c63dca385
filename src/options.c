/* Command-line messages: see options.h. */
#include "options.h"

#include <stdio.h>
#include <string.h>

void vn__option_error(char *msg, size_t len, int c, const char *arg, int opt,
                      const struct option *longopts)
{
    if (c == ':') {
        snprintf(msg, len, "option '%s' needs a value", arg);
        return;
    }
    if (strncmp(arg, "--", 2) != 0) {
        if (opt > 0 && opt < 256)
            snprintf(msg, len, "unknown option '-%c'", opt);
        else
            snprintf(msg, len, "unknown option '%s'", arg);
        return;
    }
    const char *name = arg + 2, *eq = strchr(name, '=');
    size_t n = eq ? (size_t)(eq - name) : strlen(name);
    /* The options the word names: itself, or those it abbreviates. */
    const struct option *exact = NULL, *first = NULL;
    int prefixed = 0;
    for (const struct option *o = longopts; o->name; o++) {
        if (strncmp(o->name, name, n) != 0)
            continue;
        if (strlen(o->name) == n)
            exact = o;
        prefixed++;
        if (!first)
            first = o;
    }
    const struct option *o = exact ? exact : prefixed == 1 ? first : NULL;
    if (o && eq && o->has_arg == no_argument) {
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
