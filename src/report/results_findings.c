/* The findings below a table of results, shared by the engine's console
 * table and vernier run's summary: one line per finding that fits a screen
 * (each warning id with the rows it touched, the machine's warnings, the
 * counters that could not count, the note, the timer), and for --explain
 * what each of them means and what to do about it, every message in full.
 *
 * The rows' warnings and the run's findings are read through
 * vernier/results.h. Read directly: the machine snapshot's warnings, the
 * note, and a finding's long explanation, which only --explain and the
 * JSON show. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/format.h"
#include "results.h"

#define YELLOW "\033[33m"
#define RESET "\033[0m"

typedef vn__text text;

#define out(t, ...) vn__textf((t)->b, &(t)->err, __VA_ARGS__)
#define pad vn__text_pad

/* The widest line below the table: one finding a line that fits a screen;
 * the long explanation is --explain's (VN_REPORT_EXPLAIN) and the JSON's. */
#define WIDTH 100

/* Appends s to line (of size n) unless that would make it wider than WIDTH:
 * 1 when it fit. */
static int fits(char *line, size_t n, const char *s)
{
    size_t len = strlen(line);
    if (vn__text_width(line) + vn__text_width(s) > WIDTH || len + strlen(s) >= n)
        return 0;
    memcpy(line + len, s, strlen(s) + 1);
    return 1;
}

/* The rows that have one warning id, and that warning's brief in each. */
typedef struct group {
    const char *id;
    size_t n;
    const char **name;      /* the row's name, as the caller shows it */
    char (*brief)[128];
} group;

/* Whether the word at s is a unit a number is shown with ("12.5 ms",
 * "42.03 cycles"), or what it counts ("~306 processes"). */
static int is_unit(const char *s)
{
    static const char *const units[] = {"ns", "us", "µs", "ms", "s", "KiB", "MiB", "GiB",
                                        "cycles", "processes"};
    size_t n = strcspn(s, " ,;:)");
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i]) == n && !strncmp(s, units[i], n))
            return 1;
    return 0;
}

/* Whether a tail of that many bytes may be what the briefs share: it
 * starts a word in every brief (or is one brief whole), and it does not
 * take a number's unit from it, so no brief is cut inside a number
 * ("1.5%" is not a tail of "11.5%") and "12.5 ms" stays whole. */
static int tail_ok(const group *g, size_t tail)
{
    for (size_t i = 0; i < g->n; i++) {
        const char *b = g->brief[i];
        size_t len = strlen(b);
        if (tail == len)
            continue;
        const char *at = b + len - tail;
        if (at[-1] != ' ')
            return 0;
        if (at - 1 > b && at[-2] >= '0' && at[-2] <= '9' && is_unit(at))
            return 0;
    }
    return 1;
}

/* How many bytes at the end all briefs share, moved forward to the start of
 * a word, so what differs (the numbers, put first) is named per row and
 * what they share is said once. */
static size_t shared_tail(const group *g)
{
    size_t tail = strlen(g->brief[0]);
    for (size_t i = 1; i < g->n; i++) {
        const char *a = g->brief[0], *b = g->brief[i];
        size_t la = strlen(a), lb = strlen(b), k = 0;
        while (k < la && k < lb && k < tail && a[la - 1 - k] == b[lb - 1 - k])
            k++;
        tail = k;
    }
    if (g->n == 1)
        return tail;
    while (tail > 0 && !tail_ok(g, tail))
        tail--;
    return tail;
}

/* The part of brief b before the shared tail, without the punctuation that
 * led into it. */
static void head_of(char *out, size_t n, const char *b, size_t tail)
{
    size_t len = strlen(b) - tail;
    while (len > 0 && strchr(" ,;:", b[len - 1]))
        len--;
    snprintf(out, n, "%.*s", (int)len, b);
}

/* One line for a warning id: the rows it touched, each with what differs
 * between them, then what they share in parentheses. When that is wider
 * than WIDTH: without what differs, then names only, then the first names
 * and how many more. */
