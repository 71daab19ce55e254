//! The decision on recorded timings: each figure below was measured on one of the machines
//! named (2-vCPU KVM guests of the same kind); the tests feed them to the model as a
//! process would learn them, and check which way it decides. No figure here reaches the
//! decision code: it only ever reads what its own process measured.

use super::*;
use crate::chain::load_chain_dir;
use crate::methods::rustls_parallel::measure::{MEAN_OF, Mean, RING, Recent, deciding_class};
use rustls_pki_types::alg_id;
use std::time::Duration;

const US: u64 = 1_000;

/// Check costs (ns) recorded by `verify`'s floor column on two machines: the one
/// BENCHMARKS.md was first written on, and a fresh one that checks 1.75× faster.
struct Machine {
    p384: u64,
    rsa2048: u64,
    rsa4096: u64,
}
const SLOW: Machine = Machine {
    p384: 231 * US,
    rsa2048: 21_500,
    rsa4096: 80 * US,
};
const FAST: Machine = Machine {
    p384: 132 * US,
    rsa2048: 13_750,
    rsa4096: 46 * US,
};

/// Workers as the pool saw them (`core/examples/wake.rs`, forced interleaved runs): spinning,
/// after a light sleep, after a deep one; and on a machine whose CPUs were all busy, where
/// no worker took the job before the caller withdrew it.
const AWAKE: Worker = Worker {
    offer_ns: US,
    start_ns: 2 * US,
    slowdown_pct: 100,
    excess_ns: 0,
};
const LIGHT: Worker = Worker {
    offer_ns: 6 * US,
    start_ns: 25 * US,
    slowdown_pct: 100,
    excess_ns: 0,
};
const DEEP: Worker = Worker {
    offer_ns: 11 * US,
    start_ns: 60 * US,
    slowdown_pct: 154,
    excess_ns: 0,
};
const BUSY: Worker = Worker {
    offer_ns: 8 * US,
    start_ns: 300 * US,
    slowdown_pct: 100,
    excess_ns: 0,
};
const WALK: u64 = 5 * US;

#[test]
fn a_figure_is_the_median_of_its_recent_samples() {
    let r = Recent::new();
    assert_eq!(r.median(), None, "nothing measured yet");
    for x in [10, 12, 11, 5_000] {
        r.push(x);
    }
    assert_eq!(
        r.median(),
        Some(12),
        "one preempted sample does not move it"
    );
    for _ in 0..RING {
        r.push(20);
    }
    assert_eq!(r.median(), Some(20), "the old samples are gone");
}

#[test]
fn a_mean_counts_the_tail() {
    let m = Mean::new();
    assert_eq!(m.get(), None);
    // The first sample weighs as much as any other: one offer that met the deepest sleep
    // does not keep a sleep class serial until dozens of others wash it out.
    m.push(1_000 * US);
    for _ in 0..7 {
        m.push(100 * US);
    }
    assert!(
        (212_000..213_000).contains(&m.get().unwrap()),
        "{:?}",
        m.get()
    );
    let m = Mean::new();
    // A worker check of 200 µs, preempted for 3 ms one time in 16: the median is 200 µs,
    // what overlapping costs on average is the mean.
    for i in 0..20 * MEAN_OF {
        m.push(if i % 16 == 15 { 3_200 * US } else { 200 * US });
    }
    let mean = m.get().unwrap();
    assert!((300 * US..500 * US).contains(&mean), "{mean}");
}

