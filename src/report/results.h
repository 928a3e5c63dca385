/* Pieces shared by the reporters of the in-process engine's results: the
 * console table and the Markdown table show the same headline cells, the
 * same warning marks and the same notes on why sampling stopped. */
#ifndef VN_REPORT_RESULTS_H
#define VN_REPORT_RESULTS_H

#include <math.h>

#include "engine/results.h"
#include "internal.h"
#include "run/runner.h"

/* Room for counter columns: one per event and four ratios. */
#define VN__MAX_CCOLS (VN_COUNTERS_MAX + 4)

/* The headline columns, in the order both tables show them. The counter
 * columns (VN__COL_CTR + i) differ per run: vn__results_layout names them. */
enum {
    VN__COL_NAME,
    VN__COL_MEDIAN,
    VN__COL_CI,
    VN__COL_REL,
    VN__COL_CPU,
    VN__COL_MEAN,
    VN__COL_MAD,
    VN__COL_MIN,
    VN__COL_P99,
    VN__COL_CYCLES,
    VN__COL_RATE,
    VN__COL_SAMPLES,
    VN__COL_PROCS,
    VN__COL_OVERHEAD,
    VN__COL_CTR,
    VN__COL_MARKS = VN__COL_CTR + VN__MAX_CCOLS,
    VN__NCOLS
};

/* What a counter column shows. */
enum { VN__CC_NONE, VN__CC_EVENT, VN__CC_IPC, VN__CC_BRANCH_MISS, VN__CC_CACHE_MISS, VN__CC_IPB };

typedef struct vn__col {
    const char *header;
    int right;      /* right-aligned (numbers) */
    int optional;   /* left out when no row has a value in it */
    int kind;       /* counter columns: VN__CC_* */
    const char *event;  /* VN__CC_EVENT: the event's name */
} vn__col;

extern const vn__col vn__results_cols[VN__NCOLS];

/* Room for any cell, the longest name included (results_common.c checks). */
#define VN__CELL 256

/* One row of the headline, as text. A failed benchmark has failed = 1 and
 * only the name cell set; the callers print its error instead. */
typedef struct vn__cells {
    char s[VN__NCOLS][VN__CELL];
    int failed;
} vn__cells;

void vn__results_cells(const vn_result *r, vn__cells *c);

/* The row's parameter as the integer it was set as. Read from the row
 * itself, not through VN_PARAM: a double holds an int64_t exactly only up
 * to 2^53, and the name ("fn/n=...") prints it whole. 0 without one. */
static inline long long vn__param_value(const vn_result *r)
{
    return r && r->param_name[0] ? (long long)r->param : 0;
}

/* The line on the processes the run measured in (r->processes): how many,
 * within how long, and what that leaves unmeasured; full for --explain. */
int vn__results_processes_line(const vn_results *r, int full, vn_buf *b);

/* The columns of this run's tables: the fixed ones, and the counter columns
 * its events call for. The console (compact) folds an event pair into its
 * ratio (branches and branch-misses into br-miss%) and shows cycles only
 * without IPC; Markdown shows every event and every ratio. */
void vn__results_layout(const vn_results *r, int compact, vn__col *cols);
/* Fills a row's counter cells for that layout ("-" where unknown; a value
 * the kernel multiplexed and scaled ends in '*'). */
void vn__results_counter_cells(const vn__col *cols, const vn_result *res, vn__cells *c);
/* Lines on the counters below the tables: what the counts are per (an
 * iteration, or with runs the view of, a run), which events are missing,
 * why, and the fix (one line per reason); groups that take turns; events
 * that count user mode only; what '*' means. Each line starts with prefix. */
int vn__results_counter_notes(const vn_results *r, const vn_run_results *runs, const char *prefix,
                              vn_buf *b);

/* One letter per warning id, so a row shows its warnings in a few columns;
 * '!' for an id without a letter of its own. */
char vn__warning_mark(const char *id);
/* What a warning id means and what to do about it, for --explain and the
 * JSON; NULL for an id the library does not know. */
const char *vn__warning_explanation(const char *id);
/* The brief of warning i of row r for the console's one line: its own, or
 * for a warning without one, the first clause of its message, cut at a
 * word ("" for no warning i). */
void vn__warning_brief_of(const vn_result *r, size_t i, char *out, size_t n);
/* The counters that could not count, in a line per reason of at most 100
 * columns, the fix left to --explain; and the other counter notes briefly. */
