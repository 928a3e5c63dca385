/* Every benchmark of `vernier suite`, listed once, in the order they run and
 * --list shows them: X(family, name, add function, what it measures). The
 * add functions live in src/suite/FAMILY.c. */
#ifndef VN_SUITE_REGISTRY_H
#define VN_SUITE_REGISTRY_H

#define VN__SUITE_BENCHMARKS(X)                                                                   \
    X(loop, "loop", vn__suite_loop,                                                              \
      "an empty counted loop timed whole at 10^2..10^9 iterations; the fitted fixed and per-iteration cost") \
    X(syscall, "syscall.getppid", vn__suite_syscall_getppid,                                     \
      "syscall(SYS_getppid): a real kernel entry and exit")                                      \
    X(syscall, "syscall.getpid", vn__suite_syscall_getpid, "getpid() through libc")              \
    X(syscall, "syscall.clock_gettime", vn__suite_syscall_clock_gettime,                         \
      "clock_gettime(CLOCK_MONOTONIC) through the vDSO, and the same clock by raw syscall")       \
    X(syscall, "syscall.gettimeofday", vn__suite_syscall_gettimeofday, "gettimeofday() (vDSO)")  \
    X(syscall, "syscall.time", vn__suite_syscall_time, "time() (vDSO)")                          \
    X(timer, "timer.nanosleep", vn__suite_timer_nanosleep,                                       \
      "how late nanosleep wakes at 1, 50, 1000 us; again with the timer slack at 1 ns")          \
    X(timer, "timer.abstime", vn__suite_timer_abstime,                                           \
      "how late clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) wakes at 1, 50, 1000 us")        \
    X(timer, "timer.timerfd", vn__suite_timer_timerfd,                                           \
      "how late a timerfd set to an absolute time wakes its reader at 1, 50, 1000 us")           \
    X(timer, "timer.epoll", vn__suite_timer_epoll,                                               \
      "how late epoll_pwait2 on an empty set returns at timeouts of 1, 50, 1000 us")

#endif
