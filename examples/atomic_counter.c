/* Threads incrementing one shared atomic counter: run it with --threads 1,
 * 2, 4 and watch the time per increment grow as the cache line bounces
 * between cores. All threads start timing together, after a barrier. */
#include <stdatomic.h>

#include <vernier.h>

static atomic_ulong counter;

static void atomic_increment(vn_state *st)
{
    while (vn_next(st))
        atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
}
VN_BENCH(atomic_increment);

/* The same with a counter per thread, for contrast: no sharing, no bouncing. */
static _Thread_local unsigned long mine;

static void private_increment(vn_state *st)
{
    while (vn_next(st)) {
        mine++;
        vn_keep(mine);
    }
}
VN_BENCH(private_increment);

int main(int argc, char **argv) { return vn_main(argc, argv); }
