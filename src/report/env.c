/* The machine snapshot as vernier.env/1 JSON (also embedded in every results
 * file through vn__json_sysinfo) and as the console report of `vernier env`. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "base/format.h"

/* ---- JSON --------------------------------------------------------------- */

/* Unknown values are null in JSON, never a sentinel such as -1 or "": a
 * reader should not need to know this library's conventions. */
static void j_str(vn__json *j, const char *key, const char *s)
{
    vn__json_str(j, key, s && s[0] ? s : NULL);
}

static void j_count(vn__json *j, const char *key, long long v)
{
    if (v < 0)
        vn__json_null(j, key);
    else
        vn__json_int(j, key, v);
}

/* A CPU list that is known to be empty is "", unknown is null. */
static void j_cpuset(vn__json *j, const char *key, const char *list, int count)
{
    if (count < 0)
        vn__json_null(j, key);
    else
        vn__json_str(j, key, count == 0 ? "" : list);
}

static void j_words(vn__json *j, const char *key, const char *list)
{
    if (!list[0]) {
        vn__json_null(j, key);
        return;
    }
    vn__json_arr_begin(j, key);
    const char *p = list;
    while (*p) {
        while (*p == ' ')
            p++;
        const char *e = p;
        while (*e && *e != ' ')
            e++;
        char word[64];
        size_t n = (size_t)(e - p) < sizeof word - 1 ? (size_t)(e - p) : sizeof word - 1;
        if (n) {
            memcpy(word, p, n);
            word[n] = '\0';
            vn__json_str(j, NULL, word);
        }
        p = e;
    }
    vn__json_arr_end(j);
}

