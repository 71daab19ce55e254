//! `openssl`: OpenSSL's own verification, `X509_verify_cert`.
//!
//! Roots: an `X509Store` built from the DER roots. Chain creation: DER → `X509` for the leaf
//! and a `Stack<X509>` of the untrusted intermediates. Verify: an `X509_STORE_CTX` over the
//! store and that stack, with this verification's parameters set on the context (never on
//! the shared store): validation time (`X509_VERIFY_PARAM_set_time`), TLS-server purpose,
//! the host (`X509_VERIFY_PARAM_set1_host`, or `set1_ip` for an address literal), and, by
//! default, `X509_V_FLAG_X509_STRICT` as the x509-limbo harness uses. OpenSSL checks the host
//! inside `X509_verify_cert`, so this method records no separate `verify-hostname` stage.

use std::net::IpAddr;

use certbench_analysis::Stage;
use openssl::stack::Stack;
use openssl::x509::store::{X509Store, X509StoreBuilder};
use openssl::x509::verify::X509VerifyFlags;
use openssl::x509::{X509, X509PurposeId, X509StoreContext, X509StoreContextRef};
use rustls_pki_types::CertificateDer;

use super::{Rejection, Target, Verifier};
use crate::chain::Chain;
use crate::error::Error;
use crate::ossl;
use crate::stages::Recorder;

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
        rec.stop(Stage::ChainCreation, span);
        let (leaf, untrusted) = parsed.map_err(|e| Rejection::new(format!("bad chain: {e}")))?;

        let span = rec.start();
        let result = self.verify_x509(&roots.0, &leaf, &untrusted, target);
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
        let mut ctx = X509StoreContext::new().map_err(openssl_failure)?;
        ctx.init(store, leaf, untrusted, |ctx| {
            Ok(match self.configure(ctx, target) {
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

    fn configure(
        &self,
        ctx: &mut X509StoreContextRef,
        target: Target<'_>,
    ) -> Result<(), Rejection> {
        let param = ossl::store_ctx_param_mut(ctx)
            .ok_or_else(|| Rejection::new("OpenSSL store context has no parameters"))?;
        let time = libc::time_t::try_from(target.time)
            .map_err(|_| Rejection::new(format!("validation time {} out of range", target.time)))?;
        param.set_time(time);
        param
            .set_purpose(X509PurposeId::SSL_SERVER)
            .map_err(openssl_failure)?;
        if self.strict {
            param
                .set_flags(X509VerifyFlags::X509_STRICT)
                .map_err(openssl_failure)?;
        }
        let host = target.host.trim_start_matches('[').trim_end_matches(']');
        match host.parse::<IpAddr>() {
            Ok(ip) => param.set_ip(ip),
            Err(_) => param.set_host(target.host),
        }
        .map_err(|e| Rejection::new(format!("host `{}` not accepted: {e}", target.host)))
    }
}

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
