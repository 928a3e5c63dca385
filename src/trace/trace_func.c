/* What `vernier trace` checks before it asks the kernel for anything: that
 * the function is one of the kernel's symbols, and that this process holds
 * the capabilities tracing needs, so that each failure names its cause
 * instead of the EPERM or ENOENT the kernel would give. */
#include <linux/capability.h>
#include <fnmatch.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "trace.h"

int vn__kallsyms_type(FILE *f, const char *name)
{
    char line[512];
    size_t want = strlen(name);
    while (fgets(line, sizeof line, f)) {
        /* "ffffffff813827b0 T __x64_sys_getppid" or "... t name\t[module]" */
        char *sp = strchr(line, ' ');
        if (!sp || !sp[1] || sp[2] != ' ')
            continue;
        const char *sym = sp + 3;
        size_t len = strcspn(sym, " \t\n");
        if (len == want && !memcmp(sym, name, want))
            return (unsigned char)sp[1];
    }
    return 0;
}

int vn__kallsyms_match(FILE *f, const char *pattern, char **names, size_t max, size_t *n)
{
    char line[512];
    size_t count = 0;
    *n = 0;
    while (fgets(line, sizeof line, f)) {
        char *sp = strchr(line, ' ');
        if (!sp || !sp[1] || sp[2] != ' ' || (sp[1] != 't' && sp[1] != 'T'))
            continue;
        char *sym = sp + 3;
        sym[strcspn(sym, " \t\n")] = '\0';
        /* Compiler-made copies (foo.cold, foo.isra.0) are not functions
         * one can name; a pattern does not reach them. */
        if (strchr(sym, '.') || fnmatch(pattern, sym, 0))
            continue;
        int seen = 0;
        for (size_t i = 0; i < *n && !seen; i++)
            seen = !strcmp(names[i], sym);
        if (seen)
            continue;
        count++;
        if (*n < max) {
            if (!(names[*n] = strdup(sym)))
                return VN_ENOMEM;
            (*n)++;
        }
    }
    return count > max ? VN_E2BIG_MATCHES : 0;
}

int vn__trace_capable(void)
{
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2];
    memset(d, 0, sizeof d);
    if (syscall(SYS_capget, &h, d))
        return 0;
    /* Capabilities 32 and up are in the second word. */
#define HAS(c) (((c) < 32 ? d[0].effective >> (c) : d[1].effective >> ((c) - 32)) & 1u)
#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif
    return HAS(CAP_SYS_ADMIN) || (HAS(CAP_BPF) && HAS(CAP_PERFMON));
#undef HAS
}