/* The members of the snapshot, written into the object the caller opened. */
static void sysinfo_members(vn__json *j, const vn_sysinfo *s)
{
    j_str(j, "hostname", s->hostname);
    j_str(j, "kernel", s->kernel);
    j_str(j, "kernel_version", s->kernel_version);
    j_str(j, "arch", s->arch);

    vn__json_obj_begin(j, "cpu");
    j_str(j, "model", s->cpu_model);
    j_str(j, "vendor", s->cpu_vendor);
    j_count(j, "logical", s->logical_cpus);
    j_count(j, "physical_cores", s->physical_cores);
    j_count(j, "sockets", s->sockets);
    vn__json_bool(j, "smt", s->smt);
    j_str(j, "microcode", s->microcode);
    vn__json_obj_end(j);

    vn__json_arr_begin(j, "caches");
    for (int i = 0; i < s->ncaches; i++) {
        const vn_cache_info *c = &s->caches[i];
        vn__json_obj_begin(j, NULL);
        j_count(j, "level", c->level);
        j_str(j, "type", c->type);
        j_count(j, "size_bytes", c->size_bytes);
        j_count(j, "shared_cpus", c->shared_cpus);
        vn__json_obj_end(j);
    }
    vn__json_arr_end(j);

    vn__json_obj_begin(j, "memory");
    j_count(j, "total_bytes", s->mem_total_bytes);
    j_count(j, "available_bytes", s->mem_available_bytes);
    vn__json_obj_end(j);

    vn__json_arr_begin(j, "cpufreq");
    for (int i = 0; i < s->ncpus; i++) {
        const vn_cpu_freq *f = &s->cpus[i];
        vn__json_obj_begin(j, NULL);
        vn__json_int(j, "cpu", f->cpu);
        j_str(j, "governor", f->governor);
        j_str(j, "driver", f->driver);
        j_count(j, "cur_khz", f->cur_khz);
        j_count(j, "min_khz", f->min_khz);
        j_count(j, "max_khz", f->max_khz);
        vn__json_obj_end(j);
    }
    vn__json_arr_end(j);

    vn__json_bool(j, "turbo", s->turbo);
    j_str(j, "turbo_source", s->turbo_source);
    j_cpuset(j, "isolcpus", s->isolcpus, s->isolcpus_count);
    j_cpuset(j, "nohz_full", s->nohz_full, s->nohz_full_count);
    j_count(j, "aslr", s->aslr);
    if (s->perf_event_paranoid == VN_SYSINFO_PARANOID_UNKNOWN)
        vn__json_null(j, "perf_event_paranoid");
    else
        vn__json_int(j, "perf_event_paranoid", s->perf_event_paranoid);
    vn__json_bool(j, "perf_capable", s->perf_capable);

    vn__json_obj_begin(j, "hypervisor");
    vn__json_bool(j, "present", s->hypervisor);
    j_str(j, "vendor", s->hypervisor_vendor);
    vn__json_obj_end(j);

    vn__json_arr_begin(j, "loadavg");
    for (int i = 0; i < 3; i++)
        vn__json_num(j, NULL, s->loadavg[i]);
    vn__json_arr_end(j);

    vn__json_obj_begin(j, "clocksource");
    j_str(j, "current", s->clocksource);
    j_words(j, "available", s->clocksource_available);
    vn__json_obj_end(j);

    vn__json_bool(j, "tsc_invariant", s->tsc_invariant);

    vn__json_obj_begin(j, "idle");
    j_str(j, "driver", s->idle_driver);
    j_str(j, "governor", s->idle_governor);
    vn__json_arr_begin(j, "states");
    for (int i = 0; i < s->nidle; i++) {
        vn__json_obj_begin(j, NULL);
        vn__json_str(j, "name", s->idle[i].name);
        if (s->idle[i].exit_us < 0)
            vn__json_null(j, "exit_latency_us");
        else
            vn__json_int(j, "exit_latency_us", s->idle[i].exit_us);
        vn__json_bool(j, "disabled", s->idle[i].disabled != 0);
        vn__json_obj_end(j);
    }
    vn__json_arr_end(j);
    if (s->latency_request_us < 0)
        vn__json_null(j, "latency_request_us");
    else
        vn__json_int(j, "latency_request_us", s->latency_request_us);
    vn__json_obj_end(j);

    vn__json_arr_begin(j, "warnings");
    for (int i = 0; i < s->nwarnings; i++) {
        const vn_warning *w = &s->warnings[i];
        vn__json_obj_begin(j, NULL);
        vn__json_str(j, "id", w->id);
        vn__json_str(j, "message", w->message);
        vn__json_str(j, "fix", w->fix);
        vn__json_obj_end(j);
    }
    vn__json_arr_end(j);
}

void vn__json_sysinfo(vn__json *j, const char *key, const vn_sysinfo *s)
{
    vn__json_obj_begin(j, key);
    sysinfo_members(j, s);
    vn__json_obj_end(j);
}

/* Which counters work here: null when nobody probed (a fixture tree says
 * nothing about the machine it is read on). */
static void counters_json(vn__json *j, const vn_counter_info *ci)
{
    if (!ci) {
        vn__json_null(j, "counters");
        return;
    }
    vn__json_obj_begin(j, "counters");
    vn__json_bool(j, "named_events", vn_counters_have_pfm());
    vn__json_arr_begin(j, "events");
    for (size_t i = 0; i < ci->n && i < VN_COUNTERS_MAX; i++) {
        const vn_counter_status *e = &ci->ev[i];
        vn__json_obj_begin(j, NULL);
        vn__json_str(j, "name", e->name);
        vn__json_bool(j, "works", e->opened != 0);
        vn__json_bool(j, "user_only", e->user_only != 0);
        if (e->opened)
            vn__json_null(j, "errno");
        else
            vn__json_int(j, "errno", e->err);
        vn__json_str(j, "reason", e->opened || !e->reason[0] ? NULL : e->reason);
        vn__json_str(j, "fix", e->opened || !e->fix[0] ? NULL : e->fix);
        vn__json_obj_end(j);
    }
    vn__json_arr_end(j);
    vn__json_obj_end(j);
}

