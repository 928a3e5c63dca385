/* The store (store.h): where it is, its schema and migrations, and what a
 * run and a series are in it. The SQL here is what both back ends accept. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stats/levels.h"
#include "store/changes.h"
#include "store/store_internal.h"
#include "vernier/base.h"
#include "stats/stats_api.h"

/* ---- where ----------------------------------------------------------------- */

/* Makes every folder of path's parents (as mkdir -p). */
static int make_parents(const char *path)
{
    char *p = strdup(path);
    if (!p)
        return VN_ENOMEM;
    for (char *c = p + 1; *c; c++) {
        if (*c != '/')
            continue;
        *c = 0;
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            int e = -errno;
            free(p);
            return e;
        }
        *c = '/';
    }
    free(p);
    return 0;
}

static int default_path(char *buf, size_t n)
{
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    int w;
    if (xdg && xdg[0] == '/')
        w = snprintf(buf, n, "%s/vernier/results.db", xdg);
    else if (home && home[0])
        w = snprintf(buf, n, "%s/.local/share/vernier/results.db", home);
    else
        return VN_EINVAL;
    return w > 0 && (size_t)w < n ? 0 : VN_EINVAL;
}

/* ---- the schema -------------------------------------------------------------- */

/* Version 1: runs, the machines they ran on, and each benchmark's
 * headline in ns (unit: the unit its file compared in). Version 2: the
 * headline in reference cycles beside it, each result's units (per
 * process, run or repetition) and their spread, which the change-point
 * test and the intervals that learn from history need, SMT and the
 * hypervisor of a machine, a run's warnings, and every sample when asked. "@ID@" is the
 * back end's id. */
static const char *const migration1[] = {
    "CREATE TABLE vernier_schema (version INTEGER NOT NULL)",
    "INSERT INTO vernier_schema (version) VALUES (0)",
    "CREATE TABLE machines (id @ID@, fingerprint TEXT NOT NULL UNIQUE, cpu TEXT, cpus TEXT, "
    "kernel TEXT, governor TEXT)",
    "CREATE TABLE runs (id @ID@, uuid TEXT NOT NULL UNIQUE, time DOUBLE PRECISION NOT NULL, "
    "machine BIGINT NOT NULL REFERENCES machines (id), host TEXT, commit_id TEXT, branch TEXT, "
    "dirty INTEGER, source TEXT, tags TEXT)",
    "CREATE TABLE results (id @ID@, run BIGINT NOT NULL REFERENCES runs (id), name TEXT NOT NULL, "
    "unit TEXT NOT NULL, value DOUBLE PRECISION, lo DOUBLE PRECISION, hi DOUBLE PRECISION, "
    "nunits INTEGER NOT NULL)",
    "CREATE INDEX results_by_name ON results (name)",
    "CREATE INDEX runs_by_time ON runs (time)",
    NULL,
};
static const char *const migration2[] = {
    "ALTER TABLE results ADD COLUMN sd DOUBLE PRECISION",
    "ALTER TABLE results ADD COLUMN cycles DOUBLE PRECISION",
    "ALTER TABLE results ADD COLUMN cycles_lo DOUBLE PRECISION",
    "ALTER TABLE results ADD COLUMN cycles_hi DOUBLE PRECISION",
    "ALTER TABLE machines ADD COLUMN smt TEXT",
    "ALTER TABLE machines ADD COLUMN hypervisor TEXT",
    "ALTER TABLE runs ADD COLUMN warnings TEXT",
    "CREATE TABLE units (result BIGINT NOT NULL REFERENCES results (id), idx INTEGER NOT NULL, "
    "ns DOUBLE PRECISION, cycles DOUBLE PRECISION, probe DOUBLE PRECISION, "
    "PRIMARY KEY (result, idx))",
    "CREATE TABLE samples (result BIGINT NOT NULL REFERENCES results (id), idx INTEGER NOT NULL, "
    "ns DOUBLE PRECISION, PRIMARY KEY (result, idx))",
    NULL,
};
static const char *const *const migrations[] = {migration1, migration2};

