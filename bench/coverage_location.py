#!/usr/bin/env python3
"""Which headline over processes keeps the promise about the next run:
their mean or their median, and with which interval, recomputed on the runs bench/coverage.sh kept
(OUT=DIR), from each run's own processes.

For every run and workload, from the values of the processes the headline
rests on (not left out, not on a shared core), in the unit the most runs
reported:
  mean:   their mean, Student's t-interval (k - 1 degrees of freedom) with
          its variance times the serial factor (lag-1 autocorrelation in
          [0, 0.8]), the engine's rule before 2026-11-29 (late night);
  median: their median, t x sqrt(pi / 2) x sigma x sqrt(serial / k), sigma
          the interquartile range over 1.349 (Hyndman and Fan's definition
          8; the standard deviation below 5 values), the rule of
          src/stats/levels.c;
  batches: the median's interval with the serial factor taken as the
          larger of the lag-1 one and that of batch medians (the k
          processes in the order they ran cut in 4 batches of k/4, from 8
          processes on: the variance of the 4 medians' mean over the
          median's own, its half-width over Student's t for k - 1
          degrees of freedom), at most 9: the batch-means estimate of a variance
          under serial correlation, for a state of the machine that lasts
          a few processes rather than one to the next;
  gated:  the same, the batches' factor only where a one-way analysis of
          variance of the values' ranks between the 4 batches has p < 0.2
          (needs scipy: run with build/venv/bin/python);
  qn:     batches, with sigma Rousseeuw and Croux's Qn (the
          h(h - 1)/2-th smallest distance between pairs of values, h =
          k/2 + 1, times 2.2219 and Croux and Rousseeuw's small-sample
          factor; 82% efficient at the normal where the quartiles are 37%)
          in place of the interquartile range;
  qngated: qn with the batches' factor gated as in gated;
  ms:     batches, with the median's standard error McKean and Schrader's
          (1984) from the order statistics around it, (x_(k-c+1) - x_(c))
          / (2 z), z the normal's 99.5% point, c = (k + 1) / 2 - z
          sqrt(k / 4) rounded (at least 1), in place of sqrt(pi / 2)
          sigma / sqrt(k): it reads how densely the values lie about the
          median, not the normal's shape (from 5 processes; below, median);
  mj:     batches, with the median's standard error Maritz and Jarrett's
          (1978): the exact bootstrap variance of the median, the order
          statistics weighted by how often each would be the median of k
          values drawn again from them (Beta(m, k - m + 1) increments, m =
          k/2 rounded), so a few far values count by the chance they
          become the median, not by where they lie (needs scipy);
  densNN: batches, with the median's standard error from the density at
          it read off the quantiles NN% either side (Hyndman and Fan's
          definition 8): (q(0.5 + d) - q(0.5 - d)) / (4 d sqrt(k)), as
          1 / (2 f sqrt(k)) (Siddiqui's estimate of 1 / f); dens25 is
          about the interquartile rule, dens10 the most local;
  within: batches, and below 8 processes no narrower than the median of
          the processes' own medians' variances gives with the normal
          quantile (each from its samples' MAD: pi / 2 x sigma^2 / n), the
          engine's --policy within_floor=1;
  signs:  the median's interval with the serial factor the larger of the
          lag-1 one and the batches' factor read through the signs about
          the median (the engine's --policy batch_signs=1): the variance
          of the 4 batches' shares above the median over p (1 - p) /
          (k / 4), as the median moves with that share (Bahadur);
  signsmj: signs, with Maritz and Jarrett's standard error (the engine's
          --policy median_mj=1,batch_signs=1);
  RULE-lag1: RULE with the lag-1 factor alone, no batches' factor;
  rankserial, signserial: batches, with the lag-1 factor taken of the
          values' ranks, or of the side of the median each lies on (the
          dependence the median's variance feels, by its Bahadur
          representation), not of the values themselves;
  lowNN:  the NN% quantile of the processes in place of their median,
          its standard error Maritz and Jarrett's for that quantile, and
          the batches' factor of the batches' quantiles: noise that only
          adds time (a neighbour, a slower state of the host) moves a low
          quantile less than the median (Chen and Revels, "Robust
          benchmarking in noisy environments", 2016, take the minimum);
all widened by sqrt(2) on the log scale for the next run, as the engine
does. Printed per workload: how often run i's interval held run i+1's
headline (and the reverse), the mean half-width, and the half-range of the
headlines plus the precision (1%), the most the interval may be wide; and
per set-condition, how often run i+1 would be called slower than run i by
the two estimates' own intervals combined (half-widths in quadrature on
the log scale: not the arithmetic of vernier compare, the same test for
every rule). --summary prints one line a rule over all the sets: the
set-conditions where coverage and width held, the cells over the width
limit, the mean coverage, and those false alarms.

    bench/coverage_location.py [--summary] DIR [DIR...]
"""
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coverage_report import PRECISION, base_runs  # noqa: E402