int vn_report_env_json(const vn_sysinfo *s, vn_buf *out)
{
    if (!s || !out)
        return VN_EINVAL;
    /* The snapshot's members sit at the top level of this document, next
     * to the schema name, rather than under an "env" key: the document is
     * the snapshot. */
    vn__json j;
    vn__json_init(&j, out, 1);
    vn__json_obj_begin(&j, NULL);
    vn__json_str(&j, "schema", "vernier.env/1");
    vn__json_str(&j, "vernier_version", vn_version());
    sysinfo_members(&j, s);
    counters_json(&j, s->counters);
    vn__json_obj_end(&j);
    return vn__json_finish(&j);
}

/* ---- Console ------------------------------------------------------------ */

#define LABEL_WIDTH 20

typedef struct text {
    vn_buf *b;
    unsigned flags;
    int err;
} text;

#define out(t, ...) vn__textf((t)->b, &(t)->err, __VA_ARGS__)

/* s wrapped at 100 columns, its later lines indented under the first's
 * text, so a long list of events or a fix reads within a screen. */
static void wrapped(text *t, const char *lead, size_t indent, const char *s)
{
    if (!t->err)
        t->err = vn__wrap(t->b, lead, indent, 100, s);
}

static void section(text *t, const char *name)
{
    int color = (t->flags & VN_REPORT_COLOR) != 0;
    out(t, "%s%s%s%s\n", t->b->len ? "\n" : "", color ? "\033[1m" : "", name,
        color ? "\033[0m" : "");
}

