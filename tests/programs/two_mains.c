/* Two threads of one host program each run a suite with vn_suite_main(),
 * the second starting while the first runs and ending after it. When both
 * are done the host's own SIGINT disposition (the default: end the
 * program) must be back: raise(SIGINT) then ends the program by the
 * signal, and "still here" is never printed. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include "multiplies.h"

static void spin(vn_state *st) { multiplies(st, 64); }

static void *run(void *arg)
{
    const char *budget = arg;
    char prog[] = "two_mains", q[] = "--quiet", mt[] = "--max-time", b[16], w[] = "--warmup", z[] = "0";
    snprintf(b, sizeof b, "%s", budget);
    char *argv[] = {prog, q, mt, b, w, z, NULL};
    vn_suite *s = vn_suite_create();
    if (!s || vn_suite_add(s, "spin", spin, NULL) != 0)
        return (void *)1;
    FILE *null = freopen("/dev/null", "w", stdout); /* the tables are not the point */
    (void)null;
    int rc = vn_suite_main(s, 6, argv, NULL);
    vn_suite_destroy(s);
    return rc ? (void *)1 : NULL;
}

int main(void)
{
    pthread_t a, b;
    void *ra, *rb;
    char first[] = "0.3", second[] = "0.6";
    if (pthread_create(&a, NULL, run, first) != 0)
        return 1;
    struct timespec gap = {0, 100000000};
    nanosleep(&gap, NULL);
    if (pthread_create(&b, NULL, run, second) != 0)
        return 1;
    pthread_join(a, &ra);
    pthread_join(b, &rb);
    if (ra || rb)
        return 1;
    raise(SIGINT);
    fprintf(stderr, "still here: vernier's SIGINT handler outlived both runs\n");
    return 3;
}
