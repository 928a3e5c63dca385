/* vernier run --fake-exec (cmd_run_fake.c): the runs' numbers from a
 * file, for testing the reports. */
#ifndef VN_CLI_CMD_RUN_FAKE_H
#define VN_CLI_CMD_RUN_FAKE_H

#include <stddef.h>

#include "run/exec_api.h"

/* --fake-exec: each run's numbers from a file, for testing the reports. */
typedef struct vn_cli_fake {
    double *v;   /* 5 numbers per run */
    size_t n, next;
} vn_cli_fake;

/* Reads path into f; 0, or 1 after saying why on stderr. */
int vn_cli_fake_load(const char *path, vn_cli_fake *f);
void vn_cli_fake_free(vn_cli_fake *f);
/* A vn_run_config executor: the next run's numbers, cycling through the file. */
int vn_cli_fake_exec(const vn_exec_opts *o, double *wall_ns, vn_proc_usage *u, char *err,
                     size_t errlen, void *ctx);

#endif
