/* Pure parsers of /proc and /sys text; see sysinfo_parse.h. */
#include "sysinfo_parse.h"
#include "text.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A non-negative decimal number filling [b, e), or -1. */
static long long span_uint(const char *b, const char *e)
{
    if (b == e)
        return -1;
    long long v = 0;
    for (; b < e; b++) {
        if (!vn__is_digit(*b) || v > (LLONG_MAX - 9) / 10)
            return -1;
        v = v * 10 + (*b - '0');
    }
    return v;
}

typedef struct core_pair {
    long long pkg, core;
} core_pair;

static int pair_cmp(const void *a, const void *b)
{
    const core_pair *x = a, *y = b;
    if (x->pkg != y->pkg)
        return x->pkg < y->pkg ? -1 : 1;
    if (x->core != y->core)
        return x->core < y->core ? -1 : 1;
    return 0;
}

int vn__parse_cpuinfo(const char *text, vn__cpuinfo *out)
{
    vn__cpuinfo r;
    memset(&r, 0, sizeof r);
    r.physical_cores = r.sockets = r.siblings = r.cpu_cores = -1;

    /* Every processor's (physical id, core id) pair is kept, then sorted and
     * counted once: a machine with thousands of CPUs stays O(n log n). */
    core_pair *pairs = NULL;
    size_t npairs = 0, cap = 0;
    int have_pkg = 0, have_core = 0, every_has_pair = 1;
    long long pkg = -1, core = -1;
    int first = 1;      /* still inside the first processor's block */

    const char *p = text ? text : "";
    vn__kv_line kv;
    int more;
    do {
        more = vn__next_kv(&p, &kv);
        /* A block ends at the next "processor" line or at the end of the text. */
        int block_end = !more || vn__key_is(&kv, "processor");
        if (block_end && r.processors > 0) {
            if (pkg >= 0 && core >= 0) {
                if (npairs == cap) {
                    size_t ncap = cap ? cap * 2 : 64;
                    core_pair *np = realloc(pairs, ncap * sizeof *np);
                    if (!np) {
                        free(pairs);
                        return VN_ENOMEM;
                    }
                    pairs = np;
                    cap = ncap;
                }
                pairs[npairs].pkg = pkg;
                pairs[npairs].core = core;
                npairs++;
            } else {
                every_has_pair = 0;
            }
            first = 0;
        }
        if (!more)
            break;
        if (vn__key_is(&kv, "processor")) {
            r.processors++;
            pkg = core = -1;
        } else if (vn__key_is(&kv, "physical id")) {
            pkg = span_uint(kv.val, kv.val_end);
            have_pkg |= pkg >= 0;
        } else if (vn__key_is(&kv, "core id")) {
            core = span_uint(kv.val, kv.val_end);
            have_core |= core >= 0;
        } else if (vn__key_is(&kv, "flags")) {
            r.has_x86_flags = 1;
        } else if (first && vn__key_is(&kv, "model name")) {
            vn__copy_trimmed(kv.val, kv.val_end, r.model, sizeof r.model);
        } else if (first && vn__key_is(&kv, "microcode")) {
            vn__copy_trimmed(kv.val, kv.val_end, r.microcode, sizeof r.microcode);
        } else if (first && vn__key_is(&kv, "vendor_id")) {
            vn__copy_trimmed(kv.val, kv.val_end, r.vendor, sizeof r.vendor);
        } else if (first && vn__key_is(&kv, "siblings")) {
            long long v = span_uint(kv.val, kv.val_end);
            r.siblings = v >= 0 && v <= INT_MAX ? (int)v : -1;
        } else if (first && vn__key_is(&kv, "cpu cores")) {
            long long v = span_uint(kv.val, kv.val_end);
            r.cpu_cores = v >= 0 && v <= INT_MAX ? (int)v : -1;
        }
    } while (more);

    if (npairs > 0) {
        qsort(pairs, npairs, sizeof *pairs, pair_cmp);
        int cores = 1, sockets = 1;
        for (size_t i = 1; i < npairs; i++) {
            if (pairs[i].pkg != pairs[i - 1].pkg)
                sockets++;
            if (pair_cmp(&pairs[i], &pairs[i - 1]) != 0)
                cores++;
        }
        /* A count over some of the processors would be wrong, not unknown. */
        if (every_has_pair && have_pkg && have_core) {
            r.physical_cores = cores;
            r.sockets = sockets;
        }
    }
    free(pairs);
    *out = r;
    return 0;
}

