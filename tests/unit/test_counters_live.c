/* Software counters on the real kernel: the calling thread, and a child
 * counted from its exec on, with its own children. Page faults of a
 * workload that touches N new pages are at least N; context switches of a
 * workload that sleeps k times are at least k; task-clock counts CPU time,
 * not sleep. A kernel without perf events (or a container that blocks
 * them) is a skip with the reason, not a pass.
 *
 * The child is this program again, run with --child: exec'ing something
 * whose work we know. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "main/all.h"

#define PAGES 512
#define SLEEPS 5
#define CHILD_PAGES 300
#define GRANDCHILD_PAGES 200
#define BEFORE_EXEC_PAGES 5000

static size_t page(void) { return (size_t)sysconf(_SC_PAGESIZE); }

/* Writes to n pages of memory that was never touched: n page faults. */
static void touch_pages(size_t n)
{
    size_t len = n * page();
    unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        abort();
#ifdef MADV_NOHUGEPAGE
    /* A huge page would map 512 pages with one fault. */
    madvise(p, len, MADV_NOHUGEPAGE);
#endif
    for (size_t i = 0; i < n; i++)
        ((volatile unsigned char *)p)[i * page()] = 1;
    munmap(p, len);
}

static void nap(long us)
{
    struct timespec ts = {0, us * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static double count_of(vn_counters *c, const vn_counts *a, const vn_counts *b, const char *name)
{
    for (size_t i = 0; i < vn_counters_n(c); i++)
        if (!strcmp(vn_counters_name(c, i), name))
            return (double)(b->v[i].value - (a ? a->v[i].value : 0));
    fail_msg("%s is not counting", name);
    return NAN;
}

static vn_counters *open_or_skip(const char *list, pid_t pid, unsigned flags)
{
    vn_counters *c;
    char why[512];
    int rc = vn_counters_open(list, pid, flags, &c, why, sizeof why);
    if (rc)
        fail_msg("vn_counters_open(%s): %s", list, why);
    vn_counter_info ci;
    vn_counters_info(c, &ci);
    if (ci.nopened < ci.n) {
        for (size_t i = 0; i < ci.n; i++)
            if (!ci.ev[i].opened)
                printf("skip: %s cannot be counted here: %s (fix: %s)\n", ci.ev[i].name,
                       ci.ev[i].reason, ci.ev[i].fix);
        vn_counters_destroy(c);
        exit(77);
    }
    return c;
}

static void self_page_faults_and_switches(void **state)
{
    (void)state;
    vn_counters *c = open_or_skip("page-faults,context-switches,task-clock", 0, 0);
    assert_int_equal(vn_counters_n(c), 3);
    assert_int_equal(vn_counters_enable(c), 0);
    vn_counts a, b;
    assert_int_equal(vn_counters_read(c, &a), 0);
    touch_pages(PAGES);
    assert_int_equal(vn_counters_read(c, &b), 0);
    double faults = count_of(c, &a, &b, "page-faults");
    printf("%d new pages: %.0f page faults\n", PAGES, faults);
    assert_true(faults >= PAGES);
    /* And not wildly more: the mapping itself costs a handful. */
    assert_true(faults < PAGES + 200);

    assert_int_equal(vn_counters_read(c, &a), 0);
    for (int i = 0; i < SLEEPS; i++)
        nap(2000);
    assert_int_equal(vn_counters_read(c, &b), 0);
    double cs = count_of(c, &a, &b, "context-switches");
    double cpu = count_of(c, &a, &b, "task-clock");
    printf("%d sleeps of 2 ms: %.0f context switches, %.0f ns of CPU time\n", SLEEPS, cs, cpu);
    assert_true(cs >= SLEEPS);
    /* Asleep, the task does not run: far less CPU time than the 10 ms. */
    assert_true(cpu < 5e6);
    /* Counted all the time: nothing was multiplexed. */
    for (size_t i = 0; i < b.n; i++)
        assert_true(b.v[i].running == b.v[i].enabled);

    /* Stopped counters stop. */
    assert_int_equal(vn_counters_disable(c), 0);
    assert_int_equal(vn_counters_read(c, &a), 0);
    touch_pages(64);
    assert_int_equal(vn_counters_read(c, &b), 0);
    assert_true(count_of(c, &a, &b, "page-faults") == 0);
    assert_int_equal(vn_counters_reset(c), 0);
    vn_counters_destroy(c);
}

static void busy_task_clock(void **state)
{
    (void)state;
    vn_counters *c = open_or_skip("task-clock", 0, 0);
    vn_counters_enable(c);
    vn_counts a, b;
    vn_counters_read(c, &a);
    /* 20 ms of the thread's own CPU time, by the scheduler's clock for it:
     * on a busy host the wall time would hold less of it, by whatever the
     * hypervisor or other tasks took. */
    struct timespec t0, t1, w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    double spun;
    volatile unsigned long x = 0;
    do {
        for (int i = 0; i < 100000; i++)
            x += (unsigned long)i;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
        spun = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
    } while (spun < 20e6);
    (void)x;
    vn_counters_read(c, &b);
    clock_gettime(CLOCK_MONOTONIC, &w1);
    double wall = (double)(w1.tv_sec - w0.tv_sec) * 1e9 + (double)(w1.tv_nsec - w0.tv_nsec);
    double cpu = count_of(c, &a, &b, "task-clock");
    printf("20 ms of spinning: %.2f ms of task-clock, %.2f ms of thread CPU time, %.2f ms of wall time\n",
           cpu / 1e6, spun / 1e6, wall / 1e6);
    /* task-clock counts the time the thread was on its CPU as the guest
     * sees it: at least its CPU time (which leaves out the time the host
     * stole from the vCPU, and task-clock may not), at most the wall time. */
    assert_true(cpu > 0.9 * spun && cpu < wall + 1e6);
    vn_counters_destroy(c);
}

/* The child's work, after its exec: pages and sleeps of its own, and a
 * grandchild's pages, which inherit brings in. */
static int child_main(void)
{
    touch_pages(CHILD_PAGES);
    for (int i = 0; i < SLEEPS; i++)
        nap(1000);
    pid_t g = fork();
    if (g < 0)
        return 1;
    if (g == 0) {
        touch_pages(GRANDCHILD_PAGES);
        _exit(0);
    }
    int st;
    waitpid(g, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

static char self_path[4096];

static void child_counted_from_exec(void **state)
{
    (void)state;
    int go[2];
    assert_int_equal(pipe(go), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* Work before the exec must not count: enable_on_exec starts the
         * counters at the exec itself. */
        close(go[1]);
        touch_pages(BEFORE_EXEC_PAGES);
        char c;
        if (read(go[0], &c, 1) != 1)
            _exit(3);
        execl(self_path, self_path, "--child", (char *)NULL);
        _exit(127);
    }
    close(go[0]);
    vn_counters *c;
    char why[512];
    int rc = vn_counters_open_child("page-faults,context-switches,task-clock", pid, &c, why,
                                    sizeof why);
    if (rc == 0 && vn_counters_n(c) < 3) {
        vn_counter_info ci;
        vn_counters_info(c, &ci);
        for (size_t i = 0; i < ci.n; i++)
            if (!ci.ev[i].opened)
                printf("skip: %s: %s\n", ci.ev[i].name, ci.ev[i].reason);
        vn_counters_destroy(c);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        exit(77);
    }
    assert_int_equal(rc, 0);
    assert_int_equal(write(go[1], "x", 1), 1);
    close(go[1]);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);

    /* Read after the child is gone: the kernel gave its counts (and its
     * child's) to the events we hold. */
    vn_counts b;
    assert_int_equal(vn_counters_read(c, &b), 0);
    double faults = count_of(c, NULL, &b, "page-faults");
    double cs = count_of(c, NULL, &b, "context-switches");
    double cpu = count_of(c, NULL, &b, "task-clock");
    printf("child: %.0f page faults (it touched %d, its child %d, %d before exec), "
           "%.0f context switches (%d sleeps), %.2f ms CPU\n",
           faults, CHILD_PAGES, GRANDCHILD_PAGES, BEFORE_EXEC_PAGES, cs, SLEEPS, cpu / 1e6);
    assert_true(faults >= CHILD_PAGES + GRANDCHILD_PAGES);
    assert_true(faults < BEFORE_EXEC_PAGES);
    assert_true(cs >= SLEEPS);
    assert_true(cpu > 0);
    vn_counter_info ci;
    vn_counters_info(c, &ci);
    printf("read as %s\n", ci.grouped ? "one group" : "one event at a time");
    vn_counters_destroy(c);
}

static void probe_sees_the_software_events(void **state)
{
    (void)state;
    vn_counter_info ci;
    assert_int_equal(vn_counters_probe(&ci), 0);
    assert_int_equal(ci.n, 16);
    for (size_t i = 0; i < ci.n; i++) {
        printf("  %-22s %s%s%s\n", ci.ev[i].name, ci.ev[i].opened ? "works" : "missing: ",
               ci.ev[i].opened ? "" : ci.ev[i].reason, ci.ev[i].user_only ? " (user mode)" : "");
        if (!ci.ev[i].opened)
            assert_true(ci.ev[i].reason[0] != '\0');
    }
    for (size_t i = 0; i < ci.n; i++)
        if (!strcmp(ci.ev[i].name, "page-faults") && !ci.ev[i].opened) {
            printf("skip: page-faults cannot be counted here: %s\n", ci.ev[i].reason);
            exit(77);
        }
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--child"))
        return child_main();
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    if (n <= 0)
        snprintf(self_path, sizeof self_path, "%s", argv[0]);
    else
        self_path[n] = '\0';
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(probe_sees_the_software_events),
        cmocka_unit_test(self_page_faults_and_switches),
        cmocka_unit_test(busy_task_clock),
        cmocka_unit_test(child_counted_from_exec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
