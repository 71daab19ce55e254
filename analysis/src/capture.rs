//! `certbench capture`'s figures: per site of a sites file, what was taken (its folder in the
//! corpus layout, the certificates the server sent and their keys) or why nothing was. The
//! capturing is `certbench`'s; `export::markdown::capture` draws the table.

/// What one site's capture took.
#[derive(Clone, Debug, PartialEq)]
pub struct Taken {
    /// Its folder in the corpus layout.
    pub folder: String,
    /// Certificates the server sent.
    pub certificates: usize,
    /// Their key types, leaf first.
    pub keys: Vec<String>,
}

/// One site's row: what was taken, or the error.
#[derive(Clone, Debug, PartialEq)]
pub struct CaptureRow {
    /// The site (`host` or `host:port`).
    pub site: String,
    /// What was taken, or why nothing was.
    pub outcome: Result<Taken, String>,
}

/// A whole run.
#[derive(Clone, Debug, PartialEq)]
pub struct CaptureRun {
    /// Sites captured.
    pub captured: usize,
    /// Sites in the file.
    pub sites: usize,
    /// The folder the captures went into.
    pub dir: String,
    /// One per site, in the file's order.
    pub rows: Vec<CaptureRow>,
}
