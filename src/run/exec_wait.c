/* Waiting for a command that runs (exec_wait.h): until it ends, its
 * deadline passes or the stop flag is raised; then its group stopped, and
 * its own resource usage read from wait4(). */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/interrupt.h"
#include "clock/internal.h"
#include "exec_wait.h"

/* How often a wait looks at the stop flag when no signal woke it: a flag
 * raised by another thread of a host program is seen this late at most.
 * Four wake-ups a second cost a long command next to nothing. */
const struct timespec vn__exec_stop_check = {0, 250000000};

/* Blocks SIGINT, SIGTERM and SIGHUP on this thread (block: those three;
 * old: the mask before), so that they get in only inside a ppoll() given old. */
void vn__exec_block_signals(sigset_t *block, sigset_t *old)
{
    vn__stop_signals(block);
    pthread_sigmask(SIG_BLOCK, block, old);
}

/* One ppoll() on p with the signal mask mask; an error other than a signal
 * sleeps a millisecond, so a caller's loop never spins. */
int vn__exec_wait_for(struct pollfd *p, const struct timespec *t, const sigset_t *mask)
{
    int n = ppoll(p, 1, t, mask);
    if (n < 0 && errno != EINTR) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return n;
}

static void stop_group(pid_t pid)
{
    /* The whole group: a shell's children and a program's helpers too.
     * SIGTERM first, so they can clean up; after the leader exits, or
     * 100 ms, SIGKILL for whatever is left of the group. The leader is
     * watched with WNOWAIT, so it stays to be reaped with its rusage. */
    kill(-pid, SIGTERM);
    for (int i = 0; i < 100; i++) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
            break;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    kill(-pid, SIGKILL);
}

/* Waits for the child: on a pidfd when the kernel has them (a timeout and
 * an interrupt both wake the poll), else by polling wait4. */
int vn__exec_wait_child(const vn_exec_opts *o, pid_t pid, uint64_t t0, double *wall_ns,
                        vn_proc_usage *u)
{
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
    uint64_t deadline = o->timeout > 0 ? t0 + (uint64_t)(o->timeout * 1e9) : UINT64_MAX;
    int status = 0, result = VN_EXEC_OK;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    /* SIGINT, SIGTERM and SIGHUP get in only inside ppoll() (see exec.c):
     * the wait sleeps until the child ends, the deadline passes or a
     * signal raises the stop flag, waking only every vn__exec_stop_check to look at
     * a flag raised without a signal. */
    sigset_t block, old;
    vn__exec_block_signals(&block, &old);
    for (;;) {
        pid_t r = wait4(pid, &status, WNOHANG, &ru);
        if (r == pid)
            break;
        uint64_t now = vn__posix_read(CLOCK_MONOTONIC);
        if (o->stop_flag && *o->stop_flag) {
            result = VN_EXEC_INTERRUPTED;
        } else if (now >= deadline) {
            result = VN_EXEC_TIMED_OUT;
        }
        if (result != VN_EXEC_OK) {
            stop_group(pid);
            wait4(pid, &status, 0, &ru);
            break;
        }
        if (pfd >= 0) {
            struct timespec left = vn__exec_stop_check;
            uint64_t ns = deadline - now;
            if (ns < (uint64_t)vn__exec_stop_check.tv_nsec) {
                left.tv_sec = 0;
                left.tv_nsec = (long)ns;
            }
            struct pollfd p = {pfd, POLLIN, 0};
            vn__exec_wait_for(&p, &left, &old);
        } else {
            /* No pidfd (Linux before 5.3): look again every 200 us. */
            pthread_sigmask(SIG_SETMASK, &old, NULL);
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
            pthread_sigmask(SIG_BLOCK, &block, NULL);
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    uint64_t t1 = vn__posix_read(CLOCK_MONOTONIC);
    /* What the command left running in its group (a child sent to the
     * background) would run on into the next runs: a run ends with it. */
    kill(-pid, SIGKILL);
    if (pfd >= 0)
        close(pfd);
    *wall_ns = (double)(t1 - t0);
    u->user_ns = ru.ru_utime.tv_sec * 1e9 + ru.ru_utime.tv_usec * 1e3;
    u->sys_ns = ru.ru_stime.tv_sec * 1e9 + ru.ru_stime.tv_usec * 1e3;
    u->maxrss_kib = ru.ru_maxrss;
    u->minflt = ru.ru_minflt;
    u->majflt = ru.ru_majflt;
    u->nvcsw = ru.ru_nvcsw;
    u->nivcsw = ru.ru_nivcsw;
    u->timed_out = result == VN_EXEC_TIMED_OUT;
    if (WIFSIGNALED(status)) {
        u->exit_status = -1;
        u->signal = WTERMSIG(status);
    } else {
        u->exit_status = WEXITSTATUS(status);
        u->signal = 0;
    }
    return result;
}
