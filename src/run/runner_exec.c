/* Running one command of vernier run: the spawn, its counters and memory
 * cgroup, the hooks (--prepare, --setup, --cleanup), the warmup runs and
 * the shell's own start-up. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_internal.h"
#include "engine/internal.h"
#include "base/format.h"
#include "run.h"
#include "stats/internal.h"

int vn__default_exec(const vn_exec_opts *o, double *wall_ns, vn_proc_usage *u, char *err,
                     size_t errlen, void *ctx)
{
    (void)ctx;
    return vn_exec(o, wall_ns, u, err, errlen);
}

/* Between the child's fork and its exec: counters that start at the exec
 * and follow the command's own children. */
static int attach_counters(pid_t pid, void *ctx)
{
    runctx *x = ctx;
    x->cur = NULL;
    if (vn_counters_open_child(x->c->counters, pid, &x->cur, x->why, sizeof x->why) != 0)
        x->cur = NULL; /* counted as unknown for this run; the run itself goes on */
    return 0;
}

/* The counts of the run that just ended, in the first run's event order;
 * NAN where an event did not count. */
void vn__take_counts(runctx *x, double *out)
{
    for (size_t i = 0; i < x->ncounters; i++)
        out[i] = NAN;
    vn_counts n;
    if (!x->cur || vn_counters_read(x->cur, &n) != 0)
        goto done;
    vn_counts zero;
    memset(&zero, 0, sizeof zero);
    zero.n = n.n;
    double v[VN_COUNTERS_MAX];
    uint32_t scaled = 0;
    vn__ctr_delta(&zero, &n, 1, v, &scaled);
    for (size_t i = 0; i < x->ncounters; i++)
        for (size_t k = 0; k < vn_counters_n(x->cur); k++)
            if (!strcmp(vn_counters_name(x->first, i), vn_counters_name(x->cur, k)))
                out[i] = v[k];
done:
    if (x->cur != x->first)
        vn_counters_destroy(x->cur);
    x->cur = NULL;
}

/* Adds a sentence to the run's note, after any already there. */
VN_PRINTF(2, 3)
void vn__add_note(vn_run_results *r, const char *fmt, ...)
{
    size_t l = strlen(r->note);
    if (l && l + 2 < sizeof r->note) {
        memcpy(r->note + l, "; ", 3);
        l += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->note + l, sizeof r->note - l, fmt, ap);
    va_end(ap);
}

int vn__o_counting(const runctx *x)
{
    return x->c->counters && strcmp(x->c->counters, "none") != 0 && !x->c->executor;
}

/* For a kernel that keeps memory.peak at the largest value so far (cgroup
 * v2 before Linux 6.12): the next run starts in a new group, whose peak
 * starts from nothing, and the old one is removed. 0, or -1 when that
 * cannot be done (the caller then says each peak is the largest so far). */
static int renew_group(runctx *x)
{
    char next[sizeof x->cgbuf];
    if (vn__cgroup_create_next(x->first_group, ++x->cg_seq, next, sizeof next, x->renew_why,
                              sizeof x->renew_why) != 0)
        return -1;
    int fd = vn__cgroup_peak_open(next);
    int e = fd < 0 ? -fd : 0;
    if (fd >= 0 && x->helper_in_group)
        e = -vn__cgroup_join(next, vn__spawner_pid(x->spawner));
    if (e) {
        snprintf(x->renew_why, sizeof x->renew_why, "%s: %s", next, strerror(e));
        if (fd >= 0)
            close(fd);
        vn__cgroup_remove(next);
        return -1;
    }
    close(x->peak_fd);
    /* Empty now (the run was reaped, the helper moved on) unless the
     * command left something running in it; vn__sweep_groups() tries again at
     * the end. */
    rmdir(x->cgbuf);
    memcpy(x->cgbuf, next, sizeof next);
    x->peak_fd = fd;
    return 0;
}

/* The groups renew_group() left behind because a command left something
 * running in them (named as vn__cgroup_create_next names them): one more try
 * each, waiting for what is exiting, and a note for those that stay. */
