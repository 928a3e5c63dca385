/* Reading results files: the format told by content, the JSON parsed with
 * cJSON, and a file's benchmarks joined to those its side already has. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read_internal.h"

/* Where the parser stopped, as people count: lines and columns from 1, a
 * column being a byte (what editors call it varies with the encoding). */
static void position(const char *text, size_t at, vn__cmp_error *err)
{
    err->line = 1;
    err->column = 1;
    for (size_t i = 0; i < at; i++) {
        if (text[i] == '\n') {
            err->line++;
            err->column = 1;
        } else
            err->column++;
    }
}

/* Past the white space from p: after the value, only the end may follow. */
static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

static int detect(vn__cmp_side *s, const cJSON *root, vn__cmp_error *err)
{
    const char *what = "vernier.results/1, Google Benchmark or hyperfine JSON";
    if (!cJSON_IsObject(root))
        return vn__cmp_bad(err, "not results vernier reads (%s)", what);
    const char *schema = vn__cmp_str(root, "schema");
    if (schema) {
        if (!strcmp(schema, "vernier.results/1"))
            return vn__cmp_read_vernier(s, root, err);
        if (!strncmp(schema, "vernier.results/", 16))
            return vn__cmp_bad(err, "%.40s is from a newer vernier; compare it with that version",
                               schema);
        return vn__cmp_bad(err, "%.40s holds no benchmarks; give %s", schema, what);
    }
    if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "context")) &&
        cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "benchmarks")))
        return vn__cmp_read_gbench(s, root, err);
    if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "results")))
        return vn__cmp_read_hyperfine(s, root, err);
    return vn__cmp_bad(err, "not results vernier reads (%s)", what);
}

/* Two files' aggregates of one benchmark, as one set of repetitions: the
 * pooled mean, and the deviation of all of them (within each file, and
 * between the files' means). The median of the larger set stands. */
static void pool_aggregates(vn__cmp_bench *to, const vn__cmp_bench *from)
{
    if (!to->agg_n) {
        to->agg_mean = from->agg_mean;
        to->agg_sd = from->agg_sd;
        to->agg_median = from->agg_median;
        to->agg_n = from->agg_n;
        return;
    }
    double n1 = (double)to->agg_n, n2 = (double)from->agg_n, n = n1 + n2;
    double m = (n1 * to->agg_mean + n2 * from->agg_mean) / n;
    double d1 = to->agg_mean - m, d2 = from->agg_mean - m;
    double ss = (n1 - 1) * to->agg_sd * to->agg_sd + (n2 - 1) * from->agg_sd * from->agg_sd +
                n1 * d1 * d1 + n2 * d2 * d2;
    if (from->agg_n > to->agg_n)
        to->agg_median = from->agg_median;
    to->agg_mean = m;
    to->agg_sd = n > 1 ? sqrt(ss / (n - 1)) : NAN;
    to->agg_n = to->agg_n + from->agg_n;
}

/* Takes the benchmarks and facts of one file (f) into s. */
static int join(vn__cmp_side *s, vn__cmp_side *f)
{
    for (size_t i = 0; i < f->nbench; i++) {
        vn__cmp_bench *from = &f->bench[i], *to = vn__cmp_bench_find(s, from->name);
        if (!to) {
            /* New to the side: moved whole, nothing to copy. */
            if (!vn__cmp_bench_at(s, from->name))
                return VN_ENOMEM;
            to = &s->bench[s->nbench - 1];
            free(to->name);
            *to = *from;
            memset(from, 0, sizeof *from);
            continue;
        }
        for (size_t k = 0; k < from->n; k++)
            if (vn__cmp_push(to, from->values[k]))
                return VN_ENOMEM;
        if (from->agg_n)
            pool_aggregates(to, from);
        for (size_t k = 0; k < from->ninsn; k++)
            if (vn__cmp_push_insn(to, from->insn[k]))
                return VN_ENOMEM;
        /* Processes pool as samples do; the side's promise about a next
         * run is then no one file's (compare.c). */
        for (size_t k = 0; k < from->nunits; k++)
            if (vn__cmp_push_unit(to, from->units[k], from->units_cycles[k], from->units_probe[k]))
                return VN_ENOMEM;
        to->other_own |= from->other_own;
        for (size_t k = 0; k < from->nother; k++)
            if (vn__cmp_push_other(to, from->other[k], from->other_cycles[k],
                                   from->other_probe[k]))
                return VN_ENOMEM;
        /* A side is on a shared core throughout when every file was, and
         * told its processes apart when any did (state.c). Its others
         * stand for the state its headline did not rest on: own ones only
         * where every file was shared, shared ones only where one was not
         * (then some file's own ones make the two differ, for good, as
         * both flags only ever move one way). */
        to->core_shared &= from->core_shared;
        if (to->other_own != to->core_shared)
            to->nother = 0;
        to->core_own |= from->core_own;
        to->core_both &= from->core_both;
        to->cycles_headline |= from->cycles_headline;
        /* A second file's headline pools with the first's processes: the
         * side has no one run's reach (compare.c). */
        for (int u = 0; u < 2 && from->next_files; u++) {
            if (!to->next_files)
                to->next_lo[u] = from->next_lo[u], to->next_hi[u] = from->next_hi[u];
            to->reached[u] = to->next_files ? 0 : from->reached[u];
        }
        to->next_files += from->next_files;
        if (from->why && vn__cmp_set_why(to, "%s", from->why))
            return VN_ENOMEM;
    }
    /* The precision holds for the side only when every file said it. */
    if (f->precision > 0 && s->precision >= 0)
        s->precision = fmax(s->precision, f->precision);
    else
        s->precision = -1;
    for (int i = 0; i < VN__CMP_NFACTS; i++) {
        const char *mine = s->facts[i], *theirs = f->facts[i];
        /* A file that does not tell (hyperfine's) leaves a fact as it is. */
        if (!theirs || (mine && !strcmp(mine, theirs)))
            continue;
        if (vn__cmp_set_fact(s, i, mine ? VN__CMP_FACT_VARIES : theirs))
            return VN_ENOMEM;
    }
    for (int i = 0; i < VN__CMP_NNOTES; i++) {
        const char *mine = s->notes[i], *theirs = f->notes[i];
        if (!theirs || (mine && !strcmp(mine, theirs)))
            continue;
        if (vn__cmp_set_note(s, i, mine ? VN__CMP_FACT_VARIES : theirs))
            return VN_ENOMEM;
    }
    s->formats |= f->formats;
    s->nfiles++;
    return 0;
}

