/* Whether a small ring walked in every process can tell the state of the
 * machine's shared cache, which moves an 8 MiB pointer chase 2-7x from
 * one run to the next on a shared host (bench/RESULTS.md): the chase of
 * bench/coverage_workloads.c beside two rings of other sizes, half and
 * twice its own, each a random cycle walked 256 loads an iteration,
 * on a buffer of its own. bench/cache_state.py runs it and says how well
 * each ring's run-to-run moves follow the chase's. */
#include <stdint.h>
#include <stdlib.h>
#include <vernier.h>

#include "ring.h"

struct ring {
    void **v, **at;
};
static struct ring chase, small, large;

/* A ring of bytes (bench/ring.h), made once. */
static void ring_make(vn_state *st, struct ring *g, size_t bytes, uint64_t seed)
{
    if (g->v)
        return;
    g->at = ring_new(bytes / sizeof(void *), seed, &g->v);
    if (!g->at)
        vn_state_fail(st, "out of memory");
}

static void walk(vn_state *st, struct ring *g)
{
    void **p = g->at;
    while (vn_next(st)) {
        for (int i = 0; i < 256; i++)
            p = (void **)*p;
        vn_keep(p);
    }
    g->at = p;
}

static void chase_setup(vn_state *st) { ring_make(st, &chase, 8u << 20, 12); }
static void small_setup(vn_state *st) { ring_make(st, &small, 4u << 20, 13); }
static void large_setup(vn_state *st) { ring_make(st, &large, 16u << 20, 14); }
static void chase_8m(vn_state *st) { walk(st, &chase); }
static void ring_4m(vn_state *st) { walk(st, &small); }
static void ring_16m(vn_state *st) { walk(st, &large); }
VN_BENCH_OPTS(chase_8m, .setup = chase_setup);
VN_BENCH_OPTS(ring_4m, .setup = small_setup);
VN_BENCH_OPTS(ring_16m, .setup = large_setup);

int main(int argc, char **argv) { return vn_main(argc, argv); }
