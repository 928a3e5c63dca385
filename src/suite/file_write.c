/* file.write: write() of a sweep of sizes to four targets, each its own
 * benchmark: /dev/null (the system call and nothing behind it), a pipe that
 * a thread drains (a copy into the pipe and a wake-up of its reader), a file
 * (a copy into the page cache), and the same file with fsync() after every
 * write (the way to the disk). The throughput column is the bytes written. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "suite/file.h"

enum { TO_NULL, TO_PIPE, TO_FILE, TO_FSYNC };

/* The file written to is emptied (untimed, by a sample's setup) once it has
 * grown past this, so the run uses bounded space while most samples append
 * to a file of some MiB, as a log does. */
#define FILE_CAP ((off_t)64 << 20)

/* How long a sample's teardown waits for the reader to catch up with the
 * writer before it calls the row failed. */
#define DRAIN_WAIT_S 10

static void *drain(void *arg)
{
    vn__file_state *f = arg;
    char chunk[65536];
    for (;;) {
        ssize_t k = read(f->pipe_r, chunk, sizeof chunk);
        if (k > 0)
            atomic_fetch_add(&f->got, (uint64_t)k);
        else if (!(k < 0 && errno == EINTR))
            return NULL; /* 0: the write end closed at the suite's end */
    }
}

/* The pipe, and its reader on the other CPU of --cpus. */
static int start_pipe(vn__file_state *f)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return -errno;
    f->pipe_r = p[0];
    f->fd = p[1];
    int rc = vn__suite_thread(&f->reader, f->ctx->cpu_b, drain, f);
    if (rc) {
        close(p[0]);
        close(p[1]);
        f->pipe_r = f->fd = -1;
        return -rc;
    }
    f->reader_up = 1;
    return 0;
}

/* The file in the temporary directory; for fsync, not on a file system in
 * memory, where fsync reaches no disk and the row would time nothing. */
static int open_file(vn__file_state *f, vn_state *st)
{
    const char *dir = vn__suite_tmpdir(f->ctx);
    char path[300], why[400];
    if (!dir) {
        vn__suite_tmpdir_why(why, sizeof why);
        vn_state_skip(st, why);
        return 0;
    }
    struct statfs fs;
    if (f->kind == TO_FSYNC && statfs(dir, &fs) == 0 &&
        (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC)) {
        snprintf(why, sizeof why, "%s is in memory (tmpfs): fsync reaches no disk; set TMPDIR to a disk's", dir);
        vn_state_skip(st, why);
        return 0;
    }
    snprintf(path, sizeof path, "%s/%s", dir, f->tag);
    f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    return f->fd < 0 ? -errno : 0;
}

static void write_setup(vn_state *st)
{
    vn__file_state *f = vn_state_user(st);
    if (vn__file_buffer(f, (size_t)vn_state_param(st)) != 0) {
        vn_state_fail(st, "out of memory");
        return;
    }
    int rc = 0;
    if (f->fd < 0) {
        switch (f->kind) {
        case TO_NULL:
            f->fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
            rc = f->fd < 0 ? -errno : 0;
            break;
        case TO_PIPE: rc = start_pipe(f); break;
        default: rc = open_file(f, st); break;
        }
        if (rc || f->fd < 0) {
            if (rc)
                vn__file_fail(st, f->kind == TO_PIPE ? "cannot make the pipe and its reader" : "open", rc);
            return;
        }
    }
    if ((f->kind == TO_FILE || f->kind == TO_FSYNC) && lseek(f->fd, 0, SEEK_CUR) >= FILE_CAP &&
        (ftruncate(f->fd, 0) != 0 || lseek(f->fd, 0, SEEK_SET) != 0))
        vn__file_fail(st, "emptying the file", -errno);
}

/* Every sample begins with an empty pipe, and the reader must have read
 * every byte written: a check of the count, and no sample pays for the
 * last one's backlog. */
static void pipe_teardown(vn_state *st)
{
    vn__file_state *f = vn_state_user(st);
    if (!f->reader_up)
        return;
    struct timespec t0, now, nap = {0, 20000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t got;
    while ((got = atomic_load(&f->got)) < f->sent) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - t0.tv_sec > DRAIN_WAIT_S)
            break;
        nanosleep(&nap, NULL);
    }
    if (got != f->sent) {
        char msg[160];
        snprintf(msg, sizeof msg, "the pipe's reader got %llu bytes of the %llu written",
                 (unsigned long long)got, (unsigned long long)f->sent);
        vn_state_fail(st, msg);
    }
}

static void write_body(vn_state *st)
{
    vn__file_state *f = vn_state_user(st);
    size_t n = (size_t)vn_state_param(st);
    int fd = f->fd, sync = f->kind == TO_FSYNC;
    vn_state_set_bytes(st, (double)n);
    while (vn_next(st)) {
        int rc = vn__file_write_all(fd, f->buf, n);
        if (rc) {
            vn__file_fail(st, "write", rc);
            return;
        }
        if (sync && fsync(fd) != 0) {
            vn__file_fail(st, "fsync", -errno);
            return;
        }
    }
    f->sent += n * vn_state_iterations(st);
}

static int add(vn_suite *s, vn__suite_ctx *ctx, const char *name, const char *tag, int kind)
{
    vn__file_bench b = {tag, kind, write_setup, kind == TO_PIPE ? pipe_teardown : NULL, write_body,
                        vn__file_sizes, vn__file_quick, vn__file_nsizes, vn__file_nquick};
    if (kind == TO_FSYNC) {
        /* Fewer sizes: each write waits for the disk. */
        static const int64_t def[] = {12, 815, 8240, 65536, 1 << 20}, quick[] = {8240};
        b.def = def;
        b.quick = quick;
        b.ndef = 5;
        b.nquick = 1;
    }
    return vn__file_add(s, ctx, name, &b);
}

int vn__suite_file_write_null(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add(s, ctx, name, "null", TO_NULL);
}

int vn__suite_file_write_pipe(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add(s, ctx, name, "pipe", TO_PIPE);
}

int vn__suite_file_write_file(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add(s, ctx, name, "write", TO_FILE);
}

int vn__suite_file_write_fsync(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add(s, ctx, name, "fsync", TO_FSYNC);
}
