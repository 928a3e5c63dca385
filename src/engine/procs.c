/* The rows measured over fresh processes: the experiment's upper level.
 *
 * A process fixes things no sample inside it can vary: where the code, the
 * heap and the stack sit (Mytkowicz et al., "Producing Wrong Data Without
 * Doing Anything Obviously Wrong!", ASPLOS 2009), and a stretch of the
 * machine's time, with the clock rate and the neighbours it had then. A
 * second run of the program meets others, so an interval that is to hold
 * the next run's answer must be taken across processes. This program
 * therefore starts itself again as a worker, one process after another
 * (never two at once: they would share the machine), each with a new
 * address-space layout, an environment of another size and another stack
 * offset. Exec rather than fork: a forked child keeps its parent's layout,
 * which is the one thing a new process is for. Each worker measures every
 * row that still needs it, one after another in an order of its own (the
 * processes are the turns: rows that take turns a sample at a time fill
 * the caches for each other), and sends the raw samples back; what does
 * not depend on the process is measured here once: the machine's snapshot
 * (kept here; a worker reads the caches' sizes only under --cold), the
 * timer's cost and the counter's rate (handed over). After each process every row is decided
 * again over all its processes (vn__decide_row): it stops once its
 * interval across them is within the precision, or its budget is spent;
 * else the next process's samples and time are planned from how the
 * variation splits between processes and samples (engine/plan.c). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plan.h"
#include "wire.h"
#include "clock/internal.h"
#include "base/format.h"
#include "base/progress.h"
#include "stats/internal.h"

extern char **environ;

#define ENV_WORKER "VERNIER_WORKER"
#define ENV_PAD "VERNIER_WORKER_PAD"

/* The program's own command line, as the kernel keeps it: a worker runs
 * the program with the same arguments, whatever its main did with argv. */
static char **own_argv(void)
{
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    vn_buf b;
    vn_buf_init(&b, 1 << 22);
    char chunk[4096];
    ssize_t n;
    int rc = 0;
    while (rc == 0 && (n = read(fd, chunk, sizeof chunk)) != 0)
        rc = n < 0 ? (errno == EINTR ? 0 : VN_EIO) : vn_buf_append(&b, chunk, (size_t)n);
    close(fd);
    size_t words = 0;
    for (size_t i = 0; i < b.len; i++)
        words += b.data[i] == '\0';
    char **argv = rc || !b.len ? NULL : calloc(words + 2, sizeof *argv);
    char *text = argv ? malloc(b.len + 1) : NULL;
    if (!text) {
        free(argv);
        vn_buf_free(&b);
        return NULL;
    }
    memcpy(text, b.data, b.len);
    text[b.len] = '\0';
    vn_buf_free(&b);
    size_t k = 0;
    for (size_t i = 0; i < words; i++) {
        argv[k++] = text;
        text += strlen(text) + 1;
    }
    return argv;
}

static void argv_free(char **argv)
{
    if (argv)
        free(argv[0]);
    free(argv);
}

/* splitmix64. */
static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The environment of a worker: this one's, less any worker variables it
 * has, with the socket's number and a padding of pad bytes, which moves
 * where the stack begins. */
static char **worker_env(int fd, size_t pad, char *fdvar, size_t fdlen, char **padvar)
{
    size_t n = 0;
    for (char **e = environ; e && *e; e++)
        n++;
    char **env = calloc(n + 3, sizeof *env);
    *padvar = malloc(sizeof ENV_PAD + 1 + pad);
    if (!env || !*padvar) {
        free(env);
        free(*padvar);
        *padvar = NULL;
        return NULL;
    }
    size_t k = 0;
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, ENV_WORKER "=", sizeof ENV_WORKER) && strncmp(*e, ENV_PAD "=", sizeof ENV_PAD))
            env[k++] = *e;
    snprintf(fdvar, fdlen, "%s=%d", ENV_WORKER, fd);
    env[k++] = fdvar;
    memcpy(*padvar, ENV_PAD "=", sizeof ENV_PAD);
    memset(*padvar + sizeof ENV_PAD, 'x', pad);
    (*padvar)[sizeof ENV_PAD + pad] = '\0';
    env[k++] = *padvar;
    env[k] = NULL;
    return env;
}

/* A worker on its way: its pid and this end of its socket. */
typedef struct worker {
    pid_t pid;
    int fd;
} worker;

/* Starts the program again as worker number p, with its socket (the other
 * end of *w's). 0, or an errno-style code. */
