/* The commands' output through a pipe (--output pipe): a thread reads
 * the pipe's far end and throws what it reads away. */
#include <signal.h>
#include <fcntl.h>
#include <poll.h>

#include "run.h"

/* Reads and drops what the commands write until the write end is closed by
 * all, or until vn__drain_stop() says to stop: something a command left
 * running may hold the write end for good. The thread ends by returning,
 * never by cancellation, which is not safe to interrupt a read with under
 * every runtime (AddressSanitizer's thread teardown, for one). */
static void *drain_loop(void *arg)
{
    drain *d = arg;
    char buf[65536];
    struct pollfd pf[2] = {{d->r, POLLIN, 0}, {d->stop[0], POLLIN, 0}};
    for (;;) {
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return NULL;
        }
        if (pf[1].revents)
            return NULL;
        if (pf[0].revents) {
            ssize_t n = read(d->r, buf, sizeof buf);
            if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
                return NULL;
        }
    }
}

int vn__drain_start(drain *d)
{
    int fd[2];
    d->r = d->w = d->stop[0] = d->stop[1] = -1;
    d->running = 0;
    if (pipe2(fd, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(d->stop, O_CLOEXEC) != 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    d->r = fd[0];
    d->w = fd[1];
    if (pthread_create(&d->thread, NULL, drain_loop, d) != 0) {
        close(fd[0]);
        close(fd[1]);
        close(d->stop[0]);
        close(d->stop[1]);
        d->r = d->w = d->stop[0] = d->stop[1] = -1;
        errno = EAGAIN;
        return -1;
    }
    d->running = 1;
    return 0;
}

/* Closes the write end and tells the thread to stop, then waits for it. */
void vn__drain_stop(drain *d)
{
    if (d->w >= 0)
        close(d->w);
    if (d->running) {
        char one = 1;
        while (write(d->stop[1], &one, 1) < 0 && errno == EINTR)
            ;
        pthread_join(d->thread, NULL);
    }
    for (int i = 0; i < 2; i++)
        if (d->stop[i] >= 0)
            close(d->stop[i]);
    if (d->r >= 0)
        close(d->r);
    d->r = d->w = d->stop[0] = d->stop[1] = -1;
    d->running = 0;
}
