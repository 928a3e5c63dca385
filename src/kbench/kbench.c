/* vernier kbench: the module's text parsed, and its calls made into the
 * engine's results (see kbench.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/decide.h"
#include "engine/internal.h"
#include "kbench.h"
#include "base/format.h"
#include "stats/int.h"
#include "stats/levels.h"

/* Parses the words "NAME NUMBER" of names[0..n) in order from *p, each
 * followed by a space or, after the last, a newline; moves *p past them. */
static int parse_fields(const char **p, const char *const *names, int n, unsigned long long *v)
{
    for (int i = 0; i < n; i++) {
        size_t k = strlen(names[i]);
        if (strncmp(*p, names[i], k) || (*p)[k] != ' ')
            return VN_EINVAL;
        *p += k + 1;
        size_t d = strspn(*p, "0123456789");
        char num[24];
        if (d == 0 || d >= sizeof num)
            return VN_EINVAL;
        memcpy(num, *p, d);
        num[d] = '\0';
        if (vn__parse_digits(num, &v[i]))
            return VN_EINVAL;
        *p += d;
        if (**p != (i < n - 1 ? ' ' : '\n'))
            return VN_EINVAL;
        (*p)++;
    }
    return 0;
}

static int parse_stats(const char **p, vn__istats *out)
{
    static const char *const names[] = {"min", "max", "count", "p50", "p90", "p95", "p99", "mad"};
    unsigned long long v[8];
    if (parse_fields(p, names, 8, v) || v[2] == 0)
        return VN_EINVAL;
    *out = (vn__istats){v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
    return 0;
}

int vn__kbench_parse_result(const char *text, vn__kbench_summary *out)
{
    static const char *const drops[] = {"migrated", "backwards", "jumps"};
    static const char *const chunks[] = {"chunks", "longest_off_cycles"};
    vn__kbench_summary s;
    memset(&s, 0, sizeof s);
    const char *p = text;
    if (!text || parse_stats(&p, &s.all))
        return VN_EINVAL;
    unsigned long long v[4];
    while (*p) {
        if (!strncmp(p, "dropped ", 8)) {
            p += 8; /* a word without a number of its own */
            if (parse_fields(&p, drops, 3, v))
                return VN_EINVAL;
            s.migrated = v[0], s.backwards = v[1], s.jumps = v[2];
        } else if (!strncmp(p, "chunks ", 7)) {
            if (parse_fields(&p, chunks, 2, v))
                return VN_EINVAL;
            s.chunks = v[0], s.longest_off = v[1];
        } else if (!strncmp(p, "cpu ", 4)) {
            size_t d = strspn(p + 4, "0123456789");
            char num[8];
            unsigned long long k;
            if (d == 0 || d >= sizeof num || p[4 + d] != ' ' || s.ncpus == VN__KBENCH_MAX_CPUS)
                return VN_EINVAL;
            memcpy(num, p + 4, d);
            num[d] = '\0';
            if (vn__parse_digits(num, &k))
                return VN_EINVAL;
            p += 4 + d + 1;
            s.cpu[s.ncpus] = (unsigned)k;
            if (parse_stats(&p, &s.per_cpu[s.ncpus]))
                return VN_EINVAL;
            s.ncpus++;
        } else {
            return VN_EINVAL;
        }
    }
    uint64_t sum = 0;
    for (size_t i = 0; i < s.ncpus; i++)
        sum += s.per_cpu[i].count;
    if (s.ncpus && sum != s.all.count)
        return VN_EINVAL;
    *out = s;
    return 0;
}

int vn__kbench_parse_samples(const char *text, size_t len, uint64_t **out, size_t *n)
{
    size_t cap = 0, k = 0;
    uint64_t *x = NULL;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        while (p < eol && *p == ' ')
            p++;
        char num[24];
        size_t d = (size_t)(eol - p);
        unsigned long long v;
        if (d == 0 || d >= sizeof num || (memcpy(num, p, d), num[d] = '\0', vn__parse_digits(num, &v))) {
            free(x);
            return VN_EINVAL;
        }
        if (k == cap) {
            size_t ncap = cap ? 2 * cap : 1024;
            uint64_t *y = realloc(x, ncap * sizeof *y);
            if (!y) {
                free(x);
                return VN_ENOMEM;
            }
            x = y, cap = ncap;
        }
        x[k++] = v;
        p = nl ? nl + 1 : end;
    }
    *out = x;
    *n = k;
    return 0;
}

/* The empty target's calls in ns: the median and its interval, which the
 * other rows' calls are net of. */
static int empty_of(const vn__kbench_row *r, double hz, vn__empty_view *e)
{
    double *v = malloc(r->n * sizeof *v);
    if (!v)
        return VN_ENOMEM;
    for (size_t i = 0; i < r->n; i++)
        v[i] = (double)r->samples[i] * 1e9 / hz;
    int rc = vn_median_ci(v, r->n, &e->om, &e->olo, &e->ohi);
    e->n = r->n;
    free(v);
    return rc;
}

/* One row: each call a sample of one iteration, and its headline from the
 * decision every engine asks (vn__decide), with the empty target's calls
 * as the empty loop: the median net of it, or, when the two cannot be told
 * apart, an upper bound, the fastest call. The module has no stop rule (a
 * row is its loop_count calls): the decision's minimum and maximum are
 * that count. */
