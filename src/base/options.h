/* What the benchmark programs (vn_main) and the tool share about their
 * command lines. */
#ifndef VN_OPTIONS_H
#define VN_OPTIONS_H

#include <getopt.h>
#include <stddef.h>

/* The message, without a program name, for what getopt_long() refused: c is
 * what it returned ('?' or ':'), arg the word it refused (argv[optind - 1])
 * and opt its optopt. Names the option as typed: a value given to an option
 * that takes none, an abbreviation several options share (and which), a
 * missing value, or an unknown option. */
void vn__option_error(char *msg, size_t len, int c, const char *arg, int opt,
                      const struct option *longopts);

/* The output files of a command line, paths[i] given to option opts[i]
 * (NULL: not given): 1 with a usage error in msg for an empty path, more
 * than one output to standard output ('-'), or two options naming one
 * file; else 0, and *to_stdout says whether one goes to standard output. */
int vn__outputs_usage(const char *const *opts, const char *const *paths, size_t n, int *to_stdout,
                      char *msg, size_t len);

#endif
