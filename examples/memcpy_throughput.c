/* memcpy of 8 B to 8 KiB: a parameter range gives one row per size, and the
 * bytes per iteration give a throughput column. */
#include <stdlib.h>
#include <string.h>

#include <vernier.h>

#define MAX_SIZE (8 << 10)

static void setup(vn_state *st)
{
    /* Untimed, before each sample: source and destination buffers. */
    char *buf = malloc(2 * MAX_SIZE);
    if (!buf) {
        vn_state_fail(st, "out of memory");
        return;
    }
    memset(buf, 'v', 2 * MAX_SIZE);
    vn_state_set_data(st, buf);
}

static void teardown(vn_state *st) { free(vn_state_data(st)); }

static void copy(vn_state *st)
{
    char *buf = vn_state_data(st);
    size_t n = (size_t)vn_state_param(st);
    vn_state_set_bytes(st, (double)n);
    while (vn_next(st)) {
        memcpy(buf + MAX_SIZE, buf, n);
        vn_clobber(); /* the copy's result counts as read */
    }
}
VN_BENCH_OPTS(copy, .setup = setup, .teardown = teardown, .param_name = "size", .range_lo = 8,
              .range_hi = MAX_SIZE, .range_mult = 8);

int main(int argc, char **argv) { return vn_main(argc, argv); }
