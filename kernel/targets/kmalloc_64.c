// SPDX-License-Identifier: GPL-2.0
/* kmalloc() of 64 bytes and kfree() of them. With interrupts off the call
 * may not sleep, so it asks for GFP_ATOMIC there (GFP_KERNEL otherwise):
 * the same slab cache, without the permission to reclaim. */
#include <linux/slab.h>

#include "../vernier_kbench.h"

static void kmalloc_64_call(struct vk_call *c)
{
	void *p = kmalloc(64, c->atomic ? GFP_ATOMIC : GFP_KERNEL);

	/* The compiler may not drop a pair it can see through. */
	asm volatile("" : : "r"(p) : "memory");
	kfree(p);
}

const struct vk_target vk_target_kmalloc_64 = {
	.name = "kmalloc_64",
	.calls = "kmalloc(64) then kfree(): the 64-byte slab cache",
	.call = kmalloc_64_call,
};
