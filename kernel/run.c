// SPDX-License-Identifier: GPL-2.0
/* The timed loop: each call between two ordered reads of the CPU's time
 * stamp counter, in chunks bounded in time, on one CPU or on several at
 * once; then the integer statistics of the calls, in time linear in their
 * number.
 *
 * Chunks. Interrupts and preemption (when irqs_off asks for them off) are
 * off for one chunk at a time: calls until chunk_us have passed since the
 * chunk began (one call more at most). Between chunks interrupts come in,
 * cond_resched() lets the scheduler in, and a signal to the process that
 * started the run (or a stop of a parallel run) cancels it: a run of a
 * million calls with interrupts off never holds a CPU for more than about
 * a millisecond, and Ctrl-C ends it within one chunk.
 *
 * Parallel runs. With several CPUs in the cpus knob, one kernel thread
 * bound to each makes its warmup calls, then arrives at a barrier and
 * keeps calling the target, untimed, until all have arrived; then all make
 * their timed calls, and each keeps calling untimed after its last until
 * all have finished. So every timed call meets the same contention: a
 * lock, a shared cache line, RCU, whatever the target shares.
 *
 * Dropped calls. A call whose two counter reads were made on different
 * CPUs, or whose second read is below its first, or more than a second
 * after it, is not a measurement of the call: it is counted by kind,
 * reported in "result", and left out. */
#include <linux/atomic.h>
#include <linux/irqflags.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <asm/msr.h>
#include <asm/tsc.h>

#include "vernier_kbench.h"

#define VK_HIST_BINS 20

/* A test hook, set only when the module is loaded: with fail_alloc=N the
 * Nth allocation of a run's arrays since then fails, once, as if memory
 * had run short, so the tests reach the -ENOMEM path and its freeing on
 * purpose (the guest kernel has no fault injection). 0, the default,
 * never fails. Runs are serialized by the module's run lock, so the count
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

/* What all CPUs of a parallel run share. */
struct vk_sync {
	unsigned int n;
	atomic_t arrived, finished, done;
	int stop;
	wait_queue_head_t wq;
};

struct vk_drops {
	u64 migrated, backwards, jumps;
};

/* One CPU's part of a run. */
struct vk_job {
	struct vk_call c;
	const struct vk_target *t;
	const struct vk_settings *s;
	struct vk_sync *sync;		/* NULL: the caller's own CPU */
	u64 *out;			/* room for loop_count samples */
	unsigned int kept;
	struct vk_drops drops;
	u64 chunk_cycles, jump_cycles, longest_off, chunks;
	unsigned int cpu;
	int err;
};

static bool stopping(const struct vk_job *j)
{
	if (j->sync)
		return READ_ONCE(j->sync->stop);
	return signal_pending(current);
}

static void time_one(struct vk_job *j)
{
	unsigned int cpu0 = raw_smp_processor_id(), cpu1;
	/* rdtsc_ordered() is fenced, so the call cannot start before the
	 * first read or finish after the second. */
	u64 t0 = rdtsc_ordered(), t1;

	j->t->call(&j->c);
	t1 = rdtsc_ordered();
	cpu1 = raw_smp_processor_id();
	if (cpu0 != cpu1)
		j->drops.migrated++;
	else if (t1 < t0)
		j->drops.backwards++;
	else if (t1 - t0 > j->jump_cycles)
		j->drops.jumps++;
	else
		j->out[j->kept++] = t1 - t0;
}

enum vk_phase { VK_UNTIMED, VK_TIMED, VK_UNTIL };

/* count calls in chunks (VK_UNTIL: calls until *until reaches the number
 * of CPUs). 0, or -EINTR when the run is stopped between two chunks. */
static int chunked(struct vk_job *j, enum vk_phase ph, unsigned int count, atomic_t *until)
{
	unsigned int i = 0;

	for (;;) {
		unsigned long flags = 0;
		u64 start, now;

		if (ph == VK_UNTIL ? atomic_read(until) >= j->sync->n : i >= count)
			return 0;
		if (j->s->irqs_off) {
			preempt_disable();
			local_irq_save(flags);
		}
		start = rdtsc_ordered();
		do {
			if (ph == VK_TIMED)
				time_one(j);
			else
				j->t->call(&j->c);
			i++;
			now = rdtsc_ordered();
		} while ((ph == VK_UNTIL || i < count) && now - start < j->chunk_cycles);
		if (j->s->irqs_off) {
			local_irq_restore(flags);
			preempt_enable();
			if (now - start > j->longest_off)
				j->longest_off = now - start;
		}
		j->chunks++;
		cond_resched();
		if (stopping(j))
			return -EINTR;
	}
}

