//! The OpenSSL stack as a [`TlsStack`]: the stores a method needs, one sample's connector,
//! the connection, and what its hooks recorded.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use certbench_core::Checks;
use certbench_core::ffi::ossl;
use certbench_core::methods::openssl::OpenSslRoots;
use certbench_core::methods::{AnyRoots, DynVerifier, Method};
use certbench_core::roots::RootSet;
use certbench_schema::{Hook, Transport};
use hyper_util::rt::TokioIo;
use openssl::ssl::{SslConnector, SslSession, StatusType};

use super::connector::{ConnectorHook, connector};
use super::hooks::{HookState, lock};
use crate::sites::Site;
use crate::transport::{ConnInfo, Failure, TlsStack, Verification, tcp};

/// The OpenSSL stack as a [`TlsStack`]: `openssl` runs natively; every other method is put
/// in through `hook`.
pub struct OpensslTransport {
    /// How a method other than `openssl` enters the handshake.
    pub hook: Hook,
    /// Keep the session the server gives and offer it on the next connection.
    pub resumption: bool,
    /// Put `openssl` in through `hook` too, as its certbench method (its `X509_verify_cert`
    /// on the chain the hook hands it), instead of natively: for a layer above every method
    /// (`certbench page`'s verification cache).
    pub hook_openssl: bool,
}

/// The stores one method needs over OpenSSL: OpenSSL's own (for `openssl`, and for
/// OpenSSL's own verification under the callback hook) and the hooked method's.
#[derive(Clone)]
pub struct OpensslStores {
    openssl: Option<Arc<AnyRoots>>,
    method: Option<Arc<AnyRoots>>,
}

/// One sample's connector, with what its hooks record.
pub struct OpensslConnector {
    ssl: SslConnector,
    addr: Option<SocketAddr>,
    state: Arc<Mutex<HookState>>,
    verify_host: bool,
    offer: Option<SslSession>,
    /// Ask the server for a staple (`status_request`): the method checks revocation.
    status_request: bool,
    /// The method verifying, told as the handshake starts ([`DynVerifier::handshake_started`]).
    verifier: Arc<dyn DynVerifier>,
}

impl OpensslTransport {
    /// `openssl` itself verifies natively (no hook), unless `hook_openssl`.
    fn native(&self, method: Method) -> bool {
        method == Method::OpenSsl && !self.hook_openssl
    }
}

impl TlsStack for OpensslTransport {
    type Stores = OpensslStores;
    type Reuse = Option<SslSession>;
    type Connector = OpensslConnector;
    type Io = TokioIo<tokio_openssl::SslStream<tokio::net::TcpStream>>;

    fn kind(&self) -> Transport {
        Transport::Openssl
    }

    fn hook(&self, method: Method) -> Option<certbench_schema::Hook> {
        Some(if self.native(method) {
            certbench_schema::Hook::Native
        } else {
            self.hook
        })
    }

    fn library(&self) -> (&'static str, String) {
        ("OpenSSL", certbench_core::versions::openssl())
    }

    fn openssl_verifies(&self, method: Method) -> bool {
        self.native(method) || self.hook == Hook::Callback
    }

    fn stores(
        &self,
        method: Method,
        verifier: &dyn DynVerifier,
        roots: &RootSet,
    ) -> Result<OpensslStores, Failure> {
        let build = |v: &dyn DynVerifier, m: Method| {
            v.build_roots(roots.certs())
                .map(Arc::new)
                .map_err(|e| Failure::Input(format!("building {m} roots: {e}")))
        };
        let native = self.native(method);
        let openssl = if native || self.hook == Hook::Callback {
            Some(build(Method::OpenSsl.verifier().as_ref(), Method::OpenSsl)?)
        } else {
            None
        };
        let method = if native {
            None // the OpenSSL store above
        } else {
            Some(build(verifier, method)?)
        };
        Ok(OpensslStores { openssl, method })
    }

