/* What vernier run can tell wrong before any run, each a message on one
 * line: outputs that clash or cannot be written, limits on the runs that
 * contradict each other, a CPU this process may not use, an input that
 * cannot be read, commands that cannot be run as given. Also where the
 * commands are in argv, and where vernier-spawn is. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/internal.h"
#include "run/exec_internal.h"
#include "cmd_run_check.h"
#include "base/cpu_list.h"
#include "base/fileutil.h"
#include "base/format.h"
#include "base/options.h"

static const char *const CMD = "run";

/* Where `make install` puts vernier-spawn; the build defines it. */
#ifndef VN_LIBEXECDIR
#define VN_LIBEXECDIR "/usr/local/libexec/vernier"
#endif

/* vernier-spawn: next to this program (a build tree), in ../libexec/vernier
 * beside its bin directory (an install, wherever it was moved), else where
 * the build said it would be installed. NULL when none exists: commands
 * are then started directly, and a note says their peak memory cannot be
 * lower than vernier's own. */
const char *vn_cli_run_helper(char *buf, size_t n)
{
    return vn__find_helper("vernier-spawn", VN_LIBEXECDIR, buf, n);
}

/* Joins argv words into one line for display, quoting words that need it. */
static char *join_words(char **w, int n)
{
    vn_buf b;
    vn_buf_init(&b, 0);
    for (int i = 0; i < n; i++) {
        if (i)
            vn_buf_puts(&b, " ");
        /* Braces stay bare: {NAME} is a parameter, and no shell reads this. */
        if (w[i][0] && !strpbrk(w[i], " \t\n'\"\\$`*?[]()<>|&;#~")) {
            vn_buf_puts(&b, w[i]);
            continue;
        }
        vn_buf_puts(&b, "'");
        for (const char *c = w[i]; *c; c++)
            vn_buf_puts(&b, *c == '\'' ? "'\\''" : (char[]){*c, 0});
        vn_buf_puts(&b, "'");
    }
    return b.data;
}

/* The outputs: two to one place, or one that cannot be written, fail now
 * rather than after the runs. */
static int check_outputs(vn_cli_run_opts *o)
{
    static const char *const onames[] = {"--json", "--csv", "--markdown", "--export-json",
                                          "--export-csv", "--export-markdown"};
    _Static_assert(sizeof onames / sizeof onames[0] == VN_CLI_RUN_NOUT, "a name per output");
    char msg[600];
    if (vn__outputs_usage(onames, o->out, VN_CLI_RUN_NOUT, &o->to_stdout, msg, sizeof msg))
        return vn_cli_usage_error(CMD, "%s", msg);
    for (int i = 0; i < VN_CLI_RUN_NOUT; i++) {
        const char *in = o->c.input;
        if (vn_cli_check_not_input(CMD, onames[i], o->out[i], &in, 1))
            return VN_EXIT_USAGE;
        int rc = o->out[i] ? vn__output_check(o->out[i]) : 0;
        if (rc) {
            char why[VN__WRITE_ERROR_MAX];
            return vn_cli_fail(CMD, "%s", vn__write_error(why, sizeof why, o->out[i], rc));
        }
    }
    if (o->report) {
        int rc = strcmp(o->report, "-") && *o->report ? vn__output_check(o->report) : VN_EINVAL;
        if (rc == VN_EINVAL)
            return vn_cli_usage_error(CMD, "--report needs a file name for the page");
        if (rc) {
            char why[VN__WRITE_ERROR_MAX];
            return vn_cli_fail(CMD, "%s", vn__write_error(why, sizeof why, o->report, rc));
        }
    }
    /* The report owns standard output: the commands' go with their
     * standard error. */
    if (o->to_stdout && o->c.show_output)
        o->c.show_output = 2;
    return 0;
}

