// SPDX-License-Identifier: GPL-2.0
/* get_random_u32(): a word from the kernel's random number generator. */
#include <linux/random.h>

#include "../vernier_kbench.h"

static void get_random_u32_call(struct vk_call *c)
{
	WRITE_ONCE(c->sink, get_random_u32());
}

const struct vk_target vk_target_get_random_u32 = {
	.name = "get_random_u32",
	.calls = "get_random_u32(): a word from the kernel's random number generator",
	.call = get_random_u32_call,
};
