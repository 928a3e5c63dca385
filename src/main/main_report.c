/* A benchmark program's console flags, and its --report: the HTML page of
 * its results, drawn by the vernier tool ('vernier report') run as a child
 * on a results file written for it.
 *
 * The page's code is the tool's, not the library's: it reads results
 * files with cJSON and draws with gnuplot, neither of which a program
 * linked with libvernier should need, and the library sits below the tool
 * (docs/layers.md). A program with --report therefore needs the tool: it
 * is looked for next to the program, then along PATH, before anything is
 * measured. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "main_report.h"
#include "run/exec_internal.h"
#include "base/fileutil.h"
#include "report/report.h"

extern char **environ;

unsigned vn__main_console_flags(int fd, int no_color, int explain)
{
    unsigned flags = explain ? VN_REPORT_EXPLAIN : 0;
    if (!isatty(fd))
        return flags;
    const char *nc = getenv("NO_COLOR");
    if (!(nc && *nc) && !no_color)
        flags |= VN_REPORT_COLOR;
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
        flags |= VN_REPORT_WIDTH(ws.ws_col);
    return flags;
}

int vn__main_report_tool(char *out, size_t n)
{
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len > 0) {
        self[len] = '\0';
        char *slash = strrchr(self, '/');
        if (slash && (size_t)snprintf(out, n, "%.*s/vernier", (int)(slash - self), self) < n &&
            access(out, X_OK) == 0)
            return 0;
    }
    return vn__which("vernier", out, n);
}

/* Runs the tool with argv with the default signal mask (the caller holds
 * SIGPIPE while it writes); its exit status, or -1. */
static int run_tool(const char *tool, char *const *argv)
{
    posix_spawnattr_t at;
    if (posix_spawnattr_init(&at))
        return -1;
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
    pid_t pid;
    int rc = posix_spawn(&pid, tool, NULL, &at, argv, environ);
    posix_spawnattr_destroy(&at);
    if (rc)
        return -1;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    /* Killed by a signal: 1000 + the signal, told apart from not starting. */
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

/* The results as a file of their own, in dir (beside path, or $TMPDIR):
 * its name in *tmp (malloc'ed; NULL when it could not be made), 0 or 1
 * after a message naming what for. */
static int results_file(const char *prog, const char *what, const vn_results *r,
                        const char *beside, char **tmp)
{
    vn_buf b;
    vn_buf_init(&b, VN_RESULTS_BUF_MAX);
    int rc = vn_report_results_json(r, &b);
    *tmp = NULL;
    if (rc) {
        vn_buf_free(&b);
        fprintf(stderr, "%s: %s: cannot format the results: %s\n", prog, what, vn_strerror(rc));
        return 1;
    }
    const char *dir = getenv("TMPDIR");
    size_t len = (beside ? strlen(beside) : strlen(dir && *dir ? dir : "/tmp")) + 40;
    char *name = malloc(len);
    int fd = -1;
    if (name) {
        if (beside)
            snprintf(name, len, "%s.results-XXXXXX", beside);
        else
            snprintf(name, len, "%s/vernier-results-XXXXXX", dir && *dir ? dir : "/tmp");
        fd = mkstemp(name);
    }
    int ok = fd >= 0;
    for (size_t off = 0; ok && off < b.len;) {
        ssize_t w = write(fd, b.data + off, b.len - off);
        if (w < 0 && errno == EINTR)
            continue;
        ok = w > 0;
        off += ok ? (size_t)w : 0;
    }
    if (fd >= 0 && close(fd))
        ok = 0;
    vn_buf_free(&b);
    if (!ok) {
        fprintf(stderr, "%s: %s: cannot write the results for it in '%s': %s\n", prog, what,
                name ? name : "?", strerror(errno));
        if (fd >= 0)
            unlink(name);
        free(name);
        return 1;
    }
    *tmp = name;
    return 0;
}

/* Runs the tool on argv; 0, or 1 after a message (the tool says why it
 * failed in a line of its own). */
static int tool_status(const char *prog, const char *what, const char *tool, char *const *argv)
{
    int code = run_tool(tool, argv);
    if (code < 0)
        fprintf(stderr, "%s: %s: cannot run '%s'\n", prog, what, tool);
    else if (code >= 1000)
        fprintf(stderr, "%s: %s: '%s' was killed by signal %d (%s)\n", prog, what, tool,
                code - 1000, strsignal(code - 1000));
    return code == 0 ? 0 : 1;
}

int vn__main_report(const char *prog, const char *tool, const vn_results *r, const char *path)
{
    /* The results file beside the page: the page's folder is known to be
     * writable, and the file goes away once the page is made. */
    char *tmp;
    if (results_file(prog, "--report", r, path, &tmp))
        return 1;
    char *argv[] = {"vernier", "report", tmp, "-o", (char *)path, NULL};
    int status = tool_status(prog, "--report", tool, argv);
    unlink(tmp);
    free(tmp);
    return status;
}

int vn__main_store(const char *prog, const char *tool, const vn_results *r, const char *url)
{
    char *tmp;
    if (results_file(prog, "--store", r, NULL, &tmp))
        return 1;
    char *argv[] = {"vernier", "store", "add", "--from", (char *)prog, url ? "--store" : tmp,
                    url ? (char *)url : NULL, url ? tmp : NULL, NULL};
    int status = tool_status(prog, "--store", tool, argv);
    unlink(tmp);
    free(tmp);
    return status;
}
