/* The progress line (see progress.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "progress.h"

/* The time left in the fewest characters that still say it well. */
static void fmt_eta(char *s, size_t n, double sec)
{
    if (!isfinite(sec) || sec < 0)
        snprintf(s, n, "ETA -");
    else if (sec < 10)
        snprintf(s, n, "ETA %.1f s", sec);
    else if (sec < 3600)
        snprintf(s, n, "ETA %d:%02d", (int)sec / 60, (int)sec % 60);
    else
        snprintf(s, n, "ETA %dh%02d", (int)(sec / 3600), (int)fmod(sec, 3600) / 60);
}

size_t vn__progress_line(char *out, size_t n, const char *name, size_t done, size_t planned,
                         double elapsed, int width)
{
    if (!out || !n)
        return 0;
    if (width < 20)
        width = 20;
    if ((size_t)width >= n)
        width = (int)n - 1;
    if (planned < done)
        planned = done;
    char count[48], eta[32];
    snprintf(count, sizeof count, "%zu/%zu", done, planned);
    double left = done && planned ? elapsed / (double)done * (double)(planned - done) : NAN;
    fmt_eta(eta, sizeof eta, left);
    /* The numbers always fit; the bar takes a third of what remains, at
     * most 30 columns, and the name the rest. */
    int fixed = (int)strlen(count) + (int)strlen(eta) + 4 /* "  " twice */;
    int room = width - fixed;
    int bar = room >= 12 ? room / 3 : 0;
    if (bar > 30)
        bar = 30;
    int namew = room - (bar ? bar + 4 : 0); /* "[", "]" and two blanks */
    if (namew < 0)
        namew = 0;
    size_t len = 0;
    const char *nm = name ? name : "";
    int nlen = (int)strlen(nm);
    /* Cut on a character, not inside a UTF-8 sequence. */
    int show = nlen <= namew ? nlen : namew > 3 ? namew - 3 : 0;
    while (show > 0 && show < nlen && ((unsigned char)nm[show] & 0xC0) == 0x80)
        show--;
    const char *dots = show < nlen && namew > 3 ? "..." : "";
    /* Padded, so the bar stays where it is from one command to the next. */
    len += (size_t)snprintf(out + len, n - len, "%.*s%s%*s", show, nm, dots,
                            namew - show - (int)strlen(dots), "");
    if (bar) {
        int fill = planned ? (int)((double)bar * (double)done / (double)planned) : 0;
        if (len < n)
            len += (size_t)snprintf(out + len, n - len, "  [");
        for (int i = 0; i < bar && len + 1 < n; i++)
            out[len++] = i < fill ? '#' : '-';
        out[len < n ? len : n - 1] = '\0';
        if (len < n)
            len += (size_t)snprintf(out + len, n - len, "]");
    }
    if (len < n)
        len += (size_t)snprintf(out + len, n - len, "  %s  %s", count, eta);
    return len < n ? len : n - 1;
}
