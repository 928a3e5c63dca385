/* vernier-noop's fork server, from vernier's side (fork_server.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "suite/fork_server.h"
#include "suite/suite.h"

/* How long an answer may take: touching a large buffer on a loaded
 * machine takes seconds, a fork milliseconds; a server that says nothing
 * for this long is stuck, and the row fails rather than hang the run. */
#define ANSWER_S 30.0
/* How long a server may take to end once its input is closed before it is
 * killed: a real one ends at once. */
#define STOP_S 5.0

/* The server's end: "exited with status N" or "was killed by signal N". */
static void describe_end(char *s, size_t n, int status)
{
    if (WIFEXITED(status))
        snprintf(s, n, "exited with status %d", WEXITSTATUS(status));
    else
        snprintf(s, n, "was killed by signal %d", WTERMSIG(status));
}

/* Waits for the server, killing it after STOP_S seconds. Its wait status,
 * or -1 when it cannot be waited for. */
static int reap_server(pid_t pid)
{
    double until = vn__suite_now_ns() + STOP_S * 1e9;
    int status, killed = 0;
    for (;;) {
        pid_t r = waitpid(pid, &status, killed ? 0 : WNOHANG);
        if (r == pid)
            return status;
        if (r < 0 && errno != EINTR)
            return -1;
        if (r == 0 && vn__suite_now_ns() > until) {
            kill(pid, SIGKILL);
            killed = 1;
        } else if (r == 0) {
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        }
    }
}

void vn__fork_server_stop(vn__fork_server *f)
{
    if (f->pid <= 0)
        return;
    close(f->to);
    close(f->from);
    reap_server(f->pid);
    f->pid = 0;
}

/* Fails the row with "the fork server WHAT", the server stopped. */
static int fail(vn__fork_server *f, vn_state *st, const char *what)
{
    char msg[192];
    snprintf(msg, sizeof msg, "the fork server %s", what);
    vn__fork_server_stop(f);
    vn_state_fail(st, msg);
    return -1;
}

/* The server is gone (its output ended, or its input is closed): the row
 * fails with how it ended. */
static int fail_ended(vn__fork_server *f, vn_state *st, const char *when)
{
    close(f->to);
    close(f->from);
    int status = reap_server(f->pid);
    f->pid = 0;
    char how[64], msg[160];
    if (status < 0)
        snprintf(how, sizeof how, "ended");
    else
        describe_end(how, sizeof how, status);
    snprintf(msg, sizeof msg, "the fork server %s %s", how, when);
    vn_state_fail(st, msg);
    return -1;
}

/* A read_line() that got no line (n: 0 or a negative code) fails the
 * row, saying when. */
static int fail_unread(vn__fork_server *f, vn_state *st, long n, const char *when)
{
    if (n == 0)
        return fail_ended(f, st, when);
    char what[96];
    if (n == -ETIMEDOUT)
        snprintf(what, sizeof what, "said nothing for %.0f s %s", ANSWER_S, when);
    else
        snprintf(what, sizeof what, "cannot be read: %s", strerror((int)-n));
    return fail(f, st, what);
}

/* One line of the server's into buf, its '\n' dropped. Its length (a line
 * cut short by the end of the output, or too long for buf, is returned as
 * it is: no answer looks like that); 0 at the end of the output; -ETIMEDOUT
 * after ANSWER_S seconds without a line, or -errno. */
