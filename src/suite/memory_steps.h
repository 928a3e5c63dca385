/* The pure step detection that names the levels of the memory family's
 * latency curve (memory_steps.c). */
#ifndef VN_SUITE_MEMORY_STEPS_H
#define VN_SUITE_MEMORY_STEPS_H

#include <stddef.h>

#define VN__MEM_MAX_LEVELS 8

typedef struct vn__mem_level {
    char name[8];             /* "L1", "L2", "L3", "DRAM" */
    double ns;                /* median latency of its plateau */
    double from, to;          /* the first and last buffer size (bytes) on the plateau */
    long long cache;          /* size of the cache it was matched with; 0: none (DRAM, unknown) */
} vn__mem_level;

/* The plateaus of a latency curve (buffer sizes in bytes and ns per load,
 * in any order; NaN or non-positive points are left out) and the steps
 * between them, named after the caches: caches holds the data (or unified)
 * cache size of each level from L1 up, ncaches of them (0: unknown; then
 * the levels are named in order, the last DRAM when far above the first).
 * Fills out with at most max levels from the fastest up; returns how many.
 * Pure: no clock, no I/O. */
size_t vn__mem_steps(const double *size, const double *ns, size_t n, const long long *caches,
                     size_t ncaches, vn__mem_level *out, size_t max);

/* The finding's line, "memory: L1 1.2 ns to 32K, ..., DRAM 95 ns (caches
 * 32K/512K/16M)", at most 100 characters, into buf. */
void vn__mem_steps_brief(const vn__mem_level *lv, size_t n, const long long *caches, size_t ncaches,
                         char *buf, size_t len);

/* "32K", "16M", "1G", or bytes: the short form of a size. */
void vn__mem_fmt_size(double bytes, char *buf, size_t len);

#endif
