//! The one constructor of a [`Sample`] for the commands that take samples (the driver and
//! `verify`): what was measured, by which method, under which configuration, in which run —
//! before anything is measured. The caller then records its stages, verdict and meta.

use certbench_schema::{Config, SCHEMA_VERSION};
use certbench_schema::{Sample, SampleMeta, Source, Verdict};

use crate::sites::Site;
use certbench_core::methods::Method;

/// What one sample measures: a site connected to, or a stored chain.
#[derive(Clone, Copy, Debug)]
pub enum Subject<'a> {
    /// A site (the driver): its host, port and path.
    Site(&'a Site),
    /// A stored chain (`verify`): the host it was served for, and its id.
    Chain { host: &'a str, id: &'a str },
}

/// A sample of `method` under `config`, taken by `source` of `subject` in the run `run`
/// (a warm-up run when `warmup`), at the current schema: no stage yet, verdict `Ok`, empty
/// meta.
pub fn sample(
    source: Source,
    method: Method,
    config: Config,
    subject: Subject<'_>,
    (warmup, run): (bool, u32),
) -> Sample {
    let (site, port, path, chain) = match subject {
        Subject::Site(s) => (s.host.clone(), Some(s.port), Some(s.path.clone()), None),
        Subject::Chain { host, id } => (host.to_owned(), None, None, Some(id.to_owned())),
    };
    Sample {
        schema: SCHEMA_VERSION,
        source,
        method: method.name().to_owned(),
        config,
        site,
        port,
        path,
        chain,
        run,
        warmup,
        stages: Default::default(),
        verdict: Verdict::Ok,
        meta: SampleMeta::default(),
    }
}
