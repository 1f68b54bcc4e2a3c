//! OpenSSL's KEMs and key exchanges through its EVP API, on whichever OpenSSL the `openssl`
//! crate links: the vendored 3.6 in kembench's own process (`providers::openssl`), 4.0.3 in the
//! library of `workers/tls-openssl4` (`providers::openssl4` opens it).
//!
//! KEMs (ML-KEM, X25519MLKEM768) go through `EVP_PKEY_encapsulate`/`EVP_PKEY_decapsulate`,
//! which the safe crate does not wrap; key exchange (X25519, X448, P-256/384/521,
//! ffdhe2048/3072/4096) goes through `EVP_PKEY_derive` in the DHKEM model. Finite-field DH pads
//! the shared secret to the modulus length, as TLS 1.3 requires. ML-KEM key generation from a
//! seed (`seed` parameter) and encapsulation from a given message (`ikme`) give the
//! derandomized operations; for `profile`, every other draw can be switched to the seeded
//! stream ([`Kem::fix_randomness`], through OpenSSL's random provider).
//!
//! # What one timed call does (what an OpenSSL application does, and no more)
//!
//! - keygen: `EVP_PKEY_generate` on a key-generation context that is made once (fetch, init,
//!   group parameters) and reused, as a server reuses one per thread; then the public key is
//!   read out with `EVP_PKEY_get_octet_string_param("encoded-pub-key")`. The `EVP_PKEY` is
//!   kept; its secret is not exported.
//! - encaps: the peer's public key is imported from bytes (`EVP_PKEY_new_raw_public_key_ex`,
//!   or `EVP_PKEY_fromdata` for P-curves and DH), a context is made for it and initialised
//!   (this fetches the KEM or key-exchange method: OpenSSL binds a context to one key, so a
//!   new peer key needs a new context), then `EVP_PKEY_encapsulate`, or ephemeral keygen as
//!   above and `EVP_PKEY_derive` with the peer checked by `EVP_PKEY_derive_set_peer`.
//! - decaps: on the kept key's own context, made and initialised at its first use and kept
//!   with the key: `EVP_PKEY_decapsulate`, or `EVP_PKEY_derive_set_peer` with the imported
//!   peer value and `EVP_PKEY_derive`.
//! - sk-import: `EVP_PKEY_new_raw_private_key_ex` (ML-KEM: OpenSSL's import runs a pairwise
//!   self-test and expands the matrix; X25519: recomputes the public key) or `EVP_PKEY_fromdata`
//!   (P-curves, DH), and freeing the key. A key loaded from storage pays this once.
//! - pk-import: the public-key import of encaps alone, and freeing the key.

use crate::kem::{ImplMeta, Imports, Kem, KemError, Randomness, SecretKey, SeedLens};
use openssl_sys as ffi;
use std::ffi::{c_int, CStr};
use std::ptr;