int vn__results_counter_brief(const vn_results *r, const vn_run_results *runs, vn_buf *b);
/* The id a mark stands for in the legend, NULL for '!' and unknown marks. */
const char *vn__warning_mark_id(char mark);

/* The findings below a table (results_findings.c), one line each of at
 * most 100 columns: a line per warning id naming the rows it touched
 * (names[i] is what row i is called), the machine's warnings, the counters
 * that could not count, the note, and with VN__FINDINGS_TIMER in flags the
 * timer; "more: --explain" ends them when there is more to say and flags
 * lack VN_REPORT_EXPLAIN. vn__results_explain is that more: what each
 * warning id means and what to do, each row's message and the machine's
 * fixes in full, the counters' notes and the note whole (and the timer's
 * reason), wrapped at 100 columns. */
enum { VN__FINDINGS_TIMER = 1u << 16 };
int vn__results_findings(const vn_results *r, const vn_run_results *runs, const char *const *names,
                         unsigned flags, vn_buf *b);
int vn__results_explain(const vn_results *r, const vn_run_results *runs, const char *const *names,
                        unsigned flags, vn_buf *b);

/* The sample tags by name, "preempted", "migrated" and "shared_core", in
 * bit order. */
typedef struct vn__tag_name {
    unsigned bit;
    const char *name;
} vn__tag_name;

extern const vn__tag_name vn__tag_names[3];

/* Sentences on why sampling stopped for the benchmarks that did not stop at
 * the precision asked for ("2 of 3 stopped at the time budget before
 * reaching +-1%"), one per line, each line starting with prefix. Without
 * limits, those that stopped at the time budget or the most samples are
 * left to their own warnings (max_time, max_samples). With runs (r is the
 * view of them), the most samples are the most runs. */
int vn__results_stop_notes(const vn_results *r, const vn_run_results *runs, const char *prefix,
                           int limits, vn_buf *b);

/* The timer line: name, cost of a read, resolution and why it was chosen;
 * the brief one leaves out why. */
int vn__results_timer_note(const vn_results *r, vn_buf *b);
int vn__results_timer_brief(const vn_results *r, vn_buf *b);

/* The vernier.results/1 document and the CSV views of it, for the engine's
 * results (runs NULL) or for vernier run's: then r is the view of runs that
 * vn__run_view made, and each row's command part comes from runs. */
int vn__report_results_json(const vn_results *r, const vn_run_results *runs, vn_buf *out);
int vn__report_results_csv(const vn_results *r, const vn_run_results *runs, int raw, vn_buf *out);
/* The Markdown view, for the engine's results (runs NULL) or vernier run's. */
int vn__report_results_markdown(const vn_results *r, const vn_run_results *runs, vn_buf *out);
/* Google Benchmark's JSON layout, for the engine's results (runs NULL) or
 * vernier run's, whose runs give each repetition's CPU time. */
/* Google Benchmark's flags for its file (vernier/report.h). */
typedef vn_report_gbench_opts vn__gbench_opts;

int vn__report_gbench(const vn_results *r, const vn_run_results *runs, const char *executable,
                      const char *date, vn_buf *out, const vn__gbench_opts *opts);

/* How many of a command's runs read below 0 net of the shell's start-up:
 * hyperfine's layouts (--export-json, -csv, -markdown) write them as 0,
 * as hyperfine clamps them; vernier's own JSON says how many. */
static inline size_t vn__run_clamped(const vn_run_result *r)
{
    size_t n = 0;
    for (size_t k = 0; r->samples && k < r->nsamples; k++)
        n += r->samples[k].value - r->shell_ns < 0;
    return n;
}

/* The runs of vernier run seen as the engine's results, for the views both
 * share (the results document, CSV, Markdown, the histograms): every row's
 * samples, statistics, warnings and counters, the shell's start-up as the
 * overhead, and what only the engine measures unknown. The view borrows
 * from runs (its rows' samples, the machine snapshot): vn__run_view_free
 * frees only what the view itself holds, and runs must outlive it. */
int vn__run_view(const vn_run_results *runs, vn_results *view);
void vn__run_view_free(vn_results *view);

/* Text being written for a person: the buffer, whether in color, and the
 * first error met (what follows it is not written). */
typedef struct vn__text {
    vn_buf *b;
    int color;
    int err;
} vn__text;

/* n spaces. */
void vn__text_pad(vn__text *t, size_t n);

#endif
