/* Which benchmark of NEW each benchmark of BASE is compared with: the same
 * name; else a name the user's --map gives; else the same name once the
 * ways tools write a benchmark's parameters are set aside (Google
 * Benchmark's BM_x/64/8, BM_x/real_time, vernier's x/n=64/m=8). */
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pair.h"

const char *vn__cmp_rule_name(vn__cmp_rule r)
{
    static const char *const names[] = {"name", "--map", "name form"};
    return (unsigned)r < 3 ? names[r] : "?";
}

int vn__cmp_map_parse(const char *spec, vn__cmp_map *m, char *why, size_t n)
{
    memset(m, 0, sizeof *m);
    /* OLD ends at the first '=' not escaped as '\='; names hold '=' too
     * (vernier's x/n=64), so OLD writes its own as '\=' and NEW as is. */
    const char *eq = NULL;
    for (const char *p = spec; *p; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            continue;
        }
        if (*p == '=') {
            eq = p;
            break;
        }
    }
    if (!eq || eq == spec || !eq[1]) {
        snprintf(why, n, "--map takes OLD=NEW (OLD a name or regex of BASE, NEW a name of NEW), "
                         "not '%.60s'", spec);
        return VN_EINVAL;
    }
    size_t len = (size_t)(eq - spec);
    /* "^(OLD)$": the whole name, and OLD's groups one further on. */
    char *re = malloc(len + 5), *w = re;
    m->to = strdup(eq + 1);
    m->text = strdup(spec);
    if (!re || !m->to || !m->text) {
        free(re);
        vn__cmp_map_free(m);
        return VN_ENOMEM;
    }
    *w++ = '^';
    *w++ = '(';
    for (const char *p = spec; p < eq; p++) {
        if (*p == '\\' && p[1] == '=')
            p++;
        *w++ = *p;
    }
    *w++ = ')';
    *w++ = '$';
    *w = '\0';
    int rc = regcomp(&m->re, re, REG_EXTENDED);
    free(re);
    if (rc) {
        char msg[128];
        regerror(rc, &m->re, msg, sizeof msg);
        snprintf(why, n, "--map '%.60s': %s", spec, msg);
        free(m->to);
        free(m->text);
        memset(m, 0, sizeof *m);
        return VN_EINVAL;
    }
    m->compiled = 1;
    return 0;
}

void vn__cmp_map_free(vn__cmp_map *m)
{
    if (!m)
        return;
    if (m->compiled)
        regfree(&m->re);
    free(m->to);
    free(m->text);
    memset(m, 0, sizeof *m);
}

/* The name m gives name, into out (n bytes): NEW with \1 to \9 replaced by
 * OLD's groups. 0 when m does not match the whole name. */
static int mapped(const vn__cmp_map *m, const char *name, char *out, size_t n)
{
    regmatch_t g[11];
    if (regexec(&m->re, name, 11, g, 0) != 0)
        return 0;
    size_t o = 0;
    for (const char *p = m->to; *p && o + 1 < n; p++) {
        if (*p == '\\' && p[1] >= '1' && p[1] <= '9') {
            const regmatch_t *x = &g[p[1] - '0' + 1]; /* group 1 is OLD whole */
            p++;
            for (regoff_t k = x->rm_so; x->rm_so >= 0 && k < x->rm_eo && o + 1 < n; k++)
                out[o++] = name[k];
            continue;
        }
        out[o++] = *p;
    }
    out[o] = '\0';
    return 1;
}

/* Whether a part of a Google Benchmark name says how it was run, not what:
 * the timing it reports, its iterations, repetitions, minimum time or
 * threads (which the pairing compares as the benchmarks' own count). */
static int how_run(const char *part, size_t len)
{
    static const char *const whole[] = {"real_time", "manual_time", "process_time"};
    static const char *const heads[] = {"iterations:", "repeats:", "min_time:", "min_warmup_time:",
                                        "threads:"};
    for (size_t i = 0; i < sizeof whole / sizeof *whole; i++)
        if (len == strlen(whole[i]) && !strncmp(part, whole[i], len))
            return 1;
    for (size_t i = 0; i < sizeof heads / sizeof *heads; i++)
        if (len > strlen(heads[i]) && !strncmp(part, heads[i], strlen(heads[i])))
            return 1;
    return 0;
}

