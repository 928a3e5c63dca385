/* Counters in the engine's tables: which columns a run gets, their cells,
 * and the notes below the table that say once which events are missing,
 * why, and what would fix it.
 *
 * A row's counters, their units, which were scaled and the ratios are read
 * through vernier/results.h. The run's counter info (which events were
 * asked for and opened, why the others did not, how they were grouped) is
 * read directly: it is the counters' own record, with no accessor. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/format.h"
#include "results.h"

static int opened(const vn_results *r, const char *name)
{
    for (size_t i = 0; i < r->counters.n; i++)
        if (r->counters.ev[i].opened && !strcmp(r->counters.ev[i].name, name))
            return 1;
    return 0;
}

static int any_bytes(const vn_results *r)
{
    for (size_t i = 0; i < vn_results_count(r); i++)
        if (vn_result_figure(vn_results_at(r, i), VN_BYTES_PER_ITER) > 0)
            return 1;
    return 0;
}

void vn__results_layout(const vn_results *r, int compact, vn__col *cols)
{
    memcpy(cols, vn__results_cols, sizeof vn__results_cols);
    for (int k = VN__COL_CTR; k < VN__COL_MARKS; k++)
        cols[k] = (vn__col){"", 1, 1, VN__CC_NONE, NULL};
    int ipc = opened(r, "instructions") && opened(r, "cycles");
    int br = opened(r, "branches") && opened(r, "branch-misses");
    int cm = opened(r, "cache-references") && opened(r, "cache-misses");
    int ipb = opened(r, "instructions") && any_bytes(r);
    int k = VN__COL_CTR;
    for (size_t i = 0; i < r->counters.n && k < VN__COL_MARKS; i++) {
        const vn_counter_status *s = &r->counters.ev[i];
        if (!s->opened)
            continue;
        const char *n = s->name;
        /* The console folds a pair into its ratio: the ratio is what a
         * reader compares, and the table is wide already. */
        if (compact && ((ipc && !strcmp(n, "cycles")) ||
                        (br && (!strcmp(n, "branches") || !strcmp(n, "branch-misses"))) ||
                        (cm && (!strcmp(n, "cache-references") || !strcmp(n, "cache-misses")))))
            continue;
        const vn_counter_event *g = vn_counter_event_find(n);
        /* "cycles" is also the header of the reference-cycle estimate. */
        const char *h = compact && g ? g->column : !strcmp(n, "cycles") ? "cycles (PMU)" : n;
        cols[k] = (vn__col){h, 1, 1, VN__CC_EVENT, n};
        k++;
    }
    static const struct {
        int kind;
        const char *header;
    } ratios[] = {
        {VN__CC_IPC, "IPC"},
        {VN__CC_BRANCH_MISS, "br-miss%"},
        {VN__CC_CACHE_MISS, "cache-miss%"},
        {VN__CC_IPB, "insn/B"},
    };
    int have[] = {ipc, br, cm, ipb};
    for (size_t i = 0; i < 4 && k < VN__COL_MARKS; i++)
        if (have[i])
            cols[k++] = (vn__col){ratios[i].header, 1, 1, ratios[i].kind, NULL};
}

/* A count per iteration with about 3 significant digits and no exponent
 * for the usual sizes: "1.02", "35.7", "12800", "1.05M"; tiny ones, such
 * as a page fault every thousand iterations, "0.00098". */
static void per_iter(char *s, size_t n, double v)
{
    double a = fabs(v);
    if (!isfinite(v))
        snprintf(s, n, "-");
    else if (a == 0)
        snprintf(s, n, "0");
    else if (a >= 999999.5)
        vn__fmt_count(s, n, v);
    else if (a >= 99.95)
        snprintf(s, n, "%.0f", v);
    else if (a >= 9.995)
        snprintf(s, n, "%.1f", v);
    else if (a >= 0.9995)
        snprintf(s, n, "%.2f", v);
    else if (a >= 1e-4)
        snprintf(s, n, "%.2g", v);
    else
        snprintf(s, n, "%.1e", v);
}

static void pct(char *s, size_t n, double v)
{
    if (!isfinite(v))
        snprintf(s, n, "-");
    else
        snprintf(s, n, v < 9.995 ? "%.2f%%" : "%.1f%%", v);
}

static void fixed2(char *s, size_t n, double v)
{
    if (!isfinite(v))
        snprintf(s, n, "-");
    else
        snprintf(s, n, "%.2f", v);
}

