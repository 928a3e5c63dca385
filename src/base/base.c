/* Version, error strings, the byte buffer and the size check of growing
 * structs: the bottom of the library, which calls nothing else of it (file
 * writes live in fileutil.c). */
#include "abi.h"
#include "vernier/base.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *vn_version(void) { return VN_VERSION_STRING; }

const char *vn_strerror(int err)
{
    if (err == 0)
        return "success";
    if (err == VN_ENOMEM)
        return "out of memory or over the buffer's maximum size";
    if (err == VN_EEXIST)
        return "the name is taken already";
    if (err == VN_EABI)
        return "a struct from another version of vernier.h (rebuild the program against this one)";
    if (err == VN_ENOTSUP)
        return "not supported on this machine or build";
    if (err > 0 || err < -4095)
        return "unknown error";
    /* strerror() of glibc returns a static string for known codes and is
     * thread-safe for them since 2.32; that is all we ask of it. */
    return strerror(-err);
}

void vn_buf_init(vn_buf *b, size_t max)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->max = max ? max : VN_BUF_DEFAULT_MAX;
}

void vn_buf_free(vn_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void vn_buf_reset(vn_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

/* Makes room for extra more bytes plus the terminating NUL. */
static int buf_reserve(vn_buf *b, size_t extra)
{
    if (extra > b->max || b->len + extra > b->max)
        return VN_ENOMEM;
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    if (b->max < SIZE_MAX && cap > b->max + 1)
        cap = b->max + 1;
    char *p = realloc(b->data, cap);
    if (!p)
        return VN_ENOMEM;
    b->data = p;
    b->cap = cap;
    return 0;
}

int vn_buf_append(vn_buf *b, const void *data, size_t len)
{
    int rc = buf_reserve(b, len);
    if (rc)
        return rc;
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return 0;
}

int vn_buf_puts(vn_buf *b, const char *s) { return vn_buf_append(b, s, strlen(s)); }

int vn_buf_vprintf(vn_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return VN_EINVAL;
    if ((size_t)n < sizeof small)
        return vn_buf_append(b, small, (size_t)n);
    int rc = buf_reserve(b, (size_t)n);
    if (rc)
        return rc;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return 0;
}

int vn_buf_printf(vn_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vn_buf_vprintf(b, fmt, ap);
    va_end(ap);
    return rc;
}

int vn__abi_copy(void *dst, size_t max, const void *src, size_t min)
{
    size_t size;
    if (!dst || !src)
        return VN_EINVAL;
    /* The size is the first member of every such struct. */
    memcpy(&size, src, sizeof size);
    if (size < min || size > max || size % _Alignof(size_t) != 0)
        return VN_EABI;
    memcpy(dst, src, size);
    memcpy(dst, &max, sizeof max);
    return 0;
}
