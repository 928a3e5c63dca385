/* The store in a PostgreSQL database, through libpq (Debian: libpq-dev):
 * one database for a fleet of CI machines writing at once. Each run is
 * one transaction; a migration holds an advisory lock, so that the first
 * writers of a new database do not make its tables twice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"
#include "vernier/base.h"

#ifdef VN_HAVE_LIBPQ
#include <libpq-fe.h>

/* The first line of libpq's message. */
static int fail(const char *what, const char *msg, char *why, size_t n)
{
    snprintf(why, n, "%s: %.*s", what, (int)strcspn(msg, "\n"), msg);
    return VN_EIO;
}

static int exec(vn__store *s, const char *sql, const char *const *params, size_t np,
                vn__store_row_fn row, void *ctx, char *why, size_t n)
{
    PGresult *r = PQexecParams(s->db, sql, (int)np, NULL, params, NULL, NULL, 0);
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        int rc = fail("a statement failed", r ? PQresultErrorMessage(r) : PQerrorMessage(s->db),
                      why, n);
        PQclear(r);
        return rc;
    }
    int rc = 0;
    int rows = PQntuples(r), cols = PQnfields(r);
    size_t m = cols < 16 ? (size_t)cols : 16;
    for (int i = 0; row && i < rows && !rc; i++) {
        const char *vals[16];
        for (size_t c = 0; c < m; c++)
            vals[c] = PQgetisnull(r, i, (int)c) ? NULL : PQgetvalue(r, i, (int)c);
        int x = row(ctx, m, vals);
        if (x < 0) {
            rc = x;
            snprintf(why, n, "%s", vn_strerror(x));
        } else if (x) {
            break;
        }
    }
    PQclear(r);
    return rc;
}

static int begin(vn__store *s, char *why, size_t n)
{
    return exec(s, "BEGIN", NULL, 0, NULL, NULL, why, n);
}

/* Any number will do, as long as it is vernier's own: "vern" in ASCII. */
static int lock_schema(vn__store *s, char *why, size_t n)
{
    return exec(s, "SELECT pg_advisory_xact_lock(1986359918)", NULL, 0, NULL, NULL, why, n);
}

static void close_db(vn__store *s) { PQfinish(s->db); }

static void quiet(void *arg, const char *message) { (void)arg, (void)message; }

static const vn__store_ops ops = {
    .name = "PostgreSQL",
    .id_column = "BIGSERIAL PRIMARY KEY",
    .schema_exists = "SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename = 'vernier_schema' "
                     "AND schemaname = ANY (current_schemas(false))",
    .exec = exec,
    .begin = begin,
    .lock_schema = lock_schema,
    .close = close_db,
};

int vn__store_pg_open(vn__store *s, const char *url, char *why, size_t n)
{
    PGconn *c = PQconnectdb(url);
    s->ops = &ops;
    s->db = c;
    if (!c)
        return VN_ENOMEM;
    if (PQstatus(c) != CONNECTION_OK)
        return fail("cannot connect", PQerrorMessage(c), why, n);
    /* Notices (a table that already exists) are not the user's business. */
    PQsetNoticeProcessor(c, quiet, NULL);
    return exec(s, "SET client_min_messages = warning", NULL, 0, NULL, NULL, why, n);
}

#else

int vn__store_pg_open(vn__store *s, const char *url, char *why, size_t n)
{
    (void)s, (void)url;
    snprintf(why, n, "this vernier was built without libpq: install libpq-dev and build again, "
                     "or give an SQLite file");
    return VN_ENOTSUP;
}

#endif
