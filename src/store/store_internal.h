/* What the store's two back ends give the rest of it (store.h): a
 * statement with text parameters, its rows handed to a callback as text.
 * Both SQLite and PostgreSQL take "$1".."$n" placeholders, numbered in the
 * order they first appear, and NULL for a parameter that is NULL. */
#ifndef VN_STORE_INTERNAL_H
#define VN_STORE_INTERNAL_H

#include <stddef.h>

#include "store/store.h"

/* A row: ncols values, NULL for SQL NULL. Nonzero stops the query. */
typedef int (*vn__store_row_fn)(void *ctx, size_t ncols, const char *const *vals);

typedef struct vn__store_ops {
    const char *name;      /* "SQLite", "PostgreSQL": for messages */
    const char *id_column; /* the DDL of an id that numbers itself */
    const char *schema_exists; /* a query whose one value is 1 when vernier_schema exists */
    /* One statement: 0, or VN_EIO with the database's message in why. */
    int (*exec)(vn__store *s, const char *sql, const char *const *params, size_t np,
                vn__store_row_fn row, void *ctx, char *why, size_t n);
    /* Begins a transaction that writes (SQLite takes the write lock at
     * once, so two writers wait rather than fail later). */
    int (*begin)(vn__store *s, char *why, size_t n);
    /* Inside a transaction: waits for every other migration to end, so
     * that the schema is read and changed by one process at a time. */
    int (*lock_schema)(vn__store *s, char *why, size_t n);
    void (*close)(vn__store *s);
    /* Once the schema is known to be this build's (NULL: nothing to do). */
    int (*ready)(vn__store *s, char *why, size_t n);
} vn__store_ops;

struct vn__store {
    const vn__store_ops *ops;
    void *db;
    char *where;
    int found_schema;
    int readonly;         /* opened to read a store this process cannot write */
};

/* The back ends' openers: 0 with s->db and s->ops set, or the reason. */
int vn__store_sqlite_open(vn__store *s, const char *path, char *why, size_t n);
int vn__store_pg_open(vn__store *s, const char *url, char *why, size_t n);

/* Opens, then migrates the schema up to version upto (VN__STORE_SCHEMA,
 * or lower for the migration test). */
int vn__store_open_upto(const char *url, int upto, vn__store **out, char *why, size_t n);

#endif
