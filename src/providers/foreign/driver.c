/* kembench's driver for builds made for another architecture (see src/providers/foreign/mod.rs).
 *
 * It is compiled (statically) with the scheme's sources by the architecture's cross compiler
 * and run under user-mode emulation (qemu-<arch>). kembench talks to it over its standard input
 * and output, one command per line, every byte string in hex:
 *
 *   k                      -> ok PK SK          key generation
 *   e PK                   -> ok CT SS          encapsulation
 *   d SK CT                -> ok SS             decapsulation
 *   kd SEED                -> ok PK SK          deterministic key generation (if exported)
 *   ed PK SEED             -> ok CT SS          deterministic encapsulation (if exported)
 *   m k | m e PK | m d SK CT
 *                          -> as k, e, d, and counted: the call is made once with its random
 *                             bytes recorded, then again between two empty marker regions
 *                             (an empty one first, for calibration) replaying them, so that
 *                             nothing but the call runs inside the counted region; the replay
 *                             must give the same bytes (else "err replay")
 *   sizes                  -> ok PK_LEN SK_LEN CT_LEN SS_LEN DERAND
 *   cpu                    -> ok HWCAP HWCAP2 PLATFORM   the CPU as the emulator presents it
 *                             (the auxiliary vector's AT_HWCAP and AT_HWCAP2 as 8 bytes each,
 *                             big-endian, and the AT_PLATFORM string)
 *
 * While a call runs, each random draw is asked of kembench: the driver writes "r N" and reads
 * N bytes back as one hex line, so kembench's generators (the operating system's, profile's
 * seeded stream, NIST's DRBG for known answers) serve foreign builds as they serve native ones.
 * A failed call answers "err RC". The scheme's functions and sizes come in as -D macros:
 * KB_KEYPAIR, KB_ENC, KB_DEC, optional KB_KEYPAIR_DERAND and KB_ENC_DERAND, and KB_PK_LEN,
 * KB_SK_LEN, KB_CT_LEN, KB_SS_LEN, and for a library with a generator hook, KB_SET_RANDOM. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

int KB_KEYPAIR(uint8_t *pk, uint8_t *sk);
int KB_ENC(uint8_t *ct, uint8_t *ss, const uint8_t *pk);
int KB_DEC(uint8_t *ss, const uint8_t *ct, const uint8_t *sk);
#ifdef KB_KEYPAIR_DERAND
int KB_KEYPAIR_DERAND(uint8_t *pk, uint8_t *sk, const uint8_t *seed);
#endif
#ifdef KB_ENC_DERAND
int KB_ENC_DERAND(uint8_t *ct, uint8_t *ss, const uint8_t *pk, const uint8_t *seed);
#endif

#ifdef KB_SET_RANDOM
/* A library that takes its generator through a hook (liboqs's
 * OQS_randombytes_custom_algorithm) gets the driver's. */
void KB_SET_RANDOM(void (*hook)(uint8_t *, size_t));
int PQCLEAN_randombytes(uint8_t *out, size_t n);
static void kb_hook(uint8_t *out, size_t n) { PQCLEAN_randombytes(out, n); }
#endif

/* The counted region's markers: the counting plugin watches their first instructions. */
__attribute__((noinline)) void kembench_region_begin(void) { __asm__ volatile("" ::: "memory"); }
__attribute__((noinline)) void kembench_region_end(void) { __asm__ volatile("" ::: "memory"); }

/* Random bytes: asked of kembench, recorded on a tape while `recording`, served from the tape
 * while `replaying`. */
#define TAPE_MAX (1u << 20)
static uint8_t tape[TAPE_MAX];
static size_t tape_len, tape_pos;
static int recording, replaying;

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static void die(const char *why) {
    fprintf(stderr, "kembench driver: %s\n", why);
    exit(2);
}

