/* Splitting command lines into words, finding programs, parameter values
 * and their substitution, and one real run of a child through vn_exec(). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <time.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "run/internal.h"
#include "run/exec_internal.h"
#include "run/cgroup_internal.h"
#include "main/all.h"

static void expect_words(const char *line, const char *const *want, int n)
{
    char **w;
    int count;
    char err[128];
    assert_int_equal(vn__split_words(line, &w, &count, err, sizeof err), 0);
    assert_int_equal(count, n);
    for (int i = 0; i < n; i++)
        assert_string_equal(w[i], want[i]);
    assert_null(w[n]);
    vn__words_free(w);
}

/* A fake cgroup v2 tree: each directory with its cgroup.subtree_control. */
static void put(const char *root, const char *rel, const char *subtree)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s", root, rel);
    assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
    strcat(path, "/cgroup.subtree_control");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(subtree, f);
    fclose(f);
}

/* Where vernier's group goes under cgroup v2: below our own group when it
 * enables memory for its children, else beside it, else nowhere, with why. */
static void cgroup_v2_parent(void **state)
{
    (void)state;
    char root[] = "/tmp/vn-cgroup-XXXXXX";
    assert_non_null(mkdtemp(root));
    put(root, "", "cpu io memory pids\n");
    put(root, "/user.slice", "memory pids\n");
    put(root, "/user.slice/session-3.scope", "");          /* has processes */
    put(root, "/service", "cpu memory\n");                  /* delegated, empty */
    put(root, "/bare", "");
    put(root, "/bare/inner", "");
    char out[512], want[512], why[256] = "";
    /* The root group: below it. */
    assert_int_equal(vn__cgroup_v2_parent(root, "/", out, sizeof out, why, sizeof why), 0);
    assert_string_equal(out, root);
    assert_int_equal(vn__cgroup_v2_parent(root, "/service\n", out, sizeof out, why, sizeof why), 0);
    snprintf(want, sizeof want, "%s/service", root);
    assert_string_equal(out, want);
    /* A session scope cannot have children with memory: beside it. */
    assert_int_equal(vn__cgroup_v2_parent(root, "/user.slice/session-3.scope", out, sizeof out, why,
                                          sizeof why), 0);
    snprintf(want, sizeof want, "%s/user.slice", root);
    assert_string_equal(out, want);
    /* Neither the group nor its parent: the reason names the group and the
     * file that enables the controller. */
    assert_int_equal(vn__cgroup_v2_parent(root, "/bare/inner", out, sizeof out, why, sizeof why),
                     VN_ENOTSUP);
    snprintf(want, sizeof want, "%s/bare/inner", root);
    assert_non_null(strstr(why, want));
    assert_non_null(strstr(why, "cgroup.subtree_control"));
    assert_null(strchr(why, '\n'));
    assert_int_equal(vn__cgroup_v2_parent(root, "relative", out, sizeof out, why, sizeof why),
                     VN_EINVAL);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

/* The cgroup v1 memory hierarchy, found from /proc/self/cgroup and
 * /proc/self/mountinfo as a hybrid systemd host, a container and a v2-only
 * host write them. */
static void cgroup_v1_memory_dir(void **state)
{
    (void)state;
    char dir[256];
    const char *hybrid_self = "9:name=systemd:/\n4:memory:/process_api/bc12\n1:cpu:/\n0::/\n";
    const char *hybrid_mounts =
        "24 1 0:21 / /sys rw - sysfs sysfs rw\n"
        "31 25 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
        "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
        "40 25 0:36 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
    assert_int_equal(vn__cgroup_v1_memory_dir(hybrid_self, hybrid_mounts, dir, sizeof dir), 0);
    assert_string_equal(dir, "/sys/fs/cgroup/memory/process_api/bc12");

    /* Optional tags before the separator, and controllers mounted together. */
    const char *tagged = "35 31 0:32 / /cg/mem rw shared:9 master:2 - cgroup x rw,memory,hugetlb\n";
    assert_int_equal(vn__cgroup_v1_memory_dir("5:hugetlb,memory:/a/b\n", tagged, dir, sizeof dir), 0);
    assert_string_equal(dir, "/cg/mem/a/b");

    /* In the root group: the mount point itself. */
    assert_int_equal(vn__cgroup_v1_memory_dir("4:memory:/\n", hybrid_mounts, dir, sizeof dir), 0);
    assert_string_equal(dir, "/sys/fs/cgroup/memory");

    /* A container sees the hierarchy from its own group on: the mount's root
     * is cut from the group's path. */
    const char *container = "50 40 0:32 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n";
    assert_int_equal(vn__cgroup_v1_memory_dir("4:memory:/docker/abc/job\n", container, dir, sizeof dir), 0);
    assert_string_equal(dir, "/sys/fs/cgroup/memory/job");
    assert_int_equal(vn__cgroup_v1_memory_dir("4:memory:/docker/abc\n", container, dir, sizeof dir), 0);
    assert_string_equal(dir, "/sys/fs/cgroup/memory");
    /* A group outside what is mounted, or a name that only starts alike. */
    assert_int_equal(vn__cgroup_v1_memory_dir("4:memory:/other\n", container, dir, sizeof dir),
                     VN_ENOTSUP);
    assert_int_equal(vn__cgroup_v1_memory_dir("4:memory:/docker/abcd\n", container, dir, sizeof dir),
                     VN_ENOTSUP);

    /* The hierarchy mounted twice: a mount of another group's subtree is
     * passed over for one that holds ours. */
    const char *twice = "50 40 0:32 /other /mnt/a rw - cgroup cgroup rw,memory\n"
                        "51 40 0:32 / /mnt/b rw - cgroup cgroup rw,memory\n";
    assert_int_equal(vn__cgroup_v1_memory_dir("4:memory:/mine\n", twice, dir, sizeof dir), 0);
    assert_string_equal(dir, "/mnt/b/mine");

    /* cgroup v2 only, or memory not among the v1 controllers. */
    const char *v2 = "30 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
    assert_int_equal(vn__cgroup_v1_memory_dir("0::/user.slice\n", v2, dir, sizeof dir), VN_ENOTSUP);
    assert_int_equal(vn__cgroup_v1_memory_dir("4:memoryx:/a\n", hybrid_mounts, dir, sizeof dir),
                     VN_ENOTSUP);
    const char *nomem = "31 25 0:28 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n";
    assert_int_equal(vn__cgroup_v1_memory_dir("4:memory:/a\n", nomem, dir, sizeof dir), VN_ENOTSUP);
    /* Too small a buffer is an error, not a cut path. */
    char tiny[8];
    assert_int_equal(vn__cgroup_v1_memory_dir(hybrid_self, hybrid_mounts, tiny, sizeof tiny),
                     VN_ERANGE);
    assert_int_equal(vn__cgroup_v1_memory_dir(NULL, hybrid_mounts, dir, sizeof dir), VN_EINVAL);
}

static void words_like_a_shell(void **state)
{
    (void)state;
    expect_words("ls -l  /tmp", (const char *[]){"ls", "-l", "/tmp"}, 3);
    expect_words("  echo 'a b'  \"c d\" e\\ f ", (const char *[]){"echo", "a b", "c d", "e f"}, 4);
    expect_words("printf '%s\\n' x", (const char *[]){"printf", "%s\\n", "x"}, 3);
    expect_words("a\"b\"'c'd", (const char *[]){"abcd"}, 1);
    expect_words("echo \"q\\\"uote\\\\ \\$HOME \\x\"", (const char *[]){"echo", "q\"uote\\ $HOME \\x"}, 2);
    expect_words("echo '' \"\"", (const char *[]){"echo", "", ""}, 3);
    expect_words("echo $HOME *.c", (const char *[]){"echo", "$HOME", "*.c"}, 3); /* nothing expands */
    expect_words("a\tb\nc", (const char *[]){"a", "b", "c"}, 3);
}

static void bad_lines_are_errors(void **state)
{
    (void)state;
    const char *bad[] = {"echo 'open", "echo \"open", "trailing\\", "", "   "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char **w = NULL;
        int n;
        char err[128] = "";
        assert_int_equal(vn__split_words(bad[i], &w, &n, err, sizeof err), VN_EINVAL);
        assert_true(err[0] != '\0');
        assert_null(w);
    }
}

static void which_finds_programs(void **state)
{
    (void)state;
    char path[4096];
    assert_int_equal(vn__which("sh", path, sizeof path), 0);
    assert_true(path[0] == '/' || path[0] == '.');
    assert_int_equal(access(path, X_OK), 0);
    assert_int_equal(vn__which("/bin/sh", path, sizeof path), 0);
    assert_string_equal(path, "/bin/sh");
    assert_int_equal(vn__which("no-such-program-xyz", path, sizeof path), VN_ENOENT);
    /* A file without execute permission: made here, so its mode is known. */
    char plain[] = "/tmp/vn-which-XXXXXX";
    int fd = mkstemp(plain);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(vn__which(plain, path, sizeof path), -EACCES);
    unlink(plain);
    assert_int_equal(vn__which("/tmp", path, sizeof path), -EISDIR);
    assert_int_equal(vn__which("", path, sizeof path), VN_EINVAL);
}

static void param_values(void **state)
{
    (void)state;
    char **v;
    size_t n;
    char err[128];
    assert_int_equal(vn__param_list("1,2,4", &v, &n, err, sizeof err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(v[2], "4");
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    assert_int_equal(vn__param_list("1,,2", &v, &n, err, sizeof err), VN_EINVAL);
    assert_int_equal(vn__param_list("", &v, &n, err, sizeof err), VN_EINVAL);

    assert_int_equal(vn__param_range("2:10:4", &v, &n, err, sizeof err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(v[0], "2");
    assert_string_equal(v[1], "6");
    assert_string_equal(v[2], "10");
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    assert_int_equal(vn__param_range("0:0.3:0.1", &v, &n, err, sizeof err), 0);
    assert_int_equal(n, 4); /* 0, 0.1, 0.2, 0.3: the end survives rounding */
    assert_string_equal(v[3], "0.3");
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    const char *bad[] = {"5:1", "1:5:0", "1:5:-1", "1", "a:b", "1:2:3:4", "0:1000000", ":5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(vn__param_range(bad[i], &v, &n, err, sizeof err), VN_EINVAL);
}

static void substitution(void **state)
{
    (void)state;
    const char *sizes[] = {"8", "64"};
    const char *modes[] = {"fast"};
    vn_run_param p[] = {{"size", sizes, 2}, {"mode", modes, 1}};
    size_t choice[] = {1, 0};
    char *s = vn__param_substitute("run --size {size} --{mode} {size}{size} {other} {siz}", p, 2, choice);
    assert_string_equal(s, "run --size 64 --fast 6464 {other} {siz}");
    free(s);
    s = vn__param_substitute("", p, 2, choice);
    assert_string_equal(s, "");
    free(s);
    assert_null(vn__param_substitute(NULL, p, 2, choice));
}

static void one_real_run(void **state)
{
    (void)state;
    char *argv[] = {"sh", "-c", "exit 3", NULL};
    vn_exec_opts o = {0};
    o.argv = argv;
    double wall;
    vn_proc_usage u;
    char err[256];
    assert_int_equal(vn_exec(&o, &wall, &u, err, sizeof err), VN_EXEC_OK);
    assert_int_equal(u.exit_status, 3);
    assert_int_equal(u.signal, 0);
    assert_true(wall > 0);
    assert_true(u.maxrss_kib > 0);

    char *killer[] = {"sh", "-c", "kill -TERM $$", NULL};
    o.argv = killer;
    assert_int_equal(vn_exec(&o, &wall, &u, err, sizeof err), VN_EXEC_OK);
    assert_int_equal(u.signal, 15);
    assert_int_equal(u.exit_status, -1);

    char *sleeper[] = {"sleep", "5", NULL};
    o.argv = sleeper;
    o.timeout = 0.1;
    assert_int_equal(vn_exec(&o, &wall, &u, err, sizeof err), VN_EXEC_TIMED_OUT);
    assert_true(wall >= 0.1e9 && wall < 2e9);
    assert_true(u.timed_out);

    char *missing[] = {"no-such-program-xyz", NULL};
    o.argv = missing;
    o.timeout = 0;
    assert_true(vn_exec(&o, &wall, &u, err, sizeof err) < 0);
    assert_non_null(strstr(err, "no-such-program-xyz"));
}

static int spawned;

static int on_spawn(pid_t pid, void *ctx)
{
    (void)ctx;
    spawned = pid > 0;
    return 0;
}

static void the_slow_path_with_a_hook(void **state)
{
    (void)state;
    char *argv[] = {"sh", "-c", "exit 0", NULL};
    vn_exec_opts o = {0};
    o.argv = argv;
    o.on_spawn = on_spawn;
    double wall;
    vn_proc_usage u;
    char err[256];
    spawned = 0;
    assert_int_equal(vn_exec(&o, &wall, &u, err, sizeof err), VN_EXEC_OK);
    assert_true(spawned);
    assert_int_equal(u.exit_status, 0);
    /* A program not found: named, with the system's reason. */
    char *missing[] = {"no-such-program-xyz", NULL};
    o.argv = missing;
    assert_true(vn_exec(&o, &wall, &u, err, sizeof err) < 0);
    assert_non_null(strstr(err, "'no-such-program-xyz'"));
    assert_non_null(strstr(err, strerror(ENOENT)));
}

/* Opens the FIFO for writing after 300 ms, which lets the child's open of
 * its stdin return. */
static void *late_writer(void *path)
{
    struct timespec ts = {0, 300000000};
    nanosleep(&ts, NULL);
    int fd = open(path, O_WRONLY);
    if (fd >= 0)
        close(fd);
    return NULL;
}

/* On the slow path the child prepares itself between fork and exec (its
 * stdin, /dev/null, joining a cgroup, which can take it milliseconds): the
 * clock must start only once it is ready. Here its stdin is a FIFO nobody
 * writes to for 300 ms, so its open() waits that long; the run of `true`
 * must not include those 300 ms. */
static void the_clock_starts_when_the_child_is_ready(void **state)
{
    (void)state;
    char dir[] = "/tmp/vn-fifo-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[64];
    snprintf(fifo, sizeof fifo, "%s/in", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    char *argv[] = {"true", NULL};
    vn_exec_opts o = {0};
    o.argv = argv;
    o.on_spawn = on_spawn;
    o.stdin_path = fifo;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, late_writer, fifo), 0);
    double wall;
    vn_proc_usage u;
    char err[256];
    assert_int_equal(vn_exec(&o, &wall, &u, err, sizeof err), VN_EXEC_OK);
    pthread_join(t, NULL);
    assert_int_equal(u.exit_status, 0);
    assert_true(wall < 150e6);
    unlink(fifo);
    rmdir(dir);
    /* A child that cannot get ready is an error, not a run. */
    o.stdin_path = "/no/such/input";
    assert_true(vn_exec(&o, &wall, &u, err, sizeof err) < 0);
    assert_non_null(strstr(err, "'true'"));
    assert_non_null(strstr(err, strerror(ENOENT)));
}

static volatile int flag;

static void *raise_flag(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 100000000};
    nanosleep(&ts, NULL);
    flag = 1;
    return NULL;
}

/* A host program may raise the stop flag from another thread, with no
 * signal to wake the wait: it is still seen, well before the command ends. */
static void a_flag_raised_by_another_thread_stops_the_run(void **state)
{
    (void)state;
    char *argv[] = {"sleep", "5", NULL};
    vn_exec_opts o = {0};
    o.argv = argv;
    o.stop_flag = &flag;
    flag = 0;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, raise_flag, NULL), 0);
    double wall;
    vn_proc_usage u;
    char err[256];
    assert_int_equal(vn_exec(&o, &wall, &u, err, sizeof err), VN_EXEC_INTERRUPTED);
    pthread_join(t, NULL);
    assert_true(wall < 1.5e9);
}

static void test_needs_shell(void **state)
{
    (void)state;
    static const char *const yes[] = {
        "ls | wc -l", "echo hi > out", "a && b", "a; b", "sleep 1 &", "(cd /tmp)", "echo $HOME",
        "echo `date`", "ls *.c", "ls file?", "ls [ab]", "echo \"$x\"", "cd /tmp", "for i in 1; do :; done",
        "X=1 prog", "ls ~", "true # note", "a\nb", "export A=1", "sort < in",
    };
    static const char *const no[] = {
        "sleep 0.1", "grep -i todo file", "echo 'a | b'", "echo \"a > b\"", "echo a\\|b",
        "make -j {threads}", "prog --opt=value", "echo a#b", "echo a~b", "printf '%s' '$x'",
        "./a.out", "env X=1 prog",
    };
    char why[160];
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        why[0] = '\0';
        if (vn__needs_shell(yes[i], why, sizeof why) != 1)
            fail_msg("'%s' needs a shell", yes[i]);
        assert_true(strlen(why) > 5);
    }
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (vn__needs_shell(no[i], why, sizeof why) != 0)
            fail_msg("'%s' needs no shell (%s)", no[i], why);
    /* The reason names what the shell is needed for. */
    vn__needs_shell("ls | wc", why, sizeof why);
    assert_non_null(strstr(why, "'|'"));
    vn__needs_shell("for x in a; do :; done", why, sizeof why);
    assert_non_null(strstr(why, "'for'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_needs_shell),
        cmocka_unit_test(cgroup_v1_memory_dir), cmocka_unit_test(cgroup_v2_parent),
        cmocka_unit_test(words_like_a_shell),   cmocka_unit_test(bad_lines_are_errors),
        cmocka_unit_test(which_finds_programs), cmocka_unit_test(param_values),
        cmocka_unit_test(substitution),         cmocka_unit_test(one_real_run),
        cmocka_unit_test(the_slow_path_with_a_hook), cmocka_unit_test(the_clock_starts_when_the_child_is_ready),
        cmocka_unit_test(a_flag_raised_by_another_thread_stops_the_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
