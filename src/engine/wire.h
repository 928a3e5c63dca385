/* What a benchmark program tells the worker processes it starts, and what
 * they send back: the plan of one process (which rows, how many samples
 * each, its share of their budgets, the timer measured once), and each
 * row's raw samples from it. Both ends are the same program, so the bytes
 * are this library's own layout; a magic number, a version and the sizes
 * of the records guard against anything else on the pipe. Pure: bytes in,
 * bytes out. */
#ifndef VN_BENCH_WIRE_H
#define VN_BENCH_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "vernier/base.h"

/* One row of a process's plan. */
typedef struct vn__wire_row {
    char name[192];          /* the row's name, which the worker's suite must have */
    uint64_t iters;          /* iterations per sample; 0: calibrate them */
    uint64_t samples;        /* take this many samples (fewer if the share runs out) */
    double share_ns;         /* of the row's own time in this process */
    double settle_tol;       /* warm up until two samples in a row agree within this
                                share (policy settle); 0: one sample */
} vn__wire_row;

typedef struct vn__wire_plan {
    uint32_t process;        /* 0, 1, ... */
    uint64_t seed;           /* the order the rows take turns in, the stack offset */
    int32_t timer;           /* vn_clock_id, measured once by the program that started it */
    double timer_cost_ns, timer_resolution_ns;
    double counter_hz, counter_error_ppm; /* the counter's calibration; NAN: none */
    size_t nrows;
    vn__wire_row *rows;      /* owned by whoever filled it */
} vn__wire_plan;

int vn__wire_plan_write(const vn__wire_plan *p, vn_buf *out);
/* 0, or VN_EINVAL for bytes that are no plan; VN_ENOMEM. p->rows is then
 * the caller's to free. */
int vn__wire_plan_read(const void *data, size_t len, vn__wire_plan *p);

/* A row's samples from one process (vn__part), written with its index in
 * the plan; nctr counters per sample. */
int vn__wire_part_write(uint32_t index, const vn__part *part, size_t nctr, vn_buf *out);
/* The end of a worker's answer: it sent every row it had. */
int vn__wire_end_write(vn_buf *out);

/* Reads the parts of a worker's answer in order: each call reads one from
 * *pos on, into *part (zeroed first; the caller frees it with
 * vn__part_free) with its index and counters per sample. 1 with the end
 * marker read (complete), 0 with a part read, VN_EINVAL for bytes that are
 * cut short or no answer. */
int vn__wire_part_read(const void *data, size_t len, size_t *pos, uint32_t *index, vn__part *part,
                       size_t *nctr);

#endif
