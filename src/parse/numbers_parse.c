/* Numbers in text, one per line or one column of a table; see
 * numbers_parse.h for the rules. Pure: text in, doubles out. */
#include "numbers_parse.h"
#include "base/format.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The copy strtod needs (it wants a NUL) is on the stack up to this length,
 * on the heap beyond. */
#define TOKEN_MAX 1024

static int blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

typedef struct span {
    const char *p;
    size_t n;
} span;

static span trim(span s)
{
    while (s.n && blank(s.p[0])) {
        s.p++;
        s.n--;
    }
    while (s.n && blank(s.p[s.n - 1]))
        s.n--;
    return s;
}

static void set_error(vn__numbers_error *e, vn__numbers_err kind, size_t line, span tok)
{
    e->kind = kind;
    e->line = line;
    e->fields = 0;
    /* Shortened on a UTF-8 character boundary, control bytes shown as '?',
     * so the message is one clean line whatever the input held. */
    size_t max = sizeof e->token - 4, n = tok.n < max ? tok.n : max;
    if (n < tok.n)
        while (n > 0 && ((unsigned char)tok.p[n] & 0xC0) == 0x80)
            n--;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)tok.p[i];
        e->token[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    if (n < tok.n) {
        memcpy(e->token + n, "...", 3);
        n += 3;
    }
    e->token[n] = '\0';
}

/* 0 and *v for a whole-token finite number; else the error kind. */
static vn__numbers_err to_number(span tok, double *v)
{
    char small[TOKEN_MAX];
    if (tok.n == 0 || blank(tok.p[0]))
        return VN__NUM_NOT_A_NUMBER;
    /* strtod wants a NUL: a copy, on the heap for a long token (a number
     * written with a thousand digits is still a number). */
    char *buf = tok.n < sizeof small ? small : malloc(tok.n + 1);
    if (!buf)
        return VN__NUM_NO_MEMORY;
    memcpy(buf, tok.p, tok.n);
    buf[tok.n] = '\0';
    char *end;
    /* In the C locale, so "1.5" means one and a half whatever the host
     * program set with setlocale. */
    double d = vn__strtod(buf, &end);
    int range = errno == ERANGE;
    int whole = end == buf + tok.n;
    if (buf != small)
        free(buf);
    if (!whole)
        return VN__NUM_NOT_A_NUMBER;
    if (!isfinite(d))
        return VN__NUM_NOT_FINITE; /* "nan", "inf", or an overflow such as 1e999 */
    if (d == 0 && range)
        return VN__NUM_TOO_SMALL; /* 1e-400: not zero, yet it would read as 0 */
    *v = d;
    return VN__NUM_OK;
}

/* Where a CSV record that starts at p ends: the first '\n' outside a quoted
 * field (a quoted field may hold line breaks, as RFC 4180 allows and as
 * vernier's own CSV writes a name that has one), or end. *open is 1 when a
 * quote was never closed: the record would then run to end, swallowing
 * every line after it, and is an error whichever column is read. */
static const char *csv_record_end(const char *p, const char *end, int *open)
{
    int field_start = 1;
    *open = 0;
    while (p < end && *p != '\n') {
        if (field_start && *p == '"') {
            for (p++; p < end; p++)
                if (*p == '"') {
                    if (p + 1 < end && p[1] == '"') {
                        p++;
                    } else {
                        break;
                    }
                }
            if (p >= end) {
                *open = 1;
                return end;
            }
            p++; /* the closing quote */
            field_start = 0;
            continue;
        }
        if (*p == ',')
            field_start = 1;
        else if (!blank(*p))
            field_start = 0;
        p++;
    }
    return p;
}

/* Does s hold a '\r' that ends a line by itself (no '\n' after it)? */
static int lone_cr(span s)
{
    for (size_t i = 0; i < s.n; i++)
        if (s.p[i] == '\r' && (i + 1 == s.n || s.p[i + 1] != '\n'))
            return 1;
    return 0;
}

/* Field col (1-based) of a CSV line, its quotes undone into buf (which
 * holds bufsize bytes). Returns 0, or VN__NUM_NO_FIELD with *nfields set,
 * or VN__NUM_BAD_QUOTE. */
