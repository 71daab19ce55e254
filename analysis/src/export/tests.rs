//! The writers as the commands call them, format by format, against golden texts captured
//! from the code before it moved here.

use super::*;
use crate::bulk::BulkRun;
use crate::bulk::tests::r;
use crate::handshake::MemoryRun;
use crate::handshake::tests::run;
use golden::check;

#[test]
fn bulk_as_certbench_bulk_writes_it() {
    let results = [
        r("send", vec![900.0, 1000.0, 800.0]),
        r("receive", vec![700.0, 600.0, 650.0]),
    ];
    let run = BulkRun {
        mib: 1.5,
        record: 16384,
    };
    for (ext, f) in [
        ("md", Format::Markdown),
        ("csv", Format::Csv),
        ("json", Format::Json),
    ] {
        check(
            &format!("bulk-doc.{ext}"),
            &render_bulk_run(&results, &run, f),
        );
    }
}

/// Every format of the runs and of memory, as `certbench handshake` writes them.
#[test]
fn the_tables_and_files_of_runs_and_memory() {
    let mut runs = vec![
        run("openssl", 1, "none", 500.0),
        run("rustls", 1, "none", 1000.0),
        run("rustls", 16, "tickets", 4000.0),
    ];
    runs[2].revocation_checks = 100;
    runs[2].revocation_load_us = Some(12.5);
    let memory = [MemoryRun {
        client: "rustls".into(),
        server: "openssl".into(),
        key: "p256".into(),
        tls: "1.3".into(),
        allocator: "system".into(),
        connections: 1000,
        client_kib_per_connection: 9.0,
        server_kib_per_connection: 12.25,
    }];
    for (ext, f) in [
        ("md", Format::Markdown),
        ("csv", Format::Csv),
        ("json", Format::Json),
    ] {
        check(&format!("handshake.{ext}"), &render_handshakes(&runs, f));
        check(&format!("memory.{ext}"), &render_memory(&memory, f));
    }
}

/// `certbench report --baseline --candidate` titled its table in `src/cli/report.rs` before
/// the title moved here: the same words over the same table; CSV and JSON untitled.
#[test]
fn an_ab_comparison_is_titled_with_both_runs_in_markdown_only() {
    let runs = crate::ab::AbRuns {
        baseline: "a.jsonl".into(),
        baseline_samples: 12,
        candidate: "b.jsonl".into(),
        candidate_samples: 24,
    };
    let rows: Vec<crate::ab::AbRow> = Vec::new();
    assert_eq!(
        render_ab_runs(&runs, &rows, Format::Markdown, 0.02),
        format!(
            "## certbench report — baseline a.jsonl (12 samples), candidate b.jsonl (24 samples)\n\n{}",
            render_ab(&rows, Format::Markdown, 0.02)
        )
    );
    for f in [Format::Csv, Format::Json] {
        assert_eq!(
            render_ab_runs(&runs, &rows, f, 0.02),
            render_ab(&rows, f, 0.02)
        );
    }
}

/// `certbench limbo`'s summary, both formats: every part present (an unreadable testcase,
/// pairs, upstream, the slowest).
#[test]
fn the_limbo_summary_in_markdown_and_json() {
    use crate::limbo::ActualResult;
    use crate::limbo::report::{LimboReport, SlowCase, Slowest, VerifyTime};
    use crate::limbo::tests::{agreement, summary};
    let report = LimboReport {
        file: "limbo.json".into(),
        testcases: 6,
        bad: vec![("x::bad".into(), "no certificate".into())],
        wall_seconds: 1.25,
        verify: vec![VerifyTime {
            method: "h".into(),
            verify_ns: 250_000_000,
            ran: 4,
        }],
        summaries: vec![summary()],
        pairs: Some(vec![agreement()]),
        upstream: vec![agreement()],
        slowest: Some(Slowest {
            repeats: 3,
            methods: vec![(
                "h".into(),
                vec![SlowCase {
                    index: 0,
                    id: "rfc5280::a".into(),
                    first_ns: 50_000,
                    again_ns: vec![10_000, 20_000, 30_000],
                    actual: ActualResult::Success,
                }],
            )],
        }),
        show: 10,
    };
    check("limbo-report.md", &render_limbo_markdown(&report));
    check("limbo-report.json", &render_limbo_json(&report));
}

/// The samples' report of the callback run in miniature (two methods, three sites): its
/// tables, views and answer in markdown, its records in CSV.
#[test]
fn the_report_of_a_callback_run() {
    let samples = crate::comparison::tests::callback_run();
    let report = Report::from_samples(&samples, &[], Some("certbench --hook replace"));
    check("report.md", &render(&report, Format::Markdown));
    check("report.csv", &render(&report, Format::Csv));
}

#[test]
fn every_format_name_parses_as_its_format() {
    let parsed: Vec<Format> = Format::NAMES.iter().map(|n| n.parse().unwrap()).collect();
    assert_eq!(parsed, [Format::Markdown, Format::Csv, Format::Json]);
}
