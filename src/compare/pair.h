/* Which benchmark of one side pairs with which of the other (pair.c).
 * Private to the tool; see compare.h. */
#ifndef VN_COMPARE_PAIR_H
#define VN_COMPARE_PAIR_H

#include <regex.h>
#include <stddef.h>

#include "side.h"

/* The rules that pair a benchmark of BASE with one of NEW, in the order
 * they are tried: the same name; a --map; the same name form. */
typedef enum vn__cmp_rule {
    VN__CMP_RULE_NAME,
    VN__CMP_RULE_MAP,
    VN__CMP_RULE_FORM,
} vn__cmp_rule;
/* "name", "--map", "name form". */
const char *vn__cmp_rule_name(vn__cmp_rule r);

/* A --map OLD=NEW: OLD a POSIX extended regex that a BASE name matches
 * whole ('\=' for an '=' in it), NEW the name in NEW, with \1 to \9 for
 * OLD's groups. */
typedef struct vn__cmp_map {
    regex_t re;
    int compiled;
    char *to, *text;
} vn__cmp_map;
/* 0; VN_EINVAL with why (n bytes) saying what is wrong; VN_ENOMEM. */
int vn__cmp_map_parse(const char *spec, vn__cmp_map *m, char *why, size_t n);
void vn__cmp_map_free(vn__cmp_map *m);

/* A name as tools agree on it: Google Benchmark's "BM_" prefix, the parts
 * that say how it was run (real_time, manual_time, process_time,
 * iterations:N, repeats:N, min_time:X, threads:N) and each parameter's key
 * (n=64, n:64) set aside: BM_x/64/real_time and x/n=64 are both x/64. The
 * pairing adds the threads each ran on, so BM_x/threads:2 pairs only with
 * an x that ran on two. */
void vn__cmp_name_form(const char *name, char *out, size_t n);

typedef struct vn__cmp_pairs {
    size_t *to_new;        /* per BASE benchmark, its NEW benchmark's index, or SIZE_MAX */
    unsigned char *rule;   /* per BASE benchmark, the vn__cmp_rule that paired it */
    size_t *from_base;     /* per NEW benchmark, its BASE benchmark's index, or SIZE_MAX */
    size_t count[3];       /* pairs per rule */
} vn__cmp_pairs;
/* Pairs the benchmarks of the sides. A name form that two benchmarks of a
 * side share pairs neither. 0 or VN_ENOMEM. */
int vn__cmp_pair(const vn__cmp_side *base, const vn__cmp_side *new_, const vn__cmp_map *maps,
                 size_t nmaps, vn__cmp_pairs *out);
void vn__cmp_pairs_free(vn__cmp_pairs *p);

#endif
