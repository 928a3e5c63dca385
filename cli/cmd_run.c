/* vernier run: time whole commands over many runs, and compare them. The
 * options are read in cmd_run_opts.c and checked in cmd_run_check.c; here
 * they are run and reported. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd_run_check.h"
#include "cmd_run_fake.h"
#include "cmd_run_opts.h"
#include "base/interrupt.h"

static const char *const CMD = "run";

/* Formats one output file and writes it atomically; 0, or 1 after a message. */
static int write_out(const vn_cli_run_opts *o, int which, const vn_run_results *r)
{
    const char *path = o->out[which];
    /* Every run of a million is a few hundred bytes of JSON: more than the
     * buffers' usual limit, which is for reports, not results. */
    vn_buf b;
    vn_buf_init(&b, VN_RESULTS_BUF_MAX);
    int rc = VN_EINVAL;
    switch (which) {
    case VN_CLI_RUN_JSON:
        if (o->gbench) {
            char date[40];
            rc = vn_report_run_gbench(r, "vernier run",
                                      vn_report_gbench_date(date, sizeof date, time(NULL)), &b);
        } else {
            rc = vn_report_run_json(r, &b);
        }
        break;
    case VN_CLI_RUN_CSV: rc = vn_report_run_csv(r, o->raw, &b); break;
    case VN_CLI_RUN_MD: rc = vn_report_run_markdown(r, &b); break;
    case VN_CLI_RUN_HF_JSON: rc = vn_report_hyperfine_json(r, &b); break;
    case VN_CLI_RUN_HF_CSV: rc = vn_report_hyperfine_csv(r, &b); break;
    case VN_CLI_RUN_HF_MD: rc = vn_report_hyperfine_markdown(r, o->unit_s, &b); break;
    }
    int status = rc ? vn_cli_fail(CMD, "cannot format '%s': %s", path, vn_strerror(rc))
                    : vn_cli_write(CMD, path, &b);
    vn_buf_free(&b);
    return status;
}

/* The summary on the console (stderr when a file goes to stdout), then
 * the files; 0, or 1 when one of them could not be written. */
static int report(const vn_cli_run_opts *o, const vn_run_results *res, const vn_run_compare *cmp,
                  size_t ncmp)
{
    FILE *con = o->to_stdout ? stderr : stdout;
    unsigned flags = o->color < 0 ? vn_cli_report_flags(con) : o->color ? VN_REPORT_COLOR : 0;
    if (o->explain)
        flags |= VN_REPORT_EXPLAIN;
    vn_buf b;
    vn_buf_init(&b, 0);
    int status = VN_EXIT_OK;
    if (!o->no_report && vn_report_run_text(res, cmp, ncmp, flags, &b) == 0 && o->hist)
        vn_report_run_hist(res, flags, &b);
    if (b.len && (fwrite(b.data, 1, b.len, con) != b.len || fflush(con) != 0))
        status = vn_cli_fail(CMD, "cannot write the report: %s", strerror(errno));
    vn_buf_free(&b);
    for (int i = 0; i < VN_CLI_RUN_NOUT; i++)
        if (o->out[i])
            status |= write_out(o, i, res);
    if (o->report) {
        /* The page is drawn from the results file it would be given. */
        vn_buf_init(&b, VN_RESULTS_BUF_MAX);
        int rc = vn_report_run_json(res, &b);
        status |= rc ? vn_cli_fail(CMD, "cannot format the results: %s", vn_strerror(rc))
                     : vn_cli_report_from(CMD, &b, o->report);
        vn_buf_free(&b);
    }
    return status;
}

/* Runs the commands and reports them: the exit status. */
static int run(vn_cli_run_opts *o)
{
    char helper[4200];
    o->c.helper = vn_cli_run_helper(helper, sizeof helper);
    vn_cli_fake fake = {0};
    if (o->fake_path) {
        if (vn_cli_fake_load(o->fake_path, &fake))
            return VN_EXIT_FAIL;
        o->c.executor = vn_cli_fake_exec;
        o->c.executor_ctx = &fake;
    }

    vn__interrupt_catch();
    o->c.stop_flag = &vn__interrupted;
    vn_run_results res;
    vn_run_results_init(&res);
    vn_run_compare *cmp = NULL;
    size_t ncmp = 0;
    vn_run_failure fail;
    char err[512] = "";
    int rc = vn_run_commands(&o->c, &res, &cmp, &ncmp, &fail, err, sizeof err);
    if (rc) {
        vn__interrupt_restore();
        vn_cli_fake_free(&fake);
        return vn_cli_fail(CMD, "%s", err[0] ? err : vn_strerror(rc));
    }
    int status = report(o, &res, cmp, ncmp);
    /* Only now: a second Ctrl-C while the files were written would have
     * left a temporary file behind. */
    vn__interrupt_restore();
    if (fail.failed) {
        fprintf(stderr, "vernier run: %s\n", fail.message);
        status = VN_EXIT_FAIL;
    }
#ifndef VN_NO_COMPARE
    /* Kept only when whole: a run cut short or a command that failed
     * would be a point of the history that measured something else. */
    if (!fail.failed && !res.interrupted && vn_cli_store_wanted(&o->store)) {
        vn_buf b;
        vn_buf_init(&b, VN_RESULTS_BUF_MAX);
        int jr = vn_report_run_json(&res, &b);
        if (jr)
            status |= vn_cli_fail(CMD, "the results were not stored: %s", vn_strerror(jr));
        else
            status |= vn_cli_store_json(CMD, &o->store, &b, o->out[VN_CLI_RUN_JSON]);
        vn_buf_free(&b);
    }
#endif
    /* The results say whether the runs were cut short; a signal that came
     * once they were over changed nothing in them, so the message and the
     * exit status follow the results, as the files do. */
    if (res.interrupted) {
        fprintf(stderr, "vernier run: interrupted; the runs so far were reported\n");
        status = vn__interrupt_exit_code();
    }
    vn_run_results_free(&res);
    free(cmp);
    vn_cli_fake_free(&fake);
    return status;
}

int cmd_run(int argc, char **argv)
{
    vn_cli_run_opts o;
    int status = vn_cli_run_opts_parse(argc, argv, &o);
    if (status < 0)
        status = vn_cli_run_check(argc, argv, &o);
    if (status < 0)
        status = run(&o);
    vn_cli_run_opts_free(&o);
    return status;
}
