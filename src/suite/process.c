/* process: what making a process or a thread costs, from making to reaping.
 * fork + _exit + wait, with the parent's touched memory varied, shows
 * fork's copy of the page tables; fork + exec, vfork + exec and posix_spawn
 * of vernier-noop (a static program that exits at once) show what starting
 * a program costs each way; vfork + _exit and a thread created and joined
 * are the floor. Every iteration waits for its child, so none outlives its
 * sample, whatever stops the run. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileutil.h"
#include "format.h"
#include "suite/suite.h"

#ifndef VN_LIBEXECDIR
#define VN_LIBEXECDIR "/usr/local/libexec/vernier"
#endif

/* The status of a child whose exec failed: not one vernier-noop exits with,
 * so the parent tells the two apart. */
#define EXEC_FAILED 127

#define MIB ((size_t)1 << 20)

/* ---- Children ------------------------------------------------------------- */

/* Adds a row of the family: one child (or thread) a sample, made and
 * reaped, so the percentiles are those of single creations, and a fork of
 * a large parent, which takes milliseconds, is no longer a sample than
 * that. */
static int add_row(vn_suite *s, const char *name, vn_bench_fn fn, void (*setup)(vn_state *),
                   void (*teardown)(vn_state *), void *user)
{
    vn_bench_opts o;
    vn_bench_opts_init(&o);
    o.setup = setup;
    o.teardown = teardown;
    o.user = user;
    o.iterations = 1;
    return vn_suite_add(s, name, fn, &o);
}

/* Waits for the child and checks that it exited 0. 0, or -1 with the row
 * failed and why. */
static int reap(vn_state *st, pid_t pid, const char *path)
{
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            char msg[128];
            snprintf(msg, sizeof msg, "waitpid: %s", strerror(errno));
            vn_state_fail(st, msg);
            return -1;
        }
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    char msg[PATH_MAX + 96];
    if (WIFEXITED(status) && WEXITSTATUS(status) == EXEC_FAILED && path)
        snprintf(msg, sizeof msg, "the child could not exec %s (it exited %d)", path, EXEC_FAILED);
    else if (WIFEXITED(status))
        snprintf(msg, sizeof msg, "the child exited with status %d, not 0", WEXITSTATUS(status));
    else
        snprintf(msg, sizeof msg, "the child was killed by signal %d", WTERMSIG(status));
    vn_state_fail(st, msg);
    return -1;
}

static void fail_errno(vn_state *st, const char *what, int err)
{
    char msg[128];
    snprintf(msg, sizeof msg, "%s: %s", what, strerror(err));
    vn_state_fail(st, msg);
}

/* The child of vfork borrows the parent's memory and stack until it execs
 * or exits, so it does nothing else; alone in a function of its own, no
 * variable of a caller can be clobbered. path NULL: _exit at once. */
__attribute__((noinline)) static pid_t vfork_child(const char *path, char *const argv[], char *const envp[])
{
    pid_t pid = vfork();
    if (pid == 0) {
        if (path)
            execve(path, argv, envp);
        _exit(path ? EXEC_FAILED : 0);
    }
    return pid;
}

/* ---- fork with the parent's memory varied ------------------------------------ */

/* The parent's touched memory of one row, made on its first sample. Between
 * the row's samples it is marked MADV_DONTFORK, so every other fork of the
 * run (this family's, the other families' children) copies none of it. */
typedef struct touched {
    size_t bytes;
    char *p;
    char name[64];
} touched;

static void touched_free(void *arg)
{
    touched *t = arg;
    if (t->p)
        munmap(t->p, t->bytes);
    free(t);
}

/* MemAvailable of /proc/meminfo in bytes; 0 unknown. */
static size_t mem_available(void)
{
    char text[8192];
    if (vn__read_text("/proc/meminfo", text, sizeof text) < 0)
        return 0;
    const char *at = strstr(text, "MemAvailable:");
    unsigned long long kib;
    return at && sscanf(at + 13, "%llu", &kib) == 1 ? (size_t)kib * 1024 : 0;
}