static int exec0(vn__store *s, const char *sql, char *why, size_t n)
{
    return s->ops->exec(s, sql, NULL, 0, NULL, NULL, why, n);
}

/* A transaction's end: COMMIT after rc 0, else ROLLBACK (whose own
 * failure is not the one to report); rc, or COMMIT's failure. */
static int end_transaction(vn__store *s, int rc, char *why, size_t n)
{
    char e[256];
    if (rc == 0)
        return exec0(s, "COMMIT", why, n);
    exec0(s, "ROLLBACK", e, sizeof e);
    return rc;
}

static int first_int(void *ctx, size_t ncols, const char *const *vals)
{
    if (ncols >= 1 && vals[0])
        *(long long *)ctx = strtoll(vals[0], NULL, 10);
    return 0;
}

/* The schema's version, or 0 for a store with no vernier tables. */
static int version_of(vn__store *s, int *v, char *why, size_t n)
{
    long long tables = 0, have = -1;
    int rc = s->ops->exec(s, s->ops->schema_exists, NULL, 0, first_int, &tables, why, n);
    if (rc)
        return rc;
    if (tables == 0) {
        *v = 0;
        return 0;
    }
    if ((rc = s->ops->exec(s, "SELECT version FROM vernier_schema", NULL, 0, first_int, &have, why,
                           n)) != 0)
        return rc;
    if (have < 0) {
        snprintf(why, n, "its vernier_schema table is empty");
        return VN_EINVAL;
    }
    *v = (int)have;
    return 0;
}

static int migrate(vn__store *s, int upto, char *why, size_t n)
{
    int v;
    /* A look without the lock first: an up-to-date store costs no write. */
    int rc = version_of(s, &v, why, n);
    if (rc)
        return rc;
    s->found_schema = v;
    if (v > VN__STORE_SCHEMA) {
        snprintf(why, n, "its schema is version %d, newer than this vernier's %d: use a newer vernier",
                 v, VN__STORE_SCHEMA);
        return VN_EINVAL;
    }
    if (v >= upto)
        return 0;
    if (s->readonly) {
        snprintf(why, n, "its schema is version %d and this vernier reads %d, which it cannot write "
                         "here: store a result in it once (vernier store add) to bring it up",
                 v, VN__STORE_SCHEMA);
        return VN_EINVAL;
    }
    if ((rc = s->ops->begin(s, why, n)) != 0)
        return rc;
    if ((rc = s->ops->lock_schema(s, why, n)) == 0 && (rc = version_of(s, &v, why, n)) == 0) {
        s->found_schema = v;
        for (int m = v; rc == 0 && m < upto; m++) {
            for (const char *const *q = migrations[m]; rc == 0 && *q; q++) {
                char sql[1024];
                const char *at = strstr(*q, "@ID@");
                if (at)
                    snprintf(sql, sizeof sql, "%.*s%s%s", (int)(at - *q), *q, s->ops->id_column, at + 4);
                else
                    snprintf(sql, sizeof sql, "%s", *q);
                rc = exec0(s, sql, why, n);
            }
            if (rc == 0) {
                char set[64];
                snprintf(set, sizeof set, "UPDATE vernier_schema SET version = %d", m + 1);
                rc = exec0(s, set, why, n);
            }
        }
    }
    return end_transaction(s, rc, why, n);
}

