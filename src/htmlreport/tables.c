/* The tables of a vernier.results/1 document: the machine it ran on, the
 * warnings about that machine, the clock, the configuration and the
 * findings. The machine and the configuration are shown field by field
 * as the file has them, so a field added to the schema shows without a
 * change here. Every string is the file's, so every one is escaped. */
#include <stdio.h>
#include <string.h>

#include "base/format.h"
#include "internal.h"

/* A scalar as text: numbers exact, null as "-". */
static int scalar(vn_buf *b, const cJSON *v)
{
    char num[48];
    if (cJSON_IsString(v))
        return vn__rep_esc(b, v->valuestring);
    if (cJSON_IsNumber(v))
        return vn_buf_puts(b, vn__fmt_exact(num, sizeof num, v->valuedouble));
    if (cJSON_IsBool(v))
        return vn_buf_puts(b, cJSON_IsTrue(v) ? "yes" : "no");
    return vn_buf_puts(b, "&ndash;");
}

/* An array or object in one cell: "a, b" or "level=1, type=Data". */
static int inline_value(vn_buf *b, const cJSON *v)
{
    if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
        return scalar(b, v);
    int rc = 0;
    const cJSON *x;
    const char *sep = "";
    cJSON_ArrayForEach(x, v) {
        rc = vn_buf_puts(b, sep);
        if (!rc && cJSON_IsObject(v) && x->string) {
            rc = vn__rep_esc(b, x->string);
            if (!rc)
                rc = vn_buf_puts(b, "=");
        }
        if (!rc)
            rc = cJSON_IsArray(x) || cJSON_IsObject(x) ? vn_buf_puts(b, "[") : 0;
        if (!rc)
            rc = inline_value(b, x);
        if (!rc)
            rc = cJSON_IsArray(x) || cJSON_IsObject(x) ? vn_buf_puts(b, "]") : 0;
        sep = cJSON_IsObject(v) ? ", " : "; ";
        if (rc)
            return rc;
    }
    return rc;
}

/* Rows "key | value" of an object; a nested object's fields as
 * "outer.inner", an array in one cell. skip: a key left to its own table. */
static int rows(vn_buf *b, const cJSON *o, const char *prefix, const char *skip)
{
    const cJSON *v;
    int rc = 0;
    cJSON_ArrayForEach(v, o) {
        if (!v->string || (skip && !strcmp(v->string, skip)))
            continue;
        if (cJSON_IsObject(v)) {
            char p[128];
            snprintf(p, sizeof p, "%s%s.", prefix, v->string);
            rc = rows(b, v, p, NULL);
        } else {
            rc = vn_buf_puts(b, "<tr><th>");
            if (!rc)
                rc = vn__rep_esc(b, prefix);
            if (!rc)
                rc = vn__rep_esc(b, v->string);
            if (!rc)
                rc = vn_buf_puts(b, "</th><td>");
            if (!rc)
                rc = inline_value(b, v);
            if (!rc)
                rc = vn_buf_puts(b, "</td></tr>\n");
        }
        if (rc)
            return rc;
    }
    return 0;
}

static int kv_table(vn_buf *b, const char *cls, const char *caption, const cJSON *o,
                    const char *skip)
{
    if (!cJSON_IsObject(o))
        return 0;
    int rc = vn_buf_printf(b, "<table class=\"kv %s\"><caption>%s</caption>\n", cls, caption);
    if (!rc)
        rc = rows(b, o, "", skip);
    return rc ? rc : vn_buf_puts(b, "</table>\n");
}

/* A list of objects as a table with the given columns (keys), headed by
 * their names. */
static int list_table(vn_buf *b, const char *cls, const char *caption, const cJSON *list,
                      const char *const *keys, const char *const *heads, size_t ncols)
{
    if (!cJSON_IsArray(list) || !cJSON_GetArraySize(list))
        return 0;
    int rc = vn_buf_printf(b, "<table class=\"list %s\"><caption>%s</caption>\n<tr>", cls, caption);
    for (size_t k = 0; k < ncols && !rc; k++)
        rc = vn_buf_printf(b, "<th>%s</th>", heads[k]);
    if (!rc)
        rc = vn_buf_puts(b, "</tr>\n");
    const cJSON *x;
    cJSON_ArrayForEach(x, list) {
        rc = vn_buf_puts(b, "<tr>");
        for (size_t k = 0; k < ncols && !rc; k++) {
            rc = vn_buf_puts(b, "<td>");
            if (!rc)
                rc = inline_value(b, cJSON_GetObjectItemCaseSensitive(x, keys[k]));
            if (!rc)
                rc = vn_buf_puts(b, "</td>");
        }
        if (!rc)
            rc = vn_buf_puts(b, "</tr>\n");
        if (rc)
            return rc;
    }
    return vn_buf_puts(b, "</table>\n");
}

int vn__rep_tables(const cJSON *root, vn_buf *out)
{
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(root, "env");
    /* Google Benchmark's machine is its "context". */
    if (!env)
        env = cJSON_GetObjectItemCaseSensitive(root, "context");
    static const char *const wkeys[] = {"id", "message", "fix"};
    static const char *const whead[] = {"warning", "what", "what to do"};
    static const char *const fkeys[] = {"id", "brief"};
    static const char *const fhead[] = {"finding", "what"};
    int rc = kv_table(out, "machine", "The machine", env, "warnings");
    if (!rc)
        rc = list_table(out, "warnings", "Its warnings",
                        cJSON_GetObjectItemCaseSensitive(env, "warnings"), wkeys, whead, 3);
    if (!rc)
        rc = kv_table(out, "clock", "The clock", cJSON_GetObjectItemCaseSensitive(root, "clock"),
                      NULL);
    if (!rc)
        rc = kv_table(out, "config", "The configuration",
                      cJSON_GetObjectItemCaseSensitive(root, "config"), NULL);
    if (!rc)
        rc = list_table(out, "findings", "Findings",
                        cJSON_GetObjectItemCaseSensitive(root, "findings"), fkeys, fhead, 2);
    return rc;
}
