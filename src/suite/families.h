/* The add function of every benchmark of the registry (registry.h lists
 * them), declared for the family files that define them (suite.h includes
 * this) and for the registry's table (registry.c). */
#ifndef VN_SUITE_FAMILIES_H
#define VN_SUITE_FAMILIES_H

#include "suite/registry.h"

#define VN__SUITE_DECLARE(family, bench, fn, what) int fn(vn_suite *s, vn__suite_ctx *ctx, const char *name);
VN__SUITE_BENCHMARKS(VN__SUITE_DECLARE)
#undef VN__SUITE_DECLARE

#endif