static int open_as(const char *url, int upto, int reader, vn__store **out, char *why, size_t n)
{
    *out = NULL;
    char path[4096];
    if (!url || !url[0])
        url = getenv("VERNIER_STORE");
    if (!url || !url[0]) {
        if (default_path(path, sizeof path) != 0) {
            snprintf(why, n, "no store given and no home folder for the default one: give --store "
                             "PATH or set VERNIER_STORE");
            return VN_EINVAL;
        }
        url = path;
    }
    vn__store *s = calloc(1, sizeof *s);
    if (!s || !(s->where = strdup(url))) {
        free(s);
        return VN_ENOMEM;
    }
    int rc;
    if (!strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11)) {
        rc = vn__store_pg_open(s, url, why, n);
    } else {
        const char *file = !strncmp(url, "sqlite:", 7) ? url + 7 : url;
        s->readonly = reader && access(file, W_OK) != 0;
        if (!file[0]) {
            snprintf(why, n, "'%s' names no file", url);
            rc = VN_EINVAL;
        } else if (reader && access(file, F_OK) != 0) {
            /* A reader makes nothing: no empty store where a name was mistyped. */
            if (errno == ENOENT)
                snprintf(why, n, "no store there; results are kept with --store or vernier store "
                                 "add");
            else
                snprintf(why, n, "cannot reach it (%s)", strerror(errno));
            rc = VN_ENOENT;
        } else if ((rc = make_parents(file)) != 0) {
            snprintf(why, n, "cannot make the folder of '%s': %s", file, strerror(-rc));
            rc = VN_EIO;
        } else {
            rc = vn__store_sqlite_open(s, file, why, n);
        }
    }
    if (rc == 0)
        rc = migrate(s, upto, why, n);
    /* Only a store this build can use is changed (SQLite's journal mode). */
    if (rc == 0 && s->ops->ready && !s->readonly)
        rc = s->ops->ready(s, why, n);
    if (rc) {
        vn__store_close(s);
        return rc;
    }
    *out = s;
    return 0;
}

int vn__store_open_upto(const char *url, int upto, vn__store **out, char *why, size_t n)
{
    return open_as(url, upto, 0, out, why, n);
}

int vn__store_open_reader(const char *url, vn__store **out, char *why, size_t n)
{
    return open_as(url, VN__STORE_SCHEMA, 1, out, why, n);
}

int vn__store_open(const char *url, vn__store **out, char *why, size_t n)
{
    return vn__store_open_upto(url, VN__STORE_SCHEMA, out, why, n);
}

void vn__store_close(vn__store *s)
{
    if (!s)
        return;
    if (s->ops && s->db)
        s->ops->close(s);
    free(s->where);
    free(s);
}

const char *vn__store_where(const vn__store *s) { return s->where; }
int vn__store_found_schema(const vn__store *s) { return s->found_schema; }

/* ---- what a run is kept with --------------------------------------------------- */

void vn__store_summary(const double *u, size_t n, double *value, double *lo, double *hi, double *sd)
{
    *value = *lo = *hi = *sd = NAN;
    vn__levels l;
    if (n && vn__levels_compute(u, NULL, n, &l) == 0) {
        *value = l.median;
        *lo = l.median_lo;
        *hi = l.median_hi;
        *sd = l.sd;
    }
}

/* A number as SQL text: NULL when not finite. */
static const char *num(char *buf, double x)
{
    if (!isfinite(x))
        return NULL;
    snprintf(buf, 32, "%.17g", x);
    return buf;
}

static int new_uuid(char out[37])
{
    unsigned char b[16];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
        return VN_EIO;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
             b[15]);
    return 0;
}

/* The tags as one text, "key=value" a line. */
static char *tags_text(const vn__store_meta *m)
{
    size_t len = 1;
    for (size_t i = 0; i < m->ntags; i++)
        len += strlen(m->tags[i]) + 1;
    char *t = malloc(len);
    if (!t)
        return NULL;
    t[0] = 0;
    for (size_t i = 0; i < m->ntags; i++) {
        strcat(t, m->tags[i]);
        if (i + 1 < m->ntags)
            strcat(t, "\n");
    }
    return t;
}

/* The units a benchmark is kept with: its processes, or (a format with
 * none) its values, which are then runs or repetitions. */
static void units_of(const vn__cmp_bench *b, const double **ns, const double **cyc,
                     const double **probe, size_t *k)
{
    if (b->nunits) {
        *ns = b->units;
        *cyc = b->units_cycles;
        *probe = b->units_probe;
        *k = b->nunits;
    } else {
        *ns = b->values;
        *cyc = *probe = NULL;
        *k = b->n;
    }
}

static int all_cycles(const double *cyc, size_t k)
{
    if (!cyc || !k)
        return 0;
    for (size_t i = 0; i < k; i++)
        if (!(cyc[i] > 0) || !isfinite(cyc[i]))
            return 0;
    return 1;
}

/* The headline's unit: cycles when the file said so and every unit has
 * them. */
