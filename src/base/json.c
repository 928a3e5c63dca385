/* Streaming JSON writer; see json.h. */
#include "json.h"
#include "format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vn__json_init(vn__json *j, vn_buf *b, int pretty)
{
    memset(j, 0, sizeof *j);
    j->b = b;
    j->pretty = pretty;
}

int vn__json_finish(vn__json *j)
{
    if (!j->err && j->depth != 0)
        j->err = VN_EINVAL;
    if (!j->err && j->pretty)
        j->err = vn_buf_puts(j->b, "\n");
    return j->err;
}

static void put(vn__json *j, const char *s, size_t n)
{
    if (!j->err)
        j->err = vn_buf_append(j->b, s, n);
}

static void puts_(vn__json *j, const char *s) { put(j, s, strlen(s)); }

static void indent(vn__json *j)
{
    if (!j->pretty)
        return;
    puts_(j, "\n");
    for (int i = 0; i < j->depth; i++)
        puts_(j, "  ");
}

static void string(vn__json *j, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    puts_(j, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[7];
        switch (*p) {
        case '"': puts_(j, "\\\""); break;
        case '\\': puts_(j, "\\\\"); break;
        case '\n': puts_(j, "\\n"); break;
        case '\r': puts_(j, "\\r"); break;
        case '\t': puts_(j, "\\t"); break;
        default:
            if (*p < 0x20) {
                memcpy(esc, "\\u00", 4);
                esc[4] = hex[*p >> 4];
                esc[5] = hex[*p & 15];
                esc[6] = 0;
                puts_(j, esc);
            } else {
                /* A byte that starts no UTF-8 sequence (a name made from
                 * Latin-1 text, say) would make the whole file unreadable
                 * to a JSON parser: it becomes U+FFFD, the replacement
                 * character, and a valid sequence is copied whole. */
                unsigned cp;
                int len = vn__utf8_decode((const char *)p, &cp);
                if (len == 0)
                    puts_(j, "\\ufffd");
                else
                    put(j, (const char *)p, (size_t)len), p += len - 1;
            }
        }
    }
    puts_(j, "\"");
}

/* Writes the separator, indentation and key that come before any value. */
static void member(vn__json *j, const char *key)
{
    if (j->err)
        return;
    if (j->depth > 0) {
        if (j->nfields[j->depth])
            puts_(j, ",");
        j->nfields[j->depth] = 1;
        indent(j);
    }
    if (key) {
        string(j, key);
        puts_(j, j->pretty ? ": " : ":");
    }
}

static void open_(vn__json *j, const char *key, const char *brace)
{
    member(j, key);
    if (j->err)
        return;
    if (j->depth + 1 >= VN__JSON_MAX_DEPTH) {
        j->err = VN_ERANGE;
        return;
    }
    puts_(j, brace);
    j->depth++;
    j->nfields[j->depth] = 0;
}

static void close_(vn__json *j, const char *brace)
{
    if (j->err)
        return;
    if (j->depth <= 0) {
        j->err = VN_EINVAL;
        return;
    }
    int had = j->nfields[j->depth];
    j->depth--;
    if (had)
        indent(j);
    puts_(j, brace);
}

void vn__json_obj_begin(vn__json *j, const char *key) { open_(j, key, "{"); }
void vn__json_obj_end(vn__json *j) { close_(j, "}"); }
void vn__json_arr_begin(vn__json *j, const char *key) { open_(j, key, "["); }
void vn__json_arr_end(vn__json *j) { close_(j, "]"); }

void vn__json_str(vn__json *j, const char *key, const char *s)
{
    member(j, key);
    if (s)
        string(j, s);
    else
        puts_(j, "null");
}

void vn__json_num(vn__json *j, const char *key, double v)
{
    member(j, key);
    if (!isfinite(v)) {
        puts_(j, "null");
        return;
    }
    /* Readable for ordinary values, exact for the rest, and with a dot
     * whatever the host program's locale. */
    char s[40];
    puts_(j, vn__fmt_exact(s, sizeof s, v));
}

void vn__json_int(vn__json *j, const char *key, long long v)
{
    char s[32];
    member(j, key);
    snprintf(s, sizeof s, "%lld", v);
    puts_(j, s);
}

void vn__json_uint(vn__json *j, const char *key, unsigned long long v)
{
    char s[32];
    member(j, key);
    snprintf(s, sizeof s, "%llu", v);
    puts_(j, s);
}

void vn__json_bool(vn__json *j, const char *key, int v)
{
    member(j, key);
    puts_(j, v < 0 ? "null" : v ? "true" : "false");
}

void vn__json_null(vn__json *j, const char *key)
{
    member(j, key);
    puts_(j, "null");
}
