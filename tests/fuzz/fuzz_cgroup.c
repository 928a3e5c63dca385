/* Fuzz target: finding the cgroup v1 memory directory in the text of
 * /proc/self/cgroup and /proc/self/mountinfo. The kernel writes both, but
 * their layout varies with the system (hybrid hierarchies, containers,
 * optional mount tags); nothing in them may crash the parser, and a path it
 * returns must be an absolute path that fits. The input is split at its
 * first NUL: the cgroup text, then the mountinfo text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/cgroup_internal.h"
#include "main/all.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 2);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = text[size + 1] = '\0';
    const char *self = text;
    const char *mounts = text + strlen(text) + 1;
    if (mounts > text + size)
        mounts = text + size;
    char dir[64];
    memset(dir, 'x', sizeof dir);
    int rc = vn__cgroup_v1_memory_dir(self, mounts, dir, sizeof dir);
    if (rc == 0 && (dir[0] != '/' || !memchr(dir, '\0', sizeof dir)))
        abort();
    if (rc != 0 && rc != VN_ENOTSUP && rc != VN_ERANGE)
        abort();
    free(text);
    return 0;
}
