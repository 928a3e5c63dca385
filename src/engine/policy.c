/* The decision's thresholds (policy.h): their defaults, each with why, and
 * the same given by name, for experiments that switch a rule off or move it
 * (vn_config.policy): "NAME=VALUE,...". Pure: the settings and the text in,
 * the policy or a message out. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/abi.h"
#include "internal.h"
#include "policy.h"
#include "stats/levels.h"
#include "vernier/base.h"

/* How a field's value is written: a ratio or share (a number >= 0, "inf"
 * allowed), or a count of samples ("inf": more than any run takes). */
enum kind { REAL, COUNT };

static const struct field {
    const char *name;
    size_t off;
    enum kind kind;
} fields[] = {
    {"min_untagged", offsetof(vn__policy, min_untagged), COUNT},
    {"min_interval", offsetof(vn__policy, min_interval), COUNT},
    {"fastest_agree", offsetof(vn__policy, fastest_agree), COUNT},
    {"bound_settled", offsetof(vn__policy, bound_settled), COUNT},
    {"empty_matched", offsetof(vn__policy, empty_matched), COUNT},
    {"indistinct_share", offsetof(vn__policy, indistinct_share), REAL},
    {"shared_slower", offsetof(vn__policy, shared_slower), REAL},
    {"shared_evidence", offsetof(vn__policy, shared_evidence), COUNT},
    {"shared_ratio", offsetof(vn__policy, shared_ratio), REAL},
    {"process_shared_ratio", offsetof(vn__policy, process_shared_ratio), REAL},
    {"process_fence", offsetof(vn__policy, process_fence), REAL},
    {"reach_within", offsetof(vn__policy, reach_within), REAL},
    {"alone_probe", offsetof(vn__policy, alone_probe), REAL},
    {"confirm", offsetof(vn__policy, confirm), COUNT},
    {"min_processes", offsetof(vn__policy, min_processes), COUNT},
    {"process_samples", offsetof(vn__policy, process_samples), COUNT},
    {"cycles_gain", offsetof(vn__policy, cycles_gain), REAL},
    {"cycles_first", offsetof(vn__policy, cycles_first), COUNT},
    {"ns_at_clock", offsetof(vn__policy, ns_at_clock), COUNT},
    {"within_floor", offsetof(vn__policy, within_floor), COUNT},
    {"layout_mb", offsetof(vn__policy, layout_mb), COUNT},
    {"settle", offsetof(vn__policy, settle), REAL},
    {"sample_turns", offsetof(vn__policy, sample_turns), COUNT},
    {"head_mean", offsetof(vn__policy, head_mean), COUNT},
    {"spread_qn", offsetof(vn__policy, spread_qn), COUNT},
    {"batch_gate", offsetof(vn__policy, batch_gate), REAL},
    {"median_mj", offsetof(vn__policy, median_mj), COUNT},
    {"batch_signs", offsetof(vn__policy, batch_signs), COUNT},
    {"head_low", offsetof(vn__policy, head_low), COUNT},
    {"head_ranks", offsetof(vn__policy, head_ranks), COUNT},
    {"shared_most", offsetof(vn__policy, shared_most), COUNT},
    {"futile_after", offsetof(vn__policy, futile_after), COUNT},
    {"late_look", offsetof(vn__policy, late_look), COUNT},
    {"wait_own", offsetof(vn__policy, wait_own), COUNT},
    {"states_alike", offsetof(vn__policy, states_alike), COUNT},
    {"states_one_sided", offsetof(vn__policy, states_one_sided), COUNT},
    {"alike_low", offsetof(vn__policy, alike_low), COUNT},
    {"alike_view", offsetof(vn__policy, alike_view), COUNT},
    {"lone_own", offsetof(vn__policy, lone_own), COUNT},
    {"ref_off", offsetof(vn__policy, ref_off), REAL},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

/* Reads one value of the field's kind from [s, e) into the policy. */
static int set_value(vn__policy *p, const struct field *f, const char *s, const char *e)
{
    char buf[64];
    size_t len = (size_t)(e - s);
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = 0;
    char *end;
    char *at = (char *)p + f->off;
    if (f->kind != REAL && !strcmp(buf, "inf")) {
        *(size_t *)(void *)at = SIZE_MAX;
        return 0;
    }
    if (f->kind == REAL) {
        errno = 0;
        double v = strtod(buf, &end);
        if (*end || errno == ERANGE || !(v >= 0) || (isinf(v) && strcmp(buf, "inf")))
            return -1;
        *(double *)(void *)at = v;
        return 0;
    }
    if (buf[0] < '0' || buf[0] > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (*end || errno == ERANGE)
        return -1;
    *(size_t *)(void *)at = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
    return 0;
}

static void names(char *out, size_t n)
{
    size_t k = 0;
    out[0] = 0;
    for (size_t i = 0; i < NFIELDS && k < n; i++) {
        int w = snprintf(out + k, n - k, "%s%s", i ? ", " : "", fields[i].name);
        k += w > 0 ? (size_t)w : 0;
    }
}

int vn__policy_parse(vn__policy *p, const char *text, char *why, size_t n)
{
    vn__policy q;
    memcpy(&q, p, sizeof q); /* padding too: policies alike compare alike */
    const char *s = text ? text : "";
    while (*s) {
        const char *end = strchr(s, ',');
        if (!end)
            end = s + strlen(s);
        const char *eq = memchr(s, '=', (size_t)(end - s));
        const struct field *f = NULL;
        for (size_t i = 0; eq && i < NFIELDS; i++)
            if (strlen(fields[i].name) == (size_t)(eq - s) &&
                !strncmp(fields[i].name, s, (size_t)(eq - s)))
                f = &fields[i];
        if (!f) {
            if (why && n) {
                char known[512];
                names(known, sizeof known);
                snprintf(why, n, "policy '%.*s' is not NAME=VALUE with a known NAME (%s)",
                         (int)(end - s > 64 ? 64 : end - s), s, known);
            }
            return VN_EINVAL;
        }
        if (set_value(&q, f, eq + 1, end) != 0) {
            if (why && n)
                snprintf(why, n, "policy %s: '%.*s' is not %s", f->name,
                         (int)(end - eq - 1 > 64 ? 64 : end - eq - 1), eq + 1,
                         f->kind == COUNT ? "a whole number or 'inf'" : "a number >= 0 or 'inf'");
            return VN_EINVAL;
        }
        s = *end ? end + 1 : end;
    }
    memcpy(p, &q, sizeof q);
    return 0;
}

int vn__policy_init(vn__policy *p, const vn_config *cfg)
{
    /* Filled in a copy, so that p stays untouched on a bad override; zeroed
     * first, padding too, so that two policies alike compare alike. */
    vn__policy d, *p_out = p;
    memset(&d, 0, sizeof d);
    p = &d;
    p->precision = cfg->precision / 100.0;
    p->min_samples = cfg->min_samples;
    p->max_samples = cfg->max_samples;
    p->budget_ns = cfg->max_time * 1e9;
    /* Half the minimum, and never under 5: a headline on fewer would rest
     * on almost nothing, so then the tagged samples count after all. */
    p->min_untagged = cfg->min_samples / 2 > 5 ? cfg->min_samples / 2 : 5;
    /* Below 6 samples no pair of order statistics covers the median at 95%. */
    p->min_interval = 6;
    /* One fast sample may be a lucky one; five within the precision of it
     * show the machine can run the body that fast again. */
    p->fastest_agree = 5;
    /* Across processes a bound is the lowest floor any of them found; once
     * three in a row found none lower, more of them only wait for a lucky
     * one (x += x: floors of 1.6 to 1.9 cycles, one at 1.2 in 20). */
    p->bound_settled = 3;
    /* The empty loop subtracted from samples of one kind of moments comes
     * from that kind alone once there are enough of them for an interval:
     * a shared core slows a loop of taken branches, the empty one too. */
    p->empty_matched = 5;
    /* The empty loop stands for the benchmark's loop only up to code
     * placement, which moves a loop's cost by a fraction of a cycle. */
    p->indistinct_share = 0.5;
    /* Shared-core samples leave the headline only when sharing moves this
     * body's time beyond the precision asked; otherwise they are as good as
     * quiet ones, and waiting for quiet moments would buy nothing. */
    p->shared_slower = 1.0;
    p->shared_evidence = 2;
    /* Off: on the machines measured it cost samples and time, and left
     * headlines on a few samples, without narrowing the spread between
     * runs (bench/RESULTS.md); shared_ratio=1.1 switches it on. */
    p->shared_ratio = INFINITY;
    /* Two looks in a row: tests/unit/test_sequential.c measures what the
     * second one buys. */
    p->confirm = 2;
    /* One process: it alone decides. A count given: exactly that many.
     * Else as many as the variation between them asks for, from 2 (the
     * fewest with an interval across them) to 20, pyperf's default. */
    size_t procs = cfg->size >= VN__SIZE_THROUGH(vn_config, processes) ? (size_t)cfg->processes : 1;
    p->min_processes = procs ? procs : 2;
    p->max_processes = procs ? procs : 20;
    /* Under 3 samples a process has no median that leaves one sample out. */
    p->process_samples = 3;
    /* A core shared with a busy sibling thread slowed this host's loops by
     * 1.1x to 1.9x for seconds at a time, and the probe read 1.6 to 1.9
     * against 1.01 when it was not (bench/RESULTS.md). */
    p->process_shared_ratio = VN__SHARED_RATIO;
    /* Off: in three A/B sets of 41 runs the fence (1.1) raised the mean
     * coverage quiet (87% against 82%) and not stressed (82% against 83%),
     * and left four intervals over their width limit (none without) and
     * two workloads' false alarms over 2 of 40 (none without)
     * (bench/RESULTS.md, 2026-12-04, late). */
    p->process_fence = 0;
    /* A shared state farther off than 1.4 times the headline is one a
     * next run rests on only on a core shared throughout (about one run in
     * a hundred); nearer, the memory-bound rows' next runs move part of the
     * way there. Replayed on kept sets it kept the coverage the full reach
     * gave and cut the intervals over their width limit from 15 to 6
     * (docs/engine.md, step 18; bench/RESULTS.md, 2026-12-04, midnight). */
    p->reach_within = 1.4;
    /* From the machine, once it is known (engine/suite.c). */
    p->alone_probe = NAN;
    /* Off: in an A/B set of 41 runs it narrowed the table walk's and the
     * division chain's intervals, and the mean coverage fell from 85% to
     * 82% quiet and from 79% to 70% stressed (the table walk's from 79% to
     * 55%): a headline of the shared state misses a next run on a core of
     * its own (bench/RESULTS.md, 2026-12-02, part 13). */
    p->shared_most = 0;
    p->cycles_gain = VN__LEVELS_STEADIER_GAIN;
    /* The core's clock moves over seconds to minutes, between runs as
     * within them: a chain of adds spread 1.06 in ns from run to run and
     * 1.018 in cycles on a day the clock moved between runs and seldom
     * within one (bench/RESULTS.md, 2026-11-29). */
    p->cycles_first = 1;
    /* The division chain's spread in cycles from run to run and its
     * coverage of the next run improved, the chain of adds' moved within
     * a point (docs/engine.md, step 8; bench/RESULTS.md, 2026-12-04). */
    p->ns_at_clock = 1;
    /* Off: in its A/B set of 41 runs it moved the mean coverage by -3
     * and +4 points (quiet, stressed), and a floor at every count by +1
     * to +12 in two more, within what two interleaved halves of one build
     * differ by on this guest (bench/RESULTS.md, 2026-11-30). */
    p->within_floor = 0;
    /* Off: a row whose processes vary more than the precision allows runs
     * to the most processes (20) rather than stop at 12 for futility. At
     * 12 the demo's two loops and an 8 MiB pointer chase carried intervals
     * wider than their runs' medians spread plus the precision in 8 of 10
     * set-conditions of five A/B sets of 41 runs; run to 20, in 4 of 10,
     * and every goal of coverage, width and false alarms held in 6 of 10
     * against 1 of 10; the mean coverage the same (91%), the chase's 5
     * points lower (82% against 87%); the six default rows and the trio
     * took the same time (bench/RESULTS.md, 2026-12-01, part 5).
     * futile_after=12 stops them as before. */
    p->futile_after = SIZE_MAX;
    /* The processes' lower quartile: the host's neighbours and its slower
     * states only add time, and in the runs that met them most processes
     * sat 5-60% above a floor a few still read. Run both ways, 41 runs a
     * set, the quartile held every goal of coverage, width and false
     * alarms in 5 of 14 set-conditions, the median in 1 of the 10 run in
     * the same hours, with as few false alarms or fewer in each and half
     * the memory-bound rows' widths; replayed on 32 more, 26 against 17
     * (bench/RESULTS.md, 2026-12-01). Where a few layouts run much faster
     * than the rest its interval is wide (a copy of 512 bytes, the same
     * record): head_low=50 reads their median. */
    p->head_low = 25;
    /* Run both ways, the rank interval raised the mean coverage from 72
     * to 76% quiet and 66 to 78% stressed; replayed on 120
     * workload-conditions of 12 sets of 41 runs, from 83 to 87%, 1 under
     * 65% where there were 12, at the cost of width: 13 over their limit
     * against 6 (bench/RESULTS.md, 2026-12-02). */
    p->head_ranks = VN__LEVELS_HEAD_RANKS;
    /* A row that stopped early saw the machine only in that stretch. Run
     * both ways in three A/B sets of 41 runs, the 1 ms sleep held the next
     * run in 75% of pairs against 69% (none of 6 set-conditions under 65%,
     * against 2), the chains' planted 10% were found in 90% of tries
     * against 85%, the mean coverage alike (81%); more intervals over
     * their width limit (10 against 3), and the six default rows took
     * 1.0-1.35 times as long, half the time of the version before
     * processes (bench/RESULTS.md, 2026-12-02, part 15). */
    p->late_look = 1;
    /* A row on a shared core through its processes, when the run later
     * met a core of its own, was compared with a run in that state only
     * to be declined ("the machines differed"). Run both ways in two A/B
     * sets of 41 runs, quiet and stressed: 31 of 640 comparisons of the
     * chains with a planted slowdown declined against 43, their 10% found
     * in 295 of 320 tries against 289, the mean coverage 79% against 74%,
     * the runs 3-5% longer (bench/RESULTS.md, 2026-12-04). */
    p->wait_own = 1;
    /* Run both ways in two A/B sets of 41 runs, quiet and stressed, the
     * chains' planted 10% were found in 285 of 320 tries against 278,
     * their 3% in 250 against 230, 12 of their pairs declined for the
     * core state against 32; the mean coverage 82% either way, 7
     * intervals over their width limit against 5 (bench/RESULTS.md,
     * 2026-12-02, part 16). 2 (also where the two groups cannot
     * be told apart), against 1 in three A/B sets: the chains' 10% found
     * in 437 of 480 tries against 429, their 3% in 362 against 374, the
     * mean coverage 78.3% against 79.5%, 1 interval over its width limit
     * against 7 (2026-12-03, part 17): no better where it
     * counts, so off. */
    p->states_alike = 1;
    /* A shared group that reads faster than the own one, which a sibling
     * thread cannot make it, measured the body too: two own processes of
     * a chain of adds at 1033 and 1004 cycles among eighteen shared at
     * 985 to 1143 gave the headline an interval of +-35%. Taken as alike,
     * in two A/B sets of 41 runs, quiet and stressed: the mean coverage
     * 80.0% against 81.3%, the chains' 10% found in 273 of 320 tries
     * against 272, their 3% in 246 against 244, fewer rows resting on a
     * minority of their processes (bench/RESULTS.md, 2026-12-04): no
     * better where it counts, so off. */
    p->states_one_sided = 0;
    /* Two A/B sets of 41 runs, quiet and stressed: the chains' 10% found
     * in 298 of 320 tries against 283, 15 of their pairs declined for the
     * core state against 28, the mean coverage 76.5% against 76.3%, the
     * chains' own 2-4 points lower (bench/RESULTS.md, 2026-12-04). */
    p->alike_low = 1;
    /* Off: in an A/B set of 41 runs, quiet and stressed, the division
     * chain's coverage of the next run in cycles fell from 84% to 76% and
     * from 85% to 81%, the mean from 85% to 83% and from 82% to 79%, its
     * spread in cycles the same (1.029 against 1.027, 1.020 against
     * 1.023), in an hour with 1 or 2 runs of 41 on a shared core
     * throughout (bench/RESULTS.md, 2026-12-04). */
    p->alike_view = 0;
    p->lone_own = 0;
    p->batch_gate = 1;
    p->stop_on_precision = 1;
    if (vn__policy_parse(p, cfg->policy, NULL, 0) != 0)
        return VN_EINVAL;
    /* min_processes moves only the floor of a count chosen by the engine;
     * a count given is run whole. */
    if (procs)
        p->min_processes = procs;
    else if (p->min_processes > p->max_processes)
        p->min_processes = p->max_processes;
    else if (p->min_processes < 2)
        p->min_processes = 2;
    *p_out = d;
    return 0;
}

double vn__alone_probe_for(int hypervisor, int smt)
{
    return hypervisor != 1 && smt == 0 ? INFINITY : 1.3;
}
