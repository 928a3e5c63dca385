/* Huge pages for the memory family's latency rows: a mapping whose loads
 * need one TLB entry per huge page, not per 4 KiB, and whose page walks are
 * one level shorter. Transparent huge pages first (madvise on an aligned
 * mapping), else the hugetlbfs pool; either way checked, since the kernel
 * may quietly fall back to 4 KiB pages. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/fileutil.h"
#include "suite/memory_huge.h"
#include "parse/sysinfo_parse.h"

#define THP "/sys/kernel/mm/transparent_hugepage/"

/* Share of the mapping that must be huge pages, in tenths: the kernel may
 * leave a page or two at the edges small, not more. */
#define HUGE_TENTHS 9

static int is_header(const char *line, uintptr_t *lo, uintptr_t *hi)
{
    char *end;
    if (!((*line >= '0' && *line <= '9') || (*line >= 'a' && *line <= 'f')))
        return 0;
    unsigned long long a = strtoull(line, &end, 16);
    if (*end != '-')
        return 0;
    const char *p = end + 1;
    unsigned long long b = strtoull(p, &end, 16);
    if (end == p || *end != ' ')
        return 0;
    *lo = (uintptr_t)a;
    *hi = (uintptr_t)b;
    return 1;
}

int vn__smaps_huge_kb(const char *text, uintptr_t addr, long long *size_kb, long long *huge_kb)
{
    int in = 0, have_size = 0, have_huge = 0;
    long long size = 0, huge = 0;
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        uintptr_t lo, hi;
        if (is_header(line, &lo, &hi)) {
            if (in)
                break;
            in = lo <= addr && addr < hi;
        } else if (in) {
            /* strtoll, not sscanf: a number too large for it saturates
             * rather than being undefined. */
            char *end;
            if (!strncmp(line, "Size:", 5)) {
                long long v = strtoll(line + 5, &end, 10);
                if (end != line + 5)
                    size = v, have_size = 1;
            } else if (!strncmp(line, "AnonHugePages:", 14)) {
                long long v = strtoll(line + 14, &end, 10);
                if (end != line + 14)
                    huge = v, have_huge = 1;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    if (!have_size || !have_huge)
        return VN_ENOENT;
    *size_kb = size;
    *huge_kb = huge;
    return 0;
}

/* The transparent huge page size; 2 MiB (x86-64, arm64 with 4 KiB pages)
 * when the kernel does not say. */
static size_t thp_size(void)
{
    char t[64];
    long long v;
    if (vn__read_text(THP "hpage_pmd_size", t, sizeof t) > 0 && vn__parse_int(t, &v) == 0 && v > 0 &&
        !(v & (v - 1)))
        return (size_t)v;
    return (size_t)2 << 20;
}

/* Whether the mapping at a of len bytes is huge pages: AnonHugePages of it
 * in /proc/self/smaps. 1 yes, 0 no (*huge_kb says how much was), -1 the
 * kernel does not say. */
static int took(void *a, size_t len, long long *huge_kb)
{
    size_t max = (size_t)4 << 20;
    char *text = malloc(max);
    long long size_kb = 0;
    int rc = -1;
    *huge_kb = 0;
    if (text && vn__read_text("/proc/self/smaps", text, max) > 0 &&
        vn__smaps_huge_kb(text, (uintptr_t)a, &size_kb, huge_kb) == 0)
        /* The mapping may have merged with a neighbour of the same kind: the
         * share of the whole is what tells. */
        rc = *huge_kb * 10 >= size_kb * HUGE_TENTHS && (size_t)*huge_kb * 1024 >= len * HUGE_TENTHS / 10;
    free(text);
    return rc;
}

/* Transparent huge pages: an aligned mapping, madvise, then every page
 * touched. 0, or 1 with why not in reason. */
static int map_thp(size_t len, size_t huge, void **map, char *reason, size_t n)
{
    char mode[128];
    if (vn__read_text(THP "enabled", mode, sizeof mode) <= 0) {
        snprintf(reason, n, "no transparent huge pages in this kernel");
        return 1;
    }
    if (strstr(mode, "[never]")) {
        snprintf(reason, n, "transparent huge pages are off (" THP "enabled)");
        return 1;
    }
    /* One huge page more than asked, so an aligned start lies inside. */
    unsigned char *raw = mmap(NULL, len + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) {
        snprintf(reason, n, "cannot map %zu bytes: %s", len, strerror(errno));
        return 1;
    }
    unsigned char *a = (unsigned char *)(((uintptr_t)raw + huge - 1) & ~(uintptr_t)(huge - 1));
    if (a > raw)
        munmap(raw, (size_t)(a - raw));
    if (raw + len + huge > a + len)
        munmap(a + len, (size_t)(raw + len + huge - (a + len)));
    if (madvise(a, len, MADV_HUGEPAGE) != 0) {
        snprintf(reason, n, "madvise(MADV_HUGEPAGE) refused: %s", strerror(errno));
        munmap(a, len);
        return 1;
    }
    madvise(a, len, MADV_DONTFORK); /* as the 4 KiB mappings (memory_bufs.c) */
    memset(a, 0, len);
    long long huge_kb;
    int ok = took(a, len, &huge_kb);
    if (ok == 1) {
        *map = a;
        return 0;
    }
    munmap(a, len);
    if (ok < 0)
        snprintf(reason, n, "no AnonHugePages in /proc/self/smaps to tell if pages are huge");
    else
        snprintf(reason, n, "4 KiB pages despite madvise (%lld of %zu kB huge; memory fragmented?)", huge_kb,
                 len / 1024);
    return 1;
}

int vn__mem_map_huge(size_t len, void **map, size_t *maplen, char *reason, size_t n)
{
    size_t huge = thp_size();
    len = (len + huge - 1) & ~(huge - 1);
    char why[192];
    if (map_thp(len, huge, map, why, sizeof why) == 0) {
        *maplen = len;
        return 0;
    }
    /* The hugetlbfs pool, which only the administrator fills. */
    void *a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
    if (a != MAP_FAILED) {
        madvise(a, len, MADV_DONTFORK);
        memset(a, 0, len);
        *map = a;
        *maplen = len;
        return 0;
    }
    snprintf(reason, n, "%s, and no free hugetlbfs pages (vm.nr_hugepages)", why);
    return VN_ENOTSUP;
}
