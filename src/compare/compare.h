/* Results files read into one model, and two sides of them compared:
 * `vernier compare`, and any report that shows a comparison, call this.
 *
 * A side is one or more files (repetitions of one build, say) of any
 * format vernier reads: its own vernier.results/1 (code or commands),
 * Google Benchmark's JSON and hyperfine's. Each benchmark of a side holds
 * every value its files gave, in ns per iteration, so repetitions pool.
 * The comparison is pure arithmetic on the two sides: ratios of medians
 * with bootstrap intervals, Mann-Whitney p-values, verdicts and their
 * geometric mean. docs/compare.md describes the method.
 *
 * Private to the tool (the vernier_private library); names are vn__cmp_. */
#ifndef VN_COMPARE_H
#define VN_COMPARE_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "vernier/base.h"

/* The formats a file may be in, as bits of vn__cmp_side.formats. */
enum {
    VN__CMP_CODE = 1u << 0,      /* vernier.results/1, kind "code" */
    VN__CMP_COMMANDS = 1u << 1,  /* vernier.results/1, kind "commands" */
    VN__CMP_GBENCH = 1u << 2,    /* Google Benchmark --benchmark_format=json */
    VN__CMP_HYPERFINE = 1u << 3, /* hyperfine --export-json */
};
/* "vernier code results", "Google Benchmark JSON", ...: for messages. */
const char *vn__cmp_format_name(unsigned format);

/* Facts about the machine a side ran on, compared between the sides. */
enum {
    VN__CMP_FACT_CPU,      /* CPU model */
    VN__CMP_FACT_CPUS,     /* logical CPUs */
    VN__CMP_FACT_MHZ,      /* MHz per CPU (Google Benchmark) */
    VN__CMP_FACT_GOVERNOR, /* cpufreq governor */
    VN__CMP_FACT_SCALING,  /* CPU frequency scaling on (Google Benchmark) */
    VN__CMP_FACT_KERNEL,   /* kernel release */
    VN__CMP_FACT_HOST,     /* host name */
    VN__CMP_NFACTS
};
/* "CPU model", "kernel", ...: for messages. */
extern const char *const vn__cmp_fact_names[VN__CMP_NFACTS];
/* What a vernier file says of its machine beside, which the store keeps
 * (the machine's fingerprint, the run's warnings) and a comparison does
 * not weigh. */
enum {
    VN__CMP_NOTE_SMT,        /* "on", "off" */
    VN__CMP_NOTE_HYPERVISOR, /* its vendor, or "none" */
    VN__CMP_NOTE_WARNINGS,   /* the ids of the machine's warnings, comma-separated */
    VN__CMP_NOTE_MICROCODE,  /* the first CPU's microcode revision */
    VN__CMP_NNOTES
};
/* The value a fact has on a side whose files disagree about it. */
#define VN__CMP_FACT_VARIES "(varies between files)"

typedef struct vn__cmp_param {
    char *key, *value; /* value as text: "64", or a command's "fast" */
} vn__cmp_param;

/* One benchmark of a side. */
typedef struct vn__cmp_bench {
    char *name;
    vn__cmp_param *params; /* from vernier's "params"; none from other formats */
    size_t nparams;
    double *values;        /* ns per iteration, every usable sample of every file */
    size_t n, cap;
    double *insn;          /* instructions per iteration, one per file that counted them */
    size_t ninsn, capinsn;
    /* vernier's results of code: one value per process each file measured
     * in (its median net of its empty loop), in ns and in reference cycles
     * (NAN unknown): the units a comparison resamples. Other formats have
     * none, and their values are the units: runs of a command, or
     * repetitions of a Google Benchmark. */
    double *units, *units_cycles, *units_probe;
    size_t nunits, capunits;
    int cycles_headline;   /* some file's headline was in cycles: the clock moved */
    /* units_probe: each process's taken-branch probe (reference cycles a
     * branch, NAN unknown): about 1 on a core of its own, more while a
     * second hardware thread shared it. Processes a file marks as shared
     * are left out when it has others, as its headline left them out. */
    char *why;             /* why some file gave no values for it ("an upper bound
                              (< 0.31 ns)", "failed: ..."); NULL when none */
    /* A Google Benchmark file written with only the aggregates of its
     * repetitions (--benchmark_report_aggregates_only): their mean,
     * standard deviation and median in ns, and how many repetitions they
     * summarise (agg_n 0: none read). Values, when a file has them, win. */
    double agg_mean, agg_sd, agg_median;
    size_t agg_n;
    unsigned agg_seen;     /* bits of the aggregates one file gave, to refuse a second */
    size_t file_reps;      /* entries of this name in the file being read */
    int threads;           /* threads it ran on at once (0: not said, one) */
    /* What the store's earlier runs of it on this machine say (vernier
     * compare --store): the variance of a run's log headline between runs
     * beyond its own interval, from hist_runs results (0: none). */
    double hist_var;
    size_t hist_runs;
} vn__cmp_bench;

