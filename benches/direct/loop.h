/* Shared by the direct loops: per-call timing with clock_gettime(CLOCK_MONOTONIC), medians of
 * blocks of calls, and the one output line the driver (benches/direct.rs) parses:
 *
 *   direct impl=I alg=A op=O calls=N block_medians_ns=m1,m2,...
 *
 * (N: the calls of the first block; a block lasts BLOCK_MS milliseconds and at least 11 calls).
 *
 * Each call is timed on its own, as kembench times a call when it is longer than 100 timer
 * reads; nothing but the library's own functions sits between the two clock reads. */
#ifndef KEMBENCH_DIRECT_LOOP_H
#define KEMBENCH_DIRECT_LOOP_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define POOL 16

static inline uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void die(const char *what) {
    fprintf(stderr, "direct loop: %s failed\n", what);
    exit(1);
}

/* One operation: `call(state, i)` does the i-th call (i cycles through the pool). */
typedef void (*op_fn)(void *state, int i);

#define MAX_CALLS (1 << 18)

/* Warms up (at least 20 calls and 20 ms), then times `blocks` blocks of `block_ms`
 * milliseconds each and prints the median call of each block. */
static void run_op(const char *impl, const char *alg, const char *op, op_fn call, void *state,
                   int block_ms, int blocks) {
    uint64_t *t = malloc(sizeof(uint64_t) * MAX_CALLS);
    if (!t) die("malloc");
    int i = 0;
    uint64_t start = now_ns(), span = (uint64_t)block_ms * 1000000u;
    for (int n = 0; n < 20 || now_ns() - start < 20000000u; n++) call(state, i++ % POOL);
    int first = 0;
    char medians[64 * 32] = "";
    for (int b = 0; b < blocks && b < 32; b++) {
        int n = 0;
        start = now_ns();
        while (n < MAX_CALLS && (n < 11 || now_ns() - start < span)) {
            int k = i++ % POOL;
            uint64_t t0 = now_ns();
            call(state, k);
            t[n++] = now_ns() - t0;
        }
        if (!b) first = n;
        qsort(t, (size_t)n, sizeof(uint64_t), cmp_u64);
        size_t len = strlen(medians);
        snprintf(medians + len, sizeof medians - len, "%s%llu", b ? "," : "",
                 (unsigned long long)t[n / 2]);
    }
    printf("direct impl=%s alg=%s op=%s calls=%d block_medians_ns=%s\n", impl, alg, op, first,
           medians);
    fflush(stdout);
    free(t);
}

/* With KEMBENCH_DIRECT_USED_HEAP=1 in the environment, the heap is used before anything is
 * measured, as any long-running process's heap is (kembench's worker, a TLS server): 4,000
 * blocks of 16 to 4,015 bytes (a fixed pseudo-random sequence), every other one freed. Libraries
 * that allocate inside every call (liboqs: about 8 aligned_alloc calls per ML-KEM call, for its
 * SHA-3 states) run a few percent slower on such a heap than on the fresh heap of a small
 * program, with the same instruction count: glibc then hands out blocks from its bins in turn,
 * colder in cache than the top chunk a fresh heap reuses. */
static void use_heap(void) {
    const char *v = getenv("KEMBENCH_DIRECT_USED_HEAP");
    if (!v || strcmp(v, "1")) return;
    static void *blocks[4000];
    uint32_t x = 2463534242u;
    for (int i = 0; i < 4000; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5; /* xorshift32 */
        blocks[i] = malloc(16 + x % 4000);
        if (!blocks[i]) die("malloc");
    }
    for (int i = 0; i < 4000; i += 2) free(blocks[i]);
}

/* `PROG ALG OPS BLOCK_MS BLOCKS`: OPS is comma-separated. Exits with the usage on a bad call. */
static void parse_args(int argc, char **argv, const char **alg, char **ops, int *block_ms,
                       int *blocks) {
    if (argc == 5) {
        *alg = argv[1];
        *ops = argv[2];
        *block_ms = atoi(argv[3]);
        *blocks = atoi(argv[4]);
        if (*block_ms > 0 && *blocks > 0) {
            use_heap();
            return;
        }
    }
    fprintf(stderr, "usage: %s ALG OPS BLOCK_MS BLOCKS\n", argv[0]);
    exit(2);
}

#endif
