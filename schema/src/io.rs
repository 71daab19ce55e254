//! The schema's files: JSONL samples read back (a version-1 sample upgraded on the way,
//! [`read_jsonl`]), and the run header beside a samples file ([`run_info_path`],
//! [`read_run_info`]). The schema's types are in the other modules, which do not depend on
//! this file.
//!
//! Invariant: every line an earlier certbench wrote reads, with the values it held: a
//! version-1 sample is upgraded as JSON before it is typed, and a configuration's typed
//! fields read any text (an unknown name or shape is kept as written, `crate::names`).

use crate::run_info::RunInfo;
use crate::sample::Sample;

/// Upgrades a version-1 sample (JSON) to the current schema: `transport` moves into
/// `config`, as do `meta.hook` and `meta.roots`.
fn upgrade(mut v: serde_json::Value) -> serde_json::Value {
    let Some(obj) = v.as_object_mut() else {
        return v;
    };
    if obj.get("schema").and_then(|s| s.as_u64()) != Some(1) {
        return v;
    }
    let mut config = serde_json::Map::new();
    if let Some(t) = obj.remove("transport") {
        config.insert("transport".into(), t);
    }
    if let Some(meta) = obj.get_mut("meta").and_then(|m| m.as_object_mut()) {
        for k in ["hook", "roots"] {
            if let Some(x) = meta.remove(k) {
                config.insert(k.into(), x);
            }
        }
    }
    obj.insert("config".into(), config.into());
    v
}

/// Errors reading samples.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// A line that is not a valid sample.
    #[error("line {line}: {message}")]
    BadLine {
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        message: String,
    },
    /// I/O failure.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Reads JSONL samples. Blank lines are skipped; a malformed line becomes an error entry with
/// its line number, and reading goes on, so one bad line never loses the others.
pub fn read_jsonl(reader: impl std::io::BufRead) -> (Vec<Sample>, Vec<ReadError>) {
    let mut samples = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in reader.lines().enumerate() {
        match line {
            Ok(l) if l.trim().is_empty() => {}
            Ok(l) => match serde_json::from_str(&l)
                .map(upgrade)
                .and_then(serde_json::from_value::<Sample>)
            {
                Ok(s) => samples.push(s),
                Err(e) => errors.push(ReadError::BadLine {
                    line: i + 1,
                    message: e.to_string(),
                }),
            },
            Err(e) => {
                errors.push(ReadError::Io(e));
                break;
            }
        }
    }
    (samples, errors)
}

/// Where the [`RunInfo`] of a samples file lives: `<file>.run.json`.
pub fn run_info_path(samples: &std::path::Path) -> std::path::PathBuf {
    let mut p = samples.as_os_str().to_owned();
    p.push(".run.json");
    p.into()
}

/// Reads the [`RunInfo`] next to `samples`, if there is a readable one.
pub fn read_run_info(samples: &std::path::Path) -> Option<RunInfo> {
    let text = std::fs::read_to_string(run_info_path(samples)).ok()?;
    serde_json::from_str(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Hook, Named, Profile, Roots, Transport};

    #[test]
    fn version_1_samples_are_read_with_their_configuration() {
        let v1 = r#"{"schema":1,"source":"driver","method":"rustlsserial","transport":"openssl","site":"a.test","run":0,"stages":{"verify":5},"outcome":"ok","meta":{"hook":"callback","roots":"mozilla (150)","roots_cached":true}}"#;
        let (samples, errors) = read_jsonl(v1.as_bytes());
        assert!(errors.is_empty(), "{errors:?}");
        let c = &samples[0].config;
        assert_eq!(c.transport, Some(Transport::Openssl.into()));
        assert_eq!(c.hook, Some(Hook::Callback.into()));
        assert_eq!(c.trust_store().map(|t| t.roots), Some(150));
        assert!(samples[0].meta.roots_cached);
        assert_eq!(samples[0].site_id(), "a.test");
    }

    #[test]
    fn version_1_samples_with_texts_this_version_does_not_know_still_read() {
        let v1 = r#"{"schema":1,"source":"driver","method":"m","transport":"quic","site":"a.test","run":0,"stages":{},"outcome":"ok","meta":{"hook":"inline","roots":"system"}}"#;
        let (samples, errors) = read_jsonl(v1.as_bytes());
        assert!(errors.is_empty(), "{errors:?}");
        let c = &samples[0].config;
        assert_eq!(c.transport, Some(Named::Unknown("quic".into())));
        assert_eq!(c.hook, Some(Named::Unknown("inline".into())));
        assert_eq!(c.roots, Some(Roots::Named("system".into())));
    }

    #[test]
    fn todays_lines_read_typed_and_write_back_byte_for_byte() {
        let lines = [
            r#"{"schema":2,"source":"driver","method":"rustlsserial","config":{"transport":"openssl","hook":"callback","resumption":false,"cache_roots":false,"roots":"mozilla+mirror (152)","openssl_policy":"X509_STRICT, PARTIAL_CHAIN, auth level 2, purpose sslserver, NO_PARTIAL_WILDCARDS","versions":{"OpenSSL":"3.0.13","rustls-webpki":"0.103.4"},"profile":"classical","link":"RTT 40 ms, IW 10 × 1460 B"},"site":"a.test","port":8443,"path":"/","run":0,"warmup":false,"stages":{"verify":5,"total":9},"outcome":"ok","meta":{"roots_cached":false}}"#,
            r#"{"schema":2,"source":"verify","method":"chrome","config":{"resumption":false,"cache_roots":true,"roots":"mozilla+corpus (150)","versions":{"chrome":"x"},"ct":"28 logs of corpus/ct-logs","revocation":"crlset: 249.8 KB of certbench revocation data"},"site":"a.test","chain":"a.test__x","run":1,"warmup":false,"stages":{"revocation":7},"outcome":"rejected","reason":"revoked","meta":{"roots_cached":true}}"#,
            r#"{"schema":2,"source":"servo","method":"servo","config":{"transport":"rustls","hook":"timed-verifier","resumption":false,"cache_roots":false,"roots":"system (140)"},"site":"(startup)","run":0,"warmup":false,"stages":{"roots-creation":3},"outcome":"ok","meta":{"roots_cached":false}}"#,
        ];
        let (samples, errors) = read_jsonl(lines.join("\n").as_bytes());
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(samples[0].config.profile, Some(Profile::Classical.into()));
        assert_eq!(
            samples[1].config.revocation.as_ref().map(|r| r.mechanism()),
            Some("crlset")
        );
        assert_eq!(samples[2].config.hook, Some(Hook::TimedVerifier.into()));
        for (line, s) in lines.iter().zip(&samples) {
            assert_eq!(serde_json::to_string(s).unwrap(), *line);
        }
    }

    #[test]
    fn malformed_lines_are_reported_with_line_numbers_and_skipped() {
        let good = r#"{"schema":2,"source":"verify","method":"openssl","site":"a.test","run":0,"stages":{"verify":5},"outcome":"ok"}"#;
        let input = format!("{good}\nnot json\n\n{good}\n{{\"schema\":1}}\n");
        let (samples, errors) = read_jsonl(input.as_bytes());
        assert_eq!(samples.len(), 2);
        let lines: Vec<usize> = errors
            .iter()
            .map(|e| match e {
                ReadError::BadLine { line, .. } => *line,
                ReadError::Io(_) => 0,
            })
            .collect();
        assert_eq!(lines, vec![2, 5]);
    }
}
