/* Reporters of `vernier clocks`: the vernier.clocks/1 JSON document, the
 * console table, and the delta distribution of one clock. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/format.h"
#include "internal.h"

/* "tsc kvm-clock" -> ["tsc", "kvm-clock"] */
static void json_words(vn__json *j, const char *key, const char *words)
{
    vn__json_arr_begin(j, key);
    const char *p = words;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (n) {
            char w[64];
            if (n >= sizeof w)
                n = sizeof w - 1;
            memcpy(w, p, n);
            w[n] = '\0';
            vn__json_str(j, NULL, w);
        }
        p += strcspn(p, " ");
    }
    vn__json_arr_end(j);
}

static int counter_unit(vn_clock_id id) { return (vn_clock_flags(id) & VN_CLOCK_F_COUNTER) != 0; }

int vn_report_clocks_json(const vn_clocks_report *r, vn_buf *out)
{
    vn__json j;
    vn__json_init(&j, out, 1);
    vn__json_obj_begin(&j, NULL);
    vn__json_str(&j, "schema", "vernier.clocks/1");
    vn__json_str(&j, "vernier_version", vn_version());

    vn__json_obj_begin(&j, "clocksource");
    vn__json_str(&j, "current", r->clocksource[0] ? r->clocksource : NULL);
    if (r->clocksource_available[0])
        json_words(&j, "available", r->clocksource_available);
    else
        vn__json_null(&j, "available");
    vn__json_obj_end(&j);

    const vn_tsc_info *t = &r->tsc;
    double cal = r->tsc_calibrated ? r->calib.hz : NAN;
    double cpuid = t->freq_hz_cpuid > 0 ? t->freq_hz_cpuid : NAN;
    vn__json_obj_begin(&j, "tsc");
    vn__json_bool(&j, "present", t->present);
    vn__json_bool(&j, "invariant", t->present == 1 ? t->invariant : -1);
    vn__json_bool(&j, "constant", t->constant);
    vn__json_bool(&j, "nonstop", t->nonstop);
    vn__json_bool(&j, "rdtscp", t->rdtscp);
    vn__json_bool(&j, "hypervisor", t->hypervisor);
    vn__json_str(&j, "cpu_vendor", t->cpu_vendor[0] ? t->cpu_vendor : NULL);
    vn__json_str(&j, "hypervisor_vendor", t->hypervisor_vendor[0] ? t->hypervisor_vendor : NULL);
    vn__json_num(&j, "freq_hz", isfinite(cal) ? cal : cpuid);
    vn__json_num(&j, "freq_hz_cpuid", cpuid);
    vn__json_str(&j, "freq_source_cpuid", t->freq_source);
    vn__json_num(&j, "freq_hz_calibrated", cal);
    vn__json_num(&j, "calibration_error_ppm", r->tsc_calibrated ? r->calib.error_ppm : NAN);
    vn__json_num(&j, "calibration_ms", r->tsc_calibrated ? r->calib.duration_ns / 1e6 : NAN);
    vn__json_obj_end(&j);

    vn__json_arr_begin(&j, "clocks");
    for (size_t i = 0; i < r->nclocks; i++) {
        const vn_clock_probe *p = &r->clocks[i];
        vn__json_obj_begin(&j, NULL);
        vn__json_str(&j, "name", vn_clock_name(p->id));
        vn__json_str(&j, "description", vn_clock_describe(p->id));
        vn__json_bool(&j, "available", p->available);
        vn__json_str(&j, "unit", counter_unit(p->id) ? "ticks" : "ns");
        vn__json_num(&j, "latency_ns", p->latency_ns);
        vn__json_num(&j, "resolution_ns", p->resolution_ns);
        vn__json_num(&j, "resolution_median_ns", p->resolution_median_ns);
        vn__json_num(&j, "unit_ns", p->unit_ns > 0 ? p->unit_ns : NAN);
        vn__json_num(&j, "getres_ns", p->getres_ns);
        if (p->available)
            vn__json_uint(&j, "backwards", p->backwards);
        else
            vn__json_null(&j, "backwards");
        vn__json_uint(&j, "reads", p->reads);
        vn__json_obj_end(&j);
    }
    vn__json_arr_end(&j);

    if (r->crosscpu_done) {
        const vn_crosscpu *c = &r->crosscpu;
        vn__json_obj_begin(&j, "crosscpu");
        vn__json_int(&j, "cpus", c->ncpus);
        vn__json_uint(&j, "migrations", c->migrations);
        if (c->has_counter) {
            vn__json_uint(&j, "tsc_backwards", c->tsc_backwards);
            vn__json_num(&j, "tsc_max_step_ns", c->tsc_max_step_ns);
            vn__json_num(&j, "tsc_max_backwards_ns", c->tsc_max_backwards_ns);
        } else {
            vn__json_null(&j, "tsc_backwards");
            vn__json_null(&j, "tsc_max_step_ns");
            vn__json_null(&j, "tsc_max_backwards_ns");
        }
        vn__json_uint(&j, "monotonic_backwards", c->mono_backwards);
        vn__json_num(&j, "monotonic_max_step_ns", c->mono_max_step_ns);
        vn__json_num(&j, "monotonic_max_backwards_ns", c->mono_max_backwards_ns);
        vn__json_obj_begin(&j, "warp");
        vn__json_int(&j, "pairs", c->warp_pairs);
        vn__json_uint(&j, "handoffs", c->warp_handoffs);
        if (c->has_counter)
            vn__json_uint(&j, "tsc_backwards", c->warp_tsc_backwards);
        else
            vn__json_null(&j, "tsc_backwards");
        vn__json_num(&j, "tsc_max_backwards_ns", c->warp_tsc_max_backwards_ns);
        vn__json_uint(&j, "monotonic_backwards", c->warp_mono_backwards);
        vn__json_num(&j, "monotonic_max_backwards_ns", c->warp_mono_max_backwards_ns);
        vn__json_num(&j, "resolution_ns", c->warp_resolution_ns);
        vn__json_obj_end(&j);
        vn__json_obj_end(&j);
    } else {
        vn__json_null(&j, "crosscpu");
    }

    vn__json_obj_begin(&j, "selected");
    vn__json_str(&j, "name", vn_clock_name(r->selected));
    vn__json_str(&j, "reason", r->selected_reason);
    vn__json_str(&j, "reason_id", vn_clock_select_id(r));
    vn__json_obj_end(&j);
    vn__json_obj_end(&j);
    return vn__json_finish(&j);
}

