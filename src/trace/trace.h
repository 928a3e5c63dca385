/* `vernier trace`: the time of every call of one kernel function, taken by
 * a BPF program on the function's entry and return (fentry/fexit where the
 * kernel has BTF for it, kprobe/kretprobe otherwise), and what the tool
 * makes of the calls. Private to the tool (vernier_private), like
 * src/compare/: only the tool needs libbpf. */
#ifndef VN_TRACE_H
#define VN_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace_event.h"
#include "engine/results.h"
#include "vernier/bench.h"
#include "stats/stats_api.h"

/* ---- the function, and whether this process may trace it (trace_func.c) ---- */

/* The symbol type letter of name in kallsyms text read from f (one symbol
 * a line: "ADDRESS TYPE NAME [MODULE]"), or 0 when it is not there. */
int vn__kallsyms_type(FILE *f, const char *name);

/* The text functions of kallsyms text read from f whose names match the
 * shell pattern (fnmatch: * ? [...]), without compiler-made copies (names
 * with a '.'), each once, in the file's order: up to max of them in
 * names[0..*n) (strdup'd, the caller's to free). 0; VN_E2BIG_MATCHES when
 * more than max match (the first max are kept); VN_ENOMEM. */
#define VN_E2BIG_MATCHES 1
int vn__kallsyms_match(FILE *f, const char *pattern, char **names, size_t max, size_t *n);

/* 1 when the effective capabilities allow loading and attaching tracing
 * programs (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN), else 0. */
int vn__trace_capable(void);

/* ---- the probes (trace_bpf.c; without libbpf, every call fails) ---- */

typedef enum vn__trace_mode { VN__TRACE_FENTRY, VN__TRACE_KPROBE } vn__trace_mode;

typedef struct vn__trace_opts {
    const char *func;
    uint32_t pid;       /* the process whose calls are kept; 0: every process */
    int cpu;            /* the CPU whose calls are kept; -1: every CPU */
    int force_kprobe;   /* kprobes even where fentry would do */
    uint32_t ringbuf_bytes; /* a power of two from 4096; 0: VN_TRACE_RINGBUF_BYTES */
} vn__trace_opts;

/* Called for every call the probes saw, from vn__trace_poll. A non-zero
 * return stops the poll and is its return. */
typedef int (*vn__trace_sink)(const struct vn_trace_event *e, void *ctx);

typedef struct vn__tracer vn__tracer;

/* 1 when the tool was built with libbpf. */
int vn__trace_built(void);

/* Loads the probes for o->func, in the mode the kernel allows, without
 * attaching them. On failure returns a negative code and writes one line
 * to why that names the function and the kernel's or libbpf's reason. */
int vn__trace_open(const vn__trace_opts *o, vn__trace_sink sink, void *ctx, vn__tracer **out,
                   char *why, size_t whylen);
int vn__trace_attach(vn__tracer *t, char *why, size_t whylen);
/* Hands the calls recorded so far to the sink, waiting up to timeout_ms
 * for the first. Returns how many, or a negative code (the sink's, or
 * the ring buffer's error). */
int vn__trace_poll(vn__tracer *t, int timeout_ms);
vn__trace_mode vn__trace_mode_of(const vn__tracer *t);
/* Why kprobes are used where fentry/fexit were asked for first, or "". */
const char *vn__trace_fallback(const vn__tracer *t);
/* What the probes counted: entries, the calls timed (their exact total and
 * log2 histogram, whatever the ring buffer kept), and every call that went
 * untimed: returns whose record found the ring buffer full, entries whose
 * start found the map full, entries nested deeper than
 * VN_TRACE_MAX_DEPTH, returns without an entry (begun before the trace),
 * and calls the kernel did not run the program for (a probe already
 * running on that CPU). Entries not matched by a timed return or one of
 * these were still in flight when the trace ended, or their return was
 * missed (a kretprobe's maxactive instances all in use). */
typedef struct vn__trace_losses {
    uint64_t events, starts, kernel;
    uint64_t entries, timed, unmatched, deep, sum_ns;
    uint64_t log2[VN_TRACE_LOG2_BUCKETS];
} vn__trace_losses;
void vn__trace_losses_of(const vn__tracer *t, vn__trace_losses *out);
/* Detaches and unloads; NULL does nothing. */
void vn__trace_close(vn__tracer *t);

const char *vn__trace_mode_name(vn__trace_mode m);

#endif

/* ---- the calls, and the results the reporters show (trace_view.c) ---- */

/* The calls recorded: their durations, processes and CPUs, at most keep
 * of them (VN__TRACE_KEEP when 0): past that, a uniform sample of all the
 * calls seen (reservoir sampling, Vitter's algorithm R, from a fixed seed),
 * so a trace of any length keeps keep x 16 bytes here and the results made
 * of them. Each process's name once. The caller zeroes it (and may set
 * keep); vn__trace_calls_free frees. */
#define VN__TRACE_KEEP 250000u

typedef struct vn__trace_proc {
    uint32_t pid;
    char comm[16];
} vn__trace_proc;

typedef struct vn__trace_calls {
    double *ns;
    uint32_t *pid, *cpu;
    size_t n, cap, keep;
    uint64_t seen, rng;
    vn__trace_proc *procs;
    size_t nprocs, capprocs;
} vn__trace_calls;

int vn__trace_calls_add(vn__trace_calls *c, const struct vn_trace_event *e);
void vn__trace_calls_free(vn__trace_calls *c);

/* What the report says beside the calls. */
typedef struct vn__trace_info {
    const char *func;
    vn__trace_mode mode;
    const char *fallback;      /* why not fentry/fexit, or "" */
    double elapsed;            /* seconds the probes were attached */
    vn__trace_losses lost;
    double probe_ns;           /* the probes' cost per call; NAN unknown */
    char probe[160];           /* how it was measured, or why it could not be */
    int interrupted;
    int no_breakdown;          /* no lines per CPU and per process (several functions) */
} vn__trace_info;

/* The calls as results of one row, named after the function, whose
 * samples are the calls (one iteration each, in ns), with findings: how
 * the calls were taken, the probes' cost, losses, and the calls per CPU
 * and per process. On success *out owns its memory (vn_results_free);
 * VN_EINVAL without calls. The machine snapshot is left to the caller. */
int vn__trace_view(const vn__trace_calls *c, const vn__trace_info *info, vn_results *out);

/* The calls of one more function traced at the same time: its row and its
 * findings appended to into (made by vn__trace_view). 0, VN_EINVAL
 * without calls, VN_ENOMEM (into unchanged then). */
int vn__trace_view_add(vn_results *into, const vn__trace_calls *c, const vn__trace_info *info);

/* ---- the probes' own cost (trace_cost.c) ---- */

/* Times syscall(SYS_getppid) in this process without and with the probes
 * (in mode m) on the getppid system call's kernel function, and writes the
 * difference per call to *ns, with what it was measured on to desc. On
 * failure returns a negative code with the reason in desc. */
int vn__trace_probe_cost(vn__trace_mode m, double *ns, char *desc, size_t desclen);
