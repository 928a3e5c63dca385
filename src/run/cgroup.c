/* A cgroup around the commands of vernier run, for the peak memory of a
 * whole process tree: memory.peak under cgroup v2, or the v1 memory
 * controller's memory.max_usage_in_bytes, which both count every process of
 * the group and can be reset between runs. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup_internal.h"
#include "base/fileutil.h"
#include "run/exec_api.h"

#define CGROUP_ROOT "/sys/fs/cgroup"

/* The field after `skip` spaces in line (up to the next space or newline). */
static const char *field(const char *line, int skip, size_t *len)
{
    const char *p = line;
    for (int i = 0; i < skip; i++) {
        p = strpbrk(p, " \n");
        if (!p || *p == '\n')
            return NULL;
        p++;
    }
    *len = strcspn(p, " \n");
    return p;
}

/* Is word one of the comma-separated items of list[0..len)? */
static int has_item(const char *list, size_t len, const char *word)
{
    size_t w = strlen(word);
    for (size_t i = 0; i < len;) {
        size_t k = i;
        while (k < len && list[k] != ',')
            k++;
        if (k - i == w && !memcmp(list + i, word, w))
            return 1;
        i = k + 1;
    }
    return 0;
}

/* The line after the one at l (at its NUL when l is the last). */
static const char *next_line(const char *l)
{
    l += strcspn(l, "\n");
    return *l ? l + 1 : l;
}

int vn__cgroup_v1_memory_dir(const char *self, const char *mountinfo, char *out, size_t n)
{
    if (!self || !mountinfo || !out || !n)
        return VN_EINVAL;
    /* "ID:memory,other:/path": the controllers are the second field. */
    const char *path = NULL;
    size_t plen = 0;
    for (const char *l = self; *l; l = next_line(l)) {
        size_t ll = strcspn(l, "\n");
        const char *c1 = memchr(l, ':', ll);
        const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(l + ll - c1 - 1)) : NULL;
        if (c2 && has_item(c1 + 1, (size_t)(c2 - c1 - 1), "memory")) {
            path = c2 + 1;
            plen = (size_t)(l + ll - path);
            break;
        }
    }
    if (!path || !plen || path[0] != '/')
        return VN_ENOTSUP;
    /* mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - TYPE
     * SOURCE SUPER-OPTIONS". */
    for (const char *l = mountinfo; *l; l = next_line(l)) {
        size_t ll = strcspn(l, "\n");
        const char *dash = NULL;
        for (const char *p = l; p + 2 < l + ll; p++)
            if (p[0] == ' ' && p[1] == '-' && p[2] == ' ') {
                dash = p + 3;
                break;
            }
        size_t tl = 0, ol = 0, rl = 0, ml = 0;
        const char *type = dash ? field(dash, 0, &tl) : NULL;
        const char *opts = dash ? field(dash, 2, &ol) : NULL;
        if (!type || !opts || tl != 6 || memcmp(type, "cgroup", 6) ||
            opts + ol > l + ll || !has_item(opts, ol, "memory"))
            continue;
        const char *root = field(l, 3, &rl);
        const char *mnt = field(l, 4, &ml);
        if (!root || !mnt || !ml || mnt[0] != '/')
            continue;
        /* The group's path is relative to the hierarchy; the mount shows it
         * from root on, and another mount of it may show more. */
        size_t skip = rl == 1 && root[0] == '/' ? 0 : rl;
        if (skip && (plen < skip || memcmp(path, root, skip) ||
                     (plen > skip && path[skip] != '/')))
            continue;
        const char *rest = path + skip;
        size_t restlen = plen - skip;
        if (restlen == 1 && rest[0] == '/')
            restlen = 0;
        int w = snprintf(out, n, "%.*s%.*s", (int)ml, mnt, (int)restlen, rest);
        return w < 0 || (size_t)w >= n ? VN_ERANGE : 0;
    }
    return VN_ENOTSUP;
}

/* Does the cgroup v2 directory dir enable the memory controller for the
 * groups below it? */
static int subtree_has_memory(const char *dir)
{
    char path[1200], list[512];
    snprintf(path, sizeof path, "%s/cgroup.subtree_control", dir);
    if (vn__read_text(path, list, sizeof list) < 0)
        return 0;
    for (const char *p = list; *p;) {
        size_t l = strcspn(p, " \n");
        if (l == 6 && !memcmp(p, "memory", 6))
            return 1;
        p += l;
        p += strspn(p, " \n");
    }
    return 0;
}

