/* What vernier run checks before any run (cmd_run_check.c). */
#ifndef VN_CLI_CMD_RUN_CHECK_H
#define VN_CLI_CMD_RUN_CHECK_H

#include <stddef.h>

#include "cmd_run_opts.h"

/* What can be told wrong before any run: outputs, limits, the CPU, the
 * input, the commands and their parameters; sets the commands in o->c and
 * the report's style. Returns -1 to go on, else the exit status (2 for a
 * usage error, 1 for a file that cannot be read or written), said on stderr. */
int vn_cli_run_check(int argc, char **argv, vn_cli_run_opts *o);

/* vernier-spawn's path in buf, or NULL when there is none (see cmd_run_check.c). */
const char *vn_cli_run_helper(char *buf, size_t n);

#endif
