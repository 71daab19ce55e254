//! The wire's arithmetic over TCP: segments, TCP's initial window and slow start, and what the
//! emulated link's model predicts a connection takes (`src/link.rs` emulates it;
//! `tests/it/link.rs` checks the two agree), and a site's row of bytes ([`FlightRow`]). QUIC's
//! side is in [`super::quic`].
//!
//! The window is the sample's ([`TcpWindow`]: the kernel's segment payload read at run time,
//! or `--link …,iw=N,mss=N`), never a constant here: [`TcpWindow::DEFAULT`] (RFC 6928's
//! 10 × 1,460 B) only counts samples that recorded none.
//!
//! Slow start is counted in bytes (RFC 3465's byte counting, no delayed ACKs, no loss): a
//! sender whose whole flight is written at once sends full segments, so a flight fits the
//! initial window exactly when its bytes are at most `IW × MSS`, however the writes were cut.

pub use super::quic::rounds_beyond;
use super::quic::{self, QuicClient, QuicFit};
pub use certbench_schema::{TcpWindow, WindowSource};
use serde::Serialize;

/// The segments a flight of `bytes` takes at `mss` bytes each.
pub fn segments(bytes: u64, mss: u32) -> u64 {
    bytes.div_ceil(u64::from(mss.max(1)))
}

/// The round trips a first flight of `bytes` costs beyond TCP's initial `window`: after r
/// round trips the sender has sent `IW · MSS · (2^(r+1) − 1)`.
pub fn extra_round_trips(bytes: u64, window: &TcpWindow) -> u32 {
    rounds_beyond(bytes, window.bytes(), window.bytes())
}

/// What a connection over an emulated link should take, by the link's model: what the same
/// connection took on loopback, plus the first flight's time on the wire at `bandwidth` bits
/// per second (the other flights are a few hundred bytes), plus the round trips:
/// - over TCP (`quic: None`): one each for TCP's handshake, TLS 1.3's and the HTTP request,
///   plus one per window the server's first flight overflows ([`extra_round_trips`]);
/// - in the link's HTTP/3 mode (`quic: Some(client)`): one for the handshake (no TCP
///   handshake: the client's first bytes leave at once) and one for the request, plus those
///   the first flight costs when it overflows the amplification budget
///   (`QuicClient::budget`), then QUIC's initial window (`QuicClient::initial_cwnd`).
///
/// `first_flight_bytes` are the bytes that cross the link. Nanoseconds.
pub fn model_connection_ns(
    loopback_ns: f64,
    rtt_ns: f64,
    first_flight_bytes: u64,
    bandwidth: Option<u64>,
    window: &TcpWindow,
    quic: Option<&QuicClient>,
) -> f64 {
    let rounds = match quic {
        None => 3 + extra_round_trips(first_flight_bytes, window),
        Some(q) => 2 + rounds_beyond(first_flight_bytes, q.budget(), q.initial_cwnd()),
    };
    let on_wire = bandwidth.map_or(0.0, |bps| {
        first_flight_bytes as f64 * 8.0 / bps as f64 * 1e9
    });
    loopback_ns + f64::from(rounds) * rtt_ns + on_wire
}

/// One site under one profile: what its chain costs on the wire.
#[derive(Clone, Debug, Serialize)]
pub struct FlightRow {
    /// The site id.
    pub site: String,
    /// The profile (`classical` for today's chain).
    pub profile: String,
    /// The certificate compression offered (`brotli`, `zlib`); `None`: none.
    pub compression: Option<String>,
    /// The certificates' DER bytes.
    pub chain_bytes: Option<u64>,
    /// Their TLS 1.3 Certificate message.
    pub cert_message_bytes: Option<u64>,
    /// The server's first flight (median over the samples that counted it).
    pub first_flight_bytes: Option<u64>,
    /// Its TLS handshake messages without records (median): what QUIC would carry.
    pub handshake_bytes: Option<u64>,
    /// The TCP window the samples counted it against (the first sample's that recorded one;
    /// RFC 6928's when none did).
    pub window: TcpWindow,
    /// The CompressedCertificate message sent instead of the Certificate message, when the
    /// server compressed (median).
    pub compressed_cert_message_bytes: Option<u64>,
}

