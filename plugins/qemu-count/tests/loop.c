/* Test guest for the qemu-count plugin: an empty region, then a region around a loop of N
 * iterations (N = argv[1], default 1000). Each iteration does one load and one store of the
 * volatile accumulator. On x86-64, a third region calls page_cross (4 instructions, one of them
 * crossing a page boundary). Build: cc -static -O1 loop.c (also cross, for s390x and aarch64). */
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
#ifdef __x86_64__
    kembench_region_begin(); /* region 2: page_cross */
    page_cross();
    kembench_region_end();
#endif
    return r == 3 * (n * (n - 1) / 2) ? 0 : 1;
}