int vn__cpuinfo_has_flag(const char *text, const char *flag)
{
    const char *p = text ? text : "";
    size_t flen = strlen(flag);
    vn__kv_line kv;
    while (vn__next_kv(&p, &kv)) {
        if (!vn__key_is(&kv, "flags") && !vn__key_is(&kv, "Features"))
            continue;
        const char *w = kv.val;
        while (w < kv.val_end) {
            while (w < kv.val_end && vn__is_space(*w))
                w++;
            const char *we = w;
            while (we < kv.val_end && !vn__is_space(*we))
                we++;
            if ((size_t)(we - w) == flen && flen && memcmp(w, flag, flen) == 0)
                return 1;
            w = we;
        }
        /* Every processor repeats the same line; the first one answers. */
        return 0;
    }
    return -1;
}

/* Reads a CPU number at *p; VN_EINVAL when there is none or it is too big. */
static int cpu_number(const char **p, long *out)
{
    const char *s = *p;
    if (!vn__is_digit(*s))
        return VN_EINVAL;
    long v = 0;
    while (vn__is_digit(*s)) {
        v = v * 10 + (*s - '0');
        if (v > VN__CPU_MAX)
            return VN_EINVAL;
        s++;
    }
    *p = s;
    *out = v;
    return 0;
}

int vn__parse_cpulist(const char *text, int *cpus, int max)
{
    if (!text)
        return VN_EINVAL;
    const char *p = vn__skip_space(text);
    const char *end = p + strlen(p);
    while (end > p && vn__is_space(end[-1]))
        end--;
    if (p == end)
        return 0;

    long count = 0;
    for (;;) {
        long lo, hi, used = 1, group = 1;
        if (cpu_number(&p, &lo))
            return VN_EINVAL;
        hi = lo;
        if (*p == '-') {
            p++;
            if (cpu_number(&p, &hi) || hi < lo)
                return VN_EINVAL;
            if (*p == ':') {
                p++;
                if (cpu_number(&p, &used) || *p != '/')
                    return VN_EINVAL;
                p++;
                if (cpu_number(&p, &group) || used < 1 || group < 1 || used > group)
                    return VN_EINVAL;
            }
        }
        for (long c = lo; c <= hi; c++) {
            if ((c - lo) % group >= used)
                continue;
            if (cpus && count < max)
                cpus[count] = (int)c;
            count++;
        }
        if (p == end)
            break;
        if (*p != ',')
            return VN_EINVAL;
        p++;
    }
    /* Overlapping ranges are allowed by the kernel's parser and counted
     * twice here; the kernel never prints a list that way. */
    return count > INT_MAX ? VN_ERANGE : (int)count;
}

int vn__parse_size(const char *text, long long *bytes)
{
    if (!text)
        return VN_EINVAL;
    const char *p = vn__skip_space(text);
    if (!vn__is_digit(*p))
        return VN_EINVAL;
    long long v = 0;
    while (vn__is_digit(*p)) {
        if (v > (LLONG_MAX - 9) / 10)
            return VN_ERANGE;
        v = v * 10 + (*p - '0');
        p++;
    }
    p = vn__skip_space(p);
    long long mult = 1;
    switch (*p) {
    case 'k': case 'K': mult = 1LL << 10; p++; break;
    case 'm': case 'M': mult = 1LL << 20; p++; break;
    case 'g': case 'G': mult = 1LL << 30; p++; break;
    case 't': case 'T': mult = 1LL << 40; p++; break;
    default: break;
    }
    /* "K", "KB" and "KiB" all mean 1024 bytes in cpuinfo and sysfs. */
    if (mult > 1 && *p == 'i')
        p++;
    if (*p == 'B' || *p == 'b')
        p++;
    if (*vn__skip_space(p))
        return VN_EINVAL;
    if (v > LLONG_MAX / mult)
        return VN_ERANGE;
    *bytes = v * mult;
    return 0;
}

