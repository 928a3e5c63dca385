/* The BPF side of `vernier trace`: the time of every call of one kernel
 * function, from its entry to its return, sent to user space through a
 * ring buffer. Built with clang -target bpf and embedded in the tool.
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
struct vn_trace_lost lost = {0, 0};

/* The entry time of the call in flight on each thread. */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 16384);
    __type(key, __u64);
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

static __always_inline int on_entry(void)
{
    __u64 id = bpf_get_current_pid_tgid();
    if (!kept(id))
        return 0;
    __u64 now = bpf_ktime_get_ns();
    if (bpf_map_update_elem(&starts, &id, &now, BPF_ANY))
        __sync_fetch_and_add(&lost.starts, 1);
    return 0;
}

static __always_inline int on_return(void)
{
    __u64 now = bpf_ktime_get_ns();
    __u64 id = bpf_get_current_pid_tgid();
    __u64 *t0 = bpf_map_lookup_elem(&starts, &id);
    /* No start: the call began before the probes were attached, or was
     * filtered out at entry (the CPU filter: it migrated). */
    if (!t0)
        return 0;
    __u64 ns = now - *t0;
    bpf_map_delete_elem(&starts, &id);
    struct vn_trace_event *e = bpf_ringbuf_reserve(&events, sizeof *e, 0);
    if (!e) {
        __sync_fetch_and_add(&lost.events, 1);
        return 0;
    }
    e->ns = ns;
    e->pid = (__u32)(id >> 32);
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