/* The limits on the runs, and the CPU to pin them to. */
static int check_limits(vn_cli_run_opts *o)
{
    vn_run_config *c = &o->c;
    if (o->runs_set && o->minmax_set)
        return vn_cli_usage_error(CMD, "%s fixes the number of runs; drop %s", o->runs_as,
                                  o->min_as[0] ? o->min_as : o->max_as);
    /* Only a maximum under the default minimum: the maximum wins, as in hyperfine. */
    if (c->max_runs < c->min_runs && !o->min_set)
        c->min_runs = c->max_runs;
    if (c->max_runs < c->min_runs)
        return vn_cli_usage_error(CMD, "%s (%zu) must be at least %s (%zu)", o->max_as, c->max_runs,
                                  o->min_as, c->min_runs);
    /* A CPU this process may not use is a mistake in the command line, as
     * in a benchmark program: a usage error, found before any run. */
    cpu_set_t allowed;
    if (c->cpu >= 0 && !o->fake_path && sched_getaffinity(0, sizeof allowed, &allowed) == 0 &&
        !CPU_ISSET(c->cpu, &allowed)) {
        char cpus[256];
        vn__cpu_list(&allowed, cpus, sizeof cpus);
        return vn_cli_usage_error(CMD, "CPU %d is not available to this process (it may use CPUs %s)",
                                  c->cpu, cpus);
    }
    return 0;
}

/* The commands' input and output files. */
static int check_files(const vn_run_config *c)
{
    struct stat in_st;
    if (c->input && stat(c->input, &in_st) == 0 && S_ISDIR(in_st.st_mode))
        return vn_cli_fail(CMD, "cannot read --input '%s': it is a directory; give a file", c->input);
    if (c->input && (!strcmp(c->input, "-") || !strcmp(c->input, "/dev/stdin")) &&
        vn_cli_std_closed[0])
        return vn_cli_fail(CMD, "cannot read --input '%s': descriptor 0 is not open; give a file, "
                                "or run vernier with a standard input", c->input);
    /* "-" is vernier's standard input, read once before the first run. */
    if (c->input && strcmp(c->input, "-") != 0 && access(c->input, R_OK) != 0)
        return vn_cli_fail(CMD, "cannot read --input '%s': %s", c->input, strerror(errno));
    if (c->output_file) {
        /* Created now, so a path that cannot be written fails before any run. */
        int fd = open(c->output_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0)
            return vn_cli_fail(CMD, "cannot write --output '%s': %s", c->output_file, strerror(errno));
        close(fd);
    }
    return 0;
}

/* --style: colors and the progress bar, or no report at all. */
static void set_style(vn_cli_run_opts *o)
{
    const char *style = o->style;
    o->no_report = !strcmp(style, "none");
    o->color = -1; /* as the terminal says */
    if (!strcmp(style, "basic") || o->no_report)
        o->c.progress = 0, o->color = 0;
    else if (!strcmp(style, "full"))
        o->c.progress = !o->quiet, o->color = 1;
    else if (!strcmp(style, "nocolor"))
        o->c.progress = !o->quiet, o->color = 0;
    else if (!strcmp(style, "color"))
        o->c.progress = 0, o->color = 1;
}

/* The commands: after "--" with nothing before it, one command as its
 * words; otherwise each argument is a command line. getopt moved the
 * operands behind "--", so its place is looked up in the words as given. */
static int find_commands(int argc, char **argv, vn_cli_run_opts *o)
{
    int dashdash = 0;
    if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
        int at = 0;
        for (int k = 1; k < argc && !at; k++)
            if (!strcmp(o->given[k], "--"))
                at = k;
        dashdash = at && argc - at - 1 == argc - optind;
    }
    if (optind >= argc)
        return vn_cli_usage_error(CMD, "no command to run");
    if (dashdash) {
        o->joined = join_words(argv + optind, argc - optind);
        o->cmds = malloc(sizeof *o->cmds);
        o->cmds_owned = 1;
        if (!o->joined || !o->cmds)
            return vn_cli_fail(CMD, "out of memory");
        o->cmds[0] = o->joined;
        o->c.ncommands = 1;
    } else {
        o->cmds = (const char **)(argv + optind);
        o->c.ncommands = (size_t)(argc - optind);
    }
    o->c.commands = o->cmds;
    return 0;
}

