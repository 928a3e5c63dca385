/* What the readers of each format share (src/compare/read*.c), kept in
 * side.c, beneath them all. */
#ifndef VN_COMPARE_READ_INTERNAL_H
#define VN_COMPARE_READ_INTERNAL_H

#include <cjson/cJSON.h>

#include "side.h"

/* The benchmark of that name in s, or NULL. */
vn__cmp_bench *vn__cmp_bench_find(const vn__cmp_side *s, const char *name);
/* The benchmark of that name in s, added (empty) when new; NULL without
 * memory. */
vn__cmp_bench *vn__cmp_bench_at(vn__cmp_side *s, const char *name);
/* The benchmark of that name added (empty) to the side of one file, s;
 * when the file named it before, VN_EINVAL with err saying where
 * (what: "benchmarks[3]"): two benchmarks of one name in one file are
 * refused, never pooled. VN_ENOMEM without memory. */
int vn__cmp_bench_new(vn__cmp_side *s, const char *name, const char *what, vn__cmp_bench **out,
                      vn__cmp_error *err);
/* Appends a value (or an instruction count) to b. 0 or VN_ENOMEM. */
int vn__cmp_push(vn__cmp_bench *b, double ns);
int vn__cmp_push_insn(vn__cmp_bench *b, double insn);
/* Appends one process's value (ns, and cycles and probe or NAN) to b's units. */
int vn__cmp_push_unit(vn__cmp_bench *b, double ns, double cycles, double probe);
/* Appends one process its file left out for the other core state (ns, and
 * cycles and probe or NAN) to b's others. */
int vn__cmp_push_other(vn__cmp_bench *b, double ns, double cycles, double probe);
/* Sets why b has no values from some file (the first reason is kept). 0 or VN_ENOMEM. */
int vn__cmp_set_why(vn__cmp_bench *b, const char *fmt, ...) VN_PRINTF(2, 3);
/* Sets a fact of s (a copy of value; NULL leaves it unknown). 0 or VN_ENOMEM. */
int vn__cmp_set_fact(vn__cmp_side *s, int fact, const char *value);
int vn__cmp_set_note(vn__cmp_side *s, int note, const char *value);
/* Fills err's message (line 0) and returns VN_EINVAL. */
int vn__cmp_bad(vn__cmp_error *err, const char *fmt, ...) VN_PRINTF(2, 3);

/* Members by type: NULL when absent or of another type (or a number that
 * is not finite, which cJSON reads 1e999 as). */
const char *vn__cmp_str(const cJSON *o, const char *key);
const cJSON *vn__cmp_num(const cJSON *o, const char *key);

/* The readers of each format, given the parsed document of one file and a
 * side of its own to fill. 0, VN_EINVAL (err says why) or VN_ENOMEM. */
int vn__cmp_read_vernier(vn__cmp_side *s, const cJSON *root, vn__cmp_error *err);
int vn__cmp_read_gbench(vn__cmp_side *s, const cJSON *root, vn__cmp_error *err);
int vn__cmp_read_hyperfine(vn__cmp_side *s, const cJSON *root, vn__cmp_error *err);

#endif
