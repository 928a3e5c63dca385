/* Human-readable numbers for the console reporters. */
#ifndef VN_FORMAT_H
#define VN_FORMAT_H

#include <stddef.h>

#include "vernier/base.h"

/* A duration with 3 significant digits and a scaled unit: "24.0 ns",
 * "4.26 us", "4.00 ms", "1.50 s"; "-" for NaN. Returns s. */
char *vn__fmt_ns(char *s, size_t n, double ns);

/* A headline: a duration as vn__fmt_ns gives it, or, when cycles, in
 * reference cycles marked c ("8416.1c", "1.235e+05c"), as vernier compare
 * and vernier history show code on the CPU. Returns s. */
char *vn__fmt_headline(char *s, size_t n, double v, int cycles);

/* An upper bound on a duration: 2 significant digits, rounded up so the
 * printed number is still a bound ("0.31 ns", "13 ns", "1.3 us"); "-" for
 * NaN or a value that is not positive. Returns s. */
char *vn__fmt_ns_bound(char *s, size_t n, double ns);

/* A rate with 3 significant digits and a decimal (SI) prefix before the
 * unit: "1.23 GB/s" for unit "B", "4.50 Mitems/s" for unit "items";
 * "-" for NaN. Returns s. */
char *vn__fmt_rate(char *s, size_t n, double per_sec, const char *unit);

/* A count: exact below a million ("131072"), else 3 significant digits and
 * a decimal suffix ("1.05M", "4.29G"); "-" for NaN. Returns s. */
char *vn__fmt_count(char *s, size_t n, double v);

/* A percentage for a sentence, never in exponent form: "0.012%", "2.5%",
 * "250%", "<0.001%" below that, "-" for NaN. Returns s. */
char *vn__fmt_pct(char *s, size_t n, double pct);

/* A ratio of two times: "0.57x", "1.74x", "12.3x", "250x"; two significant
 * digits below 0.01 ("0.0042x"); "inf" for infinity, "-" for NaN. Returns s. */
char *vn__fmt_ratio(char *s, size_t n, double v);

/* The shortest of %.15g and %.17g that reads back as the same double, so a
 * number written as text loses nothing; "" for NaN or infinity (the caller
 * decides how a missing value looks). Returns s. */
char *vn__fmt_exact(char *s, size_t n, double v);

/* A value in a column of values: the unit is the one vn__fmt_ns would pick
 * for like (the column's largest magnitude, say), and there are enough
 * decimals for 3 significant digits of like and for a difference of step
 * (the spread being described; 0 for none) to show. So the rows of a
 * histogram, 0.4 ns apart around 1 ms, read "1.0000 ms", "1.0004 ms"
 * rather than "1.00 ms" twice. "-" for NaN. Returns s. */
char *vn__fmt_ns_as(char *s, size_t n, double ns, double like, double step);

/* The same for a plain number without a unit: fixed point, never an
 * exponent below 1e15, so 1e12 + 0.25 reads "1000000000000.25". */
char *vn__fmt_num_as(char *s, size_t n, double v, double like, double step);

/* Numbers read and written in the C locale's form ("1.5") whatever the
 * host program chose with setlocale: under a locale whose decimal point is
 * a comma, printf's "%g" writes "1,5", which breaks a JSON number and adds
 * a field to a CSV row, and strtod stops at the dot of "0.1". begin switches
 * the calling thread to the C locale and returns what end needs to switch
 * it back; both cost a thread-local store. */
typedef struct vn__locale { void *prev; } vn__locale;
vn__locale vn__locale_c_begin(void);
void vn__locale_c_end(vn__locale l);
/* A whole number written in decimal digits only (no sign, space, exponent
 * or hex, which strtoull or strtod would also take): 0 and *v, or -1 for
 * anything else, or a number past unsigned long long. */
int vn__parse_digits(const char *s, unsigned long long *v);
/* strtod in the C locale; errno is strtod's (ERANGE on overflow or underflow). */
double vn__strtod(const char *s, char **end);

/* The length (1 to 4) of the UTF-8 sequence at p, with its code point in
 * *cp; 0 for a byte that starts no valid sequence (a stray continuation
 * byte, an overlong form, a surrogate, past U+10FFFF, cut short). */
int vn__utf8_decode(const char *p, unsigned *cp);

/* The length of the character at p (a byte that starts no UTF-8 sequence
 * counts as one), and in *printable whether text for people may carry it:
 * not a C0 or C1 control character, DEL, or such a byte. */
int vn__text_char(const char *p, int *printable);

/* src for a terminal, in dst (n bytes): control characters and bytes that
 * are not UTF-8 become '?', so a name or message can neither break a line
 * nor send an escape sequence. Returns dst. */
char *vn__fmt_printable(char *dst, size_t n, const char *src);

/* The columns UTF-8 text takes on a terminal: 2 for East Asian wide and
 * fullwidth characters and most emoji, 0 for combining marks and a
 * color's escape sequence, 1 for the rest (an invalid byte counts 1, as
 * the '?' it is shown as). */
size_t vn__text_width(const char *s);

/* Appends s to b wrapped at width columns at its spaces, each line ended
 * by a newline: the first starts with lead, the others with indent
 * spaces; a word longer than a line stays whole on a line of its own.
 * 0, or VN_ENOMEM. */
int vn__wrap(vn_buf *b, const char *lead, size_t indent, size_t width, const char *s);

/* The quote to put a command or name between in a message: ' unless the
 * text holds one (sh -c 'exit 1'), then ". */
const char *vn__quote_for(const char *text);

/* The labels --format gbench gives a repetition (a process) the headline
 * left out, or that gave only an upper bound, and by which vernier compare
 * leaves it out again when it reads the file, as it does reading the
 * run's own JSON, so both files of one run count the same processes. */
#define VN__GBENCH_LEFT_OUT "left out of the headline: another core state"
#define VN__GBENCH_BOUND "upper bound: no slower than the empty loop"

#endif
