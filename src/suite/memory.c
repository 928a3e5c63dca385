/* memory: what a load costs from each level of the memory hierarchy, and
 * how fast memory streams. Latency by pointer chasing (each load's address
 * is the value the last one read, so no two overlap), over buffers from a
 * few KiB to hundreds of MiB: in a random cycle through all lines, so no
 * prefetcher guesses the next (as lmbench's lat_mem_rd with a random
 * stride); in memory order, where the prefetchers do; on huge pages; and
 * cold, right after the caches were written over. Bandwidth by read (a sum
 * of words), write (memset) and copy (memcpy) passes. The summary finds the
 * plateaus of the random curve and names them after the caches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "suite/memory_bufs.h"
#include "suite/memory_steps.h"
#include "suite/suite.h"

#define KiB ((int64_t)1 << 10)
#define MiB ((int64_t)1 << 20)

/* x2 steps from 4 KiB to 512 MiB; --quick: x4 to 16 MiB. */
static const int64_t lat_sizes[] = {4 * KiB,  8 * KiB,  16 * KiB,  32 * KiB,  64 * KiB,  128 * KiB,
                                    256 * KiB, 512 * KiB, 1 * MiB,  2 * MiB,  4 * MiB,  8 * MiB,
                                    16 * MiB, 32 * MiB, 64 * MiB, 128 * MiB, 256 * MiB, 512 * MiB};
static const int64_t lat_quick[] = {4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, 1 * MiB, 4 * MiB, 16 * MiB};
/* Cold: a buffer of each level, so the same buffer is seen warm and cold. */
static const int64_t cold_sizes[] = {4 * KiB, 64 * KiB, 1 * MiB, 16 * MiB, 256 * MiB};
static const int64_t cold_quick[] = {4 * KiB, 16 * MiB};
static const int64_t bw_sizes[] = {16 * KiB, 64 * KiB, 256 * KiB, 1 * MiB, 4 * MiB, 16 * MiB, 64 * MiB, 256 * MiB};
static const int64_t bw_quick[] = {16 * KiB, 1 * MiB, 16 * MiB};
#define N(a) (sizeof a / sizeof a[0])

/* Dependent loads a cold sample makes: enough that the timer's read is a
 * small part of the sample, few enough that they all find the caches
 * empty (64 lines of a 4 KiB buffer are the whole of it). */
#define COLD_LOADS 64

/* The family's shared buffers: made with the first row added, found again
 * by the later ones among what the suite undoes at the end. */
static vn__mem *mem_of(vn__suite_ctx *ctx)
{
    for (size_t i = 0; i < ctx->nundo; i++)
        if (ctx->undo[i].fn == vn__mem_free)
            return ctx->undo[i].arg;
    vn__mem *m = calloc(1, sizeof *m);
    if (!m || vn__suite_on_exit(ctx, vn__mem_free, m) != 0)
        return NULL; /* on_exit freed it */
    return m;
}

/* The row's buffer, or the reason it has none as a skip. */
static vn__mem_buf *buffer(vn_state *st, enum vn__mem_kind kind)
{
    vn__mem_buf *b = vn__mem_get(vn_state_user(st), kind, (size_t)vn_state_param(st));
    if (!b)
        vn_state_fail(st, "out of memory");
    else if (b->skip[0])
        vn_state_skip(st, b->skip);
    else {
        vn_state_set_data(st, b);
        return b;
    }
    return NULL;
}

/* ---- Latency ------------------------------------------------------------------ */

static double since(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) * 1e9 + (double)(b->tv_nsec - a->tv_nsec);
}

/* One load an iteration, each address the value of the last load, timed
 * whole: the loop's count and branch run beside the loads and cost
 * nothing of their own, so the empty loop, which would, is not taken off.
 * The walk goes on from where the last sample stopped. */
static void walk(vn_state *st, int which)
{
    vn__mem_buf *b = vn_state_data(st);
    void **p = b->at[which];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (vn_next(st))
        p = (void **)*p;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    b->at[which] = p;
    vn_state_set_time(st, since(&t0, &t1));
}

