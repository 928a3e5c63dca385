// SPDX-License-Identifier: GPL-2.0
/* udelay(): a busy wait of delay_us microseconds (1 by default), a call of
 * known length: it checks that nanoseconds come out as nanoseconds, and a
 * long run of it with interrupts off shows that they are off only in
 * chunks (the module's chunk_us). */
#include <linux/delay.h>

#include "../vernier_kbench.h"

#define DELAY_MAX_US 1000u

static unsigned int delay_us = 1;

static void delay_call(struct vk_call *c)
{
	udelay(delay_us);
}

VK_UINT_SETTING(delay_us, 0, DELAY_MAX_US)

static const struct vk_param delay_params[] = {
	{ .name = "delay_us", .def = "1", .show = delay_us_show, .store = delay_us_store },
	{ }
};

const struct vk_target vk_target_delay = {
	.name = "delay",
	.calls = "udelay(delay_us): a busy wait of known length",
	.call = delay_call,
	.params = delay_params,
};