void vn__sweep_groups(runctx *x, vn_run_results *results, int report)
{
    size_t left = 0;
    char first[sizeof x->first_group + 16] = "";
    for (unsigned k = 0; k < x->cg_seq; k++) {
        char dir[sizeof first];
        if (k == 0)
            snprintf(dir, sizeof dir, "%s", x->first_group);
        else
            snprintf(dir, sizeof dir, "%s-%u", x->first_group, k);
        if (rmdir(dir) == 0 || errno == ENOENT || vn__cgroup_remove(dir) == 0)
            continue;
        if (!left++)
            memcpy(first, dir, sizeof first);
    }
    if (left == 1 && report)
        vn__add_note(results,
                 "the cgroup %s could not be removed: something a command started is still in "
                 "it; remove it with rmdir once that has ended",
                 first);
    else if (left && report)
        vn__add_note(results,
                 "%zu cgroups, %s and others numbered like it, could not be removed: something "
                 "the commands started is still in them; remove them with rmdir once that has "
                 "ended",
                 left, first);
}

/* Runs argv once with the run's settings; fills wall and usage. */
int vn__run_once(runctx *x, char *const *argv, const char *path, int show, double *wall,
                    vn_proc_usage *u, char *err, size_t errlen)
{
    vn_exec_opts o;
    memset(&o, 0, sizeof o);
    o.argv = argv;
    o.path = path;
    o.spawner = x->spawner;
    o.stdin_path = x->input.fd >= 0 ? x->input.path : x->c->input;
    o.stdout_path = show ? NULL : x->stdout_path;
    o.show_output = show;
    o.timeout = x->c->timeout;
    o.stop_flag = x->c->stop_flag;
    o.cgroup = x->helper_in_group ? NULL : x->cgroup;
    if (x->c->counters && strcmp(x->c->counters, "none") != 0 && !x->c->executor) {
        o.on_spawn = attach_counters;
        o.ctx = x;
    }
    int rc = x->exec(&o, wall, u, err, errlen, x->c->executor_ctx);
    if (rc >= 0 && x->cgroup) {
        long long kib;
        if (vn__cgroup_peak(x->peak_fd, &kib) == 0) {
            if (kib < 0) {
                kib = -kib - 1;
                if (renew_group(x) != 0)
                    x->peak_resets = 0;
            }
            u->tree_peak_kib = kib;
        }
    }
    return rc;
}

/* Counters of a run nobody keeps (a hook, a warmup run). */
void vn__drop_counts(runctx *x)
{
    if (x->cur && x->cur != x->first)
        vn_counters_destroy(x->cur);
    x->cur = NULL;
}

/* A shell hook (--prepare, --setup, --cleanup): untimed, must succeed. */
int vn__hook(runctx *x, const char *what, const char *cmd, vn_run_failure *fail)
{
    if (!cmd)
        return 0;
    char **argv = vn__shell_argv(x->c, cmd);
    if (!argv) {
        fail->failed = 1;
        snprintf(fail->message, sizeof fail->message, "out of memory for the %s command", what);
        return 1;
    }
    double wall;
    vn_proc_usage u;
    char err[256] = "";
    int rc = vn__run_once(x, argv, x->shell_path, x->c->show_output, &wall, &u, err, sizeof err);
    vn__words_free(argv);
    vn__drop_counts(x);
    if (rc == VN_EXEC_INTERRUPTED)
        return 1;
    if (rc < 0 || rc == VN_EXEC_TIMED_OUT || u.exit_status != 0) {
        fail->failed = 1;
        const char *q = vn__quote_for(cmd);
        if (rc < 0)
            snprintf(fail->message, sizeof fail->message, "the %s command %s%s%s could not run: %s",
                     what, q, cmd, q, err);
        else if (rc == VN_EXEC_TIMED_OUT)
            snprintf(fail->message, sizeof fail->message,
                     "the %s command %s%s%s ran past the timeout and was stopped", what, q, cmd, q);
        else if (u.signal)
            snprintf(fail->message, sizeof fail->message, "the %s command %s%s%s was killed by SIG%s",
                     what, q, cmd, q, sigabbrev_np(u.signal));
        else
            snprintf(fail->message, sizeof fail->message,
                     "the %s command %s%s%s exited with status %d; it must succeed", what, q, cmd, q,
                     u.exit_status);
        return 1;
    }
    return 0;
}

