/* vernier-spawn: starts commands and measures them in vernier's place.
 *
 * A child carries the peak resident memory of the process it was spawned
 * from into its own ru_maxrss across the exec, so a command started by a
 * 4 MiB vernier never reports less than 4 MiB. This program is small and
 * linked statically. vernier starts it once per `vernier run`; it reads one
 * request after another on fd 3, spawns and times each command exactly as
 * vernier would, and writes the outcome to fd 4. SIGTERM stops the command
 * running at the time. Not meant to be run by hand. */
#include <signal.h>
#include <stdio.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/prctl.h>

#include "run/exec_internal.h"
#include "base/interrupt.h"
#include "run/exec_api.h"

int main(void)
{
    /* vernier killed (kill -9 leaves it no chance to stop anything): this
     * program gets SIGTERM, which stops the command running, and the
     * requests end. A vernier gone before the request was made counts the
     * same. */
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (parent == 1 || getppid() != parent)
        return 1;
    if (fcntl(3, F_GETFD) < 0 || fcntl(4, F_GETFD) < 0) {
        fprintf(stderr, "vernier-spawn: started by vernier run, not by hand\n");
        return 2;
    }
    /* dup2 left them open across exec: the commands must not get them (a
     * command could write a report of its own, or hold the report pipe open
     * after this program is gone). */
    fcntl(3, F_SETFD, FD_CLOEXEC);
    fcntl(4, F_SETFD, FD_CLOEXEC);
    vn__interrupt_catch();
    return vn__spawner_serve(3, 4, &vn__interrupted) == 0 ? 0 : 1;
}
