/* vernier report: results files in, one self-contained HTML page out, its
 * plots drawn by gnuplot as inline SVG (and, when asked, as PNG images).
 *
 * The files are read by the comparison's reader (src/compare/), so every
 * format `vernier compare` takes is a report too; files given as two sides
 * add the comparison, with its arithmetic. The tables (machine, warnings,
 * clock, configuration, findings) come from the vernier.results/1 files'
 * own fields.
 *
 * Private to the tool (the vernier_private library); names are vn__rep_. */
#ifndef VN_HTMLREPORT_H
#define VN_HTMLREPORT_H

#include <stddef.h>

#include "compare/compare.h"
#include "store/changes.h"
#include "store/store.h"

/* One input file: its text (text[len] must be '\0'), the name the page
 * shows for it, and its side: 0, or 1 for the NEW side of a comparison. */
typedef struct vn__rep_file {
    const char *name;
    const char *text;
    size_t len;
    int side;
} vn__rep_file;

typedef struct vn__rep_options {
    const char *gnuplot;  /* the program, looked up along PATH; NULL: "gnuplot" */
    double timeout_s;     /* for all of gnuplot's drawing; 0: 120 s */
    int png;              /* also draw every plot as a PNG image */
    vn__cmp_options cmp;  /* the comparison's threshold and bootstrap */
} vn__rep_options;
void vn__rep_options_init(vn__rep_options *o);

/* One plot drawn as a PNG image, named for a file ("hist-3-sum_n_64.png"). */
typedef struct vn__rep_png {
    char name[128];
    vn_buf data;
} vn__rep_png;

typedef struct vn__rep_output {
    vn_buf html;
    vn__rep_png *png;
    size_t npng;
} vn__rep_output;
void vn__rep_output_init(vn__rep_output *out);
void vn__rep_output_free(vn__rep_output *out);

/* Reads the files, draws the plots and writes the page into out (which
 * vn__rep_output_init prepared). 0; VN_ENOENT when gnuplot is not found;
 * VN_EINVAL when a file cannot be read or gnuplot fails; VN_ENOMEM. On
 * failure err holds one line saying why and what to do, and out holds
 * nothing to keep. */
int vn__rep_make(const vn__rep_file *files, size_t nfiles, const vn__rep_options *o,
                 vn__rep_output *out, char *err, size_t errlen);

/* vernier history --report: the page of nv series (history.c), each with
 * its change points ch[i] when ch is not NULL, into out. 0, or a code
 * with err saying why (gnuplot missing or failing). */
int vn__rep_history(const vn__store_series *v, size_t nv, const vn__store_changes *ch,
                    double threshold, const char *store, const vn__rep_options *o, vn_buf *out,
                    char *err, size_t errlen);

#endif