int vn__cgroup_v2_parent(const char *root, const char *group, char *out, size_t n, char *why,
                         size_t whylen)
{
    if (!root || !group || group[0] != '/' || !out || !n)
        return VN_EINVAL;
    size_t gl = strcspn(group, "\n");
    if (gl == 1)
        gl = 0; /* the root group itself */
    char dir[1100];
    int w = snprintf(dir, sizeof dir, "%s%.*s", root, (int)gl, group);
    if (w < 0 || (size_t)w >= sizeof dir)
        return VN_ERANGE;
    /* Our own group, when it lets its children have the memory controller.
     * Most often it does not: a group with processes of its own (a login
     * session's scope, a container's) cannot enable it for children, by
     * cgroup v2's rule that only leaves hold processes. Its parent then
     * does, since our group has the controller: a group beside ours has it
     * too. Moving the helper there needs write access to the parent's
     * cgroup.procs, which root has. */
    const char *pick = NULL;
    char parent[1100];
    snprintf(parent, sizeof parent, "%s", dir);
    if (subtree_has_memory(dir)) {
        pick = dir;
    } else if (gl) {
        *strrchr(parent, '/') = '\0';
        if (strlen(parent) >= strlen(root) && subtree_has_memory(parent))
            pick = parent;
    }
    if (!pick) {
        snprintf(why, whylen,
                 "the memory controller is not enabled for the groups below %s%s (cgroup.subtree_control)",
                 dir, gl ? " nor below its parent" : "");
        return VN_ENOTSUP;
    }
    w = snprintf(out, n, "%s", pick);
    return w < 0 || (size_t)w >= n ? VN_ERANGE : 0;
}

/* The file that holds the group's peak: memory.peak (v2), or
 * memory.max_usage_in_bytes (v1). */
static void peak_file(const char *dir, int v2, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", dir, v2 ? "memory.peak" : "memory.max_usage_in_bytes");
}

/* Makes the group dir and checks that it has the peak file. */
static int make_group(const char *dir, int v2, char *why, size_t whylen)
{
    if (mkdir(dir, 0755) != 0) {
        snprintf(why, whylen, "cannot create %s: %s", dir, strerror(errno));
        return VN_ENOTSUP;
    }
    char peak[1200];
    peak_file(dir, v2, peak, sizeof peak);
    if (access(peak, R_OK) != 0) {
        snprintf(why, whylen, "%s", v2 ? "this kernel has no memory.peak (Linux 5.19 or later)"
                                      : "the memory cgroup has no memory.max_usage_in_bytes");
        rmdir(dir);
        return VN_ENOTSUP;
    }
    return 0;
}

/* The groups vernier-PID and vernier-PID-N below parent that a vernier
 * killed with -9 left (it had no chance to remove them): removed when that
 * PID names no process, after killing what still runs in them (cgroup.kill,
 * Linux 5.14). A live PID's, another vernier's running now, stay. */
static void sweep_dead(const char *parent)
{
    DIR *d = opendir(parent);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "vernier-", 8))
            continue;
        char *end;
        long pid = strtol(e->d_name + 8, &end, 10);
        if (pid <= 0 || (*end && *end != '-') || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char dir[1400], kill_file[1500];
        snprintf(dir, sizeof dir, "%s/%s", parent, e->d_name);
        snprintf(kill_file, sizeof kill_file, "%s/cgroup.kill", dir);
        int fd = open(kill_file, O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            ssize_t ignored = write(fd, "1", 1);
            (void)ignored;
            close(fd);
        }
        for (int tries = 0; tries < 50 && rmdir(dir) != 0 && errno == EBUSY; tries++) {
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
    }
    closedir(d);
}

/* vernier-PID below parent, made. */
static int make_named(const char *parent, int v2, char *dir, size_t dirlen, char *why,
                      size_t whylen)
{
    sweep_dead(parent);
    int w = snprintf(dir, dirlen, "%s/vernier-%ld", parent, (long)getpid());
    if (w < 0 || (size_t)w >= dirlen) {
        snprintf(why, whylen, "the cgroup path is too long");
        return VN_ENOTSUP;
    }
    return make_group(dir, v2, why, whylen);
}

