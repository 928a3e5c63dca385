/* Cgroups for the peak memory of a process tree, which vernier run reads:
 * private to the library and the tool (not installed). The pure part of
 * finding a cgroup is apart, for tests and fuzzing. */
#ifndef VN_CGROUP_INTERNAL_H
#define VN_CGROUP_INTERNAL_H

#include <stddef.h>

/* From the text of /proc/self/cgroup and /proc/self/mountinfo, the directory
 * of this process's group in the cgroup v1 memory hierarchy: the mount point
 * of a "cgroup" filesystem with the memory option, joined with the group's
 * path below that mount's root. 0 and the path in out, or VN_ENOTSUP when
 * there is no such hierarchy or the group is outside the mount. */
int vn__cgroup_v1_memory_dir(const char *self, const char *mountinfo, char *out, size_t n);

/* Under cgroup v2 mounted at root, the directory to make vernier's group
 * in, for this process's group (the path after "0::" in /proc/self/cgroup):
 * the group itself when its cgroup.subtree_control enables memory, else its
 * parent when that one does. 0 and the directory in out; VN_ENOTSUP with a
 * reason in why when neither does. */
int vn__cgroup_v2_parent(const char *root, const char *group, char *out, size_t n, char *why,
                         size_t whylen);


/* A cgroup for measuring the peak memory of a whole process tree: under
 * cgroup v2 (memory.peak) when its hierarchy has the memory controller,
 * else in the cgroup v1 memory hierarchy (memory.max_usage_in_bytes).
 * vn__cgroup_create makes a fresh child of this process's group, or says in
 * why (VN_ENOTSUP) why it cannot: no memory controller, no permission, a
 * kernel without memory.peak. */
int  vn__cgroup_create(char *dir, size_t dirlen, char *why, size_t whylen);
/* Under cgroup v2, a fresh group named first-SEQ beside first (the group
 * vn__cgroup_create made, which may be gone by now): for kernels that cannot
 * reset memory.peak, a new group per run is the reset. 0, or a negative
 * code with why (VN_EINVAL for no first or a seq of 0, VN_ENOTSUP when the
 * group cannot be made). */
int  vn__cgroup_create_next(const char *first, unsigned seq, char *next, size_t nextlen,
                           char *why, size_t whylen);
/* Moves process pid (and so its later children) into the group: 0 or -errno. */
int  vn__cgroup_join(const char *dir, long pid);
/* The group's peak, read through one open file: vn__cgroup_peak_open opens
 * it (a file descriptor, or -errno) and starts the count; vn__cgroup_peak
 * gives the peak since the last call, in KiB, and starts the next. Under
 * cgroup v2 a reset holds only for what is read through the same file, so
 * keep it open for the group's life. A kernel that cannot reset gives
 * -(peak) - 1. */
int  vn__cgroup_peak_open(const char *dir);
int  vn__cgroup_peak(int fd, long long *kib);
/* Removes the group, waiting up to a second for processes still exiting:
 * 0, or -errno (EBUSY: something the commands started is still in it). */
int  vn__cgroup_remove(const char *dir);

#endif
