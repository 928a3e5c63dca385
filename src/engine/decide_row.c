/* The decision on a row over the processes it ran in (engine/decide.h):
 * each process decided its own samples (vn__decide); here their values
 * become the headline, its interval across processes, the unit that
 * compares across runs, and whether another process is needed. Pure. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"
#include "internal.h"
#include "stats/internal.h"
#include "stats/levels.h"
#include "stats/stats_api.h"
#include "vernier/base.h"

static void unit_nan(vn__unit_view *u) { u->value = u->lo = u->hi = NAN; }

/* An interval's wider half, in percent of its value above 0; NAN without
 * one. */
static double half_pct(double value, double lo, double hi)
{
    return 100 * vn__levels_half_share(value, lo, hi);
}

/* The headline over processes: their median with its interval, their
 * mean with Student's t (policy head_mean), or a low quantile (head_low). */
static vn__unit_view head_of(const vn__levels *l, const vn__policy *p)
{
    if (vn__policy_quantile(p) < 0.5)
        return (vn__unit_view){l->low, l->low_lo, l->low_hi};
    return p->head_mean ? (vn__unit_view){l->mean, l->lo, l->hi}
                        : (vn__unit_view){l->median, l->median_lo, l->median_hi};
}

/* How the variance of one process's value splits between processes,
 * between the halves of a process's samples, and the samples themselves,
 * with each process's numbers scaled by scale[i] (1 for ns; cycles per ns
 * for cycles). sd is the values' spread across processes (NAN for one). */
static void shares(const vn__decision *proc, size_t k, const double *scale, double sd,
                   vn__row_decision *out)
{
    double within = 0, blocks = 0, bvar = 0;
    size_t nw = 0, nb = 0;
    for (size_t i = 0; i < k; i++) {
        const vn__decision *d = &proc[i];
        double s2 = scale[i] * scale[i];
        if (isfinite(d->var)) {
            within += d->var * s2;
            nw++;
        }
        if (isfinite(d->block[0]) && isfinite(d->block[1]) && isfinite(d->block_var[0]) &&
            isfinite(d->block_var[1])) {
            double g = d->block[0] - d->block[1];
            blocks += g * g / 2 * s2;
            bvar += (d->block_var[0] + d->block_var[1]) / 2 * s2;
            nb++;
        }
    }
    out->within = nw ? within / (double)nw : NAN;
    /* The variance between halves beyond what their samples explain; a
     * process's value, the median of both halves, carries half of it. */
    double vb = nb ? fmax(0, (blocks - bvar) / (double)nb) / 2 : 0;
    double vs = nw ? within / (double)nw : NAN;
    double vp = k >= 2 && isfinite(sd) ? fmax(0, sd * sd - vs - vb) : NAN;
    if (!isfinite(vs))
        return;
    double all = vs + vb + (isfinite(vp) ? vp : 0);
    if (!(all > 0))
        all = 1, vs = 1;
    out->share_samples = vs / all;
    out->share_blocks = vb / all;
    out->share_processes = isfinite(vp) ? vp / all : NAN;
}

/* The upper bound of a row some process of which could not tell the body
 * from the empty loop: the fastest sample of the loop with the body in any
 * process, which bounds the body whatever the process. */