static void fork_setup(vn_state *st)
{
    touched *t = vn_state_user(st);
    char why[192];
    if (!t->p) {
        /* Twice the size: room for the page tables' copies and for the
         * rest of the machine. */
        size_t avail = mem_available();
        if (t->bytes > MIB && avail && avail < 2 * t->bytes) {
            snprintf(why, sizeof why, "needs %zu MiB of free memory, and /proc/meminfo has %zu MiB available",
                     2 * t->bytes / MIB, avail / MIB);
            vn_state_skip(st, why);
            return;
        }
        void *p = mmap(NULL, t->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            snprintf(why, sizeof why, "cannot map %zu MiB: %s", t->bytes / MIB, strerror(errno));
            vn_state_skip(st, why);
            return;
        }
        /* Pages of 4 KiB, the parent of many small allocations, whatever
         * the machine's transparent huge pages would give it (a huge page
         * is one entry to copy, not 512). Without THP this fails, and the
         * pages are 4 KiB anyway. */
        madvise(p, t->bytes, MADV_NOHUGEPAGE);
        memset(p, 1, t->bytes);
        if (madvise(p, t->bytes, MADV_DONTFORK) != 0) {
            munmap(p, t->bytes);
            fail_errno(st, "madvise(MADV_DONTFORK)", errno);
            return;
        }
        t->p = p;
    }
    if (madvise(t->p, t->bytes, MADV_DOFORK) != 0)
        fail_errno(st, "madvise(MADV_DOFORK)", errno);
}

static void fork_teardown(vn_state *st)
{
    touched *t = vn_state_user(st);
    if (t->p && madvise(t->p, t->bytes, MADV_DONTFORK) != 0)
        fail_errno(st, "madvise(MADV_DONTFORK)", errno);
}

static void fork_body(vn_state *st)
{
    while (vn_next(st)) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(0);
        if (pid < 0) {
            fail_errno(st, "fork", errno);
            return;
        }
        if (reap(st, pid, NULL))
            return;
    }
}

/* The two sizes of the parent's touched memory: 1 MiB, and a large one, the
 * smaller with --quick (the row's name says which). */
static void fork_sizes(const vn__suite_ctx *ctx, size_t *small, size_t *large)
{
    *small = MIB;
    *large = (ctx->quick ? 64 : 256) * MIB;
}

static void fork_row_name(char *s, size_t n, const char *name, size_t bytes)
{
    char size[16];
    snprintf(s, n, "%s/touched=%s", name, vn__suite_size_name(size, sizeof size, (int64_t)bytes));
}

/* What a MiB more of the parent's memory adds to a fork, from the two rows:
 * the page tables' copy, and their teardown when the child exits. */
static int fork_summary(vn_results *r, const vn__suite_ctx *ctx)
{
    size_t small, large;
    fork_sizes(ctx, &small, &large);
    char ns[64], nl[64];
    fork_row_name(ns, sizeof ns, "process.fork", small);
    fork_row_name(nl, sizeof nl, "process.fork", large);
    const vn_result *a = vn__suite_row(r, ns), *b = vn__suite_row(r, nl);
    if (!a || !b)
        return 0;
    double mib = (double)(large - small) / (double)MIB;
    double per = (b->stats.median - a->stats.median) / mib;
    double lo = (b->stats.median_ci[0] - a->stats.median_ci[1]) / mib;
    double hi = (b->stats.median_ci[1] - a->stats.median_ci[0]) / mib;
    char tp[32], ta[32], tb[32], tl[32], th[32], tg[32], brief[128], why[768];
    vn__fmt_ns(tp, sizeof tp, per);
    snprintf(brief, sizeof brief, "process.fork: %s%s per MiB the parent touched (%s: %s, %s: %s)",
             per >= 0 ? "+" : "", tp, strchr(ns, '=') + 1, vn__fmt_ns(ta, sizeof ta, a->stats.median),
             strchr(nl, '=') + 1,
             vn__fmt_ns(tb, sizeof tb, b->stats.median));
    snprintf(why, sizeof why,
             "fork() copies the parent's page tables and marks its pages copy-on-write, and the "
             "child's exit tears its copies down; both are in a row's time, since the parent waits. "
             "Per MiB of touched memory in 4 KiB pages (%.0f page table entries), the difference of "
             "the two rows' medians over the %.0f MiB between them is %s, %s to %s by their 95%% "
             "intervals, or %s a page. A parent with gigabytes touched pays this many times over on "
             "every fork; posix_spawn and vfork copy no page tables.",
             (double)MIB / 4096, mib, tp, vn__fmt_ns(tl, sizeof tl, lo), vn__fmt_ns(th, sizeof th, hi),
             vn__fmt_ns(tg, sizeof tg, per / ((double)MIB / 4096)));
    return vn_results_add_finding(r, "process.fork.touched", brief, why);
}

