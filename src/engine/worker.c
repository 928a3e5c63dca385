/* A worker process: the benchmark program started again by itself
 * (engine/procs.c) to measure its rows in a fresh process. It reads its
 * plan from the socket the environment names, measures the rows as the
 * plan says, sends each row's raw samples back and ends. */
#include <alloca.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wire.h"
#include "worker.h"
#include "clock/internal.h"
#include "parse/sysinfo_parse.h"

#define ENV_WORKER "VERNIER_WORKER"
#define ENV_PAD "VERNIER_WORKER_PAD"

int vn__worker_fd(void)
{
    const char *v = getenv(ENV_WORKER);
    if (!v)
        return -1;
    char *end;
    long fd = strtol(v, &end, 10);
    /* Not handed on: a benchmark that starts another benchmark program
     * starts a program, not a worker. */
    unsetenv(ENV_WORKER);
    unsetenv(ENV_PAD);
    if (*v == '\0' || *end || fd < 3 || fd > 65535 || fcntl((int)fd, F_GETFD) == -1)
        return -1;
    return (int)fd;
}

/* Reads fd to its end into b. */
static int read_all(int fd, vn_buf *b)
{
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return VN_EIO;
        if (n == 0)
            return 0;
        int rc = vn_buf_append(b, chunk, (size_t)n);
        if (rc)
            return rc;
    }
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return VN_EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The suite's benchmark and parameter index of the row named name. */
static const vn__bench *row_named(const vn_suite *s, const char *name, size_t *k)
{
    char row[sizeof ((vn_result *)0)->name];
    for (size_t i = 0; i < s->n; i++)
        for (size_t v = 0; v < (s->v[i].nvalues ? s->v[i].nvalues : 1); v++) {
            vn__row_name(&s->v[i], v, row, sizeof row);
            if (!strcmp(row, name)) {
                *k = v;
                return &s->v[i];
            }
        }
    return NULL;
}

/* The rows as the plan gives them, each with its own share of samples and
 * time, no stop on precision: the processes together decide that. */
static int jobs_of(vn_suite *s, const vn_config *cfg, const vn__wire_plan *p, vn_results *out,
                   vn_counters *ctr, vn__evict *evict, struct floors *floors, job **jobs,
                   const char *prog)
{
    for (size_t i = 0; i < p->nrows; i++) {
        size_t k;
        const vn__bench *b = row_named(s, p->rows[i].name, &k);
        if (!b) {
            fprintf(stderr, "%s: a worker process has no benchmark '%s': the program must register "
                    "the same benchmarks every time it starts\n", prog, p->rows[i].name);
            return VN_ENOENT;
        }
        vn__row_result_init(&out->bench[i], b, k);
        int rc = 0;
        job *j = vn__job_new(b, &out->bench[i], cfg, NULL, out, ctr, evict, floors, &rc);
        if (!j)
            return rc;
        jobs[i] = j;
        j->worker = 1;
        j->fixed_iters = p->rows[i].iters;
        j->settle_tol = p->rows[i].settle_tol;
        vn__policy *pol = &j->pol;
        pol->stop_on_precision = 0;
        pol->max_samples = p->rows[i].samples ? (size_t)p->rows[i].samples : 1;
        pol->min_samples = pol->process_samples < pol->max_samples ? pol->process_samples
                                                                   : pol->max_samples;
        pol->budget_ns = p->rows[i].share_ns;
        /* Calibration sizes its samples so the share holds the fewest. */
        j->cfg.max_time = p->rows[i].share_ns / 1e9;
        j->cfg.min_samples = pol->min_samples;
    }
    return 0;
}

/* The rows measured, at a stack offset of the plan's: a process's stack,
 * like its environment, starts where its size puts it, and code that
 * touches the stack meets another alignment at another offset. */
static int run_offset(job **jobs, size_t n, const vn_config *cfg, const vn__wire_plan *p,
                      vn_results *out)
{
    size_t off = (size_t)(p->seed >> 32) % 4096;
    volatile char *pad = alloca(off + 1);
    pad[0] = 0;
    /* The processes are the turns: each runs the rows one after another,
     * in an order of its own, unless asked for a sample each (policy
     * sample_turns). */
    int rc = cfg->interleave && n && !jobs[0]->pol.sample_turns
                 ? vn__run_rows_shuffled(jobs, n, cfg, p->seed, out)
                 : vn__run_rows(jobs, n, cfg, p->seed, out);
    pad[off] = 0;
    return rc;
}

