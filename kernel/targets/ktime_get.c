// SPDX-License-Identifier: GPL-2.0
/* ktime_get(): the monotonic clock as the kernel reads it. */
#include <linux/ktime.h>

#include "../vernier_kbench.h"

static void ktime_get_call(struct vk_call *c)
{
	/* Stored where the compiler must keep it, so the read must happen. */
	WRITE_ONCE(c->sink, ktime_get());
}

const struct vk_target vk_target_ktime_get = {
	.name = "ktime_get",
	.calls = "ktime_get(): the monotonic clock",
	.call = ktime_get_call,
};
