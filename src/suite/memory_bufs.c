/* The memory family's buffers: one per kind and size, made by the first
 * sample that needs it and kept for the whole run (the rows take turns, so
 * every row's buffer is in use until the end), unmapped by vn__mem_free
 * when the suite is done. Building a random cycle over hundreds of MiB
 * takes a good part of a second, so each is built once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "engine/internal.h"
#include "base/fileutil.h"
#include "suite/memory_bufs.h"
#include "suite/memory_huge.h"
#include "parse/sysinfo_parse.h"

/* What a buffer may take of the memory available (MemAvailable), in
 * halves: the rest is left to the machine and whoever else runs on it. */
static int too_big(size_t want, char *reason, size_t n)
{
    char text[8192];
    long long total, avail;
    if (vn__read_text("/proc/meminfo", text, sizeof text) <= 0 || vn__parse_meminfo(text, &total, &avail) != 0 ||
        avail < 0)
        return 0; /* unknown: mmap will say */
    if ((long long)want <= avail / 2)
        return 0;
    snprintf(reason, n, "needs %zu MiB, over half of the %lld MiB available (MemAvailable)", want >> 20,
             avail >> 20);
    return 1;
}

/* A mapping of 4 KiB pages, touched: MADV_NOHUGEPAGE, so that a kernel
 * with transparent huge pages "always" cannot make them huge behind the
 * rows' back (a kernel without them refuses the advice, and has none); and
 * MADV_DONTFORK, so that the process family's forks, in the same run, do
 * not copy the page tables of hundreds of MiB that are not theirs. */
static void *map_small(size_t len, int no_huge, char *reason, size_t n)
{
    void *a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a == MAP_FAILED) {
        snprintf(reason, n, "cannot map %zu MiB: %s", len >> 20, strerror(errno));
        return NULL;
    }
    if (no_huge)
        madvise(a, len, MADV_NOHUGEPAGE);
    madvise(a, len, MADV_DONTFORK);
    memset(a, 1, len);
    return a;
}

/* The lines of b as pointer cycles: word 0 of each a random cycle through
 * all of them (Sattolo's algorithm makes one cycle, never several short
 * ones), so no prefetcher can guess the next line, as lmbench's lat_mem_rd
 * with a random stride; for 4 KiB pages word 1 the next line in memory,
 * round to the first. 0, or 1 with why not in b->skip. */
static int link_lines(vn__mem_buf *b)
{
    size_t n = b->size / VN__MEM_LINE ? b->size / VN__MEM_LINE : 1;
    unsigned char *base = b->map;
    uint32_t *next = malloc(n * sizeof *next);
    if (!next) {
        snprintf(b->skip, sizeof b->skip, "out of memory for the order of %zu lines", n);
        return 1;
    }
    vn_rng rng;
    vn_rng_seed(&rng, 0x6d656d6f7279ull ^ b->size);
    for (size_t i = 0; i < n; i++)
        next[i] = (uint32_t)i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)vn_rng_below(&rng, i);
        uint32_t t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
    for (size_t i = 0; i < n; i++)
        *(void **)(base + i * VN__MEM_LINE) = base + (size_t)next[i] * VN__MEM_LINE;
    free(next);
    b->at[0] = (void **)base;
    if (b->kind == VN__MEM_CHASE) {
        for (size_t i = 0; i < n; i++)
            *(void **)(base + i * VN__MEM_LINE + sizeof(void *)) =
                base + (i + 1 < n ? i + 1 : 0) * VN__MEM_LINE + sizeof(void *);
        b->at[1] = (void **)(base + sizeof(void *));
    }
    return 0;
}

static void make(vn__mem_buf *b)
{
    size_t page = 4096, len = b->kind == VN__MEM_BW ? 2 * b->size : b->size;
    if (len < VN__MEM_LINE)
        len = VN__MEM_LINE;
    len = (len + page - 1) & ~(page - 1);
    /* The order of the random cycle, built beside it: 32 bits a line
     * number count the lines of far more than --sizes allows (1 GiB). */
    size_t order = b->kind == VN__MEM_BW ? 0 : len / VN__MEM_LINE * sizeof(uint32_t);
    if (too_big(len + order, b->skip, sizeof b->skip))
        return;
    if (b->kind == VN__MEM_HUGE) {
        if (vn__mem_map_huge(len, &b->map, &b->maplen, b->skip, sizeof b->skip) != 0)
            return;
    } else if ((b->map = map_small(len, b->kind == VN__MEM_CHASE, b->skip, sizeof b->skip)) != NULL)
        b->maplen = len;
    if (b->map && b->kind != VN__MEM_BW && link_lines(b)) {
        munmap(b->map, b->maplen);
        b->map = NULL;
    }
}

vn__mem_buf *vn__mem_get(vn__mem *m, enum vn__mem_kind kind, size_t size)
{
    for (size_t i = 0; i < m->nbufs; i++)
        if (m->bufs[i]->kind == kind && m->bufs[i]->size == size)
            return m->bufs[i];
    if (m->nbufs == m->capbufs) {
        size_t cap = m->capbufs ? 2 * m->capbufs : 32;
        vn__mem_buf **p = realloc(m->bufs, cap * sizeof *p);
        if (!p)
            return NULL;
        m->bufs = p;
        m->capbufs = cap;
    }
    vn__mem_buf *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->kind = kind;
    b->size = size;
    make(b);
    m->bufs[m->nbufs++] = b;
    return b;
}

int vn__mem_evict_ready(vn__mem *m)
{
    if (m->evict)
        return 0;
    vn__evict *e = calloc(1, sizeof *e);
    if (!e)
        return VN_ENOMEM;
    vn_sysinfo env;
    int have = vn_sysinfo_collect(&env) == 0;
    int rc = vn__evict_init(e, have ? &env : NULL);
    if (have)
        vn_sysinfo_free(&env);
    if (rc) {
        free(e);
        return rc;
    }
    m->evict = e;
    m->warm_max = e->len;
    return 0;
}

void vn__mem_evict(vn__mem *m)
{
    if (m->evict)
        vn__evict_run(m->evict);
}

void vn__mem_warm(vn__mem *m, const vn__mem_buf *b)
{
    if (vn__mem_evict_ready(m) != 0 || !b->map || b->maplen > m->warm_max)
        return;
    const volatile unsigned char *p = b->map;
    for (size_t i = 0; i < b->maplen; i += VN__MEM_LINE)
        (void)p[i];
}

void vn__mem_free(void *arg)
{
    vn__mem *m = arg;
    for (size_t i = 0; i < m->nbufs; i++) {
        if (m->bufs[i]->map)
            munmap(m->bufs[i]->map, m->bufs[i]->maplen);
        free(m->bufs[i]);
    }
    free(m->bufs);
    if (m->evict) {
        vn__evict_free(m->evict);
        free(m->evict);
    }
    free(m);
}
