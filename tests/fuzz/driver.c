/* A stand-in for libFuzzer's main(), so every fuzz target runs in the normal
 * test suite (under ASan + UBSan in `make check`) without clang: it feeds the
 * target each seed file named on the command line, then deterministic random
 * mutations of them (bit flips, byte changes, truncation, insertion, splicing)
 * for a bounded number of rounds (VN_FUZZ_ITERATIONS, 100000), and for at
 * most VN_FUZZ_SECONDS (30) of them: the same inputs in the same order
 * every run, as many as the time allows (a sanitized build is several
 * times slower). Built with clang and -fsanitize=fuzzer instead, the same
 * target runs under the real coverage-guided fuzzer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT 65536
#define MAX_SEEDS 256

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
    /* splitmix64: fast, and the same sequence on every run. */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static size_t below(size_t n) { return n ? (size_t)(next() % n) : 0; }

typedef struct seed {
    uint8_t *data;
    size_t len;
} seed;

static size_t mutate(uint8_t *buf, size_t len, const seed *seeds, size_t nseeds)
{
    static const char *const tokens[] = {"-", ",", ":", "\n", " ", "0", "4294967296", "99999999999999999999",
                                         "flags", "processor", "K", "M", "G", "=", "/", "\t", "\0"};
    int rounds = 1 + (int)below(4);
    for (int r = 0; r < rounds; r++) {
        switch (below(6)) {
        case 0: /* flip a bit */
            if (len)
                buf[below(len)] ^= (uint8_t)(1u << below(8));
            break;
        case 1: /* set a byte */
            if (len)
                buf[below(len)] = (uint8_t)next();
            break;
        case 2: /* truncate */
            len = below(len + 1);
            break;
        case 3: { /* insert a token */
            const char *t = tokens[below(sizeof tokens / sizeof tokens[0])];
            size_t tl = strlen(t) ? strlen(t) : 1;
            size_t at = below(len + 1);
            if (len + tl <= MAX_INPUT && at <= len) {
                memmove(buf + at + tl, buf + at, len - at);
                memcpy(buf + at, t, tl);
                len += tl;
            }
            break;
        }
        case 4: { /* splice in part of another seed */
            const seed *s = &seeds[below(nseeds)];
            if (!s->len)
                break;
            size_t from = below(s->len), n = 1 + below(s->len - from);
            size_t at = below(len + 1);
            if (at + n > MAX_INPUT)
                n = MAX_INPUT - at;
            memcpy(buf + at, s->data + from, n);
            if (at + n > len)
                len = at + n;
            break;
        }
        default: { /* duplicate a range */
            static uint8_t tmp[MAX_INPUT];
            if (!len)
                break;
            size_t from = below(len), n = 1 + below(len - from);
            size_t at = below(len + 1);
            if (len + n <= MAX_INPUT && at <= len) {
                memcpy(tmp, buf + from, n);
                memmove(buf + at + n, buf + at, len - at);
                memcpy(buf + at, tmp, n);
                len += n;
            }
        }
        }
    }
    return len;
}

int main(int argc, char **argv)
{
    long iterations = 100000;
    double seconds = 30;
    const char *env = getenv("VN_FUZZ_ITERATIONS");
    if (env)
        iterations = atol(env);
    if ((env = getenv("VN_FUZZ_SECONDS")) != NULL)
        seconds = atof(env);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    seed seeds[MAX_SEEDS];
    size_t nseeds = 0;
    seeds[nseeds++] = (seed){(uint8_t *)calloc(1, 1), 0};
    for (int i = 1; i < argc && nseeds < MAX_SEEDS; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "fuzz driver: cannot open seed '%s'\n", argv[i]);
            return 2;
        }
        uint8_t *d = malloc(MAX_INPUT);
        size_t n = fread(d, 1, MAX_INPUT, f);
        fclose(f);
        seeds[nseeds++] = (seed){d, n};
        LLVMFuzzerTestOneInput(d, n);
    }
    uint8_t *buf = malloc(MAX_INPUT);
    long it = 0;
    for (; it < iterations; it++) {
        if (it % 256 == 0) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 > seconds)
                break;
        }
        const seed *s = &seeds[below(nseeds)];
        memcpy(buf, s->data, s->len);
        size_t len = mutate(buf, s->len, seeds, nseeds);
        /* An exact-size heap copy, so ASan catches a read one past the end. */
        uint8_t *in = malloc(len ? len : 1);
        memcpy(in, buf, len);
        LLVMFuzzerTestOneInput(in, len);
        free(in);
    }
    printf("fuzz driver: %zu seeds, %ld mutated inputs%s, no crash\n", nseeds - 1, it,
           it < iterations ? " (the time cap)" : "");
    free(buf);
    for (size_t i = 0; i < nseeds; i++)
        free(seeds[i].data);
    return 0;
}