static void bound_of(const vn__decision *proc, size_t k, const vn__policy *p, vn__row_decision *out)
{
    out->bound = 1;
    double best = INFINITY, ref = NAN;
    size_t agree = 0, medians = 0;
    for (size_t i = 0; i < k; i++) {
        const vn__decision *d = &proc[i];
        if (d->head == VN__HEAD_NONE)
            continue;
        double v = d->head == VN__HEAD_FASTEST ? d->value : d->fastest;
        if (v < best) {
            best = v;
            ref = d->ref;
        }
        medians += d->head == VN__HEAD_MEDIAN;
    }
    /* As in one process: enough samples, over all of them, within the
     * precision of the fastest show that it can be run again. */
    for (size_t i = 0; i < k; i++)
        if (proc[i].head != VN__HEAD_NONE && proc[i].fastest <= best * (1 + p->precision))
            agree += proc[i].agree;
    /* Processes whose fastest samples lie far apart beyond the precision
     * disagree too: x += x ran at one cycle in some, at two in others. */
    double worst = best;
    for (size_t i = 0; i < k; i++)
        if (proc[i].head != VN__HEAD_NONE)
            worst = fmax(worst, proc[i].head == VN__HEAD_FASTEST ? proc[i].value : proc[i].fastest);
    out->bound_value = best;
    out->bound_cycles = isfinite(ref) && ref > 0 ? best / ref : NAN;
    out->disagree = medians > 0 || worst > best * (1 + 2 * p->precision);
    /* Settled: the last bound_settled processes (in the order they ran)
     * found no floor below the one before them beyond the precision. */
    int settled = 0;
    if (p->bound_settled > 0 && k > p->bound_settled) {
        double before = INFINITY, after = INFINITY;
        for (size_t i = 0; i < k; i++) {
            const vn__decision *d = &proc[i];
            if (d->head == VN__HEAD_NONE)
                continue;
            double v = d->head == VN__HEAD_FASTEST ? d->value : d->fastest;
            if (i < k - p->bound_settled)
                before = fmin(before, v);
            else
                after = fmin(after, v);
        }
        settled = isfinite(before) && !(after < before * (1 - p->precision));
    }
    out->precise = agree >= p->fastest_agree || settled;
}

/* Whether the unit that compares across runs is reference cycles. The
 * core's clock moves over seconds to minutes, within a run and between
 * runs; a body that runs on the CPU takes its cycles at whatever rate the
 * clock runs, so its cycles compare across runs where its ns do not. So:
 * for a body on the CPU, cycles where the values agree better in them
 * beyond chance (the clock moved during the run), or, with
 * p->cycles_first, where they agree no better in ns (a body bound by
 * memory while the clock moved keeps ns); ns for a body that mostly
 * waits, whose time is the wall clock's even when its wake-ups moved
 * with the clock (a 1 ms sleep read in cycles in 2 to 4 of 41 runs). */
static int cycles_unit(const vn__policy *p, int on_cpu, int cycles_steadier, int ns_steadier)
{
    return on_cpu && (cycles_steadier || (p->cycles_first && !ns_steadier));
}

/* How many processes an interval of half% over k of them would take to
 * come within the precision (*need, asked at every look: the finding of a
 * row that ran the most gives it), and whether the most allowed would
 * not: its half-width shrinks with the root of the count and with
 * Student's t. (Whether that stops the row matters only below the most
 * processes and with no count asked for: vn__decide_row's order.) */
static int futile(double half_pct, size_t k, const vn__policy *p, double *need)
{
    double want = 100 * p->precision;
    *need = NAN;
    if (!(half_pct > 0) || !(want > 0) || k < 2)
        return 0;
    *need = ceil((double)k * (half_pct / want) * (half_pct / want));
    if (k < p->futile_after || k < p->min_processes)
        return 0;
    double m = (double)p->max_processes;
    double at_most = half_pct * sqrt((double)k / m) * vn_t975(m - 1) / vn_t975((double)(k - 1));
    return at_most > want;
}

/* The options of the headline's levels over processes, as the policy
 * sets them (low: its quantile under the median, else 0). */
static vn__levels_opts levels_opts(const vn__policy *p, double low)
{
    return (vn__levels_opts){.qn = p->spread_qn != 0, .gate = p->batch_gate,
                             .mj = p->median_mj != 0, .signs = p->batch_signs != 0,
                             .low = low, .ranks = p->head_ranks != 0};
}

/* Whether v lies within the interval of the median of x[0..n): 1 or 0
 * (0 too for fewer than two values, which have none); -1 when memory
 * runs out. */
