/* Direct loop over OpenSSL 3's EVP API, as an OpenSSL server calls it: built by
 * benches/direct.rs against the very libcrypto.a (and headers) that kembench links.
 * Usage: openssl_loop ALG OPS BLOCK_MS BLOCKS, ALG one of ML-KEM-768, X25519MLKEM768, X25519,
 * P-256 (other ML-KEM sets, X448 and P-384/521 work too), OPS a comma-separated list of
 * keygen, encaps, decaps, sk-import, pk-import.
 *
 * What one call does:
 * - keygen: EVP_PKEY_generate on one key-generation context made once, the public key read
 *   out ("encoded-pub-key"), the key freed;
 * - encaps: the peer's public key parsed from bytes (EVP_PKEY_new_raw_public_key_ex, or
 *   EVP_PKEY_fromdata for P-curves), a context made for it, then EVP_PKEY_encapsulate; for key
 *   exchange an ephemeral key generated, its public key read out, and EVP_PKEY_derive with
 *   the parsed peer;
 * - decaps: EVP_PKEY_decapsulate on the kept key's context (EVP_PKEY kept from keygen, its
 *   context made once); for key exchange the peer's value parsed and EVP_PKEY_derive on the
 *   kept key's context;
 * - sk-import: the secret key rebuilt from bytes (EVP_PKEY_new_raw_private_key_ex, or
 *   EVP_PKEY_fromdata for P-curves) and freed; pk-import: the public-key parse alone.
 * A pool of 16 kept keys, public keys and ciphertexts is used in turn. */
#include "loop.h"
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

enum kind { KEM, ECX, EC };

typedef struct {
    enum kind kind;
    const char *name;  /* key type: ML-KEM-768, X25519, EC */
    const char *group; /* P-256 for EC */
    EVP_PKEY_CTX *gen;
    EVP_PKEY *key[POOL];
    EVP_PKEY_CTX *kctx[POOL];
    uint8_t *pk[POOL], *ct[POOL], *sk[POOL];
    size_t lp, lc, ls, lss;
    uint8_t *pk_out, *ct_out, *ss;
} state;

static void ossl_die(const char *what) {
    ERR_print_errors_fp(stderr);
    die(what);
}

static EVP_PKEY *fromdata(state *s, const char *field, const uint8_t *b, size_t n, int sel) {
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, s->name, NULL);
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    BIGNUM *bn = NULL;
    if (!ctx || !bld || EVP_PKEY_fromdata_init(ctx) <= 0) ossl_die("fromdata_init");
    OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, s->group, 0);
    if (sel == EVP_PKEY_PUBLIC_KEY) {
        OSSL_PARAM_BLD_push_octet_string(bld, field, b, n);
    } else {
        bn = BN_bin2bn(b, (int)n, NULL);
        OSSL_PARAM_BLD_push_BN(bld, field, bn);
    }
    OSSL_PARAM *p = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY *k = NULL;
    if (!p || EVP_PKEY_fromdata(ctx, &k, sel, p) <= 0) ossl_die("fromdata");
    OSSL_PARAM_free(p);
    OSSL_PARAM_BLD_free(bld);
    BN_free(bn);
    EVP_PKEY_CTX_free(ctx);
    return k;
}

static EVP_PKEY *public_key(state *s, const uint8_t *b, size_t n) {
    if (s->kind == EC) return fromdata(s, OSSL_PKEY_PARAM_PUB_KEY, b, n, EVP_PKEY_PUBLIC_KEY);
    EVP_PKEY *k = EVP_PKEY_new_raw_public_key_ex(NULL, s->name, NULL, b, n);
    if (!k) ossl_die("public key import");
    return k;
}

static EVP_PKEY *secret_key(state *s, const uint8_t *b, size_t n) {
    if (s->kind == EC) return fromdata(s, OSSL_PKEY_PARAM_PRIV_KEY, b, n, EVP_PKEY_KEYPAIR);
    EVP_PKEY *k = EVP_PKEY_new_raw_private_key_ex(NULL, s->name, NULL, b, n);
    if (!k) ossl_die("secret key import");
    return k;
}