/* Reads exactly n bytes as hex from `p`, advancing it past them and one separator. */
static void unhex(const char **p, uint8_t *out, size_t n) {
    const char *s = *p;
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(s[2 * i]), lo = hi < 0 ? -1 : hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0) die("bad hex or wrong length in a command");
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    s += 2 * n;
    if (*s == ' ') s++;
    *p = s;
}

static void puthex(const uint8_t *b, size_t n) {
    static const char digits[] = "0123456789abcdef";
    putchar(' ');
    for (size_t i = 0; i < n; i++) {
        putchar(digits[b[i] >> 4]);
        putchar(digits[b[i] & 15]);
    }
}

static char *line;
static size_t line_cap;

static const char *next_line(void) {
    if (getline(&line, &line_cap, stdin) < 0) return NULL;
    line[strcspn(line, "\r\n")] = 0;
    return line;
}

int PQCLEAN_randombytes(uint8_t *out, size_t n) {
    if (replaying) {
        if (tape_pos + n > tape_len) die("the replay asked for more random bytes than recorded");
        memcpy(out, tape + tape_pos, n);
        tape_pos += n;
        return 0;
    }
    printf("r %zu\n", n);
    fflush(stdout);
    static char *rline;
    static size_t rcap;
    if (getline(&rline, &rcap, stdin) < 0) die("no random bytes came back");
    const char *p = rline;
    unhex(&p, out, n);
    if (recording) {
        if (tape_len + n > TAPE_MAX) die("more random bytes than the tape holds");
        memcpy(tape + tape_len, out, n);
        tape_len += n;
    }
    return 0;
}

/* NIST submission packages call randombytes() and randombytes_init(). */
int randombytes(unsigned char *out, unsigned long long n) { return PQCLEAN_randombytes(out, (size_t)n); }
void randombytes_init(unsigned char *e, unsigned char *p, int s) { (void)e; (void)p; (void)s; }

/* For kembench's tests only (-DKEMBENCH_TEST_BYTE_ORDER_BUG): a build that writes its
 * ciphertexts with each 16-bit word's bytes swapped on big-endian machines and reads them back
 * the same way (a consistent byte-order bug: its own round trips pass; known answers and
 * interoperability must not). Does nothing otherwise. */
static void test_byte_order_bug(uint8_t *c) {
#if defined(KEMBENCH_TEST_BYTE_ORDER_BUG) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    for (size_t i = 0; i + 1 < KB_CT_LEN; i += 2) {
        uint8_t t = c[i];
        c[i] = c[i + 1];
        c[i + 1] = t;
    }
#else
    (void)c;
#endif
}

static uint8_t pk[KB_PK_LEN], sk[KB_SK_LEN], ct[KB_CT_LEN], ss[KB_SS_LEN], seed[64];
static uint8_t pk2[KB_PK_LEN], sk2[KB_SK_LEN], ct2[KB_CT_LEN], ss2[KB_SS_LEN];

enum op { KEYPAIR, ENC, DEC, KEYPAIR_DERAND, ENC_DERAND };

static int call(enum op op, uint8_t *a, uint8_t *b) {
    switch (op) {
    case KEYPAIR: return KB_KEYPAIR(a, b);
    case ENC: return KB_ENC(a, b, pk);
    case DEC: return KB_DEC(a, ct, sk);
#ifdef KB_KEYPAIR_DERAND
    case KEYPAIR_DERAND: return KB_KEYPAIR_DERAND(a, b, seed);
#endif
#ifdef KB_ENC_DERAND
    case ENC_DERAND: return KB_ENC_DERAND(a, b, pk, seed);
#endif
    default: return -1000;
    }
}

