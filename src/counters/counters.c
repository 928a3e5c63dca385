/* Counter groups through perf_event_open(2): opening them (and finding out
 * which events this machine cannot count, and why), splitting a group the
 * PMU cannot hold, reading, enabling, and the probe `vernier env` shows.
 *
 * Every system call goes through a vn__perf_sys table, so the tests can put
 * a fake PMU under the same code: one with four counters, one that refuses
 * hardware events, one that multiplexes. */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "base/fileutil.h"
#include "parse/sysinfo_parse.h"
#include "clock/clock_api.h"
#include "machine/sysinfo_api.h"

/* ---- The handle ------------------------------------------------------------------ */

typedef struct event {
    vn__ctr_spec spec;
    int fd;                 /* -1 when missing (or not yet open) */
    uint64_t id;            /* the kernel's id, matched in group reads */
    int group;
    int user_only;
    int err;                /* errno of the failure when missing */
    int failed;             /* missing */
} event;

typedef struct group {
    int leader_fd;
    size_t n;
    int member[VN_COUNTERS_MAX];  /* positions in the read order */
} group;

struct vn_counters {
    const vn__perf_sys *sys;
    vn__perf_facts facts;
    int have_facts;
    pid_t pid;
    unsigned flags;
    uint64_t read_format;
    int grouped;            /* one read per group; 0: one per event */
    int ids;                /* the kernel gave every event's id */
    char requested[256];
    size_t n;
    event ev[VN_COUNTERS_MAX];
    size_t nopen;
    int open_idx[VN_COUNTERS_MAX];  /* read order -> ev */
    int ngroups;
    group groups[VN_COUNTERS_MAX];
    int split;
    size_t max_hw;
    int probe;              /* vn_counters_probe: "opened" means "opens alone" */
};

static const vn__perf_facts *facts(vn_counters *c)
{
    if (!c->have_facts) {
        c->sys->facts(c->sys->ctx, &c->facts);
        c->have_facts = 1;
    }
    return &c->facts;
}

static void make_attr(const vn_counters *c, const vn__ctr_spec *s, int leader, int user_only,
                      struct perf_event_attr *a)
{
    memset(a, 0, sizeof *a);
    a->size = sizeof *a;
    a->type = s->type;
    a->config = s->config;
    a->config1 = s->config1;
    a->config2 = s->config2;
    a->read_format = c->read_format;
    /* The leader starts the group: members opened enabled count as soon
     * as their leader does, and stop with it. */
    a->disabled = leader;
    a->exclude_user = (s->exclude & VN_COUNTER_EXCLUDE_USER) != 0;
    a->exclude_kernel = (s->exclude & VN_COUNTER_EXCLUDE_KERNEL) != 0 || user_only;
    a->exclude_hv = a->exclude_kernel;
    if (c->flags & VN_COUNTERS_CHILD) {
        /* Counting starts when the child calls exec, not while it waits
         * for us; and the command's own children count too. */
        a->enable_on_exec = leader;
        a->inherit = 1;
    }
}

/* A user-only count is honest for most events (the program's own work
 * minus its system calls). Not for events that only happen in the kernel:
 * a context switch counted "in user mode" is always 0. Nor for an event
 * whose name asked for a mode. */
static int can_drop_kernel(const vn__ctr_spec *s)
{
    return !s->kernel_side && !(s->exclude & (VN_COUNTER_EXCLUDE_USER | VN_COUNTER_EXCLUDE_KERNEL));
}

/* Opens one event; when perf_event_paranoid forbids counting the kernel,
 * falls back to user mode only, as perf stat does, and says so. Returns
 * the fd or a negative errno. */
static int try_open(vn_counters *c, const vn__ctr_spec *s, int group_fd, int *user_only)
{
    struct perf_event_attr a;
    make_attr(c, s, group_fd < 0, *user_only, &a);
    int fd = c->sys->open(c->sys->ctx, &a, c->pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
    if ((fd == -EACCES || fd == -EPERM) && !*user_only && can_drop_kernel(s)) {
        make_attr(c, s, group_fd < 0, 1, &a);
        int fd2 = c->sys->open(c->sys->ctx, &a, c->pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
        if (fd2 >= 0) {
            *user_only = 1;
            return fd2;
        }
    }
    return fd;
}

static void close_all(vn_counters *c)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->ev[i].fd >= 0) {
            c->sys->close(c->sys->ctx, c->ev[i].fd);
            c->ev[i].fd = -1;
        }
}

/* The machine's facts, for the explanation, are read at the first failure:
 * a run where everything opens never looks at them. */