static long read_line(int fd, char *buf, size_t n)
{
    double until = vn__suite_now_ns() + ANSWER_S * 1e9;
    size_t got = 0;
    while (got + 1 < n) {
        double left_ms = (until - vn__suite_now_ns()) / 1e6;
        if (left_ms <= 0)
            return -ETIMEDOUT;
        struct pollfd p = {fd, POLLIN, 0};
        int k = poll(&p, 1, (int)left_ms + 1);
        if (k < 0 && errno != EINTR)
            return -errno;
        if (k <= 0)
            continue;
        ssize_t r = read(fd, buf + got, n - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        if (r == 0)
            break;
        got += (size_t)r;
        char *nl = memchr(buf, '\n', got);
        if (nl) {
            *nl = '\0';
            return nl - buf;
        }
    }
    buf[got] = '\0';
    return (long)got;
}

/* An answer that is none: "answered 'TEXT'", printable and short. */
static int fail_garbage(vn__fork_server *f, vn_state *st, const char *line, const char *want)
{
    char text[48], what[128];
    size_t i = 0;
    for (; line[i] && i + 1 < sizeof text; i++)
        text[i] = line[i] >= ' ' && line[i] < 127 ? line[i] : '?';
    text[i] = '\0';
    snprintf(what, sizeof what, "answered '%s'%s, not %s", text, line[i] ? "..." : "", want);
    return fail(f, st, what);
}

/* "!WHAT N": N, and what into what (at most n bytes); -1 when line is not
 * of that form. */
static long parse_error(const char *line, char *what, size_t n)
{
    const char *sp = strchr(line, ' ');
    if (line[0] != '!' || !sp || (size_t)(sp - line) > n || !sp[1])
        return -1;
    char *end;
    errno = 0;
    long v = strtol(sp + 1, &end, 10);
    if (*end || errno || v < 0)
        return -1;
    memcpy(what, line + 1, (size_t)(sp - line) - 1);
    what[sp - line - 1] = '\0';
    return v;
}

int vn__fork_server_start(vn__fork_server *f, const char *path, size_t mib, vn_state *st)
{
    int to[2], from[2];
    if (pipe2(to, O_CLOEXEC) != 0)
        return fail(f, st, "cannot be started: no pipe");
    if (pipe2(from, O_CLOEXEC) != 0) {
        close(to[0]), close(to[1]);
        return fail(f, st, "cannot be started: no pipe");
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    /* dup2 leaves the copies without O_CLOEXEC; every other end of the two
     * pipes is closed by the exec, so the server's input ends when
     * vernier's end closes, whatever vernier then starts. */
    posix_spawn_file_actions_adddup2(&fa, to[0], 0);
    posix_spawn_file_actions_adddup2(&fa, from[1], 1);
    /* Its own process group, out of the terminal's Ctrl-C; every signal
     * let in and SIGPIPE at its default (vernier holds it while it runs),
     * so a server whose reader is gone ends. */
    sigset_t none, def;
    sigemptyset(&none);
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &def);
    char mibs[24];
    snprintf(mibs, sizeof mibs, "%zu", mib);
    char *argv[] = {(char *)path, "--fork-server", mibs, NULL}, *envp[] = {NULL};
    pid_t pid;
    int err = posix_spawn(&pid, path, &fa, &at, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(to[0]);
    close(from[1]);
    if (err) {
        close(to[1]), close(from[0]);
        char what[160];
        snprintf(what, sizeof what, "cannot be started: posix_spawn: %s", strerror(err));
        return fail(f, st, what);
    }
    *f = (vn__fork_server){pid, to[1], from[0], mib};

    char line[64], what[16];
    long n = read_line(f->from, line, sizeof line);
    if (n <= 0)
        return fail_unread(f, st, n, "before it was ready");
    if (strcmp(line, "ready") == 0)
        return 0;
    long e = parse_error(line, what, sizeof what);
    if (e >= 0 && strcmp(what, "mmap") == 0) {
        char why[128];
        snprintf(why, sizeof why, "the fork server cannot map %zu MiB: %s", mib, strerror((int)e));
        vn__fork_server_stop(f);
        vn_state_skip(st, why);
        return -1;
    }
    return fail_garbage(f, st, line, "'ready'");
}

/* One byte to the server. 0, or -errno. SIGPIPE is held while it is
 * written, so a server that is gone is an error here, not the end of
 * vernier; one that it raised is taken off before the mask is back. */
static int send_byte(int fd, char c)
{
    sigset_t pipe, old;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, &old);
    ssize_t w;
    while ((w = write(fd, &c, 1)) < 0 && errno == EINTR)
        ;
    int rc = w == 1 ? 0 : w < 0 ? -errno : -EIO;
    struct timespec now = {0, 0};
    while (!sigismember(&old, SIGPIPE) && sigtimedwait(&pipe, NULL, &now) == SIGPIPE)
        ;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int vn__fork_server_fork(vn__fork_server *f, int cmd, double *ns, vn_state *st)
{
    int rc = send_byte(f->to, (char)cmd);
    if (rc == -EPIPE)
        return fail_ended(f, st, "while it ran");
    if (rc) {
        char what[96];
        snprintf(what, sizeof what, "cannot be written to: %s", strerror(-rc));
        return fail(f, st, what);
    }
    char line[64], what[16];
    long n = read_line(f->from, line, sizeof line);
    if (n <= 0)
        return fail_unread(f, st, n, "while it ran");
    /* The time: digits alone, at most 19 of them (no overflow). */
    size_t d = strspn(line, "0123456789");
    if (d > 0 && d <= 19 && line[d] == '\0') {
        *ns = (double)strtoull(line, NULL, 10);
        return 0;
    }
    long e = parse_error(line, what, sizeof what);
    if (e > 0 && strcmp(what, "status") == 0 && e <= 0xffff)
        return (int)e;
    if (e >= 0 && (strcmp(what, "fork") == 0 || strcmp(what, "waitpid") == 0)) {
        char msg[96];
        snprintf(msg, sizeof msg, "could not %s: %s", what, strerror((int)e));
        return fail(f, st, msg);
    }
    return fail_garbage(f, st, line, "a time in ns");
}
