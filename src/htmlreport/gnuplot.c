/* gnuplot as a child process: a script on its standard input, the images
 * it draws read from its standard output, within a time limit. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

extern char **environ;

#define TIMED_OUT (-ETIMEDOUT)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The first error gnuplot wrote on stderr, for the message: the line that
 * says which line of the script and what was wrong (gnuplot echoes the
 * script's line above it), else the first other line. It goes on after
 * most errors, so any line but a warning is one; "" when there is none. */
/* Whether s[0..k) holds word, in any case. */
static int strcasestr_n(const char *s, size_t k, const char *word)
{
    size_t w = strlen(word);
    for (size_t i = 0; i + w <= k; i++)
        if (!strncasecmp(s + i, word, w))
            return 1;
    return 0;
}

static void first_error(const vn_buf *e, char *out, size_t n)
{
    out[0] = '\0';
    for (int pass = 0; pass < 2 && !out[0]; pass++) {
        const char *s = e->data ? e->data : "", *end = s + e->len;
        while (s < end) {
            const char *nl = memchr(s, '\n', (size_t)(end - s));
            size_t k = nl ? (size_t)(nl - s) : (size_t)(end - s);
            int blank = 1;
            for (size_t i = 0; i < k && blank; i++)
                blank = s[i] == ' ' || s[i] == '\t' || s[i] == '^';
            /* A warning (gnuplot writes "Warning:") is not a failure. */
            if (!blank && !strcasestr_n(s, k, "warning:") && (pass || memmem(s, k, ", line ", 7))) {
                snprintf(out, n, "%.*s", (int)(k > 200 ? 200 : k), s);
                return;
            }
            s += k + 1;
        }
    }
}

static int spawn(const char *path, int in[2], int out[2], int errp[2], pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa))
        return VN_ENOMEM;
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
    char *argv[] = {(char *)path, NULL};
    int rc = posix_spawn(pid, path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    return rc ? -rc : 0;
}

/* Feeds the script and drains both outputs at once: a large script and a
 * large image would each fill a pipe while the other waits. */
static int pump(int in, int out, int errfd, const char *script, size_t len, double deadline,
                vn_buf *img, vn_buf *e)
{
    size_t sent = 0;
    int open_out = 1, open_err = 1;
    char chunk[65536];
    while (open_out || open_err) {
        struct pollfd p[3];
        int np = 0, ii = -1, io = -1, ie = -1;
        if (in >= 0)
            p[ii = np++] = (struct pollfd){in, POLLOUT, 0};
        if (open_out)
            p[io = np++] = (struct pollfd){out, POLLIN, 0};
        if (open_err)
            p[ie = np++] = (struct pollfd){errfd, POLLIN, 0};
        double left = deadline - now_s();
        if (left <= 0)
            return TIMED_OUT;
        int r = poll(p, (nfds_t)np, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        if (ii >= 0 && p[ii].revents) {
            ssize_t w = write(in, script + sent, len - sent > 65536 ? 65536 : len - sent);
            if (w > 0)
                sent += (size_t)w;
            if (w < 0 && errno != EAGAIN && errno != EINTR)
                sent = len; /* gnuplot left early: its status says why */
            if (sent == len) {
                close(in);
                in = -1;
            }
        }
        int fds[2] = {io, ie};
        for (int k = 0; k < 2; k++) {
            if (fds[k] < 0 || !p[fds[k]].revents)
                continue;
            ssize_t got = read(p[fds[k]].fd, chunk, sizeof chunk);
            if (got < 0 && (errno == EAGAIN || errno == EINTR))
                continue;
            if (got <= 0) {
                *(k ? &open_err : &open_out) = 0;
                continue;
            }
            if (vn_buf_append(k ? e : img, chunk, (size_t)got))
                return VN_ENOMEM;
        }
    }
    if (in >= 0)
        close(in);
    return 0;
}

int vn__rep_gnuplot(const char *path, const char *script, size_t len, double timeout_s,
                    vn_buf *img, char *err, size_t errlen)
{
    int in[2] = {-1, -1}, out[2] = {-1, -1}, ep[2] = {-1, -1};
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(ep, O_CLOEXEC)) {
        int rc = -errno;
        snprintf(err, errlen, "cannot start gnuplot: %s", strerror(-rc));
        for (int i = 0; i < 2; i++) {
            if (in[i] >= 0) close(in[i]);
            if (out[i] >= 0) close(out[i]);
            if (ep[i] >= 0) close(ep[i]);
        }
        return VN_EINVAL;
    }
    pid_t pid;
    int rc = spawn(path, in, out, ep, &pid);
    close(in[0]), close(out[1]), close(ep[1]);
    if (rc) {
        close(in[1]), close(out[0]), close(ep[0]);
        snprintf(err, errlen, "cannot start '%s': %s", path, strerror(-rc));
        return VN_EINVAL;
    }
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    /* A gnuplot that leaves before reading its script must not kill us. */
    struct sigaction ign = {0}, old;
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old);
    vn_buf e;
    vn_buf_init(&e, 1 << 20);
    rc = pump(in[1], out[0], ep[0], script, len, now_s() + timeout_s, img, &e);
    sigaction(SIGPIPE, &old, NULL);
    close(out[0]), close(ep[0]);
    if (rc)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    char line[256];
    first_error(&e, line, sizeof line);
    vn_buf_free(&e);
    if (rc == TIMED_OUT) {
        snprintf(err, errlen, "gnuplot took more than %.0f s to draw the plots and was stopped",
                 timeout_s);
        return VN_EINVAL;
    }
    if (rc)
        return rc == VN_ENOMEM ? rc : (snprintf(err, errlen, "gnuplot: %s", vn_strerror(rc)), VN_EINVAL);
    if (!WIFEXITED(status) || WEXITSTATUS(status) || line[0]) {
        snprintf(err, errlen, "gnuplot failed (%s%d)%s%s",
                 WIFEXITED(status) ? "exit status " : "signal ",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), line[0] ? ": " : "",
                 line);
        return VN_EINVAL;
    }
    return 0;
}
