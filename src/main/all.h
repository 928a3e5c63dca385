/* The whole library as the vernier tool and the tests see it: the public
 * headers (vernier.h) and the private ones a program never includes (the
 * clocks, counters, the machine, statistics, running commands, the other
 * reporters, and the results' own layout). */
#ifndef VN_MAIN_ALL_H
#define VN_MAIN_ALL_H

#include "vernier.h"

#include "clock/clock_api.h"
#include "clock/probe.h"
#include "counters/counters.h"
#include "engine/results.h"
#include "machine/sysinfo_api.h"
#include "report/report.h"
#include "run/exec_api.h"
#include "run/runner.h"
#include "stats/stats_api.h"

#endif
