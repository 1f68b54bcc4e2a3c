/* Test guest for the qemu-count plugin: an empty region, then a region around a loop of N
 * iterations (N = argv[1], default 1000). Each iteration does one load and one store of the
 * volatile accumulator. Region 2 runs a call chain (outer -> middle -> leaf, leaf called N
 * times), region 3 recursion (rec: direct, DEPTH deep; even/odd: mutual, DEPTH deep). On
 * x86-64, a fifth region calls page_cross (4 instructions, one of them crossing a page
 * boundary). Build: cc -static -O1 loop.c (also cross, for s390x and aarch64). */
#include <stdlib.h>

/* The markers: noipa keeps gcc from inlining, cloning or folding them. A linker's identical-code
 * folding (gold/lld --icf=all) would still give both one address, which the plugin refuses. */
__attribute__((noinline, noipa)) void kembench_region_begin(void) { __asm__ volatile(""); }
__attribute__((noinline, noipa)) void kembench_region_end(void) { __asm__ volatile(""); }

__attribute__((noinline)) unsigned long work(unsigned long n) {
    volatile unsigned long acc = 0;
    for (unsigned long i = 0; i < n; i++)
        acc += i * 3;
    return acc;
}

/* The call chain: noipa keeps every call a call (no inlining, cloning or sibling calls). */
__attribute__((noinline, noipa)) unsigned long leaf(unsigned long x) { return x * 7 + 1; }
__attribute__((noinline, noipa)) unsigned long middle(unsigned long n) {
    unsigned long s = 0;
    for (unsigned long i = 0; i < n; i++)
        s += leaf(i);
    return s;
}
__attribute__((noinline, noipa)) unsigned long outer(unsigned long n) { return middle(n) + 1; }

#define DEPTH 10
/* Direct recursion, not a tail call (the volatile read after the call keeps it a call). */
__attribute__((noinline, noipa)) unsigned long rec(unsigned long n) {
    volatile unsigned long v = n;
    if (n == 0)
        return 0;
    unsigned long r = rec(n - 1);
    return r + v;
}
/* Mutual recursion. */
__attribute__((noinline, noipa)) unsigned long odd(unsigned long n);
__attribute__((noinline, noipa)) unsigned long even(unsigned long n) {
    volatile unsigned long v = n;
    return v == 0 ? 1 : odd(n - 1) + 0 * v;
}
__attribute__((noinline, noipa)) unsigned long odd(unsigned long n) {
    volatile unsigned long v = n;
    return v == 0 ? 0 : even(n - 1) + 0 * v;
}

#ifdef __x86_64__
/* 4 instructions; the third (5 bytes) crosses a 4 KiB page boundary. QEMU 7.2 ends the first TB
 * before it but still lists it in that TB for plugins; the plugin must not count it twice. */
void page_cross(void);
__asm__(".pushsection .text.page_cross, \"ax\", @progbits\n"
        ".p2align 12\n"
        ".fill 4082, 1, 0xcc\n"
        ".globl page_cross\n"
        ".type page_cross, @function\n"
        "page_cross:\n"
        "movl $1, %eax\n"
        "movl $2, %ecx\n"
        "addl $0x12345678, %eax\n"
        "ret\n"
        ".size page_cross, . - page_cross\n"
        ".popsection\n");
#endif

int main(int argc, char **argv) {
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
    kembench_region_begin(); /* region 0: empty, for calibration */
    kembench_region_end();
    kembench_region_begin(); /* region 1: the loop */
    unsigned long r = work(n);
    kembench_region_end();
    kembench_region_begin(); /* region 2: the call chain */
    unsigned long c = outer(n);
    kembench_region_end();
    kembench_region_begin(); /* region 3: recursion */
    unsigned long d = rec(DEPTH) + even(DEPTH);
    kembench_region_end();
#ifdef __x86_64__
    kembench_region_begin(); /* region 4: page_cross */
    page_cross();
    kembench_region_end();
#endif
    int ok = r == 3 * (n * (n - 1) / 2) && c == 7 * (n * (n - 1) / 2) + n + 1 &&
             d == DEPTH * (DEPTH + 1) / 2 + (DEPTH % 2 == 0);
    return ok ? 0 : 1;
}
