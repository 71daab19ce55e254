//! Every certificate certbench makes, in one place: CAs, leaves, clones of real chains and
//! their post-quantum twins, the mirror's synthetic and fault hosts, test certificates,
//! store-scaling extras, SCTs, OCSP responses and CRLs (rcgen over aws-lc-rs; OCSP encoded
//! with `x509-ocsp`). Nothing outside this module makes or signs a certificate: the mirror
//! (`crate::mirror`) caches and serves what [`mirror_set::make`] makes, `verify --pq` runs
//! on [`twin::twins`], the handshake and pair commands on [`test`], `revocation` builds its
//! data formats (CRLSet, CRLite) around what is signed here.
//!
//! The vocabulary, one role per file:
//! - [`ca`]: the one set of CA parameters every maker starts from, and [`ca::GenError`]
//!   (rcgen's error as callers outside see it);
//! - [`key`]: the key a certificate gets under a post-quantum `Profile` for its role, and
//!   the key usages an ML-DSA key may assert (RFC 9881 §5);
//! - [`clone`]: a real chain cloned (same shape and extensions, fresh keys, under a local
//!   root), or twinned under a profile, named as [`clone_name`] says; [`trim`]: the chain a
//!   twin of the `trimmed` scenario is made from; [`twin`]: the twins of every stored chain
//!   for `verify --pq`;
//! - [`ct`]: certbench's own CT logs and the SCTs they sign over a precertificate;
//! - [`ocsp`], [`crl`]: an OCSP response and a CRL signed by an issuer, from what they say;
//!   [`mirror_revocation`]: the mirror's staples and per-CA CRLs, and which hosts are revoked;
//! - [`host`]: what one mirror host serves ([`host::HostCert`]) and why making it fails;
//!   [`mirror_set`]: the mirror's whole set as made (corpus hosts' clones); [`synthetic`]:
//!   its synthetic and fault hosts under one synthetic root;
//! - [`test`]: the test servers' certificates (with SCTs for `handshake --ct`);
//! - [`extra`]: store scaling, the extra roots, intermediates and decoys of
//!   `verify --extra-roots/--extra-intermediates`;
//! - [`mldsa`]: certbench's own ML-DSA testcases as an x509-limbo document;
//! - [`scale_ca`]: `revocation-scale`'s CA and its two leaves.
//!
//! Invariants: a maker takes every input it needs (time, profile, logs) and returns DER and
//! PKCS#8 keys, never a path or a cache: where and whether the result is kept is the caller's
//! (the mirror's cache is versioned by `crate::mirror::cache::GENERATOR_VERSION`, which must
//! be bumped whenever what [`mirror_set::make`] makes changes). No module here imports the
//! mirror or the revocation data: the imports go one way, from them to this module. What a
//! caller gives that cannot be made is a typed error, not a panic.

pub mod ca;
pub mod clone;
pub mod clone_name;
pub mod crl;
pub mod ct;
pub mod extra;
pub mod host;
pub mod key;
pub mod mirror_revocation;
pub mod mirror_set;
pub mod mldsa;
pub mod mtc;
pub mod ocsp;
pub mod scale_ca;
pub mod synthetic;
pub mod test;
pub mod trim;
pub mod twin;