int vn__parse_int(const char *text, long long *out)
{
    if (!text)
        return VN_EINVAL;
    const char *p = vn__skip_space(text);
    int neg = 0;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    if (!vn__is_digit(*p))
        return VN_EINVAL;
    unsigned long long v = 0;
    const unsigned long long limit = neg ? (unsigned long long)LLONG_MAX + 1 : LLONG_MAX;
    while (vn__is_digit(*p)) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (limit - d) / 10)
            return VN_ERANGE;
        v = v * 10 + d;
        p++;
    }
    if (*vn__skip_space(p))
        return VN_EINVAL;
    if (neg)
        *out = v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)v;
    else
        *out = (long long)v;
    return 0;
}

size_t vn__parse_line(const char *text, char *out, size_t n)
{
    if (!text)
        text = "";
    const char *b = vn__skip_space(text);
    const char *e = strchr(b, '\n');
    if (!e)
        e = b + strlen(b);
    return vn__copy_trimmed(b, e, out, n);
}

int vn__parse_words(const char *text, char *out, size_t n)
{
    if (n == 0)
        return 0;
    out[0] = '\0';
    size_t len = 0;
    int words = 0;
    const char *p = text ? text : "";
    for (;;) {
        p = vn__skip_space(p);
        if (!*p)
            break;
        const char *e = p;
        while (*e && !vn__is_space(*e))
            e++;
        size_t wl = (size_t)(e - p);
        size_t need = wl + (words ? 1 : 0);
        /* A word that does not fit whole is left out rather than cut, so
         * the list never names a clocksource that does not exist. */
        if (len + need + 1 > n)
            break;
        if (words)
            out[len++] = ' ';
        memcpy(out + len, p, wl);
        len += wl;
        out[len] = '\0';
        words++;
        p = e;
    }
    return words;
}

int vn__word_in_list(const char *list, const char *word)
{
    size_t wl = strlen(word);
    if (!list || !wl)
        return 0;
    const char *p = list;
    for (;;) {
        p = vn__skip_space(p);
        if (!*p)
            return 0;
        const char *e = p;
        while (*e && !vn__is_space(*e))
            e++;
        if ((size_t)(e - p) == wl && memcmp(p, word, wl) == 0)
            return 1;
        p = e;
    }
}

/* A meminfo value ("24684092 kB") in bytes, or -1. */
static long long meminfo_bytes(const vn__kv_line *kv)
{
    const char *e = kv->val;
    while (e < kv->val_end && vn__is_digit(*e))
        e++;
    long long v = span_uint(kv->val, e);
    if (v < 0)
        return -1;
    const char *u = e;
    while (u < kv->val_end && vn__is_space(*u))
        u++;
    size_t ul = (size_t)(kv->val_end - u);
    if (ul == 0)
        return v;
    if (ul == 2 && (memcmp(u, "kB", 2) == 0 || memcmp(u, "KB", 2) == 0))
        return v > LLONG_MAX / 1024 ? -1 : v * 1024;
    return -1;
}

int vn__parse_meminfo(const char *text, long long *total, long long *available)
{
    long long t = -1, a = -1;
    const char *p = text ? text : "";
    vn__kv_line kv;
    while (vn__next_kv(&p, &kv)) {
        if (vn__key_is(&kv, "MemTotal"))
            t = meminfo_bytes(&kv);
        else if (vn__key_is(&kv, "MemAvailable"))
            a = meminfo_bytes(&kv);
    }
    *total = t;
    *available = a;
    return t < 0 && a < 0 ? VN_EINVAL : 0;
}

/* A non-negative decimal number with an optional fraction ("1.42"). strtod
 * is not used because it follows LC_NUMERIC, which the host program may have
 * set to a locale whose decimal point is a comma; the kernel's is always a
 * dot. */
static int plain_decimal(const char **pp, double *out)
{
    const char *p = *pp;
    if (!vn__is_digit(*p))
        return VN_EINVAL;
    double v = 0;
    while (vn__is_digit(*p))
        v = v * 10 + (*p++ - '0');
    if (*p == '.') {
        p++;
        double scale = 0.1;
        while (vn__is_digit(*p)) {
            v += (*p++ - '0') * scale;
            scale /= 10;
        }
    }
    if (!isfinite(v))
        return VN_ERANGE;
    *pp = p;
    *out = v;
    return 0;
}

