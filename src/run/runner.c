/* vernier run: whole commands over many runs. Each command (times each
 * combination of parameter values) is a row; rows take turns run by run
 * (A B A B, or shuffled blocks), so drift in the machine hits all alike. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/abi.h"
#include "cgroup_internal.h"
#include "clock/internal.h"
#include "base/format.h"
#include "engine/idle_internal.h"
#include "parse/sysinfo_parse.h"
#include "run.h"

void vn_run_config_init(vn_run_config *c)
{
    memset(c, 0, sizeof *c);
    c->size = sizeof *c;
    c->min_runs = 10;
    c->max_runs = 10000;
    c->min_time = 3.0;
    c->precision = 1.0;
    c->seed = 0x76657231;
    c->tree_memory = 1;
    c->cpu = -1;
    c->dma_latency_us = VN_DMA_LATENCY_AUTO;
}

void vn_run_results_init(vn_run_results *r)
{
    memset(r, 0, sizeof *r);
    r->size = sizeof *r;
}

void vn_run_results_free(vn_run_results *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->commands && i < r->ncommands; i++) {
        vn_run_result *x = &r->commands[i];
        free(x->command);
        for (size_t k = 0; k < x->nparams; k++) {
            free(x->pnames ? x->pnames[k] : NULL);
            free(x->pvalues ? x->pvalues[k] : NULL);
        }
        free(x->pnames);
        free(x->pvalues);
        free(x->samples);
        free(x->proc);
        free(x->sample_counts);
    }
    free(r->commands);
    vn_sysinfo_free(&r->env);
    size_t size = r->size;
    memset(r, 0, sizeof *r);
    r->size = size;
}

int vn_run_commands(const vn_run_config *given, vn_run_results *results, vn_run_compare **cmp,
                    size_t *ncmp, vn_run_failure *fail, char *err, size_t errlen)
{
    if (!given || !results || !cmp || !ncmp || !fail)
        return VN_EINVAL;
    /* The first layout of the results is the only one so far. */
    if (results->size != sizeof *results) {
        snprintf(err, errlen, "the results are %s", vn_strerror(VN_EABI));
        return VN_EABI;
    }
    /* The caller's config may come from an older header: what it lacks
     * keeps the defaults. The first layout with a size ends at dma_latency_us. */
    vn_run_config full;
    vn_run_config_init(&full);
    if (vn__abi_copy(&full, sizeof full, given, VN__SIZE_THROUGH(vn_run_config, dma_latency_us))) {
        snprintf(err, errlen, "the run settings are %s", vn_strerror(VN_EABI));
        return VN_EABI;
    }
    const vn_run_config *c = &full;
    if (!c->ncommands || !c->commands)
        return VN_EINVAL;
    memset(fail, 0, sizeof *fail);
    vn_run_results_init(results);
    *cmp = NULL;
    *ncmp = 0;
    if (c->max_runs < c->min_runs || !(c->precision > 0) || c->min_time < 0) {
        snprintf(err, errlen, "inconsistent run settings");
        return VN_EINVAL;
    }
    row *rows;
    size_t nrows;
    int rc = vn__build_rows(c, &rows, &nrows, err, errlen);
    if (rc)
        return rc;
    char sh[4096];
    const char *shell_path = NULL;
    int any_shell = 0;
    for (size_t i = 0; i < nrows; i++)
        any_shell |= rows[i].shell;
    {
        char **sw = vn__shell_argv(c, "");
        if (!sw) {
            snprintf(err, errlen, "the shell '%s' is not a command line; give a program",
                     c->shell_cmd ? c->shell_cmd : "");
            vn__free_rows(rows, nrows);
            return VN_EINVAL;
        }
        int e = c->executor ? 0 : vn__which(sw[0], sh, sizeof sh);
        if (!c->executor && e == 0)
            shell_path = sh;
        else if (!c->executor && (any_shell || c->prepare || c->nprepares || c->setup || c->cleanup)) {
            const char *q = vn__quote_for(sw[0]);
            snprintf(err, errlen, "the shell %s%s%s was not found; check the name given to -S/--shell",
                     q, sw[0], q);
            vn__words_free(sw);
            vn__free_rows(rows, nrows);
            return VN_EINVAL;
        }
        vn__words_free(sw);
    }
    drain dr;
    memset(&dr, 0, sizeof dr);
    dr.r = dr.w = dr.stop[0] = dr.stop[1] = -1;
    const char *stdout_path = NULL;
    char pipe_path[64];
    if (c->output_pipe && !c->executor) {
        if (vn__drain_start(&dr) != 0) {
            snprintf(err, errlen, "cannot make a pipe for the commands' output: %s", strerror(errno));
            rc = VN_EIO;
            goto out_early;
        }
        snprintf(pipe_path, sizeof pipe_path, "/proc/%ld/fd/%d", (long)getpid(), dr.w);
        stdout_path = pipe_path;
    } else if (c->output_file) {
        stdout_path = c->output_file;
    }
    /* Pinned before the helper starts, so it and every command inherit the
     * CPU: on a VM one vCPU can run at two thirds of another's speed, and
     * unpinned, where each child lands would decide its time. */
    cpu_set_t old_mask;
    int pinned = 0;
    if (c->cpu >= 0 && !c->executor) {
        cpu_set_t one;
        CPU_ZERO(&one);
        if (c->cpu < CPU_SETSIZE)
            CPU_SET(c->cpu, &one);
        if (c->cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof old_mask, &old_mask) != 0 ||
            sched_setaffinity(0, sizeof one, &one) != 0) {
            int e = c->cpu >= CPU_SETSIZE ? EINVAL : errno;
            snprintf(err, errlen,
                     "cannot pin to CPU %d: %s; 'taskset -pc $$' shows the CPUs allowed here",
                     c->cpu, e == EINVAL ? "not a CPU this process may run on" : strerror(e));
            vn__free_rows(rows, nrows);
            return VN_EINVAL;
        }
        pinned = 1;
    }
    runctx x;
    memset(&x, 0, sizeof x);
    x.c = c;
    x.exec = c->executor ? c->executor : vn__default_exec;
    x.peak_resets = 1;
    x.shell_path = shell_path;
    x.stdout_path = stdout_path;
    x.input.fd = -1;
    /* Without the helper (not installed, or with counters, which must
     * attach from vernier itself) commands start from vernier directly. */
    if (c->helper && !c->executor && !vn__o_counting(&x) &&
        vn__spawner_start(c->helper, &x.spawner, err, errlen) != 0)
        x.spawner = NULL;
    err[0] = '\0';
    if (!x.spawner && !c->executor && !vn__o_counting(&x))
        vn__add_note(results,
                 "vernier-spawn was not found, so commands start from vernier itself and a run's "
                 "max RSS cannot be below vernier's own; install vernier with make install");
    char cgdir[1200] = "";
    if (c->tree_memory && !c->executor) {
        char why[256];
        int fd = -1;
        if (vn__cgroup_create(cgdir, sizeof cgdir, why, sizeof why) == 0 &&
            (fd = vn__cgroup_peak_open(cgdir)) < 0) {
            snprintf(why, sizeof why, "cannot open the peak of %.180s: %s", cgdir, strerror(-fd));
            vn__cgroup_remove(cgdir);
        }
        if (fd >= 0) {
            memcpy(x.cgbuf, cgdir, sizeof x.cgbuf);
            memcpy(x.first_group, cgdir, sizeof x.first_group);
            x.cgroup = x.cgbuf;
            x.peak_fd = fd;
            /* The helper joins the group, and the commands it spawns start
             * in it: the cheap spawn and the helper's small RSS floor stay.
             * Its own pages stay charged where they were; what it allocates
             * from now on is a few requests' worth. */
            x.helper_in_group = x.spawner && vn__cgroup_join(cgdir, vn__spawner_pid(x.spawner)) == 0;
        } else {
            vn__add_note(results, "the peak memory of whole process trees is not measured: %s", why);
        }
    }
    /* --runs N fixes both. */
    results->min_runs = c->runs ? c->runs : c->min_runs;
    results->max_runs = c->runs ? c->runs : c->max_runs;
    results->max_time = c->min_time > 0 ? c->min_time : 1;
    results->precision = c->precision;
    results->cpu = c->cpu;
    /* The commands take turns run by run, unless in blocks. */
    results->interleave = !c->order_blocks;
    if (!c->executor)
        vn_sysinfo_collect(&results->env);
    else
        vn__sysinfo_reset(&results->env);
    /* Every run has at least two wake-ups: vernier's when the command ends,
     * and the command's own whenever it sleeps or waits. From a deep idle
     * state each pays its exit latency, which depends on how long the CPU
     * idled (see idle.c). Held until the last run, once the machine's state
     * is recorded; a value asked for that cannot be held is a note. */
    int idle_fd = -1;
    results->dma_latency_us = -1;
    if (!c->executor) {
        char why[160];
        idle_fd = vn__idle_hold_for(c->dma_latency_us, results->env.hypervisor,
                                    &results->dma_latency_us, why, sizeof why);
        if (idle_fd < 0 && c->dma_latency_us >= 0)
            vn__add_note(results,
                     "the CPUs' idle states were left as they are, so wake-ups may add to the "
                     "runs: %s; --dma-latency off says this is meant",
                     why);
    }

    vn__shell_time shell = {0}, none = {0};
    int stop = 0;
    if (c->input && !c->executor && vn__input_once(c->input)) {
        rc = vn__run_input_copy(c->input, c->timeout, c->stop_flag, &x.input, err, errlen);
        if (rc < 0)
            goto out;
        stop = rc == 1; /* interrupted before any run: reported with none */
        rc = 0;
    }
    if (!stop && any_shell && (rc = vn__measure_shell(&x, &shell, err, errlen)) != 0) {
        if (c->stop_flag && *c->stop_flag) {
            /* Interrupted before any command ran: report that, with no runs. */
            rc = 0;
            stop = 1;
        } else {
            if (!err[0])
                snprintf(err, errlen, "cannot measure the start-up of the shell");
            goto out;
        }
    }
    vn_rng rng;
    vn_rng_seed(&rng, c->seed);
    size_t *order = malloc(nrows * sizeof *order);
    if (!order) {
        rc = VN_ENOMEM;
        goto out;
    }
    x.t_start = x.t_drawn = vn__posix_read(CLOCK_MONOTONIC);
    /* Setup once per row, then warmup runs, interleaved like the timed ones. */
    for (size_t i = 0; i < nrows && !stop && !c->order_blocks; i++) {
        stop = vn__hook(&x, "setup", rows[i].setup, fail);
        rows[i].set_up = 1;
    }
    /* In blocks, each command's warmup comes right before its own runs. */
    for (size_t w = 0; w < c->warmup && !stop && !c->order_blocks; w++) {
        size_t k = vn__round_order(rows, nrows, c, &rng, order);
        for (size_t o = 0; o < k && !stop; o++)
            stop = vn__warm(&x, &rows[order[o]], c, fail) || (vn__progress(&x, rows, nrows, &rows[order[o]]), 0);
    }
    while (!stop) {
        size_t k = vn__round_order(rows, nrows, c, &rng, order);
        if (!k)
            break;
        for (size_t o = 0; o < k && !stop; o++) {
            row *r = &rows[order[o]];
            if (!r->set_up) {
                r->set_up = 1;
                stop = vn__hook(&x, "setup", r->setup, fail);
            }
            while (r->warmed < c->warmup && !stop)
                stop = vn__warm(&x, r, c, fail);
            if (stop || (c->stop_flag && *c->stop_flag)) {
                stop = 1;
                break;
            }
            uint64_t t0 = r->prepare ? vn__posix_read(CLOCK_MONOTONIC) : 0;
            if (vn__hook(&x, "prepare", r->prepare, fail)) {
                stop = 1;
                break;
            }
            if (r->prepare)
                r->prepare_ns += (double)(vn__posix_read(CLOCK_MONOTONIC) - t0);
            if ((rc = vn__grow(r)) != 0)
                goto out_order;
            double wall;
            vn_proc_usage u;
            char why[512] = "";
            int e = vn__run_once(&x, r->argv, r->shell ? x.shell_path : r->path, c->show_output, &wall,
                             &u, why, sizeof why);
            if (e < 0 || e == VN_EXEC_INTERRUPTED)
                vn__drop_counts(&x);
            if (e < 0) {
                snprintf(fail->message, sizeof fail->message, "%s", why);
                snprintf(r->error, sizeof r->error, "%.255s", why);
                fail->failed = stop = 1;
                break;
            }
            /* A run that ended as Ctrl-C came may have ended because of it
             * (its group stopped by the spawner before the wait saw the
             * flag): interrupted, not failed, and not a run. */
            if (e == VN_EXEC_INTERRUPTED ||
                (c->stop_flag && *c->stop_flag && (u.exit_status || u.signal))) {
                if (e != VN_EXEC_INTERRUPTED)
                    vn__drop_counts(&x);
                stop = 1;
                break;
            }
            if (vn__o_counting(&x)) {
                if (!x.first) {
                    x.first = x.cur;
                    x.ncounters = x.first ? vn_counters_n(x.first) : 0;
                }
                vn__take_counts(&x, r->counts + r->n * VN_COUNTERS_MAX);
            }
            r->wall[r->n] = wall;
            r->use[r->n] = u;
            r->n++;
            r->spent_ns += wall;
            if (e == VN_EXEC_TIMED_OUT || u.exit_status || u.signal) {
                r->failed_runs++;
                if (!c->ignore_failure) {
                    char where[32];
                    snprintf(where, sizeof where, "on run %zu", r->n);
                    vn__describe_failure(r, where, e, &u, c, fail->message, sizeof fail->message);
                    snprintf(r->error, sizeof r->error, "%.255s", fail->message);
                    r->stop = VN_STOP_FAILED;
                    fail->failed = stop = 1;
                    break;
                }
            }
            if ((rc = vn__check_done(c, r, r->shell ? &shell : &none)) != 0)
                goto out_order;
            vn__progress(&x, rows, nrows, r);
            if (r->finished && !r->cleaned) {
                r->cleaned = 1;
                if (vn__hook(&x, "cleanup", r->cleanup, fail)) {
                    /* The runs stand; the results say the cleanup failed. */
                    snprintf(r->error, sizeof r->error, "%.255s", fail->message);
                    stop = 1;
                }
            }
        }
    }
    if (c->progress && x.t_drawn != x.t_start)
        fprintf(stderr, "\r\033[K");
    if (c->stop_flag && *c->stop_flag)
        results->interrupted = 1;
    /* Rows stopped early still clean up after themselves. */
    for (size_t i = 0; i < nrows; i++) {
        if (!rows[i].finished && rows[i].stop != VN_STOP_FAILED)
            rows[i].stop = results->interrupted ? VN_STOP_INTERRUPTED : VN_STOP_FAILED;
        if (!rows[i].cleaned && rows[i].cleanup && rows[i].set_up) {
            vn_run_failure ignored;
            memset(&ignored, 0, sizeof ignored);
            vn__hook(&x, "cleanup", rows[i].cleanup, fail->failed ? &ignored : fail);
        }
    }
    results->commands = calloc(nrows, sizeof *results->commands);
    if (!results->commands) {
        rc = VN_ENOMEM;
        goto out_order;
    }
    for (size_t i = 0; i < nrows && rc == 0; i++) {
        rc = vn__fill_result(&results->commands[i], &rows[i], c, rows[i].shell ? &shell : &none);
        results->ncommands++;
        vn_run_result *res = &results->commands[i];
        if (rc == 0 && c->nparams) {
            res->pnames = calloc(c->nparams, sizeof *res->pnames);
            res->pvalues = calloc(c->nparams, sizeof *res->pvalues);
            if (!res->pnames || !res->pvalues) {
                rc = VN_ENOMEM;
                break;
            }
            res->nparams = c->nparams;
            for (size_t p = 0; p < c->nparams && rc == 0; p++) {
                res->pnames[p] = strdup(c->params[p].name);
                res->pvalues[p] = strdup(c->params[p].values[rows[i].choice[p]]);
                if (!res->pnames[p] || !res->pvalues[p])
                    rc = VN_ENOMEM;
            }
        }
    }
    if (rc == 0 && x.first) {
        vn_counters_info(x.first, &results->counters);
        snprintf(results->counters.requested, sizeof results->counters.requested, "%s", c->counters);
        for (size_t i = 0; i < nrows && rc == 0; i++) {
            vn_run_result *res = &results->commands[i];
            double *per = malloc((res->nsamples ? res->nsamples : 1) * x.ncounters * sizeof *per);
            if (!per) {
                rc = VN_ENOMEM;
                break;
            }
            for (size_t k = 0; k < res->nsamples; k++)
                memcpy(per + k * x.ncounters, rows[i].counts + k * VN_COUNTERS_MAX,
                       x.ncounters * sizeof *per);
            /* A command has no empty loop: its counts are its own. */
            rc = vn__run_counters_finish(res, x.first, per);
        }
    }
    /* hyperfine times every command through sh; here a simple command runs
     * directly: said once, so that numbers set side by side are read so. */
    if (rc == 0 && c->shell == 0 && !c->executor) {
        char list[160] = "";
        size_t direct = 0, len = 0;
        for (size_t i = 0; i < nrows; i++) {
            if (rows[i].shell)
                continue;
            const char *name = rows[i].label ? rows[i].label : rows[i].text;
            const char *q = vn__quote_for(name);
            if (direct++ < 3 && len < 100)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s%.40s%s",
                                        len ? ", " : "", q, name, q);
            if (len >= sizeof list)
                len = sizeof list - 1;
        }
        if (direct)
            vn__add_note(results, "%s%s ran without a shell (hyperfine runs each in sh; so does "
                         "-S sh)", list, direct > 3 ? " and the others" : "");
    }
    if (rc == 0 && vn__o_counting(&x))
        vn__add_note(results,
                 "with --counters each command is started from vernier itself (the counters "
                 "must attach before its exec), so a run's max RSS cannot be below vernier's own");
    if (rc == 0 && !x.peak_resets)
        vn__add_note(results,
                 "each run's tree peak is the largest so far: this kernel cannot reset "
                 "memory.peak (Linux 6.12 can), and a fresh group per run could not be made "
                 "(%s)",
                 x.renew_why[0] ? x.renew_why : "no reason given");
    if (rc == 0)
        rc = vn__compare(results, cmp, ncmp);
out_order:
    free(order);
out:
    vn__idle_release(idle_fd);
    vn__spawner_stop(x.spawner);
    vn__run_input_free(&x.input);
    if (pinned)
        sched_setaffinity(0, sizeof old_mask, &old_mask);
    vn__drop_counts(&x);
    vn_counters_destroy(x.first);
    if (x.cgroup) {
        close(x.peak_fd);
        int e = vn__cgroup_remove(x.cgroup);
        if (e && rc == 0)
            vn__add_note(results,
                     "the cgroup %s could not be removed (%s): something the commands started is "
                     "still in it; remove it with rmdir once that has ended",
                     x.cgroup, strerror(-e));
        vn__sweep_groups(&x, results, rc == 0);
    }
out_early:
    vn__drain_stop(&dr);
    vn__free_rows(rows, nrows);
    if (rc) {
        vn_run_results_free(results);
        free(*cmp);
        *cmp = NULL;
        *ncmp = 0;
    }
    return rc;
}
