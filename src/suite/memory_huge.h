/* Huge pages for the memory family (memory_huge.c). */
#ifndef VN_SUITE_MEMORY_HUGE_H
#define VN_SUITE_MEMORY_HUGE_H

#include <stddef.h>
#include <stdint.h>

/* Maps len bytes (rounded up to whole huge pages) backed by huge pages:
 * transparent ones asked for with madvise on an aligned mapping, else
 * hugetlbfs pages. *map and *maplen for munmap; 0, or a negative code with
 * why (to show as the row's skip reason) in reason. The pages are touched
 * and checked (AnonHugePages in /proc/self/smaps): a mapping the kernel
 * backed with 4 KiB pages anyway is no huge-page mapping. */
int vn__mem_map_huge(size_t len, void **map, size_t *maplen, char *reason, size_t n);

/* From /proc/self/smaps text: the size and the AnonHugePages of the
 * mapping that holds addr, in kB. 0, or VN_ENOENT when no mapping holds it
 * or its lines are missing. Pure. */
int vn__smaps_huge_kb(const char *text, uintptr_t addr, long long *size_kb, long long *huge_kb);

#endif
