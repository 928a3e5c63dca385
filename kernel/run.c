// SPDX-License-Identifier: GPL-2.0
/* The timed loop: each call between two ordered reads of the CPU's time
 * stamp counter, then the integer statistics of the calls. */
#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/msr.h>

#include "vernier_kbench.h"

/* With preemption on, the loop lets the scheduler in this often (between
 * calls, untimed), so a long run never stalls the CPU it runs on. */
#define VK_RESCHED_EVERY 1024

/* A test hook, set only when the module is loaded: with fail_alloc=N the
 * Nth allocation of a run's arrays since then fails, once, as if memory
 * had run short, so the tests reach the -ENOMEM path and its freeing on
 * purpose (the guest kernel has no fault injection). 0, the default,
 * never fails. Runs are serialized by the module's mutex, so the count
 * needs no lock of its own. */
static unsigned int fail_alloc;
module_param(fail_alloc, uint, 0444);
MODULE_PARM_DESC(fail_alloc, "test hook: the Nth allocation of a run's arrays after loading fails (0: none)");

static unsigned int nallocs;

static void *run_alloc(size_t n, size_t size)
{
	if (nallocs < fail_alloc && ++nallocs == fail_alloc)
		return NULL;
	return kvmalloc_array(n, size, GFP_KERNEL);
}

static void timed_loop(const struct vk_target *t, const struct vk_settings *s, u64 *out)
{
	struct vk_call c = { .atomic = s->irqs_off };
	unsigned long flags = 0;
	unsigned int i;

	if (s->irqs_off) {
		preempt_disable();
		local_irq_save(flags);
	}
	for (i = 0; i < s->warmup; i++) {
		t->call(&c);
		if (!s->irqs_off && i % VK_RESCHED_EVERY == VK_RESCHED_EVERY - 1)
			cond_resched();
	}
	for (i = 0; i < s->loop_count; i++) {
		/* rdtsc_ordered() is fenced, so the call cannot start before
		 * the first read or finish after the second. */
		u64 t0 = rdtsc_ordered();

		t->call(&c);
		out[i] = rdtsc_ordered() - t0;
		if (!s->irqs_off && i % VK_RESCHED_EVERY == VK_RESCHED_EVERY - 1)
			cond_resched();
	}
	if (s->irqs_off) {
		local_irq_restore(flags);
		preempt_enable();
	}
}

int vk_run(const struct vk_target *t, const struct vk_settings *s, u64 **samples,
	   vn__istats *st)
{
	size_t n = s->loop_count;
	u64 *out, *work;

	if (n == 0 || n > VK_MAX_LOOP_COUNT)
		return -EINVAL;
	out = run_alloc(n, sizeof(*out));
	/* The sorted copy and the deviations from the median, together. */
	work = run_alloc(n, 2 * sizeof(*work));
	if (!out || !work) {
		kvfree(out);
		kvfree(work);
		return -ENOMEM;
	}
	timed_loop(t, s, out);
	memcpy(work, out, n * sizeof(*out));
	vn__isort(work, n);
	vn__istats_sorted(work, n, work + n, st);
	kvfree(work);
	*samples = out;
	return 0;
}
