/* Benchmarks whose names and failure messages are not plain ASCII: wide
 * characters (two columns each on a terminal), a byte that is not UTF-8
 * (text from a Latin-1 source), and a control character, through
 * vn_suite_add as a program reading its names at run time would. */
#include "multiplies.h"

static void work(vn_state *st) { multiplies(st, 16); }

static void fails(vn_state *st)
{
    vn_state_fail(st, "line one\nline two \x1b[31mred\x1b[0m caf\xe9");
}

int main(int argc, char **argv)
{
    vn_suite *s = vn_suite_create();
    if (!s)
        return 1;
    int rc = vn_suite_add(s, "sort/\xe6\x97\xa5\xe6\x9c\xac", work, NULL) ||
             vn_suite_add(s, "sort/caf\xe9", work, NULL) ||
             vn_suite_add(s, "sort/tab\there", work, NULL) ||
             vn_suite_add(s, "sort/plain", work, NULL) ||
             vn_suite_add(s, "broken", fails, NULL);
    if (rc == 0)
        rc = vn_suite_main(s, argc, argv, NULL);
    vn_suite_destroy(s);
    return rc;
}
