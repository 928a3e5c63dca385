/* The CPUs of a set as a list for messages: see cpu_list.h. */
#include "cpu_list.h"

#include <stdio.h>

void vn__cpu_list(const cpu_set_t *set, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int c = 0; c < CPU_SETSIZE && len + 1 < n; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
            last++;
        int w = last > c ? snprintf(buf + len, n - len, "%s%d-%d", len ? "," : "", c, last)
                         : snprintf(buf + len, n - len, "%s%d", len ? "," : "", c);
        if (w < 0 || (size_t)w >= n - len) {
            buf[len] = 0;
            break;
        }
        len += (size_t)w;
        c = last;
    }
}