VN_PRINTF(3, 4)
static void row(text *t, const char *label, const char *fmt, ...)
{
    char value[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    char lead[64];
    snprintf(lead, sizeof lead, "  %-*s ", LABEL_WIDTH, label);
    wrapped(t, lead, 3 + LABEL_WIDTH, value);
}

/* A note under a row's value ("why: ...", "fix: ..."), its text wrapped
 * under itself. */
static void under_row(text *t, const char *what, const char *s)
{
    char lead[64];
    snprintf(lead, sizeof lead, "  %-*s %s: ", LABEL_WIDTH, "", what);
    wrapped(t, lead, vn__text_width(lead), s);
}

static const char *or_unknown(const char *s) { return s[0] ? s : "unknown"; }

static const char *yes_no(int v, const char *yes, const char *no)
{
    return v < 0 ? "unknown" : v ? yes : no;
}

static const char *const byte_units[] = {"B", "KiB", "MiB", "GiB", "TiB"};

/* A cache size in the largest unit that holds it whole ("48 KiB", "1280 KiB",
 * "32 MiB"): rounding 1280 KiB to "1.2 MiB" would hide the real size. */
static void exact_bytes(long long v, char *buf, size_t n)
{
    if (v < 0) {
        snprintf(buf, n, "unknown");
        return;
    }
    int u = 0;
    while (u < 4 && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        u++;
    }
    snprintf(buf, n, "%lld %s", v, byte_units[u]);
}

/* A memory size with one decimal in the largest unit below 1024 ("23.5 GiB"). */
static void approx_bytes(long long v, char *buf, size_t n)
{
    if (v < 0) {
        snprintf(buf, n, "unknown");
        return;
    }
    int u = 0;
    double x = (double)v;
    while (x >= 1024 && u < 4) {
        x /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%lld B", v);
    else
        snprintf(buf, n, "%.1f %s", x, byte_units[u]);
}

static void cpu_range(char *buf, size_t n, int lo, int hi)
{
    if (lo == hi)
        snprintf(buf, n, "cpu%d", lo);
    else
        snprintf(buf, n, "cpu%d-%d", lo, hi);
}

static int same_setting(const vn_cpu_freq *a, const vn_cpu_freq *b)
{
    return b->cpu == a->cpu + 1 && !strcmp(a->governor, b->governor) &&
           !strcmp(a->driver, b->driver) && a->min_khz == b->min_khz && a->max_khz == b->max_khz;
}

static int freq_known(const vn_cpu_freq *f)
{
    return f->governor[0] || f->driver[0] || f->cur_khz >= 0 || f->min_khz >= 0 ||
           f->max_khz >= 0;
}

/* The idle states with their declared exit latencies, and the latency
 * request in force, which decides which of them an idle CPU may enter. */
static void idle_rows(text *t, const vn_sysinfo *s)
{
    if (!s->nidle) {
        row(t, "idle states", "%s", s->idle_driver[0] ? s->idle_driver : "unknown (no cpuidle)");
    } else {
        char list[256] = "";
        size_t l = 0;
        for (int i = 0; i < s->nidle && l < sizeof list; i++) {
            int w = s->idle[i].exit_us >= 0
                        ? snprintf(list + l, sizeof list - l, "%s%s %d us%s", i ? ", " : "",
                                   s->idle[i].name, s->idle[i].exit_us,
                                   s->idle[i].disabled ? " (disabled)" : "")
                        : snprintf(list + l, sizeof list - l, "%s%s%s", i ? ", " : "",
                                   s->idle[i].name, s->idle[i].disabled ? " (disabled)" : "");
            l += w > 0 ? (size_t)w : 0;
        }
        row(t, "idle states", "%s (driver %s, governor %s)", list, or_unknown(s->idle_driver),
            or_unknown(s->idle_governor));
    }
    if (s->latency_request_us == VN_SYSINFO_NO_LATENCY_REQUEST)
        row(t, "latency request", "none (/dev/cpu_dma_latency: no process asks for one)");
    else if (s->latency_request_us >= 0)
        row(t, "latency request", "%d us (/dev/cpu_dma_latency, held by a running process)",
            s->latency_request_us);
    else
        row(t, "latency request", "unknown (/dev/cpu_dma_latency can be read only by root)");
}

/* One line per run of consecutive CPUs with the same settings: a machine
 * with 128 identical CPUs gets one line, not 128. The current frequency
 * changes all the time, so it is shown as a range and does not split runs. */
static void frequency_rows(text *t, const vn_sysinfo *s)
{
    int any = 0;
    for (int i = 0; i < s->ncpus; i++)
        any |= freq_known(&s->cpus[i]);
    if (!any) {
        row(t, "cpufreq", "not exposed (unknown)");
        return;
    }
    for (int i = 0; i < s->ncpus;) {
        int k = i + 1;
        while (k < s->ncpus && same_setting(&s->cpus[k - 1], &s->cpus[k]))
            k++;
        const vn_cpu_freq *f = &s->cpus[i];
        long long cur_lo = -1, cur_hi = -1;
        for (int m = i; m < k; m++) {
            long long c = s->cpus[m].cur_khz;
            if (c < 0)
                continue;
            if (cur_lo < 0 || c < cur_lo)
                cur_lo = c;
            if (c > cur_hi)
                cur_hi = c;
        }
        char label[32], value[256];
        cpu_range(label, sizeof label, f->cpu, s->cpus[k - 1].cpu);
        size_t len = (size_t)snprintf(value, sizeof value, "governor %s",
                                      or_unknown(f->governor));
        if (f->driver[0] && len < sizeof value)
            len += (size_t)snprintf(value + len, sizeof value - len, ", driver %s", f->driver);
        if (f->min_khz >= 0 && f->max_khz >= 0 && len < sizeof value)
            len += (size_t)snprintf(value + len, sizeof value - len, ", %lld-%lld MHz",
                                    (f->min_khz + 500) / 1000, (f->max_khz + 500) / 1000);
        if (cur_lo >= 0 && len < sizeof value) {
            if (cur_lo == cur_hi || (cur_lo + 500) / 1000 == (cur_hi + 500) / 1000)
                snprintf(value + len, sizeof value - len, ", now %lld MHz", (cur_lo + 500) / 1000);
            else
                snprintf(value + len, sizeof value - len, ", now %lld-%lld MHz",
                         (cur_lo + 500) / 1000, (cur_hi + 500) / 1000);
        }
        row(t, label, "%s", value);
        i = k;
    }
}

static void cpuset_row(text *t, const char *label, const char *list, int count)
{
    if (count < 0)
        row(t, label, "unknown");
    else if (count == 0)
        row(t, label, "none");
    else
        row(t, label, "%s (%d CPU%s)", list, count, count == 1 ? "" : "s");
}

static void caches_rows(text *t, const vn_sysinfo *s)
{
    if (s->ncaches == 0) {
        row(t, "caches", "unknown");
        return;
    }
    for (int i = 0; i < s->ncaches; i++) {
        const vn_cache_info *c = &s->caches[i];
        char label[48], size[32];
        if (c->level > 0)
            snprintf(label, sizeof label, "L%d %s", c->level, or_unknown(c->type));
        else
            snprintf(label, sizeof label, "cache %s", or_unknown(c->type));
        exact_bytes(c->size_bytes, size, sizeof size);
        if (c->shared_cpus > 0)
            row(t, label, "%s, shared by %d CPU%s", size, c->shared_cpus,
                c->shared_cpus == 1 ? "" : "s");
        else
            row(t, label, "%s", size);
    }
}

/* What each perf_event_paranoid level leaves to unprivileged processes. */
static const char *paranoid_text(int v, char *buf, size_t n)
{
    static const char *what[] = {
        "no limits",                           /* -1 */
        "CPU-wide events, no raw tracepoints", /* 0 */
        "own processes, user and kernel mode", /* 1 */
        "own processes, user mode only",       /* 2 */
    };
    if (v == VN_SYSINFO_PARANOID_UNKNOWN)
        return "unknown";
    if (v >= -1 && v <= 2)
        snprintf(buf, n, "%d (unprivileged: %s)", v, what[v + 1]);
    else
        snprintf(buf, n, "%d (unprivileged: no counters)", v);
    return buf;
}

/* The working counters on one line, then each reason for the others with
 * the events it keeps out and its fix. */
static void counters_rows(text *t, const vn_counter_info *ci)
{
    char names[1024] = "";
    for (size_t i = 0; i < ci->n && i < VN_COUNTERS_MAX; i++)
        if (ci->ev[i].opened)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s%s",
                     names[0] ? ", " : "", ci->ev[i].name,
                     ci->ev[i].user_only ? " (user mode only)" : "");
    row(t, "working", "%s", names[0] ? names : "none");
    unsigned char done[VN_COUNTERS_MAX] = {0};
    for (size_t i = 0; i < ci->n && i < VN_COUNTERS_MAX; i++) {
        const vn_counter_status *e = &ci->ev[i];
        if (e->opened || done[i])
            continue;
        names[0] = '\0';
        for (size_t k = i; k < ci->n && k < VN_COUNTERS_MAX; k++) {
            const vn_counter_status *o = &ci->ev[k];
            if (o->opened || done[k] || strcmp(o->reason, e->reason) || strcmp(o->fix, e->fix))
                continue;
            done[k] = 1;
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                     names[0] ? ", " : "", o->name);
        }
        row(t, "not working", "%s", names);
        under_row(t, "why", e->reason[0] ? e->reason : "unknown");
        if (e->fix[0])
            under_row(t, "fix", e->fix);
    }
    if (vn_counters_have_pfm())
        row(t, "named PMU events", "yes, through libpfm4 (--counters INST_RETIRED.ANY and the like)");
    else
        row(t, "named PMU events", "no: this build has no libpfm4 (install libpfm4-dev and rebuild)");
}

