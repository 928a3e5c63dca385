/* Ctrl-C, SIGTERM and SIGHUP: see interrupt.h. */
#include "interrupt.h"

#include <pthread.h>
#include <string.h>

volatile int vn__interrupted;
static volatile sig_atomic_t which;

/* Runs can overlap (two threads of a host each in vn_suite_main): the
 * handlers go in with the first and come out with the last, and the
 * handlers found before the first are the ones put back. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int depth;
static struct sigaction old_int, old_term, old_hup;

static void on_signal(int sig)
{
    vn__interrupted = 1;
    which = sig;
}

void vn__interrupt_catch(void)
{
    pthread_mutex_lock(&lock);
    if (depth++ == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        /* No SA_RESTART: a wait in progress returns early and sees the flag. */
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        /* Cleared by the first only: a later one would drop a Ctrl-C that
         * a run still going has yet to see. */
        vn__interrupted = 0;
        which = 0;
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        /* A hang-up (the terminal closed, the ssh session dropped) asks
         * the program to end as SIGTERM does, with what was measured kept. */
        sigaction(SIGHUP, &sa, &old_hup);
        /* A signal the program started with ignored stays ignored: a job
         * that a shell started in the background (nohup, '&' without job
         * control) must not stop when the terminal's Ctrl-C reaches the
         * foreground. */
        if (old_int.sa_handler == SIG_IGN)
            sigaction(SIGINT, &old_int, NULL);
        if (old_term.sa_handler == SIG_IGN)
            sigaction(SIGTERM, &old_term, NULL);
        if (old_hup.sa_handler == SIG_IGN)
            sigaction(SIGHUP, &old_hup, NULL);
    }
    pthread_mutex_unlock(&lock);
}

void vn__interrupt_restore(void)
{
    pthread_mutex_lock(&lock);
    if (depth > 0 && --depth == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        sigaction(SIGHUP, &old_hup, NULL);
    }
    pthread_mutex_unlock(&lock);
}

int vn__interrupt_exit_code(void) { return 128 + (which ? (int)which : SIGINT); }

void vn__stop_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}