int vn__suite_process_fork(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    int rc = vn__suite_summarize(ctx, fork_summary);
    size_t sizes[2];
    fork_sizes(ctx, &sizes[0], &sizes[1]);
    for (int i = 0; i < 2 && rc == 0; i++) {
        touched *t = calloc(1, sizeof *t);
        if (!t)
            return VN_ENOMEM;
        t->bytes = sizes[i];
        fork_row_name(t->name, sizeof t->name, name, sizes[i]);
        if ((rc = vn__suite_on_exit(ctx, touched_free, t)) != 0)
            break;
        rc = add_row(s, t->name, fork_body, fork_setup, fork_teardown, t);
    }
    return rc;
}

/* ---- Starting vernier-noop ------------------------------------------------------ */

enum { BY_FORK, BY_VFORK, BY_SPAWN };

typedef struct starter {
    int how;
    char path[PATH_MAX];       /* "" until the first sample looks */
} starter;

static void start_setup(vn_state *st)
{
    starter *s = vn_state_user(st);
    if (!s->path[0] && !vn__find_helper("vernier-noop", VN_LIBEXECDIR, s->path, sizeof s->path)) {
        s->path[0] = '\0';
        vn_state_skip(st, "vernier-noop is neither next to vernier nor in " VN_LIBEXECDIR
                          " (build or install it)");
    }
}

static void start_body(vn_state *st)
{
    starter *s = vn_state_user(st);
    char *argv[] = {s->path, NULL}, *envp[] = {NULL};
    while (vn_next(st)) {
        pid_t pid = -1;
        int err = 0;
        if (s->how == BY_SPAWN)
            err = posix_spawn(&pid, s->path, NULL, NULL, argv, envp);
        else if (s->how == BY_VFORK)
            err = (pid = vfork_child(s->path, argv, envp)) < 0 ? errno : 0;
        else if ((pid = fork()) == 0) {
            execve(s->path, argv, envp);
            _exit(EXEC_FAILED);
        } else if (pid < 0)
            err = errno;
        if (err) {
            fail_errno(st, s->how == BY_SPAWN ? "posix_spawn" : s->how == BY_VFORK ? "vfork" : "fork", err);
            return;
        }
        if (reap(st, pid, s->path))
            return;
    }
}

static int add_starter(vn_suite *s, vn__suite_ctx *ctx, const char *name, int how)
{
    starter *u = calloc(1, sizeof *u);
    if (!u)
        return VN_ENOMEM;
    u->how = how;
    int rc = vn__suite_on_exit(ctx, free, u);
    return rc ? rc : add_row(s, name, start_body, start_setup, NULL, u);
}

int vn__suite_process_fork_exec(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add_starter(s, ctx, name, BY_FORK);
}

int vn__suite_process_vfork_exec(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add_starter(s, ctx, name, BY_VFORK);
}

int vn__suite_process_spawn(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add_starter(s, ctx, name, BY_SPAWN);
}

/* ---- The floor: vfork + _exit, and a thread --------------------------------------- */

static void vfork_body(vn_state *st)
{
    while (vn_next(st)) {
        pid_t pid = vfork_child(NULL, NULL, NULL);
        if (pid < 0) {
            fail_errno(st, "vfork", errno);
            return;
        }
        if (reap(st, pid, NULL))
            return;
    }
}

static void *returns(void *arg) { return arg; }

static void thread_body(vn_state *st)
{
    while (vn_next(st)) {
        pthread_t t;
        int err = pthread_create(&t, NULL, returns, NULL);
        if (err) {
            fail_errno(st, "pthread_create", err);
            return;
        }
        pthread_join(t, NULL);
    }
}

int vn__suite_process_vfork(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    (void)ctx;
    return add_row(s, name, vfork_body, NULL, NULL, NULL);
}

int vn__suite_process_thread(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    (void)ctx;
    return add_row(s, name, thread_body, NULL, NULL, NULL);
}
