/* vn_main()'s options, for a tool that passes them on to vn_suite_main()
 * (vernier suite), so that it accepts and describes exactly those. */
#ifndef VN_BENCH_MAIN_H
#define VN_BENCH_MAIN_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* The long options of vn_main but those named in skip (NULL-ended, or
 * NULL), into out (room for n); how many. */
size_t vn__main_longopts(struct option *out, size_t n, const char *const *skip);

/* Their help lines, as vn_main's --help prints them, but those in skip. */
void vn__main_options_help(FILE *f, const char *const *skip);

/* --report (src/bench_main_report.c): the vernier tool, next to the
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

#endif
