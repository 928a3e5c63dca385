/* vernier run's options (cmd_run_opts.c): what it was given, read from
 * its command line. cmd_run.c puts the pieces together: parse, check, run,
 * report. */
#ifndef VN_CLI_CMD_RUN_OPTS_H
#define VN_CLI_CMD_RUN_OPTS_H

#include <stddef.h>

#include "cli.h"

/* The values of --param and --param-range (and -L, -P), with what holds them. */
typedef struct vn_cli_run_params {
    vn_run_param *v;
    char ***owned;   /* each parameter's values, to free */
    size_t *nowned;
    char **names;
    size_t n;
} vn_cli_run_params;

/* The files vernier run writes, each NULL when not asked for ("-" is
 * standard output), in the order they are written. */
enum { VN_CLI_RUN_JSON, VN_CLI_RUN_CSV, VN_CLI_RUN_MD, VN_CLI_RUN_HF_JSON, VN_CLI_RUN_HF_CSV,
       VN_CLI_RUN_HF_MD, VN_CLI_RUN_NOUT };

/* What the command line asked for. The config points into argv and into
 * the fields below, which vn_cli_run_opts_free releases. */
typedef struct vn_cli_run_opts {
    vn_run_config c;
    const char *out[VN_CLI_RUN_NOUT];
    int raw;                  /* --raw: the CSV has one row per run */
    const char *format;       /* --format as given, NULL when not */
    int gbench;               /* --format gbench: --json in Google Benchmark's layout */
    double unit_s;            /* --time-unit of --export-markdown in seconds; 0: hyperfine's */
    int hist;                 /* --hist */
    int explain;              /* --explain */
    int quiet;                /* --quiet */
    const char *style;        /* --style, "auto" unless given */
    const char *fake_path;    /* --fake-exec */
    const char *report;       /* --report: the HTML page, as vernier report makes it */
    vn_cli_store store;       /* --store, --commit, --branch, --tag */

    /* Set by vn_cli_run_check. */
    int to_stdout;            /* a file goes to standard output: the report goes to stderr */
    int no_report;            /* --style none */
    int color;                /* -1: as the terminal says; else 0 or 1 */

    /* Held for the config. */
    vn_cli_run_params params;
    const char **names;       /* -n, once per command: pointers into argv */
    size_t nnames;
    const char **preps;       /* -p, once or once per command */
    size_t npreps;
    char **given;             /* argv as given, before getopt reordered it */
    const char **cmds;        /* the commands; cmds_owned when made from the words after "--" */
    int cmds_owned;
    char *joined;             /* that one command line */

    /* Options that only together make a value (-P NAME MIN MAX with -D STEP),
     * and which limits on the runs were given. */
    const char *scan[3], *step;
    int runs_set, minmax_set, min_set;
    /* The option being read, and the runs' limits, as the user typed them
     * ("-m", "--min-runs"), for messages. */
    char typed[32], runs_as[32], min_as[32], max_as[32];
} vn_cli_run_opts;

/* Reads the options into o (which it initializes); the operands, the
 * commands, are left in argv from optind on. Returns -1 to go on, else the
 * exit status: 0 after --help, 2 after a usage error (said on stderr), 1
 * when out of memory. vn_cli_run_opts_free must follow in every case. */
int vn_cli_run_opts_parse(int argc, char **argv, vn_cli_run_opts *o);
void vn_cli_run_opts_free(vn_cli_run_opts *o);

#endif