static void mark_failed(vn_counters *c, event *e, int err)
{
    e->failed = 1;
    e->err = err;
    e->fd = -1;
    e->group = -1;
    (void)facts(c);
}

/* Opens the events that opened alone as groups: all hardware events in one
 * group first, read at one instant. When the PMU cannot hold them all, the
 * kernel refuses the member that does not fit (x86 checks whether the group
 * can be scheduled at open time); the plan is then made again with groups
 * no larger than what fitted, and the kernel takes turns between them. */
static void open_groups(vn_counters *c)
{
    int idx[VN_COUNTERS_MAX], hw[VN_COUNTERS_MAX], group_of[VN_COUNTERS_MAX];
    size_t m = 0, nhw = 0;
    for (size_t i = 0; i < c->n; i++)
        if (!c->ev[i].failed) {
            idx[m] = (int)i;
            hw[m] = c->ev[i].spec.hardware;
            nhw += (size_t)hw[m];
            m++;
        }
    if (m == 0)
        return;
    size_t max_hw = nhw ? nhw : 1;
    for (;;) {
        int ng;
        if (c->grouped) {
            ng = vn__ctr_plan_groups(hw, m, max_hw, group_of);
        } else {
            for (size_t k = 0; k < m; k++)
                group_of[k] = (int)k;
            ng = (int)m;
        }
        size_t shrink_to = 0;
        for (int g = 0; g < ng && !shrink_to; g++) {
            int leader = -1;
            size_t hw_in = 0;
            for (size_t k = 0; k < m && !shrink_to; k++) {
                event *e = &c->ev[idx[k]];
                if (group_of[k] != g || e->failed)
                    continue;
                int fd = try_open(c, &e->spec, leader, &e->user_only);
                if (fd >= 0) {
                    e->fd = fd;
                    e->group = g;
                    if (leader < 0)
                        leader = fd;
                    hw_in += (size_t)e->spec.hardware;
                } else if (leader >= 0 && e->spec.hardware && hw_in >= 1 && hw_in < max_hw) {
                    /* It opened alone, so it is the group that is too big. */
                    shrink_to = hw_in;
                } else {
                    mark_failed(c, e, -fd);
                }
            }
        }
        if (!shrink_to)
            break;
        close_all(c);
        max_hw = shrink_to;
        c->split = 1;
    }
    c->max_hw = c->split ? max_hw : 0;
}

/* Numbers the groups that have members, in order, and notes each group's
 * leader and members in read order. */
static void index_groups(vn_counters *c)
{
    int renum[VN_COUNTERS_MAX];
    for (int g = 0; g < VN_COUNTERS_MAX; g++)
        renum[g] = -1;
    c->nopen = 0;
    c->ngroups = 0;
    for (size_t i = 0; i < c->n; i++) {
        event *e = &c->ev[i];
        if (e->failed || e->fd < 0)
            continue;
        if (renum[e->group] < 0) {
            renum[e->group] = c->ngroups++;
            c->groups[renum[e->group]].leader_fd = e->fd;
            c->groups[renum[e->group]].n = 0;
        }
        e->group = renum[e->group];
        group *g = &c->groups[e->group];
        g->member[g->n++] = (int)c->nopen;
        c->open_idx[c->nopen++] = (int)i;
    }
    /* Ids let a group read be matched to events whatever order the kernel
     * lists them in; PERF_EVENT_IOC_ID came with Linux 3.12, and without it
     * the members are read in the order they joined, which is ours. */
    c->ids = 1;
    for (size_t k = 0; k < c->nopen; k++) {
        event *e = &c->ev[c->open_idx[k]];
        uint64_t id = 0;
        if (c->sys->ioctl(c->sys->ctx, e->fd, PERF_EVENT_IOC_ID, (unsigned long)&id) != 0)
            c->ids = 0;
        e->id = id;
    }
}

/* Opens every event alone first: that tells which ones this machine can
 * count at all, apart from whether they fit together. */
static void probe_each(vn_counters *c)
{
    for (size_t i = 0; i < c->n; i++) {
        event *e = &c->ev[i];
        e->fd = -1;
        e->group = -1;
        if (e->spec.unresolved) {
            mark_failed(c, e, ENOENT);
            continue;
        }
        int fd = try_open(c, &e->spec, -1, &e->user_only);
        if (fd < 0) {
            mark_failed(c, e, -fd);
            continue;
        }
        c->sys->close(c->sys->ctx, fd);
    }
}

