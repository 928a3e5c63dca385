/* Fuzz target: the reader of vernier compare, then the comparison and its
 * reporters on whatever it accepts. A results file comes from anywhere (an
 * old version, another tool, an edit by hand): nothing in it may crash the
 * tool, read out of bounds or loop forever; a malformed file must get a
 * position inside the text, and a file read must hold finite values only. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "main/all.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_side(const vn__cmp_side *s)
{
    for (size_t i = 0; i < s->nbench; i++) {
        const vn__cmp_bench *b = &s->bench[i];
        if (!b->name[0])
            abort();
        for (size_t k = 0; k < b->n; k++)
            if (!isfinite(b->values[k]))
                abort();
    }
}

static void compare(const vn__cmp_side *s)
{
    vn__cmp_options o;
    vn__cmp_options_init(&o);
    o.resamples = 64; /* the arithmetic is the same; thousands would slow the fuzzing */
    vn__cmp_result r;
    if (vn__cmp_compare(s, s, &o, &r))
        return;
    /* A side against itself: every ratio is 1 and nothing is only on one side. */
    if (r.nonly_base || r.nonly_new || r.differ)
        abort();
    /* p is unknown only without an interval (aggregates with no spread). */
    for (size_t i = 0; i < r.nrows; i++)
        if (fabs(r.rows[i].ratio - 1) > 1e-12 ||
            !((r.rows[i].p >= 0 && r.rows[i].p <= 1) ||
              (isnan(r.rows[i].p) && r.rows[i].verdict == VN__CMP_NO_INTERVAL)))
            abort();
    const char *name = "f.json";
    vn__cmp_files files = {&name, &name, 1, 1};
    vn_buf b;
    vn_buf_init(&b, 0);
    if (vn__cmp_report_text(&r, &files, VN_REPORT_COLOR, &b) ||
        vn__cmp_report_markdown(&r, &files, &b) || vn__cmp_report_json(&r, &files, &b))
        abort();
    vn_buf_free(&b);
    vn__cmp_result_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    vn__cmp_side s;
    vn__cmp_side_init(&s);
    vn__cmp_error err;
    int rc = vn__cmp_read(&s, text, size, &err);
    if (rc == VN_EINVAL) {
        if (!err.msg[0] || (err.line && (err.line > size + 1 || err.column > size + 1)))
            abort();
    } else if (rc == 0) {
        check_side(&s);
        /* The same file again pools with the first: twice the values. */
        size_t n0 = s.nbench ? s.bench[0].n : 0;
        if (vn__cmp_read(&s, text, size, &err) == 0 && s.nbench && s.bench[0].n != 2 * n0)
            abort();
        compare(&s);
    }
    vn__cmp_side_free(&s);
    free(text);
    return 0;
}
