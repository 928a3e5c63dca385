/* vernier kbench: the module's debugfs files (cmd_kbench_files.h): its targets
 * listed, knobs set, files read, each failure a message that says what to
 * do (load the module, mount debugfs, be root). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_kbench_files.h"

#define CMD "kbench"
/* statfs's f_type of debugfs (linux/magic.h). */
#define DEBUGFS_MAGIC 0x64626720

int vn_kb_by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folders under root, sorted, "empty" first: the module's targets. */
int vn_kb_list_targets(const char *root, char **names, size_t *n)
{
    DIR *d = opendir(root);
    if (!d) {
        int e = errno;
        struct statfs fs;
        if (e == ENOENT && getenv("VERNIER_KBENCH_DIR"))
            return vn_cli_fail(CMD, "VERNIER_KBENCH_DIR names %s, which does not exist; unset it "
                               "for the module's own folder, or point it at one", root);
        if (e == EACCES || e == EPERM)
            return vn_cli_fail(CMD, "cannot read %s: %s; the module's files are in debugfs, "
                               "which needs root (sudo)", root, strerror(e));
        if (e == ENOENT && (statfs("/sys/kernel/debug", &fs) || fs.f_type != DEBUGFS_MAGIC))
            return vn_cli_fail(CMD, "debugfs is not mounted: sudo mount -t debugfs none "
                               "/sys/kernel/debug, then load the module");
        if (e == ENOENT)
            return vn_cli_fail(CMD, "%s not found: load the module (sudo insmod "
                               "kernel/vernier_kbench.ko)", root);
        errno = e;
        return vn_cli_fail(CMD, "cannot read %s: %s", root, strerror(errno));
    }
    struct dirent *e;
    *n = 0;
    while ((e = readdir(d)) && *n < VN_KB_MAX_TARGETS)
        if (e->d_name[0] != '.' && e->d_type == DT_DIR && (names[*n] = strdup(e->d_name)))
            (*n)++;
    closedir(d);
    qsort(names, *n, sizeof *names, vn_kb_by_name);
    for (size_t i = 1; i < *n; i++)
        if (!strcmp(names[i], "empty")) {
            char *e = names[i];
            memmove(names + 1, names, i * sizeof *names);
            names[0] = e;
        }
    return *n ? VN_EXIT_OK : vn_cli_fail(CMD, "%s holds no targets: reload the module", root);
}

int vn_kb_is_root_error(int e)
{
    return e == EACCES || e == EPERM || e == EROFS;
}

/* Writes value to root/target/file in one write, the path into path:
 * 0, or the errno of the open, the write or the close. */
int vn_kb_write_value(const char *root, const char *target, const char *file, const char *value,
                      char *path, size_t pathlen)
{
    snprintf(path, pathlen, "%s/%s/%s", root, target, file);
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    int e = fd < 0 ? errno : 0;
    if (fd >= 0) {
        size_t len = strlen(value);
        if (write(fd, value, len) != (ssize_t)len)
            e = errno ? errno : EIO;
        if (close(fd) && !e)
            e = errno;
    }
    return e;
}

/* Writes value to root/target/file. 0, else 1 or 2 after a message. */
int vn_kb_set_knob(const char *root, const char *target, const char *file, const char *value)
{
    char path[512];
    int e = vn_kb_write_value(root, target, file, value, path, sizeof path);
    if (!e)
        return 0;
    if (vn_kb_is_root_error(e))
        return vn_cli_fail(CMD, "cannot set %s: %s; setting the module's knobs needs root "
                           "(sudo)", path, strerror(e));
    if (e == EINVAL)
        return vn_cli_usage_error(CMD, "the module refused %s for %s/%s", value, target, file);
    return vn_cli_fail(CMD, "cannot set %s: %s", path, strerror(e));
}

/* Reads root/target/file whole into b. 0, else 1 after a message. */
int vn_kb_read(const char *root, const char *target, const char *file, vn_buf *b)
{
    char path[512], chunk[65536];
    snprintf(path, sizeof path, "%s/%s/%s", root, target, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (vn_kb_is_root_error(e))
            return vn_cli_fail(CMD, "cannot read %s: %s; reading the module's files needs root "
                               "(sudo)", path, strerror(e));
        return vn_cli_fail(CMD, "cannot read %s: %s", path, strerror(e));
    }
    ssize_t got;
    int rc = 0;
    while ((got = read(fd, chunk, sizeof chunk)) > 0)
        if ((rc = vn_buf_append(b, chunk, (size_t)got)) != 0)
            break;
    int e = errno;
    close(fd);
    if (got < 0)
        return vn_cli_fail(CMD, "cannot read %s: %s", path, strerror(e));
    if (rc)
        return vn_cli_fail(CMD, "cannot read %s: %s", path, vn_strerror(rc));
    return 0;
}

int vn_kb_has_file(const char *root, const char *target, const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/%s", root, target, file);
    return access(path, F_OK) == 0;
}
