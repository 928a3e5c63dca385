/* Version, error strings, the byte buffer and atomic file writes. */
#include "vernier/base.h"
#include "fileutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *vn_version(void) { return VN_VERSION_STRING; }

const char *vn_strerror(int err)
{
    if (err == 0)
        return "success";
    if (err == VN_ENOMEM)
        return "out of memory or over the buffer's maximum size";
    if (err == VN_EEXIST)
        return "the name is taken already";
    if (err == VN_ENOTSUP)
        return "not supported on this machine or build";
    if (err > 0 || err < -4095)
        return "unknown error";
    /* strerror() of glibc returns a static string for known codes and is
     * thread-safe for them since 2.32; that is all we ask of it. */
    return strerror(-err);
}

void vn_buf_init(vn_buf *b, size_t max)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->max = max ? max : VN_BUF_DEFAULT_MAX;
}

void vn_buf_free(vn_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void vn_buf_reset(vn_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

/* Makes room for extra more bytes plus the terminating NUL. */
static int buf_reserve(vn_buf *b, size_t extra)
{
    if (extra > b->max || b->len + extra > b->max)
        return VN_ENOMEM;
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    if (b->max < SIZE_MAX && cap > b->max + 1)
        cap = b->max + 1;
    char *p = realloc(b->data, cap);
    if (!p)
        return VN_ENOMEM;
    b->data = p;
    b->cap = cap;
    return 0;
}

int vn_buf_append(vn_buf *b, const void *data, size_t len)
{
    int rc = buf_reserve(b, len);
    if (rc)
        return rc;
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return 0;
}

int vn_buf_puts(vn_buf *b, const char *s) { return vn_buf_append(b, s, strlen(s)); }

int vn_buf_vprintf(vn_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return VN_EINVAL;
    if ((size_t)n < sizeof small)
        return vn_buf_append(b, small, (size_t)n);
    int rc = buf_reserve(b, (size_t)n);
    if (rc)
        return rc;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return 0;
}

int vn_buf_printf(vn_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vn_buf_vprintf(b, fmt, ap);
    va_end(ap);
    return rc;
}

static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* The file a symlink at path names, in *out (allocated; NULL when path is
 * not a symlink). A link whose target does not exist yet names it too (read
 * from each link in turn, relative to that link's directory), so that
 * writing through it creates the target, as a shell's > does, rather than
 * replacing a link. 0, or -ELOOP for links that go round, VN_ENOMEM. */
static int link_target(const char *path, char **out)
{
    *out = NULL;
    struct stat lst;
    if (lstat(path, &lst) != 0 || !S_ISLNK(lst.st_mode))
        return 0;
    if ((*out = realpath(path, NULL)) != NULL)
        return 0;
    char *cur = strdup(path);
    for (int hops = 0; cur && hops < 40; hops++) {
        if (lstat(cur, &lst) != 0 || !S_ISLNK(lst.st_mode)) {
            *out = cur; /* not there yet, or not a link: this is the file */
            return 0;
        }
        char to[4096];
        ssize_t n = readlink(cur, to, sizeof to);
        if (n <= 0 || n == (ssize_t)sizeof to) {
            free(cur);
            return -ENAMETOOLONG;
        }
        to[n] = '\0';
        const char *slash = strrchr(cur, '/');
        size_t dirlen = to[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = malloc(dirlen + (size_t)n + 1);
        if (next) {
            memcpy(next, cur, dirlen);
            memcpy(next + dirlen, to, (size_t)n + 1);
        }
        free(cur);
        cur = next;
    }
    if (!cur)
        return VN_ENOMEM;
    free(cur);
    return -ELOOP;
}

/* A new temporary file beside path, for a write renamed over path: it must
 * be in the same directory, since rename() is atomic only within one file
 * system. Its name is path's, ".tmp.", the writer's pid, "." and six
 * random characters (as mkostemp() makes them; mode 0600), and the writer
 * holds an exclusive flock() on it until it is renamed or removed: a later
 * write can then tell one left by a killed writer (see sweep_stale). Its
 * descriptor, with its name in *tmp (malloc'd); or a negative code, *tmp
 * NULL. */
static int temp_beside(const char *path, char **tmp)
{
    size_t plen = strlen(path);
    *tmp = malloc(plen + 40);
    if (!*tmp)
        return VN_ENOMEM;
    snprintf(*tmp, plen + 40, "%s.tmp.%ld.XXXXXX", path, (long)getpid());
    int fd = mkostemp(*tmp, O_CLOEXEC);
    if (fd < 0) {
        fd = -errno;
        free(*tmp);
        *tmp = NULL;
    } else {
        flock(fd, LOCK_EX | LOCK_NB);
    }
    return fd;
}

/* Does name (in the directory of path, whose last part is base) look like
 * a temporary file of temp_beside for that path: base ".tmp." PID "."
 * and six letters or digits? The pid in *pid. */
static int stale_name(const char *name, const char *base, long *pid)
{
    size_t bl = strlen(base);
    if (strncmp(name, base, bl) || strncmp(name + bl, ".tmp.", 5))
        return 0;
    const char *d = name + bl + 5;
    size_t nd = strspn(d, "0123456789");
    if (nd == 0 || nd > 10 || d[nd] != '.')
        return 0;
    const char *r = d + nd + 1;
    static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    if (strlen(r) != 6 || strspn(r, alnum) != 6)
        return 0;
    *pid = strtol(d, NULL, 10);
    return *pid > 0;
}

/* Removes the temporary files of path that writers killed mid-write left
 * behind (kill -9 leaves no chance to clean up, and a results file can be
 * hundreds of megabytes). A file is removed only when its name has exactly
 * temp_beside's pattern for this path, the pid in it names no process, and
 * no one holds its lock: a writer in another pid namespace has a pid that
 * means nothing here, but holds the lock while it writes. */
static void sweep_stale(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
    if (!dir || !*base) {
        free(dir);
        return;
    }
    DIR *d = opendir(dir);
    free(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid;
        if (!stale_name(e->d_name, base, &pid) || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* alive (EPERM: someone else's, alive too) */
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            continue;
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0)
            unlinkat(dirfd(d), e->d_name, 0);
        close(fd);
    }
    closedir(d);
}

int vn_write_file_atomic(const char *path, const void *data, size_t len)
{
    if (!path || !*path || (!data && len))
        return VN_EINVAL;
    if (strcmp(path, "-") == 0) {
        int rc = write_all(STDOUT_FILENO, data, len);
        return rc;
    }
    /* A device, FIFO or socket is written in place: renaming over it would
     * replace /dev/null with a regular file. A symlink is followed, so the
     * link stays and its target gets the new contents. Where standard output
     * goes (/dev/stdout, when it was redirected to a file) is written as
     * '-' is: a new file renamed over that one would leave the shell's
     * descriptor on the old one, and what follows on standard output would
     * land in a file nobody can open any more. */
    if (vn__is_stdout(path))
        return write_all(STDOUT_FILENO, data, len);
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode))
            return -EISDIR;
        int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
            return -errno;
        int rc = write_all(fd, data, len);
        if (close(fd) != 0 && rc == 0)
            rc = -errno;
        return rc;
    }
    char *resolved;
    int lrc = link_target(path, &resolved);
    if (lrc)
        return lrc;
    if (resolved)
        path = resolved;
    sweep_stale(path);
    char *tmp;
    int fd = temp_beside(path, &tmp);
    if (fd < 0) {
        free(resolved);
        return fd;
    }
    int rc = write_all(fd, data, len);
    /* mkostemp creates 0600. A file replaced keeps its mode; a new one is an
     * ordinary file, so the umask decides. */
    if (rc == 0) {
        mode_t mode;
        if (exists) {
            mode = st.st_mode & 0777; /* never set-user-ID: the new file is this user's */
        } else {
            mode_t um = umask(0);
            umask(um);
            mode = 0666 & ~um;
        }
        if (fchmod(fd, mode) != 0)
            rc = -errno;
    }
    if (rc == 0 && fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
        rc = -errno;
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -errno;
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    free(resolved);
    return rc;
}

int vn_output_check(const char *path)
{
    if (!path || !*path)
        return VN_EINVAL;
    if (!strcmp(path, "-") || vn__is_stdout(path))
        return 0; /* written to standard output, as vn_write_file_atomic() does */
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return -EISDIR;
        /* An existing device or FIFO is written in place. */
        if (!S_ISREG(st.st_mode))
            return access(path, W_OK) == 0 ? 0 : -errno;
    }
    /* The write makes a temporary file beside the file (the target, for a
     * symlink) and renames it: that file is made and removed now, before
     * anything is measured. Permission bits would not tell everything: root
     * passes access() on /proc, where no file can be made. */
    char *target;
    int rc = link_target(path, &target);
    if (rc)
        return rc;
    char *tmp;
    int fd = temp_beside(target ? target : path, &tmp);
    free(target);
    if (fd < 0)
        return fd;
    close(fd);
    unlink(tmp);
    free(tmp);
    return 0;
}
