/* vernier run's parameters: lists and ranges of values, and their
 * substitution into commands. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "base/format.h"

static int push_value(char ***v, size_t *n, const char *s, size_t len)
{
    char **nv = realloc(*v, (*n + 2) * sizeof *nv);
    if (!nv)
        return VN_ENOMEM;
    *v = nv;
    char *c = malloc(len + 1);
    if (!c)
        return VN_ENOMEM;
    memcpy(c, s, len);
    c[len] = '\0';
    (*v)[(*n)++] = c;
    (*v)[*n] = NULL;
    return 0;
}

static void free_values(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

int vn__param_list(const char *spec, char ***values, size_t *n, char *err, size_t errlen)
{
    *values = NULL;
    *n = 0;
    if (!spec || !*spec) {
        snprintf(err, errlen, "the list of values is empty");
        return VN_EINVAL;
    }
    for (const char *p = spec;;) {
        size_t l = strcspn(p, ",");
        if (l == 0) {
            snprintf(err, errlen, "'%s' has an empty value", spec);
            free_values(*values, *n);
            *values = NULL;
            *n = 0;
            return VN_EINVAL;
        }
        if (push_value(values, n, p, l)) {
            free_values(*values, *n);
            return VN_ENOMEM;
        }
        if (!p[l])
            break;
        p += l + 1;
    }
    return 0;
}

static int parse_num(const char *s, size_t len, double *out, int *decimal)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return VN_EINVAL;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    double v = vn__strtod(buf, &end);
    if (*end || !isfinite(v) || buf[0] == ' ' || buf[0] == '+')
        return VN_EINVAL;
    if (strchr(buf, '.') || strchr(buf, 'e') || strchr(buf, 'E'))
        *decimal = 1;
    *out = v;
    return 0;
}

int vn__param_range(const char *spec, char ***values, size_t *n, char *err, size_t errlen)
{
    *values = NULL;
    *n = 0;
    double lo, hi, step = 1;
    int decimal = 0;
    const char *c1 = spec ? strchr(spec, ':') : NULL;
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c1 || parse_num(spec, (size_t)(c1 - spec), &lo, &decimal) ||
        parse_num(c1 + 1, c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1), &hi, &decimal) ||
        (c2 && parse_num(c2 + 1, strlen(c2 + 1), &step, &decimal))) {
        snprintf(err, errlen, "'%s' is not LO:HI or LO:HI:STEP with numbers", spec ? spec : "");
        return VN_EINVAL;
    }
    /* Whole numbers are counted as such: past 2^53 a double would skip and
     * repeat values. */
    long long ilo = 0, ihi = 0, istep = 1;
    if (!decimal) {
        char *end;
        errno = 0;
        ilo = strtoll(spec, &end, 10);
        ihi = strtoll(c1 + 1, &end, 10);
        istep = c2 ? strtoll(c2 + 1, &end, 10) : 1;
        if (errno == ERANGE) {
            snprintf(err, errlen, "'%s' has a number too large for a 64-bit integer", spec);
            return VN_EINVAL;
        }
    }
    if (!(step > 0) || hi < lo || ihi < ilo) {
        snprintf(err, errlen, "'%s' needs LO <= HI and a positive STEP", spec);
        return VN_EINVAL;
    }
    double count = decimal ? floor((hi - lo) / step + 1e-9) + 1
                           : (double)(((unsigned long long)ihi - (unsigned long long)ilo) /
                                          (unsigned long long)istep + 1);
    if (count > 10000) {
        snprintf(err, errlen, "'%s' gives %.0f values; at most 10000", spec, count);
        return VN_EINVAL;
    }
    for (size_t i = 0; i < (size_t)count; i++) {
        char buf[64];
        double v = lo + (double)i * step;
        int l = decimal ? snprintf(buf, sizeof buf, "%.10g", v)
                        : snprintf(buf, sizeof buf, "%lld", ilo + (long long)i * istep);
        if (push_value(values, n, buf, (size_t)l)) {
            free_values(*values, *n);
            return VN_ENOMEM;
        }
    }
    return 0;
}

char *vn__param_substitute(const char *text, const vn_run_param *params, size_t nparams,
                          const size_t *choice)
{
    if (!text)
        return NULL;
    vn_buf b;
    vn_buf_init(&b, 0);
    int rc = 0;
    for (const char *p = text; *p && rc == 0;) {
        int done = 0;
        if (*p == '{') {
            for (size_t i = 0; i < nparams; i++) {
                size_t l = strlen(params[i].name);
                if (!strncmp(p + 1, params[i].name, l) && p[1 + l] == '}') {
                    rc = vn_buf_puts(&b, params[i].values[choice[i]]);
                    p += l + 2;
                    done = 1;
                    break;
                }
            }
        }
        if (!done)
            rc = vn_buf_append(&b, p++, 1);
    }
    if (rc == 0 && !b.data)
        rc = vn_buf_append(&b, "", 0);
    if (rc) {
        vn_buf_free(&b);
        return NULL;
    }
    return b.data;
}
