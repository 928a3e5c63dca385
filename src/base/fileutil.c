/* Files: small bounded reads of procfs and sysfs text, what a path names,
 * and the atomic writes of results files. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "fileutil.h"
#include "vernier/base.h"

const char *vn__find_helper(const char *name, const char *libexecdir, char *buf, size_t n)
{
    char self[4096];
    ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
    if (l > 0) {
        self[l] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            static const char *const rel[] = {"", "../libexec/vernier/"};
            for (size_t i = 0; i < 2; i++)
                if (snprintf(buf, n, "%s/%s%s", self, rel[i], name) < (int)n && access(buf, X_OK) == 0)
                    return buf;
        }
    }
    return snprintf(buf, n, "%s/%s", libexecdir, name) < (int)n && access(buf, X_OK) == 0 ? buf : NULL;
}

long vn__read_text(const char *path, char *buf, size_t max)
{
    if (!max)
        return VN_EINVAL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t len = 0;
    while (len + 1 < max) {
        ssize_t n = read(fd, buf + len, max - 1 - len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int rc = -errno;
            close(fd);
            buf[0] = '\0';
            return rc;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    buf[len] = '\0';
    return (long)len;
}

int vn__is_stdout(const char *path)
{
    struct stat a, b;
    return stat(path, &a) == 0 && fstat(STDOUT_FILENO, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

char *vn__write_error(char *buf, size_t n, const char *path, int rc)
{
    struct stat st;
    const char *fix;
    if (rc == -ENOENT) {
        /* The directory is there, yet a new file in it is "not found": a
         * file system such as /proc or /sys, which makes no files on
         * request. The file is written beside the path, then renamed. */
        const char *slash = strrchr(path, '/');
        char dir[4096];
        int dl = slash ? (slash == path ? 1 : (int)(slash - path)) : 1;
        snprintf(dir, sizeof dir, "%.*s", dl, slash ? path : ".");
        if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(buf, n,
                     "cannot write '%s': its directory '%s' takes no new files; choose a path "
                     "in a directory you can write",
                     path, dir);
            return buf;
        }
    }
    if (rc == -EISDIR)
        fix = "give a file name, not a directory";
    else if (rc == -ENAMETOOLONG)
        fix = "choose a shorter name (the file is first written under its name plus "
               "up to 22 characters, then renamed)";
    else if (rc == -ENOSPC || rc == -EDQUOT)
        fix = "free some space there, or choose a path on another file system";
    else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        fix = "choose a file you can write"; /* a device or FIFO, written in place */
    else
        fix = "choose a path in a directory you can write (the file is written beside it, "
               "then renamed)";
    snprintf(buf, n, "cannot write '%s': %s; %s", path, vn_strerror(rc), fix);
    return buf;
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
    /* A file its owner made read-only is refused as a shell's '>' refuses
     * it: replaced by a rename, it would be lost without a word. */
    if (exists && faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0)
        return -errno;
    char *resolved;
    int lrc = link_target(path, &resolved);
    if (lrc)
        return lrc;
    if (resolved)
        path = resolved;
    sweep_stale(path);
    /* Ctrl-C, SIGTERM or SIGHUP while the file is written would leave the
     * temporary file behind: they wait until it is renamed or removed, and
     * are delivered then (a write of megabytes takes milliseconds). */
    sigset_t hold, old_mask;
    sigemptyset(&hold);
    sigaddset(&hold, SIGINT);
    sigaddset(&hold, SIGTERM);
    sigaddset(&hold, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &hold, &old_mask);
    char *tmp;
    int fd = temp_beside(path, &tmp);
    if (fd < 0) {
        pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
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
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    free(tmp);
    free(resolved);
    return rc;
}

char *vn__parent_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
}

int vn__same_file(const char *a, const char *b)
{
    struct stat x, y;
    if (!a || !b || stat(a, &x) != 0 || stat(b, &y) != 0)
        return 0;
    return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

int vn__output_check(const char *path)
{
    if (!path || !*path)
        return VN_EINVAL;
    if (!strcmp(path, "-") || vn__is_stdout(path))
        return 0; /* written to standard output, as vn_write_file_atomic() does */
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return -EISDIR;
        /* An existing device or FIFO is written in place; a file must be
         * writable, as for a shell's '>'. */
        if (!S_ISREG(st.st_mode) || faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0)
            return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0 ? 0 : -errno;
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
