/* Fuzz target: the /proc/self/smaps reader of the memory family's huge
 * pages. The kernel's text is outside input: it must never read out of
 * bounds or loop forever on it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "suite/memory_huge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *t = malloc(size + 1);
    if (!t)
        return 0;
    memcpy(t, data, size);
    t[size] = '\0';
    long long kb, huge;
    vn__smaps_huge_kb(t, 0x7f0000000000u, &kb, &huge);
    vn__smaps_huge_kb(t, 0, &kb, &huge);
    free(t);
    return 0;
}
