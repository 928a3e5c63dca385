/* The vernier tool: one file per subcommand, dispatched from one table in main.c. */
#ifndef VN_CLI_H
#define VN_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "main/all.h"

/* Every --help follows one layout, because the man pages and the shell
 * completions are made from it at build time (scripts/helpdoc/parse.awk):
 * "usage: vernier CMD ..." first; paragraphs apart by blank lines; a line
 * "Heading:" alone before lines of options, each indented by two spaces as
 * "  -x, --name ARG  what it does", deeper lines continuing it; an ARG that
 * holds FILE completes file names, one as a|b|c completes those words; a
 * paragraph "Exit status: ..." becomes a section of the man page. */

/* Exit codes, the same for every subcommand. */
enum { VN_EXIT_OK = 0, VN_EXIT_FAIL = 1, VN_EXIT_USAGE = 2, VN_EXIT_INTERRUPTED = 130 };
/* vernier compare --fail-on-regression: the comparison ran and found one. */
enum { VN_EXIT_REGRESSION = 3 };
/* vernier compare: the files were read, but no benchmark was compared (no
 * name in common, or none that could be): a gate has nothing to judge. */
enum { VN_EXIT_NOTHING = 4 };

typedef struct vn_cli_cmd {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);   /* argv[0] is the subcommand's name */
} vn_cli_cmd;

