/* The store in one SQLite file (Debian: libsqlite3-dev): write-ahead
 * logging, so that readers never wait for a writer and many writers on
 * one host take turns; a writer waits up to a minute for the lock. */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock/internal.h"
#include "store/store_internal.h"
#include "vernier/base.h"

#define BUSY_MS 60000

/* What went wrong, in one line; waited_ms is how long a locked store was
 * waited for (SQLite's own busy timeout, or the retries in exec). */
static int fail_after(sqlite3 *db, const char *what, long waited_ms, char *why, size_t n)
{
    int code = sqlite3_extended_errcode(db);
    const char *msg = sqlite3_errmsg(db);
    if ((code & 0xff) == SQLITE_NOTADB || (code & 0xff) == SQLITE_CORRUPT)
        snprintf(why, n, "not an SQLite store, or a damaged one (%s): give another --store", msg);
    else if ((code & 0xff) == SQLITE_READONLY || (code & 0xff) == SQLITE_CANTOPEN ||
             (code & 0xff) == SQLITE_PERM)
        snprintf(why, n, "cannot write it (%s): check its permissions and its folder's", msg);
    else if ((code & 0xff) == SQLITE_BUSY)
        snprintf(why, n, "still locked by another writer after %.1f s (%s): try again later",
                 (double)waited_ms / 1000, msg);
    else
        snprintf(why, n, "%s: %s", what, msg);
    return VN_EIO;
}

static int fail(sqlite3 *db, const char *what, char *why, size_t n)
{
    return fail_after(db, what, BUSY_MS, why, n);
}

static long now_ms(void) { return (long)(vn__posix_read(CLOCK_MONOTONIC) / 1000000); }

/* SQLite answers BUSY without calling its busy handler where waiting could
 * deadlock: a read lock being upgraded, as when two connections switch a
 * new file to WAL at once. Outside a transaction, before any row has come,
 * the statement is retried until the same minute has passed; inside one,
 * the caller's BEGIN IMMEDIATE already waited for the only write lock. */
static int retry_busy(sqlite3 *db, sqlite3_stmt *st, long start)
{
    if (!sqlite3_get_autocommit(db) || now_ms() - start >= BUSY_MS)
        return 0;
    sqlite3_reset(st);
    struct timespec pause = {0, 5 * 1000 * 1000};
    nanosleep(&pause, NULL);
    return 1;
}

static int exec(vn__store *s, const char *sql, const char *const *params, size_t np,
                vn__store_row_fn row, void *ctx, char *why, size_t n)
{
    sqlite3 *db = s->db;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return fail(db, "cannot prepare a statement", why, n);
    int rc = 0;
    for (size_t i = 0; i < np && !rc; i++) {
        int b = params[i] ? sqlite3_bind_text(st, (int)i + 1, params[i], -1, SQLITE_STATIC)
                          : sqlite3_bind_null(st, (int)i + 1);
        if (b != SQLITE_OK)
            rc = fail(db, "cannot bind a value", why, n);
    }
    long start = now_ms();
    int rows = 0;
    while (!rc) {
        int step = sqlite3_step(st);
        if (step == SQLITE_DONE)
            break;
        if ((step & 0xff) == SQLITE_BUSY && !rows && retry_busy(db, st, start))
            continue;
        if (step != SQLITE_ROW) {
            rc = fail_after(db, "a statement failed", now_ms() - start, why, n);
            break;
        }
        rows++;
        if (!row)
            continue;
        int k = sqlite3_column_count(st);
        const char *vals[16];
        size_t m = k < 16 ? (size_t)k : 16;
        for (size_t i = 0; i < m; i++)
            vals[i] = (const char *)sqlite3_column_text(st, (int)i);
        int r = row(ctx, m, vals);
        if (r) {
            rc = r < 0 ? r : 0;
            if (r < 0)
                snprintf(why, n, "%s", vn_strerror(r));
            break;
        }
    }
    sqlite3_finalize(st);
    return rc;
}

static int begin(vn__store *s, char *why, size_t n)
{
    return exec(s, "BEGIN IMMEDIATE", NULL, 0, NULL, NULL, why, n);
}

/* BEGIN IMMEDIATE already holds the only write lock there is. */
static int lock_schema(vn__store *s, char *why, size_t n)
{
    (void)s, (void)why, (void)n;
    return 0;
}

static void close_db(vn__store *s) { sqlite3_close(s->db); }

static int ready(vn__store *s, char *why, size_t n)
{
    if (exec(s, "PRAGMA journal_mode = WAL", NULL, 0, NULL, NULL, why, n) != 0)
        return VN_EIO;
    return exec(s, "PRAGMA synchronous = NORMAL", NULL, 0, NULL, NULL, why, n);
}

static const vn__store_ops ops = {
    .name = "SQLite",
    .id_column = "INTEGER PRIMARY KEY",
    .schema_exists = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'vernier_schema'",
    .exec = exec,
    .begin = begin,
    .lock_schema = lock_schema,
    .close = close_db,
    .ready = ready,
};

/* A store this process may read and not write, in WAL mode, needs its
 * shared-memory file, which a reader that cannot write the folder cannot
 * make: then it is read as an immutable file (no locks; a writer elsewhere
 * at that moment could show it half a run, which the next read mends). */
static int open_immutable(vn__store *s, const char *path, char *why, size_t n)
{
    char uri[8192];
    size_t k = (size_t)snprintf(uri, sizeof uri, "file:");
    for (const char *c = path; *c && k + 4 < sizeof uri; c++)
        k += (size_t)(*c == '%' || *c == '?' || *c == '#'
                          ? snprintf(uri + k, sizeof uri - k, "%%%02X", (unsigned char)*c)
                          : snprintf(uri + k, sizeof uri - k, "%c", *c));
    snprintf(uri + k, sizeof uri - k, "?immutable=1");
    sqlite3_close(s->db);
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    s->db = db;
    if (rc != SQLITE_OK)
        return db ? fail(db, "cannot open it", why, n) : VN_ENOMEM;
    return 0;
}

int vn__store_sqlite_open(vn__store *s, const char *path, char *why, size_t n)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db,
                             s->readonly ? SQLITE_OPEN_READONLY
                                         : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                             NULL);
    s->ops = &ops;
    s->db = db;
    if (rc != SQLITE_OK) {
        if (!db)
            return VN_ENOMEM;
        return fail(db, "cannot open it", why, n);
    }
    sqlite3_busy_timeout(db, BUSY_MS);
    /* A read-only file opens, read-only, without a word: say so now rather
     * than after a run's measurement. */
    if (!s->readonly && (access(path, W_OK) != 0 || sqlite3_db_readonly(db, "main") == 1)) {
        snprintf(why, n, "cannot write it (%s): check its permissions and its folder's",
                 errno ? strerror(errno) : "read-only");
        return VN_EIO;
    }
    if (s->readonly) {
        char e[256];
        if (exec(s, "SELECT count(*) FROM sqlite_master", NULL, 0, NULL, NULL, e, sizeof e) != 0)
            return open_immutable(s, path, why, n);
    }
    return 0;
}