int vn__cgroup_create(char *dir, size_t dirlen, char *why, size_t whylen)
{
    char self[4096] = "";
    if (vn__read_text("/proc/self/cgroup", self, sizeof self) < 0) {
        snprintf(why, whylen, "/proc/self/cgroup cannot be read");
        return VN_ENOTSUP;
    }
    /* cgroup v2, when its hierarchy has the memory controller: the line
     * "0::/path" names the group. */
    const char *v2 = strncmp(self, "0::", 3) == 0 ? self : strstr(self, "\n0::");
    char controllers[512] = "";
    if (v2 && vn__read_text(CGROUP_ROOT "/cgroup.controllers", controllers,
                            sizeof controllers) >= 0 &&
        strstr(controllers, "memory")) {
        v2 += *v2 == '\n' ? 4 : 3;
        char parent[1100];
        int rc = vn__cgroup_v2_parent(CGROUP_ROOT, v2, parent, sizeof parent, why, whylen);
        if (rc == VN_EINVAL || rc == VN_ERANGE)
            snprintf(why, whylen, "this process's cgroup path cannot be used");
        return rc ? VN_ENOTSUP : make_named(parent, 1, dir, dirlen, why, whylen);
    }
    /* Else the v1 memory controller, wherever it is mounted. */
    char mounts[65536], parent[1100];
    if (vn__read_text("/proc/self/mountinfo", mounts, sizeof mounts) < 0 ||
        vn__cgroup_v1_memory_dir(self, mounts, parent, sizeof parent) != 0) {
        snprintf(why, whylen, "this system has neither cgroup v2 with the memory controller nor "
                              "the cgroup v1 memory controller");
        return VN_ENOTSUP;
    }
    return make_named(parent, 0, dir, dirlen, why, whylen);
}

int vn__cgroup_create_next(const char *first, unsigned seq, char *next, size_t nextlen,
                          char *why, size_t whylen)
{
    if (!first || !*first || !seq) {
        snprintf(why, whylen, "not a group vernier made");
        return VN_EINVAL;
    }
    int w = snprintf(next, nextlen, "%s-%u", first, seq);
    if (w < 0 || (size_t)w >= nextlen) {
        snprintf(why, whylen, "the cgroup path is too long");
        return VN_ENOTSUP;
    }
    return make_group(next, 1, why, whylen);
}

int vn__cgroup_join(const char *dir, long pid)
{
    char path[1200], num[32];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    int len = snprintf(num, sizeof num, "%ld", pid);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = write(fd, num, (size_t)len) == len ? 0 : -errno;
    close(fd);
    return rc;
}

int vn__cgroup_peak_open(const char *dir)
{
    char path[1200];
    peak_file(dir, 1, path, sizeof path);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        peak_file(dir, 0, path, sizeof path);
        fd = open(path, O_RDWR | O_CLOEXEC);
    }
    if (fd < 0)
        return -errno;
    /* The first run starts from now; a refusal shows at the first read. */
    ssize_t ignored = write(fd, "0", 1);
    (void)ignored;
    return fd;
}

int vn__cgroup_peak(int fd, long long *kib)
{
    char buf[64];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return VN_EIO;
    buf[n] = '\0';
    *kib = strtoll(buf, NULL, 10) / 1024;
    /* Writing resets the peak to the present use: v1 for the group, v2
     * (Linux 6.12 on) for what is read through this same file, which is
     * why it stays open. Older v2 kernels refuse, and then each run's peak
     * is the peak so far, which the caller says. */
    if (write(fd, "0", 1) != 1)
        *kib = -*kib - 1; /* marks "not reset": the caller reports it once */
    return 0;
}

/* Kills what is still in the group: what a command left running, even
 * outside its process group (setsid), is in its cgroup still. */
static void kill_members(const char *dir)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    long pid;
    while (fscanf(f, "%ld", &pid) == 1)
        if (pid > 1 && pid != (long)getpid())
            kill((pid_t)pid, SIGKILL);
    fclose(f);
}

int vn__cgroup_remove(const char *dir)
{
    if (!dir || !*dir)
        return 0;
    /* Processes of a group just killed (a timeout) may still be exiting:
     * wait for them, up to a second; and what the commands left running
     * is stopped. */
    int e = 0;
    for (int i = 0; i < 100; i++) {
        if (rmdir(dir) == 0 || errno == ENOENT)
            return 0;
        e = errno;
        if (e != EBUSY)
            break;
        kill_members(dir);
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    return -e;
}
