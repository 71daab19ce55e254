//! What `--link` asks for ([`LinkSpec`]):
//! `RTT[,BANDWIDTH][,iw=N][,mss=N][,h3][,loss=P%][,seed=N][,mtu=N]`, the keys after the RTT
//! in any order, e.g. `40ms`, `40ms,50mbit`, `40ms,iw=10,mss=1448`, `60ms,h3`,
//! `40ms,10mbit,loss=1%`.
//!
//! `loss`, `seed` and `mtu` are the datagram link's ([`super::udp`]): a share of datagrams
//! lost (0 to 50 %, seeded: [`DEFAULT_SEED`] unless `seed=N`), and the path MTU (1,280 to
//! 9,000 B, [`DEFAULT_MTU`] unless set) over which a datagram is dropped. The TCP link
//! ([`super::Link`]) keeps its loss-free model and ignores them; `Display` says so.
//!
//! Defaults, each named where the link is stated (`config.link`, titles): the initial window
//! is RFC 6928's 10 segments, the segment payload the kernel's ([`super::kernel`]). `h3`:
//! the HTTP/3 mode, Chrome's Initials against QUIC's amplification limit
//! (the analysis crate's `pq::quic`), modelled over the TCP underneath (there is no QUIC stack
//! here).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use certbench_schema::wire::{CHROME, FIREFOX, QuicClient};
use certbench_schema::{TcpWindow, WindowSource};

use super::kernel::kernel_window;

/// What `--link` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkSpec {
    /// The round-trip time.
    pub rtt: Duration,
    /// Bits per second on the wire, each way; `None`: no limit.
    pub bandwidth: Option<u64>,
    /// TCP's initial window and segment payload, with their sources.
    pub window: TcpWindow,
    /// The HTTP/3 mode: whose Initials bound the server's first flight; `None`: TCP.
    pub h3: Option<QuicClient>,
    /// Datagrams lost, in parts per million (`loss=1%`: 10,000); 0: none. The datagram link's
    /// only.
    pub loss_ppm: u32,
    /// The loss pattern's seed; `None`: [`DEFAULT_SEED`].
    pub seed: Option<u64>,
    /// The path MTU in bytes; `None`: [`DEFAULT_MTU`]. The datagram link's only.
    pub mtu: Option<u32>,
}

/// The seed of the loss pattern when `seed=N` is not given.
pub const DEFAULT_SEED: u64 = 1;

/// The path MTU when `mtu=N` is not given: Ethernet's.
pub const DEFAULT_MTU: u32 = 1500;

/// An IPv4 header (20 B) and a UDP header (8 B): what a datagram's payload leaves of the MTU.
pub const IPV4_UDP_HEADERS: u32 = 28;

impl LinkSpec {
    /// A link of `rtt`, unlimited bandwidth, over TCP with the kernel's window.
    pub fn rtt(rtt: Duration) -> LinkSpec {
        LinkSpec {
            rtt,
            bandwidth: None,
            window: kernel_window(),
            h3: None,
            loss_ppm: 0,
            seed: None,
            mtu: None,
        }
    }

    /// The seed of the loss pattern: `seed=N`'s, or [`DEFAULT_SEED`].
    pub fn loss_seed(&self) -> u64 {
        self.seed.unwrap_or(DEFAULT_SEED)
    }

    /// The largest UDP payload the path carries: the MTU less [`IPV4_UDP_HEADERS`].
    pub fn max_payload(&self) -> usize {
        (self.mtu.unwrap_or(DEFAULT_MTU) - IPV4_UDP_HEADERS) as usize
    }

    /// Seconds a segment of `bytes` takes on the wire.
    pub(super) fn on_wire(&self, bytes: usize) -> Duration {
        match self.bandwidth {
            Some(bps) if bps > 0 => Duration::from_secs_f64(bytes as f64 * 8.0 / bps as f64),
            _ => Duration::ZERO,
        }
    }
}

