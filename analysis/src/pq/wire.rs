//! The wire's arithmetic: segments, TCP's initial window and slow start, and what the emulated
//! link's model predicts a connection takes (`src/link.rs` emulates it; `tests/it/link.rs`
//! checks the two agree).

/// TCP's initial congestion window, in segments (RFC 6928).
pub const INITIAL_WINDOW: u32 = 10;
/// A segment's payload on Ethernet (1,500-byte MTU less IPv4 and TCP headers without options),
/// as RFC 6928 counts its 14,600 bytes.
pub const MSS: u32 = 1460;

/// The segments a flight of `bytes` takes.
pub fn segments(bytes: u64) -> u64 {
    bytes.div_ceil(u64::from(MSS))
}

/// The round trips a first flight of `segments` costs beyond its own, in slow start from the
/// initial window with no loss: after r round trips the sender has sent `IW · (2^r − 1)`.
pub fn extra_round_trips(segments: u64) -> u32 {
    let mut sent = 0u64;
    let mut window = u64::from(INITIAL_WINDOW);
    let mut rounds = 0;
    while sent + window < segments {
        sent += window;
        window *= 2;
        rounds += 1;
    }
    rounds
}

/// What a connection over an emulated link should take, by the link's model: what the same
/// connection took on loopback, plus a round trip each for TCP's handshake, TLS 1.3's and the
/// HTTP request, plus one per window the server's first flight overflows
/// ([`extra_round_trips`]), plus the first flight's time on the wire at `bandwidth` bits per
/// second (the other flights are a few hundred bytes). Nanoseconds.
pub fn model_connection_ns(
    loopback_ns: f64,
    rtt_ns: f64,
    first_flight_bytes: u64,
    bandwidth: Option<u64>,
) -> f64 {
    let rounds = 3 + extra_round_trips(segments(first_flight_bytes));
    let on_wire = bandwidth.map_or(0.0, |bps| {
        first_flight_bytes as f64 * 8.0 / bps as f64 * 1e9
    });
    loopback_ns + f64::from(rounds) * rtt_ns + on_wire
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flight_over_the_window_costs_a_round_trip_per_doubling() {
        assert_eq!(segments(14_600), 10);
        assert_eq!(segments(14_601), 11);
        assert_eq!(extra_round_trips(1), 0);
        assert_eq!(extra_round_trips(10), 0);
        assert_eq!(extra_round_trips(11), 1);
        assert_eq!(extra_round_trips(30), 1);
        assert_eq!(extra_round_trips(31), 2);
        assert_eq!(extra_round_trips(70), 2);
        assert_eq!(extra_round_trips(71), 3);
    }
}