/* A line under a label of 13 columns (style: its color, or ""), wrapped
 * at 100 under its text; l (its text) is emptied for the next. */
static int labelled(vn_buf *o, const char *style, const char *label, vn_buf *l)
{
    char lead[48];
    snprintf(lead, sizeof lead, "%s%-13s", style, label);
    int rc = vn__wrap(o, lead, 13, 100, l->data ? l->data : "");
    vn_buf_reset(l);
    return rc;
}

#define BOLD(f) ((f) & VN_REPORT_COLOR ? "\033[1m" : "")
#define YELLOW(f) ((f) & VN_REPORT_COLOR ? "\033[33m" : "")
#define RESET(f) ((f) & VN_REPORT_COLOR ? "\033[0m" : "")

static const char *yes_no(int v, const char *yes, const char *no)
{
    return v == 1 ? yes : v == 0 ? no : "unknown";
}

/* A step no shorter than the read itself says more about the read than about
 * the clock: the true resolution may be finer than what two reads can show. */
static int read_bound(const vn_clock_probe *p)
{
    /* Every step a multiple of one unit: the clock ticks no finer. */
    return !(p->unit_ns > 0) && isfinite(p->resolution_ns) && isfinite(p->latency_ns) &&
           p->resolution_ns < 2.0 * p->latency_ns &&
           (!isfinite(p->getres_ns) || p->getres_ns < p->resolution_ns / 2.0);
}

