/* process: what making a process or a thread costs, from making to reaping.
 * fork + _exit + wait, with the parent's touched memory varied, shows
 * fork's copy of the page tables; fork + exec, vfork + exec and posix_spawn
 * of vernier-noop (a static program that exits at once) show what starting
 * a program costs each way; vfork + _exit and a thread created and joined
 * are the floor. Every iteration waits for its child, so none outlives its
 * sample, whatever stops the run.
 *
 * fork copies the page tables of its whole caller, and write-protects its
 * pages on every CPU its threads ran on, so the fork rows fork a clean
 * parent (vernier-noop's fork server) that holds only the memory the row
 * names: forked from vernier, they would also pay for whatever the other
 * families of the run hold. The others share the parent's memory (vfork,
 * posix_spawn) or make no process (a thread), and run from vernier. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fileutil.h"
#include "base/format.h"
#include "suite/fork_server.h"
#include "suite/suite.h"

#ifndef VN_LIBEXECDIR
#define VN_LIBEXECDIR "/usr/local/libexec/vernier"
#endif

/* The status of a child whose exec failed: not one vernier-noop exits with,
 * so the parent tells the two apart. */
#define EXEC_FAILED 127

#define MIB ((size_t)1 << 20)

/* ---- Children ------------------------------------------------------------- */

/* The options of a row of the family: one child (or thread) a sample,
 * made and reaped, so the percentiles are those of single creations, and
 * a fork of a large parent, which takes milliseconds, is no longer a
 * sample than that. */
static void row_opts(vn_bench_opts *o, void (*setup)(vn_state *), void *user)
{
    vn_bench_opts_init(o);
    o->setup = setup;
    o->user = user;
    o->iterations = 1;
}

static int add_row(vn_suite *s, const char *name, vn_bench_fn fn, void (*setup)(vn_state *), void *user)
{
    vn_bench_opts o;
    row_opts(&o, setup, user);
    return vn_suite_add(s, name, fn, &o);
}

/* Fails the row for a child that did not exit 0 (its wait status): one
 * whose exec of path failed (NULL: it execs nothing) says so. */
