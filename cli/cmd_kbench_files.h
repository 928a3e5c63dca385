/* What vernier kbench (cmd_kbench.c) reads and writes of the module's
 * debugfs files (cmd_kbench_files.c). */
#ifndef VN_CMD_KBENCH_FILES_H
#define VN_CMD_KBENCH_FILES_H

#include <stddef.h>

#include "vernier/base.h"

/* The most targets read from the module's folder. */
#define VN_KB_MAX_TARGETS 64

/* The folders under root, sorted, "empty" first: the module's targets,
 * strdup'ed into names (room for VN_KB_MAX_TARGETS), their count into n.
 * 0, else 1 after a message that says what to do. */
int vn_kb_list_targets(const char *root, char **names, size_t *n);

/* qsort's comparison of two names (char *). */
int vn_kb_by_name(const void *a, const void *b);

/* Whether errno e says that root is needed. */
int vn_kb_is_root_error(int e);

/* Writes value to root/target/file in one write, the path into path:
 * 0, or the errno of the open, the write or the close. */
int vn_kb_write_value(const char *root, const char *target, const char *file, const char *value,
                      char *path, size_t pathlen);

/* Writes value to root/target/file. 0, else 1 or 2 after a message. */
int vn_kb_set_knob(const char *root, const char *target, const char *file, const char *value);

/* Reads root/target/file whole into b. 0, else 1 after a message. */
int vn_kb_read(const char *root, const char *target, const char *file, vn_buf *b);

/* Whether root/target/file exists. */
int vn_kb_has_file(const char *root, const char *target, const char *file);

#endif
