/* The decision's thresholds given by name, for experiments that switch a
 * rule off or move it (vn_config.policy): "NAME=VALUE,...". Pure: the text
 * in, the policy or a message out. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_decide.h"
#include "vernier/base.h"

/* How a field's value is written: a ratio or share (a number >= 0, "inf"
 * allowed), or a count of samples ("inf": more than any run takes). */
enum kind { REAL, COUNT };

static const struct field {
    const char *name;
    size_t off;
    enum kind kind;
} fields[] = {
    {"min_untagged", offsetof(vn__policy, min_untagged), COUNT},
    {"min_interval", offsetof(vn__policy, min_interval), COUNT},
    {"fastest_agree", offsetof(vn__policy, fastest_agree), COUNT},
    {"bound_settled", offsetof(vn__policy, bound_settled), COUNT},
    {"empty_matched", offsetof(vn__policy, empty_matched), COUNT},
    {"indistinct_share", offsetof(vn__policy, indistinct_share), REAL},
    {"shared_slower", offsetof(vn__policy, shared_slower), REAL},
    {"shared_evidence", offsetof(vn__policy, shared_evidence), COUNT},
    {"shared_ratio", offsetof(vn__policy, shared_ratio), REAL},
    {"process_shared_ratio", offsetof(vn__policy, process_shared_ratio), REAL},
    {"confirm", offsetof(vn__policy, confirm), COUNT},
    {"min_processes", offsetof(vn__policy, min_processes), COUNT},
    {"process_samples", offsetof(vn__policy, process_samples), COUNT},
    {"cycles_gain", offsetof(vn__policy, cycles_gain), REAL},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

/* Reads one value of the field's kind from [s, e) into the policy. */
static int set_value(vn__policy *p, const struct field *f, const char *s, const char *e)
{
    char buf[64];
    size_t len = (size_t)(e - s);
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = 0;
    char *end;
    char *at = (char *)p + f->off;
    if (f->kind != REAL && !strcmp(buf, "inf")) {
        *(size_t *)(void *)at = SIZE_MAX;
        return 0;
    }
    if (f->kind == REAL) {
        errno = 0;
        double v = strtod(buf, &end);
        if (*end || errno == ERANGE || !(v >= 0) || (isinf(v) && strcmp(buf, "inf")))
            return -1;
        *(double *)(void *)at = v;
        return 0;
    }
    if (buf[0] < '0' || buf[0] > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (*end || errno == ERANGE)
        return -1;
    *(size_t *)(void *)at = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
    return 0;
}

static void names(char *out, size_t n)
{
    size_t k = 0;
    out[0] = 0;
    for (size_t i = 0; i < NFIELDS && k < n; i++) {
        int w = snprintf(out + k, n - k, "%s%s", i ? ", " : "", fields[i].name);
        k += w > 0 ? (size_t)w : 0;
    }
}

int vn__policy_parse(vn__policy *p, const char *text, char *why, size_t n)
{
    vn__policy q;
    memcpy(&q, p, sizeof q); /* padding too: policies alike compare alike */
    const char *s = text ? text : "";
    while (*s) {
        const char *end = strchr(s, ',');
        if (!end)
            end = s + strlen(s);
        const char *eq = memchr(s, '=', (size_t)(end - s));
        const struct field *f = NULL;
        for (size_t i = 0; eq && i < NFIELDS; i++)
            if (strlen(fields[i].name) == (size_t)(eq - s) &&
                !strncmp(fields[i].name, s, (size_t)(eq - s)))
                f = &fields[i];
        if (!f) {
            if (why && n) {
                char known[512];
                names(known, sizeof known);
                snprintf(why, n, "policy '%.*s' is not NAME=VALUE with a known NAME (%s)",
                         (int)(end - s > 64 ? 64 : end - s), s, known);
            }
            return VN_EINVAL;
        }
        if (set_value(&q, f, eq + 1, end) != 0) {
            if (why && n)
                snprintf(why, n, "policy %s: '%.*s' is not %s", f->name,
                         (int)(end - eq - 1 > 64 ? 64 : end - eq - 1), eq + 1,
                         f->kind == COUNT ? "a whole number or 'inf'" : "a number >= 0 or 'inf'");
            return VN_EINVAL;
        }
        s = *end ? end + 1 : end;
    }
    memcpy(p, &q, sizeof q);
    return 0;
}
