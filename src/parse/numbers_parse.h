/* A pure parser of numbers in text: one per line, or one column of a CSV or
 * white-space separated table. `vernier stats` reads its input with it; the
 * text is outside input, so the parser is fuzzed (tests/fuzz/).
 *
 * The rules, which docs/stats.md states for users:
 * - Lines end at '\n'; blanks around a line, '\r' among them (files from
 *   Windows), are dropped. Text with '\r' and no '\n' (lines ended by '\r'
 *   alone) is an error.
 * - Blank lines, and lines whose first non-blank character is '#', are
 *   skipped.
 * - column 0: each remaining line holds exactly one number.
 * - column N >= 1: the first remaining line decides the separator. If it
 *   holds a comma, every line is split at commas (CSV; a field may be
 *   quoted with '"', "" inside quotes being one '"'; spaces around a field
 *   are ignored; a quoted field may hold line breaks, and its record then
 *   spans lines, messages naming the first). Otherwise lines are split at
 *   runs of spaces and tabs, as awk does. Field N of each line is read. A
 *   quote never closed is an error, whichever field is read.
 * - In column mode only, the first remaining line is a header, and is
 *   skipped, when its field N is not a number. A non-number anywhere else
 *   is an error: silently skipping bad rows would bias the statistics.
 * - A number is what strtod accepts in the C locale ("12", "-1.5e3",
 *   "0x1p-3") and nothing more on its field. NaN and infinity, values too
 *   large for a double, and values not zero that would round to 0, are
 *   errors: they are not measurements. */
#ifndef VN_NUMBERS_PARSE_H
#define VN_NUMBERS_PARSE_H

#include <stddef.h>

#include "vernier/base.h"

/* Why parsing stopped, for the one-line message the CLI prints. */
typedef enum vn__numbers_err {
    VN__NUM_OK = 0,
    VN__NUM_NOT_A_NUMBER,  /* token is not a number */
    VN__NUM_NOT_FINITE,    /* token is NaN, infinite, or overflows a double */
    VN__NUM_NO_FIELD,      /* the line has fewer than column fields */
    VN__NUM_BAD_QUOTE,     /* a quoted CSV field is never closed */
    VN__NUM_TOO_SMALL,     /* token is not zero but rounds to 0 (1e-400) */
    VN__NUM_LONE_CR,       /* the lines end in '\r' alone (no '\n' anywhere) */
    VN__NUM_NO_MEMORY,     /* internal: a long token could not be copied */
    VN__NUM_BINARY,        /* the text holds a NUL byte: it is not text */
} vn__numbers_err;

typedef struct vn__numbers_error {
    vn__numbers_err kind;
    size_t line;      /* 1-based */
    size_t fields;    /* for VN__NUM_NO_FIELD: how many the line has */
    char token[48];   /* the offending text, shortened, non-printing bytes as '?' */
    int lone_cr;      /* the text holds a '\r' with no '\n' after it */
} vn__numbers_error;

/* Parses len bytes of text (a NUL byte anywhere makes it binary: VN__NUM_BINARY).
 * On success returns 0 and sets *values (malloc'd, free() it; NULL when
 * none) and *n (0 when the text holds no numbers: the caller decides
 * whether that is an error). On bad input returns VN_EINVAL with *err
 * filled in; VN_ENOMEM when memory runs out. *values is NULL on failure. */
int vn__parse_numbers(const char *text, size_t len, size_t column, double **values, size_t *n,
                      vn__numbers_error *err);

/* The error as "line 7: 'abc' is not a number" into buf. Returns buf. */
char *vn__numbers_strerror(const vn__numbers_error *err, size_t column, char *buf, size_t size);

#endif