    fn connector(
        &self,
        method: Method,
        verifier: &Arc<dyn DynVerifier>,
        stores: Option<OpensslStores>,
        site: &Site,
        addr: Option<SocketAddr>,
        time: u64,
        checks: &Checks,
        reuse: &mut Option<SslSession>,
    ) -> Result<OpensslConnector, Failure> {
        let stores = stores.ok_or_else(|| Failure::Input("no trust store".to_owned()))?;
        let state = Arc::new(Mutex::new(HookState::default()));
        let store = stores
            .openssl
            .as_deref()
            .and_then(|r| ossl::share_store(&r.downcast_ref::<OpenSslRoots>()?.0));
        let hook = match (self.native(method), stores.method) {
            // `openssl` natively: no CT check.
            (true, _) => ConnectorHook::Native,
            (false, Some(r)) if self.hook == Hook::Callback => {
                ConnectorHook::Callback(verifier.clone(), r)
            }
            (false, Some(r)) => ConnectorHook::Replace(verifier.clone(), r),
            (false, None) => return Err(Failure::Input(format!("no {method} trust store"))),
        };
        // `openssl` natively checks nothing beyond the path (its Checks are none).
        let status_request = checks.revocation.is_some() && !self.native(method);
        let ssl = connector(
            hook,
            store,
            (&site.host, time),
            checks,
            self.resumption,
            state.clone(),
        )
        .map_err(|e| Failure::Input(format!("building the connector: {e}")))?;
        Ok(OpensslConnector {
            ssl,
            addr,
            state,
            verify_host: self.native(method),
            offer: if self.resumption { reuse.clone() } else { None },
            status_request,
            verifier: verifier.clone(),
        })
    }

    async fn handshake(
        &self,
        c: &OpensslConnector,
        site: &Site,
    ) -> Result<(Self::Io, ConnInfo), Failure> {
        let tcp = tcp(&site.host, site.port, c.addr).await?;
        let tls_error = |e: &dyn std::fmt::Display| Failure::TlsHandshake(e.to_string());
        let mut ssl = c
            .ssl
            .configure()
            .and_then(|mut conf| {
                conf.set_verify_hostname(c.verify_host);
                conf.into_ssl(&site.host)
            })
            .map_err(|e| tls_error(&e))?;
        if let Some(session) = &c.offer {
            ossl::offer_session(&mut ssl, session).map_err(|e| tls_error(&e))?;
        }
        if c.status_request {
            ssl.set_status_type(StatusType::OCSP)
                .map_err(|e| tls_error(&e))?;
        }
        let mut tls = tokio_openssl::SslStream::new(ssl, tcp).map_err(|e| tls_error(&e))?;
        c.verifier.handshake_started();
        Pin::new(&mut tls)
            .connect()
            .await
            .map_err(|e| tls_error(&e))?;
        let ssl = tls.ssl();
        let chain = ssl.peer_cert_chain();
        let info = ConnInfo {
            tls_version: Some(ssl.version_str().to_owned()),
            cipher: ssl.current_cipher().map(|c| c.name().to_owned()),
            chain_len: chain.map(|c| c.len() as u32),
            key_types: chain
                .into_iter()
                .flatten()
                .map(|c| {
                    c.to_der()
                        .map(|d| certbench_core::der::key_type(&d))
                        .unwrap_or_default()
                })
                .collect(),
            resumed: ssl.session_reused(),
            ..ConnInfo::default()
        };
        Ok((TokioIo::new(tls), info))
    }

    fn verification(&self, c: &OpensslConnector) -> Verification {
        let mut s = lock(&c.state);
        Verification {
            stages: std::mem::take(&mut s.rec),
            rejection: s.rejection.take(),
        }
    }

    fn keep(&self, c: &OpensslConnector, reuse: &mut Option<SslSession>) {
        if let Some(session) = lock(&c.state).session.take() {
            *reuse = Some(session);
        }
    }
}
