/* The engine's results as a struct that grows (docs/layers.md): how much of
 * a vn_results and of its rows every caller holds, and the handing over of
 * results to a caller whose header may be older or newer than the
 * library's. */
#ifndef VN_BENCH_RESULTS_H
#define VN_BENCH_RESULTS_H

#include <stddef.h>

#include "base/abi.h"
#include "vernier/bench.h"

/* The first layouts with a size: every vn_results and every row holds at
 * least these bytes, so the library reads their fields without a check. A
 * field added later is read only when size (or result_size) covers it. */
#define VN__RESULTS_FIRST VN__SIZE_THROUGH(vn_results, nfindings)
#define VN__RESULT_FIRST VN__SIZE_THROUGH(vn_result, cpu_ns)

/* Copies full, which the library filled in its own layout, to the caller's
 * dst of dst_size bytes (the sizeof of the caller's header): no more than
 * dst_size bytes, the rest of a larger dst zeroed, and sets size and
 * result_size. Then dst owns what full owned. VN_EABI, full freed and dst
 * untouched, for a dst_size below the first layout. */
int vn__results_give(vn_results *dst, size_t dst_size, vn_results *full);

/* Whether a reporter can read r: VN_EINVAL for NULL or rows missing,
 * VN_EABI for a size below the first layout or, with rows, a result_size
 * below this library's sizeof (vn_result), whose fields it would read past
 * the end of each row. */
int vn__results_check(const vn_results *r);

#endif
