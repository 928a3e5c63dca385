/* The CPUs of a set as a list for messages: "0-3,6". */
#ifndef VN_CPU_LIST_H
#define VN_CPU_LIST_H

#include <sched.h>
#include <stddef.h>

/* Writes set as "0-3,6" into buf (n bytes; "" for an empty set), cut at a
 * whole entry when it does not fit. */
void vn__cpu_list(const cpu_set_t *set, char *buf, size_t n);

#endif
