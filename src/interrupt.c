/* Ctrl-C and SIGTERM: see interrupt.h. */
#include "interrupt.h"

#include <string.h>

volatile int vn__interrupted;
static volatile sig_atomic_t which;

static void on_signal(int sig)
{
    vn__interrupted = 1;
    which = sig;
}

void vn__interrupt_catch(vn__interrupt *saved)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    /* No SA_RESTART: a wait in progress returns early and sees the flag. */
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    vn__interrupted = 0;
    which = 0;
    sigaction(SIGINT, &sa, &saved->old_int);
    sigaction(SIGTERM, &sa, &saved->old_term);
    /* A signal the program started with ignored stays ignored: a job that
     * a shell started in the background (nohup, '&' without job control)
     * must not stop when the terminal's Ctrl-C reaches the foreground. */
    if (saved->old_int.sa_handler == SIG_IGN)
        sigaction(SIGINT, &saved->old_int, NULL);
    if (saved->old_term.sa_handler == SIG_IGN)
        sigaction(SIGTERM, &saved->old_term, NULL);
}

void vn__interrupt_restore(const vn__interrupt *saved)
{
    sigaction(SIGINT, &saved->old_int, NULL);
    sigaction(SIGTERM, &saved->old_term, NULL);
}

int vn__interrupt_exit_code(void) { return 128 + (which ? (int)which : SIGINT); }
