/* What the file family's two files share (file.c: open, stat, read and the
 * finding; file_write.c: write() to each target): a benchmark's state, made
 * by its add function and filled lazily by the first sample that needs each
 * part, and the helpers that fill it. Private to src/suite/file*.c. */
#ifndef VN_SUITE_FILE_H
#define VN_SUITE_FILE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "suite/suite.h"

/* A file of a given size in the run's temporary directory. */
typedef struct vn__file_sized {
    int64_t size;
    int fd;                    /* open for reading, or -1 */
    char path[300];
} vn__file_sized;

typedef struct vn__file_state {
    vn__suite_ctx *ctx;
    const char *tag;           /* the benchmark's own part of its files' names */
    int kind;                  /* what file_write.c writes to (its enum) */
    char *buf;                 /* what is written, or read into; as long as the largest size */
    size_t cap;
    int fd;                    /* the target of the writes, -1 until the first sample */
    /* The pipe and the thread that drains it (file.write.pipe). */
    int pipe_r;
    pthread_t reader;
    int reader_up;
    _Atomic uint64_t got;      /* bytes the reader has read */
    uint64_t sent;             /* bytes the writer has written */
    vn__file_sized *files;     /* the files of each size, made as rows ask */
    size_t nfiles;
} vn__file_state;

/* The sweep of the write and read rows, and its --quick part. */
extern const int64_t vn__file_sizes[], vn__file_quick[];
extern const size_t vn__file_nsizes, vn__file_nquick;

/* A state for the benchmark, freed (with everything it holds) when the
 * suite ends. 0, or VN_ENOMEM. */
int vn__file_state_new(vn__suite_ctx *ctx, const char *tag, int kind, vn__file_state **out);

/* One of the family's benchmarks: its state's tag and kind, its hooks and
 * function, and its sweep (def NULL: one row, no parameter). */
typedef struct vn__file_bench {
    const char *tag;
    int kind;
    void (*setup)(vn_state *st);
    void (*teardown)(vn_state *st);
    vn_bench_fn fn;
    const int64_t *def, *quick;
    size_t ndef, nquick;
} vn__file_bench;

/* Adds b's rows under name, with a state of their own. 0, or a negative
 * VN_E* code. */
int vn__file_add(vn_suite *s, vn__suite_ctx *ctx, const char *name, const vn__file_bench *b);

/* Makes the buffer at least n bytes long. 0, or VN_ENOMEM. */
int vn__file_buffer(vn__file_state *f, size_t n);

/* Writes all n bytes of p to fd, through partial writes and signals. 0, or
 * -errno. */
int vn__file_write_all(int fd, const char *p, size_t n);

/* The file of size bytes named after f's tag, made (written from the buffer
 * and read once, so it is in the page cache) on first use; open for reading
 * when keep_open. NULL with vn_state_skip() or vn_state_fail() called when
 * it cannot be made. */
vn__file_sized *vn__file_of_size(vn__file_state *f, vn_state *st, int64_t size, int keep_open);

/* "what: strerror(-rc)" as the row's failure. */
void vn__file_fail(vn_state *st, const char *what, int rc);

#endif