/// How one algorithm is reached in OpenSSL.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// A KEM key type (`ML-KEM-768`, `X25519MLKEM768`); `seeded` when it takes seeds;
    /// `secret_bytes` when OpenSSL can export and import its private key as bytes (3.6 cannot
    /// for SecP256r1MLKEM768: its P-256 part is a BIGNUM parameter that the hybrid's raw-key
    /// code copies as an octet string).
    Kem {
        name: &'static CStr,
        seeded: bool,
        secret_bytes: bool,
    },
    /// An ECX key type with raw keys (`X25519`, `X448`).
    Ecx(&'static CStr),
    /// A named prime curve (`P-256`).
    Ec(&'static CStr),
    /// A named finite-field group (`ffdhe2048`).
    Dh(&'static CStr),
}

/// `EVP_PKEY_new_raw_public_key_ex` or `EVP_PKEY_new_raw_private_key_ex` (one signature).
type NewRawKey = unsafe extern "C" fn(
    *mut ffi::OSSL_LIB_CTX,
    *const std::ffi::c_char,
    *const std::ffi::c_char,
    *const std::ffi::c_uchar,
    usize,
) -> *mut ffi::EVP_PKEY;

/// A key of type `name` imported from its raw bytes by `new` (OpenSSL's raw public- or
/// secret-key import); refused as `what` when OpenSSL returns no key.
#[inline]
fn raw_key(new: NewRawKey, name: &CStr, bytes: &[u8], what: &str) -> Result<Pkey, KemError> {
    // SAFETY: valid name and buffer; `new` is one of OpenSSL's raw-key constructors.
    let p = unsafe {
        new(
            ptr::null_mut(),
            name.as_ptr(),
            ptr::null(),
            bytes.as_ptr(),
            bytes.len(),
        )
    };
    if p.is_null() {
        Err(KemError::Rejected(format!("{}", ossl_error(what))))
    } else {
        Ok(Pkey(p))
    }
}

/// The most recent OpenSSL error as text (clears the queue).
fn ossl_error(what: &str) -> KemError {
    // SAFETY: ERR_* functions read and clear this thread's error queue.
    let code = unsafe { ffi::ERR_get_error() };
    let detail = if code == 0 {
        String::new()
    } else {
        // SAFETY: returns a static string or null.
        let r = unsafe { ffi::ERR_reason_error_string(code) };
        if r.is_null() {
            format!("(error 0x{code:x})")
        } else {
            // SAFETY: non-null static C string.
            format!("({})", unsafe { CStr::from_ptr(r) }.to_string_lossy())
        }
    };
    // SAFETY: clearing the rest of the queue has no preconditions.
    unsafe { ffi::ERR_clear_error() };
    KemError::Failure(
        format!("OpenSSL {what} failed {detail}")
            .trim_end()
            .to_string(),
    )
}

fn ok(rc: c_int, what: &str) -> Result<(), KemError> {
    if rc > 0 {
        Ok(())
    } else {
        Err(ossl_error(what))
    }
}

/// An owned `EVP_PKEY`.
struct Pkey(*mut ffi::EVP_PKEY);
impl Drop for Pkey {
    fn drop(&mut self) {
        // SAFETY: owned, freed once.
        unsafe { ffi::EVP_PKEY_free(self.0) }
    }
}

/// An owned `EVP_PKEY_CTX`.
struct Ctx(*mut ffi::EVP_PKEY_CTX);
impl Drop for Ctx {
    fn drop(&mut self) {
        // SAFETY: owned, freed once.
        unsafe { ffi::EVP_PKEY_CTX_free(self.0) }
    }
}

impl Ctx {
    fn from_name(name: &CStr) -> Result<Ctx, KemError> {
        // SAFETY: default library context, valid C string.
        let p =
            unsafe { ffi::EVP_PKEY_CTX_new_from_name(ptr::null_mut(), name.as_ptr(), ptr::null()) };
        if p.is_null() {
            Err(ossl_error("EVP_PKEY_CTX_new_from_name"))
        } else {
            Ok(Ctx(p))
        }
    }

    fn from_key(key: &Pkey) -> Result<Ctx, KemError> {
        // SAFETY: a valid key; the context takes its own reference.
        let p = unsafe { ffi::EVP_PKEY_CTX_new(key.0, ptr::null_mut()) };
        if p.is_null() {
            Err(ossl_error("EVP_PKEY_CTX_new"))
        } else {
            Ok(Ctx(p))
        }
    }
}

/// A kept key: the `EVP_PKEY` and, from its first decapsulation or derivation on, the
/// context initialised for it, reused by every later call (OpenSSL allows repeated
/// `EVP_PKEY_decapsulate` and `EVP_PKEY_derive_set_peer` + `EVP_PKEY_derive` on one context).
struct Kept {
    key: Pkey,
    ctx: Option<Ctx>,
}

// SAFETY: the key and its context are owned by this value and used by one thread at a time
// (`&mut` access); OpenSSL objects may move between threads.
unsafe impl Send for Kept {}

/// Key-generation contexts made once and reused; a mutex-guarded stack so that throughput
/// threads each take their own (an uncontended lock costs tens of nanoseconds).
#[derive(Default)]
struct GenPool(std::sync::Mutex<Vec<Ctx>>);

// SAFETY: each context in the pool is used by one thread at a time (taken out, then returned).
unsafe impl Send for Ctx {}

/// An `OSSL_PARAM` array built with `OSSL_PARAM_BLD`.
struct Params {
    bld: *mut ffi::OSSL_PARAM_BLD,
    params: *mut ffi::OSSL_PARAM,
    bns: Vec<*mut ffi::BIGNUM>,
}

impl Drop for Params {
    fn drop(&mut self) {
        // SAFETY: each pointer is owned here and freed once (null is accepted).
        unsafe {
            ffi::OSSL_PARAM_free(self.params);
            ffi::OSSL_PARAM_BLD_free(self.bld);
            for bn in &self.bns {
                ffi::BN_free(*bn);
            }
        }
    }
}

impl Params {
    fn new() -> Params {
        Params {
            // SAFETY: no preconditions.
            bld: unsafe { ffi::OSSL_PARAM_BLD_new() },
            params: ptr::null_mut(),
            bns: Vec::new(),
        }
    }

    fn utf8(self, key: &CStr, value: &CStr) -> Self {
        // SAFETY: both strings outlive the builder (they are 'static or held by the caller).
        unsafe { ffi::OSSL_PARAM_BLD_push_utf8_string(self.bld, key.as_ptr(), value.as_ptr(), 0) };
        self
    }

    fn octets(self, key: &CStr, value: &[u8]) -> Self {
        // SAFETY: the builder copies the bytes when the array is built, before `value` is gone.
        unsafe {
            ffi::OSSL_PARAM_BLD_push_octet_string(
                self.bld,
                key.as_ptr(),
                value.as_ptr().cast(),
                value.len(),
            )
        };
        self
    }

    fn bn(mut self, key: &CStr, be: &[u8]) -> Self {
        // SAFETY: BN_bin2bn copies the big-endian bytes into a new BIGNUM owned by `self`.
        let bn = unsafe { ffi::BN_bin2bn(be.as_ptr(), be.len() as c_int, ptr::null_mut()) };
        self.bns.push(bn);
        // SAFETY: `bn` lives until `self` is dropped.
        unsafe { ffi::OSSL_PARAM_BLD_push_BN(self.bld, key.as_ptr(), bn) };
        self
    }

    fn uint(self, key: &CStr, v: u32) -> Self {
        // SAFETY: the value is copied.
        unsafe { ffi::OSSL_PARAM_BLD_push_uint(self.bld, key.as_ptr(), v) };
        self
    }

    fn build(mut self) -> Result<Self, KemError> {
        // SAFETY: the builder was filled above.
        self.params = unsafe { ffi::OSSL_PARAM_BLD_to_param(self.bld) };
        if self.params.is_null() {
            Err(ossl_error("OSSL_PARAM_BLD_to_param"))
        } else {
            Ok(self)
        }
    }
}

/// One algorithm through OpenSSL.
pub struct OpenSsl {
    meta: ImplMeta,
    kind: Kind,
    gen: GenPool,
}

// SAFETY: the struct holds static names and the pool of key-generation contexts, each used
// by one thread at a time behind the pool's mutex.
unsafe impl Send for OpenSsl {}
// SAFETY: see Send.
unsafe impl Sync for OpenSsl {}

const EC: &CStr = c"EC";
const DH: &CStr = c"DH";

impl OpenSsl {
    /// Whether this key type's private key can be exported and imported as bytes.
    fn secret_bytes(&self) -> bool {
        !matches!(
            self.kind,
            Kind::Kem {
                secret_bytes: false,
                ..
            }
        )
    }

    /// Refuses byte-level secret-key operations where OpenSSL has none.
    fn need_secret_bytes(&self) -> Result<(), KemError> {
        if self.secret_bytes() {
            Ok(())
        } else {
            Err(KemError::Unsupported)
        }
    }

    fn type_name(&self) -> &'static CStr {
        match self.kind {
            Kind::Kem { name, .. } | Kind::Ecx(name) => name,
            Kind::Ec(_) => EC,
            Kind::Dh(_) => DH,
        }
    }

    /// A key from a reused key-generation context (random keys), or from a fresh one (seeds).
    fn generate(&self, seed: Option<&[u8]>) -> Result<Pkey, KemError> {
        if seed.is_some() {
            return self.generate_with(&self.gen_ctx(seed)?);
        }
        let ctx = self.gen.0.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let ctx = match ctx {
            Some(c) => c,
            None => self.gen_ctx(None)?,
        };
        let key = self.generate_with(&ctx);
        self.gen
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(ctx);
        key
    }

    fn generate_with(&self, ctx: &Ctx) -> Result<Pkey, KemError> {
        let mut key = ptr::null_mut();
        // SAFETY: an initialised key-generation context; OpenSSL allocates the key.
        ok(unsafe { ffi::EVP_PKEY_generate(ctx.0, &mut key) }, "keygen")?;
        Ok(Pkey(key))
    }

    /// A key-generation context: fetched by name, initialised, with the group or seed set.
    fn gen_ctx(&self, seed: Option<&[u8]>) -> Result<Ctx, KemError> {
        let ctx = Ctx::from_name(self.type_name())?;
        // SAFETY: a fresh context.
        ok(unsafe { ffi::EVP_PKEY_keygen_init(ctx.0) }, "keygen_init")?;
        let params = match (self.kind, seed) {
            (Kind::Ec(g) | Kind::Dh(g), _) => Some(Params::new().utf8(c"group", g).build()?),
            (Kind::Kem { .. }, Some(s)) => Some(Params::new().octets(c"seed", s).build()?),
            _ => None,
        };
        if let Some(p) = &params {
            ok(
                // SAFETY: a built parameter array.
                unsafe { ffi::EVP_PKEY_CTX_set_params(ctx.0, p.params) },
                "set keygen params",
            )?;
        }
        Ok(ctx)
    }

    /// A key imported from `params` (`EVP_PKEY_fromdata`); any failure is the key refused.
    fn import(&self, params: Params, selection: c_int) -> Result<Pkey, KemError> {
        self.fromdata(params, selection)
            .map_err(|e| KemError::Rejected(e.to_string()))
    }

    fn fromdata(&self, params: Params, selection: c_int) -> Result<Pkey, KemError> {
        let ctx = Ctx::from_name(self.type_name())?;
        ok(
            // SAFETY: a fresh context and a built parameter array.
            unsafe { ffi::EVP_PKEY_fromdata_init(ctx.0) },
            "fromdata_init",
        )?;
        let mut key = ptr::null_mut();
        ok(
            // SAFETY: as above.
            unsafe { ffi::EVP_PKEY_fromdata(ctx.0, &mut key, selection, params.params) },
            "key import",
        )?;
        Ok(Pkey(key))
    }

    fn public_key(&self, bytes: &[u8]) -> Result<Pkey, KemError> {
        match self.kind {
            Kind::Kem { name, .. } | Kind::Ecx(name) => raw_key(
                ffi::EVP_PKEY_new_raw_public_key_ex,
                name,
                bytes,
                "public key import",
            ),
            Kind::Ec(g) => self.import(
                Params::new()
                    .utf8(c"group", g)
                    .octets(c"pub", bytes)
                    .build()?,
                ffi::EVP_PKEY_PUBLIC_KEY,
            ),
            Kind::Dh(g) => self.import(
                Params::new().utf8(c"group", g).bn(c"pub", bytes).build()?,
                ffi::EVP_PKEY_PUBLIC_KEY,
            ),
        }
    }

    fn secret_key(&self, bytes: &[u8]) -> Result<Pkey, KemError> {
        match self.kind {
            Kind::Kem { name, .. } | Kind::Ecx(name) => raw_key(
                ffi::EVP_PKEY_new_raw_private_key_ex,
                name,
                bytes,
                "secret key import",
            ),
            Kind::Ec(g) | Kind::Dh(g) => self.import(
                Params::new().utf8(c"group", g).bn(c"priv", bytes).build()?,
                ffi::EVP_PKEY_KEYPAIR,
            ),
        }
    }

    fn export(&self, key: &Pkey, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
        octet_param(key, c"encoded-pub-key", pk)?;
        self.export_secret(key, sk)
    }

    fn export_secret(&self, key: &Pkey, sk: &mut [u8]) -> Result<(), KemError> {
        match self.kind {
            Kind::Kem { .. } | Kind::Ecx(_) => octet_param(key, c"priv", sk),
            Kind::Ec(_) | Kind::Dh(_) => {
                let mut bn = ptr::null_mut();
                ok(
                    // SAFETY: OpenSSL allocates the BIGNUM, freed below.
                    unsafe { ffi::EVP_PKEY_get_bn_param(key.0, c"priv".as_ptr(), &mut bn) },
                    "get priv",
                )?;
                // SAFETY: `bn` is valid; the buffer has `sk.len()` bytes.
                let n = unsafe { ffi::BN_bn2binpad(bn, sk.as_mut_ptr(), sk.len() as c_int) };
                // SAFETY: owned here.
                unsafe { ffi::BN_free(bn) };
                if n as usize == sk.len() {
                    Ok(())
                } else {
                    Err(KemError::Failure(
                        "private value longer than the catalog's".into(),
                    ))
                }
            }
        }
    }

    /// A context over `key` initialised for its one private-key operation: decapsulation for
    /// KEMs, derivation (with DH padding) for key exchange.
    fn private_ctx(&self, key: &Pkey) -> Result<Ctx, KemError> {
        let ctx = Ctx::from_key(key)?;
        match self.kind {
            Kind::Kem { .. } => ok(
                // SAFETY: a fresh context over a private key.
                unsafe { ffi::EVP_PKEY_decapsulate_init(ctx.0, ptr::null()) },
                "decapsulate_init",
            )?,
            // SAFETY: a fresh context over a private key.
            _ => ok(unsafe { ffi::EVP_PKEY_derive_init(ctx.0) }, "derive_init")?,
        }
        if let Kind::Dh(_) = self.kind {
            let p = Params::new().uint(c"pad", 1).build()?;
            ok(
                // SAFETY: a built parameter array.
                unsafe { ffi::EVP_PKEY_CTX_set_params(ctx.0, p.params) },
                "set DH padding",
            )?;
        }
        Ok(ctx)
    }

    /// The private-key operation on a context from [`private_ctx`](Self::private_ctx):
    /// decapsulates `ct`, or derives with the peer value `ct` (imported and checked here).
    fn private_op(&self, ctx: &Ctx, ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
        if let Kind::Kem { .. } = self.kind {
            let mut slen = ss.len();
            ok(
                // SAFETY: `ss` is writable for `slen` bytes; `ct` is readable for its length.
                unsafe {
                    ffi::EVP_PKEY_decapsulate(
                        ctx.0,
                        ss.as_mut_ptr(),
                        &mut slen,
                        ct.as_ptr(),
                        ct.len(),
                    )
                },
                "decapsulate",
            )?;
            return expect_len("shared secret", slen, ss.len());
        }
        let peer = self.public_key(ct)?;
        self.derive_on(ctx, &peer, ss)
    }

    fn derive_on(&self, ctx: &Ctx, peer: &Pkey, ss: &mut [u8]) -> Result<(), KemError> {
        ok(
            // SAFETY: a valid peer key of the same type; the context takes its own reference
            // and releases the previous peer.
            unsafe { ffi::EVP_PKEY_derive_set_peer(ctx.0, peer.0) },
            "derive_set_peer",
        )
        .map_err(|e| KemError::Rejected(e.to_string()))?;
        let mut len = ss.len();
        ok(
            // SAFETY: `ss` is writable for `len` bytes.
            unsafe { ffi::EVP_PKEY_derive(ctx.0, ss.as_mut_ptr(), &mut len) },
            "derive",
        )?;
        expect_len("shared secret", len, ss.len())
    }

    fn encapsulate(
        &self,
        pk: &[u8],
        ikme: Option<&[u8]>,
        ct: &mut [u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        let key = self.public_key(pk)?;
        let ctx = Ctx::from_key(&key)?;
        let params = ikme
            .map(|m| Params::new().octets(c"ikme", m).build())
            .transpose()?;
        let pp = params
            .as_ref()
            .map_or(ptr::null(), |p| p.params.cast_const());
        ok(
            // SAFETY: a fresh context; `pp` is null or a built parameter array.
            unsafe { ffi::EVP_PKEY_encapsulate_init(ctx.0, pp) },
            "encapsulate_init",
        )?;
        let (mut clen, mut slen) = (ct.len(), ss.len());
        ok(
            // SAFETY: both buffers are writable for the lengths passed.
            unsafe {
                ffi::EVP_PKEY_encapsulate(
                    ctx.0,
                    ct.as_mut_ptr(),
                    &mut clen,
                    ss.as_mut_ptr(),
                    &mut slen,
                )
            },
            "encapsulate",
        )?;
        expect_len("ciphertext", clen, ct.len())?;
        expect_len("shared secret", slen, ss.len())
    }
}

fn expect_len(what: &str, got: usize, want: usize) -> Result<(), KemError> {
    if got == want {
        Ok(())
    } else {
        Err(KemError::Failure(format!(
            "OpenSSL wrote {got} bytes of {what}, expected {want}"
        )))
    }
}

fn octet_param(key: &Pkey, name: &CStr, out: &mut [u8]) -> Result<(), KemError> {
    let mut len = 0usize;
    ok(
        // SAFETY: `out` is writable for its length; OpenSSL writes at most that and reports the size.
        unsafe {
            ffi::EVP_PKEY_get_octet_string_param(
                key.0,
                name.as_ptr(),
                out.as_mut_ptr(),
                out.len(),
                &mut len,
            )
        },
        "get key parameter",
    )?;
    expect_len(&name.to_string_lossy(), len, out.len())
}

impl Kem for OpenSsl {
    fn meta(&self) -> &ImplMeta {
        &self.meta
    }

    fn keypair_raw(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
        self.need_secret_bytes()?;
        let key = self.generate(None)?;
        self.export(&key, pk, sk)
    }

    fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
        if let Kind::Kem { .. } = self.kind {
            return self.encapsulate(pk, None, ct, ss);
        }
        let peer = self.public_key(pk)?;
        let eph = self.generate(None)?;
        octet_param(&eph, c"encoded-pub-key", ct)?;
        self.derive_on(&self.private_ctx(&eph)?, &peer, ss)
    }

    fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
        self.need_secret_bytes()?;
        let key = self.secret_key(sk)?;
        self.private_op(&self.private_ctx(&key)?, ct, ss)
    }

    fn keypair_kept_raw(&self, pk: &mut [u8]) -> Result<SecretKey, KemError> {
        let key = self.generate(None)?;
        octet_param(&key, c"encoded-pub-key", pk)?;
        Ok(SecretKey::new(Kept { key, ctx: None }))
    }

    fn decaps_kept_raw(
        &self,
        sk: &mut SecretKey,
        ct: &[u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        let Kept { key, ctx } = sk.get_mut::<Kept>()?;
        let ctx = match ctx {
            Some(c) => c,
            slot @ None => slot.insert(self.private_ctx(key)?),
        };
        self.private_op(ctx, ct, ss)
    }

    fn sk_import_raw(&self, sk: &[u8]) -> Result<SecretKey, KemError> {
        self.need_secret_bytes()?;
        let key = self.secret_key(sk)?;
        Ok(SecretKey::new(Kept { key, ctx: None }))
    }

    fn sk_export_raw(&self, sk: &SecretKey, out: &mut [u8]) -> Result<(), KemError> {
        self.need_secret_bytes()?;
        self.export_secret(&sk.get::<Kept>()?.key, out)
    }

    fn pk_import_raw(&self, pk: &[u8]) -> Result<(), KemError> {
        self.public_key(pk).map(drop)
    }

    fn imports(&self) -> Imports {
        Imports {
            secret_key: self.secret_bytes(),
            public_key: true,
        }
    }

    fn seed_lens(&self) -> SeedLens {
        match self.kind {
            Kind::Kem { seeded: true, .. } => SeedLens::ML_KEM,
            _ => SeedLens::NONE,
        }
    }

    fn fix_randomness(&self, seed: &[u8; 32]) -> Randomness {
        match random::fix(seed) {
            Ok(()) => Randomness::Fixed(
                "OpenSSL's random provider (RAND_set1_random_provider, process-global) set to a \
                 built-in provider that answers from kembench's seeded ChaCha20 stream: every \
                 RAND_bytes_ex / RAND_priv_bytes_ex of keygen, encaps and decaps (keys, \
                 ephemeral keys, EC blinding) instead of the DRBG"
                    .into(),
            ),
            Err(e) => Randomness::NotFixed(format!("OpenSSL refused the seeded provider: {e}")),
        }
    }

    fn keypair_derand_raw(
        &self,
        seed: &[u8],
        pk: &mut [u8],
        sk: &mut [u8],
    ) -> Result<(), KemError> {
        let key = self.generate(Some(seed))?;
        self.export(&key, pk, sk)
    }

    fn encaps_derand_raw(
        &self,
        pk: &[u8],
        seed: &[u8],
        ct: &mut [u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        self.encapsulate(pk, Some(seed), ct, ss)
    }
}

pub mod abi;
mod random;

pub use random::{set_source, Source};

/// The OpenSSL library's own version line, e.g. `OpenSSL 3.6.0 1 Oct 2025`.
pub fn library_version() -> String {
    // SAFETY: OpenSSL_version returns a static string.
    unsafe { CStr::from_ptr(ffi::OpenSSL_version(0)) }
        .to_string_lossy()
        .into_owned()
}

/// What one algorithm of the table offers apart from its operations, known without calling
/// OpenSSL (for a library not loaded yet).
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// The catalog's algorithm name.
    pub algorithm: &'static str,
    /// Its import steps.
    pub imports: Imports,
    /// Its derandomized operations.
    pub seed_lens: SeedLens,
}

/// Every algorithm of the table, in its order.
pub fn specs() -> Vec<Spec> {
    table()
        .iter()
        .map(|(algorithm, kind)| {
            let k = OpenSsl {
                meta: ImplMeta::new(algorithm, "openssl", "", ""),
                kind: *kind,
                gen: GenPool::default(),
            };
            Spec {
                algorithm,
                imports: k.imports(),
                seed_lens: k.seed_lens(),
            }
        })
        .collect()
}

/// Every algorithm of the table as implementation `implementation` of the OpenSSL linked,
/// whose version the record gives as `version`.
pub fn implementations(implementation: &str, version: &str) -> Vec<Box<dyn Kem>> {
    table()
        .iter()
        .map(|(name, kind)| {
            Box::new(OpenSsl {
                meta: ImplMeta::new(name, implementation, version, "run-time CPU dispatch"),
                kind: *kind,
                gen: GenPool::default(),
            }) as Box<dyn Kem>
        })
        .collect()
}

/// The algorithms and how each is reached.
fn table() -> [(&'static str, Kind); 13] {
    [
        (
            "ML-KEM-512",
            Kind::Kem {
                name: c"ML-KEM-512",
                seeded: true,
                secret_bytes: true,
            },
        ),
        (
            "ML-KEM-768",
            Kind::Kem {
                name: c"ML-KEM-768",
                seeded: true,
                secret_bytes: true,
            },
        ),
        (
            "ML-KEM-1024",
            Kind::Kem {
                name: c"ML-KEM-1024",
                seeded: true,
                secret_bytes: true,
            },
        ),
        (
            "X25519MLKEM768",
            Kind::Kem {
                name: c"X25519MLKEM768",
                seeded: false,
                secret_bytes: true,
            },
        ),
        (
            "SecP256r1MLKEM768",
            Kind::Kem {
                name: c"SecP256r1MLKEM768",
                seeded: false,
                secret_bytes: false,
            },
        ),
        ("X25519", Kind::Ecx(c"X25519")),
        ("X448", Kind::Ecx(c"X448")),
        ("P-256", Kind::Ec(c"P-256")),
        ("P-384", Kind::Ec(c"P-384")),
        ("P-521", Kind::Ec(c"P-521")),
        ("ffdhe2048", Kind::Dh(c"ffdhe2048")),
        ("ffdhe3072", Kind::Dh(c"ffdhe3072")),
        ("ffdhe4096", Kind::Dh(c"ffdhe4096")),
    ]
}
