//! Chain parsing and every method's verification on arbitrary chains; `rustlsparallel` must
//! give `rustlsserial`'s verdict. Input format and invariants: `certbench_core::fuzzing`.
#![no_main]

use std::sync::OnceLock;

use certbench_core::fuzzing::Harness;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    static HARNESS: OnceLock<Harness> = OnceLock::new();
    HARNESS.get_or_init(Harness::new).check(data);
});
