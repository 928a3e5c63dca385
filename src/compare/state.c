/* The core state of a comparison's sides. A process that shared its core
 * with a busy second hardware thread measured another machine than one
 * with a core of its own: the engine tells them apart by a taken-branch
 * probe, and a comparison must not read the state's cost as the code's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"
#include "stats/levels.h"

/* Two sides' probes this far apart ran on cores shared differently. */
#define VN__CMP_PROBE_APART 1.1
/* A process whose probe read this or more ran beside a busy second
 * hardware thread: a core of its own never does (the engine's alone_probe
 * on a guest or with SMT on, docs/engine.md item 18). */
#define VN__CMP_PROBE_SHARED 1.3

/* The units in which a side met both core states and read the body
 * alike in them: bit 1 ns, bit 2 reference cycles (where every process
 * has them); 0 where it did not, or cannot tell. Its processes on a core
 * of their own (probe within VN__CMP_PROBE_APART of one), one or more,
 * against two or more beside a busy sibling (VN__CMP_PROBE_SHARED or
 * more): their values at the quantile q of each group (the headline's)
 * within t of each other. A run whose probes fill the range between the
 * states (1.05, 1.1, ... 1.4 when the sibling's load comes and goes)
 * tells no processes apart, yet met both; so did one that rested on all
 * its processes with one alone on a core of its own. A run that left
 * processes out for their state (core_own with others) found them
 * unlike. A busy sibling slows the reference's chain of adds 4 to 13%
 * and not a chain of divisions, which then reads alike in ns alone
 * (bench/RESULTS.md, 2026-12-04). */
int vn__cmp_alike_units(const vn__cmp_bench *b, double q, double t)
{
    if ((b->core_own && b->nother) || b->nunits < 3)
        return 0;
    int cycles = 1;
    for (size_t i = 0; i < b->nunits; i++)
        cycles &= b->units_cycles[i] > 0;
    double *own = malloc(2 * b->nunits * sizeof *own), *shared = own + b->nunits;
    if (!own)
        return 0; /* memory short: the states stay apart, as before */
    int mask = 0;
    for (int u = 0; u <= cycles; u++) {
        size_t no = 0, ns = 0;
        for (size_t i = 0; i < b->nunits; i++) {
            double v = u ? b->units_cycles[i] : b->units[i], p = b->units_probe[i];
            if (p <= VN__CMP_PROBE_APART)
                own[no++] = v;
            else if (p >= VN__CMP_PROBE_SHARED)
                shared[ns++] = v;
        }
        if (ns < 2)
            break;
        mask |= vn__levels_alike_at(own, no, shared, ns, q, t, 0) << u;
    }
    free(own);
    return mask;
}

/* The side ("BASE" or "NEW") whose processes met a core shared with
 * another hardware thread while the other's did not, or NULL when they met
 * one state (pb, pn: their median taken-branch probes). A run that told its processes apart by
 * their probes decided which had a core of their own, and its headline
 * rests on those: the comparison takes that decision rather than making
 * another, so a side is apart only when its headline said the core was
 * shared through the run and the other's did not (two that both said so
 * met one state, however busy the other thread). Where neither run told
 * processes apart, their probes tell the states (one on a core of its own,
 * 1.6 to 1.9 shared); a tenth apart is well beyond how much it moves
 * otherwise. Judging runs that had told processes apart again by the
 * probes of those they kept set them apart for middle readings, and on a
 * host whose neighbours came and went lost the chains' planted slowdowns
 * a sixth of their finds (bench/RESULTS.md, 2026-12-02). A run whose
 * processes met both states and read the body alike in them ("both")
 * showed the state does not move this body: it compares with either. */
const char *vn__cmp_shared_side(const vn__cmp_bench *b, const vn__cmp_bench *n, double pb,
                               double pn, int alike)
{
    if (b->core_both || n->core_both || alike)
        return NULL;
    int known = pb > 0 && pn > 0;
    int apart = known && fmax(pb, pn) / fmin(pb, pn) > VN__CMP_PROBE_APART;
    /* A run whose headline's processes read the probe as the shared one's
     * did met that state too (one that told none apart, or one whose own
     * were only the least shared). */
    if (b->core_shared != n->core_shared)
        return !known || apart ? n->core_shared ? "NEW" : "BASE" : NULL;
    /* A run that rested on all its processes, one alone among them on a
     * core of its own, says "own" of a headline whose processes read a
     * shared core's probe: against one whose kept processes read their
     * own, the states differ all the same. */
    if (!b->core_shared && apart && (pb >= VN__CMP_PROBE_SHARED) != (pn >= VN__CMP_PROBE_SHARED))
        return pb > pn ? "BASE" : "NEW";
    if (b->core_shared || b->core_own || n->core_own || !apart)
        return NULL;
    return pn > pb ? "NEW" : "BASE";
}

/* The core state differs between the sides: one side's headline rested
 * on processes in one state and the other's on the other. The processes
 * a headline left out for the other state (from's others: those that
 * shared their core in a run that rested on its own, or those that had
 * their own in one that rested on the shared ones) met the state of the
 * other side's headline (to's): compared through them, both sides are in
 * one state. Returns how many processes the smaller of the two sides
 * compared would have, with alt the view of from that has those as its
 * units; 0 when either side has fewer than two (no interval), or when
 * their probes read nearer those from kept (pk) than to's (ps). On a host whose second hardware thread came
 * and went, a run of the chains alone was on a shared core throughout in
 * half the pairs with the longer run before it, which had met both
 * states; declining them all found half the planted slowdowns
 * (bench/RESULTS.md, 2026-12-02). */
size_t vn__cmp_match_state(const vn__cmp_bench *from, const vn__cmp_bench *to, double pk,
                          double ps, vn__cmp_bench *alt)
{
    if (from->nother < 2 || to->nunits < 2)
        return 0;
    *alt = *from;
    alt->units = from->other;
    alt->units_cycles = from->other_cycles;
    alt->units_probe = from->other_probe;
    alt->nunits = from->nother;
    alt->next_files = 0; /* no run printed an interval for these */
    /* Left out for the other state, yet nearer the probes of the
     * processes their run kept than the other side's: another state
     * still. The shared state's own readings wander by more than a tenth
     * (1.5 to 2.0 within one run), so nearness, not a tenth, decides. */
    double po = vn__cmp_probe(alt);
    if (po > 0 && ps > 0 && pk > 0 && !(fabs(log(po / ps)) < fabs(log(po / pk))))
        return 0;
    return from->nother < to->nunits ? from->nother : to->nunits;
}

/* A sibling on the core only adds time to what runs beside it (in ns; in
 * reference cycles it slows the reference's chain of adds too, so the
 * shared side may read fewer). A side on the shared core that reads faster
 * than the other's on its own was faster, and one on its own core that
 * reads slower than the other's on the shared one was slower: those
 * verdicts stand whatever the state cost. No change, or the other way,
 * may be the state's doing, and is declined. */
int vn__cmp_state_stands(const char *shared, int new_slower)
{
    return new_slower == !strcmp(shared, "BASE");
}