int vn_report_env_text(const vn_sysinfo *s, unsigned flags, vn_buf *b)
{
    if (!s || !b)
        return VN_EINVAL;
    text t = {b, flags, 0};
    char num[64];

    section(&t, "System");
    row(&t, "host", "%s", or_unknown(s->hostname));
    row(&t, "kernel", "%s", or_unknown(s->kernel));
    if (s->arch[0])
        row(&t, "arch", "%s", s->arch);
    if (s->hypervisor == 1)
        row(&t, "hypervisor", "%s", s->hypervisor_vendor[0] ? s->hypervisor_vendor : "yes");
    else
        row(&t, "hypervisor", "%s", yes_no(s->hypervisor, "yes", "none (bare metal)"));
    if (isfinite(s->loadavg[0]))
        row(&t, "load average", "%.2f %.2f %.2f (1, 5, 15 min)", s->loadavg[0], s->loadavg[1],
            s->loadavg[2]);
    else
        row(&t, "load average", "unknown");

    section(&t, "CPU");
    row(&t, "model", "%s", or_unknown(s->cpu_model));
    row(&t, "vendor", "%s", or_unknown(s->cpu_vendor));
    if (s->microcode[0])
        row(&t, "microcode", "%s", s->microcode);
#define COUNT_ROW(label, v)                                                                     \
    do {                                                                                        \
        if ((v) >= 0)                                                                           \
            row(&t, label, "%d", (v));                                                          \
        else                                                                                    \
            row(&t, label, "unknown");                                                          \
    } while (0)
    COUNT_ROW("logical CPUs", s->logical_cpus);
    COUNT_ROW("physical cores", s->physical_cores);
    COUNT_ROW("sockets", s->sockets);
#undef COUNT_ROW
    row(&t, "SMT", "%s", yes_no(s->smt, "active", "inactive"));

    section(&t, "Caches");
    caches_rows(&t, s);

    section(&t, "Memory");
    approx_bytes(s->mem_total_bytes, num, sizeof num);
    row(&t, "total", "%s", num);
    approx_bytes(s->mem_available_bytes, num, sizeof num);
    row(&t, "available", "%s", num);

    section(&t, "Frequency");
    frequency_rows(&t, s);
    if (s->turbo >= 0)
        row(&t, "turbo", "%s (%s)", s->turbo ? "on" : "off", or_unknown(s->turbo_source));
    else
        row(&t, "turbo", "unknown");

    section(&t, "Timing");
    if (s->clocksource[0] && s->clocksource_available[0])
        row(&t, "clocksource", "%s (available: %s)", s->clocksource, s->clocksource_available);
    else
        row(&t, "clocksource", "%s", or_unknown(s->clocksource));
    row(&t, "invariant TSC", "%s", yes_no(s->tsc_invariant, "yes", "no"));
    cpuset_row(&t, "isolated CPUs", s->isolcpus, s->isolcpus_count);
    cpuset_row(&t, "nohz_full CPUs", s->nohz_full, s->nohz_full_count);
    idle_rows(&t, s);

    section(&t, "Security/perf");
    static const char *aslr_names[] = {"off", "stack, mmap and vDSO", "stack, mmap, vDSO and heap"};
    if (s->aslr >= 0 && s->aslr <= 2)
        row(&t, "ASLR", "%d (%s)", s->aslr, aslr_names[s->aslr]);
    else
        row(&t, "ASLR", "unknown");
    row(&t, "perf_event_paranoid", "%s", paranoid_text(s->perf_event_paranoid, num, sizeof num));
    row(&t, "perf privileges", "%s",
        yes_no(s->perf_capable, "yes (CAP_PERFMON or CAP_SYS_ADMIN)", "none"));

    if (s->counters) {
        section(&t, "Counters");
        counters_rows(&t, s->counters);
    }

    section(&t, "Warnings");
    int color = (flags & VN_REPORT_COLOR) != 0;
    for (int i = 0; i < s->nwarnings; i++) {
        const vn_warning *w = &s->warnings[i];
        out(&t, "%s! %s: %s%s\n", color ? "\033[33m" : "", w->id, w->message,
            color ? "\033[0m" : "");
        wrapped(&t, "  fix: ", 7, w->fix);
    }
    if (s->nwarnings == 0)
        out(&t, "no warnings\n");
    else
        out(&t, "%d warning%s\n", s->nwarnings, s->nwarnings == 1 ? "" : "s");
    return t.err;
}
