/* The probes of `vernier trace` through libbpf: the embedded BPF object
 * (trace.bpf.c, built by clang at build time) opened from memory, its
 * filters set, the pair of programs for the mode chosen loaded, attached
 * and read. libbpf's own messages are kept, not printed, so that every
 * failure reaches the user as one line naming the function and the
 * reason. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"

const char *vn__trace_mode_name(vn__trace_mode m)
{
    return m == VN__TRACE_FENTRY ? "fentry/fexit" : "kprobe/kretprobe";
}

#ifndef VN_HAVE_LIBBPF

int vn__trace_built(void)
{
    return 0;
}

int vn__trace_open(const vn__trace_opts *o, vn__trace_sink sink, void *ctx, vn__tracer **out,
                   char *why, size_t whylen)
{
    (void)o, (void)sink, (void)ctx;
    *out = NULL;
    snprintf(why, whylen, "built without libbpf; install libbpf-dev and clang, and rebuild");
    return VN_ENOTSUP;
}

int vn__trace_attach(vn__tracer *t, char *why, size_t whylen)
{
    (void)t;
    snprintf(why, whylen, "built without libbpf");
    return VN_ENOTSUP;
}

int vn__trace_poll(vn__tracer *t, int timeout_ms)
{
    (void)t, (void)timeout_ms;
    return VN_ENOTSUP;
}

vn__trace_mode vn__trace_mode_of(const vn__tracer *t)
{
    (void)t;
    return VN__TRACE_FENTRY;
}

const char *vn__trace_fallback(const vn__tracer *t)
{
    (void)t;
    return "";
}

void vn__trace_losses_of(const vn__tracer *t, vn__trace_losses *out)
{
    (void)t;
    memset(out, 0, sizeof *out);
}

void vn__trace_close(vn__tracer *t)
{
    (void)t;
}

#else

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/btf.h>

/* The object, embedded by the build (cmake/embed.cmake). */
extern const unsigned char vn__trace_bpf_obj[];
extern const size_t vn__trace_bpf_obj_len;

struct vn__tracer {
    struct bpf_object *obj;
    struct bpf_program *entry, *ret;
    struct bpf_link *links[2];
    struct ring_buffer *rb;
    vn__trace_mode mode;
    char fallback[256];
    const char *func;
    vn__trace_sink sink;
    void *ctx;
};

/* libbpf's first warning since the last step began, to add to a
 * failure's line (the first is the cause; the later ones its
 * consequences); nothing is printed. */
static char last_libbpf[256];

static int keep_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
    if (level == LIBBPF_DEBUG)
        return 0;
    char line[256];
    vsnprintf(line, sizeof line, fmt, ap);
    size_t n = strlen(line);
    while (n && line[n - 1] == '\n')
        line[--n] = '\0';
    /* "libbpf: " and the program's name say nothing the line will not. */
    const char *s = strncmp(line, "libbpf: ", 8) ? line : line + 8;
    if (!last_libbpf[0] && s[strspn(s, " \t")])
        memcpy(last_libbpf, s, strlen(s) + 1);
    return 0;
}

int vn__trace_built(void)
{
    return 1;
}

/* Whether vmlinux's BTF describes func as a function: then fentry/fexit
 * can attach to it. */
static int in_btf(const char *func)
{
    /* Parsed once a process: the probe-cost measurement and the trace ask
     * for the same kernel's BTF, some megabytes. */
    static struct btf *btf;
    if (!btf)
        btf = btf__load_vmlinux_btf();
    return btf && btf__find_by_name_kind(btf, func, BTF_KIND_FUNC) > 0;
}

/* Whether the kernel can place kprobes at all: built with CONFIG_KPROBES
 * (register_kprobe is one of its symbols). */
static int have_kprobes(void)
{
    FILE *f = fopen("/proc/kallsyms", "r");
    if (!f)
        return 0;
    int t = vn__kallsyms_type(f, "register_kprobe");
    fclose(f);
    return t != 0;
}

/* Whether ftrace can attach to func: 1 when it is in
 * available_filter_functions, 0 when the list is readable and it is not
 * there (marked notrace, or inlined), -1 when the list cannot be read. */
static int ftraceable(const char *func)
{
    static const char *const lists[] = {"/sys/kernel/tracing/available_filter_functions",
                                        "/sys/kernel/debug/tracing/available_filter_functions"};
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
        FILE *f = fopen(lists[i], "r");
        if (!f)
            continue;
        char line[256];
        size_t k = strlen(func);
        int found = 0;
        while (!found && fgets(line, sizeof line, f))
            found = !strncmp(line, func, k) && (line[k] == '\n' || line[k] == ' ' || !line[k]);
        fclose(f);
        return found;
    }
    return -1;
}

