/* The BPF side of `vernier trace`: the time of every call of one kernel
 * function, from its entry to its return, sent to user space through a
 * ring buffer and counted in an exact log2 histogram. Built with clang
 * -target bpf and embedded in the tool.
 *
 * Starts are kept per thread and depth, as a stack: a call of the function
 * inside a call of it on the same thread (recursion, or an interrupt that
 * calls it) pushes its own start, and each return pops the latest, so an
 * inner call never overwrites an outer one's start (bcc's funclatency does
 * the same in its nested mode).
 *
 * It reads no kernel structure, so it needs no vmlinux.h and no CO-RE
 * relocation: a program built on one kernel loads on another. The same two
 * bodies serve fentry/fexit (where the kernel has BTF) and kprobe/kretprobe,
 * and user space loads only the pair it attaches. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "trace_event.h"

char LICENSE[] SEC("license") = "GPL";

/* Filtering here, not in user space, keeps the ring buffer for the calls
 * asked for. */
const volatile struct vn_trace_filter filter = {0, -1};

/* Counted, never silently dropped. */
struct vn_trace_lost lost = {};

/* Each thread's depth: how many of its calls are in flight. */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 16384);
    __type(key, __u64);
    __type(value, __u32);
} depth SEC(".maps");

struct start_key {
    __u64 id;
    __u32 depth;
    __u32 pad;
};

/* The entry time of each call in flight, by thread and depth. */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 65536);
    __type(key, struct start_key);
    __type(value, __u64);
} starts SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_RINGBUF);
    __uint(max_entries, VN_TRACE_RINGBUF_BYTES);
} events SEC(".maps");

static __always_inline int kept(__u64 id)
{
    if (filter.tgid && (__u32)(id >> 32) != filter.tgid)
        return 0;
    if (filter.cpu >= 0 && bpf_get_smp_processor_id() != (__u32)filter.cpu)
        return 0;
    return 1;
}

/* The key of the calls of this thread. The idle tasks of every CPU share
 * pid 0, so theirs (calls from interrupts on an idle CPU) are keyed by the
 * CPU instead, or two CPUs' calls would share one stack. */
static __always_inline __u64 thread_key(__u64 id)
{
    return (__u32)id ? id : 0xffffffff00000000ull | bpf_get_smp_processor_id();
}

static __always_inline __u32 log2_of(__u64 v)
{
    __u32 r = 0;
    for (int i = 32; i >= 1; i /= 2)
        if (v >> i) {
            v >>= i;
            r += i;
        }
    return r;
}

static __always_inline int on_entry(void)
{
    __u64 id = bpf_get_current_pid_tgid();
    if (!kept(id))
        return 0;
    __u64 now = bpf_ktime_get_ns();
    __sync_fetch_and_add(&lost.entries, 1);
    id = thread_key(id);
    __u32 *dp = bpf_map_lookup_elem(&depth, &id);
    __u32 d = dp ? *dp : 0;
    if (d >= VN_TRACE_MAX_DEPTH) {
        __sync_fetch_and_add(&lost.deep, 1);
        return 0;
    }
    struct start_key k = {id, d, 0};
    if (bpf_map_update_elem(&starts, &k, &now, BPF_ANY)) {
        __sync_fetch_and_add(&lost.starts, 1);
        return 0;
    }
    __u32 d1 = d + 1;
    if (bpf_map_update_elem(&depth, &id, &d1, BPF_ANY)) {
        bpf_map_delete_elem(&starts, &k);
        __sync_fetch_and_add(&lost.starts, 1);
    }
    return 0;
}

static __always_inline int on_return(void)
{
    __u64 now = bpf_ktime_get_ns();
    __u64 pid_tgid = bpf_get_current_pid_tgid(), id = thread_key(pid_tgid);
    __u32 *dp = bpf_map_lookup_elem(&depth, &id);
    /* No start: the call began before the probes were attached, or was
     * filtered out at entry (the CPU filter: it migrated). */
    if (!dp || *dp == 0) {
        if (kept(pid_tgid))
            __sync_fetch_and_add(&lost.unmatched, 1);
        return 0;
    }
    __u32 d = *dp - 1;
    struct start_key k = {id, d, 0};
    __u64 *t0 = bpf_map_lookup_elem(&starts, &k);
    if (d == 0)
        bpf_map_delete_elem(&depth, &id);
    else
        bpf_map_update_elem(&depth, &id, &d, BPF_ANY);
    if (!t0) {
        __sync_fetch_and_add(&lost.unmatched, 1);
        return 0;
    }
    __u64 ns = now - *t0;
    bpf_map_delete_elem(&starts, &k);
    __sync_fetch_and_add(&lost.timed, 1);
    __sync_fetch_and_add(&lost.sum_ns, ns);
    __u32 b = log2_of(ns);
    if (b < VN_TRACE_LOG2_BUCKETS)
        __sync_fetch_and_add(&lost.log2[b], 1);
    struct vn_trace_event *e = bpf_ringbuf_reserve(&events, sizeof *e, 0);
    if (!e) {
        __sync_fetch_and_add(&lost.events, 1);
        return 0;
    }
    e->ns = ns;
    e->pid = (__u32)(pid_tgid >> 32);
    e->cpu = bpf_get_smp_processor_id();
    bpf_get_current_comm(e->comm, sizeof e->comm);
    bpf_ringbuf_submit(e, 0);
    return 0;
}

/* The attach target is set by user space (bpf_program__set_attach_target
 * for fentry/fexit, the kprobe's function name at attach). */
SEC("fentry")
int vn_fentry(void *ctx)
{
    return on_entry();
}

SEC("fexit")
int vn_fexit(void *ctx)
{
    return on_return();
}

SEC("kprobe")
int vn_kprobe(void *ctx)
{
    return on_entry();
}

SEC("kretprobe")
int vn_kretprobe(void *ctx)
{
    return on_return();
}