#[test]
fn the_schedule_follows_the_figures_it_is_given() {
    for m in [SLOW, FAST] {
        let two_p384 = [m.p384, m.p384];
        let two_rsa = [m.rsa2048, m.rsa2048];
        // Two P-384 checks pay with a worker awake or lightly asleep; not when none comes.
        for w in [AWAKE, LIGHT] {
            assert!(pays(&two_p384, WALK, w), "{w:?}");
        }
        assert!(!pays(&two_p384, WALK, BUSY));
        // Two RSA-2048 checks pay only with a worker spinning.
        assert!(pays(&two_rsa, WALK, AWAKE));
        assert!(!pays(&two_rsa, WALK, LIGHT));
        assert!(!pays(&two_rsa, WALK, DEEP));
        // One check never pays.
        assert!(!pays(&[m.p384], WALK, AWAKE));
    }
    // RSA-4096 with RSA-2048 after a deep sleep: the slow machine's longer RSA-4096 check
    // hides a late, slow worker's RSA-2048 check; the fast machine's does not.
    assert!(pays(&[SLOW.rsa4096, SLOW.rsa2048], 0, DEEP));
    assert!(!pays(&[FAST.rsa4096, FAST.rsa2048], 0, DEEP));
    // Two P-384 checks after a deep sleep (a worker at ×0.65, 60 µs late): the slow
    // machine's checks leave room for it, the fast one's do not.
    assert!(pays(&[SLOW.p384, SLOW.p384], WALK, DEEP));
    assert!(!pays(&[FAST.p384, FAST.p384], WALK, DEEP));
    // The gain only shrinks as the worker starts later.
    let costs = [FAST.p384, FAST.rsa4096, FAST.rsa2048];
    let mut last = i64::MAX;
    for start in (0..400).step_by(10) {
        let g = gain_ns(
            &costs,
            WALK,
            Worker {
                start_ns: start * US,
                ..LIGHT
            },
        );
        assert!(g <= last);
        last = g;
    }
    // A slower worker may leave a check to the caller instead (the schedule is greedy, as
    // the claims are), but it never gains more than one at the caller's speed.
    let full = gain_ns(&costs, WALK, LIGHT);
    for slowdown in (100..400).step_by(10) {
        assert!(
            gain_ns(
                &costs,
                WALK,
                Worker {
                    slowdown_pct: slowdown,
                    ..LIGHT
                }
            ) <= full
        );
    }
}

#[test]
fn sleeps_are_classed_by_length_and_a_stream_as_just_asleep() {
    let us = Duration::from_micros;
    assert_eq!(sleep_class(Duration::ZERO), 0, "spinning");
    assert_eq!(sleep_class(us(100)), 1);
    assert_eq!(sleep_class(us(500)), 2);
    assert_eq!(sleep_class(us(2_000)), 3);
    assert_eq!(sleep_class(us(5_000)), 4);
    assert_eq!(sleep_class(us(50_000)), 5);
    assert_eq!(deciding_class(5, 1), 5, "two calls close together");
    assert_eq!(
        deciding_class(5, 2),
        0,
        "a stream: judged as a spinning worker"
    );
}

fn chain(name: &str) -> Chain {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/real-chains")
        .join(name);
    load_chain_dir(&dir).unwrap()
}

/// Figures with `machine`'s check costs learnt, as a process's first serial calls learn them.
fn learnt(machine: &Machine) -> Measured {
    let m = Measured::new();
    for class in [Class::P256, Class::P384, Class::Rsa2048, Class::Rsa4096] {
        let ns = match class {
            Class::P384 => machine.p384,
            Class::Rsa2048 => machine.rsa2048,
            Class::Rsa4096 => machine.rsa4096,
            _ => machine.p384 / 3,
        };
        m.learn_cost(class, ns);
    }
    m.learn_walk(2 * WALK);
    m
}

/// Offers met by `w`, as the pool reports them, learnt for sleep class `sleep`: enough of
/// them for the means to forget the offers before.
fn offers(m: &Measured, sleep: usize, w: Worker, came: bool) {
    for _ in 0..4 * MEAN_OF {
        let d = Duration::from_nanos;
        let seen = Offered {
            offer: d(w.offer_ns),
            started: came.then(|| d(w.start_ns)),
            withdrawn: d(w.start_ns),
        };
        Decision::from(m, sleep, sleep).learn(&[], Some(seen), 0, None);
        m.slowdown[sleep].push(w.slowdown_pct);
    }
}

#[test]
fn unmeasured_classes_stay_serial_and_an_unknown_worker_is_explored() {
    let wapo = chain("www.washingtonpost.com__rustls-bench");
    let m = Measured::new();
    assert_eq!(
        Decision::from(&m, 3, 3).pre_test(&wapo),
        Pre::Serial { unmeasured: true },
        "no class measured: serial, and that call measures"
    );
    let m = learnt(&FAST);
    assert_eq!(
        Decision::from(&m, 3, 3).pre_test(&wapo),
        Pre::Try(Mode::Explore)
    );
    // reddit.com (two RSA-2048 signatures): not even a worker that starts at once makes a
    // pre-test's worth of gain... it does on an ideal worker, so it is explored once.
    let reddit = chain("reddit.com__rustls-bench");
    offers(&m, 3, LIGHT, true);
    assert_eq!(
        Decision::from(&m, 3, 3).pre_test(&wapo),
        Pre::Try(Mode::Overlap(LIGHT)),
        "learnt: a light sleeper pays for two P-384 checks"
    );
    let tries = |sleep: usize| {
        (0..32)
            .filter(|_| {
                Decision::from(&m, sleep, sleep).pre_test(&reddit)
                    != Pre::Serial { unmeasured: false }
            })
            .count()
    };
    assert_eq!(
        tries(3),
        0,
        "an offer of 6 µs is too dear to explore a 28 µs chain with"
    );
    // With an offer of 1 µs (a worker that comes late but costs little to ask), it is
    // kept serial and explored every 16th time.
    offers(
        &m,
        4,
        Worker {
            offer_ns: US,
            ..LIGHT
        },
        true,
    );
    assert_eq!(
        tries(4),
        2,
        "kept serial, explored every {EXPLORE_EVERY}th time"
    );
}

