// SPDX-License-Identifier: GPL-2.0
/* The table of targets: one for each file of targets/, whose names Kbuild
 * passes in VK_TARGET_LIST as X(name) X(name) ... */
#include <linux/kernel.h>

#include "vernier_kbench.h"

#ifndef VK_TARGET_LIST
#error "VK_TARGET_LIST comes from Kbuild: build the module with kernel/Makefile"
#endif

#define X(name) extern const struct vk_target vk_target_##name;
VK_TARGET_LIST
#undef X

#define X(name) &vk_target_##name,
const struct vk_target *const vk_targets[] = { VK_TARGET_LIST };
#undef X
const unsigned int vk_ntargets = ARRAY_SIZE(vk_targets);
