//! The writers as the commands call them, format by format, against golden texts captured
//! from the code before it moved here.

use super::*;
use crate::bulk::BulkRun;
use crate::bulk::tests::r;
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
