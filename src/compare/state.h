/* The core state of a comparison's sides: whether each met a core shared
 * with another hardware thread, and what may be compared when they met
 * different ones (state.c). Private to the tool; compare.c uses it. */
#ifndef VN_COMPARE_STATE_H
#define VN_COMPARE_STATE_H

#include <stddef.h>

#include "side.h"

/* The units in which b met both core states and read the body alike in
 * them at its quantile q, within t: bit 1 ns, bit 2 reference cycles. */
int vn__cmp_alike_units(const vn__cmp_bench *b, double q, double t);

/* "BASE" or "NEW", the side whose headline rested on a shared core where
 * the other's did not; NULL when they met one state (pb, pn: their median
 * probes; alike: a side read the body alike in both). */
const char *vn__cmp_shared_side(const vn__cmp_bench *b, const vn__cmp_bench *n, double pb,
                                double pn, int alike);

/* How many processes the smaller side has when from is compared through
 * the processes its headline left out for to's state (alt: that view of
 * from); 0 when it cannot be. */
size_t vn__cmp_match_state(const vn__cmp_bench *from, const vn__cmp_bench *to, double pk,
                           double ps, vn__cmp_bench *alt);

/* Whether a verdict in ns that new is slower (new_slower 1) or faster (0)
 * stands between sides that met different core states, shared the side
 * on the shared core: the state cannot have made it. */
int vn__cmp_state_stands(const char *shared, int new_slower);

#endif