static int median_holds(const double *x, size_t n, double v, const vn__levels_opts *o)
{
    vn__levels l;
    int rc = vn__levels_compute_with(x, NULL, n, o, &l);
    if (rc == VN_ENOMEM)
        return -1;
    return rc == 0 && l.median_lo <= v && v <= l.median_hi;
}

/* The values of the row's processes with one (in cycles, or in ns), in
 * two groups: own[0..*no) those whose probe is at most limit, the others
 * shared[0..*ns). */
static void groups_of(const vn__decision *proc, size_t k, double limit, int cycles, double *own,
                      size_t *no, double *shared, size_t *ns)
{
    *no = *ns = 0;
    for (size_t i = 0; i < k; i++) {
        if (proc[i].head == VN__HEAD_NONE)
            continue;
        double v = cycles ? proc[i].cycles : proc[i].value;
        if (proc[i].probe > limit)
            shared[(*ns)++] = v;
        else
            own[(*no)++] = v;
    }
}

/* Whether the two groups (as states_alike parts them, into its buffers
 * own and shared of k values each) read alike at the headline's quantile
 * of each (their median over a mean), in ns or, where every process has
 * them (cycles), in cycles: what the headline would rest on in either
 * state. A busy sibling slows the reference's chain of adds by 4 to 13%
 * on this project's test machine and not a chain of divisions, whose
 * processes read 417 to 419 ns in both states while their cycles read
 * 1300 in one and 1490 in the other; and a group's median moves with its
 * one or two processes that met a slower moment, which its low quantile
 * does not (bench/RESULTS.md, 2026-12-04). */
static int alike_at_quantile(const vn__decision *proc, size_t k, double limit, int cycles,
                             const vn__policy *p, double *own, double *shared)
{
    double q = vn__policy_quantile(p);
    q = q > 0 && q < 1 ? q : 0.5;
    int units = 0; /* bit 1 ns, bit 2 cycles; the second only asked for by alike_view */
    for (int unit = 0; unit <= cycles && !(units && !p->alike_view); unit++) {
        size_t no, ns;
        groups_of(proc, k, limit, unit, own, &no, shared, &ns);
        units |= vn__levels_alike_at(own, no, shared, ns, q, p->precision,
                                     p->states_one_sided != 0) << unit;
    }
    return units;
}

/* Whether the row's processes in the two core states read the body
 * alike: the medians of the two groups (in cycles when every process has
 * them, the unit a moving clock leaves steady; else ns) within the
 * precision of each other, or the shared one's the lower
 * (p->states_one_sided); or, with p->states_alike 2, either group's
 * median within the interval of the other's median: two or three
 * processes in one state, as many as a loaded machine often leaves a row
 * (two of twenty), give an interval too wide to tell the states apart,
 * and a headline on them alone one as wide (a chain of adds at 1002
 * cycles, 142 to 2208), or a comparison through them (a division chain's
 * planted 10%, 0.26 to 4.6). A group of one has no interval. Else, with
 * p->alike_low, the groups at the headline's quantile (alike_at_quantile).
 * 1 alike, 2 not told apart, 0 apart, -1 when memory runs out; *units the
 * units they read alike in (bit 1 ns, bit 2 cycles; 3 where the medians
 * or intervals decided). */