int vn_report_clocks_text(const vn_clocks_report *r, unsigned flags, vn_buf *o)
{
    char a[32], b[32], c[32], d[32];
    int rc = 0;
    const vn_tsc_info *t = &r->tsc;
    vn_buf l; /* the text of a labelled line, wrapped under its label */
    vn_buf_init(&l, 0);

    rc |= vn_buf_printf(o, "%-13s%s", "clocksource", r->clocksource[0] ? r->clocksource : "unknown");
    if (r->clocksource_available[0])
        rc |= vn_buf_printf(o, " (available: %s)", r->clocksource_available);
    rc |= vn_buf_puts(o, "\n");

    if (t->present == 1) {
        rc |= vn_buf_printf(o, "%-13s%s, %s", "counter",
                            vn_clock_exists(VN_CLOCK_CNTVCT) ? "CNTVCT_EL0 present" : "TSC present",
                            yes_no(t->invariant, "invariant", "NOT invariant"));
        if (vn_clock_exists(VN_CLOCK_RDTSCP))
            rc |= vn_buf_printf(o, ", %s", yes_no(t->rdtscp, "with rdtscp", "without rdtscp"));
        if (t->hypervisor == 1)
            rc |= vn_buf_printf(o, "; under a hypervisor (%s)",
                                t->hypervisor_vendor[0] ? t->hypervisor_vendor : "unknown");
        rc |= vn_buf_puts(o, "\n");
        if (r->tsc_calibrated)
            rc |= vn_buf_printf(&l,
                                "%.3f MHz calibrated against CLOCK_MONOTONIC_RAW in %.1f ms (+-%.1f ppm)",
                                r->calib.hz / 1e6, r->calib.duration_ns / 1e6, r->calib.error_ppm);
        else
            rc |= vn_buf_puts(&l, "not calibrated");
        if (t->freq_hz_cpuid > 0)
            rc |= vn_buf_printf(&l, "; %s says %.3f MHz", t->freq_source, t->freq_hz_cpuid / 1e6);
        else
            rc |= vn_buf_puts(&l, "; CPUID does not report it");
        rc |= labelled(o, "", "frequency", &l);
    } else {
        rc |= vn_buf_printf(o, "%-13s%s\n", "counter", "none readable from user space");
    }

    rc |= vn_buf_printf(o, "\n%s%-18s %10s %11s %12s %12s %9s%s\n", BOLD(flags), "clock", "read cost",
                        "resolution", "median step", "clock_getres", "backwards", RESET(flags));
    int any_bound = 0;
    for (size_t i = 0; i < r->nclocks; i++) {
        const vn_clock_probe *p = &r->clocks[i];
        if (!p->available) {
            rc |= vn_buf_printf(o, "%-18s %10s\n", vn_clock_name(p->id), "not available here");
            continue;
        }
        int bound = read_bound(p);
        any_bound |= bound;
        char res[40];
        /* Every step a multiple of one unit: that is the clock's
         * granularity, however dear a read. */
        snprintf(res, sizeof res, "%s%s",
                 vn__fmt_ns(b, sizeof b, p->unit_ns > 0 ? p->unit_ns : p->resolution_ns),
                 bound ? "*" : " ");
        rc |= vn_buf_printf(o, "%-18s %10s %11s %12s %12s %9llu%s%s\n", vn_clock_name(p->id),
                            vn__fmt_ns(a, sizeof a, p->latency_ns), res,
                            vn__fmt_ns(c, sizeof c, p->resolution_median_ns),
                            vn__fmt_ns(d, sizeof d, p->getres_ns), (unsigned long long)p->backwards,
                            p->backwards ? YELLOW(flags) : "", p->backwards ? " !" : "");
        if (p->backwards)
            rc |= vn_buf_puts(o, RESET(flags));
    }
    if (any_bound)
        rc |= vn_buf_puts(o, "* no step is shorter than about one read: the clock may tick finer "
                             "than two reads can show\n");

    if (r->crosscpu_done) {
        const vn_crosscpu *x = &r->crosscpu;
        rc |= vn_buf_puts(o, "\n");
        if (x->ncpus < 2) {
            rc |= vn_buf_printf(o, "%-13sonly one CPU is allowed here; nothing to compare\n",
                                "across CPUs");
        } else {
            rc |= vn_buf_printf(&l, "%llu migrations over %d CPUs:",
                                (unsigned long long)x->migrations, x->ncpus);
            if (x->has_counter)
                rc |= vn_buf_printf(&l, " counter %s%s%s (largest step %s);",
                                    x->tsc_backwards ? YELLOW(flags) : "",
                                    x->tsc_backwards ? "WENT BACKWARDS" : "never went backwards",
                                    x->tsc_backwards ? RESET(flags) : "",
                                    vn__fmt_ns(a, sizeof a, x->tsc_max_step_ns));
            rc |= vn_buf_printf(&l, " monotonic %s (largest step %s)",
                                x->mono_backwards ? "WENT BACKWARDS" : "never went backwards",
                                vn__fmt_ns(b, sizeof b, x->mono_max_step_ns));
            rc |= labelled(o, "", "across CPUs", &l);
            rc |= vn_buf_printf(&l, "%llu turns taken in alternation by %d CPU pair%s:",
                                (unsigned long long)x->warp_handoffs, x->warp_pairs,
                                x->warp_pairs == 1 ? "" : "s");
            if (x->has_counter)
                rc |= vn_buf_printf(&l, " counter %s%s%s;", x->warp_tsc_backwards ? YELLOW(flags) : "",
                                    x->warp_tsc_backwards ? "WENT BACKWARDS" : "never went backwards",
                                    x->warp_tsc_backwards ? RESET(flags) : "");
            rc |= vn_buf_printf(&l, " monotonic %s",
                                x->warp_mono_backwards ? "WENT BACKWARDS" : "never went backwards");
            if (isfinite(x->warp_resolution_ns))
                rc |= vn_buf_printf(&l, " (offsets above %s would show)",
                                    vn__fmt_ns(c, sizeof c, x->warp_resolution_ns));
            rc |= labelled(o, "", "", &l);
        }
    }
    rc |= vn_buf_printf(&l, "%s%s: %s", vn_clock_name(r->selected), RESET(flags),
                        r->selected_reason);
    rc |= vn_buf_puts(o, "\n");
    rc |= labelled(o, BOLD(flags), "timer", &l);
    vn_buf_free(&l);
    return rc ? VN_ENOMEM : 0;
}