typedef struct vn__cmp_side {
    vn__cmp_bench *bench;  /* in the order first seen */
    size_t nbench, cap;
    char *facts[VN__CMP_NFACTS]; /* NULL when no file told */
    char *notes[VN__CMP_NNOTES]; /* the same for what is kept, not compared */
    unsigned formats;      /* VN__CMP_* of the files read */
    size_t nfiles;
} vn__cmp_side;

void vn__cmp_side_init(vn__cmp_side *s);
void vn__cmp_side_free(vn__cmp_side *s);

/* Why a file could not be read: for malformed JSON, the line and column
 * (from 1) where the parser stopped; 0 for a file that is JSON but not
 * something vernier reads, or holds something it cannot use. */
typedef struct vn__cmp_error {
    size_t line, column;
    char msg[256];
} vn__cmp_error;

/* Reads one file's text (len bytes, text[len] must be '\0') into s, its
 * benchmarks joining those of the same name already there. 0; VN_EINVAL
 * with *err saying why (s is then unchanged, as far as its benchmarks go);
 * VN_ENOMEM. */
int vn__cmp_read(vn__cmp_side *s, const char *text, size_t len, vn__cmp_error *err);

/* ---- which benchmark pairs with which (pair.c) ----------------------------- */

/* The rules that pair a benchmark of BASE with one of NEW, in the order
 * they are tried: the same name; a --map; the same name form. */
typedef enum vn__cmp_rule {
    VN__CMP_RULE_NAME,
    VN__CMP_RULE_MAP,
    VN__CMP_RULE_FORM,
} vn__cmp_rule;
/* "name", "--map", "name form". */
const char *vn__cmp_rule_name(vn__cmp_rule r);

/* A --map OLD=NEW: OLD a POSIX extended regex that a BASE name matches
 * whole ('\=' for an '=' in it), NEW the name in NEW, with \1 to \9 for
 * OLD's groups. */
typedef struct vn__cmp_map {
    regex_t re;
    int compiled;
    char *to, *text;
} vn__cmp_map;
/* 0; VN_EINVAL with why (n bytes) saying what is wrong; VN_ENOMEM. */
int vn__cmp_map_parse(const char *spec, vn__cmp_map *m, char *why, size_t n);
void vn__cmp_map_free(vn__cmp_map *m);

/* A name as tools agree on it: Google Benchmark's "BM_" prefix, the parts
 * that say how it was run (real_time, manual_time, process_time,
 * iterations:N, repeats:N, min_time:X, threads:N) and each parameter's key
 * (n=64, n:64) set aside: BM_x/64/real_time and x/n=64 are both x/64. The
 * pairing adds the threads each ran on, so BM_x/threads:2 pairs only with
 * an x that ran on two. */
void vn__cmp_name_form(const char *name, char *out, size_t n);

typedef struct vn__cmp_pairs {
    size_t *to_new;        /* per BASE benchmark, its NEW benchmark's index, or SIZE_MAX */
    unsigned char *rule;   /* per BASE benchmark, the vn__cmp_rule that paired it */
    size_t *from_base;     /* per NEW benchmark, its BASE benchmark's index, or SIZE_MAX */
    size_t count[3];       /* pairs per rule */
} vn__cmp_pairs;
/* Pairs the benchmarks of the sides. A name form that two benchmarks of a
 * side share pairs neither. 0 or VN_ENOMEM. */
int vn__cmp_pair(const vn__cmp_side *base, const vn__cmp_side *new_, const vn__cmp_map *maps,
                 size_t nmaps, vn__cmp_pairs *out);
void vn__cmp_pairs_free(vn__cmp_pairs *p);

/* ---- the comparison ------------------------------------------------------- */

typedef enum vn__cmp_verdict {
    VN__CMP_SAME,        /* the interval reaches within the threshold of 1 */
    VN__CMP_FASTER,      /* the whole interval is below 1 - threshold */
    VN__CMP_SLOWER,      /* the whole interval is above 1 + threshold */
    VN__CMP_NO_INTERVAL, /* a side has one value: no interval, no verdict */
} vn__cmp_verdict;
/* "no change", "faster", "slower", "no interval". */
const char *vn__cmp_verdict_name(vn__cmp_verdict v);