T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(df):
    return T975[df - 1] if df <= len(T975) else 1.96 + 2.4 / df


def serial(x):
    k = len(x)
    if k < 4:
        return 1.0
    m = sum(x) / k
    ss = sum((a - m) ** 2 for a in x)
    lag = sum((x[i] - m) * (x[i + 1] - m) for i in range(k - 1))
    rho = min(max(lag / ss if ss > 0 else 0, 0), 0.8)
    return min((1 + rho) / (1 - rho), 9)


def ranks(x):
    """The ranks of x, ties their mean rank."""
    return [sum(b < a for b in x) + (sum(b == a for b in x) + 1) / 2 for a in x]


def robust_serial(x, rule):
    """serial() of the values' ranks (rankserial), or of which side of
    the median each lies on (signserial): the dependence the median's
    variance feels, by its Bahadur representation, is that of the
    indicator, not of how far out the values lie."""
    if rule == "rankserial":
        return serial(ranks(x))
    m = statistics.median(x)
    return serial([(a > m) - (a < m) for a in x])


def quantile8(s, p):
    n = len(s)
    h = (n + 1 / 3) * p + 1 / 3
    if h <= 1:
        return s[0]
    if h >= n:
        return s[-1]
    i = int(h)
    return s[i - 1] + (h - i) * (s[i] - s[i - 1])


def next_run(c, half):
    lo, hi = c - half, c + half
    w = math.sqrt(2)
    if c > 0 and lo > 0:
        return c, c * (lo / c) ** w, c * (hi / c) ** w
    return c, c - w * half, c + w * half


BATCHES = 4