/* One line: what failed, where ("on run 3", "in warmup"), what to do. */
void vn__describe_failure(const row *r, const char *where, int rc, const vn_proc_usage *u,
                             const vn_run_config *c, char *out, size_t outlen)
{
    const char *keep = c->ignore_failure ? "" : "; use --ignore-failure to keep going";
    const char *q = vn__quote_for(r->text);
    if (rc == VN_EXEC_TIMED_OUT)
    {
        char t[32];
        snprintf(out, outlen,
                 "%s%.200s%s ran past the timeout of %s s %s and was stopped with its process "
                 "group; raise --timeout%s",
                 q, r->text, q, vn__fmt_exact(t, sizeof t, c->timeout), where,
                 c->ignore_failure ? "" : " or use --ignore-failure");
    }
    else if (u->signal)
        snprintf(out, outlen, "%s%.200s%s was killed by SIG%s (%s) %s%s", q, r->text, q,
                 sigabbrev_np(u->signal) ? sigabbrev_np(u->signal) : "?", strsignal(u->signal),
                 where, keep);
    else
        snprintf(out, outlen, "%s%.200s%s exited with status %d %s%s", q, r->text, q, u->exit_status,
                 where, keep);
}

/* One untimed warmup run of a row; 1 when the whole measurement must stop
 * (a failure, said in fail, or an interruption). */
int vn__warm(runctx *x, row *r, const vn_run_config *c, vn_run_failure *fail)
{
    double wall;
    vn_proc_usage u;
    char why[512] = "";
    int e = vn__run_once(x, r->argv, r->shell ? x->shell_path : r->path, c->show_output, &wall, &u,
                     why, sizeof why);
    vn__drop_counts(x);
    r->warmed++;
    if (e < 0) {
        snprintf(fail->message, sizeof fail->message, "%s", why);
        fail->failed = 1;
        return 1;
    }
    if (e == VN_EXEC_INTERRUPTED)
        return 1;
    if ((e == VN_EXEC_TIMED_OUT || u.exit_status || u.signal) && !c->ignore_failure) {
        vn__describe_failure(r, "in warmup", e, &u, c, fail->message, sizeof fail->message);
        fail->failed = 1;
        return 1;
    }
    return 0;
}

/* The shell's own start-up: `SHELL -c ''` run SHELL_RUNS times, then more,
 * SHELL_RUNS at a time up to SHELL_RUNS_MAX, until its median is known to
 * half the precision asked: its interval is part of every interval net of
 * it, and more runs of a command cannot narrow that part. */
int vn__measure_shell(runctx *x, vn__shell_time *sh, char *err, size_t errlen)
{
    char **argv = vn__shell_argv(x->c, "");
    double *w = malloc(3 * SHELL_RUNS_MAX * sizeof *w);
    if (!argv || !w) {
        vn__words_free(argv);
        free(w);
        return VN_ENOMEM;
    }
    double *us = w + SHELL_RUNS_MAX, *sy = us + SHELL_RUNS_MAX;
    int rc = 0;
    size_t n = 0;
    for (int i = 0; rc == 0 && n < SHELL_RUNS_MAX; i++) {
        vn_proc_usage u;
        double t;
        rc = vn__run_once(x, argv, x->shell_path, 0, &t, &u, err, errlen);
        vn__drop_counts(x);
        if (rc == VN_EXEC_OK && (u.exit_status || u.signal)) {
            snprintf(err, errlen, "the shell '%s' fails to run an empty command; give another",
                     argv[0]);
            rc = VN_EINVAL;
        }
        if (rc != VN_EXEC_OK) {
            rc = rc < 0 ? rc : VN_EINVAL;
            break;
        }
        if (i < 3) /* the first runs warm the caches */
            continue;
        w[n] = t, us[n] = u.user_ns, sy[n] = u.sys_ns;
        if (++n % SHELL_RUNS)
            continue;
        /* The wall time's median and its interval, like the headline it is
         * taken from, whose interval then carries both (the decision's net
         * interval). */
        if ((rc = vn_median_ci(w, n, &sh->wall, &sh->lo, &sh->hi)) != 0)
            break;
        if (fmax(sh->wall - sh->lo, sh->hi - sh->wall) <= x->c->precision / 200 * sh->wall)
            break;
    }
    /* User and system time as means, like the summary they are taken from
     * (the kernel splits short runs' CPU time between the two by ticks). */
    double su = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        su += us[i], ss += sy[i];
    sh->n = n;
    sh->user = n ? su / (double)n : 0;
    sh->sys = n ? ss / (double)n : 0;
    vn__words_free(argv);
    free(w);
    return rc;
}
