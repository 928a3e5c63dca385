// SPDX-License-Identifier: GPL-2.0
/* ktime_get(): the monotonic clock as the kernel reads it. */
#include <linux/ktime.h>

#include "../vernier_kbench.h"

static void ktime_get_call(const struct vk_call *c)
{
	/* Stored through a volatile, so the read must happen. */
	static volatile ktime_t sink;

	sink = ktime_get();
}

const struct vk_target vk_target_ktime_get = {
	.name = "ktime_get",
	.call = ktime_get_call,
};
