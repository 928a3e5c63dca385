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

/* Rows compared with each other (a baseline) go on together while either
 * needs another process and the other's budget holds it: their ratio is
 * taken process by process. Rows that stopped are taken up again. */
void vn__plan_together(job **jobs, size_t n);

/* The run's late look (policy late_look), when every row of jobs[0..n) is
 * done at now (CLOCK_MONOTONIC ns; the run began at t0) after processes
 * processes: a row that stopped for its precision in the first half of
 * that time or of those processes, not an upper bound, with budget
 * left for another process, is taken up again, once, for a process at the
 * end of the run, and decided again over all its processes. Returns how
 * many were; 0 once any row of the run was. */
size_t vn__plan_late(job **jobs, size_t n, uint64_t t0, uint64_t now, size_t processes);

/* A row that stopped for its precision with its headline on a shared
 * core (every process beside a busy sibling thread, policy wait_own),
 * not an upper bound, with budget and processes left, is taken up again
 * while another row of jobs[0..n) still goes on: the run may yet meet a
 * core of its own. Returns how many were. */
size_t vn__plan_wait_own(job **jobs, size_t n);

#endif