static int start(char **argv, const vn__launch *l, uint64_t seed, worker *w)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return -errno;
    char fdvar[64], *padvar = NULL;
    char **env = worker_env(sv[1], (size_t)(seed % 4096), fdvar, sizeof fdvar, &padvar);
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    int rc = env ? 0 : -ENOMEM;
    if (rc == 0 && (rc = -posix_spawn_file_actions_init(&fa)) == 0) {
        /* The worker's own output would repeat the program's; its errors
         * are the program's too, and go where they would. The socket's end
         * stays open across exec (dup2 onto itself clears FD_CLOEXEC). */
        posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, sv[1], sv[1]);
        if ((rc = -posix_spawnattr_init(&at)) == 0) {
            posix_spawnattr_setsigmask(&at, l->mask);
            posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
            rc = -posix_spawn(&w->pid, "/proc/self/exe", &fa, &at, argv, env);
            posix_spawnattr_destroy(&at);
        }
        posix_spawn_file_actions_destroy(&fa);
    }
    free(env);
    free(padvar);
    close(sv[1]);
    if (rc) {
        close(sv[0]);
        return rc;
    }
    w->fd = sv[0];
    return 0;
}

/* Sends the plan, then reads the answer to its end. Stopped (Ctrl-C, the
 * caller's flag) meanwhile, the worker is told to stop too, in case the
 * signal came to this process alone; it then sends what it has. */
