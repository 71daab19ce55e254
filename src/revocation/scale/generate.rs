//! Each data set made from the CA (through [`crate::revocation::generate`]): the CRLSets, the
//! CRLite filters and upki stores, the CRLs.

use std::path::Path;
use std::time::Instant;

use super::cache::{Ca, Made};
use super::catalogue::Data;
use super::error::{ScaleError, ca_err, io};
use crate::certs::crl;
use crate::certs::scale_ca::{GOOD_SERIAL, REVOKED_SERIAL};
use crate::revocation::{Issued, Issuer, generate, issuers};

/// The CA as the generators see it: both leaves (one revoked, with their SCTs) and
/// `extra` synthetic serials, about 8,900 per million of them revoked.
fn issuer(ca: &Ca, extra: usize) -> Issuer {
    let mut issued = vec![
        Issued {
            serial: GOOD_SERIAL.to_vec(),
            revoked: false,
            scts: issuers::scts(&ca.good),
        },
        Issued {
            serial: REVOKED_SERIAL.to_vec(),
            revoked: true,
            scts: issuers::scts(&ca.revoked),
        },
    ];
    let serials = crl::synthetic_serials(extra, 0x5ca1e);
    issued.extend(serials.into_iter().enumerate().map(|(i, serial)| Issued {
        serial,
        revoked: i % 112 == 0,
        scts: vec![],
    }));
    Issuer {
        name: crate::certs::scale_ca::NAME.into(),
        spki: certbench_core::der::spki_tlv(&ca.der)
            .map(<[u8]>::to_vec)
            .unwrap_or_default(),
        issued,
    }
}

/// Makes `set`'s file in `dir` unless it is there; its generation time and whether it was.
pub(super) fn ensure(
    dir: &Path,
    ca: &Ca,
    set: Data,
    made: &mut Made,
) -> Result<(f64, bool), ScaleError> {
    let file = set.file();
    let path = dir.join(&file);
    if path.exists() {
        return Ok((made.get(&file).copied().unwrap_or(0.0), true));
    }
    let t = Instant::now();
    let tmp = dir.join(format!("{file}.tmp"));
    let _ = std::fs::remove_dir_all(&tmp);
    match set {
        Data::CrlSet(_, scale) => {
            let not_after = ca.made_at + generate::CRLSET_DAYS * 86_400;
            let bytes = generate::crlset(&[issuer(ca, 0)], scale, not_after)?;
            std::fs::write(&tmp, bytes).map_err(io(&tmp))?;
        }
        Data::Gecko(scale) | Data::Rustls(scale) => {
            // Both leaves' SCTs are from one log at one time: the window covers them.
            let issuer = [issuer(ca, scale.certs_per_issuer)];
            let coverage = generate::coverage(&issuer, ca.made_at);
            let bytes = generate::filter(&issuer, &coverage, scale)?;
            std::fs::write(&tmp, bytes).map_err(io(&tmp))?;
        }
        Data::Upki(scale) => {
            // From the in-memory rows' filter: the same data, as upki's store.
            ensure(dir, ca, Data::Rustls(scale), made)?;
            let from = dir.join(Data::Rustls(scale).file());
            let filter = std::fs::read(&from).map_err(io(&from))?;
            generate::upki_store(&tmp, &filter, ca.made_at)?;
        }
        Data::Crl(n) => {
            let issuer = ca.signer().map_err(ca_err)?;
            let revoked = [REVOKED_SERIAL.to_vec()];
            let next = ca.made_at + 7 * 86_400;
            let bytes = generate::crl(&issuer, n, n as u64, &revoked, ca.made_at, next)?;
            std::fs::write(&tmp, bytes).map_err(io(&tmp))?;
        }
    }
    std::fs::rename(&tmp, &path).map_err(io(&path))?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    made.insert(file, ms);
    Ok((ms, false))
}
