/* Every benchmark of `vernier suite`, listed once, in the order they run and
 * --list shows them: X(family, name, add function, what it measures). The
 * add functions live in src/suite/FAMILY.c. */
#ifndef VN_SUITE_REGISTRY_H
#define VN_SUITE_REGISTRY_H

#include <stddef.h>

#include "vernier/bench.h"

struct vn__suite_ctx;

/* Adds the rows of one benchmark (its registry name, such as "ipc.tcp")
 * to s. 0, or a negative VN_E* code. What the machine cannot do is no
 * error here: the row's setup skips it with vn_state_skip(), so it shows
 * as skipped with its reason. */
typedef int (*vn__suite_add_fn)(vn_suite *s, struct vn__suite_ctx *ctx, const char *name);

typedef struct vn__suite_entry {
    const char *family;       /* "ipc" */
    const char *name;         /* "ipc.tcp" */
    vn__suite_add_fn add;
    const char *what;         /* one line for --list */
} vn__suite_entry;

/* The registry, in its order; n entries. */
const vn__suite_entry *vn__suite_entries(size_t *n);

/* Does name (a family "ipc", a benchmark "ipc.tcp", or a dotted prefix
 * between them, "memory.latency") select entry e? */
int vn__suite_selects(const vn__suite_entry *e, const char *name);


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
    X(file, "file.write.null", vn__suite_file_write_null, "write() of 12 B..1 MiB to /dev/null") \
    X(file, "file.write.pipe", vn__suite_file_write_pipe,                                        \
      "write() of 12 B..1 MiB to a pipe that a thread drains (on CPU B of --cpus)")              \
    X(file, "file.write.file", vn__suite_file_write_file,                                        \
      "write() of 12 B..1 MiB appended to a file in TMPDIR (the page cache)")                    \
    X(file, "file.write.fsync", vn__suite_file_write_fsync,                                      \
      "write() then fsync() of 12 B..1 MiB to a file in TMPDIR (to the disk)")                   \
    X(file, "file.open", vn__suite_file_open, "open()+close() of files of 12 B..1 MiB: does the size matter?") \
    X(file, "file.stat", vn__suite_file_stat, "stat() of a file")                                \
    X(file, "file.read", vn__suite_file_read, "pread() of 12 B..1 MiB from offset 0 of a cached file") \
    X(process, "process.fork", vn__suite_process_fork,                                           \
      "fork + _exit + wait in a clean parent with 1 MiB, 256 MiB touched: the page tables' copy") \
    X(process, "process.fork.exec", vn__suite_process_fork_exec,                                 \
      "fork + exec of vernier-noop (static, exits at once) + wait, in the 1 MiB clean parent")  \
    X(process, "process.vfork", vn__suite_process_vfork, "vfork + _exit + wait")                 \
    X(process, "process.vfork.exec", vn__suite_process_vfork_exec, "vfork + exec of vernier-noop + wait") \
    X(process, "process.spawn", vn__suite_process_spawn, "posix_spawn of vernier-noop + wait")   \
    X(process, "process.thread", vn__suite_process_thread, "pthread_create + pthread_join of a thread that returns") \
    X(ipc, "ipc.pipe", vn__suite_ipc_pipe,                                                       \
      "a message's round trip through a pipe pair, 4 B..1 MiB; one direction streamed")          \
    X(ipc, "ipc.unix", vn__suite_ipc_unix,                                                       \
      "the same over a Unix socketpair (SOCK_STREAM)")                                           \
    X(ipc, "ipc.tcp", vn__suite_ipc_tcp,                                                         \
      "the same over TCP on loopback, TCP_NODELAY on (--nagle: off)")                            \
    X(ipc, "ipc.udp", vn__suite_ipc_udp,                                                         \
      "a datagram's round trip over UDP on loopback, 4 B..64 KiB")                               \
    X(ctxsw, "ctxsw.one_cpu", vn__suite_ctxsw_one_cpu,                                           \
      "a context switch: two threads on one CPU pass a token through two pipes")                 \
    X(ctxsw, "ctxsw.two_cpus", vn__suite_ctxsw_two_cpus,                                         \
      "the same on two CPUs: a wake-up across CPUs, not a switch")                               \
    X(memory, "memory.latency.random", vn__suite_memory_random,                                  \
      "ns a dependent load, random order over 4K..512M (4 KiB pages); the levels and their sizes") \
    X(memory, "memory.latency.seq", vn__suite_memory_seq,                                        \
      "ns a dependent load, next line in memory order: what the prefetchers hide")               \
    X(memory, "memory.latency.huge", vn__suite_memory_huge,                                      \
      "the random order on huge pages (THP or hugetlbfs): the TLB's share of a load")            \
    X(memory, "memory.latency.cold", vn__suite_memory_cold,                                      \
      "64 random loads right after the caches were written over: the same buffers cold")         \
    X(memory, "memory.bw.read", vn__suite_memory_read, "read bandwidth: a sum of 64-bit words")  \
    X(memory, "memory.bw.write", vn__suite_memory_write, "write bandwidth: memset")              \
    X(memory, "memory.bw.copy", vn__suite_memory_copy, "copy bandwidth: memcpy, bytes copied a second") \
    X(timer, "timer.nanosleep", vn__suite_timer_nanosleep,                                       \
      "how late nanosleep wakes at 1, 50, 1000 us; again with the timer slack at 1 ns")          \
    X(timer, "timer.abstime", vn__suite_timer_abstime,                                           \
      "how late clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) wakes at 1, 50, 1000 us")        \
    X(timer, "timer.timerfd", vn__suite_timer_timerfd,                                           \
      "how late a timerfd set to an absolute time wakes its reader at 1, 50, 1000 us")           \
    X(timer, "timer.epoll", vn__suite_timer_epoll,                                               \
      "how late epoll_pwait2 on an empty set returns at timeouts of 1, 50, 1000 us")

#endif