/* The row's counter of that name: its index, or -1 when it has none. */
static int find(const vn_result *res, const char *name)
{
    for (size_t i = 0; i < vn_result_counters(res); i++)
        if (!strcmp(vn_result_counter(res, i, NULL), name))
            return (int)i;
    return -1;
}

static int scaled(const vn_result *res, int i)
{
    return i >= 0 && ((uint32_t)vn_result_figure(res, VN_COUNTERS_SCALED) >> i & 1u);
}

/* A ratio is an estimate when either of its parts is. */
static void mark(char *s, size_t n, const vn_result *res, const char *a, const char *b)
{
    if (strcmp(s, "-") && (scaled(res, find(res, a)) || scaled(res, find(res, b))) &&
        strlen(s) + 1 < n)
        strcat(s, "*");
}

void vn__results_counter_cells(const vn__col *cols, const vn_result *res, vn__cells *c)
{
    for (int k = VN__COL_CTR; k < VN__COL_MARKS; k++) {
        char *s = c->s[k];
        size_t z = sizeof c->s[k];
        s[0] = '\0';
        if (c->failed || cols[k].kind == VN__CC_NONE)
            continue;
        switch (cols[k].kind) {
        case VN__CC_EVENT: {
            int i = find(res, cols[k].event);
            double v = NAN;
            if (i >= 0)
                vn_result_counter(res, (size_t)i, &v);
            if (!isfinite(v)) {
                snprintf(s, z, "-");
                break;
            }
            if (!strcmp(vn_result_text(res, VN_TEXT_COUNTER_UNIT, (size_t)i), "ns"))
                vn__fmt_ns(s, z - 1, v);
            else
                per_iter(s, z - 1, v);
            if (scaled(res, i))
                strcat(s, "*");
            break;
        }
        case VN__CC_IPC:
            fixed2(s, z, vn_result_figure(res, VN_IPC));
            mark(s, z, res, "instructions", "cycles");
            break;
        case VN__CC_BRANCH_MISS:
            pct(s, z, vn_result_figure(res, VN_BRANCH_MISS_PCT));
            mark(s, z, res, "branch-misses", "branches");
            break;
        case VN__CC_CACHE_MISS:
            pct(s, z, vn_result_figure(res, VN_CACHE_MISS_PCT));
            mark(s, z, res, "cache-misses", "cache-references");
            break;
        case VN__CC_IPB:
            fixed2(s, z, vn_result_figure(res, VN_INSN_PER_BYTE));
            mark(s, z, res, "instructions", "instructions");
            break;
        }
    }
}

/* Whether any row has a counter the kernel multiplexed and scaled. */
static int any_scaled(const vn_results *r)
{
    for (size_t i = 0; i < vn_results_count(r); i++)
        if (vn_result_figure(vn_results_at(r, i), VN_COUNTERS_SCALED) != 0)
            return 1;
    return 0;
}

int vn__results_counter_notes(const vn_results *r, const vn_run_results *runs, const char *prefix,
                              vn_buf *b)
{
    const vn_counter_info *ci = &r->counters;
    int err = 0;
    if (ci->nopened && vn_results_count(r))
        err = vn_buf_printf(b, "%s%s\n", prefix,
                            runs ? "counters: per run, the command and every process it started"
                                        : "counters: per iteration, the empty loop's own counts taken off");
    /* One line per distinct reason, naming every event it keeps out: on a
     * virtual machine six events share one cause and one fix. */
    unsigned char done[VN_COUNTERS_MAX] = {0};
    for (size_t i = 0; i < ci->n && i < VN_COUNTERS_MAX && !err; i++) {
        const vn_counter_status *s = &ci->ev[i];
        if (s->opened || done[i])
            continue;
        err = vn_buf_printf(b, "%scounters: ", prefix);
        int first = 1;
        for (size_t k = i; k < ci->n && k < VN_COUNTERS_MAX && !err; k++) {
            const vn_counter_status *o = &ci->ev[k];
            if (o->opened || done[k] || strcmp(o->reason, s->reason) || strcmp(o->fix, s->fix))
                continue;
            done[k] = 1;
            err = vn_buf_printf(b, "%s%s", first ? "" : ", ", o->name);
            first = 0;
        }
        if (!err)
            err = vn_buf_printf(b, " not counted: %s", s->reason[0] ? s->reason : "unknown reason");
        if (!err && s->fix[0])
            err = vn_buf_printf(b, "; fix: %s", s->fix);
        if (!err)
            err = vn_buf_puts(b, "\n");
    }
    if (ci->split && !err)
        err = vn_buf_printf(b,
                            "%scounters: the hardware events did not fit the PMU together; they "
                            "are read in groups of at most %d that the kernel takes turns "
                            "counting, so their values are estimates (scaled)\n",
                            prefix, ci->max_group);
    char names[1024] = "";
    for (size_t i = 0; i < ci->n && i < VN_COUNTERS_MAX; i++)
        if (ci->ev[i].opened && ci->ev[i].user_only)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                     names[0] ? ", " : "", ci->ev[i].name);
    if (names[0] && !err)
        err = vn_buf_printf(b,
                            "%scounters: %s count user mode only (perf_event_paranoid forbids the "
                            "kernel part); fix: sysctl kernel.perf_event_paranoid=1\n",
                            prefix, names);
    int scaled = any_scaled(r);
    if (scaled && !err)
        err = vn_buf_printf(b,
                            "%scounters: * marks values the kernel counted only part of the time "
                            "(multiplexed) and scaled up by time enabled / time running\n",
                            prefix);
    return err;
}

