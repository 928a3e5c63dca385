/* What a run is kept with beside its results (store.h): the commit and
 * branch of the working tree it was built from, and the fingerprint of
 * the machine that tells one machine's series from another's. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/store_internal.h"
#include "vernier/base.h"

/* The first line git prints for args in dir, into buf; 0, or -1. */
static int git_line(const char *dir, char *const args[], char *buf, size_t n)
{
    int fd[2];
    if (pipe2(fd, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(fd[1], 1);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 2);
        }
        if (dir && chdir(dir) != 0)
            _exit(127);
        execvp("git", args);
        _exit(127);
    }
    close(fd[1]);
    size_t got = 0;
    ssize_t r;
    while (got + 1 < n && (r = read(fd[0], buf + got, n - 1 - got)) > 0)
        got += (size_t)r;
    /* The rest unread, so that git is never stopped by a full pipe. */
    char sink[256];
    while (read(fd[0], sink, sizeof sink) > 0)
        ;
    close(fd[0]);
    buf[got] = 0;
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    buf[strcspn(buf, "\n")] = 0;
    return 0;
}

void vn__store_git(const char *dir, vn__store_meta *m, char *buf, size_t n)
{
    if (n < 160)
        return;
    char *commit = buf, *branch = buf + 48, *status = buf + 112;
    char *const rev[] = {"git", "rev-parse", "--verify", "-q", "HEAD", NULL};
    if (git_line(dir, rev, commit, 48) != 0 || !commit[0])
        return;
    m->commit = commit;
    char *const br[] = {"git", "symbolic-ref", "-q", "--short", "HEAD", NULL};
    if (git_line(dir, br, branch, 64) == 0 && branch[0])
        m->branch = branch;
    /* Changes to tracked files; untracked ones (build folders) do not make
     * the tree dirty. */
    char *const st[] = {"git", "status", "--porcelain", "--untracked-files=no", NULL};
    if (git_line(dir, st, status, n - 112) == 0)
        m->dirty = status[0] != 0;
}

void vn__store_fingerprint(const vn__cmp_side *side, char *out, size_t n)
{
    const char *cpu = side->facts[VN__CMP_FACT_CPU], *cpus = side->facts[VN__CMP_FACT_CPUS];
    const char *kernel = side->facts[VN__CMP_FACT_KERNEL], *gov = side->facts[VN__CMP_FACT_GOVERNOR];
    const char *smt = side->notes[VN__CMP_NOTE_SMT], *hv = side->notes[VN__CMP_NOTE_HYPERVISOR];
    const char *ucode = side->notes[VN__CMP_NOTE_MICROCODE];
    int k = snprintf(out, n, "%s | %s CPUs | %s | %s", cpu ? cpu : "unknown CPU", cpus ? cpus : "?",
                     kernel ? kernel : "unknown kernel", gov ? gov : "no governor");
    /* What only vernier's own files tell, when they tell it. */
    if (k > 0 && (size_t)k < n && smt)
        k += snprintf(out + k, n - (size_t)k, " | SMT %s", smt);
    if (k > 0 && (size_t)k < n && hv)
        k += snprintf(out + k, n - (size_t)k, " | %s", !strcmp(hv, "none") ? "bare metal" : hv);
    if (k > 0 && (size_t)k < n && ucode)
        snprintf(out + k, n - (size_t)k, " | microcode %s", ucode);
}
