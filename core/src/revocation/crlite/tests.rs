//! Loading and reading: corrupted filters and stores are errors. The verdicts on real
//! filters and chains are tested with the builder, in the main crate (`src/revocation/crlite.rs`).

use super::*;

#[test]
fn garbage_is_corrupt() {
    for bytes in [
        &b""[..],
        b"\x04",
        b"\x04\x00",
        b"\x07\x00rest",
        b"\x04\x01",
        b"not a filter",
    ] {
        assert!(
            matches!(Filter::load(bytes), Err(RevocationError::Corrupt { .. })),
            "{bytes:?}"
        );
    }
}

/// A clubcard that deserialises but whose index points past its matrices: clubcard would
/// index out of bounds (a panic) or read zeros (a wrong answer) at query time.
#[test]
fn an_index_outside_the_matrices_is_corrupt() {
    let filter = |rank: u8, approx_m: u32, exact_m: u32, columns: u8, words: u32| {
        let mut b = vec![4, 0, 0, 0, 0, 0, 0, 1];
        b.extend([7; 32]);
        b.extend(approx_m.to_be_bytes());
        b.push(rank);
        b.extend(0u32.to_be_bytes());
        b.extend(exact_m.to_be_bytes());
        b.extend(0u32.to_be_bytes());
        b.extend([0, 0, 0]);
        b.push(columns);
        for _ in 0..columns + 1 {
            b.extend(words.to_be_bytes());
            b.extend(std::iter::repeat_n(0, 8 * words as usize));
        }
        b
    };
    assert!(Filter::load(&filter(1, 64, 64, 1, 1)).is_ok());
    for bad in [
        filter(3, 64, 64, 1, 1),
        filter(1, 65, 64, 1, 1),
        filter(1, 64, 65, 1, 1),
    ] {
        assert!(matches!(
            Filter::load(&bad),
            Err(RevocationError::Corrupt { .. })
        ));
    }
}