/// How the model is stated in samples (`config.link`) and titles: `RTT 40 ms, 50 Mbit/s,
/// IW 10 (RFC 6928) × 1448 B (MSS from the kernel: …)`, then `, HTTP/3 (…)` in that mode,
/// then the datagram link's loss and MTU when either was set: `, loss 1 % of datagrams
/// (seed 1, the default), MTU 1500 B (the default) (datagrams only; the TCP link is
/// loss-free)`.
impl fmt::Display for LinkSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RTT {} ms", self.rtt.as_secs_f64() * 1e3)?;
        if let Some(bps) = self.bandwidth {
            write!(f, ", {} Mbit/s", bps as f64 / 1e6)?;
        }
        match &self.h3 {
            None => write!(f, ", {}", self.window.label()),
            Some(q) => write!(
                f,
                ", HTTP/3 (no TCP handshake; {}'s Initials: 3 × {} × {} B before the client's next flight, then QUIC's window of {} B; over TCP on loopback)",
                q.name,
                q.datagrams,
                q.datagram,
                q.initial_cwnd()
            ),
        }?;
        self.fmt_datagrams(f)
    }
}

impl LinkSpec {
    /// The datagram link's part of [`Display`](fmt::Display): nothing when neither loss, seed
    /// nor MTU was set.
    fn fmt_datagrams(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.loss_ppm == 0 && self.seed.is_none() && self.mtu.is_none() {
            return Ok(());
        }
        let default = |set: bool| if set { "" } else { ", the default" };
        write!(
            f,
            ", loss {} % of datagrams (seed {}{}), MTU {} B{} (datagrams only; the TCP link is loss-free)",
            f64::from(self.loss_ppm) / 1e4,
            self.loss_seed(),
            default(self.seed.is_some()),
            self.mtu.unwrap_or(DEFAULT_MTU),
            if self.mtu.is_some() {
                ""
            } else {
                " (the default)"
            },
        )
    }
}

/// A `--link` value that is not `RTT[,BANDWIDTH][,iw=N][,mss=N][,h3][,loss=P%][,seed=N][,mtu=N]`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "--link {0}: expected RTT[,BANDWIDTH][,iw=N][,mss=N][,h3[=chrome|firefox]][,loss=P%][,seed=N][,mtu=N], e.g. 40ms, 40ms,50mbit, 40ms,iw=10,mss=1448 or 40ms,10mbit,loss=1% (RTT in ms or s, above 0 and at most 10 s; BANDWIDTH in kbit, mbit or gbit per second; iw 1 to 1000 segments; mss 88 to 65495 bytes; loss 0 to 50 % of datagrams; seed any 64-bit number; mtu 1280 to 9000 bytes; loss, seed and mtu apply to the datagram link only; h3 names whose Initials, Chrome's by default)"
)]
pub struct BadLink(pub String);

impl FromStr for LinkSpec {
    type Err = BadLink;
    fn from_str(s: &str) -> Result<LinkSpec, BadLink> {
        let bad = || BadLink(s.to_owned());
        let mut parts = s.split(',');
        let rtt = rtt(parts.next().unwrap_or_default()).ok_or_else(bad)?;
        let mut spec = LinkSpec::rtt(rtt);
        let (mut iw, mut mss, mut loss_set) = (None, None, false);
        for part in parts {
            let part = part.trim().to_ascii_lowercase();
            let number = |v: &str, range: std::ops::RangeInclusive<u32>| {
                v.trim().parse::<u32>().ok().filter(|n| range.contains(n))
            };
            match part.split_once('=') {
                Some(("iw", v)) if iw.is_none() => iw = Some(number(v, 1..=1000).ok_or_else(bad)?),
                Some(("mss", v)) if mss.is_none() => {
                    mss = Some(number(v, 88..=65495).ok_or_else(bad)?)
                }
                Some(("loss", v)) if !loss_set => {
                    (spec.loss_ppm, loss_set) = (loss(v).ok_or_else(bad)?, true)
                }
                Some(("seed", v)) if spec.seed.is_none() => {
                    spec.seed = Some(v.trim().parse().map_err(|_| bad())?)
                }
                Some(("mtu", v)) if spec.mtu.is_none() => {
                    spec.mtu = Some(number(v, 1280..=9000).ok_or_else(bad)?)
                }
                None if part == "h3" && spec.h3.is_none() => spec.h3 = Some(CHROME),
                // Whose Initials: the HTTP/3 model's, and the QUIC transport's client's.
                Some(("h3", v)) if spec.h3.is_none() => {
                    spec.h3 = Some(match v.trim() {
                        "chrome" => CHROME,
                        "firefox" => FIREFOX,
                        _ => return Err(bad()),
                    })
                }
                None if spec.bandwidth.is_none() => {
                    spec.bandwidth = Some(bandwidth(&part).ok_or_else(bad)?)
                }
                _ => return Err(bad()),
            }
        }
        if let Some(iw) = iw {
            (spec.window.initial_window, spec.window.iw_source) = (iw, WindowSource::Set);
        }
        if let Some(mss) = mss {
            (spec.window.mss, spec.window.mss_source) = (mss, WindowSource::Set);
        }
        Ok(spec)
    }
}

