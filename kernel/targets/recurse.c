// SPDX-License-Identifier: GPL-2.0
/* vk_recurse(): a function that calls itself depth times (4 by default),
 * so a call is depth nested calls. The time of the whole; and a function a
 * tracer can be checked on: tracing vk_recurse during a run of n calls
 * must time n x depth calls, each inner one inside the outer. */
#include <linux/compiler.h>

#include "../vernier_kbench.h"

#define DEPTH_MAX 64u

static unsigned int depth = 4;

/* Not static and not inlined: one symbol, one body, called from itself. */
noinline unsigned int vk_recurse(unsigned int d);
noinline unsigned int vk_recurse(unsigned int d)
{
	unsigned int r = d <= 1 ? 1 : 1 + vk_recurse(d - 1);

	/* After the call, so it is not a tail call the compiler could loop. */
	barrier();
	return r;
}

static void recurse_call(struct vk_call *c)
{
	WRITE_ONCE(c->sink, vk_recurse(depth));
}

VK_UINT_SETTING(depth, 1, DEPTH_MAX)

static const struct vk_param recurse_params[] = {
	{ .name = "depth", .def = "4", .show = depth_show, .store = depth_store },
	{ }
};

const struct vk_target vk_target_recurse = {
	.name = "recurse",
	.calls = "vk_recurse(depth): a function that calls itself, for tracers",
	.call = recurse_call,
	.params = recurse_params,
};
