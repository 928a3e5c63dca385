// SPDX-License-Identifier: GPL-2.0
/* vernier_kbench: times kernel functions per call. Each target (one file in
 * targets/) gets a folder /sys/kernel/debug/vernier/<target>/ with
 *
 *   loop_count warmup irqs_off chunk_us cpus seed   the run's knobs (0600)
 *   <the target's own settings>                      (0600)
 *   description   what one call does                 (0444)
 *   run           write "run" to measure, "clear" to free the last run's
 *                 samples, "reset" to set every knob back (0200)
 *   result hist samples   the last run's summary in cycles, its histogram,
 *                 the cycles of each call            (0400)
 *
 * and /sys/kernel/debug/vernier/running names the target being run, or is
 * empty (0444).
 *
 * Why debugfs and a write. A run is started by writing to "run", never by
 * reading a file, so nothing that walks files (grep -r, a support-bundle
 * tool, a backup) starts one; and the files live in debugfs, which only
 * root can enter and which such tools rarely walk, not in sysfs. A write
 * to a file, rather than an ioctl on a device, keeps the module usable
 * from a shell (echo run > run; cat result). The writer's process makes
 * the calls (or waits for the threads that do), so a signal to it cancels
 * the run: the write fails with EINTR.
 *
 * Locks. One mutex serializes runs; a second guards the knobs, held only to
 * copy or set them, so reading or writing a knob never waits for a run
 * (the run works on its own copy); a third guards the last result, held
 * only to swap it or to copy a page of it. The statistics are computed once,
 * at the end of the run, outside every lock a reader takes. A target's own
 * settings cannot change during a run (EBUSY): its calls read them without
 * a lock.
 *
 * Unloading: each open file holds a reference on the module, so rmmod is
 * refused ("in use") while a run's writer, or any reader, has a file open. */
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "vernier_kbench.h"

#ifndef CONFIG_X86_64
#error "vernier_kbench reads the x86-64 time stamp counter"
#endif

/* Each line of "samples" is this wide plus a newline, right-aligned: the
 * same length for every call, so a read at any offset finds its call by
 * division. 20 digits hold any 64-bit count. */
#define VK_SAMPLE_WIDTH 20
/* The longest value a knob or setting takes in one write. */
#define VK_WRITE_MAX 128

enum vk_kind {
	VK_LOOP_COUNT, VK_WARMUP, VK_IRQS_OFF, VK_CHUNK_US, VK_CPUS, VK_SEED,
	VK_DESCRIPTION, VK_RUN, VK_RESULT, VK_HIST, VK_SAMPLES, VK_PARAM,
};

static const struct {
	const char *name;
	umode_t mode;
} vk_files[] = {
	[VK_LOOP_COUNT] = { "loop_count", 0600 },
	[VK_WARMUP] = { "warmup", 0600 },
	[VK_IRQS_OFF] = { "irqs_off", 0600 },
	[VK_CHUNK_US] = { "chunk_us", 0600 },
	[VK_CPUS] = { "cpus", 0600 },
	[VK_SEED] = { "seed", 0600 },
	[VK_DESCRIPTION] = { "description", 0444 },
	[VK_RUN] = { "run", 0200 },
	[VK_RESULT] = { "result", 0400 },
	[VK_HIST] = { "hist", 0400 },
	[VK_SAMPLES] = { "samples", 0400 },
};

struct vk_state;

/* What a file is: its target and kind (and setting, for VK_PARAM). */
struct vk_file {
	struct vk_state *s;
	enum vk_kind kind;
	const struct vk_param *p;
};

struct vk_state {
	const struct vk_target *t;
	struct vk_settings set;		/* under vk_set_lock */
	struct vk_result *res;		/* under vk_res_lock; NULL: no run kept */
	struct vk_file *files;
};

static DEFINE_MUTEX(vk_run_lock);
static DEFINE_MUTEX(vk_set_lock);
static DEFINE_MUTEX(vk_res_lock);
static const struct vk_target *vk_running;	/* under vk_set_lock */
static struct dentry *vk_root;
static struct vk_state *vk_states;

static void defaults(struct vk_settings *set)
{
	set->loop_count = 10000;
	set->warmup = 100;
	set->chunk_us = VK_DEFAULT_CHUNK_US;
	set->irqs_off = false;
	set->seed = 1;
	cpumask_clear(&set->cpus);
}

/* Every knob and setting of s back to its value at load. Under
 * vk_set_lock, not during a run. */
static void reset(struct vk_state *s)
{
	const struct vk_param *p;

	defaults(&s->set);
	for (p = s->t->params; p && p->name; p++)
		if (p->store)
			p->store(p->def, strlen(p->def));
}

