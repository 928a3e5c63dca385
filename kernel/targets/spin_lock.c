// SPDX-License-Identifier: GPL-2.0
/* spin_lock() and spin_unlock() of one lock that every CPU of a run takes,
 * around an increment of what it guards: uncontended alone, contended with
 * --cpus. spin_lock_irqsave, so the call is the same with interrupts on or
 * off. A first try that finds the lock taken is counted in "contended"
 * (read-only, zeroed at the start of each run): how often the CPUs of a
 * parallel run met, whatever the timings say. */
#include <linux/atomic.h>
#include <linux/spinlock.h>

#include "../vernier_kbench.h"

static DEFINE_SPINLOCK(lock);
static u64 guarded;
static atomic64_t contended;

static void spin_lock_prepare(void)
{
	atomic64_set(&contended, 0);
}

static void spin_lock_call(struct vk_call *c)
{
	unsigned long flags;

	if (!spin_trylock_irqsave(&lock, flags)) {
		atomic64_inc(&contended);
		spin_lock_irqsave(&lock, flags);
	}
	guarded++;
	spin_unlock_irqrestore(&lock, flags);
}

static int contended_show(char *buf, size_t len)
{
	return scnprintf(buf, len, "%lld\n", (long long)atomic64_read(&contended));
}

static const struct vk_param spin_lock_params[] = {
	{ .name = "contended", .show = contended_show },
	{ }
};

const struct vk_target vk_target_spin_lock = {
	.name = "spin_lock",
	.calls = "spin_lock_irqsave() and unlock of one lock every CPU of the run takes",
	.prepare = spin_lock_prepare,
	.call = spin_lock_call,
	.params = spin_lock_params,
};
