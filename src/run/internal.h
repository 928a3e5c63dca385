/* The parameters of vernier run's command line (--parameter-scan,
 * --parameter-list) and their substitution into commands: private to the
 * library and the tool (not installed). */
#ifndef VN_RUNNER_INTERNAL_H
#define VN_RUNNER_INTERNAL_H

#include <stddef.h>

#include "run/runner.h"

/* Expands "LO:HI[:STEP]" into values (integers, or decimals when any of
 * the three has a decimal point). VN_EINVAL with a message for a malformed
 * range, a zero or backward step, or more than 10000 values. */
int vn__param_range(const char *spec, char ***values, size_t *n, char *err, size_t errlen);
/* Splits "a,b,c" into values. */
int vn__param_list(const char *spec, char ***values, size_t *n, char *err, size_t errlen);
/* Replaces every {name} of the parameters in text; a new string (free()). */
char *vn__param_substitute(const char *text, const vn_run_param *params, size_t nparams,
                           const size_t *choice);

#endif