static vn__numbers_err csv_field(span line, size_t col, char *buf, size_t bufsize, span *out,
                                 size_t *nfields)
{
    const char *p = line.p, *end = line.p + line.n;
    for (size_t f = 1;; f++) {
        const char *start = p;
        span fld;
        while (p < end && blank(*p))
            p++;
        if (p < end && *p == '"') {
            /* Quoted: commas inside belong to the field, "" is one quote. */
            size_t k = 0;
            int ok = 1;
            for (p++;; p++) {
                if (p >= end)
                    return VN__NUM_BAD_QUOTE;
                if (*p == '"') {
                    if (p + 1 < end && p[1] == '"') {
                        p++;
                    } else {
                        p++;
                        break;
                    }
                }
                if (k < bufsize)
                    buf[k++] = *p;
                else
                    ok = 0;
            }
            const char *after = p;
            while (p < end && *p != ',')
                p++;
            /* Text after the closing quote makes the whole field a
             * non-number, shown as written. */
            if (trim((span){after, (size_t)(p - after)}).n)
                ok = 0;
            fld = ok ? (span){buf, k} : trim((span){start, (size_t)(p - start)});
        } else {
            while (p < end && *p != ',')
                p++;
            fld = trim((span){start, (size_t)(p - start)});
        }
        if (f == col) {
            *out = fld;
            return VN__NUM_OK;
        }
        if (p >= end) {
            *nfields = f;
            return VN__NUM_NO_FIELD;
        }
        p++; /* the comma */
    }
}

/* Field col (1-based) of a line split at runs of blanks. */
static vn__numbers_err ws_field(span line, size_t col, span *out, size_t *nfields)
{
    const char *p = line.p, *end = line.p + line.n;
    size_t f = 0;
    while (p < end) {
        while (p < end && blank(*p))
            p++;
        if (p >= end)
            break;
        const char *s = p;
        while (p < end && !blank(*p))
            p++;
        if (++f == col) {
            *out = (span){s, (size_t)(p - s)};
            return VN__NUM_OK;
        }
    }
    *nfields = f;
    return VN__NUM_NO_FIELD;
}

static int push(double **v, size_t *n, size_t *cap, double d)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        if (nc > SIZE_MAX / sizeof **v)
            return VN_ENOMEM;
        double *nv = realloc(*v, nc * sizeof *nv);
        if (!nv)
            return VN_ENOMEM;
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = d;
    return 0;
}

int vn__parse_numbers(const char *text, size_t len, size_t column, double **values, size_t *n,
                      vn__numbers_error *err)
{
    vn__numbers_error scratch;
    if (!err)
        err = &scratch;
    memset(err, 0, sizeof *err);
    if (!values || !n)
        return VN_EINVAL;
    *values = NULL;
    *n = 0;
    if (!text && len)
        return VN_EINVAL;
    double *v = NULL;
    size_t nv = 0, cap = 0;
    int first = 1, csv = 0;
    size_t lineno = 0;
    char *unq = NULL; /* a quoted field with its quotes undone; as long as a record */
    size_t unqcap = 0;
    const char *p = text, *end = text ? text + len : NULL;
    /* A UTF-8 byte-order mark (Excel's "CSV UTF-8", PowerShell 5.1's
     * files): not part of the first line, whose first number it would hide
     * or make a header. */
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
        p += 3;
    /* No text holds a NUL byte; a binary file does (an executable, a
     * compressed file), and whatever else it holds says nothing useful. */
    const char *nul = p < end ? memchr(p, '\0', (size_t)(end - p)) : NULL;
    if (nul) {
        size_t line = 1;
        for (const char *q = p; q < nul; q++)
            line += *q == '\n';
        set_error(err, VN__NUM_BINARY, line, (span){nul, 0});
        return VN_EINVAL;
    }
    /* Lines ended by a carriage return alone (old Mac files): one line for
     * the rules above, which would read as one number, or none. */
    if (p < end && !memchr(p, '\n', (size_t)(end - p)) && memchr(p, '\r', (size_t)(end - p))) {
        set_error(err, VN__NUM_LONE_CR, 1, (span){p, (size_t)(end - p)});
        return VN_EINVAL;
    }
    int rc = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        span line = trim((span){p, (size_t)(le - p)});
        lineno++;
        size_t at = lineno; /* where the record starts, for messages */
        if (line.n == 0 || line.p[0] == '#') {
            p = nl ? nl + 1 : end;
            continue;
        }
        if (column && first)
            csv = memchr(line.p, ',', line.n) != NULL;
        span first_line = line;
        vn__numbers_err kind = VN__NUM_OK;
        if (column && csv) {
            /* A record may go on past this line inside a quoted field. */
            int open;
            le = csv_record_end(p, end, &open);
            if (open)
                kind = VN__NUM_BAD_QUOTE;
            for (const char *q = nl; q && q < le; q = memchr(q + 1, '\n', (size_t)(le - q - 1)))
                lineno++;
            nl = le < end ? le : NULL;
            line = trim((span){p, (size_t)(le - p)});
            if (line.n > unqcap) {
                char *grown = realloc(unq, line.n);
                if (!grown) {
                    rc = VN_ENOMEM;
                    break;
                }
                unq = grown;
                unqcap = line.n;
            }
        }
        p = nl ? nl + 1 : end;

        span tok = line;
        size_t nfields = 0;
        if (column && kind == VN__NUM_OK)
            kind = csv ? csv_field(line, column, unq, unqcap, &tok, &nfields)
                       : ws_field(line, column, &tok, &nfields);
        double d = 0;
        if (kind == VN__NUM_OK)
            kind = to_number(tok, &d);
        int header = first && column && kind == VN__NUM_NOT_A_NUMBER;
        first = 0;
        if (header)
            continue;
        if (kind == VN__NUM_NO_MEMORY) {
            rc = VN_ENOMEM;
            break;
        }
        if (kind != VN__NUM_OK) {
            /* A record is shown by its first line: one that ran on is named
             * where it starts. */
            span shown = kind == VN__NUM_NO_FIELD || kind == VN__NUM_BAD_QUOTE ? first_line : tok;
            set_error(err, kind, at, shown);
            err->fields = nfields;
            err->lone_cr = lone_cr(shown);
            rc = VN_EINVAL;
            break;
        }
        if (push(&v, &nv, &cap, d)) {
            rc = VN_ENOMEM;
            break;
        }
    }
    free(unq);
    if (rc) {
        free(v);
        return rc;
    }
    *values = v;
    *n = nv;
    return 0;
}