int vn__parse_loadavg(const char *text, double out[3])
{
    if (!text)
        return VN_EINVAL;
    const char *p = text;
    double v[3];
    for (int i = 0; i < 3; i++) {
        p = vn__skip_space(p);
        if (plain_decimal(&p, &v[i]))
            return VN_EINVAL;
        if (*p && !vn__is_space(*p))
            return VN_EINVAL;
    }
    memcpy(out, v, sizeof v);
    return 0;
}

int vn__cmdline_param(const char *cmdline, const char *name, char *out, size_t n)
{
    size_t nl = strlen(name);
    int found = 0;
    const char *p = cmdline ? cmdline : "";
    if (n)
        out[0] = '\0';
    for (;;) {
        p = vn__skip_space(p);
        if (!*p)
            break;
        /* A word ends at white space outside double quotes, which may wrap
         * the whole word or only its value: "a=b c" and a="b c". */
        const char *b = p;
        int quoted = 0;
        while (*p && (quoted || !vn__is_space(*p))) {
            if (*p == '"')
                quoted = !quoted;
            p++;
        }
        const char *e = p;
        if (e - b == 2 && b[0] == '-' && b[1] == '-')
            break;
        if (*b == '"')
            b++;
        if ((size_t)(e - b) < nl || memcmp(b, name, nl) != 0)
            continue;
        const char *v = b + nl;
        if (v != e && *v != '=' && !(*v == '"' && v + 1 == e))
            continue;
        found = 1;
        if (v < e && *v == '=')
            v++;
        /* Copy the value without the quotes. */
        size_t len = 0;
        for (const char *q = v; q < e && n; q++) {
            if (*q == '"')
                continue;
            if (len + 1 < n)
                out[len++] = *q;
        }
        if (n)
            out[len] = '\0';
    }
    return found;
}

const char *vn__isolcpus_list(const char *value)
{
    const char *p = value;
    /* Flags are words of letters and underscores; the CPU list begins with
     * a digit. */
    while (vn__is_alpha(*p)) {
        const char *q = p;
        while (vn__is_alpha(*q) || *q == '_')
            q++;
        if (*q != ',')
            break;
        p = q + 1;
    }
    return p;
}

int vn__parse_perf_capable(const char *status)
{
    const char *p = status ? status : "";
    vn__kv_line kv;
    while (vn__next_kv(&p, &kv)) {
        if (!vn__key_is(&kv, "CapEff"))
            continue;
        uint64_t caps = 0;
        const char *q = kv.val;
        if (q == kv.val_end || kv.val_end - q > 16)
            return -1;
        for (; q < kv.val_end; q++) {
            int d;
            if (vn__is_digit(*q))
                d = *q - '0';
            else if (*q >= 'a' && *q <= 'f')
                d = *q - 'a' + 10;
            else if (*q >= 'A' && *q <= 'F')
                d = *q - 'A' + 10;
            else
                return -1;
            caps = caps << 4 | (uint64_t)d;
        }
        const uint64_t cap_sys_admin = 1ull << 21, cap_perfmon = 1ull << 38;
        return (caps & (cap_sys_admin | cap_perfmon)) != 0;
    }
    return -1;
}

void vn__hypervisor_name(const char *signature, char *out, size_t n)
{
    /* The signatures hypervisors put in CPUID leaf 0x40000000, padded to 12
     * bytes by some and not by others; compared after trimming. */
    static const struct {
        const char *sig, *name;
    } known[] = {
        {"KVMKVMKVM", "kvm"},          {"Linux KVM Hv", "kvm"},
        {"Microsoft Hv", "hyperv"},    {"VMwareVMware", "vmware"},
        {"XenVMMXenVMM", "xen"},       {"TCGTCGTCGTCG", "qemu-tcg"},
        {"VBoxVBoxVBox", "virtualbox"}, {"ACRNACRNACRN", "acrn"},
        {"bhyve bhyve", "bhyve"},      {"prl hyperv", "parallels"},
    };
    const char *sig = signature ? signature : "";
    char trimmed[32];
    vn__copy_trimmed(sig, sig + strlen(sig), trimmed, sizeof trimmed);
    const char *name = trimmed;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(trimmed, known[i].sig) == 0)
            name = known[i].name;
    vn__copy_trimmed(name, name + strlen(name), out, n);
}
