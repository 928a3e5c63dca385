/* The rows of one process: each from start to end, or taking turns a
 * sample each, with the progress line, and each measured row's warnings
 * and place in the results. A run in this process alone (engine/suite.c)
 * and each worker process (engine/worker.c) run them. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "engine.h"
#include "clock/internal.h"
#include "base/format.h"
#include "base/progress.h"

/* The progress line on a terminal: the row that runs now, the rows done of
 * all, and the time left at the pace of the rows done so far (the same
 * line vernier run draws, vn__progress_line). Nothing unless asked for
 * (cfg->progress: stderr is a terminal and not --quiet). */
typedef struct progress_clock {
    uint64_t t0, drawn;          /* CLOCK_MONOTONIC: the rows began, last drawn */
} progress_clock;

/* Redrawn at most every tenth of a second: rows taking turns a sample each
 * would otherwise draw it every millisecond. */
static void progress(const vn_config *c, const char *name, size_t done, size_t n, progress_clock *pc)
{
    if (!c->progress)
        return;
    uint64_t now = vn__posix_read(CLOCK_MONOTONIC);
    if (pc->drawn && now - pc->drawn < 100000000u)
        return;
    pc->drawn = now;
    char shown[sizeof ((vn_result *)0)->name], line[512];
    struct winsize ws;
    int width = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
    double elapsed = (double)(now - pc->t0) / 1e9;
    /* One column short of the width: a full line makes some terminals wrap. */
    vn__progress_line(line, sizeof line, vn__fmt_printable(shown, sizeof shown, name), done, n, elapsed,
                      width - 1);
    fprintf(stderr, "\r\033[K%s", line);
    fflush(stderr);
}

void vn__row_done(job *j, vn_results *out)
{
    if (j->worker) { /* its samples are sent, and judged, elsewhere */
        if (j->res->stop == VN_STOP_INTERRUPTED)
            out->interrupted = 1;
        return;
    }
    vn_result *res = j->res;
    res->max_time = j->cfg.max_time;
    res->precision = j->cfg.precision;
    res->min_samples = j->cfg.min_samples;
    res->timer = j->timer;
    vn__result_warnings(res, &j->cfg, &j->pol, out->optimized, &j->dec, &j->rdec);
    char cost[32], step[32];
    if (j->timer_capped)
        vn__result_warn(res, "timer_bound",
                        "the timer (%s, %s per read, steps of %s) is too coarse for "
                        "samples that fit the time budget: its error is more than 0.1%% of a sample",
                        vn_clock_name(j->timer), vn__fmt_ns(cost, sizeof cost, j->cost_ns),
                        vn__fmt_ns(step, sizeof step, j->res_ns));
    out->nbench++;
    if (res->stop == VN_STOP_INTERRUPTED)
        out->interrupted = 1;
}

/* Each row from start to end, one after another. */
static int run_in_turn(job **jobs, size_t n, const vn_config *cfg, vn_results *out)
{
    progress_clock pc = {vn__posix_read(CLOCK_MONOTONIC), 0};
    for (size_t i = 0; i < n; i++) {
        if (cfg->stop_flag && *cfg->stop_flag) {
            out->interrupted = 1;
            break;
        }
        pc.drawn = 0; /* a new row is always shown */
        progress(cfg, jobs[i]->res->name, i, n, &pc);
        job *j = jobs[i];
        int rc = cfg->threads > 1 ? vn__measure_threads(j) : vn__measure(j);
        if (rc)
            return rc;
        vn__row_done(j, out);
    }
    return 0;
}

/* Fisher-Yates: order[0..m) in a random order. */
static void shuffle(size_t *order, size_t m, vn_rng *rng)
{
    for (size_t i = m; i > 1; i--) {
        size_t r = (size_t)vn_rng_below(rng, i), t = order[i - 1];
        order[i - 1] = order[r];
        order[r] = t;
    }
}

/* The rows take turns, a sample each, in an order shuffled every round
 * (as Google Benchmark's random interleaving does), so that a machine
 * whose speed or neighbours change over seconds affects them alike, and
 * the rows compare under the same conditions. Each row keeps its own
 * budget, counted in its own turns, and its own stop rule; all begin
 * (calibration, warmup) before the first turn, and each ends as soon as it
 * stops, so that its probe after and its time are its own. */
static int run_interleaved(job **jobs, size_t n, const vn_config *cfg, uint64_t seed,
                           vn_results *out)
{
    progress_clock pc = {vn__posix_read(CLOCK_MONOTONIC), 0};
    int rc = 0;
    int *state = malloc((n ? n : 1) * sizeof *state);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    unsigned char *ended = calloc(n ? n : 1, 1);
    size_t began = 0;
    if (!state || !order || !ended) {
        rc = VN_ENOMEM;
        goto out;
    }
#define END_ROW(i)                                                   \
    do {                                                             \
        ended[i] = 1;                                                \
        if ((rc = vn__row_end(jobs[i], state[i], 0)) == 0) \
            vn__row_done(jobs[i], out);                                  \
    } while (0)
    for (; began < n && rc == 0; began++) {
        /* Stopped: the rows not begun are not run, as one after another. */
        if (cfg->stop_flag && *cfg->stop_flag) {
            out->interrupted = 1;
            break;
        }
        pc.drawn = 0;
        progress(cfg, jobs[began]->res->name, 0, n, &pc);
        rc = vn__row_begin(jobs[began], &state[began]);
        if (rc == 0 && state[began] != ROW_MORE)
            END_ROW(began);
        else
            jobs[began]->spent_ns = vn__elapsed_ns(jobs[began]);
    }
    vn_rng rng;
    vn_rng_seed(&rng, seed);
    for (;;) {
        size_t m = 0;
        for (size_t i = 0; i < began; i++)
            if (!ended[i])
                order[m++] = i;
        if (rc || m == 0)
            break;
        char turns[64];
        snprintf(turns, sizeof turns, "%zu rows in turns", n);
        progress(cfg, turns, n - m, n, &pc);
        shuffle(order, m, &rng);
        for (size_t t = 0; t < m && rc == 0; t++) {
            size_t i = order[t];
            job *j = jobs[i];
            j->resumed = vn__timer_read(&j->run);
            rc = vn__row_step(j, &state[i]);
            if (rc == 0 && state[i] != ROW_MORE)
                END_ROW(i);
            else
                j->spent_ns = vn__elapsed_ns(j);
        }
    }
#undef END_ROW
    /* After an error, the rows still open are freed. */
    for (size_t i = 0; i < began; i++)
        if (!ended[i])
            rc = vn__row_end(jobs[i], state[i], rc);
out:
    free(state);
    free(order);
    free(ended);
    return rc;
}

int vn__run_rows_shuffled(job **jobs, size_t n, const vn_config *cfg, uint64_t seed,
                          vn_results *out)
{
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    job **in = malloc((n ? n : 1) * sizeof *in);
    int rc = order && in ? 0 : VN_ENOMEM;
    if (rc == 0) {
        vn_rng rng;
        vn_rng_seed(&rng, seed);
        for (size_t i = 0; i < n; i++)
            order[i] = i;
        shuffle(order, n, &rng);
        for (size_t i = 0; i < n; i++)
            in[i] = jobs[order[i]];
        rc = run_in_turn(in, n, cfg, out);
    }
    free(order);
    free(in);
    return rc;
}

int vn__run_rows(job **jobs, size_t n, const vn_config *cfg, uint64_t seed, vn_results *out)
{
    return cfg->interleave ? run_interleaved(jobs, n, cfg, seed, out) : run_in_turn(jobs, n, cfg, out);
}