int main(void) {
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
#ifdef KB_SET_RANDOM
    KB_SET_RANDOM(kb_hook);
#endif
    const char *l;
    while ((l = next_line()) != NULL) {
        int counted = 0;
        if (l[0] == 'm' && l[1] == ' ') {
            counted = 1;
            l += 2;
        }
        enum op op;
        uint8_t *a, *b, *a2, *b2;
        size_t alen, blen;
        const char *p;
        if (strcmp(l, "sizes") == 0) {
            int derand = 0;
#if defined(KB_KEYPAIR_DERAND) && defined(KB_ENC_DERAND)
            derand = 1;
#endif
            printf("ok %d %d %d %d %d\n", KB_PK_LEN, KB_SK_LEN, KB_CT_LEN, KB_SS_LEN, derand);
            fflush(stdout);
            continue;
        } else if (strcmp(l, "cpu") == 0) {
            unsigned long caps[2] = {getauxval(AT_HWCAP), getauxval(AT_HWCAP2)};
            const char *platform = (const char *)getauxval(AT_PLATFORM);
            fputs("ok ", stdout);
            for (int i = 0; i < 2; i++) {
                for (int s = 56; s >= 0; s -= 8) printf("%02x", (unsigned)((uint64_t)caps[i] >> s) & 0xffu);
                fputc(' ', stdout);
            }
            for (const char *c = platform ? platform : ""; *c; c++) printf("%02x", (unsigned char)*c);
            fputc('\n', stdout);
            fflush(stdout);
            continue;
        } else if (strcmp(l, "k") == 0) {
            op = KEYPAIR, a = pk, b = sk, a2 = pk2, b2 = sk2, alen = KB_PK_LEN, blen = KB_SK_LEN;
        } else if (l[0] == 'e' && l[1] == ' ') {
            p = l + 2;
            unhex(&p, pk, KB_PK_LEN);
            op = ENC, a = ct, b = ss, a2 = ct2, b2 = ss2, alen = KB_CT_LEN, blen = KB_SS_LEN;
        } else if (l[0] == 'd' && l[1] == ' ') {
            p = l + 2;
            unhex(&p, sk, KB_SK_LEN);
            unhex(&p, ct, KB_CT_LEN);
            test_byte_order_bug(ct);
            op = DEC, a = ss, b = NULL, a2 = ss2, b2 = NULL, alen = KB_SS_LEN, blen = 0;
        } else if (l[0] == 'k' && l[1] == 'd' && l[2] == ' ') {
            p = l + 3;
            unhex(&p, seed, 64);
            op = KEYPAIR_DERAND, a = pk, b = sk, a2 = pk2, b2 = sk2, alen = KB_PK_LEN, blen = KB_SK_LEN;
        } else if (l[0] == 'e' && l[1] == 'd' && l[2] == ' ') {
            p = l + 3;
            unhex(&p, pk, KB_PK_LEN);
            unhex(&p, seed, 32);
            op = ENC_DERAND, a = ct, b = ss, a2 = ct2, b2 = ss2, alen = KB_CT_LEN, blen = KB_SS_LEN;
        } else if (strcmp(l, "q") == 0) {
            return 0;
        } else {
            die("unknown command");
        }
        tape_len = tape_pos = 0;
        recording = counted;
        int rc = call(op, a, b);
        recording = 0;
        if (rc == -1000) {
            printf("unsupported\n");
            fflush(stdout);
            continue;
        }
        if (counted && rc == 0) {
            replaying = 1;
            kembench_region_begin();
            kembench_region_end();
            kembench_region_begin();
            int rc2 = call(op, a2, b2);
            kembench_region_end();
            replaying = 0;
            if (rc2 != rc || tape_pos != tape_len || memcmp(a, a2, alen) != 0 ||
                (blen && memcmp(b, b2, blen) != 0)) {
                printf("err replay\n");
                fflush(stdout);
                continue;
            }
        }
        if (rc == 0 && (op == ENC || op == ENC_DERAND)) test_byte_order_bug(ct);
        if (rc != 0) {
            printf("err %d\n", rc);
        } else {
            fputs("ok", stdout);
            puthex(a, alen);
            if (blen) puthex(b, blen);
            putchar('\n');
        }
        fflush(stdout);
    }
    return 0;
}
