/* ipc: a message's round trip to an echo peer over a pipe pair, a Unix
 * socketpair, TCP and UDP over loopback, by size (lmbench's lat_pipe,
 * lat_unix, lat_tcp and lat_udp), and one direction streamed into a sink
 * (bw_pipe, bw_unix, bw_tcp). Every message is filled with a pattern of
 * its own and every byte of every echo compared, outside the timed
 * region: each body times itself (manual_time), the round trip alone. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/format.h"
#include "suite/ipc_transport.h"
#include "suite/suite.h"

/* One transport's rows and what they share: the channel, opened by the
 * first sample that needs it and closed at the end of the run. */
typedef struct ipc_bench {
    vn__ipc_kind kind;
    char name[32];          /* the rows' prefix: "ipc.tcp", "ipc.tcp.nagle" */
    size_t max;             /* the largest message of the run */
    int cpu, split, corrupt;
    int state;              /* 0 not opened yet, 1 open, -1 cannot be (why), -2 failed (why) */
    char why[192];
    char broken[320];       /* a transfer broke the channel; later rows fail */
    uint64_t seed;
    unsigned char *out, *in;
    vn__ipc t;
} ipc_bench;

/* What the machine cannot do, as against what went wrong. */
static int skippable(int rc)
{
    return rc == -EACCES || rc == -EPERM || rc == -EAFNOSUPPORT || rc == -EPROTONOSUPPORT ||
           rc == -EADDRNOTAVAIL || rc == -ENETUNREACH || rc == -ENETDOWN || rc == -ECONNREFUSED ||
           rc == -EINVAL || rc == -ENOSYS;
}

/* Before every sample: the channel (once), and whether this row can run. */
static void ipc_setup(vn_state *st)
{
    ipc_bench *b = vn_state_user(st);
    int64_t n = vn_state_param(st);
    if (b->kind == VN__IPC_UDP && n > VN__IPC_UDP_MAX) {
        vn_state_skip(st, "UDP over IPv4: at most 65507 bytes a datagram; not fragmented here");
        return;
    }
    if (b->state == 0) {
        int rc = VN_ENOMEM;
        b->out = malloc(b->max);
        b->in = malloc(b->max);
        if (!b->out || !b->in)
            snprintf(b->why, sizeof b->why, "out of memory for messages of %zu bytes", b->max);
        else
            rc = vn__ipc_open(&b->t, b->kind, b->max, b->cpu, b->split, b->corrupt, b->why, sizeof b->why);
        b->state = !rc ? 1 : skippable(rc) ? -1 : -2;
    }
    if (b->state == -1)
        vn_state_skip(st, b->why);
    else if (b->state == -2)
        vn_state_fail(st, b->why);
    else if (b->broken[0])
        vn_state_fail(st, b->broken);
}

/* A transfer that went wrong: the row fails, and so does every later row
 * of this channel, since the peer is out of step with it. */
static void broke(vn_state *st, ipc_bench *b, size_t n, const char *what, long rc)
{
    char m[192];
    if (rc == -EPIPE && b->t.peer_error[0])
        snprintf(m, sizeof m, "%s", b->t.peer_error);
    else if (rc == -EAGAIN && b->kind == VN__IPC_UDP)
        snprintf(m, sizeof m, "no reply in 5 s (a datagram lost?)");
    else if (rc < 0)
        snprintf(m, sizeof m, "%s: %s", what, strerror((int)-rc));
    else
        snprintf(m, sizeof m, "%s: %ld of %zu bytes, then the end", what, rc, n);
    snprintf(b->broken, sizeof b->broken, "%s size %zu: %s", b->name, n, m);
    vn_state_fail(st, b->broken);
}

/* Round trips: each message filled, sent, echoed and read back whole, the
 * send and the read timed; the compare after, untimed. A corrupted echo
 * fails the row once the sample's round trips are done, so the peer's
 * job ends where the benchmark's does. */
static void rt_body(vn_state *st)
{
    ipc_bench *b = vn_state_user(st);
    size_t n = (size_t)vn_state_param(st);
    vn__ipc_job job = {VN__IPC_ECHO, n, vn_state_iterations(st), 0};
    int rc = vn__ipc_start(&b->t, &job);
    if (rc) {
        broke(st, b, n, "peer", rc);
        return;
    }
    double ns = 0;
    char bad[256] = "";
    while (vn_next(st)) {
        vn__ipc_fill(b->out, n, ++b->seed);
        double t0 = vn__suite_now_ns();
        long got = vn__ipc_send(&b->t, b->out, n);
        const char *what = "write";
        if (got == 0) {
            got = vn__ipc_recv(&b->t, b->in, n);
            what = "read";
        }
        ns += vn__suite_now_ns() - t0;
        char m[96];
        if (got != (long)n) {
            broke(st, b, n, what, got);
        } else if (!bad[0] && vn__ipc_check(b->in, b->out, n, m, sizeof m))
            snprintf(bad, sizeof bad, "%s size %zu: %s", b->name, n, m);
    }
    if (bad[0])
        vn_state_fail(st, bad);
    else
        vn_state_set_time(st, ns);
}