static void group_line(text *t, const group *g)
{
    char lead[64], line[1024], part[512], head[128];
    char m = vn__warning_mark(g->id);
    snprintf(lead, sizeof lead, "%c %s:", m, g->id);
    size_t tail = shared_tail(g);
    const char *shared = g->brief[0] + strlen(g->brief[0]) - tail;

    for (int form = 0; form < 3; form++) {
        snprintf(line, sizeof line, "%s", lead);
        int ok = 1;
        for (size_t i = 0; i < g->n && ok; i++) {
            head_of(head, sizeof head, g->brief[i], tail);
            if (form == 0 && head[0] && tail)
                snprintf(part, sizeof part, "%s %s %s", i ? "," : "", g->name[i], head);
            else if (form == 0 && head[0])
                snprintf(part, sizeof part, "%s %s (%s)", i ? "," : "", g->name[i], head);
            else
                snprintf(part, sizeof part, "%s %s", i ? "," : "", g->name[i]);
            ok = fits(line, sizeof line, part);
        }
        if (ok && tail && form < 2) {
            snprintf(part, sizeof part, " (%s)", shared);
            ok = fits(line, sizeof line, part);
        }
        if (ok) {
            out(t, "%s%s%s\n", t->color ? YELLOW : "", line, t->color ? RESET : "");
            return;
        }
    }
    /* As many names as fit beside how many more there are. */
    snprintf(line, sizeof line, "%s", lead);
    size_t shown = 0;
    for (size_t i = 0; i < g->n; i++) {
        char more[48];
        snprintf(more, sizeof more, " and %zu more (--explain)", g->n - i - 1);
        snprintf(part, sizeof part, "%s %s", i ? "," : "", g->name[i]);
        if (vn__text_width(line) + vn__text_width(part) + (i + 1 < g->n ? strlen(more) : 0) >
                WIDTH ||
            !fits(line, sizeof line, part))
            break;
        shown++;
    }
    out(t, "%s%s", t->color ? YELLOW : "", line);
    if (shown < g->n)
        out(t, "%s %zu more (--explain)", shown ? " and" : "", g->n - shown);
    out(t, "%s\n", t->color ? RESET : "");
}

/* The warning ids of the rows, each once, in the order they first appear. */
static size_t warning_ids(const vn_results *r, const char **ids, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < vn_results_count(r); i++)
        for (size_t k = 0; k < vn_result_warnings(vn_results_at(r, i)); k++) {
            const char *id = vn_result_warning(vn_results_at(r, i), k, NULL);
            size_t j = 0;
            while (j < n && strcmp(ids[j], id))
                j++;
            if (j == n && n < max)
                ids[n++] = id;
        }
    return n;
}

/* The most lines the warning ids take: with the machine's, the counters'
 * and the timer's lines, the findings of any run fit in eight lines. */
#define MAX_ID_LINES 4

/* A line per warning id, naming the rows it touched; past MAX_ID_LINES - 1
 * of them, the others share the last line. */
static void row_findings(text *t, const vn_results *r, const char *const *names)
{
    const char *ids[VN_MAX_WARNINGS * 4];
    size_t nids = warning_ids(r, ids, sizeof ids / sizeof ids[0]);
    size_t nrows = vn_results_count(r), cap = nrows ? nrows : 1;
    group g = {NULL, 0, calloc(cap, sizeof *g.name), calloc(cap, sizeof *g.brief)};
    char also[256] = "";
    size_t left = 0;
    if (!g.name || !g.brief) {
        t->err = VN_ENOMEM;
        nids = 0;
    }
    for (size_t j = 0; j < nids; j++) {
        g.id = ids[j];
        g.n = 0;
        for (size_t i = 0; i < nrows; i++) {
            const vn_result *res = vn_results_at(r, i);
            for (size_t k = 0; k < vn_result_warnings(res); k++)
                if (!strcmp(vn_result_warning(res, k, NULL), g.id)) {
                    g.name[g.n] = names[i];
                    vn__warning_brief_of(res, k, g.brief[g.n], sizeof g.brief[0]);
                    g.n++;
                    break; /* an id twice in a row is said once */
                }
        }
        if (nids <= MAX_ID_LINES || j + 1 < MAX_ID_LINES) {
            group_line(t, &g);
            continue;
        }
        /* Past the lines a screen allows, the other ids share one line,
         * each with the rows it touched, as many as fit. */
        char part[512];
        if (j + 1 == MAX_ID_LINES)
            snprintf(also, sizeof also, "also:");
        snprintf(part, sizeof part, "%s %c %s (", also[5] ? ";" : "", vn__warning_mark(g.id), g.id);
        for (size_t i = 0; i < g.n; i++)
            snprintf(part + strlen(part), sizeof part - strlen(part), "%s%s", i ? ", " : "",
                     g.name[i]);
        snprintf(part + strlen(part), sizeof part - strlen(part), ")");
        char more[64];
        snprintf(more, sizeof more, "; %zu more (--explain)", nids - j);
        if (!left && vn__text_width(also) + vn__text_width(part) +
                             (j + 1 < nids ? strlen(more) : 0) <= WIDTH)
            fits(also, sizeof also, part);
        else if (!left)
            left = nids - j;
    }
    if (also[0]) {
        out(t, "%s%s", t->color ? YELLOW : "", also);
        if (left)
            out(t, "%s %zu more (--explain)", also[5] ? ";" : "", left);
        out(t, "%s\n", t->color ? RESET : "");
    }
    free(g.name);
    free(g.brief);
}

