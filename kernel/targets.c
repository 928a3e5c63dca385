// SPDX-License-Identifier: GPL-2.0
/* The table of targets, made from the one list in vernier_kbench.h. */
#include <linux/kernel.h>

#include "vernier_kbench.h"

#define VK_ENTRY(name) &vk_target_##name,
const struct vk_target *const vk_targets[] = { VK_TARGETS(VK_ENTRY) };
#undef VK_ENTRY
const unsigned int vk_ntargets = ARRAY_SIZE(vk_targets);
