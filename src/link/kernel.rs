//! TCP's segment payload read from the kernel at run time: what a Linux sender puts in a
//! full segment on an Ethernet path.
//!
//! A loopback connection whose both ends clamp their MSS to Ethernet's (`TCP_MAXSEG` 1,460:
//! a 1,500-byte MTU less 20 B of IPv4 and 20 B of TCP header) is opened, and the accepted
//! side's send MSS read back with `TCP_MAXSEG` (Linux returns the cached send MSS, as
//! `TCP_INFO`'s `tcpi_snd_mss` does): with TCP timestamps on (Linux's default,
//! `net.ipv4.tcp_timestamps`), 12 bytes of options leave 1,448 B per segment. Read once per
//! process; where it cannot be read (not Linux, or the socket calls fail), RFC 6928's
//! 1,460 B is used and named as the default ([`WindowSource::Default`]). No figure measured
//! here is a constant of the code: the reading is recorded in every sample that uses it.

use std::sync::OnceLock;

use certbench_schema::{TcpWindow, WindowSource};

/// The MSS both ends clamp to: Ethernet's 1,500-byte MTU less IPv4's and TCP's headers.
pub const ETHERNET_MSS: u32 = 1460;

/// Linux's initial window, 10 segments, is RFC 6928's: the default, named as such.
pub fn kernel_window() -> TcpWindow {
    static WINDOW: OnceLock<TcpWindow> = OnceLock::new();
    *WINDOW.get_or_init(|| match read_send_mss() {
        Ok(mss) => TcpWindow {
            mss,
            mss_source: WindowSource::Kernel,
            ..TcpWindow::DEFAULT
        },
        Err(_) => TcpWindow::DEFAULT,
    })
}

/// The send MSS of a loopback connection clamped to [`ETHERNET_MSS`].
#[cfg(target_os = "linux")]
pub fn read_send_mss() -> std::io::Result<u32> {
    use socket2::{Domain, Protocol, Socket, Type};
    use std::net::{Ipv4Addr, SocketAddr};
    let socket = || Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP));
    let listener = socket()?;
    listener.set_tcp_mss(ETHERNET_MSS)?;
    listener.bind(&SocketAddr::from((Ipv4Addr::LOCALHOST, 0)).into())?;
    listener.listen(1)?;
    let client = socket()?;
    client.set_tcp_mss(ETHERNET_MSS)?;
    client.connect(&listener.local_addr()?)?;
    let (server, _) = listener.accept()?;
    let mss = server.tcp_mss()?;
    match mss {
        1..=ETHERNET_MSS => Ok(mss),
        _ => Err(std::io::Error::other(format!(
            "the kernel's send MSS {mss} is not within 1..={ETHERNET_MSS}"
        ))),
    }
}

/// Not Linux: the kernel's figure is not read (its `TCP_MAXSEG` may be the configured value).
#[cfg(not(target_os = "linux"))]
pub fn read_send_mss() -> std::io::Result<u32> {
    Err(std::io::Error::other("the send MSS is read on Linux only"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_is_the_kernels_or_the_named_default() {
        let w = kernel_window();
        assert_eq!(w.initial_window, TcpWindow::DEFAULT_IW);
        match read_send_mss() {
            // Timestamps or not, the payload is at most the clamp and at least its
            // options' worth (40 B) below it.
            Ok(mss) => {
                assert_eq!((w.mss, w.mss_source), (mss, WindowSource::Kernel));
                assert!((ETHERNET_MSS - 40..=ETHERNET_MSS).contains(&mss), "{mss}");
            }
            Err(_) => assert_eq!(w, TcpWindow::DEFAULT),
        }
    }
}