/* The text of a knob, setting or description, into buf (len bytes). */
static int show(const struct vk_file *f, char *buf, size_t len)
{
	const struct vk_settings *set = &f->s->set;
	int n;

	mutex_lock(&vk_set_lock);
	switch (f->kind) {
	case VK_LOOP_COUNT: n = scnprintf(buf, len, "%u\n", set->loop_count); break;
	case VK_WARMUP: n = scnprintf(buf, len, "%u\n", set->warmup); break;
	case VK_IRQS_OFF: n = scnprintf(buf, len, "%u\n", set->irqs_off); break;
	case VK_CHUNK_US: n = scnprintf(buf, len, "%u\n", set->chunk_us); break;
	case VK_CPUS: n = scnprintf(buf, len, "%*pbl\n", cpumask_pr_args(&set->cpus)); break;
	case VK_SEED: n = scnprintf(buf, len, "%llu\n", set->seed); break;
	case VK_DESCRIPTION: n = scnprintf(buf, len, "%s\n", f->s->t->calls); break;
	case VK_PARAM: n = f->p->show(buf, len); break;
	default: n = -EINVAL;
	}
	mutex_unlock(&vk_set_lock);
	return n;
}

/* *field = text's number when it is in lo..hi: 0, else -EINVAL. */
static int set_uint(const char *text, unsigned int lo, unsigned int hi, unsigned int *field)
{
	unsigned int u;

	if (kstrtouint(text, 0, &u) || u < lo || u > hi)
		return -EINVAL;
	*field = u;
	return 0;
}

/* Sets a knob or setting from text (a trailing newline allowed). */
static int store(const struct vk_file *f, char *text, size_t count)
{
	struct vk_settings *set = &f->s->set;
	u64 x;
	bool b;
	int err = 0;

	mutex_lock(&vk_set_lock);
	switch (f->kind) {
	case VK_LOOP_COUNT:
		err = set_uint(text, 1, VK_MAX_CALLS, &set->loop_count);
		break;
	case VK_WARMUP:
		err = set_uint(text, 0, VK_MAX_WARMUP, &set->warmup);
		break;
	case VK_CHUNK_US:
		err = set_uint(text, 1, VK_MAX_CHUNK_US, &set->chunk_us);
		break;
	case VK_IRQS_OFF:
		if (kstrtobool(text, &b))
			err = -EINVAL;
		else
			set->irqs_off = b;
		break;
	case VK_SEED:
		if (kstrtou64(text, 0, &x))
			err = -EINVAL;
		else
			set->seed = x;
		break;
	case VK_CPUS: {
		cpumask_var_t m;

		if (!zalloc_cpumask_var(&m, GFP_KERNEL)) {
			err = -ENOMEM;
			break;
		}
		/* Empty: the writer's own CPU. */
		if (*strim(text) && (cpulist_parse(strim(text), m) ||
				     !cpumask_subset(m, cpu_online_mask)))
			err = -EINVAL;
		else
			cpumask_copy(&set->cpus, m);
		free_cpumask_var(m);
		break;
	}
	case VK_PARAM:
		err = !f->p->store ? -EPERM : vk_running ? -EBUSY : f->p->store(text, count);
		break;
	default:
		err = -EINVAL;
	}
	mutex_unlock(&vk_set_lock);
	return err;
}

static int do_run(struct vk_state *s)
{
	struct vk_settings *set = kmalloc(sizeof(*set), GFP_KERNEL);
	struct vk_result *res = NULL, *old;
	int err;

	if (!set)
		return -ENOMEM;
	if (mutex_lock_interruptible(&vk_run_lock)) {
		kfree(set);
		return -EINTR;
	}
	mutex_lock(&vk_set_lock);
	*set = s->set;
	vk_running = s->t;
	mutex_unlock(&vk_set_lock);
	err = vk_run(s->t, set, &res);
	mutex_lock(&vk_set_lock);
	vk_running = NULL;
	mutex_unlock(&vk_set_lock);
	if (!err) {
		mutex_lock(&vk_res_lock);
		old = s->res;
		s->res = res;
		mutex_unlock(&vk_res_lock);
		vk_result_free(old);
	}
	mutex_unlock(&vk_run_lock);
	kfree(set);
	return err;
}

static int command(struct vk_state *s, const char *word)
{
	struct vk_result *old;
	int err = 0;

	if (!strcmp(word, "run") || !strcmp(word, "1"))
		return do_run(s);
	if (!strcmp(word, "clear")) {
		mutex_lock(&vk_res_lock);
		old = s->res;
		s->res = NULL;
		mutex_unlock(&vk_res_lock);
		vk_result_free(old);
		return 0;
	}
	if (!strcmp(word, "reset")) {
		mutex_lock(&vk_set_lock);
		if (vk_running)
			err = -EBUSY;
		else
			reset(s);
		mutex_unlock(&vk_set_lock);
		return err;
	}
	return -EINVAL;
}

static ssize_t vk_write(struct file *file, const char __user *ubuf, size_t count, loff_t *ppos)
{
	const struct vk_file *f = file->private_data;
	char buf[VK_WRITE_MAX + 1];
	int err;

	if (count > VK_WRITE_MAX)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (f->kind == VK_RUN)
		err = command(f->s, strim(buf));
	else
		err = store(f, buf, count);
	return err ? err : count;
}

