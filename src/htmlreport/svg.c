/* gnuplot's images made fit for one page: the SVG documents it wrote one
 * after another split apart, each stripped of its XML prolog and given ids
 * of its own (every gnuplot SVG names its markers gpPt0, gpDot, textbox,
 * ..., and on one page the second plot would draw with the first's), and
 * PNG images split at their end chunk. Pure text work, no I/O. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int vn__rep_next_doc(const char **p, const char *end, const char *close, const char **doc,
                     size_t *len)
{
    size_t cl = strlen(close);
    const char *at = memmem(*p, (size_t)(end - *p), close, cl);
    if (!at)
        return 0;
    *doc = *p;
    *len = (size_t)(at + cl - *p);
    *p = at + cl;
    /* SVG documents are text apart by a newline; a PNG is bytes to the end. */
    if (close[0] == '<')
        while (*p < end && (**p == '\n' || **p == '\r'))
            (*p)++;
    return 1;
}

typedef struct ids {
    const char **at; /* each id's first character, in the document */
    size_t *len, *seen, n, cap;
} ids;

static int ids_add(ids *s, const char *at, size_t len)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 32;
        const char **a = realloc(s->at, cap * sizeof *a);
        if (!a)
            return VN_ENOMEM;
        s->at = a;
        size_t *l = realloc(s->len, cap * sizeof *l);
        if (!l)
            return VN_ENOMEM;
        s->len = l;
        size_t *seen = realloc(s->seen, cap * sizeof *seen);
        if (!seen)
            return VN_ENOMEM;
        s->seen = seen;
        s->cap = cap;
    }
    s->at[s->n] = at;
    s->seen[s->n] = 0;
    s->len[s->n++] = len;
    return 0;
}

/* The index in s of the id that starts at p and ends with one of the
 * characters that close a reference ('"', '\'', ')'), or s->n. */
static size_t ids_match(const ids *s, const char *p, const char *end)
{
    for (size_t i = 0; i < s->n; i++) {
        size_t l = s->len[i];
        if ((size_t)(end - p) > l && !memcmp(p, s->at[i], l) && strchr("\"')", p[l]))
            return i;
    }
    return s->n;
}

static int collect(const char *doc, const char *end, ids *s)
{
    for (const char *p = doc; (p = memmem(p, (size_t)(end - p), " id=", 4)) != NULL;) {
        p += 4;
        if (p >= end || (*p != '"' && *p != '\''))
            continue;
        const char *q = memchr(p + 1, *p, (size_t)(end - p - 1));
        if (!q)
            break;
        if (ids_add(s, p + 1, (size_t)(q - p - 1)))
            return VN_ENOMEM;
        p = q;
    }
    return 0;
}

int vn__rep_svg_inline(const char *doc, size_t len, const char *prefix, vn_buf *out)
{
    const char *end = doc + len, *p = memmem(doc, len, "<svg", 4);
    if (!p)
        return VN_EINVAL;
    ids s = {0};
    int rc = collect(p, end, &s);
    const char *from = p;
    while (!rc && p < end) {
        size_t i = s.n;
        int is_id = end - p > 5 && !memcmp(p, " id=", 4) && (i = ids_match(&s, p + 5, end)) < s.n;
        int is_ref = !is_id && *p == '#' && (i = ids_match(&s, p + 1, end)) < s.n;
        if (!is_id && !is_ref) {
            p++;
            continue;
        }
        const char *name = p + (is_id ? 5 : 1);
        rc = vn_buf_append(out, from, (size_t)(name - from));
        if (!rc)
            rc = vn_buf_puts(out, prefix);
        if (!rc)
            rc = vn_buf_append(out, name, s.len[i]);
        /* gnuplot names the groups of some plots twice (gnuplot_plot_1);
         * nothing refers to them, and a page's ids must each be one. */
        if (!rc && is_id && s.seen[i]++)
            rc = vn_buf_printf(out, "-%zu", s.seen[i]);
        from = p = name + s.len[i];
    }
    if (!rc)
        rc = vn_buf_append(out, from, (size_t)(end - from));
    free(s.at);
    free(s.len);
    free(s.seen);
    return rc;
}
