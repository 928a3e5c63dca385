/* The record the BPF program (trace.bpf.c) sends for each call, and the
 * counts it keeps, shared with the user-space reader; both sides are built
 * from this one layout. */
#ifndef VN_TRACE_EVENT_H
#define VN_TRACE_EVENT_H

#include <linux/types.h>

/* 16 MiB: some 400000 records of 40 bytes (with the ring buffer's header)
 * before a reader that falls behind loses any. */
#define VN_TRACE_RINGBUF_BYTES (16u << 20)

/* Calls of the function inside a call of it on one thread (recursion, or
 * an interrupt that calls it) are timed up to this depth. */
#define VN_TRACE_MAX_DEPTH 32

/* The exact histogram of every call, by powers of two of nanoseconds:
 * bucket k holds the calls of 2^k to 2^(k+1) - 1 ns (k = 0: 0 and 1). */
#define VN_TRACE_LOG2_BUCKETS 64

struct vn_trace_event {
    __u64 ns;          /* entry to return, bpf_ktime_get_ns (CLOCK_MONOTONIC) */
    __u32 pid;         /* the process (thread group) */
    __u32 cpu;         /* where the call returned */
    char comm[16];     /* the thread's name */
};

/* The filters, in .rodata: set by user space before the load, so the
 * verifier sees them as constants. */
struct vn_trace_filter {
    __u32 tgid;        /* the process to keep; 0: every process */
    __s32 cpu;         /* the CPU to keep; -1: every CPU */
};

/* What the probes counted, in .bss, read by user space through the map's
 * memory: every entry and every timed return, and each way a call can go
 * untimed, so that none goes silently. */
struct vn_trace_lost {
    __u64 events;      /* timed returns whose record found the ring buffer full */
    __u64 starts;      /* entries whose start time found the map full */
    __u64 entries;     /* entries kept by the filters */
    __u64 timed;       /* returns matched with their entry: the calls timed */
    __u64 unmatched;   /* returns with no entry: begun before the trace */
    __u64 deep;        /* entries deeper than VN_TRACE_MAX_DEPTH on their thread */
    __u64 sum_ns;      /* the timed calls' total */
    __u64 log2[VN_TRACE_LOG2_BUCKETS];
};

#endif
