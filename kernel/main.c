// SPDX-License-Identifier: GPL-2.0
/* vernier_kbench: times kernel functions per call. Each target of the list
 * in vernier_kbench.h gets a folder /sys/kernel/vernier/<target>/ with its
 * knobs (loop_count, warmup, irqs_off and the target's own settings), a
 * "run" file whose reading measures and prints the summary in cycles, and
 * the last run's "samples" (the cycles of each call) and "hist". One mutex
 * serializes runs and changes of knobs, so a run never sees a half-made
 * setting and two runs never share the CPU's caches. */
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "vernier_kbench.h"

#ifndef CONFIG_X86_64
#error "vernier_kbench reads the x86-64 time stamp counter"
#endif

/* Each line of "samples" is this wide plus a newline, right-aligned: the
 * same length for every call, so a read at any offset finds its call by
 * division. 20 digits hold any 64-bit count. */
#define VK_SAMPLE_WIDTH 20
#define VK_HIST_BINS 20

struct vk_param_attr {
	struct kobj_attribute ka;
	const struct vk_param *p;
};

struct vk_state {
	const struct vk_target *t;
	struct kobject *kobj;
	struct vk_settings set;
	u64 *samples;		/* the last run's, in call order; NULL before one */
	size_t nsamples;
	struct vk_param_attr *pattrs;
	struct attribute **plist;
	struct attribute_group pgroup;
};

static DEFINE_MUTEX(vk_lock);
static struct kobject *vk_root;
static struct vk_state *vk_states;

static struct vk_state *state_of(struct kobject *kobj)
{
	unsigned int i;

	for (i = 0; i < vk_ntargets; i++)
		if (vk_states[i].kobj == kobj)
			return &vk_states[i];
	return NULL;
}

/* Parses an unsigned knob value into *v, in lo..hi; -EINVAL otherwise. */
static int parse_uint(const char *buf, unsigned int lo, unsigned int hi, unsigned int *v)
{
	unsigned int x;

	if (kstrtouint(buf, 0, &x) || x < lo || x > hi)
		return -EINVAL;
	*v = x;
	return 0;
}

enum vk_knob { VK_LOOP_COUNT, VK_WARMUP, VK_IRQS_OFF };

static ssize_t knob_show(struct kobject *kobj, enum vk_knob k, char *buf)
{
	struct vk_state *s = state_of(kobj);
	unsigned int v;

	if (!s)
		return -ENODEV;
	mutex_lock(&vk_lock);
	v = k == VK_LOOP_COUNT ? s->set.loop_count :
	    k == VK_WARMUP ? s->set.warmup : s->set.irqs_off;
	mutex_unlock(&vk_lock);
	return sysfs_emit(buf, "%u\n", v);
}

static ssize_t knob_store(struct kobject *kobj, enum vk_knob k, const char *buf, size_t count)
{
	struct vk_state *s = state_of(kobj);
	struct vk_settings set;
	bool b;
	int err;

	if (!s)
		return -ENODEV;
	if (mutex_lock_interruptible(&vk_lock))
		return -ERESTARTSYS;
	set = s->set;
	if (k == VK_LOOP_COUNT)
		err = parse_uint(buf, 1, VK_MAX_LOOP_COUNT, &set.loop_count);
	else if (k == VK_WARMUP)
		err = parse_uint(buf, 0, VK_MAX_WARMUP, &set.warmup);
	else
		err = kstrtobool(buf, &b) ? -EINVAL : 0, set.irqs_off = b;
	if (!err)
		s->set = set;
	mutex_unlock(&vk_lock);
	return err ? err : count;
}

#define VK_KNOB(name, id)                                                               \
	static ssize_t name##_show(struct kobject *k, struct kobj_attribute *a, char *buf) \
	{                                                                               \
		return knob_show(k, id, buf);                                           \
	}                                                                               \
	static ssize_t name##_store(struct kobject *k, struct kobj_attribute *a,        \
				    const char *buf, size_t count)                      \
	{                                                                               \
		return knob_store(k, id, buf, count);                                   \
	}                                                                               \
	static struct kobj_attribute name##_attr = __ATTR_RW(name)

VK_KNOB(loop_count, VK_LOOP_COUNT);
VK_KNOB(warmup, VK_WARMUP);
VK_KNOB(irqs_off, VK_IRQS_OFF);

/* Reading "run" measures: the summary of a fresh run, in cycles. */
static ssize_t run_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	struct vk_state *s = state_of(kobj);
	vn__istats st;
	u64 *samples;
	int err, len;

	if (!s)
		return -ENODEV;
	if (mutex_lock_interruptible(&vk_lock))
		return -ERESTARTSYS;
	err = vk_run(s->t, &s->set, &samples, &st);
	if (!err) {
		kvfree(s->samples);
		s->samples = samples;
		s->nsamples = s->set.loop_count;
	}
	mutex_unlock(&vk_lock);
	if (err)
		return err;
	len = vn__istats_format(&st, buf, PAGE_SIZE);
	return len < 0 ? -EOVERFLOW : len;
}
static struct kobj_attribute run_attr = __ATTR(run, 0400, run_show, NULL);

