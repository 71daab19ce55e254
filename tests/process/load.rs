//! Many sites at once against the loopback mirror (its wildcard host serves every
//! `<name>.load.mirror.test`): every sample is taken and accepted, and neither open file
//! descriptors nor memory grow with the number of sites measured.

use std::cell::Cell;
use std::collections::HashMap;
use std::time::Duration;

use certbench::driver::{DriverOptions, run};
use certbench::mirror::server::MirrorServer;
use certbench::procstat::{open_fds, rss};
use certbench::sites::parse_sites;
use certbench_core::methods::Method;
use certbench_core::roots::RootSet;
use certbench_schema::Hook;
use certbench_schema::Transport;
use certbench_schema::Verdict;

const SITES: usize = 400;

#[test]
fn four_hundred_sites_sixteen_at_a_time_hold_no_fds_or_memory_per_site() {
    let _alone = crate::alone();
    let set = &crate::common::mirror().0;
    let list: String = (0..SITES)
        .map(|i| format!("site-{i:04}.load.mirror.test\n"))
        .collect();
    let (sites, errors) = parse_sites(&list);
    assert!(errors.is_empty());
    let rt = tokio::runtime::Runtime::new().unwrap();
    for transport in [Transport::Rustls, Transport::Openssl] {
        let taken = Cell::new(0usize);
        // (fds, rss) after the first 100 samples, and the largest seen after that.
        let early = Cell::new((0usize, 0u64));
        let late_max = Cell::new((0usize, 0u64));
        let (before, after) = rt.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let server = MirrorServer::start(set, listener).unwrap();
            let resolve: HashMap<_, _> = sites
                .iter()
                .map(|s| ((s.host.clone(), s.port), server.addr))
                .collect();
            let roots = RootSet::from_certs("mirror", set.roots.clone());
            let opts = DriverOptions {
                methods: vec![Method::RustlsSerial],
                runs: 1,
                warmup: 0,
                transport,
                hook: Hook::Replace,
                timeout: Duration::from_secs(20),
                cache_roots: false,
                resolve,
                resumption: false,
                concurrency: 16,
                served: Default::default(),
                checks: certbench_core::RunChecks::path_only(),
            };
            let before = open_fds().unwrap();
            run(&sites, &roots, &opts, |s| {
                assert_eq!(s.verdict, Verdict::Ok, "{transport:?} {}", s.site);
                taken.set(taken.get() + 1);
                let now = (open_fds().unwrap(), rss().unwrap());
                if taken.get() == 100 {
                    early.set(now);
                } else if taken.get() > 100 {
                    let m = late_max.get();
                    late_max.set((m.0.max(now.0), m.1.max(now.1)));
                }
            })
            .await;
            drop(server);
            // Let the server's connection tasks wind down.
            tokio::time::sleep(Duration::from_millis(200)).await;
            (before, open_fds().unwrap())
        });
        assert_eq!(taken.get(), SITES, "{transport:?}");
        let (fds_early, rss_early) = early.get();
        let (fds_late, rss_late) = late_max.get();
        eprintln!(
            "{transport:?}: fds {before} → {fds_early} (100 sites) → max {fds_late} → {after}; \
             RSS {:.1} MB (100 sites) → max {:.1} MB",
            rss_early as f64 / 1e6,
            rss_late as f64 / 1e6
        );
        // In flight: at most 16 connections (2 fds each, client and server, on loopback)
        // and the listener; 300 more sites add none of their own.
        assert!(fds_late <= fds_early + 40, "{fds_early} → {fds_late}");
        assert!(
            after <= before + 4,
            "fds back to the start: {before} → {after}"
        );
        // Memory: no growth in proportion to sites (300 sites at even 100 KiB each would be
        // 30 MB).
        assert!(
            rss_late < rss_early + 16_000_000,
            "{rss_early} → {rss_late}"
        );
    }
}
