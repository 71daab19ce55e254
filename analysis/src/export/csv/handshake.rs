//! `certbench handshake`'s runs (and memory runs) as CSV: a record per run, a column per field
//! any run has.

use serde::Serialize;

/// `runs` as CSV, a record per run, as `certbench handshake` writes it.
pub(crate) fn render<T: Serialize>(runs: &[T]) -> String {
    // Columns: every field any run has (a field a run leaves out, e.g. the revocation
    // counts of a run without `--revocation`, is an empty cell), in order of first use.
    let values: Vec<serde_json::Value> = (runs.iter())
        .map(|r| serde_json::to_value(r).expect("runs serialize"))
        .collect();
    let mut columns: Vec<&str> = Vec::new();
    for v in &values {
        for k in v.as_object().into_iter().flat_map(|o| o.keys()) {
            if !columns.contains(&k.as_str()) {
                columns.push(k);
            }
        }
    }
    let cell = |v: Option<&serde_json::Value>| match v {
        None | Some(serde_json::Value::Null) => String::new(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(&columns).expect("writing to memory");
    for v in &values {
        w.write_record(columns.iter().map(|c| cell(v.get(*c))))
            .expect("writing to memory");
    }
    String::from_utf8(w.into_inner().expect("flushing to memory")).expect("UTF-8")
}
