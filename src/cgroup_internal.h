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

/* Under cgroup v2 mounted at root, the directory to make vernier's group
 * in, for this process's group (the path after "0::" in /proc/self/cgroup):
 * the group itself when its cgroup.subtree_control enables memory, else its
 * parent when that one does. 0 and the directory in out; VN_ENOTSUP with a
 * reason in why when neither does. */
int vn__cgroup_v2_parent(const char *root, const char *group, char *out, size_t n, char *why,
                         size_t whylen);

#endif