static int in_cycles(const vn__cmp_bench *b, const double *cyc, size_t k)
{
    return b->cycles_headline && all_cycles(cyc, k);
}

/* Units in rows of this many a statement. */
/* Rows of a result's values in this many a statement. */
#define ROWS_A_STATEMENT 50
#define MOST_COLS 3

/* Rows (result, idx, col[0][i], ...) into "table (result, idx, names)",
 * k of them, ncols values each; a NULL column is NULL throughout. */
static int add_rows(vn__store *s, const char *table, const char *result,
                    const double *const *col, size_t ncols, size_t k, char *why, size_t n)
{
    size_t w = ncols + 2;
    for (size_t at = 0; at < k; at += ROWS_A_STATEMENT) {
        size_t m = k - at < ROWS_A_STATEMENT ? k - at : ROWS_A_STATEMENT;
        char sql[128 + ROWS_A_STATEMENT * 48];
        size_t len = (size_t)snprintf(sql, sizeof sql, "INSERT INTO %s VALUES ", table);
        const char *params[ROWS_A_STATEMENT * (MOST_COLS + 2)];
        char text[ROWS_A_STATEMENT * (MOST_COLS + 2)][32];
        for (size_t i = 0; i < m; i++) {
            size_t p = i * w;
            len += (size_t)snprintf(sql + len, sizeof sql - len, "%s(", i ? ", " : "");
            for (size_t c = 0; c < w; c++)
                len += (size_t)snprintf(sql + len, sizeof sql - len, "%s$%zu", c ? ", " : "",
                                        p + c + 1);
            len += (size_t)snprintf(sql + len, sizeof sql - len, ")");
            params[p] = result;
            snprintf(text[p + 1], 32, "%zu", at + i);
            params[p + 1] = text[p + 1];
            for (size_t c = 0; c < ncols; c++)
                params[p + 2 + c] = num(text[p + 2 + c], col[c] ? col[c][at + i] : NAN);
        }
        int rc = s->ops->exec(s, sql, params, m * w, NULL, NULL, why, n);
        if (rc)
            return rc;
    }
    return 0;
}

/* Google Benchmark's aggregates alone: their mean, and the t-interval
 * from their deviation and count. */
static void from_aggregates(const vn__cmp_bench *b, double *mean, double *lo, double *hi,
                            double *sd)
{
    *mean = b->agg_mean;
    *sd = b->agg_sd;
    *lo = *hi = NAN;
    if (b->agg_n >= 2 && isfinite(b->agg_sd)) {
        double h = vn_t975((double)b->agg_n - 1) * b->agg_sd / sqrt((double)b->agg_n);
        *lo = *mean - h;
        *hi = *mean + h;
    }
}