/* One direction: the sample's messages streamed into the sink, from the
 * first write until the sink's one-byte reply says it has read (and
 * checked) them all. */
static void bw_body(vn_state *st)
{
    ipc_bench *b = vn_state_user(st);
    size_t n = (size_t)vn_state_param(st);
    vn_state_set_bytes(st, (double)n);
    vn__ipc_job job = {VN__IPC_SINK, n, vn_state_iterations(st), ++b->seed};
    vn__ipc_fill(b->out, n, job.seed);
    int rc = vn__ipc_start(&b->t, &job);
    if (rc) {
        broke(st, b, n, "peer", rc);
        return;
    }
    uint64_t i = 0;
    double t0 = vn__suite_now_ns();
    while (vn_next(st)) {
        vn__ipc_stamp(b->out, n, i++);
        if ((rc = vn__ipc_send(&b->t, b->out, n)))
            broke(st, b, n, "write", rc);
    }
    if (rc)
        return;
    unsigned char ack = 1;
    long got = vn__ipc_recv(&b->t, &ack, 1);
    double ns = vn__suite_now_ns() - t0;
    if (got != 1)
        broke(st, b, n, "read", got);
    else if (ack) {
        char m[256];
        snprintf(m, sizeof m, "%s.bw size %zu: %s", b->name, n, b->t.peer_error);
        vn_state_fail(st, m);
    } else
        vn_state_set_time(st, ns);
}

static void ipc_free(void *arg)
{
    ipc_bench *b = arg;
    if (b->state > 0)
        vn__ipc_close(&b->t);
    free(b->out);
    free(b->in);
    free(b);
}

/* "4 B", "64 KiB", "1 MiB". */
static char *fmt_size(char *s, size_t len, double n)
{
    if (n >= 1048576 && fmod(n, 1048576) == 0)
        snprintf(s, len, "%.0f MiB", n / 1048576);
    else if (n >= 1024 && fmod(n, 1024) == 0)
        snprintf(s, len, "%.0f KiB", n / 1024);
    else
        snprintf(s, len, "%.0f B", n);
    return s;
}

/* Appends to s (of n bytes, *len used so far), never past its end. */
static void cat(char *s, size_t n, size_t *len, const char *fmt, ...)
{
    if (*len >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(s + *len, n - *len, fmt, ap);
    va_end(ap);
    *len = k < 0 ? n : *len + (size_t)k;
}

/* One way, per transport, said as what it is: half a measured round trip
 * (one clock cannot time a message that leaves on one thread and arrives
 * on another without the wake-up in between). */
static int oneway(vn_results *r, const char *prefix)
{
    double sz[64], med[64];
    size_t k = vn__suite_sweep(r, prefix, sz, med, 64);
    if (k == 0)
        return 0;
    char brief[128], why[2048], a[24], t[24];
    size_t lb = 0, lw = 0, pick[3] = {0, k / 2, k - 1}, npick = k < 3 ? k : 3;
    cat(brief, sizeof brief, &lb, "%s one way, half a round trip:", prefix);
    for (size_t i = 0; i < npick; i++)
        cat(brief, sizeof brief, &lb, "%s %s %s", i ? "," : "", fmt_size(a, sizeof a, sz[pick[i]]),
            vn__fmt_ns(t, sizeof t, med[pick[i]] / 2));
    cat(why, sizeof why, &lw,
        "Half the median round trip of each %s row: a message's trip one way, taken as half of "
        "a measured echo, not timed on its own:", prefix);
    for (size_t i = 0; i < k; i++)
        cat(why, sizeof why, &lw, " %s %s;", fmt_size(a, sizeof a, sz[i]), vn__fmt_ns(t, sizeof t, med[i] / 2));
    char id[48];
    snprintf(id, sizeof id, "%s.oneway", prefix);
    return vn_results_add_finding(r, id, brief, why);
}

/* The best streaming rate of each transport, and at which size. */
static int bandwidth(vn_results *r)
{
    static const char *const names[] = {"ipc.pipe", "ipc.unix", "ipc.tcp"};
    char brief[128], why[1024], a[24], rate[24];
    size_t lb = 0, lw = 0, found = 0;
    cat(brief, sizeof brief, &lb, "ipc streaming peak:");
    cat(why, sizeof why, &lw,
        "The highest rate of each transport's .bw rows, one direction streamed into a peer that "
        "reads each message whole. Small messages cost a write and a read each, so their rate is "
        "the system calls'; large ones, the copies through the kernel.");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char prefix[48];
        snprintf(prefix, sizeof prefix, "%s.bw", names[i]);
        double sz[64], med[64], best = 0, at = 0;
        size_t k = vn__suite_sweep(r, prefix, sz, med, 64);
        for (size_t j = 0; j < k; j++)
            if (med[j] > 0 && sz[j] / med[j] > best)
                best = sz[j] / med[j], at = sz[j];
        if (best <= 0)
            continue;
        vn__fmt_rate(rate, sizeof rate, best * 1e9, "B");
        fmt_size(a, sizeof a, at);
        cat(brief, sizeof brief, &lb, "%s %s %s (%s)", found ? "," : "", names[i] + 4, rate, a);
        cat(why, sizeof why, &lw, " %s: %s at %s messages.", names[i], rate, a);
        found++;
    }
    return found ? vn_results_add_finding(r, "ipc.bw", brief, why) : 0;
}