/* The machine's warnings in a few words each, as many to a line as fit. */
static void machine_findings(text *t, const vn_sysinfo *env)
{
    char line[256] = "";
    for (int k = 0; k < env->nwarnings && k < VN_SYSINFO_MAX_WARNINGS; k++) {
        const vn_warning *w = &env->warnings[k];
        char part[128];
        snprintf(part, sizeof part, "%s%s", line[0] ? ", " : "machine: ",
                 w->brief[0] ? w->brief : w->id);
        if (line[0] && !fits(line, sizeof line, part)) {
            out(t, "%s%s%s\n", t->color ? YELLOW : "", line, t->color ? RESET : "");
            snprintf(line, sizeof line, "machine: %s", w->brief[0] ? w->brief : w->id);
        } else if (!line[0]) {
            snprintf(line, sizeof line, "%s", part);
        }
    }
    if (line[0])
        out(t, "%s%s%s\n", t->color ? YELLOW : "", line, t->color ? RESET : "");
}

/* Writes text wrapped at WIDTH columns at its spaces: the first line starts
 * with lead, the others with indent spaces. */
static void wrapped(text *t, const char *lead, size_t indent, const char *s)
{
    if (!t->err)
        t->err = vn__wrap(t->b, lead, indent, WIDTH, s);
}

/* Each line of a note, wrapped, its continuation lines indented. */
static void wrapped_lines(text *t, const char *s)
{
    while (*s) {
        size_t n = strcspn(s, "\n");
        char *line = malloc(n + 1);
        if (!line) {
            t->err = VN_ENOMEM;
            return;
        }
        memcpy(line, s, n);
        line[n] = '\0';
        wrapped(t, "", 2, line);
        free(line);
        s += n + (s[n] == '\n');
    }
}

/* Whether any row or the machine has a warning, or a counter could not
 * count: what --explain says more of. */
static int has_findings(const vn_results *r)
{
    for (size_t i = 0; i < vn_results_count(r); i++)
        if (vn_result_warnings(vn_results_at(r, i)))
            return 1;
    for (size_t i = 0; i < vn_results_findings(r); i++)
        if (r->findings[i].explanation[0])
            return 1;
    for (size_t i = 0; i < r->counters.n && i < VN_COUNTERS_MAX; i++)
        if (!r->counters.ev[i].opened)
            return 1;
    return r->env.nwarnings > 0;
}

/* --explain: what each warning means and what to do about it, each row's
 * message in full, the machine's fixes, the counters' and the timer's notes. */
static void explain(text *t, const vn_results *r, const vn_run_results *runs, const char *const *names,
                    int timer)
{
    for (size_t i = 0; i < vn_results_findings(r); i++)
        if (r->findings[i].explanation[0]) {
            char lead[64];
            snprintf(lead, sizeof lead, "%s: ", vn_results_finding(r, i, NULL));
            wrapped(t, lead, 2, r->findings[i].explanation);
        }
    const char *ids[VN_MAX_WARNINGS * 4];
    size_t nids = warning_ids(r, ids, sizeof ids / sizeof ids[0]);
    for (size_t j = 0; j < nids; j++) {
        char lead[64];
        snprintf(lead, sizeof lead, "%c %s: ", vn__warning_mark(ids[j]), ids[j]);
        const char *why = vn__warning_explanation(ids[j]);
        wrapped(t, lead, 2, why ? why : "a warning of the benchmark's own; its message says what");
        for (size_t i = 0; i < vn_results_count(r); i++) {
            const vn_result *res = vn_results_at(r, i);
            for (size_t k = 0; k < vn_result_warnings(res); k++)
                if (!strcmp(vn_result_warning(res, k, NULL), ids[j])) {
                    char name[VN__CELL + 8];
                    snprintf(name, sizeof name, "  %s: ", names[i]);
                    wrapped(t, name, 4, vn_result_text(res, VN_TEXT_WARNING, k));
                }
        }
    }
    for (int k = 0; k < r->env.nwarnings && k < VN_SYSINFO_MAX_WARNINGS; k++) {
        const vn_warning *w = &r->env.warnings[k];
        char lead[64];
        snprintf(lead, sizeof lead, "machine %s: ", w->id);
        wrapped(t, lead, 2, w->message);
        wrapped(t, "  fix: ", 4, w->fix);
    }
    vn_buf notes;
    vn_buf_init(&notes, 0);
    int err = vn__results_counter_notes(r, runs, "", &notes);
    if (!err && r->note[0])
        err = vn_buf_printf(&notes, "note: %s\n", r->note);
    if (!err && timer)
        err = vn__results_timer_note(r, &notes);
    if (!err && timer && !runs)
        err = vn__results_processes_line(r, 1, &notes);
    if (!err && notes.len)
        wrapped_lines(t, notes.data);
    else if (err && !t->err)
        t->err = err;
    vn_buf_free(&notes);
}

