/* Running one command (its words and PATH lookup are in exec_words.c): fork
 * and exec with a go-ahead pipe, a timeout on a pidfd, the process group killed on
 * timeout or interrupt, and the child's own rusage from wait4(). */
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec_internal.h"
#include "exec_wait.h"
#include "clock/internal.h"
#include "base/fileutil.h"
#include "base/interrupt.h"

/* ---- Running ----------------------------------------------------------------------- */

/* In the child, between fork and exec: only async-signal-safe calls. It
 * tells the parent on errw: 'R' once it is ready, so the parent starts the
 * clock only then (joining a cgroup can take the child milliseconds, a
 * grace period of the kernel's, which would count as the command's time);
 * 'F' and the errno when something fails, before or at the exec. */
static void child(const vn_exec_opts *o, int go, int errw, int cg)
{
    /* Its starter (vernier, or vernier-spawn) killed: the command goes too,
     * rather than run on under init. */
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    setpgid(0, 0);
    int in = open(o->stdin_path ? o->stdin_path : "/dev/null", O_RDONLY);
    if (in < 0)
        goto fail;
    dup2(in, 0);
    if (in != 0)
        close(in); /* the command gets 0, 1 and 2, not a copy besides */
    if (!o->show_output) {
        int null = open("/dev/null", O_WRONLY);
        if (null < 0)
            goto fail;
        dup2(null, 1);
        dup2(null, 2);
        if (null > 2)
            close(null);
        if (o->stdout_path) {
            int out = open(o->stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
            if (out < 0)
                goto fail;
            dup2(out, 1);
            if (out > 2)
                close(out);
        }
    } else if (o->show_output == 2) {
        dup2(2, 1);
    }
    if (cg >= 0 && write(cg, "0", 1) != 1)
        goto fail;
    /* A handler the parent installed must not fire in the child. */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    if (write(errw, "R", 1) != 1)
        _exit(127);
    char c;
    if (read(go, &c, 1) != 1)
        _exit(127);
    if (o->path)
        execv(o->path, o->argv);
    else
        execvp(o->argv[0], o->argv);
fail:;
    char msg[1 + sizeof(int)] = {'F'};
    int e = errno;
    memcpy(msg + 1, &e, sizeof e);
    if (write(errw, msg, sizeof msg) < 0)
        _exit(127);
    _exit(127);
}

/* The child's next message on fd: 'R' (returns 0), 'F' and an errno
 * (returns -errno), or the end of the pipe (returns 1: the exec closed it,
 * or the child died). */
static int child_says(int fd)
{
    char msg[1 + sizeof(int)];
    ssize_t got;
    do
        got = read(fd, msg, 1);
    while (got < 0 && errno == EINTR);
    if (got <= 0)
        return 1;
    if (msg[0] == 'R')
        return 0;
    int e = EIO;
    size_t have = 0;
    while (have < sizeof e) {
        ssize_t r = read(fd, msg + 1 + have, sizeof e - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        have += (size_t)r;
    }
    if (have == sizeof e)
        memcpy(&e, msg + 1, sizeof e);
    return e > 0 ? -e : VN_EIO;
}

extern char **environ;

/* "cannot run 'x': why" for an exec that failed with errno e. A script
 * whose #! line names an interpreter that is not there fails with ENOENT,
 * as if the script itself were missing: the message names the interpreter. */
static void exec_error(const vn_exec_opts *o, int e, char *err, size_t errlen)
{
    char found[PATH_MAX], line[256] = "";
    const char *prog = o->path;
    if (!prog && vn__which(o->argv[0], found, sizeof found) == 0)
        prog = found;
    if (e == ENOENT && prog && vn__read_text(prog, line, sizeof line) > 2 &&
        line[0] == '#' && line[1] == '!') {
        char *interp = line + 2 + strspn(line + 2, " \t");
        interp[strcspn(interp, " \t\r\n")] = '\0';
        if (*interp && access(interp, F_OK) != 0) {
            snprintf(err, errlen, "cannot run '%s': its interpreter '%s' (named in its #! line) is "
                     "missing", o->argv[0], interp);
            return;
        }
    }
    snprintf(err, errlen, "cannot run '%s': %s", o->argv[0], strerror(e));
}

/* The cheap path, when nothing must happen between fork and exec: glibc's
 * posix_spawn clones with CLONE_VM | CLONE_VFORK, so no page tables are
 * copied and the parent resumes once the child has exec'd. The clock starts
 * just before it: the start-up of the command, not vernier's, is what the
 * run includes. Returns the pid or a negative code. */
static pid_t spawn_fast(const vn_exec_opts *o, uint64_t *t0, char *err, size_t errlen)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    posix_spawn_file_actions_addopen(&fa, 0, o->stdin_path ? o->stdin_path : "/dev/null",
                                     O_RDONLY, 0);
    if (!o->show_output) {
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
        if (o->stdout_path)
            posix_spawn_file_actions_addopen(&fa, 1, o->stdout_path,
                                             O_WRONLY | O_CREAT | O_TRUNC, 0666);
        else
            posix_spawn_file_actions_adddup2(&fa, 2, 1);
    } else if (o->show_output == 2) {
        posix_spawn_file_actions_adddup2(&fa, 2, 1);
    }
    sigset_t def, none;
    sigemptyset(&def);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGTERM);
    sigaddset(&def, SIGHUP);
    sigaddset(&def, SIGPIPE);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&at, &def);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
                                      POSIX_SPAWN_SETSIGMASK);
    pid_t pid;
    *t0 = vn__posix_read(CLOCK_MONOTONIC);
    int e = o->path ? posix_spawn(&pid, o->path, &fa, &at, o->argv, environ)
                    : posix_spawnp(&pid, o->argv[0], &fa, &at, o->argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (e) {
        exec_error(o, e, err, errlen);
        return -e;
    }
    return pid;
}


