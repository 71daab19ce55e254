//! QUIC's side of the first flight: whether a server's first flight fits what it may send
//! before it has validated the client's address, and the round trips it costs when not.
//!
//! - **Amplification limit** (RFC 9000 §8.1): before validating the client's address a server
//!   sends at most 3× the bytes it received. Before its first flight it has received the
//!   client's Initial datagrams: the budget is `3 × datagrams × datagram size`
//!   ([`QuicClient::budget`]). The client's next datagrams (its ACKs and its Handshake packet,
//!   which validates the address, §8.1) arrive a round trip after the server's first bytes
//!   left: a flight over the budget waits one round trip.
//! - **Initial window** (RFC 9002 §7.2): `min(10 × max_datagram_size, max(14,720,
//!   2 × max_datagram_size))` ([`QuicClient::initial_cwnd`]), growing by every byte
//!   acknowledged (slow start, [`rounds_beyond`], which TCP's window (`super::wire`) counts too).
//! - **What the server sends** ([`server_flight_bytes`]): the TLS handshake messages
//!   (ServerHello in an Initial packet, EncryptedExtensions to Finished in Handshake packets;
//!   no TLS records) in CRYPTO frames, in datagrams of the client's size, each packet with
//!   [`PACKET_OVERHEAD`] bytes. HTTP/3's SETTINGS (0.5-RTT data, a few dozen bytes) are left
//!   out.
//!
//! The browsers ([`CHROME`], [`FIREFOX`]): with X25519MLKEM768 (on by default in both) the
//! ClientHello is about 1.8 KB: two Initial datagrams, each padded to the client's size.

pub use certbench_schema::wire::{AMPLIFICATION, BROWSERS, CHROME, FIREFOX, QuicClient};

/// The round trips a first flight of `bytes` costs beyond its own, in slow start: the first
/// round sends at most `first` bytes (the window, or less where something else binds: QUIC's
/// amplification limit), each later round what the window has grown to once everything sent
/// was acknowledged (`cwnd` plus every byte acknowledged).
pub fn rounds_beyond(bytes: u64, first: u64, cwnd: u64) -> u32 {
    let (mut sent, mut send, mut cwnd, mut rounds) = (0u64, first.min(cwnd).max(1), cwnd, 0);
    while sent + send < bytes {
        sent += send;
        cwnd += send;
        send = cwnd;
        rounds += 1;
    }
    rounds
}

/// A server packet's bytes besides its CRYPTO data: a long header (first byte 1, version 4,
/// destination and source connection IDs of 8 B each with their lengths 2, Length 2, packet
/// number 2: 27 B), the AEAD tag (16 B, RFC 9001 §5.3) and the CRYPTO frame's type, offset and
/// length (5 B).
pub const PACKET_OVERHEAD: u64 = 27 + 16 + 5;

/// What the server's Initial adds once: its token length (1 B, RFC 9000 §17.2.2) and an ACK
/// frame of the client's Initials (about 5 B).
pub const INITIAL_EXTRA: u64 = 6;

/// RFC 9000 §14.1: a datagram carrying an ack-eliciting Initial is at least 1,200 bytes.
pub const MIN_INITIAL_DATAGRAM: u64 = 1200;

/// The server's first flight over QUIC, in UDP payload bytes, for `handshake_bytes` of TLS
/// handshake messages in datagrams of `datagram` bytes: one packet per datagram plus the
/// Initial coalesced into the first, each with [`PACKET_OVERHEAD`]; at least one 1,200-byte
/// datagram.
pub fn server_flight_bytes(handshake_bytes: u64, datagram: u32) -> u64 {
    let room = u64::from(datagram).saturating_sub(PACKET_OVERHEAD).max(1);
    let packets = handshake_bytes.div_ceil(room) + 1;
    (handshake_bytes + packets * PACKET_OVERHEAD + INITIAL_EXTRA).max(MIN_INITIAL_DATAGRAM)
}

/// A first flight against one browser's Initials.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuicFit {
    /// The server's flight over QUIC, bytes ([`server_flight_bytes`]).
    pub flight: u64,
    /// The amplification budget, bytes.
    pub budget: u64,
    /// The round trips it costs beyond its own (0: it fits the budget and the window).
    pub extra_round_trips: u32,
}

impl QuicFit {
    /// Whether it fits 3× the client's Initials (and QUIC's initial window).
    pub fn fits(&self) -> bool {
        self.extra_round_trips == 0
    }
}

/// `handshake_bytes` of TLS handshake messages sent to `client` over QUIC.
pub fn fit(handshake_bytes: u64, client: &QuicClient) -> QuicFit {
    let flight = server_flight_bytes(handshake_bytes, client.datagram);
    QuicFit {
        flight,
        budget: client.budget(),
        extra_round_trips: rounds_beyond(flight, client.budget(), client.initial_cwnd()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_three_times_the_clients_initials() {
        assert_eq!(CHROME.budget(), 7500);
        assert_eq!(FIREFOX.budget(), 7512);
        // RFC 9002 §7.2 at 1,250 B: 10 datagrams, under the 14,720-byte cap.
        assert_eq!(CHROME.initial_cwnd(), 12_500);
        let jumbo = QuicClient {
            datagram: 1500,
            ..CHROME
        };
        assert_eq!(jumbo.initial_cwnd(), 14_720);
    }

    #[test]
    fn a_flight_is_its_messages_in_packets() {
        // 1,202 B of CRYPTO data per 1,250-byte datagram.
        assert_eq!(server_flight_bytes(100, 1250), MIN_INITIAL_DATAGRAM);
        assert_eq!(server_flight_bytes(1202, 1250), 1202 + 2 * 48 + 6);
        assert_eq!(server_flight_bytes(1203, 1250), 1203 + 3 * 48 + 6);
    }

    #[test]
    fn a_flight_over_the_budget_waits_for_the_clients_next_datagrams() {
        // Today's 4 KB fits; 7,500 B on the wire exactly fits, a byte more does not.
        assert!(fit(4000, &CHROME).fits());
        let edge = (1..10_000)
            .map(|h| fit(h, &CHROME))
            .take_while(|f| f.flight <= 7500)
            .last()
            .unwrap();
        assert!(edge.fits() && edge.flight > 7400, "{edge:?}");
        let over = fit(edge.flight + 1, &CHROME);
        assert_eq!((over.fits(), over.extra_round_trips), (false, 1));
        // After a round trip the window is 12,500 B plus the 7,500 acknowledged: 27,500 B in
        // all; beyond, a second round trip.
        assert_eq!(rounds_beyond(27_500, 7500, 12_500), 1);
        assert_eq!(rounds_beyond(27_501, 7500, 12_500), 2);
        // A 20 KB twin's flight costs one.
        assert_eq!(fit(20_000, &CHROME).extra_round_trips, 1);
    }
}
