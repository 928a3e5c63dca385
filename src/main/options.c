/* vn_main()'s options: the one table that parsing (main.c), --help and
 * vernier suite (which passes them on) all read, and the checks of their
 * values, each error a line that says what to give instead. */
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/format.h"
#include "base/options.h"
#include "options.h"
#include "options_internal.h"


static const struct {
    struct option opt;
    const char *arg;
    const char *help;
} options[] = {
    {{"list", no_argument, 0, O_LIST}, NULL, "list the benchmarks (after --filter) and exit"},
    {{"filter", required_argument, 0, O_FILTER}, "REGEX", "run only benchmarks whose name matches (POSIX extended)"},
    {{"baseline", required_argument, 0, O_BASELINE}, "NAME", "compare every other row with the row NAME: a ratio column, and a line each with its 95% interval"},
    {{"json", required_argument, 0, O_JSON}, "FILE", "write the results as JSON (vernier.results/1); '-' for stdout"},
    {{"format", required_argument, 0, O_FORMAT}, "vernier|gbench", "the layout of --json: vernier.results/1 (the default), or Google Benchmark's JSON, for its compare.py and the tools that read it"},
    {{"csv", required_argument, 0, O_CSV}, "FILE", "write one CSV row per benchmark; '-' for stdout"},
    {{"raw", no_argument, 0, O_RAW}, NULL, "with --csv: one row per sample instead"},
    {{"markdown", required_argument, 0, O_MD}, "FILE", "write a Markdown table; '-' for stdout"},
    {{"hist", no_argument, 0, O_HIST}, NULL, "show each benchmark's distribution and cumulative graph"},
    {{"report", required_argument, 0, O_REPORT}, "FILE", "at the end, an HTML page of the results with plots, made by 'vernier report' (the tool next to this program or on PATH, and gnuplot)"},
    {{"store", required_argument, 0, O_STORE}, "URL", "at the end, keep the results in the store vernier history reads (a file, sqlite:FILE or postgresql://...; also $VERNIER_STORE), by 'vernier store add'"},
    {{"explain", no_argument, 0, O_EXPLAIN}, NULL, "after the table, what each warning means and what to do, in full"},
    {{"precision", required_argument, 0, O_PRECISION}, "PCT", "stop when the estimate's 95% CI is within +-PCT% (default 1; the ci95 printed, where the next run's time will fall, is sqrt(2) wider)"},
    {{"max-time", required_argument, 0, O_MAXTIME}, "SEC", "time budget per benchmark, all its processes together (default 1)"},
    {{"processes", required_argument, 0, O_PROCESSES}, "N|auto", "measure each benchmark in N fresh processes of this program, one after another, its time the lower quartile of theirs, with its interval across them; 1: in this process only; auto (the default): 2 to 20, as many as their variation asks for"},
    {{"min-samples", required_argument, 0, O_MINSAMPLES}, "N", "take at least N samples (default 10)"},
    {{"max-samples", required_argument, 0, O_MAXSAMPLES}, "N", "take at most N samples (default 10000)"},
    {{"warmup", required_argument, 0, O_WARMUP}, "SEC", "untimed warmup per benchmark (default 0.02)"},
    {{"min-sample-time", required_argument, 0, O_MINSAMPLETIME}, "SEC", "a sample lasts at least SEC (default 0.00025), and 1000 times the timer's cost"},
    {{"cpu", required_argument, 0, O_CPU}, "N", "pin the benchmark thread to CPU N"},
    {{"timer", required_argument, 0, O_TIMER}, "NAME", "time with this clock (see 'vernier clocks')"},
    {{"threads", required_argument, 0, O_THREADS}, "N", "run N threads at once, started together (not with --cpu, --cold, --interleave, --processes above 1 or a CPU-time --timer)"},
    {{"cold", no_argument, 0, O_COLD}, NULL, "evict the caches before each sample (one iteration per sample)"},
    {{"interleave", no_argument, 0, O_INTERLEAVE}, NULL, "the benchmarks take turns, so that those compared meet the same machine (the default): each process runs them one after another in an order of its own; in one process, a sample each"},
    {{"no-interleave", no_argument, 0, O_NO_INTERLEAVE}, NULL, "run each benchmark to its end before the next begins, in the same order in every process"},
    {{"counters", required_argument, 0, O_COUNTERS}, "LIST", "performance counters: 'default', 'none', or names such as instructions,page-faults"},
    {{"dma-latency", required_argument, 0, O_DMA}, "US|auto|off", "keep CPUs out of idle states slower to wake than US microseconds (/dev/cpu_dma_latency, as root); 'auto' (the default) is 0 in a VM and 'off' on bare metal"},
    {{"policy", required_argument, 0, O_POLICY}, "NAME=VALUE,...", "for experiments on the engine: override thresholds of its decision, or switch rules off (docs/engine.md)"},
    {{"quiet", no_argument, 0, O_QUIET}, NULL, "no progress line on stderr"},
    {{"help", no_argument, 0, O_HELP}, NULL, "show this help (also -h)"},
};
#define NOPTIONS (sizeof options / sizeof options[0])
_Static_assert(NOPTIONS == VN__MAIN_NOPTIONS, "VN__MAIN_NOPTIONS is the count of options[]");

