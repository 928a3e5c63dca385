/* vernier run --fake-exec: runs nothing, and takes each run's numbers from a
 * file instead, so the tests check the reports against exact numbers
 * without timing noise (as hyperfine's --debug-mode does). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_run_fake.h"

static const char *const CMD = "run";

int vn_cli_fake_load(const char *path, vn_cli_fake *f)
{
    memset(f, 0, sizeof *f);
    FILE *in = fopen(path, "r");
    if (!in)
        return vn_cli_fail(CMD, "cannot read '%s': %s", path, strerror(errno));
    char line[256];
    size_t lineno = 0;
    while (fgets(line, sizeof line, in)) {
        lineno++;
        if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
            continue;
        double x[5] = {0, 0, 0, 0, 0};
        int k = sscanf(line, "%lf %lf %lf %lf %lf", &x[0], &x[1], &x[2], &x[3], &x[4]);
        int finite = 1;
        for (int i = 0; i < 5; i++)
            finite &= isfinite(x[i]) != 0;
        if (k < 1 || !(x[0] >= 0) || !finite) {
            fclose(in);
            vn_cli_fake_free(f);
            return vn_cli_fail(CMD, "%s: line %zu: expected 'WALL_MS [USER_MS SYS_MS MAXRSS_KIB EXIT]'",
                               path, lineno);
        }
        double *nv = realloc(f->v, (f->n + 1) * 5 * sizeof *nv);
        if (!nv) {
            fclose(in);
            vn_cli_fake_free(f);
            return vn_cli_fail(CMD, "out of memory");
        }
        f->v = nv;
        memcpy(f->v + f->n * 5, x, sizeof x);
        f->n++;
    }
    int bad = ferror(in) ? errno : 0;
    fclose(in);
    if (bad) {
        vn_cli_fake_free(f);
        return vn_cli_fail(CMD, "cannot read '%s': %s", path, strerror(bad));
    }
    if (!f->n)
        return vn_cli_fail(CMD, "'%s' has no runs in it", path);
    return 0;
}

void vn_cli_fake_free(vn_cli_fake *f)
{
    free(f->v);
    memset(f, 0, sizeof *f);
}

int vn_cli_fake_exec(const vn_exec_opts *o, double *wall_ns, vn_proc_usage *u, char *err,
                     size_t errlen, void *ctx)
{
    (void)o, (void)err, (void)errlen;
    vn_cli_fake *f = ctx;
    const double *x = f->v + (f->next++ % f->n) * 5;
    memset(u, 0, sizeof *u);
    *wall_ns = x[0] * 1e6;
    u->user_ns = x[1] * 1e6;
    u->sys_ns = x[2] * 1e6;
    u->maxrss_kib = (long long)x[3];
    u->exit_status = (int)x[4];
    u->tree_peak_kib = -1;
    return VN_EXEC_OK;
}
