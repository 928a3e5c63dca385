/* vernier clocks: know the timers before trusting them. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const CMD = "clocks";

static void help(FILE *f)
{
    fprintf(f,
            "usage: vernier clocks [--json FILE] [--distribution CLOCK [--reads N]]\n"
            "\n"
            "Measures every clock this machine offers: the cost of one read, the smallest\n"
            "and median step between consecutive reads, clock_getres, and how often a read\n"
            "went backwards; checks the CPU counter across CPUs; names the timer vernier\n"
            "uses for in-process measurement and why.\n"
            "\n"
            "Options:\n"
            "  --json FILE            also write the results as JSON (vernier.clocks/1); '-' for stdout\n"
            "  --distribution CLOCK   instead, read CLOCK back to back and show how often each\n"
            "                         delta between consecutive reads occurred\n"
            "  --reads N              reads for --distribution (default 100000, 2 .. 10000000)\n"
            "  -h, --help             show this help\n"
            "\n"
            "Clocks:");
    /* The names wrap like the rest of the help, which stays within 80 columns. */
    size_t col = strlen("Clocks:");
    int first = 1;
    for (int i = 0; i < VN_CLOCK_COUNT; i++)
        if (vn_clock_exists((vn_clock_id)i)) {
            const char *name = vn_clock_name((vn_clock_id)i);
            size_t len = strlen(name) + (first ? 1 : 2);
            if (!first && col + len > 80) {
                fprintf(f, ",\n%s", name);
                col = strlen(name);
            } else {
                fprintf(f, "%s%s", first ? " " : ", ", name);
                col += len;
            }
            first = 0;
        }
    fprintf(f,
            "\n"
            "\n"
            "Exit status: 0 on success, 1 when a clock cannot be read or the results cannot\n"
            "be written, 2 for a usage error.\n");
}

static void clock_names(char *out, size_t n)
{
    out[0] = '\0';
    for (int i = 0; i < VN_CLOCK_COUNT; i++)
        if (vn_clock_exists((vn_clock_id)i)) {
            if (out[0])
                strncat(out, ", ", n - strlen(out) - 1);
            strncat(out, vn_clock_name((vn_clock_id)i), n - strlen(out) - 1);
        }
}

static int run_distribution(const char *name, size_t reads, const char *json)
{
    vn_clock_id id;
    vn_clock_lookup(name, &id); /* validated by the caller */
    vn_delta_dist d;
    int rc = vn_probe_distribution(id, reads, &d);
    if (rc == VN_ENOTSUP)
        return vn_cli_fail(CMD, "clock '%s' cannot be read on this machine", name);
    if (rc)
        return vn_cli_fail(CMD, "reading '%s' failed: %s", name, vn_strerror(rc));
    vn_buf b;
    vn_buf_init(&b, 0);
    int ret = VN_EXIT_OK;
    if (!vn_cli_is_stdout(json)) {
        rc = vn_report_distribution_text(id, &d, vn_cli_report_flags(stdout), &b);
        if (rc == 0)
            ret = vn_cli_print(CMD, &b);
    }
    if (json && rc == 0 && ret == VN_EXIT_OK) {
        vn_buf_reset(&b);
        rc = vn_report_distribution_json(id, &d, &b);
        if (rc == 0)
            ret = vn_cli_write(CMD, json, &b);
    }
    if (rc)
        ret = vn_cli_fail(CMD, "cannot format the results: %s", vn_strerror(rc));
    vn_buf_free(&b);
    vn_delta_dist_free(&d);
    return ret;
}

int cmd_clocks(int argc, char **argv)
{
    enum { OPT_JSON = 256, OPT_DIST, OPT_READS };
    static const struct option longopts[] = {
        {"json", required_argument, NULL, OPT_JSON},
        {"distribution", required_argument, NULL, OPT_DIST},
        {"reads", required_argument, NULL, OPT_READS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *json = NULL, *dist = NULL;
    size_t reads = 100000;
    int reads_set = 0;
    optind = 1;
    int c;
    while ((c = vn_cli_getopt(CMD, argc, argv, "h", longopts)) != -1) {
        switch (c) {
        case 'h': help(stdout); return vn_cli_flushed(CMD);
        case OPT_JSON: json = optarg; break;
        case OPT_DIST: dist = optarg; break;
        case OPT_READS:
            if (vn_cli_parse_size(CMD, "--reads", optarg, 2, VN_PROBE_MAX_READS, &reads))
                return VN_EXIT_USAGE;
            reads_set = 1;
            break;
        default: return VN_EXIT_USAGE;
        }
    }
    if (optind < argc)
        return vn_cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
    if (json && vn_cli_check_path(CMD, "--json", json))
        return VN_EXIT_USAGE;
    if (reads_set && !dist)
        return vn_cli_usage_error(CMD, "--reads goes with --distribution");
    if (dist) {
        vn_clock_id id;
        if (vn_clock_lookup(dist, &id) != 0) {
            char names[512];
            clock_names(names, sizeof names);
            return vn_cli_usage_error(CMD, "no clock named '%s' (clocks: %s)", dist, names);
        }
        return run_distribution(dist, reads, json);
    }

    vn_clocks_report r;
    int rc = vn_clocks_report_collect(&r);
    if (rc)
        return vn_cli_fail(CMD, "probing the clocks failed: %s", vn_strerror(rc));
    vn_buf b;
    vn_buf_init(&b, 0);
    int ret = VN_EXIT_OK;
    if (!vn_cli_is_stdout(json)) {
        rc = vn_report_clocks_text(&r, vn_cli_report_flags(stdout), &b);
        if (rc == 0)
            ret = vn_cli_print(CMD, &b);
    }
    if (json && rc == 0 && ret == VN_EXIT_OK) {
        vn_buf_reset(&b);
        rc = vn_report_clocks_json(&r, &b);
        if (rc == 0)
            ret = vn_cli_write(CMD, json, &b);
    }
    if (rc)
        ret = vn_cli_fail(CMD, "cannot format the results: %s", vn_strerror(rc));
    vn_buf_free(&b);
    return ret;
}
