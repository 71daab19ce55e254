//! The TCP window a sample's first flight was counted against ([`TcpWindow`]): the initial
//! congestion window and the segment payload, each with where it came from; and a browser's
//! first flight over QUIC as a server counts it ([`QuicClient`]: [`CHROME`], [`FIREFOX`]). The measuring side
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

    /// How a window is stated in titles and in `config.link`: `IW 10 (RFC 6928) × 1448 B (MSS
    /// from the kernel: TCP_MAXSEG on loopback, MTU 1500)`; a figure set by `--link` has no note.
    pub fn label(&self) -> String {
        let w = self;
        let iw = match w.iw_source {
            WindowSource::Set => String::new(),
            _ => " (RFC 6928)".to_owned(),
        };
        let mss = match w.mss_source {
            WindowSource::Set => "",
            WindowSource::Default => " (RFC 6928: MTU 1500 − 40)",
            WindowSource::Kernel => " (MSS from the kernel: TCP_MAXSEG on loopback, MTU 1500)",
        };
        format!("IW {}{iw} × {} B{mss}", w.initial_window, w.mss)
    }

    /// The window's bytes: `initial_window × mss`.
    pub fn bytes(&self) -> u64 {
        u64::from(self.initial_window) * u64::from(self.mss)
    }
}

/// A browser's first flight over QUIC, as the server counts it for its budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuicClient {
    /// The browser.
    pub name: &'static str,
    /// The UDP payload of each client Initial datagram (padded to it, RFC 9000 §14.1).
    pub datagram: u32,
    /// Initial datagrams before the server answers (2: a ClientHello with an ML-KEM share).
    pub datagrams: u32,
}

/// Chrome: quiche's `kDefaultMaxPacketSize` of 1,250 B (quiche/quic/core/quic_constants.h,
/// "default initial maximum size in bytes of a QUIC packet"); X25519MLKEM768 by default,
/// so two Initials.
pub const CHROME: QuicClient = QuicClient {
    name: "Chrome",
    datagram: 1250,
    datagrams: 2,
};

/// Firefox: neqo starts at a 1,280-byte path MTU (neqo-transport/src/pmtud.rs: the smallest
/// of its `MTU_SIZES`, probing upwards later), less IPv4 and UDP headers: 1,252 B (1,232 over
/// IPv6); X25519MLKEM768 by default, so two Initials.
pub const FIREFOX: QuicClient = QuicClient {
    name: "Firefox",
    datagram: 1252,
    datagrams: 2,
};

/// The browsers whose Initials the tables count against, Chrome's first.
pub const BROWSERS: [QuicClient; 2] = [CHROME, FIREFOX];

/// RFC 9000 §8.1's factor.
pub const AMPLIFICATION: u64 = 3;

impl QuicClient {
    /// What the server may send before validating the address: 3 × the client's Initials.
    pub fn budget(&self) -> u64 {
        AMPLIFICATION * u64::from(self.datagram) * u64::from(self.datagrams)
    }

    /// QUIC's initial congestion window at this datagram size (RFC 9002 §7.2).
    pub fn initial_cwnd(&self) -> u64 {
        let d = u64::from(self.datagram);
        (10 * d).min(14_720.max(2 * d))
    }
}

/// A QUIC connection's handshake on the wire (`--transport quic`): what the client's QUIC
/// stack (quinn) counted when its handshake completed (the client's first Initial to the
/// server's Finished processed and its own sent).
///
/// Invariant: the client's figures are quinn's `ConnectionStats` at that instant: UDP
/// datagrams and their payload bytes, each way, every packet number space together.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuicCounts {
    /// UDP datagrams the client sent.
    pub datagrams_sent: u64,
    /// Their UDP payload bytes.
    pub bytes_sent: u64,
    /// UDP datagrams the client received.
    pub datagrams_received: u64,
    /// Their UDP payload bytes.
    pub bytes_received: u64,
    /// Packets the client's stack declared lost (and sent again).
    #[serde(default)]
    pub lost_packets: u64,
    /// The UDP payload the client pads its Initial datagrams to (the browser's, [`QuicClient`]).
    pub initial_datagram: u32,
    /// The handshake's time at the client, nanoseconds: its first Initial sent to the
    /// connection established (the server's Finished verified, the chain verified inside).
    pub handshake_ns: u64,
}

/// What the emulated link itself counted of one connection (`--link`), read when the
/// client's handshake completed.
///
/// Invariant: `server_bytes_per_round[0]` is round 1, the server's first flight.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkCounts {
    /// The handshake's round trips: over QUIC the highest round of the server's datagrams
    /// delivered by then (a round is one more each time a datagram leaves after the other
    /// side's last delivered one); over TCP TCP's own handshake, plus the congestion windows
    /// the server's first flight took.
    pub handshake_rounds: u32,
    /// The server's bytes the link delivered in each round.
    pub server_bytes_per_round: Vec<u64>,
    /// Datagrams the link lost (its seeded loss rate), both ways; 0 over TCP.
    #[serde(default)]
    pub lost: u64,
}
