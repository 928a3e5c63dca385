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

struct ring {
    void **v, **at;
};
static struct ring chase, small, large;

/* One cycle through every slot of bytes, in a random order, so that no
 * prefetcher guesses the next load. */
static void ring_make(vn_state *st, struct ring *g, size_t bytes, uint64_t seed)
{
    if (g->v)
        return;
    size_t n = bytes / sizeof(void *);
    g->v = malloc(n * sizeof *g->v);
    size_t *order = malloc(n * sizeof *order);
    if (!g->v || !order) {
        free(order);
        vn_state_fail(st, "out of memory");
        return;
    }
    vn_rng r;
    vn_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t k = (size_t)vn_rng_below(&r, i + 1), t = order[i];
        order[i] = order[k], order[k] = t;
    }
    for (size_t i = 0; i < n; i++)
        g->v[order[i]] = &g->v[order[(i + 1) % n]];
    g->at = g->v[order[0]];
    free(order);
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