static int row_of(const vn__kbench_row *k, double hz, double res_ns, const vn__empty_view *empty,
                  vn_result *r)
{
    r->samples = calloc(k->n, sizeof *r->samples);
    double *net = malloc(k->n * sizeof *net);
    if (!r->samples || !net) {
        free(net);
        return VN_ENOMEM;
    }
    for (size_t i = 0; i < k->n; i++) {
        vn_sample *s = &r->samples[i];
        s->value = (double)k->samples[i] * 1e9 / hz;
        s->iters = 1;
        s->ref_ns = s->branch_cycles = s->cpu_ns = NAN;
        net[i] = s->value - empty->om;
    }
    r->nsamples = r->headline_samples = k->n;
    vn_config c;
    vn_config_init(&c);
    c.processes = 1;
    vn__policy p;
    int rc = vn__policy_init(&p, &c);
    p.min_samples = p.max_samples = k->n;
    p.budget_ns = INFINITY;
    vn__row_view rv = {.v = r->samples, .n = k->n, .empty = {*empty, *empty},
                       .floor_ns = res_ns};
    vn__decision d;
    if (rc == 0)
        rc = vn__decide(&rv, &p, &d);
    /* The statistics of an upper bound are of the calls as timed, not net
     * (which can go below zero when a call and the empty loop cannot be
     * told apart), as the engine's are. */
    if (rc == 0 && d.head == VN__HEAD_FASTEST)
        for (size_t i = 0; i < k->n; i++)
            net[i] = r->samples[i].value;
    if (rc == 0)
        rc = vn_stats_compute(net, k->n, &r->stats);
    free(net);
    if (rc)
        return rc;
    uint64_t dropped = k->sum.migrated + k->sum.backwards + k->sum.jumps;
    if (dropped)
        vn__warning_brief(vn__result_warn(r, "kbench_dropped",
                                          "%llu of %llu calls dropped: %llu changed CPU, the counter "
                                          "went back in %llu and jumped over a second in %llu",
                                          (unsigned long long)dropped,
                                          (unsigned long long)(dropped + k->sum.all.count),
                                          (unsigned long long)k->sum.migrated,
                                          (unsigned long long)k->sum.backwards,
                                          (unsigned long long)k->sum.jumps),
                          "%llu calls dropped", (unsigned long long)dropped);
    snprintf(r->name, sizeof r->name, "%s", k->name);
    r->unit = "ns";
    r->iters = 1;
    r->threads = 1;
    r->overhead_ns = empty->om;
    r->overhead_ci[0] = empty->olo;
    r->overhead_ci[1] = empty->ohi;
    r->est_ci[0] = r->est_ci[1] = NAN;
    if (d.head == VN__HEAD_FASTEST) {
        r->upper_bound = 1;
        r->bound_ns = d.value;
    } else {
        r->stats.median = d.value;
        vn__levels_intervals(d.value, d.lo, d.hi, r->est_ci, r->stats.median_ci);
    }
    r->cycles = r->ref_ns = r->ref_spread = r->overhead_cycles = NAN;
    r->overhead_cycles_spread = NAN;
    r->cycles_ci[0] = r->cycles_ci[1] = NAN;
    r->cycles_est_ci[0] = r->cycles_est_ci[1] = NAN;
    r->share_processes = r->share_blocks = r->share_samples = NAN;
    r->bytes_per_iter = r->items_per_iter = 0;
    r->bytes_per_sec = r->items_per_sec = NAN;
    r->cpu_ns = r->on_cpu = NAN;
    r->ratio = NAN;
    r->ratio_ci[0] = r->ratio_ci[1] = NAN;
    r->stop = vn__stop_of(d.verdict);
    r->timer = VN_CLOCK_TSC_LFENCE;
    return 0;
}

int vn__kbench_results(const vn__kbench_row *rows, size_t n, double hz, vn_results *out)
{
    if (!rows || !out || !(hz > 0))
        return VN_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!rows[i].samples || rows[i].n == 0)
            return VN_EINVAL;
    vn__empty_view none = {0, 0, 0, 0}, empty = none;
    /* What a call's count is rounded by: a tick, or the unit every count
     * of the empty target is a multiple of (a counter a hypervisor
     * advances 26 ticks at a time), as vernier clocks finds it. */
    double res_ns = 1e9 / hz;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rows[i].name, "empty")) {
            vn__u64 unit, *s = malloc(2 * rows[i].n * sizeof *s);
            if (!s)
                return VN_ENOMEM;
            memcpy(s, rows[i].samples, rows[i].n * sizeof *s);
            vn__isort(s, rows[i].n, s + rows[i].n);
            if (vn__iunit_sorted(s, rows[i].n, &unit) == 0)
                res_ns = (double)unit * 1e9 / hz;
            free(s);
            int rc = empty_of(&rows[i], hz, &empty);
            if (rc)
                return rc;
        }
    vn_results r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    r.result_size = sizeof(vn_result);
    r.bench = calloc(n ? n : 1, sizeof *r.bench);
    if (!r.bench)
        return VN_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        int rc = row_of(&rows[i], hz, res_ns, strcmp(rows[i].name, "empty") ? &empty : &none,
                        &r.bench[i]);
        r.nbench = i + 1;
        if (rc) {
            vn__results_clear(&r);
            return rc;
        }
    }
    r.timer = VN_CLOCK_TSC_LFENCE;
    snprintf(r.timer_reason, sizeof r.timer_reason,
             "the kernel module's ordered counter reads around each call, at the rate "
             "calibrated in user space");
    r.timer_cost_ns = NAN;
    r.timer_resolution_ns = res_ns;
    r.counter_hz = hz;
    r.optimized = 1;
    vn_config_init(&r.config);
    r.config.warmup = 0;
    /* The module has no stop rule: a row is its loop_count calls. Its
     * settings are the defaults, with that count as the fewest samples. */
    for (size_t i = 0; i < n; i++) {
        r.bench[i].max_time = r.config.max_time;
        r.bench[i].precision = r.config.precision;
        r.bench[i].min_samples = r.bench[i].nsamples;
    }
    *out = r;
    return 0;
}
