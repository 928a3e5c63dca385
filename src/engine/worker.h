/* A worker process of a benchmark program (engine/worker.c): the program
 * started again by itself to measure in a fresh process (engine/procs.c). */
#ifndef VN_BENCH_WORKER_H
#define VN_BENCH_WORKER_H

#include "engine.h"

/* The socket to the program that started this process as a worker, from
 * the environment, which then no longer says so (a program the benchmarks
 * start is no worker); -1 when this process is none. */
int vn__worker_fd(void);

/* Measures suite s as the plan read from fd says (cfg: the options the
 * program was started with), sends the samples back on fd and closes it.
 * The exit status for the worker: 0, or 1 after a message on stderr that
 * names prog. */
int vn__worker_run(vn_suite *s, const vn_config *cfg, int fd, const char *prog);

#endif