typedef struct vn__cmp_options {
    double threshold;   /* a fraction: 0.02 calls 2% slower "no change" */
    size_t resamples;   /* of the bootstrap, per side */
    uint64_t seed;      /* of the bootstrap, so the same files give the same intervals */
    const vn__cmp_map *maps; /* --map, tried in order; NULL for none */
    size_t nmaps;
} vn__cmp_options;
/* threshold 0.02, 10000 resamples, a fixed seed. */
void vn__cmp_options_init(vn__cmp_options *o);

/* A benchmark on both sides with values to compare. */
typedef struct vn__cmp_row {
    const char *name;          /* the base side's */
    const char *new_name;      /* the new side's: another when not paired by name */
    vn__cmp_rule rule;         /* what paired them */
    const vn__cmp_bench *base, *new_;
    double base_median, new_median;   /* ns per iteration */
    double ratio;              /* new_median / base_median: below 1 is faster */
    double lo, hi;             /* its 95% interval; NaN without one */
    /* What was resampled: "processes" (vernier's code results, two or more
     * processes a side: Welch's t-interval of their logs), "runs" (runs of
     * commands or repetitions: the bootstrap of the medians), "samples"
     * (code results with one process on a side: the bootstrap of the
     * samples, which cannot see what varies between runs), "aggregates"
     * (a side had only Google Benchmark's mean and deviation: Welch's
     * t-interval of the ratio of the means, by the delta method, and
     * Welch's t-test; base_median and new_median are then the means). */
    const char *method;
    size_t units_base, units_new;
    int cycles;                /* compared in reference cycles (the clock moved) */
    double p;                  /* Mann-Whitney U two-sided p-value of the values */
    vn__cmp_verdict verdict;
    double insn_base, insn_new, insn_ratio; /* NaN unless both sides counted instructions */
    size_t learned_from;       /* earlier runs in the store whose variation between runs
                                  widened the interval (0: none) */
} vn__cmp_row;

/* A benchmark on both sides that cannot be compared. */
typedef struct vn__cmp_skip {
    const char *name;
    char *why;                 /* "in NEW: an upper bound (< 0.31 ns)" */
} vn__cmp_skip;

typedef struct vn__cmp_result {
    vn__cmp_row *rows;
    size_t nrows;
    vn__cmp_skip *skipped;
    size_t nskipped;
    const char **only_base, **only_new; /* names found on one side only */
    size_t nonly_base, nonly_new;
    double geomean, geo_lo, geo_hi;     /* of the rows' ratios; NaN without rows, or
                                           lo and hi NaN when no row has an interval */
    size_t count[4];                    /* rows per vn__cmp_verdict */
    unsigned differ;                    /* bit i: vn__cmp_fact i differs between the sides */
    size_t one_process;                 /* rows compared on samples: a side had one process */
    size_t state_differs;               /* rows not compared: one side's core was shared */
    size_t paired[3];                   /* rows and skips per vn__cmp_rule */
    size_t nbase, nnew;                 /* benchmarks on each side */
    const char *base_facts[VN__CMP_NFACTS], *new_facts[VN__CMP_NFACTS];
    unsigned base_formats, new_formats;
    vn__cmp_options opt;
} vn__cmp_result;

/* Compares new against base. The result points into both sides, which
 * must outlive it. 0, VN_EINVAL for no resamples, or VN_ENOMEM; on failure
 * *out is untouched. */
int vn__cmp_compare(const vn__cmp_side *base, const vn__cmp_side *new_, const vn__cmp_options *o,
                    vn__cmp_result *out);
void vn__cmp_result_free(vn__cmp_result *r);

/* ---- reporters: the comparison in, bytes out ------------------------------ */

/* The files of each side, as the reports name them. */
typedef struct vn__cmp_files {
    const char *const *base, *const *new_;
    size_t nbase, nnew;
} vn__cmp_files;

/* The console: one line per benchmark, then the geometric mean, what could
 * not be compared and any warning, each one line of at most ~100 columns.
 * flags: VN_REPORT_COLOR. */
int vn__cmp_report_text(const vn__cmp_result *r, const vn__cmp_files *f, unsigned flags, vn_buf *out);
/* A Markdown table for a pull request's comment, with the same lines below. */
int vn__cmp_report_markdown(const vn__cmp_result *r, const vn__cmp_files *f, vn_buf *out);
/* vernier.compare/1 JSON (docs/schema/compare-1.json). */
int vn__cmp_report_json(const vn__cmp_result *r, const vn__cmp_files *f, vn_buf *out);

#endif
