/* The record the BPF program (trace.bpf.c) sends for each call, shared with
 * the user-space reader; both sides are built from this one layout. */
#ifndef VN_TRACE_EVENT_H
#define VN_TRACE_EVENT_H

#include <linux/types.h>

/* 16 MiB: some 400000 records of 40 bytes (with the ring buffer's header)
 * before a reader that falls behind loses any. */
#define VN_TRACE_RINGBUF_BYTES (16u << 20)

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

/* What could not be recorded, in .bss, read by user space through the
 * map's memory. */
struct vn_trace_lost {
    __u64 events;      /* returns whose record found the ring buffer full */
    __u64 starts;      /* entries whose start time found the map full */
};

#endif
