//! `openssl`: OpenSSL's own verification, `X509_verify_cert`.
//!
//! Roots: an `X509Store` built from the DER roots. Chain creation: DER → `X509` for the leaf
//! and a `Stack<X509>` of the untrusted intermediates. Verify: an `X509_STORE_CTX` over the
//! store and that stack, with this verification's parameters set on the context (never on
//! the shared store), as the x509-limbo OpenSSL harness sets them: validation time
//! (`X509_VERIFY_PARAM_set_time`, or `X509_V_FLAG_NO_CHECK_TIME` when none is given), the
//! purpose of the requested EKU (TLS server for a browser), the peer name
//! (`X509_VERIFY_PARAM_set1_host` with `X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS`, `set1_ip`,
//! `set1_email`), `X509_V_FLAG_X509_STRICT` (by default), `X509_V_FLAG_PARTIAL_CHAIN` (every
//! trusted certificate is an anchor, as in webpki), authentication level 2 (112-bit keys and
//! signatures, what Debian's libssl uses in a handshake), the depth limit, and CRLs
//! (`X509_STORE_CTX_set0_crls` with `X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL`).
//! OpenSSL checks the name inside `X509_verify_cert`, so this method records no separate
//! `verify-hostname` stage.

use certbench_schema::Stage;
use openssl::stack::Stack;
use openssl::x509::store::{X509Store, X509StoreBuilder};
use openssl::x509::verify::{X509CheckFlags, X509VerifyFlags};
use openssl::x509::{X509, X509Crl, X509PurposeId, X509StoreContext, X509StoreContextRef};
use rustls_pki_types::CertificateDer;

use crate::chain::Chain;
use crate::error::Error;
use crate::ffi::ossl;
use crate::stages::Recorder;
use crate::verifier::{Capabilities, Eku, Library, PeerName, Rejection, Target, Verifier};

/// OpenSSL's `X509_verify_cert`.
#[derive(Clone, Debug)]
pub struct OpenSslVerifier {
    /// Set `X509_V_FLAG_X509_STRICT` (default: true, as the x509-limbo OpenSSL harness does).
    pub strict: bool,
}

impl Default for OpenSslVerifier {
    fn default() -> Self {
        OpenSslVerifier { strict: true }
    }
}

/// An OpenSSL trust store.
pub struct OpenSslRoots(pub X509Store);

impl Verifier for OpenSslVerifier {
    type Roots = OpenSslRoots;

    fn library(&self) -> Library {
        Library {
            name: "OpenSSL",
            version: crate::versions::openssl(),
            limbo_harness: Some("openssl-"),
        }
    }

    /// Everything, and ML-DSA from OpenSSL 3.5 on (the release that added it): the system's
    /// OpenSSL 3.0 does not know ML-DSA; the builds of `scripts/openssl-matrix` may.
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            ml_dsa: openssl::version::number() >= 0x3050_0000,
            ..Capabilities::ALL
        }
    }

    fn build_roots(&self, roots: &[CertificateDer<'static>]) -> Result<OpenSslRoots, Error> {
        let mut builder = X509StoreBuilder::new()?;
        for der in roots {
            builder.add_cert(X509::from_der(der)?)?;
        }
        Ok(OpenSslRoots(builder.build()))
    }

    fn verify(
        &self,
        roots: &OpenSslRoots,
        chain: &Chain,
        target: Target<'_>,
        rec: &mut Recorder,
    ) -> Result<(), Rejection> {
        let span = rec.start();
        let parsed = to_x509(chain);
        let crls = target
            .crls
            .iter()
            .map(|der| X509Crl::from_der(der))
            .collect::<Result<Vec<_>, _>>();
        rec.stop(Stage::ChainCreation, span);
        let (leaf, untrusted) = parsed.map_err(|e| Rejection::new(format!("bad chain: {e}")))?;
        let crls = crls.map_err(|e| Rejection::new(format!("bad CRL: {e}")))?;

        let span = rec.start();
        let result = self.verify_x509_with_crls(&roots.0, &leaf, &untrusted, &crls, target);
        rec.stop(Stage::Verify, span);
        result
    }
}

impl OpenSslVerifier {
    /// Verifies parsed certificates (the handshake-hook path of the driver reuses this).
    pub fn verify_x509(
        &self,
        store: &X509Store,
        leaf: &X509,
        untrusted: &Stack<X509>,
        target: Target<'_>,
    ) -> Result<(), Rejection> {
        self.verify_x509_with_crls(store, leaf, untrusted, &[], target)
    }

