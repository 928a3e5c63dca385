/* vernier env: the machine snapshot and the settings that hurt measurement. */
#include <string.h>

#include "cli.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: vernier env [--json FILE]\n"
            "\n"
            "Report the machine (CPU, caches, memory, frequency scaling, clocksource,\n"
            "isolation, security settings, which performance counters work) and every\n"
            "setting that hurts measurement, each with the command that fixes it.\n"
            "\n"
            "Options:\n"
            "  --json FILE  also write the report as vernier.env/1 JSON to FILE;\n"
            "               '-' writes only the JSON to standard output\n"
            "  -h, --help   show this help\n"
            "\n"
            "Exit status: 0 on success (warnings included), 1 when the report cannot be\n"
            "made or written, 2 for a usage error.\n");
}

int cmd_env(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", required_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *json_path = NULL;
    int c;
    optind = 1;
    while ((c = vn_cli_getopt("env", argc, argv, "h", longopts)) != -1) {
        switch (c) {
        case 'j':
            json_path = optarg;
            break;
        case 'h':
            usage(stdout);
            return vn_cli_flushed("env");
        default:
            return VN_EXIT_USAGE;
        }
    }
    if (optind < argc)
        return vn_cli_usage_error("env", "unexpected argument '%s'", argv[optind]);
    if (json_path && vn_cli_check_path("env", "--json", json_path))
        return VN_EXIT_USAGE;

    vn_sysinfo s;
    int rc = vn_sysinfo_collect(&s);
    if (rc)
        return vn_cli_fail("env", "cannot read the machine's settings: %s", vn_strerror(rc));
    /* Which counters work is a fact of this machine, so it is asked here
     * and not by the snapshot collector, which also reads fixture trees. A
     * failure leaves the section out. */
    vn_sysinfo_probe_counters(&s);

    int status = VN_EXIT_OK;
    vn_buf buf;
    vn_buf_init(&buf, 0);
    if (json_path) {
        rc = vn_report_env_json(&s, &buf);
        if (rc)
            status = vn_cli_fail("env", "cannot format the JSON report: %s", vn_strerror(rc));
        else
            status = vn_cli_write("env", json_path, &buf);
    }
    /* With "--json -" standard output carries the JSON alone, so a pipe into
     * a JSON reader is not broken by the text report. */
    if (status == VN_EXIT_OK && !vn_cli_is_stdout(json_path)) {
        vn_buf_reset(&buf);
        rc = vn_report_env_text(&s, vn_cli_report_flags(stdout), &buf);
        if (rc)
            status = vn_cli_fail("env", "cannot format the report: %s", vn_strerror(rc));
        else
            status = vn_cli_print("env", &buf);
    }
    vn_buf_free(&buf);
    vn_sysinfo_free(&s);
    return status;
}
