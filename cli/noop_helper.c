/* vernier-noop: a program that does nothing and exits 0. `vernier suite`'s
 * process family times fork+exec, vfork+exec and posix_spawn of it, so what
 * the rows show is the making and the ending of a process, not what the
 * program does: it is linked statically, so no dynamic loader runs either.
 *
 * With --fork-server MIB it is instead the clean parent of the family's
 * fork rows: fork copies the page tables of its whole caller, so a fork
 * timed inside vernier would also pay for whatever else the run holds
 * (other families' buffers and threads). This parent holds MIB MiB it
 * touched and next to nothing else (static, no stdio, so no buffers of
 * libc's), and times its own forks on request:
 *
 *   it writes "ready\n" once the memory is touched, then, for each byte
 *   read from standard input: 'f' forks a child that _exits 0 at once,
 *   'x' forks a child that execs this program (argv[0]) with no
 *   arguments; either way it waits for the child, and writes the time of
 *   fork to the end of the wait in ns as a line of digits. What fails is
 *   a line "!WHAT N" instead: "!mmap ERRNO" (in place of "ready"),
 *   "!fork ERRNO", "!waitpid ERRNO", "!status STATUS" (a child's wait
 *   status other than exit 0), "!command BYTE". It exits 0 at the end of
 *   its input, so it never outlives the vernier that writes to it. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The status a child whose exec failed exits with, as the process rows'
 * own children do. */
#define EXEC_FAILED 127
#define PAGE 4096

/* A line of text (s, then v in decimal unless s is "" or ends in '\n') to
 * standard output in one write, so the reader gets it whole. 0, or -1 when
 * the reader is gone. */
static int say(const char *s, uint64_t v, int with_v)
{
    char line[64], digits[24];
    size_t n = strlen(s), k = 0;
    memcpy(line, s, n);
    if (with_v) {
        do
            digits[k++] = (char)('0' + v % 10);
        while ((v /= 10) > 0);
        while (k > 0)
            line[n++] = digits[--k];
        line[n++] = '\n';
    }
    for (size_t at = 0; at < n;) {
        ssize_t w = write(1, line + at, n - at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        at += (size_t)w;
    }
    return 0;
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* One fork, timed from the call to the end of the wait, answered. */
static int fork_once(int cmd, char *self)
{
    char *argv[] = {self, NULL}, *envp[] = {NULL};
    uint64_t t0 = now_ns();
    pid_t pid = fork();
    if (pid == 0) {
        if (cmd == 'x')
            execve(self, argv, envp);
        _exit(cmd == 'x' ? EXEC_FAILED : 0);
    }
    if (pid < 0)
        return say("!fork ", (uint64_t)errno, 1);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return say("!waitpid ", (uint64_t)errno, 1);
    uint64_t t1 = now_ns();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return say("!status ", (uint64_t)(unsigned)status, 1);
    return say("", t1 - t0, 1);
}

static int fork_server(const char *mib_text, char *self)
{
    size_t mib = 0;
    for (const char *c = mib_text; *c; c++) {
        if (*c < '0' || *c > '9' || mib > (1u << 20))
            return 2;
        mib = mib * 10 + (size_t)(*c - '0');
    }
    size_t bytes = mib << 20;
    if (bytes > 0) {
        char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            say("!mmap ", (uint64_t)errno, 1);
            return 1;
        }
        /* Pages of 4 KiB, as a parent of many small allocations has them:
         * a transparent huge page would be one entry to copy, not 512.
         * Without THP this fails, and the pages are 4 KiB anyway. One
         * write a page maps it; the memory is never read. */
        madvise(p, bytes, MADV_NOHUGEPAGE);
        for (size_t at = 0; at < bytes; at += PAGE)
            p[at] = 1;
    }
    if (say("ready\n", 0, 0) != 0)
        return 1;
    for (;;) {
        unsigned char cmd;
        ssize_t r = read(0, &cmd, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            return 0;
        if (r < 0)
            return 1;
        int rc = cmd == 'f' || cmd == 'x' ? fork_once(cmd, self) : say("!command ", cmd, 1);
        if (rc != 0)
            return 1;
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--fork-server") == 0)
        return fork_server(argv[2], argv[0]);
    return 0;
}
