/* Files: small bounded reads of procfs and sysfs text, what a path names,
 * and the atomic writes of results files (declared in vernier/base.h). */
#ifndef VN_FILEUTIL_H
#define VN_FILEUTIL_H

#include <stddef.h>

/* Reads at most max-1 bytes of a file into buf, NUL-terminated, looping
 * until EOF (procfs files report a size of 0 and may arrive in short reads).
 * Returns the length, or a negative code when the file cannot be read. */
long vn__read_text(const char *path, char *buf, size_t max);

/* The tool's helper program name (vernier-spawn, vernier-noop): next to
 * the running program (a build tree), in ../libexec/vernier beside it (an
 * install, wherever it was moved), else in libexecdir, where the build said
 * it would be installed. buf, or NULL when none of them is executable. */
const char *vn__find_helper(const char *name, const char *libexecdir, char *buf, size_t n);

/* Is path where standard output already goes (/dev/stdout, /proc/self/fd/1,
 * or the file stdout was redirected to)? Then it is standard output, as
 * '-' is. */
int vn__is_stdout(const char *path);

/* Do paths a and b name one file (the same device and inode, through any
 * link)? 0 when either does not exist: a file to be made is no input. */
int vn__same_file(const char *a, const char *b);

/* The folder path is in ("." for a bare name), malloc'd; NULL without memory. */
char *vn__parent_dir(const char *path);

/* "cannot write 'PATH': REASON; WHAT TO DO" into buf, for a results file
 * vn__output_check() or vn_write_file_atomic() refused with rc (a negative
 * errno): what to do follows from the reason and from what path names.
 * Returns buf. */
char *vn__write_error(char *buf, size_t n, const char *path, int rc);
#define VN__WRITE_ERROR_MAX 4400 /* room for a path of PATH_MAX bytes */

/* Whether vn_write_file_atomic(path) can succeed, checked before a long run
 * rather than after it: path is not a directory, and its directory takes
 * the temporary file the write will make (one is made and removed). 0, or a
 * negative errno. "-" is always fine. */
int vn__output_check(const char *path);

#endif
