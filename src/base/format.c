/* Human-readable numbers for the console reporters. */
#include "format.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

/* Seconds from which durations are shown in exponent notation. */
#define BIG_S 1e6

/* The units a duration is shown in, largest first. */
static const struct {
    double scale;
    const char *unit;
} durations[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};

char *vn__fmt_ns(char *s, size_t n, double ns)
{
    if (!isfinite(ns)) {
        snprintf(s, n, "-");
        return s;
    }
    if (ns == 0) {
        snprintf(s, n, "0 ns");
        return s;
    }
    double a = fabs(ns);
    size_t u = 0;
    while (u + 1 < sizeof durations / sizeof durations[0] && a < durations[u].scale * 0.9995)
        u++;
    double v = ns / durations[u].scale;
    double av = fabs(v);
    /* Three significant digits, without switching to exponent notation
     * below a million seconds (past it, every digit would be printed). */
    int decimals = av >= 99.95 ? 0 : av >= 9.995 ? 1 : av >= 0.9995 ? 2 : 3;
    if (av >= BIG_S)
        snprintf(s, n, "%.3g %s", v, durations[u].unit);
    else
        snprintf(s, n, "%.*f %s", decimals, v, durations[u].unit);
    return s;
}

/* Rounds v > 0 up to 2 significant digits and returns the number of
 * decimals that shows them. The relative nudge keeps a value that is
 * already round, such as 0.31 stored as 0.31000000000000000444, from being
 * pushed up to the next step by its binary representation. */
static double round_up_2(double v, int *decimals)
{
    int d = v >= 10 ? 0 : 1 - (int)floor(log10(v));
    double p = pow(10, d);
    *decimals = d;
    return ceil(v * p * (1 - 1e-12)) / p;
}

char *vn__fmt_ns_bound(char *s, size_t n, double ns)
{
    static const struct {
        double scale;
        const char *unit;
    } units[] = {{1, "ns"}, {1e3, "us"}, {1e6, "ms"}, {1e9, "s"}};
    if (!isfinite(ns) || ns <= 0) {
        snprintf(s, n, "-");
        return s;
    }
    size_t u = 0;
    int decimals;
    double v = round_up_2(ns, &decimals);
    /* Rounding up may carry into the next unit (999.5 ns is "1.0 us"). */
    while (u + 1 < sizeof units / sizeof units[0] && v >= 1000) {
        u++;
        v = round_up_2(ns / units[u].scale, &decimals);
    }
    if (v >= BIG_S) {
        /* Two significant digits, rounded up so that it stays a bound. */
        double p = pow(10, floor(log10(v)) - 1);
        snprintf(s, n, "%.2g %s", ceil(v / p * (1 - 1e-12)) * p, units[u].unit);
    }
    else
        snprintf(s, n, "%.*f %s", decimals, v, units[u].unit);
    return s;
}

/* Three significant digits of v scaled by the largest of the steps 1e3,
 * 1e6, ... that keeps it at or above 1, with the matching prefix. */
static void scaled(char *s, size_t n, double v, const char *const *prefix, size_t nprefix,
                   const char *unit)
{
    size_t u = 0;
    double a = fabs(v);
    while (u + 1 < nprefix && a >= 999.5) {
        a /= 1000;
        v /= 1000;
        u++;
    }
    int decimals = a >= 99.95 ? 0 : a >= 9.995 ? 1 : 2;
    snprintf(s, n, "%.*f%s%s", decimals, v, prefix[u], unit);
}

char *vn__fmt_rate(char *s, size_t n, double per_sec, const char *unit)
{
    static const char *const prefix[] = {" ", " k", " M", " G", " T", " P"};
    if (!isfinite(per_sec)) {
        snprintf(s, n, "-");
        return s;
    }
    char u[64];
    snprintf(u, sizeof u, "%s/s", unit);
    scaled(s, n, per_sec, prefix, sizeof prefix / sizeof prefix[0], u);
    return s;
}

char *vn__fmt_headline(char *s, size_t n, double v, int cycles)
{
    if (!cycles)
        return vn__fmt_ns(s, n, v);
    /* Thousands and millions of cycles as k and M, in the width of the
     * ns beside them (a millisecond of a 3 GHz core is 3000.0kc). */
    if (!isfinite(v))
        snprintf(s, n, "-");
    else if (v < 99999.5)
        snprintf(s, n, "%.1fc", v);
    else if (v < 99999.5e3)
        snprintf(s, n, "%.1fkc", v / 1e3);
    else if (v < 99999.5e6)
        snprintf(s, n, "%.1fMc", v / 1e6);
    else
        snprintf(s, n, "%.4gc", v);
    return s;
}

