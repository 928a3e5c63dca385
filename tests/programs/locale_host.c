/* A host program that sets its own locale before vn_main(), as a program
 * with a user interface does (setlocale(LC_ALL, "")). Under a locale whose
 * decimal point is a comma the results must still read "1.5", and the
 * host's locale must be back when vn_main() returns: the line printed after
 * it shows which decimal point printf uses then. */
#include <locale.h>
#include <stdio.h>

#include "multiplies.h"

/* 8 n dependent multiplies an iteration. */
static void chain(vn_state *st) { multiplies(st, 8 * (uint64_t)vn_state_param(st)); }
VN_BENCH_OPTS(chain, .range_lo = 1, .range_hi = 2, .items_per_iter = 1.5);

int main(int argc, char **argv)
{
    if (!setlocale(LC_ALL, "")) {
        fprintf(stderr, "locale_host: the locale of the environment is not available\n");
        return 77;
    }
    printf("decimal point before: %s\n", localeconv()->decimal_point);
    int rc = vn_main(argc, argv);
    printf("after: %.1f\n", 1.5);
    return rc;
}
