//! Samples for the analysis' unit tests.

use certbench_schema::{Config, SCHEMA_VERSION, Sample, SampleMeta, Source, Verdict};

/// A driver sample of `method` on `site` (port 443, path `/`, run 0, measured), accepted, with
/// no stage and the default configuration and facts: a test sets what it measures.
pub(crate) fn driver(method: &str, site: &str) -> Sample {
    Sample {
        schema: SCHEMA_VERSION,
        source: Source::Driver,
        method: method.into(),
        config: Config::default(),
        site: site.into(),
        port: Some(443),
        path: Some("/".into()),
        chain: None,
        run: 0,
        warmup: false,
        stages: Default::default(),
        verdict: Verdict::Ok,
        meta: SampleMeta::default(),
    }
}