/* The kernel's reason in words a user can act on; for an error without
 * such words, libbpf's first warning says more. */
static const char *reason(int err, const char *func, char *buf, size_t n)
{
    err = err < 0 ? -err : err;
    if ((err == EBUSY || err == EINVAL || err == ENOENT) && ftraceable(func) == 0)
        return "it is not in available_filter_functions (marked notrace, or inlined), so no "
               "fentry, fexit or ftrace probe can attach to it";
    switch (err) {
    case EPERM:
    case EACCES:
        return "not permitted: lockdown or a security policy forbids it";
    case ENOENT:
    case ESRCH:
        return "no such traceable function (inlined, notrace, or not in this kernel)";
    case EBUSY:
        return "the function has another probe of this kind";
    default:
        snprintf(buf, n, "%s%s%.160s%s", strerror(err), last_libbpf[0] ? " (libbpf: " : "",
                 last_libbpf, last_libbpf[0] ? ")" : "");
        return buf;
    }
}

static void close_obj(vn__tracer *t)
{
    for (int i = 0; i < 2; i++) {
        bpf_link__destroy(t->links[i]);
        t->links[i] = NULL;
    }
    ring_buffer__free(t->rb);
    t->rb = NULL;
    bpf_object__close(t->obj);
    t->obj = NULL;
}

static int on_sample(void *ctx, void *data, size_t size)
{
    vn__tracer *t = ctx;
    if (size < sizeof(struct vn_trace_event))
        return 0;
    return t->sink(data, t->ctx);
}

/* Opens the object and loads the pair of programs for mode m. */
static int load(vn__tracer *t, const vn__trace_opts *o, vn__trace_mode m, char *why, size_t n)
{
    LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "vernier_trace");
    last_libbpf[0] = '\0';
    t->mode = m;
    t->obj = bpf_object__open_mem(vn__trace_bpf_obj, vn__trace_bpf_obj_len, &oo);
    if (!t->obj) {
        int e = -errno;
        snprintf(why, n, "cannot open the BPF object: %s", strerror(-e));
        return e ? e : VN_EIO;
    }
    const char *names[2][2] = {{"vn_fentry", "vn_fexit"}, {"vn_kprobe", "vn_kretprobe"}};
    struct bpf_program *p;
    bpf_object__for_each_program(p, t->obj) {
        const char *name = bpf_program__name(p);
        int mine = !strcmp(name, names[m][0]) || !strcmp(name, names[m][1]);
        bpf_program__set_autoload(p, mine);
        if (mine && m == VN__TRACE_FENTRY)
            bpf_program__set_attach_target(p, 0, o->func);
        if (mine)
            *(!strcmp(name, names[m][0]) ? &t->entry : &t->ret) = p;
    }
    /* The filters live in .rodata, fixed before the load, so the verifier
     * sees them as constants. They are its only variable, at its start. */
    struct bpf_map *ro = bpf_object__find_map_by_name(t->obj, ".rodata");
    size_t sz = 0;
    const void *cur = ro ? bpf_map__initial_value(ro, &sz) : NULL;
    struct vn_trace_filter f = {o->pid, o->cpu};
    unsigned char *data = cur && sz >= sizeof f ? malloc(sz) : NULL;
    if (!data) {
        snprintf(why, n, "the BPF object has no filters (.rodata); the build is broken");
        return VN_EIO;
    }
    memcpy(data, cur, sz);
    memcpy(data, &f, sizeof f);
    int set = bpf_map__set_initial_value(ro, data, sz);
    free(data);
    if (set) {
        snprintf(why, n, "cannot set the filters: %s", strerror(-set));
        return set;
    }
    if (o->ringbuf_bytes) {
        struct bpf_map *rb = bpf_object__find_map_by_name(t->obj, "events");
        if (!rb || bpf_map__set_max_entries(rb, o->ringbuf_bytes)) {
            snprintf(why, n, "cannot size the ring buffer");
            return VN_EIO;
        }
    }
    int err = bpf_object__load(t->obj);
    if (err) {
        char more[320];
        snprintf(why, n, "the kernel refused %s on '%s': %s", vn__trace_mode_name(m), o->func,
                 reason(err, o->func, more, sizeof more));
        return err;
    }
    t->rb = ring_buffer__new(bpf_map__fd(bpf_object__find_map_by_name(t->obj, "events")),
                             on_sample, t, NULL);
    if (!t->rb) {
        err = -errno;
        snprintf(why, n, "cannot read the ring buffer: %s", strerror(-err));
        return err ? err : VN_EIO;
    }
    return 0;
}

