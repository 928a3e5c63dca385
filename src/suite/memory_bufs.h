/* The buffers the memory family's rows walk and stream over
 * (memory_bufs.c). */
#ifndef VN_SUITE_MEMORY_BUFS_H
#define VN_SUITE_MEMORY_BUFS_H

#include <stddef.h>
#include <stdint.h>

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

#endif