#[test]
fn a_busy_machine_is_learnt_and_turns_chains_serial_then_back() {
    let wapo = chain("www.washingtonpost.com__rustls-bench");
    for machine in [SLOW, FAST] {
        let m = learnt(&machine);
        // Idle: the worker comes after a light sleep.
        offers(&m, 3, LIGHT, true);
        assert!(matches!(
            Decision::from(&m, 3, 3).pre_test(&wapo),
            Pre::Try(Mode::Overlap(_))
        ));
        // Every CPU busy: no worker took the job before the caller was done with it.
        offers(&m, 3, BUSY, false);
        let tries: Vec<Pre> = (0..EXPLORE_EVERY)
            .map(|_| Decision::from(&m, 3, 3).pre_test(&wapo))
            .collect();
        assert_eq!(
            tries
                .iter()
                .filter(|&&p| p == Pre::Try(Mode::Explore))
                .count(),
            1,
            "{tries:?}"
        );
        assert!(
            tries
                .iter()
                .all(|p| !matches!(p, Pre::Try(Mode::Overlap(_))))
        );
        // Idle again: the explorations' offers bring it back.
        offers(&m, 3, LIGHT, true);
        assert!(matches!(
            Decision::from(&m, 3, 3).pre_test(&wapo),
            Pre::Try(Mode::Overlap(_))
        ));
    }
}

#[test]
fn classes_from_a_signature_and_from_a_key_agree() {
    let classes = |name: &str| -> Vec<Class> {
        chain(name)
            .iter()
            .map(|c| Class::of_signer(crate::der::signer(c).unwrap()))
            .collect()
    };
    assert_eq!(
        classes("reddit.com__rustls-bench"),
        [Class::Rsa2048, Class::Rsa2048]
    );
    assert!(classes("www.washingtonpost.com__rustls-bench").contains(&Class::P384));
    let rsa = |bits: usize| vec![0u8; bits / 8 + 14];
    assert_eq!(
        Class::of_key(alg_id::RSA_ENCRYPTION, &rsa(2048)),
        Class::Rsa2048
    );
    assert_eq!(
        Class::of_key(alg_id::RSA_ENCRYPTION, &rsa(4096)),
        Class::Rsa4096
    );
    assert_eq!(Class::of_key(alg_id::ECDSA_P384, &[4; 97]), Class::P384);
    assert_eq!(Class::of_key(alg_id::ED25519, &[0; 32]), Class::Ed25519);
}

#[test]
fn a_stream_explores_in_bursts_so_a_spinning_workers_figures_stay_fresh() {
    let reddit = chain("reddit.com__rustls-bench");
    let m = learnt(&FAST);
    // Figures of a spinning worker taken while it was still cold from a deep sleep: three
    // times the caller's time per check, so two RSA-2048 checks stay serial.
    offers(
        &m,
        0,
        Worker {
            slowdown_pct: 300,
            ..AWAKE
        },
        true,
    );
    let stream = |m: &Measured| Decision::from(m, 2, 0).pre_test(&reddit);
    // Calls 16–19 and 35–38 of 48 (the burst's calls do not count towards the next).
    let explored = (0..3 * EXPLORE_EVERY)
        .filter(|_| stream(&m) == Pre::Try(Mode::Explore))
        .count();
    assert_eq!(
        explored as u32,
        2 * EXPLORE_BURST,
        "a burst every {EXPLORE_EVERY}th call"
    );
    // Outside a stream, after a light sleep, one call at a time.
    let m = learnt(&FAST);
    offers(
        &m,
        3,
        Worker {
            offer_ns: US,
            slowdown_pct: 300,
            ..LIGHT
        },
        true,
    );
    let alone = (0..3 * EXPLORE_EVERY)
        .filter(|_| Decision::from(&m, 3, 3).pre_test(&reddit) == Pre::Try(Mode::Explore))
        .count();
    assert_eq!(alone, 3);
}
