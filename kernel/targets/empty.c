// SPDX-License-Identifier: GPL-2.0
/* Nothing: the cost of the timed loop itself (two ordered counter reads and
 * an indirect call), which vernier kbench takes off the other targets. */
#include "../vernier_kbench.h"

static noinline void empty_call(struct vk_call *c)
{
	/* An empty asm keeps the compiler from folding the call away. */
	asm volatile("" ::: "memory");
}

const struct vk_target vk_target_empty = {
	.name = "empty",
	.calls = "nothing: the loop's own cost, taken off the other targets",
	.call = empty_call,
};
