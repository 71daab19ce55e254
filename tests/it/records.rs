//! The record contract (schema/src/records): every result file a command writes starts with
//! its kind and schema version and is read by that tag; a file today's main wrote before the
//! header (tests/fixtures/main-368da4e/) reads unchanged, told by its fields; `certbench
//! report` reads every kind.

use std::path::{Path, PathBuf};

use certbench_analysis::input::Contents;
use certbench_schema::records::{self, Header, Kind, Record, write_doc, write_list};
use serde::Serialize;

fn saved(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/main-368da4e")
        .join(name)
}

fn bytes(name: &str) -> Vec<u8> {
    std::fs::read(saved(name)).unwrap()
}

/// The file's records written back without a header: the JSON value the file held.
fn as_value<T: Serialize>(t: &T) -> serde_json::Value {
    serde_json::to_value(t).unwrap()
}

fn original(name: &str) -> serde_json::Value {
    serde_json::from_slice(&bytes(name)).unwrap()
}

/// Each saved file: its kind told by its fields, its records read, and written back (without
/// the header) to the very JSON it held.
#[test]
fn files_today_s_main_wrote_read_unchanged_by_their_fields() {
    for (name, kind) in [
        ("handshake.json", Kind::Handshake),
        ("memory.json", Kind::Memory),
        ("bulk.json", Kind::Bulk),
        ("page.json", Kind::Page),
        ("limbo.json", Kind::Limbo),
        ("revocation-scale.json", Kind::RevocationScale),
        ("icount.json", Kind::Icount),
    ] {
        let header = Header::of(&bytes(name)).unwrap_or_else(|| panic!("{name}: no kind"));
        assert_eq!(header.kind, kind, "{name}");
        let contents = Contents::read(&bytes(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(contents.records() > 0, "{name}");
        let back = match contents {
            Contents::Handshakes(h) if kind == Kind::Handshake => as_value(&h.runs),
            Contents::Handshakes(h) => as_value(&h.memory),
            Contents::Bulk(b) => as_value(&b),
            Contents::Pages(p) => as_value(&p),
            Contents::Limbo(l) => as_value(&l),
            Contents::RevocationScale(r) => as_value(&r),
            Contents::Icount(c) => as_value(&c),
            other => panic!("{name}: {other:?}"),
        };
        assert_eq!(back, original(name), "{name} reads unchanged");
    }
    match Contents::read(&bytes("verify.jsonl")).unwrap() {
        Contents::Samples(samples, errors) => {
            assert!(errors.is_empty(), "{errors:?}");
            assert_eq!(samples.len(), 6);
            let lines = String::from_utf8(bytes("verify.jsonl")).unwrap();
            for (s, line) in samples.iter().zip(lines.lines()) {
                assert_eq!(
                    serde_json::to_string(s).unwrap(),
                    line,
                    "a sample reads unchanged"
                );
            }
        }
        other => panic!("{other:?}"),
    }
}

/// Writes `records` as their file now is, checks it starts with the header, and reads it back.
fn tagged_list<R: Record + PartialEq + std::fmt::Debug>(records: &[R]) -> String {
    let text = write_list(records);
    check_header(&text, R::KIND);
    assert_eq!(records::read_list::<R>(text.as_bytes()).unwrap(), records);
    text
}

fn check_header(text: &str, kind: Kind) {
    let start = format!(
        "{{\n  \"kind\": \"{kind}\",\n  \"schema\": {}",
        records::RECORDS_VERSION
    );
    assert!(text.starts_with(&start), "{text}");
    assert_eq!(Header::of(text.as_bytes()).map(|h| h.kind), Some(kind));
}

/// Every kind, written now: the header first, then its records; read back by the tag, and
/// refused when the tag names another kind.
#[test]
fn every_kind_written_now_starts_with_its_kind_and_schema_and_reads_by_it() {
    use certbench_schema::records::{bulk, handshake, icount, limbo, page, revocation_scale};
    let hs: Vec<handshake::HandshakeRun> = records::read_list(&bytes("handshake.json")).unwrap();
    let mem: Vec<handshake::MemoryRun> = records::read_list(&bytes("memory.json")).unwrap();
    let bulk: Vec<bulk::BulkResult> = records::read_list(&bytes("bulk.json")).unwrap();
    let pages: Vec<page::PageLoad> = records::read_list(&bytes("page.json")).unwrap();
    let counts: Vec<Vec<icount::Count>> = records::read_list(&bytes("icount.json")).unwrap();
    let handshake_text = tagged_list(&hs);
    tagged_list(&mem);
    tagged_list(&bulk);
    tagged_list(&pages);
    tagged_list(&counts);
    let limbo: limbo::LimboResult = records::read_doc(&bytes("limbo.json")).unwrap();
    let scale: revocation_scale::Report =
        records::read_doc(&bytes("revocation-scale.json")).unwrap();
    let (limbo_text, scale_text) = (write_doc(&limbo), write_doc(&scale));
    check_header(&limbo_text, Kind::Limbo);
    check_header(&scale_text, Kind::RevocationScale);
    assert_eq!(
        records::read_doc::<limbo::LimboResult>(limbo_text.as_bytes()).unwrap(),
        limbo
    );
    assert_eq!(
        records::read_doc::<revocation_scale::Report>(scale_text.as_bytes()).unwrap(),
        scale
    );
    // A limbo result with the header is still limbo's result format beside it.
    let v: serde_json::Value = serde_json::from_str(&limbo_text).unwrap();
    assert_eq!(
        (v["version"].as_u64(), v["harness"].as_str()),
        (Some(1), Some(limbo.harness.as_str()))
    );
    let wrong = records::read_list::<page::PageLoad>(handshake_text.as_bytes()).unwrap_err();
    assert_eq!(wrong.to_string(), "a handshake file, not page");
    let newer = handshake_text.replace("\"schema\": 1", "\"schema\": 9");
    let e = records::read_list::<handshake::HandshakeRun>(newer.as_bytes()).unwrap_err();
    assert!(
        e.to_string().contains("this certbench reads schema 1"),
        "{e}"
    );
}

/// `certbench report` on each kind, as written before the header and as written now: read by
/// its tag (or fields), each under its heading, exit 0.
#[test]
fn report_reads_each_kind() {
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<(PathBuf, &str)> = vec![
        (saved("handshake.json"), "handshakes"),
        (saved("memory.json"), "handshakes"),
        (saved("bulk.json"), "bulk transfers"),
        (saved("page.json"), "page loads"),
        (saved("limbo.json"), "limbo results"),
        (saved("revocation-scale.json"), "revocation-scale"),
        (saved("icount.json"), "instruction counts"),
        (saved("verify.jsonl"), "samples"),
    ];
    // A capture's record (`capture --out DIR` writes DIR/capture.json).
    use certbench_schema::records::capture::{CaptureRow, CaptureRun, Taken};
    let capture = CaptureRun {
        captured: 1,
        sites: 2,
        dir: "captured".into(),
        rows: vec![
            CaptureRow {
                site: "example.com".into(),
                outcome: Ok(Taken {
                    folder: "example.com__capture".into(),
                    certificates: 2,
                    keys: vec!["ECDSA-P256".into(), "RSA-2048".into()],
                }),
            },
            CaptureRow {
                site: "gone.example".into(),
                outcome: Err("connection refused".into()),
            },
        ],
    };
    let captured = dir.path().join("capture.json");
    std::fs::write(&captured, write_doc(&capture)).unwrap();
    files.push((captured, "a capture"));
    for (i, (path, heading)) in files.clone().into_iter().enumerate() {
        let Some(header) = Header::of(&std::fs::read(&path).unwrap()) else {
            continue;
        };
        let contents = Contents::read(&std::fs::read(&path).unwrap()).unwrap();
        let text = match contents {
            Contents::Handshakes(h) if header.kind == Kind::Handshake => write_list(&h.runs),
            Contents::Handshakes(h) => write_list(&h.memory),
            Contents::Bulk(b) => write_list(&b),
            Contents::Pages(p) => write_list(&p),
            Contents::Limbo(l) => write_doc(&l),
            Contents::RevocationScale(r) => write_doc(&r),
            Contents::Icount(c) => write_list(&c),
            Contents::Capture(c) => write_doc(&c),
            other => panic!("{other:?}"),
        };
        let tagged = dir.path().join(format!("{i}.json"));
        std::fs::write(&tagged, text).unwrap();
        files.push((tagged, heading));
    }
    for (path, heading) in &files {
        let out = crate::common::certbench_command()
            .arg("report")
            .arg(path)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{}: {stderr}", path.display());
        assert!(
            stdout.contains(&format!("## certbench report — {heading}"))
                || stdout.contains(&format!("{heading} from")),
            "{}: {stdout}",
            path.display()
        );
    }
}
