/* Integer statistics of cycle counts, in the subset of C that both the
 * kernel and C11 user space accept: no libc, no floating point, 64-bit
 * integers through one typedef. The kernel module of kernel/ compiles
 * stats/int.c as it is, and libvernier does too, so the numbers the module
 * prints are the ones the unit tests check against the floating-point
 * statistics of stats.h. */
#ifndef VN_STATS_INT_H
#define VN_STATS_INT_H

#ifdef __KERNEL__
#include <linux/types.h>
typedef u64 vn__u64;
#else
#include <stddef.h>
#include <stdint.h>
typedef uint64_t vn__u64;
#endif

/* The summary the module's "run" file prints, in its order. Percentiles
 * interpolate linearly between order statistics, as numpy's default and
 * vn_percentile_sorted() do, rounded to the nearest integer; mad is the
 * median absolute deviation from the (exact, possibly half-integer)
 * median, rounded likewise. */
typedef struct vn__istats {
    vn__u64 min, max, count, p50, p90, p95, p99, mad;
} vn__istats;

/* The unit the counts sorted[0..n) (ascending) are multiples of: the
 * greatest common divisor g of the sizes seen in 1% of them or more (two
 * such sizes at least), into *unit when g is 2 or more, 99% of the counts
 * are multiples of g in 3 sizes or more, and n is 64 or more: returns 0;
 * else -1. A clock that moves
 * g of its ticks at a time shows multiples of g between two reads (a
 * counter a hypervisor advances 26 at a time: 26, 52, 78 and, across an
 * interrupt, 4888), and so does every count of such ticks, but for a few
 * a tick short (7 of 3000 under emulation), which the 1% allows; one
 * that ticks finer shows counts of many sizes once reads drift against
 * its ticks, and their divisor is 1. The read's own cost cannot hide the
 * unit, as it hides the smallest step. Three sizes at least, so that one
 * count repeated (a loop of exactly as many ticks each time) is not taken
 * for a unit. */
int vn__iunit_sorted(const vn__u64 *sorted, size_t n, vn__u64 *unit);

/* Sorts x[0..n) ascending in place, with tmp[0..n) as room (overwritten):
 * a radix sort, linear in n, no recursion, no allocation. n < 2^32. */
void vn__isort(vn__u64 *x, size_t n, vn__u64 *tmp);

/* The p-th percentile (0..100) of sorted values; 0 for n == 0. */
vn__u64 vn__ipercentile_sorted(const vn__u64 *sorted, size_t n, unsigned p);

/* Summarizes sorted[0..n) into *out, using scratch[0..2n) (overwritten) for
 * the deviations and their sort. Returns 0, or -1 for n == 0 (out untouched). */
int vn__istats_sorted(const vn__u64 *sorted, size_t n, vn__u64 *scratch, vn__istats *out);

/* Writes "min A max B count C p50 D p90 E p95 F p99 G mad H\n" into buf
 * (len bytes, NUL-terminated). Returns the length written, or -1 when it
 * does not fit. */
int vn__istats_format(const vn__istats *s, char *buf, size_t len);

/* Writes a histogram of sorted[0..n) in nbins equal bins from min to max,
 * one line a bin: "LO HI COUNT #####" (LO..HI inclusive, bars scaled to
 * the fullest bin's 40). Returns the length written, or -1 when it does not
 * fit or n or nbins is 0. */
int vn__ihist_format(const vn__u64 *sorted, size_t n, unsigned nbins, char *buf, size_t len);

/* Writes the digits of v right-aligned in width (at most 40) characters and
 * a newline, as the module's "samples" file has them: every line the same
 * length, so a reader can start at any line. Returns the length written
 * (no NUL), or -1 when it does not fit in len. */
int vn__iformat_line(vn__u64 v, unsigned width, char *buf, size_t len);

#endif
