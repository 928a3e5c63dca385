// SPDX-License-Identifier: GPL-2.0
/* atomic64_inc() of one counter that every CPU of a run increments: alone,
 * the cost of a locked add on a line in this CPU's cache; with --cpus, the
 * cost when the line moves between CPUs on every call. */
#include <linux/atomic.h>
#include <linux/cache.h>

#include "../vernier_kbench.h"

static atomic64_t counter ____cacheline_aligned_in_smp;

static void shared_counter_call(struct vk_call *c)
{
	atomic64_inc(&counter);
}

const struct vk_target vk_target_shared_counter = {
	.name = "shared_counter",
	.calls = "atomic64_inc() of one counter shared by every CPU of the run",
	.call = shared_counter_call,
};
