/* vernier run --help (cmd_run_help.c). */
#ifndef VN_CLI_CMD_RUN_HELP_H
#define VN_CLI_CMD_RUN_HELP_H

#include <stdio.h>

/* vernier run --help, to f. */
void vn_cli_run_help(FILE *f);

#endif
