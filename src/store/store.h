/* The store: every result vernier makes, kept with the machine it ran on,
 * the commit it measured and when, in one SQLite file on a laptop or one
 * PostgreSQL database for a fleet of CI machines (the same schema in both).
 * `vernier store add`, `--store` and `vernier history` call this.
 *
 * What is kept of a benchmark is what a comparison resamples: its units,
 * one value per process of a vernier program (ns and reference cycles),
 * per run of a command (hyperfine, vernier run) or per repetition (Google
 * Benchmark), and the headline made of them, the mean with its interval.
 * A run's rows go in one transaction under a random id, so a write that
 * is retried or fails half-way leaves the run whole or absent, never twice.
 *
 * Private to the tool (the vernier_private library); names are vn__store_. */
#ifndef VN_STORE_H
#define VN_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "compare/compare.h"

/* The schema this build writes; an older one is migrated on open. */
#define VN__STORE_SCHEMA 2

typedef struct vn__store vn__store;

/* The store at url: "postgresql://..." or "postgres://..." (libpq's own
 * connection URI), "sqlite:PATH", or a path of an SQLite file (made when
 * missing, with its folders). NULL or "": $VERNIER_STORE, else
 * $XDG_DATA_HOME/vernier/results.db (~/.local/share when unset). Opens,
 * creates or migrates the schema, and says in why (n bytes) what went
 * wrong: 0, VN_EINVAL (not a store, or a newer schema), VN_EIO (cannot
 * open or write), VN_ENOTSUP (PostgreSQL without libpq in this build). */
int vn__store_open(const char *url, vn__store **out, char *why, size_t n);
/* The same to read (vernier history, compare --store): makes nothing where
 * there is no store (VN_ENOENT), and opens read-only a store it cannot
 * write, which it then reads only when its schema is this build's. */
int vn__store_open_reader(const char *url, vn__store **out, char *why, size_t n);
void vn__store_close(vn__store *s);
/* The URL or path it was opened with, for messages. */
const char *vn__store_where(const vn__store *s);
/* The schema version of the store as it was found (0: new). */
int vn__store_found_schema(const vn__store *s);

/* What a run is kept with, besides its results. */
typedef struct vn__store_meta {
    const char *commit;  /* git commit (NULL: unknown) */
    const char *branch;  /* NULL: unknown, or a detached head */
    int dirty;           /* the working tree had changes: 1, 0, or -1 unknown */
    const char *source;  /* what made it: "vernier run", "file NAME", ... */
    const char *const *tags; /* "key=value" each */
    size_t ntags;
    double time;         /* seconds since the epoch; 0: now */
    int samples;         /* keep every sample too (the units always are) */
} vn__store_meta;

/* The commit, branch and dirty flag of the git working tree at dir (NULL:
 * the current folder), into m's fields with the text in buf; m unchanged
 * where git or the tree is missing. */
void vn__store_git(const char *dir, vn__store_meta *m, char *buf, size_t n);

/* A machine's fingerprint: what must be equal for two runs' numbers to be
 * one series (CPU model, logical CPUs, kernel release, governor, and from
 * vernier's own files SMT, the hypervisor and the microcode), from what a results file
 * gave; "unknown" parts when it gave none. The run's machine warnings
 * (ids) are kept with the run, not in the fingerprint: they change from
 * one run to the next (the load). */
void vn__store_fingerprint(const vn__cmp_side *side, char *out, size_t n);

/* Keeps the benchmarks of side (one results file, or one run's results)
 * as one run: 0, with the run's id in *run and the benchmarks kept in
 * *kept (a failed row or an upper bound has no value to keep); else the
 * reason in why. A file of Google Benchmark's aggregates alone is kept by
 * their mean, deviation and count, without units. */
int vn__store_add(vn__store *s, const vn__cmp_side *side, const vn__store_meta *m,
                  int64_t *run, size_t *kept, char *why, size_t n);