/* Whether the text from p, where the parser stopped, is one token that
 * the end of the file cut off (a string never closed, "tru", "1e"): a file
 * cut short, rather than a mistake with more text after it. */
static int cut_short(const char *text, const char *p, const char *end)
{
    /* cJSON stops at a string's opening quote, or just past it. */
    int in_string = (p < end && *p == '"') || (p > text && p[-1] == '"');
    if (in_string) {
        for (p += p < end && *p == '"'; p < end; p++) {
            if (*p == '\\' && p + 1 < end)
                p++;
            else if (*p == '"')
                return 0;
        }
        return 1;
    }
    for (; p < end; p++)
        if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == ',' || *p == ':' ||
            *p == ']' || *p == '}')
            return 0;
    return 1;
}

/* How deep the text nests its arrays and objects, strings skipped; the
 * place where it first goes deeper than limit in *at (else len). */
static size_t depth_of(const char *text, size_t len, size_t limit, size_t *at)
{
    size_t d = 0, most = 0;
    int in_string = 0;
    *at = len;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '[' || c == '{') {
            if (++d > most)
                most = d;
            if (d > limit && *at == len)
                *at = i;
        } else if ((c == ']' || c == '}') && d) {
            d--;
        }
    }
    return most;
}

int vn__cmp_read(vn__cmp_side *s, const char *text, size_t len, vn__cmp_error *err)
{
    memset(err, 0, sizeof *err);
    if (skip_space(text, text + len) == text + len) {
        snprintf(err->msg, sizeof err->msg, "the file is empty; give a results file");
        return VN_EINVAL;
    }
    size_t deep_at;
    if (depth_of(text, len, CJSON_NESTING_LIMIT, &deep_at) > CJSON_NESTING_LIMIT) {
        position(text, deep_at, err);
        snprintf(err->msg, sizeof err->msg, "arrays and objects nested deeper than %d levels, the "
                 "most read; no results file nests so", CJSON_NESTING_LIMIT);
        return VN_EINVAL;
    }
    const char *end = NULL;
    /* cJSON checks the byte after the value against the length it is
     * given, so the terminating NUL is counted in. */
    cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 0);
    if (root && end >= text && end <= text + len)
        end = skip_space(end, text + len);
    if (!root || !end || end != text + len) {
        size_t at = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
        position(text, at, err);
        if (!root && cut_short(text, text + at, text + len))
            snprintf(err->msg, sizeof err->msg, "the JSON ends too early; the file is cut short");
        else if (!root)
            snprintf(err->msg, sizeof err->msg, "malformed JSON");
        else
            snprintf(err->msg, sizeof err->msg, "more after the end of the JSON value");
        cJSON_Delete(root);
        return VN_EINVAL;
    }
    vn__cmp_side f;
    vn__cmp_side_init(&f);
    int rc = detect(&f, root, err);
    cJSON_Delete(root);
    if (!rc)
        rc = join(s, &f);
    vn__cmp_side_free(&f);
    return rc;
}
