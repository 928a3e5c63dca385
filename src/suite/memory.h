/* The memory family's parts: the buffers its rows walk and stream over
 * (memory_bufs.c), huge pages (memory_huge.c), and the pure step detection
 * that names the levels of the latency curve (memory_steps.c). */
#ifndef VN_SUITE_MEMORY_H
#define VN_SUITE_MEMORY_H

#include <stddef.h>
#include <stdint.h>

/* ---- Buffers (memory_bufs.c) ----------------------------------------------- */

/* The cache line the walks step by. A line of 128 bytes (some Arm cores)
 * only halves the sequential walk's misses; the random walk is unchanged. */
#define VN__MEM_LINE 64

enum vn__mem_kind {
    VN__MEM_CHASE, /* 4 KiB pages; word 0 of each line a random cycle, word 1 the next line */
    VN__MEM_HUGE,  /* huge pages; word 0 of each line a random cycle */
    VN__MEM_BW     /* bandwidth: twice the size, the source then the destination */
};

typedef struct vn__mem_buf {
    enum vn__mem_kind kind;
    size_t size;              /* bytes the row uses */
    void *map;                /* the mapping, NULL when it could not be made */
    size_t maplen;
    void **at[2];             /* where the random (0) and sequential (1) walks stand */
    char skip[224];           /* why it could not be made, "" when it was */
} vn__mem_buf;

/* What the family's rows share, made by the first row that runs and freed
 * by vn__suite_on_exit. */
struct vn__evict;
typedef struct vn__mem {
    vn__mem_buf **bufs;
    size_t nbufs, capbufs;
    struct vn__evict *evict;  /* written over before each cold sample; NULL until then */
    size_t warm_max;          /* larger buffers cannot stay cached: no use warming them */
} vn__mem;

/* The buffer of kind and size, made and filled on first use. NULL when
 * memory ran out for the table itself; otherwise a buffer whose skip says
 * why it has no mapping, if it has none. */
vn__mem_buf *vn__mem_get(vn__mem *m, enum vn__mem_kind kind, size_t size);
/* Sizes the eviction buffer from the machine's caches (and warm_max with
 * it), on first use. 0, or VN_ENOMEM. */
int vn__mem_evict_ready(vn__mem *m);
/* Writes over the eviction buffer: the caches and TLBs then hold none of
 * the rows' buffers. */
void vn__mem_evict(vn__mem *m);
/* Reads every line of b once, so a sample finds it where its own earlier
 * samples left it (the rows take turns, and the others evict it). */
void vn__mem_warm(vn__mem *m, const vn__mem_buf *b);
void vn__mem_free(void *m);

/* ---- Huge pages (memory_huge.c) -------------------------------------------- */

/* Maps len bytes (rounded up to whole huge pages) backed by huge pages:
 * transparent ones asked for with madvise on an aligned mapping, else
 * hugetlbfs pages. *map and *maplen for munmap; 0, or a negative code with
 * why (to show as the row's skip reason) in reason. The pages are touched
 * and checked (AnonHugePages in /proc/self/smaps): a mapping the kernel
 * backed with 4 KiB pages anyway is no huge-page mapping. */
int vn__mem_map_huge(size_t len, void **map, size_t *maplen, char *reason, size_t n);

/* From /proc/self/smaps text: the size and the AnonHugePages of the
 * mapping that holds addr, in kB. 0, or VN_ENOENT when no mapping holds it
 * or its lines are missing. Pure. */
int vn__smaps_huge_kb(const char *text, uintptr_t addr, long long *size_kb, long long *huge_kb);

/* ---- The levels of the latency curve (memory_steps.c) ---------------------- */

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
