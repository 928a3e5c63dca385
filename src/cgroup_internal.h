/* The pure part of finding a cgroup, for tests and fuzzing. */
#ifndef VN_CGROUP_INTERNAL_H
#define VN_CGROUP_INTERNAL_H

#include <stddef.h>

/* From the text of /proc/self/cgroup and /proc/self/mountinfo, the directory
 * of this process's group in the cgroup v1 memory hierarchy: the mount point
 * of a "cgroup" filesystem with the memory option, joined with the group's
 * path below that mount's root. 0 and the path in out, or VN_ENOTSUP when
 * there is no such hierarchy or the group is outside the mount. */
int vn__cgroup_v1_memory_dir(const char *self, const char *mountinfo, char *out, size_t n);

#endif