/* The physical side of a process's layout (policy layout_mb, max_mb):
 * memory taken and touched before any benchmark code runs, between half of
 * max_mb and all of it as the plan's seed says, and kept to the end. A worker's pages come from what the kernel has free, first of all
 * what the worker before it freed; a benchmark's buffer then sits on the
 * same physical pages, with the same cache sets and the same host-side
 * mappings under a hypervisor, in every process of one run, and on
 * others in the next run. Taking a random amount first moves it. NULL
 * (nothing taken) when off, too large, or refused. */
static void *take_layout(size_t max_mb, uint64_t seed, size_t *len)
{
    *len = 0;
    if (!max_mb || max_mb > 65536)
        return NULL;
    size_t half = max_mb / 2;
    size_t mb = half + (size_t)((seed >> 8) % (max_mb - half + 1));
    size_t n = mb << 20;
    if (!n)
        return NULL;
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    long page = sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < n; i += page > 0 ? (size_t)page : 4096)
        ((volatile char *)p)[i] = 1;
    *len = n;
    return p;
}

int vn__worker_run(vn_suite *s, const vn_config *cfg_in, int fd, const char *prog)
{
    vn_buf in, ans;
    vn_buf_init(&in, (size_t)1 << 30);
    vn_buf_init(&ans, (size_t)1 << 31);
    vn__wire_plan p = {0};
    int rc = read_all(fd, &in);
    if (rc == 0 && (rc = vn__wire_plan_read(in.data ? in.data : "", in.len, &p)) != 0)
        fprintf(stderr, "%s: a worker process was given no plan it can read\n", prog);
    vn_buf_free(&in);
    vn_config cfg = *cfg_in;
    cfg.processes = 1;
    cfg.progress = 0;
    vn_results out;
    memset(&out, 0, sizeof out);
    vn__sysinfo_reset(&out.env);
    job **jobs = NULL;
    vn_counters *ctr = NULL;
    vn__evict evict = {0};
    struct floors floors = {LOW3_NONE, NULL, 0};
    cpu_set_t old;
    void *layout = NULL;
    size_t layout_len = 0;
    if (rc)
        goto done;
    if (p.counter_hz > 0) {
        vn_calibration c = {p.counter_hz, p.counter_error_ppm, 0};
        vn__counter_calibration_preset(&c);
    }
    out.timer = (vn_clock_id)p.timer;
    out.timer_cost_ns = p.timer_cost_ns;
    out.timer_resolution_ns = p.timer_resolution_ns;
    out.bench = calloc(p.nrows ? p.nrows : 1, sizeof *out.bench);
    jobs = calloc(p.nrows ? p.nrows : 1, sizeof *jobs);
    if (!out.bench || !jobs) {
        rc = VN_ENOMEM;
        goto done;
    }
    if (cfg.cpu >= 0 && vn__pin(cfg.cpu, &old) != 0) {
        rc = VN_EINVAL;
        goto done;
    }
    if ((rc = vn__bench_counters_open(&cfg, NULL, &ctr, &out.counters)) != 0)
        goto done;
    if (cfg.cold && ((rc = vn_sysinfo_collect(&out.env)) != 0 ||
                     (rc = vn__evict_init(&evict, &out.env)) != 0))
        goto done;
    if ((rc = jobs_of(s, &cfg, &p, &out, ctr, cfg.cold ? &evict : NULL, &floors, jobs, prog)) != 0)
        goto done;
    /* The run's policy, as each job parsed it: no benchmark code ran yet. */
    if (p.nrows)
        layout = take_layout(jobs[0]->pol.layout_mb, p.seed, &layout_len);
    if ((rc = run_offset(jobs, p.nrows, &cfg, &p, &out)) != 0)
        goto done;
    size_t nctr = ctr ? vn_counters_n(ctr) : 0;
    for (size_t i = 0; i < p.nrows && rc == 0; i++)
        for (size_t k = 0; k < jobs[i]->nparts && rc == 0; k++)
            rc = vn__wire_part_write((uint32_t)i, &jobs[i]->parts[k], nctr, &ans);
    if (rc == 0 && (rc = vn__wire_end_write(&ans)) == 0)
        rc = write_all(fd, ans.data, ans.len);
done:
    for (size_t i = 0; jobs && i < p.nrows; i++) {
        if (!jobs[i])
            continue;
        for (size_t k = 0; k < jobs[i]->nparts; k++)
            vn__part_free(&jobs[i]->parts[k]);
        free(jobs[i]->parts);
        free(jobs[i]);
    }
    free(jobs);
    free(out.bench);
    vn__evict_free(&evict);
    vn_counters_destroy(ctr);
    vn_sysinfo_free(&out.env);
    free(p.rows);
    vn_buf_free(&ans);
    if (layout)
        munmap(layout, layout_len);
    close(fd);
    if (rc && rc != VN_ENOENT)
        fprintf(stderr, "%s: a worker process failed: %s\n", prog, vn_strerror(rc));
    return rc ? 1 : 0;
}