static int job_run(struct vk_job *j)
{
	struct vk_sync *y = j->sync;
	int err = chunked(j, VK_UNTIMED, j->s->warmup, NULL);

	if (!err && y) {
		atomic_inc(&y->arrived);
		err = chunked(j, VK_UNTIL, 0, &y->arrived);
	}
	if (!err)
		err = chunked(j, VK_TIMED, j->s->loop_count, NULL);
	if (y) {
		atomic_inc(&y->finished);
		if (!err)
			err = chunked(j, VK_UNTIL, 0, &y->finished);
	}
	return err;
}

static int thread_fn(void *data)
{
	struct vk_job *j = data;
	struct vk_sync *y = j->sync;

	j->err = job_run(j);
	if (j->err) {
		/* A stopped CPU stops the others: they would wait for it. */
		WRITE_ONCE(y->stop, 1);
	}
	atomic_inc(&y->done);
	wake_up(&y->wq);
	/* Wait for kthread_stop, so the caller's stop finds the thread. */
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* Runs the jobs, one kernel thread bound to each job's CPU, and waits for
 * all; a signal to the caller stops them within a chunk. */
static int run_threads(struct vk_job *jobs, unsigned int n, struct vk_sync *y)
{
	struct task_struct **tasks = kcalloc(n, sizeof(*tasks), GFP_KERNEL);
	unsigned int k;
	int err = 0;

	if (!tasks)
		return -ENOMEM;
	for (k = 0; k < n && !err; k++) {
		tasks[k] = kthread_create_on_cpu(thread_fn, &jobs[k], jobs[k].cpu, "vernier_kb/%u");
		if (IS_ERR(tasks[k])) {
			err = PTR_ERR(tasks[k]);
			tasks[k] = NULL;
		}
	}
	if (!err) {
		for (k = 0; k < n; k++)
			wake_up_process(tasks[k]);
		if (wait_event_interruptible(y->wq, atomic_read(&y->done) == n)) {
			WRITE_ONCE(y->stop, 1);
			wait_event(y->wq, atomic_read(&y->done) == n);
			err = -EINTR;
		}
		for (k = 0; k < n && !err; k++)
			err = jobs[k].err;
	}
	/* A thread never woken ends here without running its job. */
	for (k = 0; k < n; k++)
		if (tasks[k])
			kthread_stop(tasks[k]);
	kfree(tasks);
	return err;
}

static int put_line(char *buf, size_t len, size_t *at, const char *prefix, const vn__istats *st)
{
	size_t k = strlen(prefix);
	int w;

	if (*at + k + 1 > len)
		return -EOVERFLOW;
	memcpy(buf + *at, prefix, k);
	*at += k;
	w = vn__istats_format(st, buf + *at, len - *at);
	if (w < 0)
		return -EOVERFLOW;
	*at += w;
	return 0;
}

/* The summary of x[0..n) (sorted into a, with room b of 2n). */
static void summarize(const u64 *x, size_t n, u64 *a, u64 *b, vn__istats *st)
{
	memcpy(a, x, n * sizeof(*x));
	vn__isort(a, n, b);
	vn__istats_sorted(a, n, b, st);
}

/* The text of "result" and "hist" for the jobs' kept samples, which are
 * in r->samples, job after job. */
static int describe(struct vk_job *jobs, unsigned int njobs, struct vk_result *r)
{
	const size_t len = PAGE_SIZE;
	size_t n = r->nsamples, at = 0, off = 0;
	struct vk_drops d = {};
	u64 longest = 0, chunks = 0;
	u64 *a = run_alloc(n, sizeof(*a)), *b = run_alloc(n, 2 * sizeof(*b));
	vn__istats st;
	unsigned int k;
	int err = -ENOMEM, w;

	r->text = kzalloc(len, GFP_KERNEL);
	r->hist = kzalloc(len, GFP_KERNEL);
	if (!a || !b || !r->text || !r->hist)
		goto out;
	for (k = 0; k < njobs; k++) {
		d.migrated += jobs[k].drops.migrated;
		d.backwards += jobs[k].drops.backwards;
		d.jumps += jobs[k].drops.jumps;
		longest = max(longest, jobs[k].longest_off);
		chunks += jobs[k].chunks;
	}
	summarize(r->samples, n, a, b, &st);
	/* The sorted copy is still in a: the histogram is drawn from it. */
	w = vn__ihist_format(a, n, VK_HIST_BINS, r->hist, len);
	err = -EOVERFLOW;
	if (w < 0)
		goto out;
	r->histlen = w;
	if (put_line(r->text, len, &at, "", &st))
		goto out;
	w = scnprintf(r->text + at, len - at,
		      "dropped migrated %llu backwards %llu jumps %llu\n"
		      "chunks %llu longest_off_cycles %llu\n",
		      d.migrated, d.backwards, d.jumps, chunks, longest);
	at += w;
	for (k = 0; njobs > 1 && k < njobs; k++) {
		char prefix[24];

		if (jobs[k].kept) {
			snprintf(prefix, sizeof(prefix), "cpu %u ", jobs[k].cpu);
			summarize(r->samples + off, jobs[k].kept, a, b, &st);
			if (put_line(r->text, len, &at, prefix, &st))
				goto out;
		}
		off += jobs[k].kept;
	}
	r->textlen = at;
	err = 0;
out:
	kvfree(a);
	kvfree(b);
	return err;
}

void vk_result_free(struct vk_result *r)
{
	if (!r)
		return;
	kvfree(r->samples);
	kfree(r->text);
	kfree(r->hist);
	kfree(r);
}

int vk_run(const struct vk_target *t, const struct vk_settings *s, struct vk_result **out)
{
	unsigned int ncpu = cpumask_empty(&s->cpus) ? 1 : cpumask_weight(&s->cpus);
	size_t n = s->loop_count, total = 0;
	struct vk_sync sync;
	struct vk_job *jobs;
	struct vk_result *r;
	/* The counter's rate, for the time bounds; a kernel without one
	 * measured (tsc_khz 0) is taken to count at 1 GHz. */
	u64 khz = tsc_khz ? tsc_khz : 1000000;
	unsigned int k, cpu;
	int err;

	if (n == 0 || (u64)n * ncpu > VK_MAX_CALLS)
		return n ? -E2BIG : -EINVAL;
	if (!cpumask_empty(&s->cpus) && !cpumask_subset(&s->cpus, cpu_online_mask))
		return -ENODEV;
	jobs = kcalloc(ncpu, sizeof(*jobs), GFP_KERNEL);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (r)
		r->samples = run_alloc(n * ncpu, sizeof(u64));
	if (!jobs || !r || !r->samples) {
		kfree(jobs);
		vk_result_free(r);
		return -ENOMEM;
	}
	sync.n = ncpu;
	atomic_set(&sync.arrived, 0);
	atomic_set(&sync.finished, 0);
	atomic_set(&sync.done, 0);
	sync.stop = 0;
	init_waitqueue_head(&sync.wq);
	k = 0;
	for_each_cpu(cpu, &s->cpus)
		jobs[k++].cpu = cpu;
	for (k = 0; k < ncpu; k++) {
		struct vk_job *j = &jobs[k];

		j->t = t;
		j->s = s;
		j->sync = ncpu > 1 || !cpumask_empty(&s->cpus) ? &sync : NULL;
		j->out = r->samples + k * n;
		j->c.atomic = s->irqs_off;
		/* Each CPU draws its own inputs, from its own seed. */
		j->c.rng = s->seed + 0x9e3779b97f4a7c15ULL * (k + 1);
		j->chunk_cycles = khz * s->chunk_us / 1000;
		j->jump_cycles = khz * 1000;
	}
	if (t->prepare)
		t->prepare();
	if (jobs[0].sync)
		err = run_threads(jobs, ncpu, &sync);
	else
		err = jobs[0].err = job_run(&jobs[0]);
	/* The kept samples, job after job, without gaps. */
	for (k = 0; !err && k < ncpu; k++) {
		memmove(r->samples + total, jobs[k].out, jobs[k].kept * sizeof(u64));
		total += jobs[k].kept;
	}
	r->nsamples = total;
	if (!err && !total)
		err = -EAGAIN;
	if (!err)
		err = describe(jobs, ncpu, r);
	kfree(jobs);
	if (err) {
		vk_result_free(r);
		return err;
	}
	*out = r;
	return 0;
}