static EVP_PKEY *generate(state *s, uint8_t *pk) {
    EVP_PKEY *k = NULL;
    size_t n = 0;
    if (EVP_PKEY_generate(s->gen, &k) <= 0) ossl_die("generate");
    if (EVP_PKEY_get_octet_string_param(k, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, pk, s->lp, &n) <=
            0 ||
        n != s->lp)
        ossl_die("encoded-pub-key");
    return k;
}

static void derive(EVP_PKEY_CTX *ctx, EVP_PKEY *peer, uint8_t *ss, size_t lss) {
    size_t n = lss;
    if (EVP_PKEY_derive_set_peer(ctx, peer) <= 0 || EVP_PKEY_derive(ctx, ss, &n) <= 0 ||
        n != lss)
        ossl_die("derive");
}

static void keygen(void *s_, int i) {
    state *s = s_;
    (void)i;
    EVP_PKEY_free(generate(s, s->pk_out));
}

static void encaps(void *s_, int i) {
    state *s = s_;
    EVP_PKEY *peer = public_key(s, s->pk[i], s->lp);
    if (s->kind == KEM) {
        EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(peer, NULL);
        size_t lc = s->lc, lss = s->lss;
        if (!ctx || EVP_PKEY_encapsulate_init(ctx, NULL) <= 0 ||
            EVP_PKEY_encapsulate(ctx, s->ct_out, &lc, s->ss, &lss) <= 0)
            ossl_die("encapsulate");
        EVP_PKEY_CTX_free(ctx);
    } else {
        EVP_PKEY *eph = generate(s, s->ct_out);
        EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(eph, NULL);
        if (!ctx || EVP_PKEY_derive_init(ctx) <= 0) ossl_die("derive_init");
        derive(ctx, peer, s->ss, s->lss);
        EVP_PKEY_CTX_free(ctx);
        EVP_PKEY_free(eph);
    }
    EVP_PKEY_free(peer);
}

static void decaps(void *s_, int i) {
    state *s = s_;
    if (s->kind == KEM) {
        size_t lss = s->lss;
        if (EVP_PKEY_decapsulate(s->kctx[i], s->ss, &lss, s->ct[i], s->lc) <= 0)
            ossl_die("decapsulate");
    } else {
        EVP_PKEY *peer = public_key(s, s->ct[i], s->lc);
        derive(s->kctx[i], peer, s->ss, s->lss);
        EVP_PKEY_free(peer);
    }
}

static void sk_import(void *s_, int i) {
    state *s = s_;
    EVP_PKEY_free(secret_key(s, s->sk[i], s->ls));
}

static void pk_import(void *s_, int i) {
    state *s = s_;
    EVP_PKEY_free(public_key(s, s->pk[i], s->lp));
}

