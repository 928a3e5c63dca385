/* Google Benchmark's command line in a benchmark program: its
 * --benchmark_* flags turned into the options of the same meaning before
 * the program's own are read, so that a script written for a Google
 * Benchmark binary runs a vernier one unchanged (main/gbench_flags.h). A
 * flag with no such option is refused, naming the nearest one. */
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gbench_flags.h"
#include "base/format.h"
#include "vernier/base.h"

/* Google Benchmark's reading of a boolean flag: an empty value (the flag
 * alone) is true; else the words it takes, in any case. -1: neither. */
static int truthy(const char *v)
{
    static const char *const yes[] = {"", "true", "yes", "1", "on", "y", "t"};
    static const char *const no[] = {"false", "no", "0", "off", "n", "f"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        if (!strcasecmp(v, yes[i]))
            return 1;
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (!strcasecmp(v, no[i]))
            return 0;
    return -1;
}

static int refuse(const char *prog, const char *flag, const char *why)
{
    fprintf(stderr, "%s: %s: %s; see '%s --help'\n", prog, flag, why, prog);
    return 2;
}

static int add(vn__gbench_flags *f, const char *arg)
{
    if ((size_t)f->argc + 2 > f->cap) {
        size_t cap = f->cap * 2 + 8;
        char **a = realloc(f->argv, cap * sizeof *a);
        if (!a)
            return VN_ENOMEM;
        f->argv = a;
        f->cap = cap;
    }
    f->argv[f->argc++] = (char *)arg;
    f->argv[f->argc] = NULL;
    return 0;
}

/* A copy that lives as long as f, for an option's value made here. */
static const char *keep(vn__gbench_flags *f, const char *s)
{
    if (f->nowned == sizeof f->owned / sizeof *f->owned)
        return NULL;
    char *c = strdup(s);
    if (c)
        f->owned[f->nowned++] = c;
    return c;
}

/* The flags that take a value, and those that are booleans. */
static const char *const valued[] = {
    "filter", "out", "out_format", "format", "repetitions", "min_time", "min_warmup_time",
    "time_unit", "context", "perf_counters",
};

static int takes_value(const char *name)
{
    for (size_t i = 0; i < sizeof valued / sizeof *valued; i++)
        if (!strcmp(name, valued[i]))
            return 1;
    return 0;
}

/* A time as Google Benchmark writes one: 0.5 or 0.5s, above 0 (or 0 too
 * when zero is set); -1 otherwise. */
static double seconds(const char *v, int zero)
{
    char *end;
    double x = vn__strtod(v, &end);
    if (end == v || (*end && strcmp(end, "s")) || !(x > 0 || (zero && x == 0)) || x > 86400)
        return -1;
    return x;
}

/* One flag, name without its "--benchmark_", value its text (or "" for a
 * flag alone). 0, 2 after a message, or VN_ENOMEM. */
static int flag(vn__gbench_flags *f, const char *prog, const char *typed, const char *name,
                const char *v)
{
    const char *opt = NULL, *arg = NULL;
    char buf[64];
    if (!strcmp(name, "filter")) {
        if (!*v || !strcmp(v, "all") || !strcmp(v, "."))
            return 0; /* every benchmark */
        if (v[0] == '-') {
            /* Google Benchmark's negative filter: every benchmark but
             * those it matches, resolved against the program's names. */
            if (!v[1])
                return refuse(prog, typed, "needs a regex after the '-'");
            f->negative_filter = v + 1;
            return 0;
        }
        opt = "--filter", arg = v;
    } else if (!strcmp(name, "out")) {
        if (!*v)
            return refuse(prog, typed, "needs a file name (--benchmark_out=FILE)");
        f->out = v;
    } else if (!strcmp(name, "out_format") || !strcmp(name, "format")) {
        int fmt = !strcmp(v, "json") ? VN__GB_JSON : !strcmp(v, "csv") ? VN__GB_CSV
                  : !strcmp(v, "console") ? VN__GB_CONSOLE : -1;
        if (fmt < 0)
            return refuse(prog, typed, "takes json, csv or console");
        if (name[0] == 'o' && fmt == VN__GB_CONSOLE)
            return refuse(prog, typed, "the console's table in a file has no vernier equivalent; "
                                       "give json or csv, or redirect standard output");
        *(name[0] == 'o' ? &f->out_format : &f->format) = fmt;
    } else if (!strcmp(name, "repetitions")) {
        unsigned long long n;
        if (vn__parse_digits(v, &n) != 0 || n < 1 || n > 1000)
            return refuse(prog, typed, "needs a whole number from 1 to 1000");
        /* A repetition is a run of the benchmark timed as one: vernier's
         * is a process. */
        f->repetitions = (int)n;
        snprintf(buf, sizeof buf, "%llu", n);
        opt = "--processes", arg = keep(f, buf);
        if (!arg)
            return VN_ENOMEM;
    } else if (!strcmp(name, "min_time")) {
        size_t len = strlen(v);
        if (len > 1 && v[len - 1] == 'x')
            return refuse(prog, typed, "a fixed count of iterations has no vernier equivalent: "
                                       "vernier sizes its batches itself; give a time "
                                       "(--benchmark_min_time=0.5s, or --max-time SEC)");
        f->min_time = seconds(v, 0);
        if (f->min_time < 0)
            return refuse(prog, typed, "needs seconds above 0, such as 0.5 or 0.5s, or Nx");
    } else if (!strcmp(name, "min_warmup_time")) {
        double w = seconds(v, 1);
        if (w < 0)
            return refuse(prog, typed, "needs seconds, such as 0.5 or 0.5s");
        snprintf(buf, sizeof buf, "%.17g", w);
        opt = "--warmup", arg = keep(f, buf);
        if (!arg)
            return VN_ENOMEM;
    } else if (!strcmp(name, "time_unit")) {
        if (strcmp(v, "ns") && strcmp(v, "us") && strcmp(v, "ms") && strcmp(v, "s"))
            return refuse(prog, typed, "takes ns, us, ms or s");
        f->gb.time_unit = v;
    } else if (!strcmp(name, "context")) {
        /* KEY=VALUE[,KEY=VALUE...] into the file's context. */
        const char *p = v;
        while (*p) {
            const char *end = strchr(p, ',');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            const char *eq = memchr(p, '=', len);
            if (!eq || eq == p)
                return refuse(prog, typed, "takes KEY=VALUE pairs, separated by commas");
            if (f->ncontext == sizeof f->context / sizeof *f->context)
                return refuse(prog, typed, "at most 32 pairs");
            snprintf(buf, sizeof buf, "%.*s", (int)(len < 63 ? len : 63), p);
            const char *pair = keep(f, buf);
            if (!pair)
                return VN_ENOMEM;
            f->context[f->ncontext++] = pair;
            p += len + (end != NULL);
        }
        f->gb.context = f->context;
        f->gb.ncontext = f->ncontext;
    } else if (!strcmp(name, "perf_counters")) {
        /* Its names are libpfm's, in capitals (CYCLES,INSTRUCTIONS):
         * vernier's --counters reads the same, in lower case. */
        char low[512];
        snprintf(low, sizeof low, "%s", v);
        for (char *c = low; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        opt = "--counters", arg = keep(f, low);
        if (!arg)
            return VN_ENOMEM;
    } else {
        int t = truthy(v);
        if (!strcmp(name, "list_tests") || !strcmp(name, "report_aggregates_only") ||
            !strcmp(name, "display_aggregates_only") || !strcmp(name, "enable_random_interleaving") ||
            !strcmp(name, "counters_tabular") || !strcmp(name, "color")) {
            if (t < 0 && !(!strcmp(name, "color") && !strcasecmp(v, "auto")))
                return refuse(prog, typed, "takes true or false");
        }
        if (!strcmp(name, "list_tests")) {
            if (t == 1)
                opt = "--list";
        } else if (!strcmp(name, "report_aggregates_only")) {
            f->gb.aggregates_only = t == 1;
        } else if (!strcmp(name, "display_aggregates_only") || !strcmp(name, "counters_tabular")) {
            /* The console already shows one line a benchmark, with its
             * counters in columns. */
        } else if (!strcmp(name, "enable_random_interleaving")) {
            opt = t == 1 ? "--interleave" : "--no-interleave";
        } else if (!strcmp(name, "color")) {
            f->no_color = t == 0;
        } else {
            char why[160];
            snprintf(why, sizeof why, "a Google Benchmark flag with no vernier equivalent (%s "
                                      "takes --filter, --json, --max-time, --processes, ...)", prog);
            return refuse(prog, typed, why);
        }
    }
    if (opt && (add(f, opt) || (arg && add(f, arg))))
        return VN_ENOMEM;
    return 0;
}

int vn__gbench_flags_take(int argc, char **argv, const char *prog, vn__gbench_flags *f)
{
    memset(f, 0, sizeof *f);
    f->format = VN__GB_CONSOLE;
    f->out_format = VN__GB_JSON;
    if (add(f, argc > 0 ? argv[0] : (char *)prog))
        return VN_ENOMEM;
    int rest = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!rest && !strcmp(a, "--"))
            rest = 1;
        /* --benchmark_x or -benchmark_x, as Google Benchmark reads them. */
        const char *p = rest ? NULL : !strncmp(a, "--benchmark_", 12) ? a + 12
                                    : !strncmp(a, "-benchmark_", 11)  ? a + 11
                                                                      : NULL;
        if (!p) {
            if (add(f, argv[i]))
                return VN_ENOMEM;
            continue;
        }
        f->any = 1;
        char name[64];
        const char *eq = strchr(p, '=');
        size_t len = eq ? (size_t)(eq - p) : strlen(p);
        snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), p);
        const char *v = eq ? eq + 1 : "";
        /* A value in the next word, as getopt would take it. */
        if (!eq && takes_value(name)) {
            if (i + 1 >= argc)
                return refuse(prog, a, "needs a value (--benchmark_NAME=VALUE)");
            v = argv[++i];
        }
        int rc = flag(f, prog, a, name, v);
        if (rc)
            return rc;
    }
    if (f->min_time > 0) {
        /* Its minimum is per repetition; vernier's budget is the
         * benchmark's, all its processes together. */
        char buf[64];
        snprintf(buf, sizeof buf, "%.17g", f->min_time * (f->repetitions > 1 ? f->repetitions : 1));
        const char *arg = keep(f, buf);
        if (!arg || add(f, "--max-time") || add(f, arg))
            return VN_ENOMEM;
    }
    if (f->format == VN__GB_CSV && (add(f, "--csv") || add(f, "-")))
        return VN_ENOMEM;
    if (f->out && f->out_format == VN__GB_CSV) {
        if (add(f, "--csv") || add(f, f->out))
            return VN_ENOMEM;
        f->out = NULL;
    }
    return 0;
}

