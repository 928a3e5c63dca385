/* The empty loop, measured with the same code path as every benchmark: the
 * same vn_next(), the same function entry and exit. The empty asm keeps the
 * compiler from deleting the loop, without adding an instruction.
 *
 * This file is always compiled with -O2 (see CMakeLists.txt), whatever the
 * library's build type: the loops it stands for are in optimized benchmark
 * programs, and an unoptimized empty loop costs several times as much. */
#include "internal.h"

void vn__empty_loop(vn_state *st)
{
    while (vn_next(st))
        __asm__ __volatile__("");
}
