/* Golden files for the reporters' tests: output is compared byte for byte
 * with a file in tests/golden/. After an intended change of the output, run
 * the test with VN_UPDATE_GOLDEN=1 to rewrite the files, and review the diff.
 * Include after <cmocka.h>. */
#ifndef VN_TEST_GOLDEN_H
#define VN_TEST_GOLDEN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vernier/base.h"

#define GOLDEN VN_FIXTURES "/../golden"

static void check_golden(const char *name, const vn_buf *got)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", GOLDEN, name);
    const char *update = getenv("VN_UPDATE_GOLDEN");
    if (update && *update) {
        assert_int_equal(vn_write_file_atomic(path, got->data, got->len), 0);
        return;
    }
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("missing golden file %s (run with VN_UPDATE_GOLDEN=1 to create it)", path);
    /* Read the whole file, however long: a results file with its samples
     * is larger than any fixed buffer worth keeping on the stack. */
    vn_buf want;
    vn_buf_init(&want, 0);
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        assert_int_equal(vn_buf_append(&want, chunk, n), 0);
    fclose(f);
    int same = want.len == got->len && (want.len == 0 || memcmp(want.data, got->data, want.len) == 0);
    vn_buf_free(&want);
    if (!same) {
        print_message("---- got ----\n%s---- end ----\n", got->data ? got->data : "");
        fail_msg("output differs from %s", path);
    }
}

#endif