static int exchange(worker *w, const vn_buf *plan, const vn_config *cfg, vn_buf *ans)
{
    size_t sent = 0;
    while (sent < plan->len) {
        ssize_t n = send(w->fd, plan->data + sent, plan->len - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* the worker is gone: its answer, or none, says why */
        sent += (size_t)n;
    }
    shutdown(w->fd, SHUT_WR);
    int told = 0;
    for (;;) {
        if (!told && cfg->stop_flag && *cfg->stop_flag) {
            kill(w->pid, SIGTERM);
            told = 1;
        }
        struct pollfd pf = {w->fd, POLLIN, 0};
        int r = poll(&pf, 1, 100);
        if (r < 0 && errno != EINTR)
            return VN_EIO;
        if (r <= 0)
            continue;
        char chunk[65536];
        ssize_t n = read(w->fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        int rc = vn_buf_append(ans, chunk, (size_t)n);
        if (rc)
            return rc;
    }
}

/* How the worker ended, for a message: "exited with status 1", "was
 * killed by SIGSEGV". */
static void ended(int status, char *out, size_t n)
{
    if (WIFSIGNALED(status)) {
        const char *abbrev = sigabbrev_np(WTERMSIG(status));
        snprintf(out, n, "was killed by SIG%s", abbrev ? abbrev : "?");
    } else {
        snprintf(out, n, "exited with status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
}

/* Adds part q to row j (taking it over), as its next process. */
static int add_part(job *j, vn__part *q)
{
    if (j->nparts == j->capparts) {
        size_t cap = j->capparts ? 2 * j->capparts : 8;
        vn__part *p = realloc(j->parts, cap * sizeof *p);
        if (!p)
            return VN_ENOMEM;
        j->parts = p;
        j->capparts = cap;
    }
    q->process = (int)j->nparts;
    j->parts[j->nparts++] = *q;
    return 0;
}

/* Counters the worker opened otherwise than this process: unknown. */
static int counts_unknown(vn__part *q, size_t nctr)
{
    free(q->counts.v);
    free(q->E.counts.v);
    q->counts = (dbuf){0};
    q->E.counts = (dbuf){0};
    int rc = 0;
    for (size_t i = 0; i < q->S.n * nctr && rc == 0; i++)
        rc = vn__push_double(&q->counts, NAN);
    for (size_t i = 0; i < q->E.ns.n * nctr && rc == 0; i++)
        rc = vn__push_double(&q->E.counts, NAN);
    return rc;
}

/* The worker's answer into the rows it measured (todo[i] is the plan's
 * row i); 1 when it was cut short. */
static int merge(const vn_buf *ans, job **todo, size_t ntodo, int *got, int *rc)
{
    size_t pos = 0;
    for (;;) {
        uint32_t index;
        vn__part q;
        size_t nctr;
        int r = vn__wire_part_read(ans->data ? ans->data : "", ans->len, &pos, &index, &q, &nctr);
        if (r == 1)
            return 0;
        if (r == VN_ENOMEM) {
            *rc = r;
            return 0;
        }
        if (r != 0 || index >= ntodo || got[index]) {
            if (r == 0)
                vn__part_free(&q);
            return 1;
        }
        job *j = todo[index];
        if (nctr != j->nctr && (*rc = counts_unknown(&q, j->nctr)) != 0) {
            vn__part_free(&q);
            return 0;
        }
        if ((*rc = add_part(j, &q)) != 0) {
            vn__part_free(&q);
            return 0;
        }
        got[index] = 1;
    }
}

/* The median taken-branch probe of a part's samples; NAN without any. */
static double part_median(const vn__part *q, int ref)
{
    dbuf d = {0};
    for (size_t i = 0; i < q->S.n; i++) {
        double x = ref ? q->S.v[i].ref_ns : q->S.v[i].branch_cycles;
        if (isfinite(x) && x > 0 && vn__push_double(&d, x))
            break;
    }
    double m = vn__median_of(d.v, d.n);
    free(d.v);
    return m;
}

/* Row j after a process that sent its part (got) or did not: failed,
 * interrupted, or decided over its processes so far. */
static int look(job *j, int got, const char *lost)
{
    vn_result *res = j->res;
    if (!got) {
        j->done = 1;
        if (lost) {
            res->stop = VN_STOP_FAILED;
            snprintf(res->error, sizeof res->error, "%.255s", lost);
        } else {
            res->stop = VN_STOP_INTERRUPTED;
        }
        return 0;
    }
    const vn__part *q = &j->parts[j->nparts - 1];
    j->rstate.spent_ns += q->elapsed_ns;
    j->rstate.samples += q->S.n;
    res->iters = q->iters;
    if (q->state == ROW_FAILED || q->stop == VN_STOP_INTERRUPTED) {
        j->done = 1;
        res->stop = q->stop;
        snprintf(res->error, sizeof res->error, "%s", q->error);
        return 0;
    }
    j->rstate.next_cost_ns = vn__plan_least_ns(j->parts, j->nparts, &j->pol);
    vn__decision *proc = calloc(j->nparts, sizeof *proc);
    if (!proc)
        return VN_ENOMEM;
    int rc = vn__decide_parts(j->parts, j->nparts, &j->pol, &j->rstate, proc, &j->rdec);
    if (rc == 0) {
        j->rstate.streak = j->rdec.precise ? j->rstate.streak + 1 : 0;
        if (j->rdec.verdict != VN__GO_ON) {
            j->done = 1;
            res->stop = vn__stop_of(j->rdec.verdict);
        }
    }
    free(proc);
    return rc;
}

/* How well two warmup samples in a row must agree before a later worker
 * takes a row's samples (policy settle): twice the spread of the first
 * process's samples (first, its decision: scaled MAD over the median),
 * the one that had the whole warmup, and at least the precision asked;
 * the precision when the first process says nothing of its spread (its
 * samples all left out). 0 when off. */
static double settle_tol(const job *j, const vn__decision *first)
{
    if (!(j->pol.settle > 0))
        return 0;
    double spread = isfinite(first->rel_mad_ns) ? 2 * first->rel_mad_ns : 0;
    return fmax(j->pol.precision, spread);
}

/* The plan of the next process: every row not done, its samples and
 * share of time. */
static int plan_of(job **todo, size_t ntodo, const vn__wire_plan *base, vn__wire_plan *p)
{
    *p = *base;
    p->nrows = ntodo;
    p->rows = calloc(ntodo ? ntodo : 1, sizeof *p->rows);
    if (!p->rows)
        return VN_ENOMEM;
    for (size_t i = 0; i < ntodo; i++) {
        job *j = todo[i];
        vn__wire_row *w = &p->rows[i];
        snprintf(w->name, sizeof w->name, "%s", j->res->name);
        w->iters = j->nparts ? j->parts[0].iters : 0;
        vn__plan pl;
        vn__decision *proc = calloc(j->nparts ? j->nparts : 1, sizeof *proc);
        if (!proc)
            return VN_ENOMEM;
        vn__row_decision rd;
        int rc = j->nparts ? vn__decide_parts(j->parts, j->nparts, &j->pol, &j->rstate, proc, &rd) : 0;
        if (rc == 0)
            vn__plan_next(j->parts, j->nparts, proc, &rd, &j->pol, &j->rstate, &pl);
        w->settle_tol = rc == 0 && j->nparts ? settle_tol(j, &proc[0]) : 0;
        free(proc);
        if (rc)
            return rc;
        w->samples = pl.samples;
        w->share_ns = pl.share_ns;
    }
    return 0;
}

static void progress(const vn_config *cfg, size_t process, size_t done, size_t n, uint64_t t0)
{
    if (!cfg->progress)
        return;
    char name[64], line[256];
    snprintf(name, sizeof name, "process %zu", process + 1);
    struct winsize ws;
    int width = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
    double elapsed = (double)(vn__posix_read(CLOCK_MONOTONIC) - t0) / 1e9;
    vn__progress_line(line, sizeof line, name, done, n, elapsed, width - 1);
    fprintf(stderr, "\r\033[K%s", line);
    fflush(stderr);
}

/* One process: planned, started, answered, merged and looked at. *lost
 * says why its rows got nothing when it failed; start_rc the error when it
 * could not start at all. */
static int one_process(job **jobs, size_t n, const vn_config *cfg, const vn__launch *l,
                       char **argv, const vn__wire_plan *base, uint64_t *seed, int *start_rc,
                       dbuf *probes, dbuf *refs)
{
    job **todo = malloc((n ? n : 1) * sizeof *todo);
    int *got = calloc(n ? n : 1, sizeof *got);
    vn__wire_plan p = {0};
    vn_buf plan, ans;
    vn_buf_init(&plan, (size_t)1 << 30);
    vn_buf_init(&ans, (size_t)1 << 31);
    size_t ntodo = 0;
    int rc = todo && got ? 0 : VN_ENOMEM;
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (!jobs[i]->done)
            todo[ntodo++] = jobs[i];
    if (rc == 0)
        rc = plan_of(todo, ntodo, base, &p);
    p.seed = mix(seed);
    if (rc == 0)
        rc = vn__wire_plan_write(&p, &plan);
    worker w = {-1, -1};
    if (rc == 0 && (*start_rc = start(argv, l, p.seed, &w)) != 0)
        rc = 1;
    if (rc == 0) {
        rc = exchange(&w, &plan, cfg, &ans);
        close(w.fd);
        int status = 0;
        while (waitpid(w.pid, &status, 0) < 0 && errno == EINTR)
            ;
        int cut = rc == 0 && merge(&ans, todo, ntodo, got, &rc);
        char why[300] = "", how[64];
        if (rc == 0 && (cut || !(WIFEXITED(status) && WEXITSTATUS(status) == 0))) {
            ended(status, how, sizeof how);
            snprintf(why, sizeof why, "the worker process %zu %s while this row and the others "
                     "still in it took turns (--processes 1 measures in one process)",
                     (size_t)p.process + 1, how);
        }
        int interrupted = cfg->stop_flag && *cfg->stop_flag;
        /* The run's probes, every process of every row: where they fall in
         * two groups, the upper ran on a shared core. And its references,
         * the median of which a process's is judged against (vn__ref_off). */
        for (size_t i = 0; rc == 0 && i < ntodo; i++)
            if (got[i]) {
                const vn__part *q = &todo[i]->parts[todo[i]->nparts - 1];
                rc = vn__push_double(probes, part_median(q, 0));
                if (rc == 0)
                    rc = vn__push_double(refs, part_median(q, 1));
            }
        double ref_mid = rc == 0 ? vn__median_of(refs->v, refs->n) : NAN;
        double *tmp = rc == 0 ? malloc((probes->n ? probes->n : 1) * sizeof *tmp) : NULL;
        if (rc == 0 && !tmp)
            rc = VN_ENOMEM;
        if (tmp) {
            memcpy(tmp, probes->v, probes->n * sizeof *tmp);
            double limit = vn__probe_limit(tmp, probes->n, &jobs[0]->pol);
            free(tmp);
            /* A row already done keeps the limit its last look had, so
             * that its headline at the end is the decision that stopped
             * it, not another one. */
            for (size_t i = 0; i < n; i++)
                if (!jobs[i]->done) {
                    jobs[i]->rstate.probe_limit = limit;
                    jobs[i]->rstate.ref_mid = ref_mid;
                }
        }
        uint64_t now = vn__posix_read(CLOCK_MONOTONIC);
        for (size_t i = 0; rc == 0 && i < ntodo; i++) {
            if (got[i]) {
                vn__part *q = &todo[i]->parts[todo[i]->nparts - 1];
                q->run_process = p.process;
                q->end_ns = now;
            }
            rc = look(todo[i], got[i], why[0] && !interrupted ? why : NULL);
        }
    }
    free(p.rows);
    free(todo);
    free(got);
    vn_buf_free(&plan);
    vn_buf_free(&ans);
    return rc;
}

int vn__run_processes(job **jobs, size_t n, const vn_config *cfg, const vn__launch *l,
                      vn_results *out)
{
    char **argv = own_argv();
    uint64_t t0 = vn__posix_read(CLOCK_MONOTONIC);
    uint64_t seed = t0 ^ ((uint64_t)getpid() << 32);
    const vn_calibration *cal = (vn_clock_flags(out->timer) & VN_CLOCK_F_COUNTER)
                                    ? vn_counter_calibration() : NULL;
    vn__wire_plan base = {.timer = (int32_t)out->timer, .timer_cost_ns = out->timer_cost_ns,
                          .timer_resolution_ns = out->timer_resolution_ns,
                          .counter_hz = cal ? cal->hz : NAN,
                          .counter_error_ppm = cal ? cal->error_ppm : NAN};
    int rc = 0, start_rc = 0;
    size_t process = 0;
    dbuf probes = {0}, refs = {0};
    for (;; process++) {
        size_t done = 0;
        for (size_t i = 0; i < n; i++)
            done += jobs[i]->done;
        if (done == n && !(cfg->stop_flag && *cfg->stop_flag))
            done -= vn__plan_late(jobs, n, t0, vn__posix_read(CLOCK_MONOTONIC), process);
        if (done == n || (cfg->stop_flag && *cfg->stop_flag) || !argv)
            break;
        progress(cfg, process, done, n, t0);
        base.process = (uint32_t)process;
        rc = one_process(jobs, n, cfg, l, argv, &base, &seed, &start_rc, &probes, &refs);
        if (rc == 1)
            break;
        if (rc)
            break;
        vn__plan_together(jobs, n);
        vn__plan_wait_own(jobs, n);
    }
    argv_free(argv);
    free(probes.v);
    free(refs.v);
    out->processes = process;
    out->processes_wall = (double)(vn__posix_read(CLOCK_MONOTONIC) - t0) / 1e9;
    if (cfg->stop_flag && *cfg->stop_flag)
        out->interrupted = 1;
    if (process == 0 && (rc == 1 || !argv) && !out->interrupted) {
        /* No worker could start (no /proc, an executable gone): measured
         * here, and said so. */
        snprintf(out->note, sizeof out->note,
                 "measured in this process only: a worker process could not be started (%s)",
                 start_rc ? vn_strerror(start_rc) : "no /proc/self/cmdline");
        out->processes = 0;
        return vn__run_rows(jobs, n, cfg, seed, out);
    }
    for (size_t i = 0; rc == 1 && i < n; i++)
        if (!jobs[i]->done) {
            /* A later worker could not start: what the earlier ones
             * measured stays, and the row says why it ends here. */
            jobs[i]->done = 1;
            jobs[i]->res->stop = VN_STOP_FAILED;
            snprintf(jobs[i]->res->error, sizeof jobs[i]->res->error,
                     "worker process %zu could not be started: %s", process + 1,
                     vn_strerror(start_rc));
        }
    if (rc == 1)
        rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        job *j = jobs[i];
        if (!j->done)
            j->res->stop = VN_STOP_INTERRUPTED;
        if (!j->nparts) {
            if (j->res->stop != VN_STOP_FAILED)
                j->res->stop = VN_STOP_INTERRUPTED;
            vn__row_done(j, out);
            continue;
        }
        vn_stop stop = j->res->stop;
        char error[sizeof j->res->error];
        memcpy(error, j->res->error, sizeof error);
        vn__throughput_of(j, j->res);
        dbuf share = {0};
        for (size_t k = 0; k < j->nparts && rc == 0; k++)
            for (size_t s = 0; s < j->parts[k].cpu_share.n && rc == 0; s++)
                rc = vn__push_double(&share, j->parts[k].cpu_share.v[s]);
        j->res->on_cpu = vn__median_of(share.v, share.n);
        free(share.v);
        j->res->iters = j->parts[0].iters;
        j->timer_capped = j->parts[0].timer_capped;
        j->res->waited = j->parts[j->nparts - 1].waited;
        rc = vn__summarize(j->res, j->parts, j->nparts, &j->pol, &j->rstate, j->run.ctr, j->nctr,
                           &j->dec, &j->rdec);
        j->nparts = 0;
        j->res->stop = stop;
        memcpy(j->res->error, error, sizeof error);
        j->res->elapsed = j->rstate.spent_ns / 1e9;
        if (rc == 0)
            vn__row_done(j, out);
    }
    if (cfg->progress)
        fprintf(stderr, "\r\033[K");
    return rc;
}