/* The note on one line: whole when it fits, else cut at a word, the rest
 * left to --explain. 1 when it was cut. */
static int note_line(text *t, const char *note)
{
    char line[sizeof ((vn_results *)0)->note + 8];
    snprintf(line, sizeof line, "note: %s", note);
    if (vn__text_width(line) <= WIDTH && strlen(line) == strlen(note) + 6) {
        out(t, "%s\n", line);
        return 0;
    }
    /* Bytes, not columns, are cut: a line of wide characters is cut
     * shorter than it need be, never longer. */
    size_t k = WIDTH - 4;
    while (k > 6 && line[k] != ' ')
        k--;
    while (k > 6 && strchr(" ,;:", line[k - 1]))
        k--;
    out(t, "%.*s ...\n", (int)k, line);
    return 1;
}

int vn__results_findings(const vn_results *r, const vn_run_results *runs, const char *const *names,
                         unsigned flags, vn_buf *b)
{
    text t = {b, (flags & VN_REPORT_COLOR) != 0, 0};
    size_t start = b->len;
    /* What the rows tell together (a fit, the steps of a sweep) first: it
     * is what the run was for. */
    for (size_t i = 0; i < vn_results_findings(r); i++) {
        const char *brief = "";
        vn_results_finding(r, i, &brief);
        out(&t, "%s\n", brief);
    }
    row_findings(&t, r, names);
    machine_findings(&t, &r->env);
    if (!t.err)
        t.err = vn__results_counter_brief(r, runs, b);
    int cut = 0;
    if (!t.err && r->note[0])
        cut = note_line(&t, r->note);
    if (!t.err && (flags & VN__FINDINGS_TIMER))
        t.err = vn__results_timer_brief(r, b);
    /* How many processes, within how long: what the intervals saw. */
    if (!t.err && !runs && (flags & VN__FINDINGS_TIMER))
        t.err = vn__results_processes_line(r, 0, b);
    /* Where the long explanations are, once, on the last line, and only
     * when there is something to explain: beside what is there when it
     * fits, else on a line of its own, unless that line says it. */
    if (t.err || (flags & VN_REPORT_EXPLAIN) || !(has_findings(r) || cut))
        return t.err;
    static const char more[] = "; more: --explain";
    if (b->len > start && b->data[b->len - 1] == '\n') {
        size_t from = b->len - 1;
        while (from > start && b->data[from - 1] != '\n')
            from--;
        char last[WIDTH * 4];
        snprintf(last, sizeof last, "%.*s", (int)(b->len - 1 - from), b->data + from);
        if (strstr(last, "(--explain)"))
            return t.err; /* the last line says where the rest is already */
        if (b->len - 1 - from < sizeof last &&
            vn__text_width(last) + sizeof more - 1 <= WIDTH) {
            b->data[--b->len] = '\0';
            out(&t, "%s\n", more);
            return t.err;
        }
    }
    out(&t, "%s\n", more + 2);
    return t.err;
}

int vn__results_explain(const vn_results *r, const vn_run_results *runs, const char *const *names,
                        unsigned flags, vn_buf *b)
{
    text t = {b, (flags & VN_REPORT_COLOR) != 0, 0};
    explain(&t, r, runs, names, (flags & VN__FINDINGS_TIMER) != 0);
    return t.err;
}