int vn__trace_open(const vn__trace_opts *o, vn__trace_sink sink, void *ctx, vn__tracer **out,
                   char *why, size_t whylen)
{
    *out = NULL;
    libbpf_set_print(keep_libbpf);
    vn__tracer *t = calloc(1, sizeof *t);
    if (!t)
        return VN_ENOMEM;
    t->func = o->func;
    t->sink = sink;
    t->ctx = ctx;
    int kp = have_kprobes();
    int err;
    char first[256] = "";
    if (!o->force_kprobe && in_btf(o->func)) {
        err = load(t, o, VN__TRACE_FENTRY, first, sizeof first);
        if (!err) {
            *out = t;
            return 0;
        }
        close_obj(t);
        if (!kp) {
            snprintf(why, whylen, "%s; and it has no kprobes (CONFIG_KPROBES)", first);
            free(t);
            return err;
        }
    } else if (!kp) {
        snprintf(why, whylen, "cannot trace '%s': %s, and this kernel has no kprobes "
                 "(CONFIG_KPROBES)", o->func, o->force_kprobe ? "kprobes asked for" :
                 "not a function in the kernel's BTF (/sys/kernel/btf/vmlinux)");
        free(t);
        return VN_ENOTSUP;
    }
    if (first[0])
        snprintf(t->fallback, sizeof t->fallback, "%s", first);
    else if (!o->force_kprobe)
        snprintf(t->fallback, sizeof t->fallback, "'%s' is not a function in the kernel's BTF",
                 o->func);
    err = load(t, o, VN__TRACE_KPROBE, why, whylen);
    if (err) {
        if (first[0]) {
            char second[256];
            snprintf(second, sizeof second, "%s", why);
            snprintf(why, whylen, "%s; %s", first, second);
        }
        close_obj(t);
        free(t);
        return err;
    }
    *out = t;
    return 0;
}

int vn__trace_attach(vn__tracer *t, char *why, size_t whylen)
{
    last_libbpf[0] = '\0';
    /* The return probe first: a call that was in flight when the entry
     * probe came is then a return without an entry (counted as such), not
     * an entry without a return, which would stay on its thread's stack. */
    struct bpf_program *p[2] = {t->entry, t->ret};
    for (int i = 1; i >= 0; i--) {
        if (t->mode == VN__TRACE_FENTRY)
            t->links[i] = bpf_program__attach(p[i]);
        else
            t->links[i] = bpf_program__attach_kprobe(p[i], i == 1, t->func);
        if (!t->links[i]) {
            int err = -errno;
            char more[320];
            snprintf(why, whylen, "cannot attach %s to '%s': %s", vn__trace_mode_name(t->mode),
                     t->func, reason(err, t->func, more, sizeof more));
            return err ? err : VN_EIO;
        }
    }
    return 0;
}

int vn__trace_poll(vn__tracer *t, int timeout_ms)
{
    int n = ring_buffer__poll(t->rb, timeout_ms);
    return n == -EINTR ? 0 : n;
}

vn__trace_mode vn__trace_mode_of(const vn__tracer *t)
{
    return t->mode;
}

const char *vn__trace_fallback(const vn__tracer *t)
{
    return t->fallback;
}

void vn__trace_losses_of(const vn__tracer *t, vn__trace_losses *out)
{
    memset(out, 0, sizeof *out);
    /* The counts are the .bss map's one value, read through its fd: the
     * kernel's copy, whether or not libbpf could map it into memory. */
    struct bpf_map *bss = bpf_object__find_map_by_name(t->obj, ".bss");
    struct vn_trace_lost l;
    int key = 0;
    if (bss && bpf_map__value_size(bss) == sizeof l &&
        bpf_map_lookup_elem(bpf_map__fd(bss), &key, &l) == 0) {
        out->events = l.events;
        out->starts = l.starts;
        out->entries = l.entries;
        out->timed = l.timed;
        out->unmatched = l.unmatched;
        out->deep = l.deep;
        out->sum_ns = l.sum_ns;
        for (int i = 0; i < VN_TRACE_LOG2_BUCKETS; i++)
            out->log2[i] = l.log2[i];
    }
    /* The kernel skips a program rather than run it inside itself on one
     * CPU (a probe hit from within a probe); it counts each skip. */
    struct bpf_program *p[2] = {t->entry, t->ret};
    for (int i = 0; i < 2; i++) {
        struct bpf_prog_info info;
        uint32_t len = sizeof info;
        memset(&info, 0, sizeof info);
        if (p[i] && !bpf_obj_get_info_by_fd(bpf_program__fd(p[i]), &info, &len))
            out->kernel += info.recursion_misses;
    }
}

void vn__trace_close(vn__tracer *t)
{
    if (!t)
        return;
    close_obj(t);
    free(t);
}

#endif