/* One result of a series. */
typedef struct vn__store_point {
    int64_t run;
    double time;          /* seconds since the epoch */
    char commit[48];      /* "" unknown */
    char branch[64];
    int dirty;
    char unit[8];         /* the unit its file compared in: "ns" or "cycles" */
    double value, lo, hi; /* the headline in the series' unit (in_cycles): the units'
                             median and its 95% interval for the next run (NAN ends
                             with fewer than 2 units) */
    double est_lo, est_hi; /* the median's own 95% interval, as stored */
    double ns, cycles;    /* the headline in ns, and in reference cycles (NAN: not
                             every unit had them) */
    double cycles_est_lo, cycles_est_hi; /* the cycles' own interval, as stored */
    size_t nunits;
    /* The interval widened by the variation between the earlier results
     * of its series (vn__store_learn): NAN when fewer than the least
     * asked were there; learned_from of them were used. */
    double lo_h, hi_h;
    size_t learned_from;
} vn__store_point;

/* A benchmark's results on one machine, oldest first. */
typedef struct vn__store_series {
    char *name;
    char *machine;        /* the fingerprint */
    vn__store_point *pt;
    size_t n;
    /* Its values are in reference cycles: every result kept them and most
     * of its files compared in them (code on the CPU, whose cycles move
     * less from run to run than its ns when the core's clock moves). Else
     * in ns. */
    int in_cycles;
} vn__store_series;

/* The filter of vn__store_series_of. */
typedef struct vn__store_query {
    const char *const *names; /* exact names, or patterns with * and ?; none: every name */
    size_t nnames;
    int exact;                /* the names are names, not patterns */
    const char *machine;      /* a fingerprint, or NULL for every machine */
    const char *branch;       /* NULL for every branch */
    double since;             /* seconds since the epoch; 0 for all */
} vn__store_query;

/* Every series that matches q, by name then machine: 0, or the reason in
 * why. Free with vn__store_series_free. */
int vn__store_series_of(vn__store *s, const vn__store_query *q, vn__store_series **out,
                        size_t *nout, char *why, size_t n);
void vn__store_series_free(vn__store_series *v, size_t n);

/* Intervals that learn from history: each result's interval widened by
 * the variation between the results before it in its series, those of the
 * last max_age seconds after their last change point, at most `most`, at
 * least `least` (vn__store_between): the 95% half-width becomes the
 * wider of its own and 1.96 x value x between, between the standard
 * deviation of a headline from one run to the next. */
#define VN__STORE_LEARN_LEAST 5
#define VN__STORE_LEARN_MOST 30
#define VN__STORE_LEARN_AGE (30 * 86400.0)
/* Learns the intervals of v's results from index `from` on (the ones
 * shown); the others keep NAN. */
void vn__store_learn(vn__store_series *v, size_t from, size_t least, size_t most, double max_age);
/* The variation between the results of v (its variance on the log
 * scale) as a result made at `now` would learn it, into *var: the number
 * of results it rests on, 0 when too few. In reference cycles when
 * in_cycles (the results that kept them; a comparison in cycles learns
 * how far cycles move from run to run, not ns, which move with the
 * core's clock as well), else in ns. */
size_t vn__store_series_between(const vn__store_series *v, double now, size_t least, size_t most,
                                double max_age, int in_cycles, double *var);
/* The same for one new result (value, lo, hi, on nunits) after the n
 * results before[0..n) of its series, in cycles when in_cycles (the
 * series' unit): its widened interval, and how many results it learned
 * from (0: too few, and lo, hi as they were). */
size_t vn__store_widen(const vn__store_point *before, size_t n, double now, double value,
                       double *lo, double *hi, size_t least, size_t most, double max_age,
                       int in_cycles);

/* Units as the store keeps them: their median and its 95% interval
 * (vn__levels), as a run over processes with policy head_low=50 and
 * head_ranks=0 reports it, whichever quantile the run's own headline was
 * (its lower quartile by default), so that a series keeps one meaning
 * across runs made before and after that changed; and their standard
 * deviation. */
void vn__store_summary(const double *u, size_t n, double *value, double *lo, double *hi, double *sd);

#endif
