/* Histograms of a sample: bins over the range or within the fences, and the
 * cumulative share. Pure. */
#include "internal.h"
#include "stats/stats_api.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void vn_histogram_free(vn_histogram *h)
{
    if (!h)
        return;
    free(h->counts);
    h->counts = NULL;
    h->nbins = 0;
    h->n = 0;
}

/* Do the edges lo + j * (hi - lo) / nbins, computed as the bins below
 * compute them, rise strictly from lo to hi? */
static int edges_rise(double lo, double hi, size_t nbins)
{
    double step = (hi - lo) / (double)nbins, prev = lo;
    if (!(step > 0))
        return 0;
    for (size_t j = 1; j <= nbins; j++) {
        double e = j == nbins ? hi : (double)j * step + lo;
        if (!(e > prev))
            return 0;
        prev = e;
    }
    return 1;
}

/* Bins the values of x inside [lo, hi] (lo < hi, or lo == hi for one bin
 * of width 0) into nbins bins (0: Freedman-Diaconis with this iqr over the
 * range); values outside are counted in below and above. */
static int histogram_range(const double *x, size_t n, size_t nbins, double lo, double hi,
                           double iqr, vn_histogram *out)
{
    double range = hi - lo;
    if (!isfinite(range))
        return VN_ERANGE;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        m += x[i] >= lo && x[i] <= hi;
    if (range == 0) {
        nbins = 1;
    } else if (nbins == 0) {
        /* Freedman and Diaconis: bins 2 IQR m^(-1/3) wide, as numpy's "fd"
         * computes them; Sturges's log2(m) + 1 bins when the IQR is 0 (more
         * than half the values are equal) and the width would be 0. */
        double want = iqr > 0 ? ceil(range / (2.0 * iqr * pow((double)m, -1.0 / 3.0)))
                              : ceil(log2((double)m) + 1.0);
        nbins = want < 1 ? 1 : want > 200 ? 200 : (size_t)want;
    }
    /* Values a few units in the last place apart cannot be cut into many
     * bins: their edges lo + j * step would repeat, and a bin between two
     * equal edges holds nothing (numpy.histogram refuses such bins). Fewer
     * bins, then, down to the most whose edges all rise; one always does. */
    while (nbins > 1 && !edges_rise(lo, hi, nbins))
        nbins--;
    uint64_t *c = calloc(nbins, sizeof *c);
    if (!c)
        return VN_ENOMEM;
    uint64_t below = 0, above = 0;
    double step = range / (double)nbins;
    for (size_t i = 0; i < n; i++) {
        if (x[i] < lo) {
            below++;
            continue;
        }
        if (x[i] > hi) {
            above++;
            continue;
        }
        size_t j = 0;
        if (range > 0) {
            /* The index from a multiplication, then corrected against the
             * edges lo + j * step exactly as numpy.histogram does, so a value
             * on an edge lands where numpy puts it: bins are [edge, next
             * edge), the last one closed, and the maximum is in it. */
            double f = (x[i] - lo) / step; /* nbins / range may overflow */
            j = f <= 0 ? 0 : f >= (double)(nbins - 1) ? nbins - 1 : (size_t)f;
            if (j > 0 && x[i] < (double)j * step + lo)
                j--;
            else if (j + 1 < nbins && x[i] >= (double)(j + 1) * step + lo)
                j++;
        }
        c[j]++;
    }
    out->lo = lo;
    out->width = step;
    out->nbins = nbins;
    out->counts = c;
    out->n = n;
    out->below = below;
    out->above = above;
    return 0;
}

/* The checks both histograms make, and the sorted values' quartiles. */
static int histogram_prepare(const double *x, size_t n, vn_histogram *out, double **sorted)
{
    if (!x || !out || n == 0)
        return VN_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return VN_EINVAL;
    *sorted = vn__sorted_copy(x, n);
    return *sorted ? 0 : VN_ENOMEM;
}

int vn_histogram_compute(const double *x, size_t n, size_t nbins, vn_histogram *out)
{
    double *s;
    int rc = histogram_prepare(x, n, out, &s);
    if (rc)
        return rc;
    double iqr = vn_percentile_sorted(s, n, 75) - vn_percentile_sorted(s, n, 25);
    rc = histogram_range(x, n, nbins, s[0], s[n - 1], iqr, out);
    free(s);
    return rc;
}

int vn_histogram_compute_fenced(const double *x, size_t n, size_t nbins, vn_histogram *out)
{
    double *s;
    int rc = histogram_prepare(x, n, out, &s);
    if (rc)
        return rc;
    double q1 = vn_percentile_sorted(s, n, 25), q3 = vn_percentile_sorted(s, n, 75);
    double iqr = q3 - q1, lo = s[0], hi = s[n - 1];
    /* The values inside Tukey's outer fences, as the modality score and the
     * text graph take them; with an IQR of 0 the fences close up on the
     * quartile, and the whole range is used instead. */
    if (iqr > 0) {
        size_t a = 0, b = n;
        while (s[a] < q1 - 3 * iqr)
            a++;
        while (s[b - 1] > q3 + 3 * iqr)
            b--;
        lo = s[a];
        hi = s[b - 1];
        /* The bin rule looks at the values binned, as numpy's would. */
        iqr = vn_percentile_sorted(s + a, b - a, 75) - vn_percentile_sorted(s + a, b - a, 25);
    }
    rc = histogram_range(x, n, nbins, lo, hi, iqr, out);
    free(s);
    return rc;
}


void vn_histogram_cdf(const vn_histogram *h, double *out)
{
    uint64_t seen = h->below;
    for (size_t i = 0; i < h->nbins; i++) {
        seen += h->counts[i];
        out[i] = h->n ? (double)seen / (double)h->n : NAN;
    }
}
