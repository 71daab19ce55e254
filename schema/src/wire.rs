//! The TCP window a sample's first flight was counted against ([`TcpWindow`]): the initial
//! congestion window and the segment payload, each with where it came from. The measuring side
//! reads the payload from the kernel at run time (or takes it from `--link …,mss=…`) and writes
//! it into every sample whose first flight it counted, so the analysis' segments and round
//! trips follow what was measured on that machine, never a constant of this crate.

use serde::{Deserialize, Serialize};

/// Where a window's figure came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WindowSource {
    /// The named default (IW: RFC 6928's 10 segments; MSS: RFC 6928's 1,460 B, Ethernet's
    /// 1,500-byte MTU less IPv4 and TCP headers without options).
    Default,
    /// Read from the kernel at run time: the send MSS of a loopback connection whose MSS was
    /// clamped to Ethernet's (`TCP_MAXSEG` 1,460), read back with `TCP_MAXSEG`.
    Kernel,
    /// Set on the command line (`--link …,iw=N,mss=N`).
    Set,
}

/// TCP's initial window: `initial_window` segments of `mss` bytes of payload.
///
/// Invariant: both figures are above 0 (the producers refuse 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TcpWindow {
    /// The initial congestion window, in segments.
    pub initial_window: u32,
    /// Where `initial_window` came from.
    pub iw_source: WindowSource,
    /// A full segment's payload, bytes.
    pub mss: u32,
    /// Where `mss` came from.
    pub mss_source: WindowSource,
}

impl TcpWindow {
    /// RFC 6928's initial window: 10 segments.
    pub const DEFAULT_IW: u32 = 10;
    /// RFC 6928's segment: 1,460 B (1,500-byte MTU − 20 B IPv4 − 20 B TCP).
    pub const DEFAULT_MSS: u32 = 1460;

    /// RFC 6928's window, 10 × 1,460 B: what a sample without a recorded window is counted
    /// against.
    pub const DEFAULT: TcpWindow = TcpWindow {
        initial_window: TcpWindow::DEFAULT_IW,
        iw_source: WindowSource::Default,
        mss: TcpWindow::DEFAULT_MSS,
        mss_source: WindowSource::Default,
    };

    /// The window's bytes: `initial_window × mss`.
    pub fn bytes(&self) -> u64 {
        u64::from(self.initial_window) * u64::from(self.mss)
    }
}
