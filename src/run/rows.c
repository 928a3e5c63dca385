/* vernier run's rows: one per command and combination of parameter
 * values, the order they take turns in, when each is done, and the
 * progress line. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "internal.h"
#include "clock/internal.h"
#include "base/format.h"
#include "base/progress.h"

#include "run.h"

/* The progress line on stderr, redrawn at most every PROGRESS_EVERY_NS:
 * drawing after every run of a millisecond command would cost more than
 * the command. Nothing is drawn before that much time has passed, so short
 * runs leave no trace. */
#define PROGRESS_EVERY_NS 100000000ull

void vn__free_rows(row *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(r[i].text);
        free(r[i].path);
        vn__words_free(r[i].argv);
        free(r[i].prepare);
        free(r[i].label);
        free(r[i].setup);
        free(r[i].cleanup);
        free(r[i].choice);
        free(r[i].wall);
        free(r[i].counts);
        free(r[i].use);
    }
    free(r);
}

/* The shell's words ("bash --norc"), then -c and the text. */
char **vn__shell_argv(const vn_run_config *c, const char *text)
{
    char **w = NULL, why[128];
    int n = 0;
    if (vn__split_words(c->shell_cmd ? c->shell_cmd : "sh", &w, &n, why, sizeof why) != 0 || !n)
        return NULL;
    char **v = calloc((size_t)n + 3, sizeof *v);
    if (!v) {
        vn__words_free(w);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        v[i] = w[i];
    free(w); /* the words now belong to v */
    v[n] = strdup("-c");
    v[n + 1] = strdup(text);
    if (!v[n] || !v[n + 1]) {
        vn__words_free(v);
        return NULL;
    }
    return v;
}

int vn__grow(row *r)
{
    if (r->n < r->cap)
        return 0;
    size_t cap = r->cap ? r->cap * 2 : 64;
    double *w = realloc(r->wall, cap * sizeof *w);
    if (!w)
        return VN_ENOMEM;
    r->wall = w;
    vn_proc_usage *u = realloc(r->use, cap * sizeof *u);
    if (!u)
        return VN_ENOMEM;
    r->use = u;
    double *c = realloc(r->counts, cap * VN_COUNTERS_MAX * sizeof *c);
    if (!c)
        return VN_ENOMEM;
    r->counts = c;
    r->cap = cap;
    return 0;
}

void vn__run_policy(const vn_run_config *c, vn__policy *p)
{
    vn_config dflt;
    vn_config_init(&dflt);
    dflt.processes = 1;
    vn__policy_init(p, &dflt);
    p->precision = c->precision / 100.0;
    p->min_samples = c->runs ? c->runs : c->min_runs;
    p->max_samples = c->runs ? c->runs : c->max_runs;
    p->budget_ns = c->runs ? INFINITY : c->min_time * 1e9;
    /* A count asked for (--runs N) is what stops it, precise or not: it
     * seeks no precision, and its stop reason says so (compare's threshold
     * reads it). */
    p->stop_on_precision = !c->runs;
    /* A run of a command has no tags, and its "empty loop" is the shell's
     * start-up, measured apart: a command barely dearer than it is still
     * a command, not code that may overlap a loop. */
    p->indistinct_share = 0;
}

int vn__runs_view(const row *r, const vn__shell_time *sh, vn_sample *v, vn__row_view *rv)
{
    for (size_t i = 0; i < r->n; i++)
        v[i] = (vn_sample){.value = r->wall[i], .iters = 1, .ref_ns = NAN, .branch_cycles = NAN,
                           .cpu_ns = NAN};
    vn__empty_view e = {sh->wall, sh->lo, sh->hi, sh->n ? sh->n : 1};
    /* The time budget holds the --prepare commands too, as hyperfine's
     * does: a slow prepare takes fewer runs, not a longer wait. */
    *rv = (vn__row_view){.v = v, .n = r->n, .empty = {e, e},
                         .elapsed_ns = r->spent_ns + r->prepare_ns, .streak = r->streak};
    return 0;
}

/* Is this row done? The decision every engine asks (vn__decide): exactly
 * --runs; or at least --min-samples and either the median, net of the
 * shell's start-up, known to the precision asked for at two looks in a
 * row, or --max-time spent; never more than --max-samples. r->stop says
 * which. */
int vn__check_done(const vn_run_config *c, row *r, const vn__shell_time *sh)
{
    vn__policy p;
    vn__run_policy(c, &p);
    vn_sample *v = malloc((r->n ? r->n : 1) * sizeof *v);
    if (!v)
        return VN_ENOMEM;
    vn__row_view rv;
    vn__runs_view(r, sh, v, &rv);
    vn__decision d;
    int rc = vn__decide(&rv, &p, &d);
    free(v);
    if (rc)
        return rc;
    /* Stop tests count from the fewest runs on, as the engine's do. */
    r->streak = d.precise && r->n >= p.min_samples ? r->streak + 1 : 0;
    if (d.verdict == VN__GO_ON)
        return 0;
    r->finished = 1;
    r->stop = vn__stop_of(d.verdict);
    return 0;
}

/* The order of one round: the rows not finished, in turn or shuffled; with
 * blocks, the first of them alone. */
size_t vn__round_order(row *rows, size_t n, const vn_run_config *c, vn_rng *rng, size_t *order)
{
    size_t k = 0;
    for (size_t i = 0; i < n && !(c->order_blocks && k); i++)
        if (!rows[i].finished)
            order[k++] = i;
    if (c->order_random)
        for (size_t i = k; i > 1; i--) {
            size_t j = (size_t)vn_rng_below(rng, i);
            size_t t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
    return k;
}

/* How many timed runs a row will have: --runs, or, adaptive, what its
 * time budget allows at its pace so far, within --min/--max-samples. */
static size_t planned_runs(const vn_run_config *c, const row *r)
{
    if (c->runs)
        return c->runs;
    if (r->finished)
        return r->n;
    size_t p = c->min_runs;
    if (r->n) {
        double per = (r->spent_ns + r->prepare_ns) / (double)r->n;
        double fit = per > 0 ? c->min_time * 1e9 / per : (double)c->max_runs;
        if (fit > (double)p)
            p = fit > (double)c->max_runs ? c->max_runs : (size_t)ceil(fit);
    }
    return p > r->n ? p : r->n;
}

void vn__progress(runctx *x, const row *rows, size_t nrows, const row *cur)
{
    const vn_run_config *c = x->c;
    if (!c->progress)
        return;
    uint64_t now = vn__posix_read(CLOCK_MONOTONIC);
    if (now - x->t_drawn < PROGRESS_EVERY_NS)
        return;
    x->t_drawn = now;
    size_t done = 0, planned = 0;
    for (size_t k = 0; k < nrows; k++) {
        done += rows[k].n + rows[k].warmed;
        planned += planned_runs(c, &rows[k]) + c->warmup;
    }
    struct winsize ws;
    int width = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
    char line[512];
    /* One column short of the width: a full line makes some terminals wrap. */
    vn__progress_line(line, sizeof line, cur->label ? cur->label : cur->text, done, planned,
                      (double)(now - x->t_start) / 1e9, width - 1);
    fprintf(stderr, "\r\033[K%s", line);
    fflush(stderr);
}

/* Builds one row per parameter combination and command. */
int vn__build_rows(const vn_run_config *c, row **out, size_t *nout, char *err, size_t errlen)
{
    size_t combos = 1;
    for (size_t i = 0; i < c->nparams; i++) {
        if (!c->params[i].nvalues) {
            snprintf(err, errlen, "parameter '%s' has no values", c->params[i].name);
            return VN_EINVAL;
        }
        combos *= c->params[i].nvalues;
        if (combos * c->ncommands > MAX_ROWS) {
            snprintf(err, errlen, "the parameters give more than %d commands to run", MAX_ROWS);
            return VN_EINVAL;
        }
    }
    size_t n = combos * c->ncommands;
    row *rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows)
        return VN_ENOMEM;
    size_t k = 0;
    int rc = 0;
    for (size_t combo = 0; combo < combos && rc == 0; combo++) {
        for (size_t ci = 0; ci < c->ncommands && rc == 0; ci++) {
            row *r = &rows[k++];
            r->choice = calloc(c->nparams ? c->nparams : 1, sizeof *r->choice);
            if (!r->choice) {
                rc = VN_ENOMEM;
                break;
            }
            /* The first parameter varies slowest, like nested loops. */
            size_t rest = combo;
            for (size_t pi = c->nparams; pi-- > 0;) {
                r->choice[pi] = rest % c->params[pi].nvalues;
                rest /= c->params[pi].nvalues;
            }
            r->text = vn__param_substitute(c->commands[ci], c->params, c->nparams, r->choice);
            /* One --prepare per command, when given so; else one for all. */
            const char *prep = c->nprepares > ci ? c->prepares[ci] : c->prepare;
            r->prepare = vn__param_substitute(prep, c->params, c->nparams, r->choice);
            r->setup = vn__param_substitute(c->setup, c->params, c->nparams, r->choice);
            r->cleanup = vn__param_substitute(c->cleanup, c->params, c->nparams, r->choice);
            if (!r->text || (prep && !r->prepare) || (c->setup && !r->setup) ||
                (c->cleanup && !r->cleanup)) {
                rc = VN_ENOMEM;
                break;
            }
            if (ci < c->nnames && c->names[ci]) {
                r->label = vn__param_substitute(c->names[ci], c->params, c->nparams, r->choice);
                if (!r->label) {
                    rc = VN_ENOMEM;
                    break;
                }
            }
            char need[160] = "";
            int needs = vn__needs_shell(r->text, need, sizeof need);
            if (needs && c->shell < 0) {
                const char *q = vn__quote_for(r->text);
                snprintf(err, errlen, "%s%s%s needs a shell (%s); drop -N/--shell=none to run it "
                         "through sh", q, r->text, q, need);
                rc = VN_EINVAL;
                break;
            }
            if (c->shell > 0 || needs) {
                r->shell = 1;
                r->argv = vn__shell_argv(c, r->text);
                if (!r->argv) {
                    const char *q = vn__quote_for(c->shell_cmd);
                    snprintf(err, errlen, "the shell %s%s%s is not a command line; give a program",
                             q, c->shell_cmd ? c->shell_cmd : "", q);
                    rc = VN_EINVAL;
                }
                continue;
            }
            /* Words first, then the parameters in each word: a value with a
             * quote or a blank in it stays one word, as given. */
            int argc;
            char why[128] = "";
            rc = vn__split_words(c->commands[ci], &r->argv, &argc, why, sizeof why);
            if (rc) {
                const char *q = vn__quote_for(c->commands[ci]);
                snprintf(err, errlen, "cannot split %s%s%s into words: %s", q, c->commands[ci], q,
                         why);
                break;
            }
            for (int w = 0; w < argc && rc == 0; w++) {
                char *sw = vn__param_substitute(r->argv[w], c->params, c->nparams, r->choice);
                if (!sw) {
                    rc = VN_ENOMEM;
                    break;
                }
                free(r->argv[w]);
                r->argv[w] = sw;
            }
            if (rc)
                break;
            /* A command that does not exist is an error before any run. */
            char path[4096];
            if (!c->executor && (rc = vn__which(r->argv[0], path, sizeof path)) == 0) {
                r->path = strdup(path);
                if (!r->path)
                    rc = VN_ENOMEM;
                continue;
            }
            if (rc == VN_ENOMEM)
                break;
            if (!c->executor) {
                const char *q = vn__quote_for(r->argv[0]);
                if (!*r->argv[0])
                    snprintf(err, errlen, "the command is empty; give a program to run");
                else
                    snprintf(err, errlen,
                             rc == -EACCES   ? "%s%s%s is not executable; check its permissions"
                             : rc == -EISDIR ? "%s%s%s is a directory, not a program; name the program in it"
                                             : "%s%s%s was not found; check the name, the PATH, or use "
                                               "--shell for a shell command",
                             q, r->argv[0], q);
                break;
            }
        }
    }
    if (rc) {
        vn__free_rows(rows, n);
        return rc;
    }
    *out = rows;
    *nout = n;
    return 0;
}
