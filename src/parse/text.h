/* Pieces of every parser of /proc and /sys text (text.c): character
 * classes, trimming, and the "key : value" lines of /proc/cpuinfo and
 * /proc/meminfo. Private to src/parse/. */
#ifndef VN_PARSE_TEXT_H
#define VN_PARSE_TEXT_H

#include <stddef.h>

/* The kernel's text is ASCII; these avoid the locale-dependent <ctype.h>
 * classes and the undefined behaviour of passing them a negative char. */
static inline int vn__is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
static inline int vn__is_digit(char c) { return c >= '0' && c <= '9'; }
static inline int vn__is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

static inline const char *vn__skip_space(const char *p)
{
    while (vn__is_space(*p))
        p++;
    return p;
}

/* Copies [b, e) without surrounding white space into out (room for n),
 * truncating; the length copied. */
size_t vn__copy_trimmed(const char *b, const char *e, char *out, size_t n);

/* One "key : value" line of /proc/cpuinfo or /proc/meminfo. */
typedef struct vn__kv_line {
    const char *key, *key_end;     /* trimmed */
    const char *val, *val_end;     /* trimmed */
} vn__kv_line;

/* Advances *p over one line and splits it at the first ':'. Returns 0 at
 * the end of the text; a line without ':' has an empty key and value. */
int vn__next_kv(const char **p, vn__kv_line *kv);

/* Whether the line's key is name. */
int vn__key_is(const vn__kv_line *kv, const char *name);

#endif