static void walk_random(vn_state *st) { walk(st, 0); }
static void walk_seq(vn_state *st) { walk(st, 1); }

/* Warm rows: the buffer read once before each sample, untimed. */
static void warm_setup(vn_state *st, enum vn__mem_kind kind)
{
    vn__mem_buf *b = buffer(st, kind);
    if (b)
        vn__mem_warm(vn_state_user(st), b);
}

static void chase_setup(vn_state *st) { warm_setup(st, VN__MEM_CHASE); }
static void huge_setup(vn_state *st) { warm_setup(st, VN__MEM_HUGE); }

static void cold_setup(vn_state *st)
{
    vn__mem *m = vn_state_user(st);
    if (vn__mem_evict_ready(m) != 0) {
        vn_state_fail(st, "out of memory for the eviction buffer");
        return;
    }
    if (buffer(st, VN__MEM_CHASE))
        vn__mem_evict(m);
}

/* ---- Bandwidth ---------------------------------------------------------------- */

/* Four sums, so the adds do not wait on each other and the loads are
 * what limits the pass. */
static uint64_t sum_words(const uint64_t *w, size_t n)
{
    uint64_t a = 0, b = 0, c = 0, d = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        a += w[i];
        b += w[i + 1];
        c += w[i + 2];
        d += w[i + 3];
    }
    for (; i < n; i++)
        a += w[i];
    return a + b + c + d;
}

enum { BW_READ, BW_WRITE, BW_COPY };

/* One pass of op over the row's size; the clobber makes every pass happen
 * (a sum of memory that did not change could be computed once). */
static inline void pass(const vn__mem_buf *b, int op)
{
    unsigned char *src = b->map, *dst = src + b->size;
    if (op == BW_READ)
        vn_keep(sum_words((const uint64_t *)src, b->size / sizeof(uint64_t)));
    else if (op == BW_WRITE)
        memset(dst, 0x5a, b->size);
    else
        memcpy(dst, src, b->size);
    vn_clobber();
}

static void bw_setup(vn_state *st, int op)
{
    vn__mem *m = vn_state_user(st);
    if (vn_state_param(st) < VN__MEM_LINE) {
        vn_state_skip(st, "a pass over less than a cache line times the loop, not the memory");
        return;
    }
    vn__mem_buf *b = buffer(st, VN__MEM_BW);
    if (b && vn__mem_evict_ready(m) == 0 && 2 * b->size <= m->warm_max)
        pass(b, op);
}

static void bw_body(vn_state *st, int op)
{
    const vn__mem_buf *b = vn_state_data(st);
    vn_state_set_bytes(st, (double)b->size);
    while (vn_next(st))
        pass(b, op);
}

static void read_setup(vn_state *st) { bw_setup(st, BW_READ); }
static void write_setup(vn_state *st) { bw_setup(st, BW_WRITE); }
static void copy_setup(vn_state *st) { bw_setup(st, BW_COPY); }
static void bw_read(vn_state *st) { bw_body(st, BW_READ); }
static void bw_write(vn_state *st) { bw_body(st, BW_WRITE); }
static void bw_copy(vn_state *st) { bw_body(st, BW_COPY); }

/* ---- The levels ----------------------------------------------------------------- */

/* The data (or unified) cache of each level the machine reports, from L1
 * up, stopping at the first level it does not report. */
static size_t cache_sizes(const vn_sysinfo *env, long long *out, size_t max)
{
    size_t n = 0;
    for (int level = 1; (size_t)level <= max; level++) {
        long long size = 0;
        for (int i = 0; i < env->ncaches; i++)
            if (env->caches[i].level == level && strcmp(env->caches[i].type, "Instruction") &&
                env->caches[i].size_bytes > 0)
                size = env->caches[i].size_bytes;
        if (!size)
            break;
        out[n++] = size;
    }
    return n;
}