static int ipc_summary(vn_results *r, const vn__suite_ctx *ctx)
{
    (void)ctx;
    static const char *const names[] = {"ipc.pipe", "ipc.unix", "ipc.tcp", "ipc.tcp.nagle", "ipc.udp"};
    int rc = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && rc == 0; i++)
        rc = oneway(r, names[i]);
    return rc ? rc : bandwidth(r);
}

/* 4 B to 1 MiB, four times larger each step; streams in sixteen-fold steps
 * (their rate changes slowly with the size). */
static const int64_t rt_sizes[] = {4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576};
static const int64_t rt_quick[] = {4, 4096, 65536};
static const int64_t bw_sizes[] = {16, 256, 4096, 65536, 1048576};
static const int64_t bw_quick[] = {64, 65536};
#define N(a) (sizeof a / sizeof a[0])

static int64_t largest(const vn__suite_ctx *ctx, const int64_t *def, size_t ndef, const int64_t *q, size_t nq)
{
    const int64_t *v;
    size_t n;
    int64_t m = 1;
    vn__suite_sizes(ctx, def, ndef, q, nq, &v, &n);
    for (size_t i = 0; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

static int add_transport(vn_suite *s, vn__suite_ctx *ctx, const char *name, vn__ipc_kind kind)
{
    ipc_bench *b = calloc(1, sizeof *b);
    if (!b)
        return VN_ENOMEM;
    int rc = vn__suite_on_exit(ctx, ipc_free, b);
    if (rc)
        return rc;
    b->kind = kind;
    b->cpu = ctx->cpu_b;
    /* --nagle: Nagle's algorithm on, and each echoed message in two writes
     * (a header's 8 bytes, then the rest), the pattern it holds up. */
    b->split = kind == VN__IPC_TCP && ctx->nagle;
    /* A test hook, read once: the peer flips a byte of every message. */
    const char *c = getenv("VERNIER_TEST_CORRUPT");
    b->corrupt = c && !strcmp(c, "ipc");
    snprintf(b->name, sizeof b->name, "%s%s", name, b->split ? ".nagle" : "");
    int64_t m = largest(ctx, rt_sizes, N(rt_sizes), rt_quick, N(rt_quick));
    int64_t mb = largest(ctx, bw_sizes, N(bw_sizes), bw_quick, N(bw_quick));
    b->max = (size_t)(kind != VN__IPC_UDP && mb > m ? mb : m);
    if ((rc = vn__suite_summarize(ctx, ipc_summary)))
        return rc;
    vn_bench_opts o;
    vn_bench_opts_init(&o);
    o.setup = ipc_setup;
    o.user = b;
    o.manual_time = 1;
    rc = vn__suite_add_sized(s, ctx, b->name, rt_body, &o, rt_sizes, N(rt_sizes), rt_quick, N(rt_quick));
    /* No stream for UDP, and none under --nagle: a stream of small writes
     * then waits for the delayed ACK at the end of each sample, whose
     * length the batch decides, so its rate would be the batch's. */
    if (rc || kind == VN__IPC_UDP || b->split)
        return rc;
    char bw[48];
    snprintf(bw, sizeof bw, "%s.bw", b->name);
    return vn__suite_add_sized(s, ctx, bw, bw_body, &o, bw_sizes, N(bw_sizes), bw_quick, N(bw_quick));
}

int vn__suite_ipc_pipe(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add_transport(s, ctx, name, VN__IPC_PIPE);
}

int vn__suite_ipc_unix(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add_transport(s, ctx, name, VN__IPC_UNIX);
}

int vn__suite_ipc_tcp(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add_transport(s, ctx, name, VN__IPC_TCP);
}

int vn__suite_ipc_udp(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add_transport(s, ctx, name, VN__IPC_UDP);
}