static void status_fail(vn_state *st, int status, const char *path)
{
    char msg[PATH_MAX + 96];
    if (WIFEXITED(status) && WEXITSTATUS(status) == EXEC_FAILED && path)
        snprintf(msg, sizeof msg, "the child could not exec %s (it exited %d)", path, EXEC_FAILED);
    else if (WIFEXITED(status))
        snprintf(msg, sizeof msg, "the child exited with status %d, not 0", WEXITSTATUS(status));
    else
        snprintf(msg, sizeof msg, "the child was killed by signal %d", WTERMSIG(status));
    vn_state_fail(st, msg);
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
    status_fail(st, status, path);
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

/* ---- fork, in a clean parent --------------------------------------------------- */

/* Where vernier-noop is, found on the row's first sample into path (n
 * bytes; "" until then). 0, or -1 with the row skipped, saying why. */
static int find_noop(vn_state *st, char *path, size_t n)
{
    if (path[0] || vn__find_helper("vernier-noop", VN_LIBEXECDIR, path, n))
        return 0;
    path[0] = '\0';
    vn_state_skip(st, "vernier-noop is neither next to vernier nor in " VN_LIBEXECDIR
                      " (build or install it)");
    return -1;
}

/* A row whose forks vernier-noop's fork server does (fork_server.h): the
 * parent it forks holds bytes touched and little else, whatever else the
 * run holds. Started on the row's first sample, stopped at the end of the
 * suite (or of an interrupted run). */
typedef struct forker {
    size_t bytes;
    int cmd;                   /* 'f': the child _exits; 'x': it execs vernier-noop */
    char name[64];
    char path[PATH_MAX];
    vn__fork_server srv;
} forker;

static void forker_free(void *arg)
{
    forker *f = arg;
    vn__fork_server_stop(&f->srv);
    free(f);
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

static void forker_setup(vn_state *st)
{
    forker *f = vn_state_user(st);
    if (f->srv.pid > 0 || find_noop(st, f->path, sizeof f->path))
        return;
    /* Twice the size: room for the page tables' copies and for the rest
     * of the machine. */
    size_t avail = mem_available();
    if (f->bytes > MIB && avail && avail < 2 * f->bytes) {
        char why[192];
        snprintf(why, sizeof why, "needs %zu MiB of free memory, and /proc/meminfo has %zu MiB available",
                 2 * f->bytes / MIB, avail / MIB);
        vn_state_skip(st, why);
        return;
    }
    vn__fork_server_start(&f->srv, f->path, f->bytes / MIB, st);
}

static void forker_body(vn_state *st)
{
    forker *f = vn_state_user(st);
    while (vn_next(st)) {
        double ns;
        int rc = vn__fork_server_fork(&f->srv, f->cmd, &ns, st);
        if (rc > 0)
            status_fail(st, rc, f->cmd == 'x' ? f->path : NULL);
        if (rc)
            return;
        vn_state_set_time(st, ns);
    }
}

static int add_forker(vn_suite *s, vn__suite_ctx *ctx, const char *name, size_t bytes, int cmd)
{
    forker *f = calloc(1, sizeof *f);
    if (!f)
        return VN_ENOMEM;
    f->bytes = bytes;
    f->cmd = cmd;
    snprintf(f->name, sizeof f->name, "%s", name);
    int rc = vn__suite_on_exit(ctx, forker_free, f);
    if (rc)
        return rc;
    vn_bench_opts o;
    row_opts(&o, forker_setup, f);
    /* The server times each fork itself: vernier's side of the pipes is
     * no part of it. */
    o.manual_time = 1;
    return vn_suite_add(s, f->name, forker_body, &o);
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
    /* Two rows of one run: their estimates' own intervals, not the next
     * run's. */
    double lo = (b->est_ci[0] - a->est_ci[1]) / mib;
    double hi = (b->est_ci[1] - a->est_ci[0]) / mib;
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
        char row[64];
        fork_row_name(row, sizeof row, name, sizes[i]);
        rc = add_forker(s, ctx, row, sizes[i], 'f');
    }
    return rc;
}

/* fork + exec from the clean parent of the small fork row, so the two
 * rows differ by the exec alone. */
int vn__suite_process_fork_exec(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    size_t small, large;
    fork_sizes(ctx, &small, &large);
    return add_forker(s, ctx, name, small, 'x');
}

/* ---- Starting vernier-noop from vernier ----------------------------------------- */

/* vfork and posix_spawn share the parent's memory until the exec (CLONE_VM)
 * and copy no page tables, so they run from vernier itself. */
typedef struct starter {
    int spawn;                 /* posix_spawn; else vfork + exec */
    char path[PATH_MAX];       /* "" until the first sample looks */
} starter;

static void start_setup(vn_state *st)
{
    starter *s = vn_state_user(st);
    find_noop(st, s->path, sizeof s->path);
}

static void start_body(vn_state *st)
{
    starter *s = vn_state_user(st);
    char *argv[] = {s->path, NULL}, *envp[] = {NULL};
    while (vn_next(st)) {
        pid_t pid = -1;
        int err = 0;
        if (s->spawn)
            err = posix_spawn(&pid, s->path, NULL, NULL, argv, envp);
        else
            err = (pid = vfork_child(s->path, argv, envp)) < 0 ? errno : 0;
        if (err) {
            fail_errno(st, s->spawn ? "posix_spawn" : "vfork", err);
            return;
        }
        if (reap(st, pid, s->path))
            return;
    }
}

static int add_starter(vn_suite *s, vn__suite_ctx *ctx, const char *name, int spawn)
{
    starter *u = calloc(1, sizeof *u);
    if (!u)
        return VN_ENOMEM;
    u->spawn = spawn;
    int rc = vn__suite_on_exit(ctx, free, u);
    return rc ? rc : add_row(s, name, start_body, start_setup, u);
}

int vn__suite_process_vfork_exec(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add_starter(s, ctx, name, 0);
}

int vn__suite_process_spawn(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add_starter(s, ctx, name, 1);
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
    return add_row(s, name, vfork_body, NULL, NULL);
}

int vn__suite_process_thread(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    (void)ctx;
    return add_row(s, name, thread_body, NULL, NULL);
}
