/* Everything `vernier clocks` shows, gathered in one pass. */
#include <string.h>

#include "internal.h"
#include "base/fileutil.h"
#include "parse/sysinfo_parse.h"
#include "clock/probe.h"

#define CS_DIR "/sys/devices/system/clocksource/clocksource0/"

/* The first line, or the words, of a sysfs file; "" when it cannot be read. */
static void read_sys(const char *path, char *out, size_t n, int words)
{
    char buf[4096];
    if (vn__read_text(path, buf, sizeof buf) < 0)
        buf[0] = '\0';
    if (words)
        vn__parse_words(buf, out, n);
    else
        vn__parse_line(buf, out, n);
}

void vn__clocks_report_basics(vn_clocks_report *r)
{
    memset(r, 0, sizeof *r);
    read_sys(CS_DIR "current_clocksource", r->clocksource, sizeof r->clocksource, 0);
    read_sys(CS_DIR "available_clocksource", r->clocksource_available,
             sizeof r->clocksource_available, 1);
    vn_tsc_query(&r->tsc);
    /* The same calibration every _ns value of the report is converted with. */
    const vn_calibration *cal = r->tsc.present == 1 ? vn_counter_calibration() : NULL;
    if (cal) {
        r->calib = *cal;
        r->tsc_calibrated = 1;
    }
}

int vn_clocks_report_collect(vn_clocks_report *r)
{
    if (!r)
        return VN_EINVAL;
    vn__clocks_report_basics(r);
    for (int i = 0; i < VN_CLOCK_COUNT; i++) {
        if (!vn_clock_exists((vn_clock_id)i))
            continue;
        vn_clock_probe *p = &r->clocks[r->nclocks++];
        int rc = vn_probe_clock((vn_clock_id)i, NULL, p);
        if (rc && rc != VN_ENOTSUP)
            return rc;
    }
    if (vn_probe_crosscpu(0, &r->crosscpu) == 0)
        r->crosscpu_done = 1;
    vn_clock_select(r, &r->selected, r->selected_reason, sizeof r->selected_reason);
    return 0;
}
