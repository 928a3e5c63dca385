/* vernier_kbench: times kernel functions per call, driven from sysfs under
 * /sys/kernel/vernier/<target>/. What a target is, and the one list of them. */
#ifndef VERNIER_KBENCH_H
#define VERNIER_KBENCH_H

#include <linux/types.h>

#include "stats_int.h"

/* How a call is made: atomic when interrupts and preemption are off, so a
 * target that allocates must not sleep. */
struct vk_call {
	bool atomic;
};

/* A setting of one target, shown and set through a file of its own beside
 * the common knobs. store returns 0 or -EINVAL; both run under the
 * module's mutex, never during a run. */
struct vk_param {
	const char *name;
	int (*show)(char *buf, size_t len);
	int (*store)(const char *buf, size_t count);
};

struct vk_target {
	const char *name;
	/* The code timed, once per call. */
	void (*call)(const struct vk_call *c);
	const struct vk_param *params;	/* ends at a NULL name; NULL for none */
};

/* The one list of targets: each is vk_target_NAME, defined in targets/NAME.c.
 * empty comes first: it is the loop's own cost, which vernier kbench takes
 * off every other target as the engine takes off its empty loop. */
#define VK_TARGETS(X) X(empty) X(ktime_get) X(get_random_u32) X(kmalloc_64) X(fib_lookup)

#define VK_DECLARE(name) extern const struct vk_target vk_target_##name;
VK_TARGETS(VK_DECLARE)
#undef VK_DECLARE

extern const struct vk_target *const vk_targets[];
extern const unsigned int vk_ntargets;

/* At most this many calls a run: the samples of one run (8 bytes a call,
 * kept for the "samples" file) and the sorted copy and deviations the
 * statistics need stay within 24 MiB. */
#define VK_MAX_LOOP_COUNT 1000000u
#define VK_MAX_WARMUP 1000000u

struct vk_settings {
	unsigned int loop_count;
	unsigned int warmup;
	bool irqs_off;
};

/* One run of t: warmup untimed calls, then loop_count timed ones. On
 * success *samples (kvmalloc'd, the caller's to kvfree) holds the cycles
 * of each call in call order, and *st their summary. -ENOMEM, with
 * nothing allocated, when memory runs short. */
int vk_run(const struct vk_target *t, const struct vk_settings *s, u64 **samples,
	   vn__istats *st);

#endif