static int states_alike(const vn__decision *proc, size_t k, double limit, const vn__policy *p,
                        int *units)
{
    *units = 3;
    double *own = malloc(2 * k * sizeof *own), *shared = own + k;
    if (!own)
        return -1;
    int cycles = 1;
    for (size_t i = 0; i < k; i++)
        cycles &= proc[i].head == VN__HEAD_NONE || (isfinite(proc[i].cycles) && proc[i].cycles > 0);
    size_t no, ns;
    groups_of(proc, k, limit, cycles, own, &no, shared, &ns);
    double mo = vn__median_of(own, no), ms = vn__median_of(shared, ns);
    int alike = 0;
    if (mo > 0 && ms > 0) {
        /* A sibling thread only slows the body: a shared group that
         * reads faster than the own one did not measure the neighbour
         * (p->states_one_sided), as a shared sample is left out only
         * when slower (vn__decide). */
        double d = ms / mo - 1;
        alike = (p->states_one_sided ? d : fabs(d)) <= p->precision;
        if (!alike && p->states_alike >= 2) {
            const vn__levels_opts o = levels_opts(p, 0);
            alike = median_holds(own, no, ms, &o);
            if (alike == 0)
                alike = median_holds(shared, ns, mo, &o);
            alike = alike > 0 ? 2 : alike;
        }
        if (!alike && p->alike_low) {
            *units = alike_at_quantile(proc, k, limit, cycles, p, own, shared);
            alike = *units != 0;
        }
    }
    free(own);
    return alike;
}

/* *l over the processes of proc[0..k) with a core of their own (probe at
 * most limit), from their values v and variances var, where two or more
 * have one and the levels come out; else *l as it was. VN_ENOMEM. */
static int on_own(const vn__decision *proc, const double *v, const double *var, size_t k,
                  double limit, const vn__levels_opts *o, vn__levels *l)
{
    double *a = malloc(2 * (k ? k : 1) * sizeof *a), *av = a + k;
    if (!a)
        return VN_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < k; i++)
        if (!(proc[i].probe > limit))
            a[m] = v[i], av[m++] = var[i];
    vn__levels own;
    if (m >= 2 && vn__levels_compute_with(a, av, m, o, &own) == 0)
        *l = own;
    free(a);
    return 0;
}

size_t vn__ref_off(vn__decision *proc, size_t k, double ref_mid, const vn__policy *p)
{
    for (size_t i = 0; i < k; i++)
        proc[i].ref_off = 0;
    if (!(p->ref_off > 0) || !(ref_mid > 0) || !isfinite(ref_mid) || k < 3)
        return 0;
    double *v = malloc(k * sizeof *v);
    if (!v)
        return 0; /* memory short: none is left out, as with the rule off */
    size_t m = 0, heads = 0, off = 0;
    for (size_t i = 0; i < k; i++) {
        heads += proc[i].head != VN__HEAD_NONE;
        if (proc[i].head == VN__HEAD_MEDIAN && proc[i].value > 0)
            v[m++] = proc[i].value;
    }
    double mv = vn__median_of(v, m);
    free(v);
    for (size_t i = 0; mv > 0 && i < k; i++) {
        double r = proc[i].ref_mid / ref_mid;
        if (proc[i].head == VN__HEAD_MEDIAN && r >= 1 + p->ref_off && proc[i].value < mv * sqrt(r))
            proc[i].ref_off = 1, off++;
    }
    if (heads < off + 2) {
        for (size_t i = 0; i < k; i++)
            proc[i].ref_off = 0;
        off = 0;
    }
    return off;
}

static int decide_row(const vn__decision *proc, size_t k, const vn__policy *p,
                      const vn__row_state *st, vn__row_decision *out);

/* A process left out for its reference (vn__ref_off) counts as one with
 * no value: a copy of the row says so to the rest of the decision. */
int vn__decide_row(const vn__decision *proc, size_t k, const vn__policy *p, const vn__row_state *st,
                   vn__row_decision *out)
{
    size_t off = 0;
    for (size_t i = 0; proc && i < k; i++)
        off += proc[i].ref_off != 0;
    if (!off)
        return decide_row(proc, k, p, st, out);
    vn__decision *c = malloc(k * sizeof *c);
    if (!c)
        return VN_ENOMEM;
    memcpy(c, proc, k * sizeof *c);
    for (size_t i = 0; i < k; i++)
        if (c[i].ref_off)
            c[i].head = VN__HEAD_NONE;
    int rc = decide_row(c, k, p, st, out);
    out->ref_off = off;
    free(c);
    return rc;
}

