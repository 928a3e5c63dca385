/* Small bounded reads of procfs and sysfs text, and what a path names. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileutil.h"
#include "vernier/base.h"

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