size_t vn__main_longopts(struct option *out, size_t n, const char *const *skip)
{
    size_t k = 0;
    for (size_t i = 0; i < NOPTIONS && k < n; i++) {
        int skipped = 0;
        for (const char *const *x = skip; x && *x && !skipped; x++)
            skipped = !strcmp(*x, options[i].opt.name);
        if (!skipped)
            out[k++] = options[i].opt;
    }
    return k;
}

const char *vn__main_prog_name(const char *argv0)
{
    const char *s = argv0 ? strrchr(argv0, '/') : NULL;
    return s ? s + 1 : argv0 ? argv0 : "benchmark";
}

void vn__main_help(const char *prog)
{
    printf("usage: %s [OPTIONS]\n\n"
           "Runs the benchmarks of this program with vernier: calibrated batches, warmup,\n"
           "adaptive sampling until each time is known to +-1%% (95%%), the empty loop subtracted.\n\n"
           "Options:\n",
           prog);
    vn__main_options_help(stdout, NULL);
    printf("\nGoogle Benchmark's flags work too, each as the option of the same meaning:\n"
           "--benchmark_filter, _out, _out_format, _format, _repetitions (processes),\n"
           "_min_time (0.5, 0.5s; per repetition), _min_warmup_time, _list_tests,\n"
           "_report_aggregates_only, _display_aggregates_only, _time_unit,\n"
           "_enable_random_interleaving, _context, _perf_counters, _color, _counters_tabular.\n");
}

void vn__main_options_help(FILE *f, const char *const *skip)
{
    char left[NOPTIONS][40];
    int width = 0, shown[NOPTIONS];
    for (size_t i = 0; i < NOPTIONS; i++) {
        shown[i] = 1;
        for (const char *const *x = skip; x && *x; x++)
            shown[i] &= strcmp(*x, options[i].opt.name) != 0;
        int n = snprintf(left[i], sizeof left[i], "--%s%s%s", options[i].opt.name,
                         options[i].arg ? " " : "", options[i].arg ? options[i].arg : "");
        if (shown[i])
            width = n > width ? n : width;
    }
    /* Each description wrapped at 100 columns under its own first line. */
    vn_buf b;
    vn_buf_init(&b, 0);
    int err = 0;
    for (size_t i = 0; i < NOPTIONS && !err; i++) {
        if (!shown[i])
            continue;
        /* width is at most a left cell's length, so the lead always fits. */
        char lead[sizeof left[0] + 8];
        if (snprintf(lead, sizeof lead, "  %-*s  ", width, left[i]) < (int)sizeof lead)
            err = vn__wrap(&b, lead, (size_t)width + 4, 100, options[i].help);
    }
    if (b.len)
        fwrite(b.data, 1, b.len, f);
    vn_buf_free(&b);
}

int vn__main_usage_error(const char *prog, const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "; see '%s --help'\n", prog);
    return 2;
}

int vn__main_num(const char *prog, const char *opt, const char *s, double lo, double hi, double *out)
{
    char *end;
    *out = NAN; /* set on every path, an error's too */
    double v = vn__strtod(s, &end);
    if (!*s || isspace((unsigned char)*s) || *end || !isfinite(v) || v < lo || v > hi) {
        char range[64];
        char a[32], b[32];
        snprintf(range, sizeof range, "a number from %s to %s", vn__fmt_exact(a, sizeof a, lo),
                 vn__fmt_exact(b, sizeof b, hi));
        fprintf(stderr, "%s: %s needs %s, not '%s'; see '%s --help'\n", prog, opt, range, s, prog);
        return 2;
    }
    *out = v;
    return 0;
}

/* A whole number: decimal digits only, as a count or a CPU number is
 * written (no sign, space, exponent or hex, which num() would take), in
 * lo..hi; what names the kind ("a whole number"). */
int vn__main_whole(const char *prog, const char *opt, const char *s, double lo, double hi,
                   const char *what, double *out)
{
    *out = NAN;
    unsigned long long u;
    double v = vn__parse_digits(s, &u) == 0 ? (double)u : NAN;
    if (!(v >= lo && v <= hi)) {
        fprintf(stderr, "%s: %s needs %s from %.0f to %.0f, not '%s'; see '%s --help'\n", prog, opt,
                what, lo, hi, s, prog);
        return 2;
    }
    *out = v;
    return 0;
}
