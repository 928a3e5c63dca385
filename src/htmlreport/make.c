/* vernier report's one entry: the files read, every plot drawn by one
 * gnuplot (a process per plot would cost more than the drawing), its SVG
 * documents split apart and made fit for one page, the page written; and,
 * when asked, the same plots again as PNG images. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/exec_internal.h"
#include "internal.h"

/* A PNG image ends with this chunk (its length, 0, comes before it). */
static const char png_end[] = "IEND\xae\x42\x60\x82";

void vn__rep_options_init(vn__rep_options *o)
{
    memset(o, 0, sizeof *o);
    o->timeout_s = 120;
    vn__cmp_options_init(&o->cmp);
}

void vn__rep_output_init(vn__rep_output *out)
{
    memset(out, 0, sizeof *out);
    vn_buf_init(&out->html, VN_RESULTS_BUF_MAX);
}

void vn__rep_output_free(vn__rep_output *out)
{
    vn_buf_free(&out->html);
    for (size_t i = 0; i < out->npng; i++)
        vn_buf_free(&out->png[i].data);
    free(out->png);
    memset(out, 0, sizeof *out);
}

/* Every plot after a terminal of its size: one script for gnuplot. */
static int script(const vn__rep_model *m, const vn__rep_plot *p, size_t n, const char *term,
                  vn_buf *out)
{
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        vn_buf one;
        vn_buf_init(&one, VN_RESULTS_BUF_MAX);
        int w, h;
        rc = vn__rep_plot_script(m, &p[i], &one, &w, &h);
        /* noenhanced: names are text, not markup ("_" is no subscript). */
        if (!rc)
            rc = vn_buf_printf(out, "set terminal %s size %d,%d noenhanced font 'sans,10' "
                                    "background rgb 'white'\nset output\n",
                               term, w, h);
        if (!rc)
            rc = vn_buf_append(out, one.data, one.len);
        vn_buf_free(&one);
    }
    return rc;
}

/* Runs gnuplot on the plots in term and splits what it drew at close
 * into exactly n documents: docs[i] and lens[i] point into img. */
static int draw(const char *gp, const vn__rep_model *m, const vn__rep_plot *p, size_t n,
                const char *term, const char *close, double timeout_s, vn_buf *img,
                const char **docs, size_t *lens, char *err, size_t errlen)
{
    vn_buf s;
    vn_buf_init(&s, VN_RESULTS_BUF_MAX);
    int rc = script(m, p, n, term, &s);
    if (!rc)
        rc = vn__rep_gnuplot(gp, s.data ? s.data : "", s.len, timeout_s, img, err, errlen);
    vn_buf_free(&s);
    if (rc)
        return rc;
    const char *at = img->data ? img->data : "", *end = at + img->len;
    size_t k = 0;
    while (k < n && vn__rep_next_doc(&at, end, close, &docs[k], &lens[k]))
        k++;
    if (k < n) {
        snprintf(err, errlen, "gnuplot drew %zu of the %zu plots; check that its '%s' terminal "
                              "works ('gnuplot -e \"set terminal\"' lists them)", k, n, term);
        return VN_EINVAL;
    }
    return 0;
}

static int pngs(const char *gp, const vn__rep_model *m, const vn__rep_plot *p, size_t n,
                const vn__rep_options *o, vn__rep_output *out, char *err, size_t errlen)
{
    const char **docs = calloc(n ? n : 1, sizeof *docs);
    size_t *lens = calloc(n ? n : 1, sizeof *lens);
    out->png = calloc(n ? n : 1, sizeof *out->png);
    vn_buf img;
    vn_buf_init(&img, VN_RESULTS_BUF_MAX);
    int rc = docs && lens && out->png ? 0 : VN_ENOMEM;
    if (!rc)
        rc = draw(gp, m, p, n, "pngcairo", png_end, o->timeout_s, &img, docs, lens, err, errlen);
    for (size_t i = 0; i < n && !rc; i++) {
        vn__rep_png *g = &out->png[out->npng++];
        vn_buf_init(&g->data, VN_RESULTS_BUF_MAX);
        vn__rep_plot_name(m, &p[i], g->name, sizeof g->name - 4);
        strcat(g->name, ".png");
        rc = vn_buf_append(&g->data, docs[i], lens[i]);
    }
    vn_buf_free(&img);
    free(docs);
    free(lens);
    return rc;
}

static int page(const char *gp, const vn__rep_model *m, const vn__rep_file *files, size_t nfiles,
                const vn__rep_plot *p, size_t n, const vn__rep_options *o, vn__rep_output *out,
                char *err, size_t errlen)
{
    const char **docs = calloc(n ? n : 1, sizeof *docs);
    size_t *lens = calloc(n ? n : 1, sizeof *lens), *at = calloc(n ? n : 1, sizeof *at);
    const char **svg = calloc(n ? n : 1, sizeof *svg);
    vn_buf img, inl;
    vn_buf_init(&img, VN_RESULTS_BUF_MAX);
    vn_buf_init(&inl, VN_RESULTS_BUF_MAX);
    int rc = docs && lens && at && svg ? 0 : VN_ENOMEM;
    if (!rc && n)
        rc = draw(gp, m, p, n, "svg", "</svg>", o->timeout_s, &img, docs, lens, err, errlen);
    for (size_t i = 0; i < n && !rc; i++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "vn%zu-", i);
        at[i] = inl.len;
        rc = vn__rep_svg_inline(docs[i], lens[i], prefix, &inl);
        if (rc == VN_EINVAL)
            snprintf(err, errlen, "gnuplot's plot %zu is not SVG", i + 1);
        if (!rc)
            rc = vn_buf_append(&inl, "", 1);
    }
    for (size_t i = 0; i < n && !rc; i++)
        svg[i] = inl.data + at[i];
    if (!rc)
        rc = vn__rep_page(m, files, nfiles, p, svg, n, &out->html);
    vn_buf_free(&img);
    vn_buf_free(&inl);
    free(docs), free(lens), free(at), free(svg);
    return rc;
}

int vn__rep_make(const vn__rep_file *files, size_t nfiles, const vn__rep_options *o,
                 vn__rep_output *out, char *err, size_t errlen)
{
    char gp[4096];
    int rc = vn__which(o->gnuplot ? o->gnuplot : "gnuplot", gp, sizeof gp);
    if (rc) {
        snprintf(err, errlen, "gnuplot not found; install the Debian package gnuplot-nox");
        return VN_ENOENT;
    }
    vn__rep_model m;
    rc = vn__rep_model_read(&m, files, nfiles, &o->cmp, err, errlen);
    vn__rep_plot *p = NULL;
    size_t n = 0;
    if (!rc)
        rc = vn__rep_plots(&m, &p, &n);
    if (!rc)
        rc = page(gp, &m, files, nfiles, p, n, o, out, err, errlen);
    if (!rc && o->png && n)
        rc = pngs(gp, &m, p, n, o, out, err, errlen);
    if (rc == VN_ENOMEM)
        snprintf(err, errlen, "out of memory");
    free(p);
    vn__rep_model_free(&m);
    if (rc) {
        vn__rep_output_free(out);
        vn__rep_output_init(out);
    }
    return rc;
}
