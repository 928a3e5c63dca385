/* How a row's time is split over its processes (Kalibera and Jones,
 * "Rigorous Benchmarking in Reasonable Time", ISMM 2013): after each
 * process, the samples the next one should take and its share of the
 * budget, from what a process costs before its first sample, what a sample
 * costs, and how the variation splits between processes and samples. */
#ifndef VN_BENCH_PLAN_H
#define VN_BENCH_PLAN_H

#include "engine.h"

typedef struct vn__plan {
    size_t samples;          /* the next process takes this many samples of the row */
    double share_ns;         /* in at most this much of the row's own time */
} vn__plan;

/* The least another process of a row costs: its setup and the fewest
 * samples, at the pace of the k processes so far. The budget must hold
 * it, or the row stops (vn__row_state.next_cost_ns). */
double vn__plan_least_ns(const vn__part *parts, size_t k, const vn__policy *p);

/* The plan for process k of a row (k processes ran: parts, their
 * decisions proc and the row's rd; st how it stands). */
void vn__plan_next(const vn__part *parts, size_t k, const vn__decision *proc,
                   const vn__row_decision *rd, const vn__policy *p, const vn__row_state *st,
                   vn__plan *out);

#endif
