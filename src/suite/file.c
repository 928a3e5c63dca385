/* file: what opening, stat'ing and reading a file cost, and the state the
 * family's benchmarks share (file.h). Writing, to each target, is in
 * file_write.c. Every file lives in the run's temporary directory, made on
 * first use and removed with the suite. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/format.h"
#include "suite/file.h"

/* ---- The state ----------------------------------------------------------- */

/* The sizes of the issue that asked for the family (12, 815 and 8240 B)
 * among powers of 4 up to 1 MiB; --quick keeps the three that span it. */
const int64_t vn__file_sizes[] = {12, 64, 256, 815, 1024, 4096, 8240, 16384, 65536, 262144, 1 << 20};
const size_t vn__file_nsizes = sizeof vn__file_sizes / sizeof vn__file_sizes[0];
const int64_t vn__file_quick[] = {12, 8240, 1 << 20};
const size_t vn__file_nquick = sizeof vn__file_quick / sizeof vn__file_quick[0];

static void state_free(void *arg)
{
    vn__file_state *f = arg;
    if (f->reader_up) {
        /* The reader sees the end of the pipe once its write end closes. */
        close(f->fd);
        f->fd = -1;
        pthread_join(f->reader, NULL);
    }
    if (f->pipe_r >= 0)
        close(f->pipe_r);
    if (f->fd >= 0)
        close(f->fd);
    for (size_t i = 0; i < f->nfiles; i++)
        if (f->files[i].fd >= 0)
            close(f->files[i].fd);
    free(f->files);
    free(f->buf);
    free(f);
}

int vn__file_state_new(vn__suite_ctx *ctx, const char *tag, int kind, vn__file_state **out)
{
    vn__file_state *f = calloc(1, sizeof *f);
    if (!f)
        return VN_ENOMEM;
    f->ctx = ctx;
    f->tag = tag;
    f->kind = kind;
    f->fd = f->pipe_r = -1;
    *out = f;
    return vn__suite_on_exit(ctx, state_free, f);
}

int vn__file_buffer(vn__file_state *f, size_t n)
{
    if (n <= f->cap)
        return 0;
    char *b = realloc(f->buf, n);
    if (!b)
        return VN_ENOMEM;
    /* Bytes that are not all alike, so nothing on the way can shortcut
     * them (a file system that compresses, say). */
    for (size_t i = f->cap; i < n; i++)
        b[i] = (char)(i * 131 + (i >> 9));
    f->buf = b;
    f->cap = n;
    return 0;
}

int vn__file_write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? -errno : -EIO;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

void vn__file_fail(vn_state *st, const char *what, int rc)
{
    char msg[256];
    snprintf(msg, sizeof msg, "%.160s: %.80s", what, strerror(-rc));
    vn_state_fail(st, msg);
}

/* Reads the whole file once, which both puts it in the page cache and
 * checks that it holds what was written. 0, or -errno (-EIO: other bytes). */