static void setup(state *s, const char *alg) {
    memset(s, 0, sizeof *s);
    s->name = alg;
    if (!strncmp(alg, "ML-KEM-", 7) || !strcmp(alg, "X25519MLKEM768")) {
        s->kind = KEM;
    } else if (!strcmp(alg, "X25519") || !strcmp(alg, "X448")) {
        s->kind = ECX;
    } else if (!strncmp(alg, "P-", 2)) {
        s->kind = EC;
        s->name = "EC";
        s->group = alg;
    } else {
        fprintf(stderr, "openssl_loop: no algorithm %s\n", alg);
        exit(2);
    }
    s->gen = EVP_PKEY_CTX_new_from_name(NULL, s->name, NULL);
    if (!s->gen || EVP_PKEY_keygen_init(s->gen) <= 0) ossl_die("keygen_init");
    if (s->kind == EC) {
        OSSL_PARAM p[] = {OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)s->group, 0),
                          OSSL_PARAM_END};
        if (EVP_PKEY_CTX_set_params(s->gen, p) <= 0) ossl_die("group");
    }
    /* Sizes from a first key. */
    EVP_PKEY *k = NULL;
    if (EVP_PKEY_generate(s->gen, &k) <= 0) ossl_die("generate");
    if (EVP_PKEY_get_octet_string_param(k, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, NULL, 0, &s->lp) <=
        0)
        ossl_die("public key size");
    if (s->kind == KEM) {
        EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(k, NULL);
        if (!c || EVP_PKEY_encapsulate_init(c, NULL) <= 0 ||
            EVP_PKEY_encapsulate(c, NULL, &s->lc, NULL, &s->lss) <= 0)
            ossl_die("sizes");
        EVP_PKEY_CTX_free(c);
        if (EVP_PKEY_get_octet_string_param(k, OSSL_PKEY_PARAM_PRIV_KEY, NULL, 0, &s->ls) <= 0)
            s->ls = 0; /* no raw secret key: no sk-import */
    } else {
        s->lc = s->lp;
        s->lss = (size_t)(EVP_PKEY_get_bits(k) + 7) / 8;
        s->ls = s->kind == EC ? s->lss : s->lp;
    }
    EVP_PKEY_free(k);
    s->pk_out = malloc(s->lp);
    s->ct_out = malloc(s->lc);
    s->ss = malloc(s->lss);
    for (int i = 0; i < POOL; i++) {
        s->pk[i] = malloc(s->lp);
        s->ct[i] = malloc(s->lc);
        s->sk[i] = malloc(s->ls ? s->ls : 1);
        s->key[i] = generate(s, s->pk[i]);
        s->kctx[i] = EVP_PKEY_CTX_new(s->key[i], NULL);
        if (!s->kctx[i]) ossl_die("context");
        if (s->kind == KEM) {
            size_t lc = s->lc, lss = s->lss;
            EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(s->key[i], NULL);
            if (!c || EVP_PKEY_encapsulate_init(c, NULL) <= 0 ||
                EVP_PKEY_encapsulate(c, s->ct[i], &lc, s->ss, &lss) <= 0)
                ossl_die("encapsulate");
            EVP_PKEY_CTX_free(c);
            if (EVP_PKEY_decapsulate_init(s->kctx[i], NULL) <= 0) ossl_die("decapsulate_init");
        } else {
            EVP_PKEY_free(generate(s, s->ct[i]));
            if (EVP_PKEY_derive_init(s->kctx[i]) <= 0) ossl_die("derive_init");
        }
        if (s->kind == EC) {
            BIGNUM *bn = NULL;
            if (EVP_PKEY_get_bn_param(s->key[i], OSSL_PKEY_PARAM_PRIV_KEY, &bn) <= 0 ||
                BN_bn2binpad(bn, s->sk[i], (int)s->ls) != (int)s->ls)
                ossl_die("priv");
            BN_free(bn);
        } else if (s->ls) {
            size_t n = 0;
            if (EVP_PKEY_get_octet_string_param(s->key[i], OSSL_PKEY_PARAM_PRIV_KEY, s->sk[i],
                                                s->ls, &n) <= 0)
                ossl_die("priv");
        }
    }
}

int main(int argc, char **argv) {
    const char *alg;
    char *ops;
    int block_ms, blocks;
    parse_args(argc, argv, &alg, &ops, &block_ms, &blocks);
    state s;
    setup(&s, alg);
    for (char *op = strtok(ops, ","); op; op = strtok(NULL, ",")) {
        op_fn f = !strcmp(op, "keygen")      ? keygen
                  : !strcmp(op, "encaps")    ? encaps
                  : !strcmp(op, "decaps")    ? decaps
                  : !strcmp(op, "sk-import") ? (s.ls ? sk_import : NULL)
                  : !strcmp(op, "pk-import") ? pk_import
                                             : NULL;
        if (!f) {
            printf("direct impl=openssl alg=%s op=%s unsupported\n", alg, op);
            continue;
        }
        run_op("openssl", alg, op, f, &s, block_ms, blocks);
    }
    return 0;
}
