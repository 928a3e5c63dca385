/* Ctrl-C, SIGTERM and SIGHUP for the programs vernier runs as: they stop a
 * run between samples or runs, and what was measured is still reported. Only
 * vn_main() and the tool install these handlers; the library never does it
 * behind a host program's back. */
#ifndef VN_INTERRUPT_H
#define VN_INTERRUPT_H

#include <signal.h>

/* Raised (non-zero) once SIGINT, SIGTERM or SIGHUP arrives after
 * vn__interrupt_catch. */
extern volatile int vn__interrupted;

/* Calls nest, from one thread or several: the handlers go in with the
 * first catch (which clears the flag) and the handlers found then come back
 * with the last restore. */
void vn__interrupt_catch(void);
void vn__interrupt_restore(void);
/* Fills set with the signals that stop a run: SIGINT, SIGTERM and SIGHUP.
 * A wait that blocks them lets them in only where it sleeps (ppoll). */
void vn__stop_signals(sigset_t *set);

/* The exit code for the signal that arrived: 130 for SIGINT, 143 for
 * SIGTERM, 129 for SIGHUP. */
int vn__interrupt_exit_code(void);

#endif
