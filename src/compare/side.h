/* One side of a comparison: results files of any format read into one
 * model (side.c, read*.c). Private to the tool; see compare.h. */
#ifndef VN_COMPARE_SIDE_H
#define VN_COMPARE_SIDE_H

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
    /* The core state a file's headline rested on (its "core"): shared
     * through the run (core_shared), or the processes with a core of their
     * own, those that ran beside a second hardware thread left out
     * (core_own); neither: the run told no processes apart. Files pooled:
     * shared when every file was, own when any was. */
    int core_shared, core_own;
    /* Its headline rested on processes in both core states, which read
     * the body alike ("both"): it compares with a run in either. Files
     * pooled: when every file did. */
    int core_both;
    /* The processes a file's headline left out because they ran in the
     * other core state (those of a file whose core was "own" that shared
     * theirs, or of one whose core was "shared" that had their own), in
     * ns, reference cycles and taken-branch probe: those met the state a
     * run in the other state met (state.c); other_own: some file gave
     * own ones. Files pooled whose others cannot all stand for the state
     * the pooled headline did not rest on have none (read.c join). */
    double *other, *other_cycles, *other_probe;
    size_t nother, capother;
    int other_own;
    /* The interval a file's run printed for its next run's headline (the
     * headline's ci): [0] in ns, [1] in reference cycles, NAN where it gave
     * none; next_files counts the files that gave the benchmark a headline
     * (from two on, the side's is not one run's). */
    double next_lo[2], next_hi[2];
    size_t next_files;
    /* The half-width of the headline's own interval (est_ci) its run
     * reached where the row stopped short of the precision the run sought,
     * as a share of the headline, [0] in ns and [1] in reference cycles:
     * the finest change the run resolved (compare.c). 0 where it reached
     * its precision or sought none, and on a side of several files, which
     * pools their processes (read.c join). */
    double reached[2];
    /* Below 0.5: the quantile of the processes every file's headline was
     * (policy head_low), which the comparison then takes of the units; 0:
     * their median, or files that differ. */
    double low;
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
    double hist_var[2];    /* [1]: in reference cycles, for a row compared in them */
    size_t hist_runs[2];
} vn__cmp_bench;

typedef struct vn__cmp_side {
    vn__cmp_bench *bench;  /* in the order first seen */
    size_t nbench, cap;
    char *facts[VN__CMP_NFACTS]; /* NULL when no file told */
    char *notes[VN__CMP_NNOTES]; /* the same for what is kept, not compared */
    unsigned formats;      /* VN__CMP_* of the files read */
    size_t nfiles;
    /* The loosest precision its files asked for (a fraction: 0.01 for
     * +-1%); 0 before any file, -1 when one did not say (another tool's). */
    double precision;
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

/* The median taken-branch probe of a benchmark's units (its processes):
 * the core state they met; NAN without probes. */
double vn__cmp_probe(const vn__cmp_bench *b);

/* The unit in which the processes of both sides (those each headline kept
 * and those it left out), each side about its own values, vary less
 * beyond chance: 1 ns, 2 reference cycles, 0 neither or a process without
 * cycles; -1 out of memory. */
int vn__cmp_steadier_unit(const vn__cmp_bench *b, const vn__cmp_bench *n);

#endif
