//! What sits above the verifier and what it counted: the policies ([`CachePolicy`]: Chrome's
//! result cache, Firefox's signature cache, none), Chrome's limits ([`CHROME_ENTRIES`],
//! [`CHROME_TTL`]) and the counts a run reports ([`CacheCounts`]).

use std::time::Duration;

/// Chrome's cache size (`kMaxCacheEntries`).
pub const CHROME_ENTRIES: usize = 256;
/// How long Chrome keeps a result (`kTTLSecs`, 30 minutes).
pub const CHROME_TTL: Duration = Duration::from_secs(30 * 60);

/// Which cache sits above the verifier (`--verify-cache`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CachePolicy {
    /// No cache: every verification runs.
    None,
    /// Chrome's: 256 entries, 30 minutes, identical in-flight verifications coalesced.
    Chrome,
    /// Firefox's: no cache of results (every verification runs); with `--ct`, the browser's
    /// SCT signature cache across its connections.
    Firefox,
}

impl CachePolicy {
    /// `none`, `chrome` or `firefox`.
    pub fn name(self) -> &'static str {
        match self {
            CachePolicy::None => "none",
            CachePolicy::Chrome => "chrome",
            CachePolicy::Firefox => "firefox",
        }
    }

    /// Whether a browser under this policy keeps its SCT signature results across
    /// connections (its CT log set is made with
    /// [`crate::ct::CtLogs::with_signature_cache`]): Firefox's only.
    pub fn signature_cache(self) -> bool {
        self == CachePolicy::Firefox
    }
}

/// What the calls through a [`CachingVerifier`] did, counted since it was made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheCounts {
    /// Calls (one per verification a TLS handshake asked for).
    pub calls: u64,
    /// Calls that ran the wrapped verifier.
    pub ran: u64,
    /// Calls answered from the cache.
    pub hits: u64,
    /// Calls that waited for an identical verification in flight.
    pub coalesced: u64,
    /// Nanoseconds spent in the calls, waiting included (what the handshakes waited).
    pub call_ns: u64,
    /// Nanoseconds spent in the wrapped verifier.
    pub ran_ns: u64,
    /// SCT signatures the wrapped verifier checked (`--ct`; a result from the cache, or an
    /// SCT signature result from the browser's own cache, checks none).
    pub sct_checked: u64,
    /// Revocation checks the wrapped verifier ran (`--revocation`; a result from the cache
    /// checks none, as Chrome's cached result holds its CRLSet outcome).
    pub revocation_checked: u64,
    /// Nanoseconds of those checks (their `revocation` stages).
    pub revocation_ns: u64,
    /// Nanoseconds the revocation data's load took (`revocation-load`: the first check of
    /// the data's process, here the browser's).
    pub revocation_load_ns: u64,
}

impl CacheCounts {
    /// What happened between `before` and `self`.
    pub fn since(&self, before: &CacheCounts) -> CacheCounts {
        CacheCounts {
            calls: self.calls - before.calls,
            ran: self.ran - before.ran,
            hits: self.hits - before.hits,
            coalesced: self.coalesced - before.coalesced,
            call_ns: self.call_ns - before.call_ns,
            ran_ns: self.ran_ns - before.ran_ns,
            sct_checked: self.sct_checked - before.sct_checked,
            revocation_checked: self.revocation_checked - before.revocation_checked,
            revocation_ns: self.revocation_ns - before.revocation_ns,
            revocation_load_ns: self.revocation_load_ns - before.revocation_load_ns,
        }
    }
}