    /// [`OpenSslVerifier::verify_x509`] with parsed CRLs (`target.crls` is not read again).
    pub fn verify_x509_with_crls(
        &self,
        store: &X509Store,
        leaf: &X509,
        untrusted: &Stack<X509>,
        crls: &[X509Crl],
        target: Target<'_>,
    ) -> Result<(), Rejection> {
        let crl_stack = if crls.is_empty() {
            None
        } else {
            Some(ossl::CrlStack::new(crls).map_err(openssl_failure)?)
        };
        let mut ctx = X509StoreContext::new().map_err(openssl_failure)?;
        ctx.init(store, leaf, untrusted, |ctx| {
            let configured = self.configure(ctx, target).and_then(|()| {
                if let Some(stack) = &crl_stack {
                    ossl::set0_crls(ctx, stack);
                    let param = ossl::store_ctx_param_mut(ctx)
                        .ok_or_else(|| Rejection::new("OpenSSL store context has no parameters"))?;
                    param
                        .set_flags(X509VerifyFlags::CRL_CHECK | X509VerifyFlags::CRL_CHECK_ALL)
                        .map_err(openssl_failure)?;
                }
                Ok(())
            });
            Ok(match configured {
                Ok(()) => match ctx.verify_cert() {
                    Ok(true) => Ok(()),
                    Ok(false) => Err(Rejection::new(format!(
                        "{} (depth {})",
                        ctx.error().error_string(),
                        ctx.error_depth()
                    ))),
                    Err(stack) => Err(openssl_failure(stack)),
                },
                Err(rejection) => Err(rejection),
            })
        })
        .map_err(openssl_failure)?
    }

    /// The verification policy, as samples record it: the flags and parameters
    /// [`OpenSslVerifier::configure`] sets, wherever OpenSSL verifies (this method, the
    /// driver's native and callback hooks, the rustls transport's `TimedVerifier`).
    pub fn policy(&self) -> String {
        format!(
            "{}PARTIAL_CHAIN, auth level {AUTH_LEVEL}, purpose sslserver, NO_PARTIAL_WILDCARDS",
            if self.strict { "X509_STRICT, " } else { "" }
        )
    }

    /// Sets this verification's parameters on `ctx` (never on the shared store): the policy
    /// ([`OpenSslVerifier::policy`]), the validation time, the purpose, the peer name, the
    /// depth limit.
    pub fn configure(
        &self,
        ctx: &mut X509StoreContextRef,
        target: Target<'_>,
    ) -> Result<(), Rejection> {
        let param = ossl::store_ctx_param_mut(ctx)
            .ok_or_else(|| Rejection::new("OpenSSL store context has no parameters"))?;
        let mut flags = X509VerifyFlags::PARTIAL_CHAIN;
        if self.strict {
            flags |= X509VerifyFlags::X509_STRICT;
        }
        match target.time {
            Some(t) => param.set_time(
                libc::time_t::try_from(t)
                    .map_err(|_| Rejection::new(format!("validation time {t} out of range")))?,
            ),
            None => flags |= X509VerifyFlags::NO_CHECK_TIME,
        }
        param.set_flags(flags).map_err(openssl_failure)?;
        param.set_auth_level(AUTH_LEVEL);
        match target.eku {
            Some(Eku::ServerAuth) => param.set_purpose(X509PurposeId::SSL_SERVER),
            Some(Eku::ClientAuth) => param.set_purpose(X509PurposeId::SSL_CLIENT),
            None => Ok(()),
        }
        .map_err(openssl_failure)?;
        if let Some(depth) = target.max_depth {
            param.set_depth(i32::try_from(depth).unwrap_or(i32::MAX));
        }
        match target.peer {
            Some(PeerName::Dns(host)) => {
                param.set_hostflags(X509CheckFlags::NO_PARTIAL_WILDCARDS);
                param.set_host(host)
            }
            Some(PeerName::Ip(ip)) => param.set_ip(ip),
            Some(PeerName::Email(email)) => param.set_email(email),
            None => Ok(()),
        }
        .map_err(|e| {
            let name = target.peer.map(|p| p.to_string()).unwrap_or_default();
            Rejection::new(format!("peer name `{name}` not accepted: {e}"))
        })
    }
}

/// `X509_VERIFY_PARAM_set_auth_level`: level 2 is 112-bit security (RSA ≥ 2048, no SHA-1),
/// the level Debian's libssl applies in a handshake and the limbo OpenSSL harness uses.
const AUTH_LEVEL: i32 = 2;

fn to_x509(chain: &Chain) -> Result<(X509, Stack<X509>), openssl::error::ErrorStack> {
    let leaf = X509::from_der(&chain.leaf)?;
    let mut untrusted = Stack::new()?;
    for der in &chain.intermediates {
        untrusted.push(X509::from_der(der)?)?;
    }
    Ok((leaf, untrusted))
}

fn openssl_failure(stack: openssl::error::ErrorStack) -> Rejection {
    Rejection::new(format!("OpenSSL error: {stack}"))
}
