/* Human-readable numbers for the console reporters. */
#ifndef VN_FORMAT_H
#define VN_FORMAT_H

#include <stddef.h>

/* A duration with 3 significant digits and a scaled unit: "24.0 ns",
 * "4.26 us", "4.00 ms", "1.50 s"; "-" for NaN. Returns s. */
char *vn__fmt_ns(char *s, size_t n, double ns);

#endif
