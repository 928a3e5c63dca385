/* A benchmark program's --report: the HTML page of its results, drawn by
 * the vernier tool ('vernier report') run as a child on a results file
 * written for it.
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
#include <sys/wait.h>
#include <unistd.h>

#include "bench_main.h"
#include "exec_internal.h"
#include "fileutil.h"
#include "vernier/report.h"

extern char **environ;

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

/* Runs 'vernier report FILE -o path' with the default signal mask (the
 * caller holds SIGPIPE while it writes); its exit status, or -1. */
static int run_tool(const char *tool, const char *results, const char *path)
{
    posix_spawnattr_t at;
    if (posix_spawnattr_init(&at))
        return -1;
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
    char *argv[] = {"vernier", "report", (char *)results, "-o", (char *)path, NULL};
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

int vn__main_report(const char *prog, const char *tool, const vn_results *r, const char *path)
{
    vn_buf b;
    vn_buf_init(&b, VN_RESULTS_BUF_MAX);
    int rc = vn_report_results_json(r, &b);
    if (rc) {
        vn_buf_free(&b);
        fprintf(stderr, "%s: --report: cannot format the results: %s\n", prog, vn_strerror(rc));
        return 1;
    }
    /* The results file beside the page: the page's folder is known to be
     * writable, and the file goes away once the page is made. */
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    int fd = -1;
    if (tmp) {
        snprintf(tmp, len, "%s.results-XXXXXX", path);
        fd = mkstemp(tmp);
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
    int status = 1;
    if (!ok)
        fprintf(stderr, "%s: --report: cannot write the results for the page beside '%s': %s\n",
                prog, path, strerror(errno));
    else {
        int code = run_tool(tool, tmp, path);
        /* The tool said why it failed, in a line of its own. */
        if (code < 0)
            fprintf(stderr, "%s: --report: cannot run '%s'\n", prog, tool);
        else if (code >= 1000)
            fprintf(stderr, "%s: --report: '%s' was killed by signal %d (%s) while it made the "
                    "page; no page was written\n", prog, tool, code - 1000, strsignal(code - 1000));
        status = code == 0 ? 0 : 1;
    }
    if (fd >= 0)
        unlink(tmp);
    free(tmp);
    return status;
}
