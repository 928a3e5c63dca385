/* Checks of a report's text by what it says rather than by its sentences:
 * the line that starts with an id or a name, the names and numbers on it
 * and their order, the numbers alone, and a wrapped text joined again. The
 * wording itself is the golden files' to hold (golden.h), so that a
 * sentence reworded breaks one test, not every test that reads the line.
 * Include after <cmocka.h>. */
#ifndef VN_TEST_TEXT_CHECKS_H
#define VN_TEST_TEXT_CHECKS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first line of text that starts with prefix, copied into line (cut
 * to n - 1 bytes); 0 when there is none. */
static inline int tc_line(const char *text, const char *prefix, char *line, size_t n)
{
    size_t k = strlen(prefix);
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len >= k && !strncmp(p, prefix, k)) {
            snprintf(line, n, "%.*s", (int)len, p);
            return 1;
        }
        p = e ? e + 1 : NULL;
    }
    return 0;
}

/* How many lines of text start with prefix. */
static inline size_t tc_lines(const char *text, const char *prefix)
{
    size_t k = strlen(prefix), count = 0;
    for (const char *p = text; p && *p;) {
        count += !strncmp(p, prefix, k);
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return count;
}

/* Whether each of the NULL-terminated strings occurs in text after the
 * one before it: a name, then its number, then the next name. Says which
 * one is missing, to find a failure without a debugger. */
static inline int tc_in_order(const char *text, ...)
{
    va_list ap;
    va_start(ap, text);
    const char *at = text, *want;
    int ok = 1;
    while (ok && (want = va_arg(ap, const char *)) != NULL) {
        const char *hit = strstr(at, want);
        if (!hit) {
            print_message("'%s' not found in order in: %s\n", want, text);
            ok = 0;
        } else {
            at = hit + strlen(want);
        }
    }
    va_end(ap);
    return ok;
}

/* The numbers of text in order, those that start a word (so "p99" and
 * "L1" are no numbers, "2/40" is two): at most max into out; returns how
 * many there are. */
static inline size_t tc_numbers(const char *text, double *out, size_t max)
{
    size_t n = 0;
    for (const char *p = text; *p; p++) {
        int starts = p == text || !((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z') ||
                                    (p[-1] >= '0' && p[-1] <= '9') || p[-1] == '_' || p[-1] == '.');
        if (!starts || *p < '0' || *p > '9')
            continue;
        char *end;
        double v = strtod(p, &end);
        if (n < max)
            out[n] = v;
        n++;
        p = end - 1;
    }
    return n;
}

/* Whether text holds exactly the numbers of want[], in that order. */
static inline int tc_numbers_are(const char *text, const double *want, size_t nwant)
{
    double got[32];
    size_t n = tc_numbers(text, got, 32);
    int ok = n == nwant;
    for (size_t i = 0; ok && i < n; i++)
        ok = got[i] == want[i];
    if (!ok)
        print_message("numbers of '%s' are not the %zu expected\n", text, nwant);
    return ok;
}

/* A copy of text with the rows a report wrapped joined again: a line
 * indented by indent spaces or more continues the one before, with one
 * space between, unless its text starts with one of the NULL-terminated
 * keep (a line of its own at that indent, such as "why: "). Freed by the
 * caller. */
static inline char *tc_unwrap_rows(const char *text, size_t indent, const char *const *keep)
{
    char *s = malloc(strlen(text) + 1), *d = s;
    if (!s)
        return NULL;
    for (const char *p = text; *p;) {
        size_t sp = 0;
        if (p[0] == '\n')
            while (p[1 + sp] == ' ')
                sp++;
        int join = p[0] == '\n' && sp >= indent && p[1 + sp] && p[1 + sp] != '\n';
        for (const char *const *k = keep; join && k && *k; k++)
            join = strncmp(p + 1 + sp, *k, strlen(*k)) != 0;
        if (join) {
            *d++ = ' ';
            p += 1 + sp;
        } else {
            *d++ = *p++;
        }
    }
    *d = '\0';
    return s;
}

/* A copy of text with its wrapping undone: a line break before a
 * continuation line's indent of two spaces or more becomes one space, so
 * that a long message or fix the report wrapped can be found whole. Freed
 * by the caller. */
static inline char *tc_unwrap(const char *text) { return tc_unwrap_rows(text, 2, NULL); }

/* Whether every line of text is at most max columns wide (UTF-8
 * characters count one each). */
static inline int tc_lines_within(const char *text, size_t max)
{
    for (const char *p = text; *p;) {
        size_t cols = 0;
        const char *q = p;
        for (; *q && *q != '\n'; q++)
            cols += ((unsigned char)*q & 0xc0) != 0x80;
        if (cols > max) {
            print_message("a line of %zu columns: %.*s\n", cols, (int)(q - p), p);
            return 0;
        }
        p = *q ? q + 1 : q;
    }
    return 1;
}

#endif
