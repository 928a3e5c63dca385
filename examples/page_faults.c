#define _DEFAULT_SOURCE /* madvise, MAP_ANONYMOUS */
/* Two bodies whose time the counters explain: one touches a page of fresh
 * memory per iteration, so each iteration is a page fault; the other sleeps
 * 50 us, so each iteration is a context switch. Run with
 *     --counters page-faults,context-switches,task-clock
 * and the faults and switches per iteration read 1, and task-clock shows
 * how little of the sleep was spent on the CPU. */
#include <stddef.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <vernier.h>

typedef struct pages {
    unsigned char *p;
    size_t len;
} pages;

static pages mem;
static size_t page_size;

/* Untimed: a fresh mapping with one page per iteration, none touched yet. */
static void map_pages(vn_state *st)
{
    if (!page_size)
        page_size = (size_t)sysconf(_SC_PAGESIZE);
    mem.len = (size_t)vn_state_iterations(st) * page_size;
    mem.p = mmap(NULL, mem.len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem.p == MAP_FAILED) {
        mem.p = NULL;
        vn_state_fail(st, "mmap failed");
        return;
    }
#ifdef MADV_NOHUGEPAGE
    /* With transparent huge pages one fault could map 512 pages at once. */
    madvise(mem.p, mem.len, MADV_NOHUGEPAGE);
#endif
    vn_state_set_data(st, &mem);
}

static void unmap_pages(vn_state *st)
{
    (void)st;
    if (mem.p)
        munmap(mem.p, mem.len);
    mem.p = NULL;
}

static void touch_new_pages(vn_state *st)
{
    pages *m = vn_state_data(st);
    unsigned char *p = m->p;
    while (vn_next(st)) {
        *p = 1; /* the first write to a page: the kernel maps it now */
        p += page_size;
    }
    vn_clobber();
}
VN_BENCH_OPTS(touch_new_pages, .setup = map_pages, .teardown = unmap_pages);

static void sleep_50us(vn_state *st)
{
    while (vn_next(st)) {
        struct timespec ts = {0, 50 * 1000};
        nanosleep(&ts, NULL);
    }
}
VN_BENCH(sleep_50us);

int main(int argc, char **argv) { return vn_main(argc, argv); }