static int create(const vn__perf_sys *sys, const char *list, pid_t pid, unsigned flags,
                  vn_counters **out, char *why, size_t whylen)
{
    if (!out || pid < 0 || (flags & ~(unsigned)VN_COUNTERS_CHILD) ||
        ((flags & VN_COUNTERS_CHILD) && pid == 0)) {
        if (why && whylen)
            snprintf(why, whylen, "bad arguments to vn_counters_open");
        return VN_EINVAL;
    }
    vn_counters *c = calloc(1, sizeof *c);
    if (!c)
        return VN_ENOMEM;
    c->sys = sys ? sys : &vn__perf_sys_real;
    c->pid = pid;
    c->flags = flags;
    snprintf(c->requested, sizeof c->requested, "%s", list ? list : "default");
    vn__ctr_spec specs[VN_COUNTERS_MAX];
    int rc = vn__ctr_parse_list(list, vn__ctr_pfm_resolver(), specs, VN_COUNTERS_MAX, &c->n, why,
                                whylen);
    if (rc) {
        free(c);
        return rc;
    }
    for (size_t i = 0; i < c->n; i++) {
        c->ev[i].spec = specs[i];
        c->ev[i].fd = -1;
    }
    c->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                     PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
    c->grouped = 1;
    probe_each(c);
    if ((flags & VN_COUNTERS_CHILD) && c->n) {
        /* Inherited events read as a group: the perf_event_open(2) manual
         * warns that inherit does not work with some read formats, naming
         * PERF_FORMAT_GROUP. Current kernels accept the pair and sum each
         * member over the child processes (Linux 6.18 does, checked with a
         * grandchild; perf stat reads inherited groups this way), but a
         * kernel that refuses it says EINVAL for every event. Then each
         * event is opened and read on its own: the same totals, though not
         * taken at one instant. */
        int all_einval = 1;
        for (size_t i = 0; i < c->n; i++)
            all_einval &= c->ev[i].failed && c->ev[i].err == EINVAL;
        if (all_einval) {
            c->read_format &= ~(uint64_t)PERF_FORMAT_GROUP;
            c->grouped = 0;
            for (size_t i = 0; i < c->n; i++)
                c->ev[i].failed = c->ev[i].err = 0;
            probe_each(c);
        }
    }
    open_groups(c);
    index_groups(c);
    *out = c;
    return 0;
}

int vn__counters_open_sys(const vn__perf_sys *sys, const char *list, pid_t pid, unsigned flags,
                          vn_counters **out, char *why, size_t whylen)
{
    return create(sys, list, pid, flags, out, why, whylen);
}

int vn_counters_open(const char *list, pid_t pid, unsigned flags, vn_counters **out, char *why,
                     size_t whylen)
{
    return create(NULL, list, pid, flags, out, why, whylen);
}

int vn_counters_open_child(const char *list, pid_t pid, vn_counters **out, char *why,
                           size_t whylen)
{
    return create(NULL, list, pid, VN_COUNTERS_CHILD, out, why, whylen);
}

int vn__counters_reopen(const vn_counters *c, vn_counters **out)
{
    if (!c || !out)
        return VN_EINVAL;
    return create(c->sys, c->requested, c->pid, c->flags, out, NULL, 0);
}

void vn_counters_destroy(vn_counters *c)
{
    if (!c)
        return;
    close_all(c);
    free(c);
}

size_t vn_counters_n(const vn_counters *c) { return c ? c->nopen : 0; }

const char *vn_counters_name(const vn_counters *c, size_t i)
{
    return c && i < c->nopen ? c->ev[c->open_idx[i]].spec.name : NULL;
}

const char *vn_counters_unit(const vn_counters *c, size_t i)
{
    return c && i < c->nopen ? c->ev[c->open_idx[i]].spec.unit : NULL;
}

static void status_of(const vn_counters *c, const event *e, vn_counter_status *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", e->spec.name);
    s->unit = e->spec.unit;
    s->opened = !e->failed && (e->fd >= 0 || c->probe);
    s->group = s->opened ? e->group : -1;
    s->user_only = e->user_only;
    if (!s->opened) {
        s->err = e->err;
        /* mark_failed() read the facts when this event failed. */
        s->cause = vn__ctr_explain(&e->spec, e->err, &c->facts, s->reason, sizeof s->reason,
                                   s->fix, sizeof s->fix);
    }
}

void vn_counters_info(const vn_counters *c, vn_counter_info *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!c)
        return;
    snprintf(out->requested, sizeof out->requested, "%s", c->requested);
    out->n = c->n;
    for (size_t i = 0; i < c->n; i++)
        status_of(c, &c->ev[i], &out->ev[i]);
    out->nopened = c->nopen;
    out->ngroups = c->ngroups;
    out->split = c->split;
    out->max_group = (int)c->max_hw;
    out->grouped = c->grouped;
}

