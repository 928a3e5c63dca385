/* Fuzz target: splitting command lines into words, and the parameter
 * parsers. Command lines come from the user's shell: no input may make
 * them read out of bounds, leak, or return words that were not there. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/internal.h"
#include "run/exec_internal.h"
#include "main/all.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *t = malloc(size + 1);
    if (!t)
        return 0;
    memcpy(t, data, size);
    t[size] = '\0';
    char **w;
    int n;
    char err[128];
    if (vn__split_words(t, &w, &n, err, sizeof err) == 0) {
        /* Words never hold more characters than the line had. */
        size_t total = 0;
        for (int i = 0; i < n; i++)
            total += strlen(w[i]);
        if (total > size || w[n] != NULL)
            abort();
        vn__words_free(w);
    }
    char **v;
    size_t k;
    if (vn__param_range(t, &v, &k, err, sizeof err) == 0) {
        if (k == 0 || k > 10000)
            abort();
        for (size_t i = 0; i < k; i++)
            free(v[i]);
        free(v);
    }
    if (vn__param_list(t, &v, &k, err, sizeof err) == 0) {
        for (size_t i = 0; i < k; i++)
            free(v[i]);
        free(v);
    }
    free(t);
    return 0;
}