static int add_in_transaction(vn__store *s, const vn__cmp_side *side, const vn__store_meta *m,
                              int64_t *run, size_t *kept, char *why, size_t n)
{
    char fp[1024];
    vn__store_fingerprint(side, fp, sizeof fp);
    const char *mp[] = {fp, side->facts[VN__CMP_FACT_CPU], side->facts[VN__CMP_FACT_CPUS],
                        side->facts[VN__CMP_FACT_KERNEL], side->facts[VN__CMP_FACT_GOVERNOR],
                        side->notes[VN__CMP_NOTE_SMT], side->notes[VN__CMP_NOTE_HYPERVISOR]};
    int rc = s->ops->exec(s,
                          "INSERT INTO machines (fingerprint, cpu, cpus, kernel, governor, smt, "
                          "hypervisor) VALUES ($1, $2, $3, $4, $5, $6, $7) "
                          "ON CONFLICT (fingerprint) DO NOTHING",
                          mp, 7, NULL, NULL, why, n);
    long long machine = -1;
    if (!rc)
        rc = s->ops->exec(s, "SELECT id FROM machines WHERE fingerprint = $1", mp, 1, first_int,
                          &machine, why, n);
    if (!rc && machine < 0) {
        snprintf(why, n, "the machine's row is missing after it was written");
        rc = VN_EIO;
    }
    if (rc)
        return rc;
    char uuid[37], when[32], mid[32], dirty[8];
    if (new_uuid(uuid) != 0) {
        snprintf(why, n, "no random bytes for the run's id");
        return VN_EIO;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    snprintf(when, sizeof when, "%.6f", m->time > 0 ? m->time : now.tv_sec + now.tv_nsec / 1e9);
    snprintf(mid, sizeof mid, "%lld", machine);
    snprintf(dirty, sizeof dirty, "%d", m->dirty);
    char *tags = tags_text(m);
    if (!tags)
        return VN_ENOMEM;
    const char *rp[] = {uuid, when, mid, side->facts[VN__CMP_FACT_HOST], m->commit, m->branch,
                        m->dirty < 0 ? NULL : dirty, m->source, m->ntags ? tags : NULL,
                        side->notes[VN__CMP_NOTE_WARNINGS]};
    long long rid = -1;
    rc = s->ops->exec(s,
                      "INSERT INTO runs (uuid, time, machine, host, commit_id, branch, dirty, source, "
                      "tags, warnings) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) "
                      "RETURNING id",
                      rp, 10, first_int, &rid, why, n);
    free(tags);
    if (!rc && rid < 0) {
        snprintf(why, n, "the run's row is missing after it was written");
        rc = VN_EIO;
    }
    char rtext[32];
    snprintf(rtext, sizeof rtext, "%lld", rid);
    for (size_t i = 0; !rc && i < side->nbench; i++) {
        const vn__cmp_bench *b = &side->bench[i];
        const double *ns, *cyc, *probe;
        size_t k;
        units_of(b, &ns, &cyc, &probe, &k);
        int aggs = !k && b->agg_n && b->agg_mean > 0 && isfinite(b->agg_mean);
        if (!k && !aggs)
            continue; /* a failed row, or a bound: nothing to keep */
        /* In ns always, and in reference cycles beside when every unit
         * has them: a series is read in cycles when every result kept
         * them and most of its files compared in them (store_series.c). */
        double value, lo, hi, sd, cm = NAN, clo = NAN, chi = NAN, csd;
        if (aggs)
            from_aggregates(b, &value, &lo, &hi, &sd);
        else
            vn__store_summary(ns, k, &value, &lo, &hi, &sd);
        if (all_cycles(cyc, k))
            vn__store_summary(cyc, k, &cm, &clo, &chi, &csd);
        char t[7][32], nu[32];
        snprintf(nu, sizeof nu, "%zu", aggs ? b->agg_n : k);
        const char *p[] = {rtext, b->name, in_cycles(b, cyc, k) ? "cycles" : "ns", num(t[0], value),
                           num(t[1], lo), num(t[2], hi), nu, num(t[3], sd), num(t[4], cm),
                           num(t[5], clo), num(t[6], chi)};
        long long res = -1;
        rc = s->ops->exec(s,
                          "INSERT INTO results (run, name, unit, value, lo, hi, nunits, sd, cycles, "
                          "cycles_lo, cycles_hi) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, "
                          "$11) RETURNING id",
                          p, 11, first_int, &res, why, n);
        if (!rc && res < 0) {
            snprintf(why, n, "the result's row is missing after it was written");
            rc = VN_EIO;
        }
        char restext[32];
        snprintf(restext, sizeof restext, "%lld", res);
        const double *const units[] = {ns, cyc, probe};
        if (!rc)
            rc = add_rows(s, "units (result, idx, ns, cycles, probe)", restext, units, 3, k, why, n);
        /* Every sample, when asked for: what a later look at the
         * distribution needs, at some 40 bytes a sample. */
        const double *const samples[] = {b->values};
        if (!rc && m->samples && b->n)
            rc = add_rows(s, "samples (result, idx, ns)", restext, samples, 1, b->n, why, n);
        *kept += !rc;
    }
    *run = rid;
    return rc;
}

int vn__store_add(vn__store *s, const vn__cmp_side *side, const vn__store_meta *m, int64_t *run,
                  size_t *kept, char *why, size_t n)
{
    *kept = 0;
    int rc = s->ops->begin(s, why, n);
    if (rc)
        return rc;
    rc = add_in_transaction(s, side, m, run, kept, why, n);
    return end_transaction(s, rc, why, n);
}