static int each_group(vn_counters *c, unsigned long request)
{
    if (!c)
        return VN_EINVAL;
    int rc = 0;
    if (c->grouped) {
        for (int g = 0; g < c->ngroups; g++) {
            int r = c->sys->ioctl(c->sys->ctx, c->groups[g].leader_fd, request, PERF_IOC_FLAG_GROUP);
            if (r && !rc)
                rc = r;
        }
    } else {
        for (size_t k = 0; k < c->nopen; k++) {
            int r = c->sys->ioctl(c->sys->ctx, c->ev[c->open_idx[k]].fd, request, 0);
            if (r && !rc)
                rc = r;
        }
    }
    return rc;
}

int vn_counters_enable(vn_counters *c) { return each_group(c, PERF_EVENT_IOC_ENABLE); }
int vn_counters_disable(vn_counters *c) { return each_group(c, PERF_EVENT_IOC_DISABLE); }
int vn_counters_reset(vn_counters *c) { return each_group(c, PERF_EVENT_IOC_RESET); }

int vn_counters_read(vn_counters *c, vn_counts *out)
{
    if (!c || !out)
        return VN_EINVAL;
    vn_counts tmp;
    tmp.n = c->nopen;
    uint64_t buf[3 + 3 * VN_COUNTERS_MAX];
    uint64_t ids[VN_COUNTERS_MAX];
    vn_count v[VN_COUNTERS_MAX];
    if (c->grouped) {
        for (int g = 0; g < c->ngroups; g++) {
            const group *gr = &c->groups[g];
            for (size_t j = 0; j < gr->n; j++)
                ids[j] = c->ev[c->open_idx[gr->member[j]]].id;
            long len = c->sys->read(c->sys->ctx, gr->leader_fd, buf, sizeof buf);
            if (len < 0 || vn__ctr_parse_read(buf, (size_t)len, c->read_format,
                                              c->ids ? ids : NULL, gr->n, v) != 0)
                return VN_EIO;
            for (size_t j = 0; j < gr->n; j++)
                tmp.v[gr->member[j]] = v[j];
        }
    } else {
        for (size_t k = 0; k < c->nopen; k++) {
            const event *e = &c->ev[c->open_idx[k]];
            long len = c->sys->read(c->sys->ctx, e->fd, buf, sizeof buf);
            if (len < 0 || vn__ctr_parse_read(buf, (size_t)len, c->read_format,
                                              c->ids ? &e->id : NULL, 1, v) != 0)
                return VN_EIO;
            tmp.v[k] = v[0];
        }
    }
    *out = tmp;
    return 0;
}

/* ---- The probe of `vernier env` ------------------------------------------------------ */

int vn__counters_probe_sys(const vn__perf_sys *sys, vn_counter_info *out)
{
    if (!out)
        return VN_EINVAL;
    char list[1024];
    size_t n, len = 0;
    const vn_counter_event *ev = vn_counter_events(&n);
    list[0] = '\0';
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? "," : "", ev[i].name);
    vn_counters *c = calloc(1, sizeof *c);
    if (!c)
        return VN_ENOMEM;
    c->sys = sys ? sys : &vn__perf_sys_real;
    c->probe = 1;
    vn__ctr_spec specs[VN_COUNTERS_MAX];
    int rc = vn__ctr_parse_list(list, NULL, specs, VN_COUNTERS_MAX, &c->n, NULL, 0);
    if (rc) {
        free(c);
        return rc;
    }
    for (size_t i = 0; i < c->n; i++)
        c->ev[i].spec = specs[i];
    c->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    /* Each alone, closed at once: this asks what works, not what fits. */
    probe_each(c);
    vn_counters_info(c, out);
    out->requested[0] = '\0';
    out->nopened = 0;
    for (size_t i = 0; i < out->n; i++)
        if (out->ev[i].opened) {
            out->ev[i].group = -1;
            out->nopened++;
        }
    out->ngroups = 0;
    free(c);
    return 0;
}

int vn_counters_probe(vn_counter_info *out) { return vn__counters_probe_sys(NULL, out); }

int vn_sysinfo_probe_counters(vn_sysinfo *s)
{
    if (!s)
        return VN_EINVAL;
    vn_counter_info *ci = malloc(sizeof *ci);
    if (!ci)
        return VN_ENOMEM;
    int rc = vn_counters_probe(ci);
    if (rc) {
        free(ci);
        return rc;
    }
    free(s->counters);
    s->counters = ci;
    return 0;
}
