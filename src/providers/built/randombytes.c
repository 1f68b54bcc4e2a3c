/* kembench's randombytes for builds compiled at run time (see src/providers/built/mod.rs).
 * kembench installs its generator through kembench_set_randombytes when it loads the build:
 * the operating system's, profile's seeded stream, or NIST's DRBG for known answers. Until then
 * (a build loaded by another program) the operating system's getrandom serves. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>

typedef void (*kembench_hook)(uint8_t *out, size_t len);
static kembench_hook hook = 0;

void kembench_set_randombytes(kembench_hook h) { hook = h; }

int PQCLEAN_randombytes(uint8_t *out, size_t n) {
    if (hook) {
        hook(out, n);
        return 0;
    }
    while (n > 0) {
        ssize_t r = getrandom(out, n, 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            abort();
        }
        out += r;
        n -= (size_t)r;
    }
    return 0;
}

/* NIST submission packages call randombytes() (rng.h) and their KAT generator calls
 * randombytes_init(); kembench leaves their rng.c out and serves both. */
int randombytes(unsigned char *out, unsigned long long n) {
    return PQCLEAN_randombytes(out, (size_t)n);
}

void randombytes_init(unsigned char *entropy, unsigned char *personalization, int strength) {
    (void)entropy;
    (void)personalization;
    (void)strength;
}