/// `40ms`, `0.1s` or `25` (milliseconds): above 0, at most 10 s.
fn rtt(s: &str) -> Option<Duration> {
    let rtt = s.trim().to_ascii_lowercase();
    let (number, scale) = match (rtt.strip_suffix("ms"), rtt.strip_suffix('s')) {
        (Some(ms), _) => (ms, 1e-3),
        (None, Some(secs)) => (secs, 1.0),
        (None, None) => (rtt.as_str(), 1e-3),
    };
    let secs = number.trim().parse::<f64>().ok()? * scale;
    (secs > 0.0 && secs <= 10.0).then(|| Duration::from_secs_f64(secs))
}

/// `1%`, `0.5%` or `2` (percent): 0 to 50 %, in parts per million.
fn loss(v: &str) -> Option<u32> {
    let v = v.trim();
    let percent = v
        .strip_suffix('%')
        .unwrap_or(v)
        .trim()
        .parse::<f64>()
        .ok()?;
    (0.0..=50.0)
        .contains(&percent)
        .then(|| (percent * 1e4).round() as u32)
}

/// `50mbit`, `1gbit/s`, `500kbit`: bits per second, at least 1 kbit/s.
fn bandwidth(b: &str) -> Option<u64> {
    let b = b.strip_suffix("/s").unwrap_or(b);
    let (n, unit) = b.split_at(b.find(|c: char| c.is_ascii_alphabetic())?);
    let scale = match unit {
        "kbit" => 1e3,
        "mbit" => 1e6,
        "gbit" => 1e9,
        _ => return None,
    };
    let bps = n.trim().parse::<f64>().ok()? * scale;
    (bps >= 1e3).then_some(bps as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_reads_rtt_and_bandwidth() {
        let kernel = kernel_window().label();
        let l: LinkSpec = "40ms".parse().unwrap();
        assert_eq!(l, LinkSpec::rtt(Duration::from_millis(40)));
        assert_eq!(l.to_string(), format!("RTT 40 ms, {kernel}"));
        let l: LinkSpec = "0.1s,50mbit".parse().unwrap();
        assert_eq!(l.rtt, Duration::from_millis(100));
        assert_eq!(l.bandwidth, Some(50_000_000));
        assert_eq!(l.to_string(), format!("RTT 100 ms, 50 Mbit/s, {kernel}"));
        assert_eq!(
            "25".parse::<LinkSpec>().unwrap().rtt,
            Duration::from_millis(25)
        );
        for bad in [
            "",
            "0ms",
            "-5ms",
            "40ms,fast",
            "40ms,10",
            "11s",
            "40ms,1kbit/h",
            "40ms,iw=0",
            "40ms,mss=10",
            "40ms,iw=4,iw=5",
            "40ms,10mbit,20mbit",
            "40ms,cwnd=10",
            "iw=10",
        ] {
            assert!(bad.parse::<LinkSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn iw_mss_and_h3_are_read_in_any_order() {
        let l: LinkSpec = "40ms,iw=10,mss=1448".parse().unwrap();
        assert_eq!((l.window.initial_window, l.window.mss), (10, 1448));
        assert_eq!(
            (l.window.iw_source, l.window.mss_source),
            (WindowSource::Set, WindowSource::Set)
        );
        assert_eq!(l.to_string(), "RTT 40 ms, IW 10 × 1448 B");
        let m: LinkSpec = "40ms, MSS=1000 ,50mbit,iw=4".parse().unwrap();
        assert_eq!((m.window.bytes(), m.bandwidth), (4000, Some(50_000_000)));
        assert_eq!(m.to_string(), "RTT 40 ms, 50 Mbit/s, IW 4 × 1000 B");
        // Only the window's MSS set: the IW's source is still named.
        let n: LinkSpec = "40ms,mss=1000".parse().unwrap();
        assert_eq!(n.to_string(), "RTT 40 ms, IW 10 (RFC 6928) × 1000 B");
        let f: LinkSpec = "60ms,h3=firefox".parse().unwrap();
        assert_eq!(f.h3, Some(FIREFOX));
        assert!("60ms,h3=safari".parse::<LinkSpec>().is_err());
        let h: LinkSpec = "60ms,h3".parse().unwrap();
        assert_eq!(h.h3, Some(CHROME));
        assert!(
            h.to_string().starts_with(
                "RTT 60 ms, HTTP/3 (no TCP handshake; Chrome's Initials: 3 × 2 × 1250 B"
            )
        );
    }

    #[test]
    fn loss_seed_and_mtu_are_read_in_any_order_and_stated() {
        let kernel = kernel_window().label();
        let l: LinkSpec = "40ms,10mbit,loss=1%".parse().unwrap();
        assert_eq!((l.loss_ppm, l.seed, l.mtu), (10_000, None, None));
        assert_eq!((l.loss_seed(), l.max_payload()), (DEFAULT_SEED, 1472));
        assert_eq!(
            l.to_string(),
            format!(
                "RTT 40 ms, 10 Mbit/s, {kernel}, loss 1 % of datagrams (seed 1, the default), MTU 1500 B (the default) (datagrams only; the TCP link is loss-free)"
            )
        );
        let m: LinkSpec = "40ms,mtu=1280, SEED=7,loss=0.5%,h3".parse().unwrap();
        assert_eq!((m.loss_ppm, m.seed, m.mtu), (5_000, Some(7), Some(1280)));
        assert_eq!(m.max_payload(), 1252);
        assert!(m.to_string().ends_with(
            ", loss 0.5 % of datagrams (seed 7), MTU 1280 B (datagrams only; the TCP link is loss-free)"
        ));
        assert_eq!("40ms,loss=2".parse::<LinkSpec>().unwrap().loss_ppm, 20_000);
        assert_eq!("40ms,loss=0%".parse::<LinkSpec>().unwrap().loss_ppm, 0);
        // Nothing of the datagram link set: the TCP link's statement, unchanged.
        assert_eq!(
            "40ms".parse::<LinkSpec>().unwrap().to_string(),
            format!("RTT 40 ms, {kernel}")
        );
        for bad in [
            "40ms,loss=51%",
            "40ms,loss=-1%",
            "40ms,loss=x",
            "40ms,loss=1%,loss=2%",
            "40ms,loss=0%,loss=0%",
            "40ms,mtu=1279",
            "40ms,mtu=9001",
            "40ms,mtu=1500,mtu=1500",
            "40ms,seed=-1",
            "40ms,seed=1,seed=2",
            "loss=1%",
        ] {
            assert!(bad.parse::<LinkSpec>().is_err(), "{bad}");
        }
        let e = "40ms,loss=60%".parse::<LinkSpec>().unwrap_err().to_string();
        assert!(e.contains("[,loss=P%][,seed=N][,mtu=N]") && e.contains("datagram link only"));
    }
}
