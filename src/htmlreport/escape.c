/* Text from the files made safe for HTML, in element content and in
 * attribute values alike: a benchmark's name is the user's to choose. */
#include "internal.h"

int vn__rep_esc(vn_buf *b, const char *s)
{
    int rc = 0;
    for (const char *run = s; !rc; s++) {
        const char *e = *s == '&'    ? "&amp;"
                        : *s == '<'  ? "&lt;"
                        : *s == '>'  ? "&gt;"
                        : *s == '"'  ? "&quot;"
                        : *s == '\'' ? "&#39;"
                                     : NULL;
        if (!e && *s)
            continue;
        rc = vn_buf_append(b, run, (size_t)(s - run));
        if (!rc && e)
            rc = vn_buf_puts(b, e);
        if (!*s)
            break;
        run = s + 1;
    }
    return rc;
}