/* What can be told wrong with the commands before any run, as usage
 * errors: a word that looks like an option after the commands (options go
 * first), a line that cannot be split into words or holds none, and a
 * parameter whose {NAME} appears nowhere. */
static int check_commands(const vn_run_config *c)
{
    for (size_t i = 0; i < c->ncommands; i++) {
        const char *cmd = c->commands[i];
        char need[160];
        int needs = vn__needs_shell(cmd, need, sizeof need);
        if (needs && c->shell < 0) {
            const char *q = vn__quote_for(cmd);
            return vn_cli_usage_error(CMD, "%s%s%s needs a shell (%s); drop -N/--shell=none", q, cmd,
                                      q, need);
        }
        if (c->shell > 0 || needs) {
            if (!cmd[strspn(cmd, " \t\n")])
                return vn_cli_usage_error(CMD, "command %zu is empty; give a shell command to run",
                                          i + 1);
            continue;
        }
        char **w = NULL, why[256];
        int n = 0;
        if (vn__split_words(cmd, &w, &n, why, sizeof why) != 0) {
            const char *q = vn__quote_for(cmd);
            return vn_cli_usage_error(CMD, "cannot split %s%s%s into words: %s", q, cmd, q, why);
        }
        int empty = n == 0 || !w[0][0];
        vn__words_free(w);
        if (empty)
            return vn_cli_usage_error(CMD, "command %zu is empty; give a program to run", i + 1);
    }
    for (size_t k = 0; k < c->nparams; k++) {
        char mark[300];
        snprintf(mark, sizeof mark, "{%s}", c->params[k].name);
        int used = (c->prepare && strstr(c->prepare, mark)) || (c->setup && strstr(c->setup, mark)) ||
                   (c->cleanup && strstr(c->cleanup, mark));
        for (size_t i = 0; i < c->nprepares && !used; i++)
            used = strstr(c->prepares[i], mark) != NULL;
        for (size_t i = 0; i < c->nnames && !used; i++)
            used = strstr(c->names[i], mark) != NULL;
        for (size_t i = 0; i < c->ncommands && !used; i++)
            used = strstr(c->commands[i], mark) != NULL;
        if (!used)
            return vn_cli_usage_error(CMD, "parameter %s: %s appears in no command or hook; put it "
                                      "where its values go", c->params[k].name, mark);
    }
    return 0;
}

int vn_cli_run_check(int argc, char **argv, vn_cli_run_opts *o)
{
    vn_run_config *c = &o->c;
    int rc = check_outputs(o);
    if (!rc)
        rc = check_limits(o);
    if (!rc)
        rc = check_files(c);
    if (rc)
        return rc;
    set_style(o);
    rc = find_commands(argc, argv, o);
    if (rc)
        return rc;
    c->params = o->params.v;
    c->nparams = o->params.n;
    c->names = o->names;
    c->nnames = o->nnames;
    if (o->npreps > 1) {
        c->prepares = o->preps;
        c->nprepares = o->npreps;
    }
    if (o->nnames > c->ncommands)
        return vn_cli_usage_error(CMD, "-n/--command-name is given %zu times for %zu command%s; "
                                  "name each command once, in order", o->nnames, c->ncommands,
                                  c->ncommands == 1 ? "" : "s");
    if (o->npreps > 1 && o->npreps != c->ncommands)
        return vn_cli_usage_error(CMD, "-p/--prepare is given %zu times for %zu commands; give it "
                                  "once, or once per command", o->npreps, c->ncommands);
    /* Every combination of the parameters is a command to run: a command
     * line that asks for too many is a mistake in it, found now. */
    double combos = (double)c->ncommands;
    for (size_t i = 0; i < c->nparams; i++)
        combos *= (double)c->params[i].nvalues;
    if (combos > 10000)
        return vn_cli_usage_error(CMD, "the parameters give %.0f commands to run, more than 10000; "
                                  "give fewer values to -L or a larger -D step", combos);
    return check_commands(c) ? VN_EXIT_USAGE : -1;
}
