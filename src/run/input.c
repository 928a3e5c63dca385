/* An input read only once, copied for every run: see run/input.h. */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock/internal.h"
#include "base/interrupt.h"
#include "vernier/base.h"

/* How often the wait looks at the stop flag when no signal woke it (a flag
 * raised by another thread of a host program). */
static const long STOP_CHECK_NS = 250000000;

/* The descriptor a name stands for ("-" and /dev/stdin: 0; /dev/fd/N and
 * /proc/self/fd/N: N), or -1 when it names none. Such a name cannot be
 * opened in a command: the descriptor is vernier's, and the spawn closes
 * the command's 0 before it opens the input there. */
static int named_fd(const char *p)
{
    if (!strcmp(p, "-") || !strcmp(p, "/dev/stdin"))
        return 0;
    static const char *const dirs[] = {"/dev/fd/", "/proc/self/fd/"};
    for (size_t i = 0; i < 2; i++) {
        size_t l = strlen(dirs[i]);
        if (strncmp(p, dirs[i], l))
            continue;
        const char *d = p + l;
        size_t n = strspn(d, "0123456789");
        if (n == 0 || n > 9 || d[n])
            return -1;
        int fd = 0;
        for (size_t k = 0; k < n; k++)
            fd = fd * 10 + (d[k] - '0');
        return fd;
    }
    return -1;
}

int vn__input_once(const char *input)
{
    struct stat st;
    if (!input)
        return 0;
    return named_fd(input) >= 0 || (stat(input, &st) == 0 && S_ISFIFO(st.st_mode));
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? -errno : VN_EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Copies src to its end into dst; see vn__run_input_copy for the rest. */
static int copy(int src, int dst, const char *input, double timeout, const volatile int *stop,
                char *err, size_t errlen)
{
    uint64_t t0 = vn__posix_read(CLOCK_MONOTONIC);
    uint64_t deadline = timeout > 0 ? t0 + (uint64_t)(timeout * 1e9) : UINT64_MAX;
    sigset_t block, old;
    vn__stop_signals(&block);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    char buf[65536];
    int rc = 0;
    size_t total = 0;
    for (;;) {
        if (stop && *stop) {
            rc = 1;
            break;
        }
        uint64_t now = vn__posix_read(CLOCK_MONOTONIC);
        if (now >= deadline) {
            snprintf(err, errlen,
                     "--input '%s' did not end within --timeout %g s; a FIFO or pipe ends when "
                     "its last writer closes it",
                     input, timeout);
            rc = -ETIMEDOUT;
            break;
        }
        uint64_t left = deadline - now < (uint64_t)STOP_CHECK_NS ? deadline - now
                                                                 : (uint64_t)STOP_CHECK_NS;
        struct timespec ts = {0, (long)left};
        struct pollfd p = {src, POLLIN, 0};
        /* The stop signals get in only while ppoll() sleeps: one that came
         * before it is seen there, not lost between the check and the wait. */
        int n = ppoll(&p, 1, &ts, &old);
        if (n < 0 && errno != EINTR) {
            rc = -errno;
            snprintf(err, errlen, "cannot read --input '%s': %s", input, strerror(errno));
            break;
        }
        if (n <= 0)
            continue;
        ssize_t got = read(src, buf, sizeof buf);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got < 0) {
            rc = -errno;
            snprintf(err, errlen, "cannot read --input '%s': %s", input, strerror(errno));
            break;
        }
        if (got == 0)
            break;
        /* Kept in memory, like every input vernier reads whole: capped. */
        total += (size_t)got;
        if (total > VN__INPUT_MAX) {
            snprintf(err, errlen, "--input '%s' holds more than %zu MiB, the most kept in memory "
                     "for the runs; give a regular file, which each run reads in place", input,
                     VN__INPUT_MAX >> 20);
            rc = -EFBIG;
            break;
        }
        if ((rc = write_all(dst, buf, (size_t)got)) != 0) {
            snprintf(err, errlen, "cannot keep a copy of --input '%s' in memory: %s", input,
                     strerror(-rc));
            break;
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int vn__run_input_copy(const char *input, double timeout, const volatile int *stop,
                       vn__run_input *in, char *err, size_t errlen)
{
    in->fd = -1;
    in->path[0] = '\0';
    int src = named_fd(input), own = 0;
    if (src >= 0) {
        if (fcntl(src, F_GETFD) < 0) {
            snprintf(err, errlen, "cannot read --input '%s': descriptor %d is not open", input, src);
            return -EBADF;
        }
    } else {
        /* Without O_NONBLOCK, opening a FIFO waits for a writer, deaf to
         * --timeout and to signals; the wait is the poll's instead. */
        src = open(input, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (src < 0) {
            int e = errno;
            snprintf(err, errlen, "cannot read --input '%s': %s", input, strerror(e));
            return -e;
        }
        own = 1;
        int fl = fcntl(src, F_GETFL);
        if (fl >= 0)
            fcntl(src, F_SETFL, fl & ~O_NONBLOCK);
    }
    int mem = memfd_create("vernier-input", MFD_CLOEXEC);
    if (mem < 0) {
        int e = errno;
        snprintf(err, errlen, "cannot keep a copy of --input '%s' in memory: %s", input,
                 strerror(e));
        if (own)
            close(src);
        return -e;
    }
    int rc = copy(src, mem, input, timeout, stop, err, errlen);
    if (own)
        close(src);
    if (rc != 0) {
        close(mem);
        return rc;
    }
    in->fd = mem;
    snprintf(in->path, sizeof in->path, "/proc/%ld/fd/%d", (long)getpid(), mem);
    return 0;
}

void vn__run_input_free(vn__run_input *in)
{
    if (in && in->fd >= 0) {
        close(in->fd);
        in->fd = -1;
    }
}
