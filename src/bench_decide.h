/* The one decision of a benchmark row: from a view of its samples and a
 * policy, whether sampling goes on or stops (and why), which samples the
 * headline rests on, and what the headline is (a median with its interval,
 * or an upper bound, and which). The stop test, the summary and the
 * warnings all ask vn__decide(); none works any of it out again. Pure: no
 * clock, no I/O, no global state, so tests drive it with synthetic rows. */
#ifndef VN_BENCH_DECIDE_H
#define VN_BENCH_DECIDE_H

#include <stddef.h>

#include "vernier/bench.h"

/* Every threshold of the decision, with its unit and why. docs/engine.md
 * lists them in one table; vn__policy_init() sets the defaults. */
typedef struct vn__policy {
    double precision;        /* fraction: the median's 95% interval within +-this of it */
    size_t min_samples;      /* samples: no stop before this many */
    size_t max_samples;      /* samples: stop at this many, precise or not */
    double budget_ns;        /* ns of the row's own time: stop after it, precise or not */
    size_t min_untagged;     /* samples: tagged ones leave the headline only while this many stay */
    size_t min_interval;     /* samples: fewest for a 95% interval of a median from order statistics */
    size_t fastest_agree;    /* samples within the precision of the fastest that reproduce it */
    size_t empty_matched;    /* empty-loop samples of one kind of moments to subtract those alone */
    double indistinct_share; /* share of the empty loop: a smaller difference is code placement */
    double shared_slower;    /* in units of precision: shared samples this much slower leave */
    size_t shared_evidence;  /* quiet samples needed before their speed is taken as evidence */
    double shared_ratio;     /* x the run's third-fastest probe: a slower probe saw a shared core */
} vn__policy;

/* The defaults, with the run's precision (percent), sample limits and
 * budget (seconds) from cfg, and then cfg->policy's overrides. 0, or
 * VN_EINVAL (p untouched) for an unknown name or a bad value there. */
int vn__policy_init(vn__policy *p, const vn_config *cfg);

/* Applies overrides "NAME=VALUE,..." (NULL or "": none) to p. 0, or
 * VN_EINVAL with p untouched and, when why is not NULL, a line saying
 * what is wrong and which names there are. */
int vn__policy_parse(vn__policy *p, const char *text, char *why, size_t n);

/* The empty loop's median per iteration and its 95% interval, from the
 * empty-loop samples of one kind of moments (quiet or shared core) when
 * there are at least the policy's empty_matched of them, else from all;
 * n: how many of that kind there were. */
typedef struct vn__empty_view {
    double om, olo, ohi;
    size_t n;
} vn__empty_view;

typedef struct vn__row_view {
    const vn_sample *v;      /* every sample of the row, tagged ones too */
    size_t n;
    vn__empty_view empty[2]; /* [0] from shared moments, [1] from quiet ones */
    double floor_ns;         /* the smallest difference per iteration the timer shows */
    double elapsed_ns;       /* the row's own time so far */
    int probed;              /* the samples carry branch probes: shared-core tags mean something */
} vn__row_view;

typedef enum vn__verdict {
    VN__GO_ON = 0,
    VN__STOP_PRECISE,        /* the precision asked for is reached */
    VN__STOP_MAX_SAMPLES,
    VN__STOP_MAX_TIME,
} vn__verdict;

typedef enum vn__headline {
    VN__HEAD_NONE = 0,       /* no sample to rest on */
    VN__HEAD_MEDIAN,         /* the median net of the empty loop, with its interval */
    VN__HEAD_FASTEST,        /* an upper bound: the fastest sample of the loop with the body */
} vn__headline;

typedef struct vn__decision {
    vn__verdict verdict;
    int precise;             /* the headline has the precision asked for */
    int waiting;             /* sampling goes on for quiet moments, not for precision */
    unsigned skip;           /* tags whose samples the headline leaves out */
    size_t used;             /* samples the headline rests on */
    int quiet;               /* most of them ran on a core of their own: empty[1] applies */
    vn__headline head;
    double value;            /* the median (net) or the bound, ns per iteration */
    double lo, hi;           /* the median's 95% interval (net); NAN for a bound */
    double raw_median, raw_lo, raw_hi; /* the loop with the body, before the empty loop */
    double fastest;          /* the fastest used sample */
    double ref;              /* the fastest reference of the used samples, ns a cycle */
    size_t agree;            /* used samples within the precision of the fastest */
    double half_pct;         /* the median's interval half-width in percent of it; NAN unknown */
} vn__decision;

/* Decides a row. 0, or VN_ENOMEM (d then says go on, with no headline). */
int vn__decide(const vn__row_view *row, const vn__policy *p, vn__decision *d);

#endif