static int decide_row(const vn__decision *proc, size_t k, const vn__policy *p,
                      const vn__row_state *st, vn__row_decision *out)
{
    *out = (vn__row_decision){.k = k, .verdict = VN__GO_ON, .bound_value = NAN,
                              .bound_cycles = NAN, .half_pct = NAN, .median_half_pct = NAN,
                              .need = NAN, .share_processes = NAN, .share_blocks = NAN,
                              .share_samples = NAN, .sd_processes = NAN, .within = NAN,
                              .serial = 1, .clock_rate = NAN};
    unit_nan(&out->ns);
    unit_nan(&out->cycles);
    if (!proc || k == 0)
        return VN_EINVAL;
    size_t heads = 0, bounds = 0;
    vn__verdict first = proc[0].verdict; /* proc may point at a copy below */
    for (size_t i = 0; i < k; i++)
        heads += proc[i].head != VN__HEAD_NONE;
    /* A process whose every sample was left out has no value. And when
     * the run's processes fell in two groups by their taken-branch probes
     * (a core of their own, or one a second hardware thread shared for
     * seconds at a time), a row's processes in either group measured the
     * body on a different machine: the headline rests on those that had a
     * core of their own when there are two or more, the body's own cost
     * and the state two runs can best be compared in (the group most
     * processes ran in agreed less well with the next run, bench/RESULTS.md).
     * One alone has no spread between processes to take an interval from
     * (its samples' cannot see what varies from run to run): then the
     * headline rests on them all (a shared core's with p->lone_own, off by
     * default). And when none was told apart but every
     * one read the probe at p->alone_probe or more, which a core of its own
     * never reaches, the core was shared through the run: on a shared
     * core, all of them. So it was when fewer than the headline's quantile
     * of them read under it (one middle reading among eight shared left
     * `x += x` at 1.6 cycles with no word of the core, bench/RESULTS.md,
     * 2026-12-02): the headline is then a shared core's. With
     * p->shared_most (off by default) so it is when the run told them
     * apart but fewer than that quantile of a row's had a core of their
     * own: two of twenty gave an 8 MiB table walk an interval from 0 to
     * 2.6 times its quartile. */
    double limit =
        st && p->max_processes > 1 && isfinite(st->probe_limit) ? st->probe_limit : INFINITY;
    size_t own = 0, probed = 0, slow = 0;
    for (size_t i = 0; i < k; i++) {
        if (proc[i].head == VN__HEAD_NONE)
            continue;
        own += !(proc[i].probe > limit);
        probed += isfinite(proc[i].probe);
        slow += proc[i].probe >= p->alone_probe;
    }
    double q = vn__policy_quantile(p);
    size_t under = probed - slow; /* over a mean (q NAN), every one must be over */
    int most = probed && (isnan(q) ? under == 0 : (double)under < q * (double)probed);
    int few = p->shared_most && !isnan(q) && own > 0 && heads - own >= 2 &&
              (double)own < q * (double)heads;
    int lone = p->lone_own && own == 1 && !isnan(q) && (double)own < q * (double)heads;
    int on_shared = heads > 0 && (own == 0 || (own == heads && most) || few || lone);
    int strat = (own >= 2 || few) && own < heads;
    /* Unless the two groups read the body alike (p->states_alike): a
     * chain of adds does not notice the sibling, and leaving out the
     * shared ones only left its headline on two or three processes, an
     * interval of its ratio to another run such as 0.83 to 1.44. */
    int alike_units = 3;
    if (strat && p->states_alike) {
        int alike = states_alike(proc, k, limit, p, &alike_units);
        if (alike < 0)
            return VN_ENOMEM;
        if (alike)
            strat = on_shared = 0, out->alike = alike;
    }
    out->on_shared = on_shared;
    /* Alike in one unit alone: the other unit's figure rests on the
     * processes with a core of their own (p->alike_view): 1 ns, 2 cycles. */
    int own_view = p->alike_view && out->alike == 1 && (alike_units == 1 || alike_units == 2)
                       ? 3 - alike_units
                       : 0;
    size_t keep = !strat ? heads : on_shared ? heads - own : own;
    vn__decision *with = heads < k || strat ? malloc((heads ? heads : 1) * sizeof *with) : NULL;
    if (heads < k || strat) {
        if (!with)
            return VN_ENOMEM;
        for (size_t i = 0, m = 0; i < k; i++)
            if (proc[i].head != VN__HEAD_NONE && (!strat || (proc[i].probe > limit) == on_shared))
                with[m++] = proc[i];
        out->shared = strat ? heads - keep : 0;
        proc = with;
    }
    size_t all = k;
    k = keep;
    heads = keep;
    for (size_t i = 0; i < k; i++) {
        bounds += proc[i].head == VN__HEAD_FASTEST;
        out->used += proc[i].used;
    }
    double *x = malloc(4 * (k ? k : 1) * sizeof *x);
    if (!x) {
        free(with);
        return VN_ENOMEM;
    }
    double *xv = x + k, *c = x + 2 * k, *scale = x + 3 * k;
    if (bounds) {
        bound_of(proc, k, p, out);
    } else if (k == 1) {
        const vn__decision *d = &proc[0];
        out->ns = (vn__unit_view){d->value, d->lo, d->hi};
        out->cycles = (vn__unit_view){d->cycles, d->cycles_lo, d->cycles_hi};
        /* The core's clock moved when its own samples vary less in cycles
         * than in ns, beyond chance. */
        out->clock_moved = d->cycles_steadier;
        out->cycles_headline = isfinite(d->cycles) && d->cycles > 0 &&
                               cycles_unit(p, vn__on_cpu(d->on_cpu), d->cycles_steadier,
                                           d->ns_steadier);
        scale[0] = out->cycles_headline && d->value != 0 ? d->cycles / d->value : 1;
        shares(proc, 1, scale, NAN, out);
        out->precise = d->precise;
    } else if (k >= 2) {
        int have_cycles = 1, on_cpu = 1;
        for (size_t i = 0; i < k; i++) {
            x[i] = proc[i].value;
            /* The floor under the interval: the processes' own variances
             * (off by default, policy within_floor), else the rounding of
             * the timer, so that processes that read exactly alike still
             * leave the interval a width. */
            xv[i] = p->within_floor ? proc[i].var : proc[i].qvar;
            c[i] = proc[i].cycles;
            have_cycles &= isfinite(c[i]) && c[i] > 0 && x[i] > 0;
            on_cpu &= vn__on_cpu(proc[i].on_cpu);
        }
        vn__levels ln, lc = {0};
        double q = vn__policy_quantile(p);
        vn__levels_opts lo = levels_opts(p, q < 0.5 ? q : 0);
        int rc = vn__levels_compute_with(x, xv, k, &lo, &ln);
        if (rc == 0 && own_view == 1)
            rc = on_own(proc, x, xv, k, limit, &lo, &ln);
        if (rc) {
            free(x);
            free(with);
            return rc;
        }
        out->ns = head_of(&ln, p);
        out->sd_processes = ln.sd;
        out->serial = ln.serial;
        /* For the floor, each process's variance in cycles: its ns one
         * at its own cycles per ns, in place. */
        for (size_t i = 0; have_cycles && i < k; i++)
            xv[i] *= (c[i] / x[i]) * (c[i] / x[i]);
        if (have_cycles && vn__levels_compute_with(c, xv, k, &lo, &lc) == 0) {
            if (own_view == 2 && on_own(proc, c, xv, k, limit, &lo, &lc) != 0) {
                free(x);
                free(with);
                return VN_ENOMEM;
            }
            out->cycles = head_of(&lc, p);
            /* The clock moved between processes when they vary less in
             * cycles than in ns, beyond chance. */
            int which = vn__levels_which_steadier(x, c, k, p->cycles_gain);
            out->clock_moved = which == 1;
            out->cycles_headline = cycles_unit(p, on_cpu, out->clock_moved, which == -1);
            if (p->ns_at_clock && on_cpu && which == -1 &&
                vn__sibling_met(proc, k, limit, p->alone_probe))
                out->clock_rate = vn__at_clock(&out->ns, &out->cycles, x, c, k);
        }
        for (size_t i = 0; i < k; i++)
            scale[i] = out->cycles_headline ? c[i] / x[i] : 1;
        shares(proc, k, scale, out->cycles_headline ? lc.sd : ln.sd, out);
        if (out->cycles_headline) {
            out->sd_processes = lc.sd;
            out->serial = lc.serial;
        }
        /* The median's interval beside a low quantile's: a few layouts
         * much faster than the rest put the quantile next to them, and
         * then the median reads the row more steadily (stop findings). */
        const vn__levels *lh = out->cycles_headline ? &lc : &ln;
        if (q < 0.5)
            out->median_half_pct = half_pct(lh->median, lh->median_lo, lh->median_hi);
        /* Values far apart beyond what their samples allow, and beyond the
         * precision asked: a layout, or a state of the machine, that one
         * process met and another did not. */
        const vn__unit_view *h = out->cycles_headline ? &out->cycles : &out->ns;
        out->disagree =
            out->share_processes > 0.9 && out->sd_processes > 2 * p->precision * fabs(h->value);
    }
    free(x);
    free(with);
    k = all;
    const vn__unit_view *h = out->cycles_headline ? &out->cycles : &out->ns;
    if (!out->bound && isfinite(h->value) && h->value > 0 && isfinite(h->lo)) {
        out->half_pct = half_pct(h->value, h->lo, h->hi);
        if (heads >= 2)
            out->precise = out->half_pct <= 100 * p->precision;
    }
    out->kept = heads;
    if (p->max_processes <= 1) {
        /* One process: its own rule decided, sample by sample. */
        out->verdict = first;
        return 0;
    }
    /* Over processes, only an interval across them counts, and only once
     * the samples of all of them reach the fewest asked for. */
    if (heads < p->min_processes || (st && st->samples < p->min_samples))
        out->precise = 0;
    int confirmed = out->precise && (st->streak + 1 >= p->confirm || k >= p->max_processes);
    int vain = futile(out->half_pct, heads, p, &out->need) && !out->bound && !out->precise;
    if (st->samples < p->min_samples && k < p->max_processes)
        out->verdict = VN__GO_ON; /* the fewest samples asked for come first, as in one process */
    else if (k >= p->min_processes && confirmed)
        out->verdict = VN__STOP_PRECISE;
    else if (k >= p->max_processes)
        out->verdict = VN__STOP_MAX_PROCESSES;
    else if (p->min_processes == p->max_processes)
        out->verdict = VN__GO_ON; /* a count asked for (--processes N) is run whole */
    else if (st->spent_ns + st->next_cost_ns >= p->budget_ns)
        out->verdict = VN__STOP_MAX_TIME;
    else if (vain)
        out->verdict = VN__STOP_PROCESSES_VARY;
    else if (st->samples >= p->max_samples)
        out->verdict = VN__STOP_MAX_SAMPLES;
    return 0;
}

double vn__probe_limit(double *probes, size_t n, const vn__policy *p)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (probes[i] > 0 && isfinite(probes[i]))
            probes[m++] = probes[i];
    if (m < 2)
        return INFINITY;
    qsort(probes, m, sizeof *probes, vn__cmp_double);
    if (p->process_fence > 0) {
        double base = probes[m < 3 ? m - 1 : 2];
        return base < p->alone_probe ? base * p->process_fence : INFINITY;
    }
    double gap = 1, at = INFINITY;
    for (size_t i = 0; i + 1 < m; i++)
        if (probes[i + 1] / probes[i] > gap) {
            gap = probes[i + 1] / probes[i];
            at = sqrt(probes[i + 1] * probes[i]);
        }
    return gap > p->process_shared_ratio ? at : INFINITY;
}
