/* Small bounded reads of procfs and sysfs text, and what a path names. */
#ifndef VN_FILEUTIL_H
#define VN_FILEUTIL_H

#include <stddef.h>

/* Reads at most max-1 bytes of a file into buf, NUL-terminated, looping
 * until EOF (procfs files report a size of 0 and may arrive in short reads).
 * Returns the length, or a negative code when the file cannot be read. */
long vn__read_text(const char *path, char *buf, size_t max);

/* Is path where standard output already goes (/dev/stdout, /proc/self/fd/1,
 * or the file stdout was redirected to)? Then it is standard output, as
 * '-' is. */
int vn__is_stdout(const char *path);

/* What to do when a results file cannot be written (after "cannot write
 * 'PATH': REASON; "): vn_write_file_atomic() writes a temporary file beside
 * PATH and renames it, so the directory must take new files. */
#define VN__WRITE_HINT "choose a path in a directory you can write (the file is written beside it, then renamed)"

#endif
