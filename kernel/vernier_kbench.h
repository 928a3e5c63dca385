/* vernier_kbench: times kernel functions per call, driven from debugfs under
 * /sys/kernel/debug/vernier/<target>/. What a target is, what a run is. */
#ifndef VERNIER_KBENCH_H
#define VERNIER_KBENCH_H

#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/types.h>

#include "stats/int.h"

/* One CPU's calls: atomic when interrupts and preemption are off, so a
 * target that allocates must not sleep; rng, the state of the seeded
 * generator a target draws its inputs from (vk_rand); sink, where a target
 * stores what it computed, so the compiler keeps the work. Each CPU of a
 * run has its own, so targets share nothing by accident: what they share
 * on purpose (a lock, a counter) is what a parallel run measures. */
struct vk_call {
	bool atomic;
	u64 rng;
	u64 sink;
} ____cacheline_aligned;

/* The next draw of a linear congruential generator (Knuth's MMIX
 * constants), its high 32 bits, which are the well-mixed ones. */
static inline u32 vk_rand(struct vk_call *c)
{
	c->rng = c->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (u32)(c->rng >> 32);
}

/* A setting of one target, a file of its own beside the common knobs.
 * show and store run under the module's settings lock and never during a
 * run of any target (a store then fails with EBUSY), so a target reads its
 * settings in call() without a lock. store returns 0 or -EINVAL; def is the
 * value at load, which a "reset" written to "run" stores again. Without a
 * store the setting is read-only: something the target counts. */
struct vk_param {
	const char *name;
	const char *def;
	int (*show)(char *buf, size_t len);
	int (*store)(const char *buf, size_t count);
};

/* The show and store of a setting kept in the unsigned int var, from lo to
 * hi: var_show and var_store, for a struct vk_param. */
#define VK_UINT_SETTING(var, lo, hi)                                            \
	static int var##_show(char *buf, size_t len)                            \
	{                                                                       \
		return scnprintf(buf, len, "%u\n", var);                        \
	}                                                                       \
	static int var##_store(const char *buf, size_t count)                   \
	{                                                                       \
		unsigned int v;                                                 \
		if (kstrtouint(buf, 0, &v) || v < (lo) || v > (hi))             \
			return -EINVAL;                                         \
		var = v;                                                        \
		return 0;                                                       \
	}

struct vk_target {
	const char *name;
	/* What one call does, for "description" and vernier kbench --list. */
	const char *calls;
	/* Before a run's first call, with the run's settings fixed; NULL for
	 * none. */
	void (*prepare)(void);
	/* The code timed, once per call. */
	void (*call)(struct vk_call *c);
	const struct vk_param *params;	/* ends at a NULL name; NULL for none */
};

/* The targets: one file each in targets/, defining vk_target_NAME. The
 * module's Kbuild finds the files and passes their names in
 * VK_TARGET_LIST, so adding a target is adding a file (docs/kernel.md). */
extern const struct vk_target *const vk_targets[];
extern const unsigned int vk_ntargets;

/* At most this many timed calls a run, over all its CPUs: the samples
 * (8 bytes a call, kept for the "samples" file until cleared) and the
 * sorted copy and room the statistics need stay within 32 MiB. */
#define VK_MAX_CALLS 1000000u
#define VK_MAX_WARMUP 1000000u
/* Interrupts and preemption are off at most this long at a stretch (plus
 * one call): the chunk_us knob, 1000 by default. */
#define VK_MAX_CHUNK_US 10000u
#define VK_DEFAULT_CHUNK_US 1000u

struct vk_settings {
	unsigned int loop_count;
	unsigned int warmup;
	unsigned int chunk_us;
	bool irqs_off;
	u64 seed;
	struct cpumask cpus;	/* empty: the writer's own CPU, no threads */
};

/* What a run made: the samples (cycles of each call kept, CPU by CPU in
 * the order of the CPUs, each in call order), the text of "result" and of
 * "hist". Freed with vk_result_free. */
struct vk_result {
	u64 *samples;
	size_t nsamples;
	char *text;
	size_t textlen;
	char *hist;
	size_t histlen;
};

/* One run of t with s: warmup untimed calls, then loop_count timed ones on
 * each CPU of s->cpus at once (or on the caller's CPU). 0 with *out set,
 * -EINTR when a signal to the caller cancelled it, -ENOMEM, -ENODEV for a
 * CPU that is not online, -E2BIG for more than VK_MAX_CALLS calls, -EAGAIN
 * when every call was dropped (the counter went backwards, jumped or
 * changed CPU). */
int vk_run(const struct vk_target *t, const struct vk_settings *s, struct vk_result **out);
void vk_result_free(struct vk_result *r);

#endif
