/* The progress line of a long measurement, for a terminal: one pure
 * function from the numbers to the text, so every engine draws the same. */
#ifndef VN_PROGRESS_H
#define VN_PROGRESS_H

#include <stddef.h>

/* Writes into out (n bytes, NUL-terminated) one line of at most width
 * columns (at least 20 are used) and no newline:
 *   "NAME  [#####-----]  12/40  ETA 3.4 s"
 * name is what runs now, cut with "..." to what fits; done of planned
 * items are finished after elapsed seconds, so the rest at that pace is the
 * estimate of the time left (none before the first item ends). Planned may
 * be a guess that grows: done above it is shown as done of done. Returns the
 * line's length in bytes. */
size_t vn__progress_line(char *out, size_t n, const char *name, size_t done, size_t planned,
                         double elapsed, int width);

#endif