int cmd_clocks(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_env(int argc, char **argv);
int cmd_kbench(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_suite(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_store(int argc, char **argv);
int cmd_history(int argc, char **argv);

/* ---- the store (cmd_store.c) ------------------------------------------------- */

/* --store and what a run is kept with, the same on every command that
 * measures: their getopt codes, and the longopts entries. */
enum {
    VN_CLI_OPT_STORE = 0x5300,
    VN_CLI_OPT_COMMIT,
    VN_CLI_OPT_BRANCH,
    VN_CLI_OPT_TAG,
    VN_CLI_OPT_SAMPLES,
};
/* Their labels in a switch on getopt's answer, which vn_cli_store_opts takes. */
#define VN_CLI_STORE_CASES                                                                         \
    case VN_CLI_OPT_STORE:                                                                         \
    case VN_CLI_OPT_COMMIT:                                                                        \
    case VN_CLI_OPT_BRANCH:                                                                        \
    case VN_CLI_OPT_TAG:                                                                           \
    case VN_CLI_OPT_SAMPLES
#define VN_CLI_IS_STORE_OPT(c) ((c) >= VN_CLI_OPT_STORE && (c) <= VN_CLI_OPT_SAMPLES)
#define VN_CLI_STORE_OPTIONS                                                                        \
    {"store", required_argument, NULL, VN_CLI_OPT_STORE},                                          \
        {"commit", required_argument, NULL, VN_CLI_OPT_COMMIT},                                    \
        {"branch", required_argument, NULL, VN_CLI_OPT_BRANCH},                                    \
        {"tag", required_argument, NULL, VN_CLI_OPT_TAG},                                          \
        {"store-samples", no_argument, NULL, VN_CLI_OPT_SAMPLES}
#define VN_CLI_MAX_TAGS 32

typedef struct vn_cli_store {
    int on;               /* --store given, or $VERNIER_STORE set */
    const char *url;      /* NULL: $VERNIER_STORE, else the default file */
    const char *commit, *branch;
    const char *tags[VN_CLI_MAX_TAGS];
    size_t ntags;
    double time;          /* 0: now */
    int samples;          /* --store-samples (store add: --samples), or VERNIER_STORE_SAMPLES=1 */
} vn_cli_store;

/* Reads one results file of any format vernier reads (path; "-" is
 * standard input) into side, with vernier compare's messages (a line and
 * column for JSON that is not, a line on the terminal while a large file
 * is read): VN_EXIT_OK, or VN_EXIT_FAIL after one line (cmd_compare.c). */
struct vn__cmp_side;
int vn_cli_read_results(const char *cmd, const char *path, struct vn__cmp_side *side);

/* --store given, or $VERNIER_STORE set. */
int vn_cli_store_wanted(const vn_cli_store *st);
/* One of the options above into st: 0, or a usage error (2) printed. */
int vn_cli_store_opts(const char *cmd, int c, const char *arg, vn_cli_store *st);
/* After a command wrote its results (written: the file, or NULL): keeps
 * the JSON in the store when st->on, or $VERNIER_STORE is set. The store
 * never stops a result from being written: this runs after, and a failure
 * is one line that says where the results are. VN_EXIT_OK or
 * VN_EXIT_FAIL. */
int vn_cli_store_json(const char *cmd, const vn_cli_store *st, const vn_buf *json,
                      const char *written);
/* The same from results in memory (vernier kbench, vernier trace). */
int vn_cli_store_results(const char *cmd, const vn_cli_store *st, const vn_results *r,
                         const char *written);

/* Prints "vernier CMD: <message>; see 'vernier CMD --help'" and returns 2. */
int vn_cli_usage_error(const char *cmd, const char *fmt, ...) VN_PRINTF(2, 3);
/* Prints "vernier CMD: <message>" and returns 1. */
int vn_cli_fail(const char *cmd, const char *fmt, ...) VN_PRINTF(2, 3);

/* getopt_long with vernier's messages: returns the option, -1 at the end, or
 * '?' after printing a usage error (the caller returns 2). Options after the
 * first operand are still parsed (GNU order) unless "--" ends them. */
int vn_cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
                  const struct option *longopts);

/* Colors only on a terminal, and never when NO_COLOR is set (no-color.org). */
unsigned vn_cli_report_flags(FILE *f);

/* Writes buf to path ("-" = stdout) atomically; on failure prints a one-line
 * message naming the path and returns 1, else 0. */
int vn_cli_write(const char *cmd, const char *path, const vn_buf *buf);

/* The results as a command reports them: JSON to json (when not NULL; "-"
 * is standard output, and then nothing else goes there), else the table
 * (with flags) and, when hist, each distribution. VN_EXIT_OK, or
 * VN_EXIT_FAIL after printing one line. */
int vn_cli_report_results(const char *cmd, const vn_results *r, const char *json, int hist,
                          unsigned flags);

/* Writes buf to standard output and flushes it; on failure (a full disk, a
 * closed pipe) prints one line and returns 1, else 0. */
int vn_cli_print(const char *cmd, const vn_buf *buf);
/* Standard output flushed: VN_EXIT_OK, or VN_EXIT_FAIL with a message when
 * it could not be written (the help to /dev/full, a closed pipe). cmd may
 * be NULL for the tool itself. */
int vn_cli_flushed(const char *cmd);

/* An output path given to opt: "-" or a non-empty name. Returns 0, or
 * prints a usage error and returns 2. */
int vn_cli_check_path(const char *cmd, const char *opt, const char *path);
/* Whether an output path is standard output: '-', or a name for where it
 * goes (/dev/stdout, /proc/self/fd/1, the file it was redirected to). Then
 * the text report goes elsewhere or not at all, as with '-'. */
int vn_cli_is_stdout(const char *path);
/* At start: a standard descriptor (0, 1, 2) that is closed gets /dev/null,
 * so that no pipe or file vernier opens later lands there and is taken for
 * it; vn_cli_std_closed[fd] remembers which were. */
extern int vn_cli_std_closed[3];
void vn_cli_guard_std_fds(void);
/* An output (written by opt) that is one of the inputs, by file, not by
 * name: a usage error before any work, so that no input is overwritten.
 * VN_EXIT_OK or VN_EXIT_USAGE after a message. */
int vn_cli_check_not_input(const char *cmd, const char *opt, const char *out,
                           const char *const *inputs, size_t n);

/* --threshold PCT of vernier compare and vernier report, as a fraction
 * into *out: 0, or a usage error (2) printed. */
int vn_cli_parse_threshold(const char *cmd, const char *s, double *out);

/* Reads the whole file at path ("-" = standard input) into in, followed
 * by a '\0' not counted in its length; on failure prints a one-line
 * message naming the file and returns 1, else 0. */
int vn_cli_slurp(const char *cmd, const char *path, vn_buf *in);

/* vernier report's page from results JSON already in memory (vernier run
 * and vernier suite's --report): written to path; 0, or 1 after a
 * one-line message. */
int vn_cli_report_from(const char *cmd, vn_buf *json, const char *path);

/* Parses a non-negative integer option value; returns 0 or prints a usage
 * error and returns 2. */
int vn_cli_parse_size(const char *cmd, const char *opt, const char *s, size_t lo, size_t hi,
                      size_t *out);

#endif