char *vn__numbers_strerror(const vn__numbers_error *e, size_t column, char *buf, size_t size)
{
    switch (e->kind) {
    case VN__NUM_OK:
        snprintf(buf, size, "no error");
        break;
    case VN__NUM_NOT_A_NUMBER: {
        const char *t = e->token, *hint;
        size_t digits = strspn(t + (*t == '-' || *t == '+'), "0123456789");
        const char *after = t + (*t == '-' || *t == '+') + digits;
        if (e->lone_cr)
            hint = "its lines end in a carriage return alone; convert them with tr '\\r' '\\n'";
        else if (column)
            hint = "fix or remove that line, or choose another --column";
        else if (strchr(t, '#') && t[0] != '#')
            hint = "'#' starts a comment only at the start of a line";
        else if (digits && after[0] == ',' && after[1] && strspn(after + 1, "0123456789") == strlen(after + 1))
            hint = "write the decimal point as '.', or use --column N if the comma separates columns";
        else if (strpbrk(t, ", \t;"))
            hint = "use --column N to read one column";
        else
            hint = "give one number per line ('#' starts a comment)";
        snprintf(buf, size, "line %zu: '%s' is not a number; %s", e->line, t, hint);
        break;
    }
    case VN__NUM_NOT_FINITE:
        /* A number written out that no double holds (1e999) is out of
         * range; nan and inf are no measured value at all. */
        if (strcasestr(e->token, "nan") || strcasestr(e->token, "inf"))
            snprintf(buf, size, "line %zu: '%s' is not a finite number; remove that line or give "
                     "its measured value", e->line, e->token);
        else
            snprintf(buf, size, "line %zu: '%s' is out of range for a double; give the numbers "
                     "in a larger unit", e->line, e->token);
        break;
    case VN__NUM_TOO_SMALL:
        snprintf(buf, size, "line %zu: '%s' is too small for a double and would read as 0; give "
                 "the numbers in a smaller unit", e->line, e->token);
        break;
    case VN__NUM_LONE_CR:
        snprintf(buf, size, "the lines end in a carriage return alone (an old Mac file); convert "
                 "them with tr '\\r' '\\n'");
        break;
    case VN__NUM_BINARY:
        snprintf(buf, size, "it looks binary, not text (a NUL byte on line %zu); give a text "
                 "file of numbers, one a line", e->line);
        break;
    case VN__NUM_NO_MEMORY:
        snprintf(buf, size, "out of memory");
        break;
    case VN__NUM_NO_FIELD:
        snprintf(buf, size, "line %zu: has %zu field%s, column %zu is not there; choose a column "
                 "every line has", e->line, e->fields, e->fields == 1 ? "" : "s", column);
        break;
    case VN__NUM_BAD_QUOTE:
        snprintf(buf, size, "line %zu: a quoted field is not closed: '%s'; close its quote",
                 e->line, e->token);
        break;
    }
    return buf;
}
