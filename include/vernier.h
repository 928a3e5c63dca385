/* vernier: measure the performance of code on Linux and tell the truth about it.
 *
 * The one header a program includes. Parts live in include/vernier/ so each
 * stays readable, but only this umbrella is documented as the entry point. */
#ifndef VERNIER_H
#define VERNIER_H

#include "vernier/base.h"
#include "vernier/bench.h"
#include "vernier/config.h"
#include "vernier/report.h"
#include "vernier/results.h"

#endif