/* "samples": one line per call of the last run, read from any offset. */
static ssize_t read_samples(const struct vk_state *s, char __user *ubuf, size_t count,
			    loff_t *ppos)
{
	const size_t w = VK_SAMPLE_WIDTH + 1;
	char *page = kmalloc(PAGE_SIZE, GFP_KERNEL);
	char line[VK_SAMPLE_WIDTH + 2];
	size_t done = 0, i;
	loff_t off = *ppos;

	if (!page)
		return -ENOMEM;
	count = min_t(size_t, count, PAGE_SIZE);
	mutex_lock(&vk_res_lock);
	for (i = off / w; s->res && done < count && i < s->res->nsamples; i++) {
		size_t skip = done ? 0 : off % w, k = min(w - skip, count - done);

		vn__iformat_line(s->res->samples[i], VK_SAMPLE_WIDTH, line, sizeof(line));
		memcpy(page + done, line + skip, k);
		done += k;
	}
	mutex_unlock(&vk_res_lock);
	if (copy_to_user(ubuf, page, done)) {
		kfree(page);
		return -EFAULT;
	}
	kfree(page);
	*ppos += done;
	return done;
}

static ssize_t vk_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	const struct vk_file *f = file->private_data;
	char *page;
	ssize_t n;

	if (f->kind == VK_SAMPLES)
		return read_samples(f->s, ubuf, count, ppos);
	page = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	if (f->kind == VK_RESULT || f->kind == VK_HIST) {
		mutex_lock(&vk_res_lock);
		n = 0;
		if (f->s->res) {
			n = f->kind == VK_RESULT ? f->s->res->textlen : f->s->res->histlen;
			memcpy(page, f->kind == VK_RESULT ? f->s->res->text : f->s->res->hist, n);
		}
		mutex_unlock(&vk_res_lock);
	} else {
		n = show(f, page, PAGE_SIZE);
	}
	if (n >= 0)
		n = simple_read_from_buffer(ubuf, count, ppos, page, n);
	kfree(page);
	return n;
}

static ssize_t running_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	char name[64];
	int n;

	mutex_lock(&vk_set_lock);
	n = scnprintf(name, sizeof(name), "%s\n", vk_running ? vk_running->name : "");
	mutex_unlock(&vk_set_lock);
	return simple_read_from_buffer(ubuf, count, ppos, name, n);
}

static const struct file_operations vk_running_fops = {
	.owner = THIS_MODULE,
	.read = running_read,
	.llseek = default_llseek,
};

static const struct file_operations vk_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = vk_read,
	.write = vk_write,
	.llseek = default_llseek,
};

/* A target's folder and files. */
static int add_target(struct vk_state *s)
{
	const struct vk_param *p = s->t->params;
	size_t np = 0, i;
	struct dentry *dir;

	while (p && p[np].name)
		np++;
	s->files = kcalloc(VK_PARAM + np, sizeof(*s->files), GFP_KERNEL);
	if (!s->files)
		return -ENOMEM;
	dir = debugfs_create_dir(s->t->name, vk_root);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	for (i = 0; i < VK_PARAM + np; i++) {
		struct vk_file *f = &s->files[i];
		const char *name = i < VK_PARAM ? vk_files[i].name : p[i - VK_PARAM].name;

		f->s = s;
		f->kind = i < VK_PARAM ? i : VK_PARAM;
		f->p = i < VK_PARAM ? NULL : &p[i - VK_PARAM];
		debugfs_create_file(name, i < VK_PARAM ? vk_files[i].mode :
				    f->p->store ? 0600 : 0400, dir, f, &vk_fops);
	}
	return 0;
}

/* Removes what init made; safe on a half-made state. */
static void remove_all(void)
{
	unsigned int i;

	debugfs_remove_recursive(vk_root);
	vk_root = NULL;
	for (i = 0; vk_states && i < vk_ntargets; i++) {
		vk_result_free(vk_states[i].res);
		kfree(vk_states[i].files);
	}
	kfree(vk_states);
	vk_states = NULL;
}

static int __init vk_init(void)
{
	unsigned int i;
	int err;

	vk_states = kcalloc(vk_ntargets, sizeof(*vk_states), GFP_KERNEL);
	if (!vk_states)
		return -ENOMEM;
	vk_root = debugfs_create_dir("vernier", NULL);
	if (IS_ERR(vk_root)) {
		err = PTR_ERR(vk_root);
		vk_root = NULL;
		goto fail;
	}
	debugfs_create_file("running", 0444, vk_root, NULL, &vk_running_fops);
	for (i = 0; i < vk_ntargets; i++) {
		struct vk_state *s = &vk_states[i];

		s->t = vk_targets[i];
		reset(s);
		err = add_target(s);
		if (err)
			goto fail;
	}
	return 0;
fail:
	remove_all();
	return err;
}

static void __exit vk_exit(void)
{
	remove_all();
}

module_init(vk_init);
module_exit(vk_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("vernier: per-call timing of kernel functions through debugfs");