def batches(x):
    k = len(x)
    return [x[i * k // BATCHES:(i + 1) * k // BATCHES] for i in range(BATCHES)]


def batch_factor(x, half, gated, p=None):
    """The serial factor of the batch medians (or p-quantiles), 1 where it
    does not apply."""
    if len(x) < 2 * BATCHES or half <= 0:
        return 1.0
    if gated:
        from scipy import stats  # pylint: disable=import-outside-toplevel
        r = list(stats.rankdata(x))
        if not stats.f_oneway(*batches(r)).pvalue < 0.2:
            return 1.0
    m = [statistics.median(b) if p is None else quantile8(sorted(b), p) for b in batches(x)]
    return (t975(len(x) - 1) * statistics.stdev(m) / math.sqrt(BATCHES) / half) ** 2


def qn(x):
    """Rousseeuw and Croux's Qn of x: a sigma of normal values, unbiased
    from 2 of them on."""
    n = len(x)
    d = sorted(abs(a - b) for i, a in enumerate(x) for b in x[i + 1:])
    h = n // 2 + 1
    small = {2: 0.399, 3: 0.994, 4: 0.512, 5: 0.844, 6: 0.611, 7: 0.857, 8: 0.669, 9: 0.872}
    return 2.2219 * d[h * (h - 1) // 2 - 1] * small.get(n, n / (n + 1.4) if n % 2 else n / (n + 3.8))


def ms_se(s):
    """McKean and Schrader's standard error of the median of sorted s."""
    k, z = len(s), 2.5758
    c = max(1, round((k + 1) / 2 - z * math.sqrt(k / 4)))
    return (s[k - c] - s[c - 1]) / (2 * z)


def mj_se(s, m=None):
    """Maritz and Jarrett's standard error of the median of sorted s, or of
    its m-th order statistic (1-based)."""
    from scipy import stats  # pylint: disable=import-outside-toplevel
    k = len(s)
    m = m or int(k / 2 + 0.5)
    w = [stats.beta.cdf(i / k, m, k - m + 1) - stats.beta.cdf((i - 1) / k, m, k - m + 1)
         for i in range(1, k + 1)]
    c1 = sum(a * b for a, b in zip(w, s))
    c2 = sum(a * b * b for a, b in zip(w, s))
    return math.sqrt(max(c2 - c1 * c1, 0))


def sign_batch_factor(x):
    """The batches' factor read through the signs about the median (the
    engine's batch_signs): the variance of the 4 batches' shares above the
    median over the binomial p (1 - p) / (k / 4), in [1, 9]."""
    k = len(x)
    if k < 2 * BATCHES:
        return 1.0
    m = statistics.median(x)
    up = [1.0 if v > m else 0.5 if v == m else 0.0 for v in x]
    b = [statistics.mean(g) for g in batches(up)]
    p = statistics.mean(up)
    base = p * (1 - p) / (k / BATCHES)
    return min(max(statistics.variance(b) / base, 1.0), 9.0) if base > 0 else 1.0


def low_interval(x, rule):
    """lowNN: the NN% quantile of the processes (Hyndman and Fan's
    definition 8), its standard error Maritz and Jarrett's for that
    quantile (the order statistics weighted by Beta(m, k - m + 1), m = pk
    rounded to the nearest, as Wilcox does); the batches' factor of the 4
    batches' quantiles. Noise that only ever adds time moves a low quantile
    less than the median (Chen and Revels 2016 take the minimum)."""
    from scipy import stats  # pylint: disable=import-outside-toplevel
    p = int(rule[3:]) / 100
    k, s = len(x), sorted(x)
    c = quantile8(s, p)
    if k < 5:  # the normal theory on the standard deviation, as the engine's
        qvar = p * (1 - p) / stats.norm.pdf(stats.norm.ppf(p)) ** 2
        return next_run(c, t975(k - 1) * math.sqrt(qvar / k) * statistics.stdev(x))
    half = t975(k - 1) * mj_se(s, max(1, min(k, math.floor(p * k + 0.5))))
    f = min(max(serial(x), batch_factor(x, half, False, p)), 9)
    return next_run(c, half * math.sqrt(f))


def interval(x, rule, within=None):
    """The next run's interval by rule; RULE-lag1 is RULE with the lag-1
    factor alone (no batches' factor)."""
    if rule.startswith("low"):
        return low_interval(x, rule)
    lag1 = rule.endswith("-lag1")
    rule = rule[:-len("-lag1")] if lag1 else rule
    k = len(x)
    sd = statistics.stdev(x)
    f = robust_serial(x, rule) if rule in ("rankserial", "signserial") else serial(x)
    if rule == "mean":
        return next_run(sum(x) / k, t975(k - 1) * sd * math.sqrt(f / k))
    s = sorted(x)
    iqr = quantile8(s, 0.75) - quantile8(s, 0.25)
    sigma = iqr / 1.349 if k >= 5 and iqr > 0 else sd
    q = qn(x) if rule.startswith("qn") and k >= 5 else 0
    if q > 0:
        sigma = q
    half = t975(k - 1) * math.sqrt(math.pi / 2) * sigma / math.sqrt(k)
    if rule == "ms" and k >= 5 and ms_se(s) > 0:
        half = t975(k - 1) * ms_se(s)
    if rule in ("mj", "signsmj") and k >= 5 and mj_se(s) > 0:
        half = t975(k - 1) * mj_se(s)
    if rule.startswith("dens") and k >= 5:
        d = int(rule[4:]) / 100
        w = quantile8(s, 0.5 + d) - quantile8(s, 0.5 - d)
        if w > 0:
            half = t975(k - 1) * w / (4 * d * math.sqrt(k))
    if rule == "within" and within and k < 2 * BATCHES:
        half = max(half, 1.96 * math.sqrt(math.pi / 2 * statistics.median(within) / k))
    if lag1 or rule == "median":
        pass
    elif rule in ("signs", "signsmj"):
        f = min(max(f, sign_batch_factor(x)), 9)
    else:  # the others take the batches' factor
        f = min(max(f, batch_factor(x, half, rule.endswith("gated"))), 9)
    return next_run(statistics.median(x), half * math.sqrt(f))


def kept(b, unit):
    key = "cycles" if unit == "cycles" else "value"
    return [(i, p) for i, p in enumerate(b.get("processes") or [])
            if not p.get("left_out") and not p.get("shared") and p.get(key)]


def values(b, unit):
    key = "cycles" if unit == "cycles" else "value"
    return [p[key] for _, p in kept(b, unit)]


def median_vars(b, unit):
    """Each kept process's median's variance from its own samples: pi / 2
    times the squared MAD-based sigma over their count."""
    out = []
    left = set(b.get("left_out") or [])
    for i, _ in kept(b, unit):
        x = [s["value"] / s["ref_ns"] if unit == "cycles" else s["value"]
             for s in b.get("samples") or []
             if s.get("process") == i and not left.intersection(s.get("tags") or [])
             and (unit != "cycles" or s.get("ref_ns"))]
        if len(x) < 2:
            continue
        m = statistics.median(x)
        mad = statistics.median(abs(v - m) for v in x)
        out.append(math.pi / 2 * (1.4826 * mad) ** 2 / len(x))
    return out


RULES = ("mean", "median", "batches", "gated", "within", "qn", "qngated", "ms", "dens10", "dens15", "dens20", "dens25", "mj",
         "rankserial", "signserial", "signs", "signsmj",
         "qn-lag1", "ms-lag1", "dens20-lag1", "mj-lag1", "low25", "low10")


def slower(a, b):
    """Would run b be called slower than run a: the log ratio of their
    headlines past 1.96 times their estimates' half-widths in quadrature
    (each next-run interval narrowed back by sqrt(2))."""
    ha = (math.log(a[2]) - math.log(a[0])) / math.sqrt(2)
    hb = (math.log(b[2]) - math.log(b[0])) / math.sqrt(2)
    return math.log(b[0] / a[0]) > 1.96 * math.hypot(ha, hb)


def replay(d, cond, runs, rule):
    """One rule on one set-condition: (per-workload coverage, cells over
    the width limit, cells, false alarms, tries, the printed cells)."""
    names = [n for n in runs[0] if not (runs[0][n].get("headline") or {}).get("bound")]
    covs, cells, over, alarms, pairs = [], [], 0, 0, 0
    for name in names:
        units = [r[name]["headline"]["unit"] for r in runs if name in r and r[name].get("headline")]
        if not units:
            continue
        unit = max(set(units), key=units.count)
        iv = []
        for r in runs:
            b = r.get(name)
            x = values(b, unit) if b and not b["headline"].get("bound") else []
            w = median_vars(b, unit) if x and rule.startswith("within") else None
            iv.append(interval(x, rule, w) if len(x) >= 2 else None)
        got = [v for v in iv if v]
        if len(got) < 2:
            continue
        heads = [v[0] for v in got]
        limit = 100 * ((max(heads) - min(heads)) / 2 / statistics.median(heads) + PRECISION)
        half = 100 * statistics.mean(max(v[0] - v[1], v[2] - v[0]) / v[0] for v in got)
        hit = tries = 0
        for a, b in zip(iv, iv[1:]):
            if a and b:
                pairs += 1
                alarms += a[0] > 0 and slower(a, b)
                for p, q in ((a, b), (b, a)):
                    tries += 1
                    hit += p[1] <= q[0] <= p[2]
        if not tries:
            continue
        covs.append(hit / tries)
        over += half > limit
        cells.append(f"{name} {100 * hit / tries:.0f}% {half:.2f}/{limit:.2f}%")
    return covs, over, alarms, pairs, cells


def main():
    args = sys.argv[1:]
    summary = bool(args) and args[0] == "--summary"
    dirs = args[1:] if summary else args
    if not dirs:
        sys.exit(__doc__)
    total = {rule: [0, 0, 0, 0, [], 0, 0] for rule in RULES}
    for d in dirs:
        for cond in ("quiet", "stress"):
            runs = base_runs(d, os.listdir(d), cond)
            if len(runs) < 2:
                continue
            for rule in RULES:
                covs, over, alarms, pairs, cells = replay(d, cond, runs, rule)
                if not covs:
                    continue
                t = total[rule]
                t[0] += 1
                t[1] += statistics.mean(covs) >= 0.8 and min(covs) >= 0.65 and not over
                t[2] += over
                t[3] += len(covs)
                t[4].append(statistics.mean(covs))
                t[5] += alarms
                t[6] += pairs
                if not summary:
                    print(f"{d} {cond} {rule}: mean {100 * statistics.mean(covs):.0f}%; "
                          + ", ".join(cells) + f"; slower {alarms}/{pairs}")
    for rule, (n, held, over, cells, means, alarms, pairs) in total.items():
        if summary and n:
            print(f"{rule:12} held {held}/{n}, over the limit {over}/{cells}, mean coverage "
                  f"{100 * statistics.mean(means):.1f}%, called slower {alarms}/{pairs}")


if __name__ == "__main__":
    main()
