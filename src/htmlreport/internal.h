/* What the files of vernier report share (src/htmlreport/): the model of
 * the page, and the pieces that read, draw and write it. */
#ifndef VN_HTMLREPORT_INTERNAL_H
#define VN_HTMLREPORT_INTERNAL_H

#include <cjson/cJSON.h>

#include "report.h"
#include "stats/stats_api.h"

/* One side's values of a benchmark, sorted, and their statistics. */
typedef struct vn__rep_series {
    double *sorted;
    size_t n; /* 0: the side has no values for it */
    vn_stats st;
} vn__rep_series;

/* A benchmark of either side (or both), in the order first seen. */
typedef struct vn__rep_bench {
    const char *name;
    const vn__cmp_bench *b[2];
    vn__rep_series s[2];
} vn__rep_bench;

/* Benchmarks that differ only in one numeric parameter: a sweep. */
typedef struct vn__rep_sweep {
    char *title;          /* the name with the parameter's value as {key} */
    const char *key;
    size_t *bench;        /* indices into the model's benchmarks, by x */
    double *x;
    size_t n;
    int fitted[2];        /* a side's fit, when it has 4 points or more */
    vn_bigo_fit fit[2];
} vn__rep_sweep;

typedef struct vn__rep_model {
    vn__cmp_side side[2];
    int nsides;
    cJSON **roots;        /* each file's document, for its tables */
    size_t nroots;
    vn__rep_bench *bench;
    size_t nbench;
    vn__rep_sweep *sweep;
    size_t nsweep;
    vn__cmp_result cmp;   /* with two sides */
} vn__rep_model;

/* model.c: the files read into m (zeroed first). 0; VN_EINVAL with err
 * naming the file and what is wrong; VN_ENOMEM. */
int vn__rep_model_read(vn__rep_model *m, const vn__rep_file *files, size_t nfiles,
                       const vn__cmp_options *cmp, char *err, size_t errlen);
void vn__rep_model_free(vn__rep_model *m);

/* The plots of a page, in the order it shows them. */
typedef enum vn__rep_kind { VN__REP_RATIOS, VN__REP_SWEEP, VN__REP_HIST, VN__REP_CDF } vn__rep_kind;
typedef struct vn__rep_plot {
    vn__rep_kind kind;
    size_t index;         /* of the benchmark or sweep; 0 for the ratios */
} vn__rep_plot;

/* plots.c: which plots the model has (*out malloc'ed), and the gnuplot
 * commands that draw one, after a terminal has been set. */
int vn__rep_plots(const vn__rep_model *m, vn__rep_plot **out, size_t *n);
/* Its size in pixels goes in *width and *height, for the terminal. */
int vn__rep_plot_script(const vn__rep_model *m, const vn__rep_plot *p, vn_buf *out, int *width,
                        int *height);
/* "hist-3-sum_n_64": a name for a plot's file, of safe characters. */
void vn__rep_plot_name(const vn__rep_model *m, const vn__rep_plot *p, char *out, size_t n);
/* The colour of a verdict, and of each side, as #rrggbb. */
const char *vn__rep_verdict_color(vn__cmp_verdict v);
extern const char *const vn__rep_side_color[2];
/* A time in ns for a page or a plot: "1.23 us". */
char *vn__rep_fmt_ns(char *s, size_t n, double ns);

/* gnuplot.c: runs gnuplot at path with script on its standard input, its
 * standard output into img, within timeout_s. 0; VN_EINVAL with err
 * saying why (it failed, printed an error, or took too long); VN_ENOMEM. */
int vn__rep_gnuplot(const char *path, const char *script, size_t len, double timeout_s,
                    vn_buf *img, char *err, size_t errlen);

/* svg.c: the next document of several, each ending with close ("</svg>",
 * or a PNG's end chunk): 1 with *doc and *len set and *p past it, or 0. */
int vn__rep_next_doc(const char **p, const char *end, const char *close, const char **doc,
                     size_t *len);
/* One SVG document for a page: from its <svg> on, every id prefixed. */
int vn__rep_svg_inline(const char *doc, size_t len, const char *prefix, vn_buf *out);

/* escape.c: text for HTML, with & < > " ' escaped. */
int vn__rep_esc(vn_buf *b, const char *s);
/* page.c: the page: the model, and each plot's inline SVG (svg[i] for plots[i]). */
int vn__rep_page(const vn__rep_model *m, const vn__rep_file *files, size_t nfiles,
                 const vn__rep_plot *plots, const char *const *svg, size_t nplots, vn_buf *out);

/* tables.c: the tables of one results document: the machine, its
 * warnings, the clock, the configuration and the findings, those it has. */
int vn__rep_tables(const cJSON *root, vn_buf *out);

#endif