static int read_back(const vn__file_state *f, int fd, int64_t size, size_t piece)
{
    char chunk[65536];
    for (int64_t off = 0; off < size;) {
        size_t want = size - off < (int64_t)sizeof chunk ? (size_t)(size - off) : sizeof chunk;
        ssize_t k = pread(fd, chunk, want, off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? -errno : -EIO;
        /* The file is the buffer's first piece bytes over and over; a piece
         * is the whole file or 1 MiB, so no chunk straddles two. */
        if (memcmp(chunk, f->buf + off % (int64_t)piece, (size_t)k) != 0)
            return -EIO;
        off += k;
    }
    return 0;
}

/* Makes the file: written from the buffer in pieces of at most 1 MiB, so a
 * size of a GiB needs no GiB of memory. 0, or -errno. */
static int make_file(vn__file_state *f, vn__file_sized *s)
{
    size_t piece = s->size < (1 << 20) ? (size_t)s->size : (size_t)1 << 20;
    if (vn__file_buffer(f, piece ? piece : 1) != 0)
        return -ENOMEM;
    int fd = open(s->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    int rc = 0;
    for (int64_t left = s->size; left > 0 && rc == 0; left -= (int64_t)piece)
        rc = vn__file_write_all(fd, f->buf, left < (int64_t)piece ? (size_t)left : piece);
    if (rc == 0)
        rc = read_back(f, fd, s->size, piece);
    close(fd);
    return rc;
}

vn__file_sized *vn__file_of_size(vn__file_state *f, vn_state *st, int64_t size, int keep_open)
{
    for (size_t i = 0; i < f->nfiles; i++)
        if (f->files[i].size == size)
            return &f->files[i];
    const char *dir = vn__suite_tmpdir(f->ctx);
    if (!dir) {
        char why[320];
        vn__suite_tmpdir_why(why, sizeof why);
        vn_state_skip(st, why);
        return NULL;
    }
    vn__file_sized *v = realloc(f->files, (f->nfiles + 1) * sizeof *v);
    if (!v) {
        vn_state_fail(st, "out of memory");
        return NULL;
    }
    f->files = v;
    vn__file_sized *s = &v[f->nfiles];
    s->size = size;
    s->fd = -1;
    snprintf(s->path, sizeof s->path, "%s/%s-%lld", dir, f->tag, (long long)size);
    int rc = make_file(f, s);
    if (rc == 0 && keep_open && (s->fd = open(s->path, O_RDONLY | O_CLOEXEC)) < 0)
        rc = -errno;
    if (rc) {
        char what[340];
        snprintf(what, sizeof what, "cannot make %s", s->path);
        vn__file_fail(st, what, rc);
        return NULL;
    }
    f->nfiles++;
    return s;
}

/* ---- open + close, stat, read ---------------------------------------------- */

static void open_setup(vn_state *st)
{
    vn_state_set_data(st, vn__file_of_size(vn_state_user(st), st, vn_state_param(st), 0));
}

static void open_body(vn_state *st)
{
    const vn__file_sized *s = vn_state_data(st);
    while (vn_next(st)) {
        int fd = open(s->path, O_RDONLY);
        if (fd < 0) {
            vn__file_fail(st, "open", -errno);
            return;
        }
        close(fd);
    }
}

static void stat_setup(vn_state *st)
{
    vn_state_set_data(st, vn__file_of_size(vn_state_user(st), st, 815, 0));
}

static void stat_body(vn_state *st)
{
    const vn__file_sized *s = vn_state_data(st);
    struct stat sb;
    while (vn_next(st)) {
        if (stat(s->path, &sb) != 0) {
            vn__file_fail(st, "stat", -errno);
            return;
        }
        vn_keep(sb.st_size);
    }
}

static void read_setup(vn_state *st)
{
    vn__file_state *f = vn_state_user(st);
    int64_t n = vn_state_param(st);
    vn__file_sized *s = vn__file_of_size(f, st, n, 1);
    if (s && vn__file_buffer(f, (size_t)n) != 0)
        vn_state_fail(st, "out of memory");
    vn_state_set_data(st, s);
}

/* From offset 0 each time: the same cached pages, copied to the buffer. */
static void read_body(vn_state *st)
{
    const vn__file_sized *s = vn_state_data(st);
    vn__file_state *f = vn_state_user(st);
    size_t n = (size_t)s->size;
    vn_state_set_bytes(st, (double)n);
    while (vn_next(st)) {
        ssize_t k = pread(s->fd, f->buf, n, 0);
        if (k != (ssize_t)n) {
            if (k >= 0)
                vn_state_fail(st, "pread: a short read of a file that did not change");
            else
                vn__file_fail(st, "pread", -errno);
            return;
        }
        vn_clobber();
    }
}

/* ---- What the open rows tell together -------------------------------------- */

/* The smallest and largest size's open+close, their ratio with the interval
 * the two medians' intervals allow: is the cost independent of the size? */
static int open_summary(vn_results *r, const vn__suite_ctx *ctx)
{
    (void)ctx;
    const vn_result *lo = NULL, *hi = NULL;
    for (size_t i = 0; i < r->nbench; i++) {
        const vn_result *b = vn_results_at(r, i);
        if (!vn__suite_headline(b) || strncmp(b->name, "file.open/", 10) || !b->param_name[0])
            continue;
        if (!lo || b->param < lo->param)
            lo = b;
        if (!hi || b->param > hi->param)
            hi = b;
    }
    /* Two rows of one run: their estimates' own intervals (est_ci), not
     * the next run's. */
    if (!lo || lo == hi || !(lo->est_ci[0] > 0))
        return 0;
    double ratio = hi->stats.median / lo->stats.median;
    double rlo = hi->est_ci[0] / lo->est_ci[1];
    double rhi = hi->est_ci[1] / lo->est_ci[0];
    double within = fmax(rhi - 1, 1 - rlo) * 100;
    char a[16], b[16], ta[32], tb[32], brief[128], why[768];
    vn__suite_size_name(a, sizeof a, lo->param);
    vn__suite_size_name(b, sizeof b, hi->param);
    int same = rlo <= 1 && 1 <= rhi;
    if (same)
        snprintf(brief, sizeof brief, "file.open: open+close independent of size within %.0f%% (%s..%s B: %.2fx)",
                 ceil(within), a, b, ratio);
    else
        snprintf(brief, sizeof brief, "file.open: open+close of %s B takes %.2fx (%.2f..%.2f) that of %s B",
                 b, ratio, rlo, rhi, a);
    snprintf(why, sizeof why,
             "The median of open()+close() of a file of %s B is %s, of %s B %s; their ratio is %.3f, "
             "and the medians' 95%% intervals allow %.3f to %.3f, which %s 1. open() looks the name "
             "up and makes a file description; the size is a field of the inode and no data is read, "
             "so the size should not matter. The interval of the ratio is the quotient of the "
             "intervals' ends, so it is wider than a test of the ratio itself would give.",
             a, vn__fmt_ns(ta, sizeof ta, lo->stats.median), b, vn__fmt_ns(tb, sizeof tb, hi->stats.median),
             ratio, rlo, rhi, same ? "includes" : "excludes");
    return vn_results_add_finding(r, "file.open.size", brief, why);
}

/* ---- The benchmarks ---------------------------------------------------------- */

int vn__file_add(vn_suite *s, vn__suite_ctx *ctx, const char *name, const vn__file_bench *b)
{
    vn__file_state *f;
    int rc = vn__file_state_new(ctx, b->tag, b->kind, &f);
    if (rc)
        return rc;
    vn_bench_opts o;
    vn_bench_opts_init(&o);
    o.setup = b->setup;
    o.teardown = b->teardown;
    o.user = f;
    return b->def ? vn__suite_add_sized(s, ctx, name, b->fn, &o, b->def, b->ndef, b->quick, b->nquick)
                  : vn_suite_add(s, name, b->fn, &o);
}

int vn__suite_file_open(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    /* The write sizes of the issue (12, 815 and 8240 B) and two larger. */
    static const int64_t def[] = {12, 815, 8240, 65536, 1 << 20}, quick[] = {12, 1 << 20};
    static const vn__file_bench b = {"open", 0, open_setup, NULL, open_body, def, quick, 5, 2};
    int rc = vn__suite_summarize(ctx, open_summary);
    return rc ? rc : vn__file_add(s, ctx, name, &b);
}

int vn__suite_file_stat(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    static const vn__file_bench b = {"stat", 0, stat_setup, NULL, stat_body, NULL, NULL, 0, 0};
    return vn__file_add(s, ctx, name, &b);
}

int vn__suite_file_read(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    vn__file_bench b = {"read", 0, read_setup, NULL, read_body, vn__file_sizes, vn__file_quick,
                        vn__file_nsizes, vn__file_nquick};
    return vn__file_add(s, ctx, name, &b);
}