static int memory_summary(vn_results *r, const vn__suite_ctx *ctx)
{
    (void)ctx;
    double size[64], ns[64];
    size_t n = vn__suite_sweep(r, "memory.latency.random", size, ns, 64);
    if (n < 2)
        return 0;
    long long caches[4];
    size_t nc = cache_sizes(&r->env, caches, 4);
    vn__mem_level lv[VN__MEM_MAX_LEVELS];
    size_t nl = vn__mem_steps(size, ns, n, caches, nc, lv, VN__MEM_MAX_LEVELS);
    if (nl == 0)
        return 0;
    char brief[128], why[1536];
    vn__mem_steps_brief(lv, nl, caches, nc, brief, sizeof brief);
    size_t at = (size_t)snprintf(why, sizeof why,
                                 "The plateaus of the random-order latency rows (4 KiB pages), found by "
                                 "fitting flat segments to log latency against size; a step of 1.5x or "
                                 "more starts a new level. ");
    for (size_t i = 0; i < nl && at < sizeof why; i++) {
        char a[16], b[16], c[16];
        vn__mem_fmt_size(lv[i].from, a, sizeof a);
        vn__mem_fmt_size(lv[i].to, b, sizeof b);
        vn__mem_fmt_size((double)lv[i].cache, c, sizeof c);
        at += (size_t)snprintf(why + at, sizeof why - at, "%s: %.3g ns a load, buffers %s to %s%s%s%s. ",
                               lv[i].name, lv[i].ns, a, b, lv[i].cache ? " (the machine reports " : "",
                               lv[i].cache ? c : "", lv[i].cache ? ")" : "");
    }
    if (at < sizeof why)
        snprintf(why + at, sizeof why - at,
                 "A level that ends below the size of its cache shares it (the other CPUs, page tables, "
                 "code) or runs out of TLB entries first; a level with no cache reported is named in "
                 "order, and DRAM is the plateau past every cache. Buffers between two plateaus are "
                 "partly in each.");
    return vn_results_add_finding(r, "memory.levels", brief, why);
}

/* ---- The rows ---------------------------------------------------------------------- */

/* Latency rows time themselves (manual); iterations: a fixed count, 0 the
 * engine's. */
static int add(vn_suite *s, vn__suite_ctx *ctx, const char *name, vn_bench_fn fn, void (*setup)(vn_state *),
               int latency, uint64_t iterations, const int64_t *def, size_t ndef, const int64_t *quick,
               size_t nquick)
{
    vn__mem *m = mem_of(ctx);
    if (!m)
        return VN_ENOMEM;
    vn_bench_opts o;
    vn_bench_opts_init(&o);
    o.setup = setup;
    o.user = m;
    o.manual_time = latency;
    o.iterations = iterations;
    return vn__suite_add_sized(s, ctx, name, fn, &o, def, ndef, quick, nquick);
}

int vn__suite_memory_random(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    int rc = vn__suite_summarize(ctx, memory_summary);
    return rc ? rc
              : add(s, ctx, name, walk_random, chase_setup, 1, 0, lat_sizes, N(lat_sizes), lat_quick, N(lat_quick));
}

int vn__suite_memory_seq(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add(s, ctx, name, walk_seq, chase_setup, 1, 0, lat_sizes, N(lat_sizes), lat_quick, N(lat_quick));
}

int vn__suite_memory_huge(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add(s, ctx, name, walk_random, huge_setup, 1, 0, lat_sizes, N(lat_sizes), lat_quick, N(lat_quick));
}

int vn__suite_memory_cold(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add(s, ctx, name, walk_random, cold_setup, 1, COLD_LOADS, cold_sizes, N(cold_sizes), cold_quick,
               N(cold_quick));
}

int vn__suite_memory_read(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add(s, ctx, name, bw_read, read_setup, 0, 0, bw_sizes, N(bw_sizes), bw_quick, N(bw_quick));
}

int vn__suite_memory_write(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add(s, ctx, name, bw_write, write_setup, 0, 0, bw_sizes, N(bw_sizes), bw_quick, N(bw_quick));
}

int vn__suite_memory_copy(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add(s, ctx, name, bw_copy, copy_setup, 0, 0, bw_sizes, N(bw_sizes), bw_quick, N(bw_quick));
}