/* The histogram of the last run's calls (empty before a run). */
static ssize_t hist_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	struct vk_state *s = state_of(kobj);
	u64 *sorted;
	int len = 0;

	if (!s)
		return -ENODEV;
	if (mutex_lock_interruptible(&vk_lock))
		return -ERESTARTSYS;
	if (s->nsamples) {
		sorted = kvmalloc_array(s->nsamples, sizeof(*sorted), GFP_KERNEL);
		if (!sorted) {
			len = -ENOMEM;
		} else {
			memcpy(sorted, s->samples, s->nsamples * sizeof(*sorted));
			vn__isort(sorted, s->nsamples);
			len = vn__ihist_format(sorted, s->nsamples, VK_HIST_BINS, buf, PAGE_SIZE);
			if (len < 0)
				len = -EOVERFLOW;
			kvfree(sorted);
		}
	}
	mutex_unlock(&vk_lock);
	return len;
}
static struct kobj_attribute hist_attr = __ATTR(hist, 0444, hist_show, NULL);

static struct attribute *vk_attrs[] = {
	&loop_count_attr.attr, &warmup_attr.attr, &irqs_off_attr.attr,
	&run_attr.attr, &hist_attr.attr, NULL,
};
static const struct attribute_group vk_group = { .attrs = vk_attrs };

/* "samples": one line per call of the last run, read from any offset. */
static ssize_t samples_read(struct file *f, struct kobject *kobj, struct bin_attribute *a,
			    char *buf, loff_t off, size_t count)
{
	const size_t w = VK_SAMPLE_WIDTH + 1;
	struct vk_state *s = state_of(kobj);
	size_t done = 0, i;
	char line[VK_SAMPLE_WIDTH + 2];

	if (!s || off < 0)
		return -ENODEV;
	if (mutex_lock_interruptible(&vk_lock))
		return -ERESTARTSYS;
	for (i = off / w; done < count && i < s->nsamples; i++) {
		size_t skip = done ? 0 : off % w, k = min(w - skip, count - done);

		vn__iformat_line(s->samples[i], VK_SAMPLE_WIDTH, line, sizeof(line));
		memcpy(buf + done, line + skip, k);
		done += k;
	}
	mutex_unlock(&vk_lock);
	return done;
}
static struct bin_attribute samples_attr = __BIN_ATTR(samples, 0444, samples_read, NULL, 0);

static ssize_t param_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	const struct vk_param *p = container_of(a, struct vk_param_attr, ka)->p;
	int len;

	mutex_lock(&vk_lock);
	len = p->show(buf, PAGE_SIZE);
	mutex_unlock(&vk_lock);
	return len;
}

static ssize_t param_store(struct kobject *kobj, struct kobj_attribute *a, const char *buf,
			   size_t count)
{
	const struct vk_param *p = container_of(a, struct vk_param_attr, ka)->p;
	int err;

	if (mutex_lock_interruptible(&vk_lock))
		return -ERESTARTSYS;
	err = p->store(buf, count);
	mutex_unlock(&vk_lock);
	return err ? err : count;
}

/* The files of a target's own settings, made from its list of params. */
static int add_params(struct vk_state *s)
{
	const struct vk_param *p = s->t->params;
	size_t n = 0, i;

	while (p && p[n].name)
		n++;
	if (!n)
		return 0;
	s->pattrs = kcalloc(n, sizeof(*s->pattrs), GFP_KERNEL);
	s->plist = kcalloc(n + 1, sizeof(*s->plist), GFP_KERNEL);
	if (!s->pattrs || !s->plist)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct kobj_attribute *ka = &s->pattrs[i].ka;

		sysfs_attr_init(&ka->attr);
		ka->attr.name = p[i].name;
		ka->attr.mode = 0644;
		ka->show = param_show;
		ka->store = param_store;
		s->pattrs[i].p = &p[i];
		s->plist[i] = &ka->attr;
	}
	s->pgroup.attrs = s->plist;
	return sysfs_create_group(s->kobj, &s->pgroup);
}

/* Removes what init made, in reverse; safe on a half-made state.
 *
 * Unloading in the middle of a run waits for it: reading a sysfs file
 * takes no reference on the module, so rmmod is never refused (EBUSY) for
 * a run, but removing a folder (kobject_del) waits until no one is inside
 * one of its files. The run in progress ends, its reader gets the whole
 * summary, and only then are the samples freed and the module's code
 * unmapped. kobject_del, not only kobject_put: the put removes the folder
 * only with the last reference, which a kernel built with delayed
 * kobject release (CONFIG_DEBUG_KOBJECT_RELEASE) drops later, after the
 * samples would be gone. */
static void remove_all(void)
{
	unsigned int i;

	for (i = 0; vk_states && i < vk_ntargets; i++) {
		struct vk_state *s = &vk_states[i];

		if (s->kobj) {
			kobject_del(s->kobj);
			kobject_put(s->kobj);
		}
		kvfree(s->samples);
		kfree(s->pattrs);
		kfree(s->plist);
	}
	kfree(vk_states);
	vk_states = NULL;
	kobject_put(vk_root);
	vk_root = NULL;
}

static int __init vk_init(void)
{
	unsigned int i;
	int err = -ENOMEM;

	vk_states = kcalloc(vk_ntargets, sizeof(*vk_states), GFP_KERNEL);
	vk_root = kobject_create_and_add("vernier", kernel_kobj);
	if (!vk_states || !vk_root)
		goto fail;
	for (i = 0; i < vk_ntargets; i++) {
		struct vk_state *s = &vk_states[i];

		s->t = vk_targets[i];
		s->set.loop_count = 10000;
		s->set.warmup = 100;
		s->kobj = kobject_create_and_add(s->t->name, vk_root);
		if (!s->kobj) {
			err = -ENOMEM;
			goto fail;
		}
		err = sysfs_create_group(s->kobj, &vk_group);
		if (!err)
			err = sysfs_create_bin_file(s->kobj, &samples_attr);
		if (!err)
			err = add_params(s);
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
MODULE_DESCRIPTION("vernier: per-call timing of kernel functions through sysfs");
