/* A workload for `vernier trace`: waits for a line on stdin, then calls the
 * getppid system call exactly N times (argv[1]) and exits. The wait lets a
 * test start the tracer with --pid on this process and release it once
 * the probes are attached, so that the calls traced must be exactly N.
 * syscall() rather than getppid(), so that no C library can answer from a
 * cache without entering the kernel. Built static by the VM test
 * (tests/cli/test_kbench.py) for a guest with no libraries. */
#define _GNU_SOURCE 1 /* syscall(); 1, as -D_GNU_SOURCE defines it */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char *end;
    long n = argc == 2 ? strtol(argv[1], &end, 10) : -1;
    if (n < 0 || *end) {
        fprintf(stderr, "usage: getppid_calls N (then a line on stdin starts the calls)\n");
        return 2;
    }
    char line[16];
    if (!fgets(line, sizeof line, stdin)) {
        fprintf(stderr, "getppid_calls: stdin closed before the line that starts the calls\n");
        return 1;
    }
    for (long i = 0; i < n; i++)
        syscall(SYS_getppid);
    return 0;
}
