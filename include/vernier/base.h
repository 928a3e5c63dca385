/* Version, error codes and the growable byte buffer every reporter writes into. */
#ifndef VERNIER_BASE_H
#define VERNIER_BASE_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VN_VERSION_MAJOR 0
#define VN_VERSION_MINOR 8
#define VN_VERSION_PATCH 0
#define VN_VERSION_STRING "0.8.0"

const char *vn_version(void);

/* Errors are negative errno values, so a failing system call maps onto them
 * without a translation table; 0 is success. */
#define VN_EINVAL  (-EINVAL)   /* a bad argument */
#define VN_ENOMEM  (-ENOMEM)   /* out of memory, or a buffer reached its maximum */
#define VN_ENOTSUP (-ENOTSUP)  /* this machine or build cannot do it */
#define VN_ENOENT  (-ENOENT)   /* no such name, file or clock */
#define VN_EIO     (-EIO)      /* reading or writing failed */
#define VN_ERANGE  (-ERANGE)   /* a value does not fit */
#define VN_EEXIST  (-EEXIST)   /* the name is taken already */
#define VN_EABI    (-EPROTO)   /* a struct from another version of vernier.h: rebuild */

/* A message for a VN_E* code (or any negative errno). Never NULL. */
const char *vn_strerror(int err);

#if defined(__GNUC__)
#define VN_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define VN_PRINTF(a, b)
#endif

/* A growable byte buffer with a maximum size, so a runaway writer fails with
 * VN_ENOMEM instead of eating the machine. The contents are always
 * NUL-terminated when len > 0. Caller-owned: vn_buf_init / vn_buf_free. */
typedef struct vn_buf {
    char  *data;
    size_t len;
    size_t cap;
    size_t max;
} vn_buf;

#define VN_BUF_DEFAULT_MAX ((size_t)256 << 20)
/* For results files, which hold every sample or run: memory is the limit. */
#define VN_RESULTS_BUF_MAX ((size_t)-1 / 4)

void vn_buf_init(vn_buf *b, size_t max);   /* max 0 means VN_BUF_DEFAULT_MAX */
void vn_buf_free(vn_buf *b);
void vn_buf_reset(vn_buf *b);              /* len = 0, memory kept */
int  vn_buf_append(vn_buf *b, const void *data, size_t len);
int  vn_buf_puts(vn_buf *b, const char *s);
int  vn_buf_printf(vn_buf *b, const char *fmt, ...) VN_PRINTF(2, 3);
int  vn_buf_vprintf(vn_buf *b, const char *fmt, va_list ap);

/* Writes len bytes to path atomically: a temporary file in the same directory
 * is written, flushed and renamed over path, so readers see either the old
 * file or the complete new one. On failure nothing is left behind. path "-"
 * writes to standard output. */
int vn_write_file_atomic(const char *path, const void *data, size_t len);


#ifdef __cplusplus
}
#endif
#endif
