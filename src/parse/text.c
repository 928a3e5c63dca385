/* Pieces of every parser of /proc and /sys text (text.h). */
#include <string.h>

#include "text.h"

size_t vn__copy_trimmed(const char *b, const char *e, char *out, size_t n)
{
    while (b < e && vn__is_space(*b))
        b++;
    while (e > b && vn__is_space(e[-1]))
        e--;
    if (n == 0)
        return 0;
    size_t len = (size_t)(e - b);
    if (len > n - 1)
        len = n - 1;
    memcpy(out, b, len);
    out[len] = '\0';
    return len;
}

int vn__next_kv(const char **p, vn__kv_line *kv)
{
    const char *s = *p;
    if (!*s)
        return 0;
    const char *eol = strchr(s, '\n');
    if (!eol)
        eol = s + strlen(s);
    *p = *eol ? eol + 1 : eol;
    const char *colon = memchr(s, ':', (size_t)(eol - s));
    if (!colon) {
        kv->key = kv->key_end = kv->val = kv->val_end = s;
        return 1;
    }
    kv->key = s;
    kv->key_end = colon;
    while (kv->key < kv->key_end && vn__is_space(*kv->key))
        kv->key++;
    while (kv->key_end > kv->key && vn__is_space(kv->key_end[-1]))
        kv->key_end--;
    kv->val = colon + 1;
    kv->val_end = eol;
    while (kv->val < kv->val_end && vn__is_space(*kv->val))
        kv->val++;
    while (kv->val_end > kv->val && vn__is_space(kv->val_end[-1]))
        kv->val_end--;
    return 1;
}

int vn__key_is(const vn__kv_line *kv, const char *name)
{
    size_t n = strlen(name);
    return (size_t)(kv->key_end - kv->key) == n && memcmp(kv->key, name, n) == 0;
}
