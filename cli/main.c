/* vernier: the command-line tool. Dispatches to one function per subcommand. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The one table of subcommands: help, dispatch and error messages read it. */
static const vn_cli_cmd commands[] = {
    {"clocks", "characterize every clock: read cost, resolution, monotonicity, the timer used", cmd_clocks},
#ifndef VN_NO_COMPARE /* a build without cJSON: the aarch64 cross build of the tests */
    {"compare", "compare two sets of results: ratios with intervals, p-values, verdicts", cmd_compare},
#endif
#ifndef VN_NO_COMPARE /* the page is drawn from the files compare reads */
    {"report", "one self-contained HTML page of results, its plots drawn by gnuplot", cmd_report},
#endif
    {"env", "report the machine and the settings that hurt measurement, with fixes", cmd_env},
    {"kbench", "time kernel functions per call through the vernier_kbench module", cmd_kbench},
    {"run", "time whole commands over many runs and compare them", cmd_run},
    {"stats", "summarize numbers from a file or a pipe: median CI, percentiles, outliers, modes", cmd_stats},
    {"suite", "what the OS costs: syscalls, files, processes, IPC, memory, timers", cmd_suite},
#ifndef VN_NO_COMPARE /* the store reads results with compare's reader */
    {"store", "keep results files in the store (SQLite or PostgreSQL) for vernier history", cmd_store},
    {"history", "every stored result of a benchmark, by machine, oldest first", cmd_history},
#endif
    {"trace", "time every call of a kernel function with BPF probes: percentiles, per CPU", cmd_trace},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f,
            "usage: vernier COMMAND [OPTIONS]\n"
            "\n"
            "Measure the performance of code on Linux and tell the truth about it.\n"
            "\n"
            "Commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f,
            "\n"
            "Options:\n"
            "  -h, --help     show this help\n"
            "  -V, --version  show the version\n"
            "\n"
            "Run 'vernier help COMMAND' or 'vernier COMMAND --help' for the options of a command.\n");
}

/* The edit distance (Levenshtein) between a and b, both short words: the
 * cost of the insertions, deletions and substitutions that turn one into
 * the other, an adjacent swap counting as one (Damerau's transposition).
 * Written here: no library the build already uses offers it, and a
 * dependency for a dozen lines of a textbook table is not worth one. */
static size_t distance(const char *a, const char *b)
{
    enum { MAX = 32 };
    size_t n = strlen(a), m = strlen(b);
    if (n >= MAX || m >= MAX)
        return MAX;
    size_t d[MAX + 1][MAX + 1];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m];
}

/* The one command a mistyped name is closest to (a slip of one or two
 * letters, fewer than a third of the word), or one it begins; NULL when
 * none or more than one are. */
static const char *nearest(const char *name)
{
    const char *best = NULL;
    size_t best_d = 2, ties = 0, len = strlen(name);
    for (size_t i = 0; i < NCOMMANDS; i++) {
        size_t d = distance(name, commands[i].name);
        if (len >= 2 && !strncmp(commands[i].name, name, len))
            d = 1;
        if (d * 3 > len + 2 || d > best_d)
            continue;
        ties = d == best_d ? ties + 1 : 1;
        best_d = d;
        best = commands[i].name;
    }
    return ties == 1 ? best : NULL;
}

static int unknown_command(const char *name)
{
    const char *near = nearest(name);
    if (near)
        fprintf(stderr, "vernier: unknown command '%s'; did you mean '%s'?\n", name, near);
    else
        fprintf(stderr, "vernier: unknown command '%s'; 'vernier --help' lists the commands\n", name);
    return VN_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    vn_cli_guard_std_fds();
    if (argc < 2) {
        usage(stderr);
        return VN_EXIT_USAGE;
    }
    const char *name = argv[1];
    /* "vernier help CMD" is "vernier CMD --help": one text, kept by the command. */
    if (!strcmp(name, "help") && argc >= 3) {
        for (size_t i = 0; i < NCOMMANDS; i++)
            if (!strcmp(argv[2], commands[i].name)) {
                char *args[] = {argv[2], "--help", NULL};
                return commands[i].run(2, args);
            }
        return unknown_command(argv[2]);
    }
    if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
        usage(stdout);
        return vn_cli_flushed(NULL);
    }
    if (!strcmp(name, "-V") || !strcmp(name, "--version")) {
        printf("vernier %s\n", vn_version());
        return vn_cli_flushed(NULL);
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(name, commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    if (name[0] == '-')
        fprintf(stderr, "vernier: unknown option '%s'; see 'vernier --help'\n", name);
    else
        return unknown_command(name);
    return VN_EXIT_USAGE;
}
