/* Human-readable numbers for the console reporters. */
#include "format.h"

#include <math.h>
#include <stdio.h>

char *vn__fmt_ns(char *s, size_t n, double ns)
{
    static const struct {
        double scale;
        const char *unit;
    } units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
    if (!isfinite(ns)) {
        snprintf(s, n, "-");
        return s;
    }
    double a = fabs(ns);
    size_t u = 0;
    while (u + 1 < sizeof units / sizeof units[0] && a < units[u].scale * 0.9995)
        u++;
    double v = ns / units[u].scale;
    double av = fabs(v);
    /* Three significant digits, without switching to exponent notation. */
    int decimals = av >= 99.95 ? 0 : av >= 9.995 ? 1 : av >= 0.9995 ? 2 : 3;
    snprintf(s, n, "%.*f %s", decimals, v, units[u].unit);
    return s;
}