int vn__gbench_flags_resolve(vn__gbench_flags *f, const char *const *names, size_t n,
                             const char *prog)
{
    if (!f->negative_filter)
        return 0;
    char typed[600];
    snprintf(typed, sizeof typed, "--benchmark_filter=-%.500s", f->negative_filter);
    regex_t re;
    if (regcomp(&re, f->negative_filter, REG_EXTENDED | REG_NOSUB) != 0)
        return refuse(prog, typed, "not a valid regular expression");
    /* The names it leaves, each matched whole: ^(a|b\.c)$. */
    size_t len = 8, kept = 0;
    for (size_t i = 0; i < n; i++)
        len += 2 * strlen(names[i]) + 1;
    char *out = malloc(len), *w = out;
    if (!out) {
        regfree(&re);
        return VN_ENOMEM;
    }
    *w++ = '^';
    *w++ = '(';
    for (size_t i = 0; i < n; i++) {
        if (regexec(&re, names[i], 0, NULL, 0) == 0)
            continue;
        if (kept++)
            *w++ = '|';
        for (const char *c = names[i]; *c; c++) {
            if (strchr(".[]()*+?{}|^$\\", *c))
                *w++ = '\\';
            *w++ = *c;
        }
    }
    *w++ = ')';
    *w++ = '$';
    *w = '\0';
    regfree(&re);
    if (!kept) {
        free(out);
        return refuse(prog, typed, "leaves no benchmark to run");
    }
    if (f->nowned == sizeof f->owned / sizeof *f->owned) {
        free(out);
        return VN_ENOMEM;
    }
    f->owned[f->nowned++] = out;
    return add(f, "--filter") || add(f, out) ? VN_ENOMEM : 0;
}

void vn__gbench_flags_free(vn__gbench_flags *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->nowned; i++)
        free(f->owned[i]);
    free(f->argv);
    memset(f, 0, sizeof *f);
}
