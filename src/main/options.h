/* vn_main()'s long options and their help (options.c), for a tool that
 * passes them on to vn_suite_main() (vernier suite), so that it accepts
 * and describes exactly those. */
#ifndef VN_MAIN_OPTIONS_H
#define VN_MAIN_OPTIONS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* The long options of vn_main but those named in skip (NULL-ended, or
 * NULL), into out (room for n); how many. */
size_t vn__main_longopts(struct option *out, size_t n, const char *const *skip);

/* Their help lines, as vn_main's --help prints them, but those in skip. */
void vn__main_options_help(FILE *f, const char *const *skip);

#endif