impl FlightRow {
    /// The first flight's segments.
    pub fn segments(&self) -> Option<u64> {
        (self.first_flight_bytes).map(|b| segments(b, self.window.mss))
    }

    /// Round trips the first flight adds beyond TCP's initial window.
    pub fn extra_round_trips(&self) -> Option<u32> {
        (self.first_flight_bytes).map(|b| extra_round_trips(b, &self.window))
    }

    /// The first flight over QUIC against `client`'s Initials.
    pub fn quic(&self, client: &QuicClient) -> Option<QuicFit> {
        self.handshake_bytes.map(|h| quic::fit(h, client))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flight_over_the_window_costs_a_round_trip_per_doubling() {
        let w = TcpWindow::DEFAULT;
        assert_eq!(segments(14_600, w.mss), 10);
        assert_eq!(segments(14_601, w.mss), 11);
        for (bytes, rounds) in [
            (1, 0),
            (14_600, 0),
            (14_601, 1),
            (30 * 1460, 1),
            (30 * 1460 + 1, 2),
            (70 * 1460, 2),
            (70 * 1460 + 1, 3),
        ] {
            assert_eq!(extra_round_trips(bytes, &w), rounds, "{bytes} B");
        }
        // The kernel's 1,448-byte payload moves the edge by 10 × 12 B.
        let linux = TcpWindow {
            mss: 1448,
            mss_source: WindowSource::Kernel,
            ..w
        };
        assert_eq!(extra_round_trips(14_480, &linux), 0);
        assert_eq!(extra_round_trips(14_481, &linux), 1);
        let small = TcpWindow {
            initial_window: 4,
            mss: 1000,
            iw_source: WindowSource::Set,
            mss_source: WindowSource::Set,
        };
        assert_eq!(extra_round_trips(4000, &small), 0);
        assert_eq!(extra_round_trips(4001, &small), 1);
        assert_eq!(extra_round_trips(12_001, &small), 2);
    }

    #[test]
    fn a_window_names_its_sources() {
        assert_eq!(
            TcpWindow::DEFAULT.label(),
            "IW 10 (RFC 6928) × 1460 B (RFC 6928: MTU 1500 − 40)"
        );
        let kernel = TcpWindow {
            mss: 1448,
            mss_source: WindowSource::Kernel,
            ..TcpWindow::DEFAULT
        };
        assert_eq!(
            kernel.label(),
            "IW 10 (RFC 6928) × 1448 B (MSS from the kernel: TCP_MAXSEG on loopback, MTU 1500)"
        );
        let set = TcpWindow {
            initial_window: 4,
            iw_source: WindowSource::Set,
            mss: 1000,
            mss_source: WindowSource::Set,
        };
        assert_eq!(set.label(), "IW 4 × 1000 B");
    }

    #[test]
    fn the_model_counts_the_handshakes_round_trips() {
        let w = TcpWindow::DEFAULT;
        let rtt = 10e6;
        assert_eq!(model_connection_ns(1e6, rtt, 5000, None, &w, None), 31e6);
        assert_eq!(model_connection_ns(1e6, rtt, 20_000, None, &w, None), 41e6);
        let chrome = crate::pq::quic::CHROME;
        // HTTP/3: no TCP handshake; 5 KB fits the amplification budget, 20 KB does not.
        assert_eq!(
            model_connection_ns(1e6, rtt, 5000, None, &w, Some(&chrome)),
            21e6
        );
        assert_eq!(
            model_connection_ns(1e6, rtt, 20_000, None, &w, Some(&chrome)),
            31e6
        );
    }
}
