/* The registry's table (registry.h), and which names select which entries. */
#include <string.h>

#include "suite/suite.h"

#define VN__SUITE_ENTRY(family, bench, fn, what) {#family, bench, fn, what},
static const vn__suite_entry entries[] = {VN__SUITE_BENCHMARKS(VN__SUITE_ENTRY)};
#undef VN__SUITE_ENTRY

const vn__suite_entry *vn__suite_entries(size_t *n)
{
    *n = sizeof entries / sizeof entries[0];
    return entries;
}

int vn__suite_selects(const vn__suite_entry *e, const char *name)
{
    /* A benchmark, its family, or any dotted prefix of its name between
     * them: memory.latency selects memory.latency.random and the rest. */
    size_t n = strlen(name);
    if (!strcmp(name, e->family) || !strcmp(name, e->name))
        return 1;
    if (!n || strncmp(e->name, name, n) || e->name[n] != '.')
        return 0;
    /* A benchmark's own name selects it alone (process.fork, not
     * process.fork.exec too). */
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (!strcmp(entries[i].name, name))
            return 0;
    return 1;
}
