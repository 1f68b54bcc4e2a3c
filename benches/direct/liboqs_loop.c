/* Direct loop over liboqs: OQS_KEM_keypair / OQS_KEM_encaps / OQS_KEM_decaps of one method,
 * called with nothing in between. Built by benches/direct.rs against the very liboqs.a (and
 * headers) that kembench links. Usage: liboqs_loop ALG OPS BLOCK_MS BLOCKS, e.g.
 * `liboqs_loop ML-KEM-768 keygen,encaps,decaps 40 3`.
 *
 * Inputs as kembench's pool has them: 16 key pairs, a ciphertext for each; keygen writes into
 * one pair of buffers, encapsulation uses the public keys in turn, decapsulation the
 * (secret key, ciphertext) pairs in turn. */
#include "loop.h"
#include <oqs/oqs.h>

typedef struct {
    OQS_KEM *kem;
    uint8_t *pk[POOL], *sk[POOL], *ct[POOL];
    uint8_t *pk_out, *sk_out, *ct_out, *ss;
} state;

static void keygen(void *s_, int i) {
    state *s = s_;
    (void)i;
    if (OQS_KEM_keypair(s->kem, s->pk_out, s->sk_out) != OQS_SUCCESS) die("keypair");
}

static void encaps(void *s_, int i) {
    state *s = s_;
    if (OQS_KEM_encaps(s->kem, s->ct_out, s->ss, s->pk[i]) != OQS_SUCCESS) die("encaps");
}

static void decaps(void *s_, int i) {
    state *s = s_;
    if (OQS_KEM_decaps(s->kem, s->ss, s->ct[i], s->sk[i]) != OQS_SUCCESS) die("decaps");
}

int main(int argc, char **argv) {
    const char *alg;
    char *ops;
    int block_ms, blocks;
    parse_args(argc, argv, &alg, &ops, &block_ms, &blocks);
    OQS_init();
    state s;
    s.kem = OQS_KEM_new(alg);
    if (!s.kem) die("OQS_KEM_new");
    size_t lp = s.kem->length_public_key, ls = s.kem->length_secret_key,
           lc = s.kem->length_ciphertext;
    for (int i = 0; i < POOL; i++) {
        s.pk[i] = malloc(lp);
        s.sk[i] = malloc(ls);
        s.ct[i] = malloc(lc);
        if (!s.pk[i] || !s.sk[i] || !s.ct[i]) die("malloc");
        if (OQS_KEM_keypair(s.kem, s.pk[i], s.sk[i]) != OQS_SUCCESS) die("keypair");
    }
    s.pk_out = malloc(lp);
    s.sk_out = malloc(ls);
    s.ct_out = malloc(lc);
    s.ss = malloc(s.kem->length_shared_secret);
    if (!s.pk_out || !s.sk_out || !s.ct_out || !s.ss) die("malloc");
    for (int i = 0; i < POOL; i++)
        if (OQS_KEM_encaps(s.kem, s.ct[i], s.ss, s.pk[i]) != OQS_SUCCESS) die("encaps");
    for (char *op = strtok(ops, ","); op; op = strtok(NULL, ",")) {
        op_fn f = !strcmp(op, "keygen")   ? keygen
                  : !strcmp(op, "encaps") ? encaps
                  : !strcmp(op, "decaps") ? decaps
                                          : NULL;
        if (!f) {
            fprintf(stderr, "liboqs_loop: no operation %s\n", op);
            return 2;
        }
        run_op("liboqs", alg, op, f, &s, block_ms, blocks);
    }
    return 0;
}
