/* The standard input of `vernier run`'s commands, when it can be read only
 * once: standard input itself, another open descriptor (/dev/fd/N, which
 * a shell's <(...) gives), a FIFO. Every run must get the same bytes and
 * none may wait for a writer that never comes, so such an input is read to
 * its end once, before the first run, into a file in memory that each run
 * then opens from its start. */
#ifndef VN_RUN_INPUT_H
#define VN_RUN_INPUT_H

#include <stddef.h>

/* The most such an input may hold: as much as any file vernier reads
 * whole (vn_buf's default maximum). */
#define VN__INPUT_MAX ((size_t)256 << 20)

typedef struct vn__run_input {
    int fd;          /* the copy (a memfd); -1: none */
    char path[64];   /* /proc/PID/fd/N, which the commands open */
} vn__run_input;

/* Whether input names something read only once (see above): "-",
 * /dev/stdin, /dev/fd/N, /proc/self/fd/N, or a FIFO. */
int vn__input_once(const char *input);

/* Reads input to its end into in->fd, waiting for it at most timeout
 * seconds (0: no limit) and only while *stop (may be NULL) stays 0.
 * SIGINT, SIGTERM and SIGHUP get in during the wait, so their handlers can
 * raise *stop. Returns 0 (in->path names the copy), 1 when *stop was
 * raised, or a negative code with a one-line message in err; in->fd is -1
 * unless 0 is returned. */
int vn__run_input_copy(const char *input, double timeout, const volatile int *stop,
                       vn__run_input *in, char *err, size_t errlen);

/* Closes the copy; in->fd -1 does nothing. */
void vn__run_input_free(vn__run_input *in);

#endif
