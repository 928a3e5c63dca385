/* What a benchmark program does after its run with the vernier tool
 * (main_report.c): the console's flags, --report's page and --store's
 * record. */
#ifndef VN_MAIN_REPORT_H
#define VN_MAIN_REPORT_H

#include <stddef.h>

/* --report: the vernier tool, next to the
 * program or along PATH, into out; 0 or VN_ENOENT. */
int vn__main_report_tool(char *out, size_t n);
/* The page of r written to path by that tool: 0, or 1 after a message. */
struct vn_results;
int vn__main_report(const char *prog, const char *tool, const struct vn_results *r,
                    const char *path);
/* --store: r kept in the store at url (NULL: $VERNIER_STORE) by that
 * tool's 'vernier store add', after the files are written: 0, or 1 after
 * a message. */
int vn__main_store(const char *prog, const char *tool, const struct vn_results *r,
                   const char *url);

/* The flags of the console report on fd: colors on a terminal unless
 * NO_COLOR or no_color say otherwise, explain's text, and on a terminal its
 * width (a file or a pipe gets every column). */
unsigned vn__main_console_flags(int fd, int no_color, int explain);

#endif