/* ---- The helper, started once ---------------------------------------------------- */

/* What the helper reports for one run: fixed-size, written whole. */
typedef struct helper_report {
    int32_t rc;          /* vn_exec's return */
    int32_t pad;
    double wall_ns;
    vn_proc_usage u;
    char err[256];
} helper_report;

/* A request: its size, then the settings, then NUL-terminated strings:
 * stdin path ("" for /dev/null), stdout path ("" for none), program path
 * ("" to search PATH), argv. */
typedef struct request_head {
    uint32_t size;       /* of everything after this field */
    int32_t show_output;
    double timeout;
    uint32_t nargs;
} request_head;

struct vn__spawner {
    pid_t pid;
    int to, from;        /* requests out, reports in */
};

long vn__spawner_pid(const vn__spawner *s) { return s ? (long)s->pid : -1; }

static int full_write(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return VN_EIO;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int full_read(int fd, void *p, size_t n)
{
    char *c = p;
    while (n) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return VN_EIO;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

int vn__spawner_start(const char *path, vn__spawner **out, char *err, size_t errlen)
{
    int req[2], rep[2];
    if (pipe2(req, O_CLOEXEC) != 0)
        return -errno;
    if (pipe2(rep, O_CLOEXEC) != 0) {
        int rc = -errno;
        close(req[0]), close(req[1]);
        return rc;
    }
    vn__spawner *s = calloc(1, sizeof *s);
    if (!s) {
        close(req[0]), close(req[1]), close(rep[0]), close(rep[1]);
        return VN_ENOMEM;
    }
    /* The helper reads requests on fd 3 and writes reports on fd 4. */
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, req[0], 3);
    posix_spawn_file_actions_adddup2(&fa, rep[1], 4);
    char *argv[] = {(char *)path, NULL};
    int e = posix_spawn(&s->pid, path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(req[0]);
    close(rep[1]);
    if (e) {
        close(req[1]), close(rep[0]);
        free(s);
        snprintf(err, errlen, "cannot start '%s': %s", path, strerror(e));
        return -e;
    }
    s->to = req[1];
    s->from = rep[0];
    *out = s;
    return 0;
}

void vn__spawner_stop(vn__spawner *s)
{
    if (!s)
        return;
    close(s->to); /* the helper sees the end of its requests and exits */
    close(s->from);
    waitpid(s->pid, NULL, 0);
    free(s);
}

/* One run through the helper. While it runs, vernier watches its stop
 * flag: when raised, SIGTERM tells the helper to stop the command's group
 * and report the run as interrupted. */
static int exec_via_spawner(const vn_exec_opts *o, double *wall_ns, vn_proc_usage *u, char *err,
                            size_t errlen)
{
    vn_buf b;
    vn_buf_init(&b, 0);
    /* Zeroed whole, padding included: the bytes go down a pipe as they
     * are, and unset ones would hand the helper whatever the stack held. */
    request_head h;
    memset(&h, 0, sizeof h);
    h.show_output = o->show_output;
    h.timeout = o->timeout;
    int rc = vn_buf_append(&b, &h, sizeof h);
    const char *in = o->stdin_path ? o->stdin_path : "", *path = o->path ? o->path : "";
    const char *out = o->stdout_path ? o->stdout_path : "";
    rc |= vn_buf_append(&b, in, strlen(in) + 1);
    rc |= vn_buf_append(&b, out, strlen(out) + 1);
    rc |= vn_buf_append(&b, path, strlen(path) + 1);
    for (char *const *a = o->argv; *a && rc == 0; a++, h.nargs++)
        rc = vn_buf_append(&b, *a, strlen(*a) + 1);
    if (rc) {
        vn_buf_free(&b);
        return VN_ENOMEM;
    }
    h.size = (uint32_t)(b.len - sizeof h.size);
    memcpy(b.data, &h, sizeof h);
    rc = full_write(o->spawner->to, b.data, b.len);
    vn_buf_free(&b);
    if (rc) {
        snprintf(err, errlen, "the helper vernier-spawn stopped answering");
        return rc;
    }
    /* Waits until the report comes or a signal raises the stop flag:
     * SIGINT, SIGTERM and SIGHUP are let in only inside ppoll(), so one that
     * arrives before it starts is not lost. A flag raised some other way (by
     * another thread of a host program) is seen within vn__exec_stop_check. */
    sigset_t block, old;
    vn__exec_block_signals(&block, &old);
    int signalled = 0;
    for (;;) {
        if (o->stop_flag && *o->stop_flag && !signalled) {
            kill(o->spawner->pid, SIGTERM);
            signalled = 1;
        }
        struct pollfd p = {o->spawner->from, POLLIN, 0};
        if (vn__exec_wait_for(&p, &vn__exec_stop_check, &old) > 0)
            break;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    helper_report r;
    if (full_read(o->spawner->from, &r, sizeof r) != 0) {
        snprintf(err, errlen, "the helper vernier-spawn ended without a report");
        return VN_EIO;
    }
    *wall_ns = r.wall_ns;
    *u = r.u;
    r.err[sizeof r.err - 1] = '\0';
    if (r.rc < 0)
        snprintf(err, errlen, "%s", r.err);
    return r.rc;
}

int vn__spawner_serve(int in_fd, int out_fd, volatile int *stop_flag)
{
    for (;;) {
        uint32_t size;
        if (full_read(in_fd, &size, sizeof size) != 0)
            return 0; /* vernier closed the pipe: done */
        if (size < sizeof(request_head) - sizeof size || size > (64u << 20))
            return VN_EINVAL;
        char *buf = malloc((size_t)size + 1);
        if (!buf)
            return VN_ENOMEM;
        if (full_read(in_fd, buf, size) != 0) {
            free(buf);
            return VN_EIO;
        }
        buf[size] = '\0';
        request_head h;
        memcpy((char *)&h + sizeof size, buf, sizeof h - sizeof size);
        char *p = buf + (sizeof h - sizeof size), *end = buf + size;
        char **argv = calloc((size_t)h.nargs + 1, sizeof *argv);
        char *in = p;
        p += strlen(p) + 1;
        char *out = p < end ? p : NULL;
        if (out)
            p += strlen(p) + 1;
        char *path = p < end ? p : NULL;
        if (path)
            p += strlen(p) + 1;
        for (uint32_t i = 0; argv && i < h.nargs && p < end; i++) {
            argv[i] = p;
            p += strlen(p) + 1;
        }
        helper_report r;
        memset(&r, 0, sizeof r);
        if (!argv || !argv[0] || !path || !out) {
            r.rc = VN_EINVAL;
            snprintf(r.err, sizeof r.err, "a malformed request");
        } else {
            vn_exec_opts o;
            memset(&o, 0, sizeof o);
            o.argv = argv;
            o.stdin_path = *in ? in : NULL;
            o.stdout_path = *out ? out : NULL;
            o.path = *path ? path : NULL;
            o.show_output = h.show_output;
            o.timeout = h.timeout;
            o.stop_flag = stop_flag;
            r.rc = vn_exec(&o, &r.wall_ns, &r.u, r.err, sizeof r.err);
        }
        free(argv);
        free(buf);
        if (stop_flag)
            *stop_flag = 0; /* ready for the next run */
        if (full_write(out_fd, &r, sizeof r) != 0)
            return VN_EIO;
    }
}

int vn_exec(const vn_exec_opts *o, double *wall_ns, vn_proc_usage *u, char *err, size_t errlen)
{
    if (!o || !o->argv || !o->argv[0] || !wall_ns || !u)
        return VN_EINVAL;
    memset(u, 0, sizeof *u);
    u->tree_peak_kib = -1;
    if (o->spawner && !o->on_spawn && !o->cgroup)
        return exec_via_spawner(o, wall_ns, u, err, errlen);
    if (!o->on_spawn && !o->cgroup) {
        uint64_t t0;
        pid_t pid = spawn_fast(o, &t0, err, errlen);
        if (pid < 0)
            return (int)pid;
        return vn__exec_wait_child(o, pid, t0, wall_ns, u);
    }
    int go[2], ep[2];
    if (pipe2(go, O_CLOEXEC) != 0)
        return -errno;
    if (pipe2(ep, O_CLOEXEC) != 0) {
        int rc = -errno;
        close(go[0]);
        close(go[1]);
        return rc;
    }
    int cg = -1;
    if (o->cgroup) {
        char procs[1100];
        snprintf(procs, sizeof procs, "%s/cgroup.procs", o->cgroup);
        cg = open(procs, O_WRONLY | O_CLOEXEC);
    }
    pid_t pid = fork();
    if (pid < 0) {
        int rc = -errno;
        close(go[0]), close(go[1]), close(ep[0]), close(ep[1]);
        if (cg >= 0)
            close(cg);
        snprintf(err, errlen, "cannot start '%s': %s", o->argv[0], strerror(-rc));
        return rc;
    }
    if (pid == 0)
        child(o, go[0], ep[1], cg);
    close(go[0]);
    close(ep[1]);
    if (cg >= 0)
        close(cg);
    /* Both sides set the group, so it exists whichever runs first. */
    setpgid(pid, pid);
    int rc = child_says(ep[0]);
    if (rc != 0) {
        /* The child could not get ready (its stdin, /dev/null, the cgroup). */
        rc = rc == 1 ? VN_EIO : rc;
        snprintf(err, errlen, "cannot run '%s': %s", o->argv[0], strerror(-rc));
        close(go[1]);
        close(ep[0]);
        waitpid(pid, NULL, 0);
        return rc;
    }
    if (o->on_spawn && (rc = o->on_spawn(pid, o->ctx)) != 0) {
        snprintf(err, errlen, "cannot prepare '%s': %s", o->argv[0], vn_strerror(rc));
        kill(pid, SIGKILL);
        close(go[1]);
        close(ep[0]);
        waitpid(pid, NULL, 0);
        return rc;
    }
    uint64_t t0 = vn__posix_read(CLOCK_MONOTONIC);
    ssize_t w = write(go[1], "g", 1);
    close(go[1]);
    /* The end of the pipe here means the exec succeeded (the pipe closed
     * on exec); 'F' and an errno, that it failed. */
    rc = w == 1 ? child_says(ep[0]) : VN_EIO;
    close(ep[0]);
    if (rc != 1) {
        struct rusage ru;
        if (w != 1)
            kill(pid, SIGKILL);
        wait4(pid, NULL, 0, &ru);
        rc = rc == 0 ? VN_EIO : rc;
        exec_error(o, -rc, err, errlen);
        return rc;
    }

    return vn__exec_wait_child(o, pid, t0, wall_ns, u);
}
