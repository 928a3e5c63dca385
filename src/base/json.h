/* A small streaming JSON writer into a vn_buf. Internal to libvernier: the
 * reporters use it so the library needs no JSON dependency of its own.
 *
 * Errors are sticky: after the first failure every call does nothing and
 * vn__json_finish() returns the error, so callers need not check each call. */
#ifndef VN_JSON_H
#define VN_JSON_H

#include "vernier/base.h"

#define VN__JSON_MAX_DEPTH 32

typedef struct vn__json {
    vn_buf *b;
    int depth;
    int pretty;
    int err;
    unsigned char nfields[VN__JSON_MAX_DEPTH]; /* 0 = nothing written yet at this level */
} vn__json;

void vn__json_init(vn__json *j, vn_buf *b, int pretty);
int  vn__json_finish(vn__json *j);

/* key is the member name inside an object, NULL inside an array or at the top. */
void vn__json_obj_begin(vn__json *j, const char *key);
void vn__json_obj_end(vn__json *j);
void vn__json_arr_begin(vn__json *j, const char *key);
void vn__json_arr_end(vn__json *j);
void vn__json_str(vn__json *j, const char *key, const char *s);     /* NULL -> null */
void vn__json_num(vn__json *j, const char *key, double v);          /* NaN, inf -> null */
void vn__json_int(vn__json *j, const char *key, long long v);
void vn__json_uint(vn__json *j, const char *key, unsigned long long v);
void vn__json_bool(vn__json *j, const char *key, int v);            /* < 0 -> null */
void vn__json_null(vn__json *j, const char *key);

#endif