char *vn__fmt_count(char *s, size_t n, double v)
{
    static const char *const prefix[] = {"", "k", "M", "G", "T", "P", "E"};
    if (!isfinite(v)) {
        snprintf(s, n, "-");
        return s;
    }
    if (fabs(v) < 999999.5)
        snprintf(s, n, "%.0f", v);
    else
        scaled(s, n, v, prefix, sizeof prefix / sizeof prefix[0], "");
    return s;
}

char *vn__fmt_pct(char *s, size_t n, double pct)
{
    if (!isfinite(pct))
        snprintf(s, n, "-");
    else if (pct != 0 && fabs(pct) < 0.001)
        snprintf(s, n, "<0.001%%");
    else if (fabs(pct) < 9.95)
        snprintf(s, n, "%.2g%%", pct);
    else
        snprintf(s, n, "%.0f%%", pct);
    return s;
}

char *vn__fmt_ratio(char *s, size_t n, double v)
{
    if (isnan(v))
        snprintf(s, n, "-");
    else if (isinf(v))
        snprintf(s, n, "%sinf", v < 0 ? "-" : "");
    else if (fabs(v) < 0.01 && v != 0)
        snprintf(s, n, "%.2gx", v);
    else if (fabs(v) < 9.995)
        snprintf(s, n, "%.2fx", v);
    else if (fabs(v) < 99.95)
        snprintf(s, n, "%.1fx", v);
    else
        snprintf(s, n, "%.0fx", v);
    return s;
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void c_locale_make(void)
{
    /* Fails only without memory; numbers then follow the thread's locale,
     * which is the C locale unless the host program set another. */
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

vn__locale vn__locale_c_begin(void)
{
    vn__locale l = {NULL};
    pthread_once(&c_locale_once, c_locale_make);
    if (c_locale)
        l.prev = uselocale(c_locale); /* (locale_t)0 on failure: nothing to undo */
    return l;
}

void vn__locale_c_end(vn__locale l)
{
    if (l.prev)
        uselocale((locale_t)l.prev);
}

int vn__parse_digits(const char *s, unsigned long long *v)
{
    if (!s || !*s || s[strspn(s, "0123456789")])
        return -1;
    char *end;
    errno = 0;
    unsigned long long u = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *v = u;
    return 0;
}

double vn__strtod(const char *s, char **end)
{
    vn__locale l = vn__locale_c_begin();
    errno = 0;
    double v = strtod(s, end);
    int e = errno; /* strtod's ERANGE, whatever the locale calls do */
    vn__locale_c_end(l);
    errno = e;
    return v;
}

char *vn__fmt_exact(char *s, size_t n, double v)
{
    if (!isfinite(v)) {
        snprintf(s, n, "%s", "");
        return s;
    }
    vn__locale l = vn__locale_c_begin();
    snprintf(s, n, "%.15g", v);
    if (strtod(s, NULL) != v)
        snprintf(s, n, "%.17g", v);
    vn__locale_c_end(l);
    return s;
}

/* Decimals that show 3 significant digits of like and the leading digit of
 * step, within 0..max. */
static int decimals_for(double like, double step, int max)
{
    double a = fabs(like);
    int d = a > 0 ? 2 - (int)floor(log10(a)) : 0;
    if (step > 0 && isfinite(step)) {
        int ds = -(int)floor(log10(step));
        if (ds > d)
            d = ds;
    }
    return d < 0 ? 0 : d > max ? max : d;
}

char *vn__fmt_ns_as(char *s, size_t n, double ns, double like, double step)
{
    if (!isfinite(ns)) {
        snprintf(s, n, "-");
        return s;
    }
    if (!isfinite(like))
        like = ns;
    size_t u = 0;
    while (u + 1 < sizeof durations / sizeof durations[0] && fabs(like) < durations[u].scale * 0.9995)
        u++;
    double sc = durations[u].scale;
    if (fmax(fabs(like), fabs(ns)) / sc >= BIG_S)
        snprintf(s, n, "%.6g %s", ns / sc, durations[u].unit);
    else
        snprintf(s, n, "%.*f %s", decimals_for(like / sc, step / sc, 9), ns / sc, durations[u].unit);
    return s;
}

char *vn__fmt_num_as(char *s, size_t n, double v, double like, double step)
{
    if (!isfinite(v)) {
        snprintf(s, n, "-");
        return s;
    }
    if (!isfinite(like))
        like = v;
    double a = fmax(fabs(v), fabs(like));
    if (a >= 1e15 || (a > 0 && a < 1e-9))
        snprintf(s, n, "%.6g", v);
    else
        snprintf(s, n, "%.*f", decimals_for(like, step, 12), v);
    return s;
}

int vn__wrap(vn_buf *b, const char *lead, size_t indent, size_t width, const char *s)
{
    size_t col = vn__text_width(lead);
    int err = vn_buf_puts(b, lead);
    int first = 1;
    while (!err && *s) {
        while (*s == ' ')
            s++;
        size_t n = strcspn(s, " ");
        if (!n)
            break;
        char *word = strndup(s, n);
        if (!word)
            return VN_ENOMEM;
        size_t w = vn__text_width(word);
        if (!first && col + 1 + w > width) {
            err = vn_buf_printf(b, "\n%*s", (int)indent, "");
            col = indent;
        } else if (!first) {
            err = vn_buf_puts(b, " ");
            col++;
        }
        if (!err)
            err = vn_buf_puts(b, word);
        free(word);
        col += w;
        first = 0;
        s += n;
    }
    return err ? err : vn_buf_puts(b, "\n");
}

const char *vn__quote_for(const char *text)
{
    return text && strchr(text, '\'') && !strchr(text, '"') ? "\"" : "'";
}

int vn__utf8_decode(const char *p, unsigned *cp)
{
    const unsigned char *u = (const unsigned char *)p;
    unsigned c = u[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    int len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!len)
        return 0;
    /* The second byte's range rules out overlong forms, surrogates and
     * code points past U+10FFFF (RFC 3629, section 4). */
    unsigned lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
    unsigned hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
    if (u[1] < lo || u[1] > hi)
        return 0;
    unsigned v = c & (0x7f >> len);
    for (int i = 1; i < len; i++) {
        if ((u[i] & 0xc0) != 0x80)
            return 0; /* also stops at the NUL of a cut sequence */
        v = v << 6 | (u[i] & 0x3f);
    }
    *cp = v;
    return len;
}

int vn__text_char(const char *p, int *printable)
{
    unsigned cp;
    int len = vn__utf8_decode(p, &cp);
    *printable = len && cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp < 0xa0);
    return len ? len : 1;
}

char *vn__fmt_printable(char *dst, size_t n, const char *src)
{
    if (n == 0)
        return dst;
    size_t o = 0;
    for (const char *p = src; *p;) {
        int ok, len = vn__text_char(p, &ok);
        if (!ok) {
            if (o + 1 >= n)
                break;
            dst[o++] = '?';
            p += len;
            continue;
        }
        if (o + (size_t)len >= n)
            break; /* a sequence fits whole or not at all */
        memcpy(dst + o, p, (size_t)len);
        o += (size_t)len;
        p += len;
    }
    dst[o] = '\0';
    return dst;
}

/* Code points a terminal draws two columns wide (Unicode's East Asian Wide
 * and Fullwidth blocks, and the emoji planes) or none (combining marks). */
static int columns(unsigned cp)
{
    static const unsigned wide[][2] = {
        {0x1100, 0x115f}, {0x2e80, 0x303e}, {0x3041, 0x33ff}, {0x3400, 0x4dbf},
        {0x4e00, 0x9fff}, {0xa000, 0xa4cf}, {0xac00, 0xd7a3}, {0xf900, 0xfaff},
        {0xfe30, 0xfe4f}, {0xff00, 0xff60}, {0xffe0, 0xffe6}, {0x1f300, 0x1f64f},
        {0x1f900, 0x1f9ff}, {0x20000, 0x2fffd}, {0x30000, 0x3fffd},
    };
    static const unsigned none[][2] = {
        {0x0300, 0x036f}, {0x1ab0, 0x1aff}, {0x1dc0, 0x1dff}, {0x200b, 0x200f},
        {0x20d0, 0x20ff}, {0xfe00, 0xfe0f}, {0xfe20, 0xfe2f},
    };
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++)
        if (cp >= wide[i][0] && cp <= wide[i][1])
            return 2;
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        if (cp >= none[i][0] && cp <= none[i][1])
            return 0;
    return 1;
}

size_t vn__text_width(const char *s)
{
    size_t w = 0;
    for (const char *p = s; *p;) {
        /* A color's escape sequence (ESC [ parameters, a final letter)
         * takes no column. */
        if (p[0] == '\033' && p[1] == '[') {
            size_t n = 2 + strspn(p + 2, "0123456789;");
            if ((p[n] >= 'A' && p[n] <= 'Z') || (p[n] >= 'a' && p[n] <= 'z')) {
                p += n + 1;
                continue;
            }
        }
        unsigned cp;
        int len = vn__utf8_decode(p, &cp);
        w += len ? (size_t)columns(cp) : 1;
        p += len ? len : 1;
    }
    return w;
}