int vn__results_counter_brief(const vn_results *r, const vn_run_results *runs, vn_buf *b)
{
    const vn_counter_info *ci = &r->counters;
    int err = 0;
    /* A command's counts take in every process it started, which its own
     * summary does not say; the engine's per iteration is its table's. */
    if (runs && ci->nopened && vn_results_count(r))
        err = vn_buf_puts(b, "counters: per run, the command and every process it started\n");
    size_t nfailed = 0;
    for (size_t i = 0; i < ci->n && i < VN_COUNTERS_MAX; i++)
        nfailed += !ci->ev[i].opened;
    /* One line per distinct reason: the events it keeps out by name when
     * they fit, else how many; the fix is --explain's. */
    unsigned char done[VN_COUNTERS_MAX] = {0};
    for (size_t i = 0; i < ci->n && i < VN_COUNTERS_MAX && !err; i++) {
        const vn_counter_status *s = &ci->ev[i];
        if (s->opened || done[i])
            continue;
        char names[1024] = "";
        size_t count = 0;
        for (size_t k = i; k < ci->n && k < VN_COUNTERS_MAX; k++) {
            const vn_counter_status *o = &ci->ev[k];
            if (o->opened || done[k] || strcmp(o->reason, s->reason) || strcmp(o->fix, s->fix))
                continue;
            done[k] = 1;
            count++;
            size_t len = strlen(names);
            snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", o->name);
        }
        const char *why = s->reason[0] ? s->reason : "unknown reason";
        /* The reason's first clause, when the whole does not fit. */
        char clause[sizeof s->reason];
        snprintf(clause, sizeof clause, "%s", why);
        clause[strcspn(clause, ",;:(")] = '\0';
        size_t e = strlen(clause);
        while (e > 0 && clause[e - 1] == ' ')
            clause[--e] = '\0';
        char many[48];
        if (count == ci->n && count == nfailed)
            snprintf(many, sizeof many, "none counted");
        else
            snprintf(many, sizeof many, "%zu event%s not counted", count, count == 1 ? "" : "s");
        char line[1536];
        const char *forms[][3] = {{names, " not counted: ", why},
                                  {many, ": ", why},
                                  {names, " not counted: ", clause},
                                  {many, ": ", clause},
                                  {names, " not counted", " (--explain)"},
                                  {many, " (--explain)", ""}};
        for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
            snprintf(line, sizeof line, "counters: %s%s%s", forms[f][0], forms[f][1], forms[f][2]);
            if (vn__text_width(line) <= 100)
                break;
        }
        err = vn_buf_printf(b, "%s\n", line);
    }
    if (ci->split && !err)
        err = vn_buf_printf(b, "counters: groups of at most %d take turns on the PMU; * marks "
                               "scaled estimates\n", ci->max_group);
    char names[1024] = "";
    size_t nuser = 0;
    for (size_t i = 0; i < ci->n && i < VN_COUNTERS_MAX; i++)
        if (ci->ev[i].opened && ci->ev[i].user_only) {
            nuser++;
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                     names[0] ? ", " : "", ci->ev[i].name);
        }
    if (nuser && strlen(names) > 50)
        snprintf(names, sizeof names, "%zu events", nuser);
    if (nuser && !err)
        err = vn_buf_printf(b, "counters: %s count user mode only (perf_event_paranoid)\n", names);
    int scaled = any_scaled(r);
    if (scaled && !ci->split && !err)
        err = vn_buf_puts(b, "counters: * marks values counted part of the time and scaled up\n");
    return err;
}
