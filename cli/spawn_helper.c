/* vernier-spawn: starts one command and measures it in vernier's place.
 *
 * A child carries the peak resident memory of the process it was spawned
 * from into its own ru_maxrss across the exec, so a command started by a
 * 4 MiB vernier never reports less than 4 MiB. This program is small and
 * linked statically: started by vernier (untimed), it spawns and times the
 * command exactly as vernier would, and writes the outcome to fd 3.
 *
 * usage: vernier-spawn [-i STDIN] [-o] [-t TIMEOUT_SEC] [-p PATH] -- CMD [ARGS...]
 * Not meant to be run by hand. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interrupt.h"
#include "vernier/exec.h"

int main(int argc, char **argv)
{
    vn_exec_opts o;
    memset(&o, 0, sizeof o);
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (!strcmp(argv[i], "-o")) {
            o.show_output = 1;
        } else if (i + 1 < argc && !strcmp(argv[i], "-i")) {
            o.stdin_path = argv[++i];
        } else if (i + 1 < argc && !strcmp(argv[i], "-t")) {
            o.timeout = strtod(argv[++i], NULL);
        } else if (i + 1 < argc && !strcmp(argv[i], "-p")) {
            o.path = argv[++i];
        } else {
            fprintf(stderr, "vernier-spawn: started by vernier run, not by hand\n");
            return 2;
        }
    }
    if (i + 1 >= argc) {
        fprintf(stderr, "vernier-spawn: no command; started by vernier run, not by hand\n");
        return 2;
    }
    o.argv = argv + i + 1;
    /* vernier sends SIGTERM to stop a run (Ctrl-C, SIGTERM): the command's
     * group is stopped and the run reported as interrupted. */
    vn__interrupt saved;
    vn__interrupt_catch(&saved);
    o.stop_flag = &vn__interrupted;
    return vn_exec_serve(&o, 3) == 0 ? 0 : 1;
}