void vn__cmp_name_form(const char *name, char *out, size_t n)
{
    size_t o = 0;
    const char *p = name;
    if (!strncmp(p, "BM_", 3) && p[3] && p[3] != '/')
        p += 3;
    int first = 1;
    while (*p && o + 1 < n) {
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (!first && how_run(p, len)) {
            p += len + (end != NULL);
            continue;
        }
        /* A parameter's value, whoever wrote its key: n=64 (vernier), n:64
         * (Google Benchmark's ArgNames), or 64 alone. */
        const char *v = p;
        if (!first) {
            for (const char *q = p; q < p + len; q++)
                if (*q == '=' || *q == ':') {
                    v = q + 1;
                    break;
                }
        }
        if (!first && o + 1 < n)
            out[o++] = '/';
        for (const char *q = v; q < p + len && o + 1 < n; q++)
            out[o++] = *q;
        first = 0;
        p += len + (end != NULL);
    }
    out[o] = '\0';
}

#define NONE SIZE_MAX

/* A benchmark's name form with the threads it ran on: "x/64#1"; a
 * Google Benchmark name's threads:N says them, else what its file did. */
static void form_key(const vn__cmp_bench *b, char *buf, size_t n)
{
    vn__cmp_name_form(b->name, buf, n);
    int threads = b->threads > 1 ? b->threads : 1;
    const char *t = strstr(b->name, "/threads:");
    if (t)
        threads = atoi(t + 9) > 0 ? atoi(t + 9) : threads;
    size_t l = strlen(buf);
    snprintf(buf + l, n - l, "#%d", threads);
}

/* The one unpaired benchmark of s whose name (or form key, when form) is
 * key; NONE for none, NONE - 1 for several. */
static size_t unique(const vn__cmp_side *s, const size_t *taken, const char *key, int form,
                     char *buf, size_t n)
{
    size_t found = NONE;
    for (size_t i = 0; i < s->nbench; i++) {
        if (taken[i] != NONE)
            continue;
        const char *nm = s->bench[i].name;
        if (form) {
            form_key(&s->bench[i], buf, n);
            nm = buf;
        }
        if (strcmp(nm, key))
            continue;
        if (found != NONE)
            return NONE - 1;
        found = i;
    }
    return found;
}

int vn__cmp_pair(const vn__cmp_side *base, const vn__cmp_side *new_, const vn__cmp_map *maps,
                 size_t nmaps, vn__cmp_pairs *out)
{
    memset(out, 0, sizeof *out);
    size_t nb = base->nbench ? base->nbench : 1, nn = new_->nbench ? new_->nbench : 1;
    out->to_new = malloc(nb * sizeof *out->to_new);
    out->rule = malloc(nb * sizeof *out->rule);
    out->from_base = malloc(nn * sizeof *out->from_base);
    char *a = malloc(1024), *b = malloc(1024);
    if (!out->to_new || !out->rule || !out->from_base || !a || !b) {
        free(a), free(b);
        vn__cmp_pairs_free(out);
        return VN_ENOMEM;
    }
    for (size_t i = 0; i < base->nbench; i++)
        out->to_new[i] = NONE;
    for (size_t i = 0; i < new_->nbench; i++)
        out->from_base[i] = NONE;
    /* The same name first, then the maps, then the forms: a rule pairs
     * only what the rules before it left. */
    for (int rule = VN__CMP_RULE_NAME; rule <= VN__CMP_RULE_FORM; rule++) {
        for (size_t i = 0; i < base->nbench; i++) {
            if (out->to_new[i] != NONE)
                continue;
            const char *nm = base->bench[i].name;
            size_t j = NONE;
            if (rule == VN__CMP_RULE_NAME) {
                j = unique(new_, out->from_base, nm, 0, b, 1024);
            } else if (rule == VN__CMP_RULE_MAP) {
                for (size_t m = 0; m < nmaps && j == NONE; m++)
                    if (mapped(&maps[m], nm, a, 1024))
                        j = unique(new_, out->from_base, a, 0, b, 1024);
            } else {
                form_key(&base->bench[i], a, 1024);
                /* A form two benchmarks of BASE share pairs neither. */
                if (unique(base, out->to_new, a, 1, b, 1024) == i)
                    j = unique(new_, out->from_base, a, 1, b, 1024);
            }
            if (j >= NONE - 1)
                continue;
            out->to_new[i] = j;
            out->from_base[j] = i;
            out->rule[i] = (unsigned char)rule;
            out->count[rule]++;
        }
    }
    free(a);
    free(b);
    return 0;
}

void vn__cmp_pairs_free(vn__cmp_pairs *p)
{
    if (!p)
        return;
    free(p->to_new);
    free(p->rule);
    free(p->from_base);
    memset(p, 0, sizeof *p);
}