#define DIST_ROWS 40

int vn_report_distribution_text(vn_clock_id id, const vn_delta_dist *d, unsigned flags, vn_buf *o)
{
    int rc = 0;
    int ticks = counter_unit(id);
    uint64_t forward = d->pairs - d->zero - d->backwards;
    rc |= vn_buf_printf(o,
                        "%s%s%s: %llu reads, %llu steps forward, %llu zero, %llu backwards\n\n",
                        BOLD(flags), vn_clock_name(id), RESET(flags),
                        (unsigned long long)(d->pairs + 1), (unsigned long long)forward,
                        (unsigned long long)d->zero, (unsigned long long)d->backwards);
    /* Show the most frequent deltas, in delta order; the rest are summed. */
    uint64_t cut = 0;
    if (d->nbins > DIST_ROWS) {
        uint64_t counts[DIST_ROWS] = {0};
        for (size_t i = 0; i < d->nbins; i++) {
            uint64_t v = d->bins[i].count;
            for (size_t k = 0; k < DIST_ROWS; k++)
                if (v > counts[k]) {
                    uint64_t tmp = counts[k];
                    counts[k] = v;
                    v = tmp;
                }
        }
        cut = counts[DIST_ROWS - 1];
    }
    /* Bins tied at the cut fill only the rows the larger bins leave. */
    size_t tied_left = DIST_ROWS;
    for (size_t i = 0; i < d->nbins; i++)
        if (cut && d->bins[i].count > cut)
            tied_left--;
    uint64_t maxc = 0;
    for (size_t i = 0; i < d->nbins; i++)
        if (d->bins[i].count > maxc)
            maxc = d->bins[i].count;
    if (ticks)
        rc |= vn_buf_printf(o, "%14s %12s %12s %7s\n", "delta (ticks)", "delta (ns)", "count", "share");
    else
        rc |= vn_buf_printf(o, "%14s %12s %7s\n", "delta (ns)", "count", "share");
    if (d->zero) {
        double share = 100.0 * (double)d->zero / (double)d->pairs;
        if (ticks)
            rc |= vn_buf_printf(o, "%14d %12.1f %12llu %6.2f%% (same value twice)\n", 0, 0.0,
                                (unsigned long long)d->zero, share);
        else
            rc |= vn_buf_printf(o, "%14d %12llu %6.2f%% (same value twice)\n", 0,
                                (unsigned long long)d->zero, share);
    }
    uint64_t other_n = 0, other_bins = 0;
    for (size_t i = 0; i < d->nbins; i++) {
        const vn_delta_bin *bn = &d->bins[i];
        if (bn->count < cut || (bn->count == cut && tied_left == 0)) {
            other_n += bn->count;
            other_bins++;
            continue;
        }
        if (cut && bn->count == cut)
            tied_left--;
        double share = d->pairs ? 100.0 * (double)bn->count / (double)d->pairs : 0;
        char bar[41];
        size_t w = maxc ? (size_t)((double)bn->count * 40.0 / (double)maxc + 0.5) : 0;
        memset(bar, '#', w);
        bar[w] = '\0';
        if (ticks)
            rc |= vn_buf_printf(o, "%14llu %12.1f %12llu %6.2f%% %s\n", (unsigned long long)bn->delta,
                                (double)bn->delta * d->ns_per_unit, (unsigned long long)bn->count,
                                share, bar);
        else
            rc |= vn_buf_printf(o, "%14llu %12llu %6.2f%% %s\n", (unsigned long long)bn->delta,
                                (unsigned long long)bn->count, share, bar);
    }
    if (other_bins)
        rc |= vn_buf_printf(o, "%llu other deltas, %llu steps in all\n",
                            (unsigned long long)other_bins, (unsigned long long)other_n);
    if (d->backwards)
        rc |= vn_buf_printf(o, "%sbackwards: %llu steps, the largest %llu %s%s\n", YELLOW(flags),
                            (unsigned long long)d->backwards, (unsigned long long)d->max_backwards,
                            ticks ? "ticks" : "ns", RESET(flags));
    return rc ? VN_ENOMEM : 0;
}

int vn_report_distribution_json(vn_clock_id id, const vn_delta_dist *d, vn_buf *out)
{
    vn__json j;
    vn__json_init(&j, out, 1);
    vn__json_obj_begin(&j, NULL);
    vn__json_str(&j, "schema", "vernier.distribution/1");
    vn__json_str(&j, "clock", vn_clock_name(id));
    vn__json_str(&j, "unit", counter_unit(id) ? "ticks" : "ns");
    vn__json_uint(&j, "reads", d->pairs + 1);
    vn__json_uint(&j, "zero", d->zero);
    vn__json_uint(&j, "backwards", d->backwards);
    vn__json_uint(&j, "max_backwards", d->max_backwards);
    vn__json_arr_begin(&j, "deltas");
    for (size_t i = 0; i < d->nbins; i++) {
        vn__json_obj_begin(&j, NULL);
        vn__json_uint(&j, "delta", d->bins[i].delta);
        vn__json_num(&j, "delta_ns", (double)d->bins[i].delta * d->ns_per_unit);
        vn__json_uint(&j, "count", d->bins[i].count);
        vn__json_obj_end(&j);
    }
    vn__json_arr_end(&j);
    vn__json_obj_end(&j);
    return vn__json_finish(&j);
}
