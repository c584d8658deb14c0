//! The unit tests of the tiled planner: memory sizes as written, and even pieces.

use super::*;

#[test]
fn sizes_parse_with_binary_and_decimal_units() {
    assert_eq!(parse_bytes("4096").unwrap(), 4096);
    assert_eq!(parse_bytes("512MiB").unwrap(), 512 << 20);
    assert_eq!(parse_bytes("2GiB").unwrap(), 2 << 30);
    assert_eq!(parse_bytes("2g").unwrap(), 2 << 30);
    assert_eq!(parse_bytes("1.5GB").unwrap(), 1_500_000_000);
    assert_eq!(parse_bytes(" 64 KiB ").unwrap(), 64 << 10);
    for bad in ["", "MiB", "-1", "0", "12 parsecs", "1e3"] {
        assert!(parse_bytes(bad).is_err(), "{bad}");
    }
    assert_eq!(human_bytes(512 << 20), "512 MiB");
    assert_eq!(human_bytes(3 << 29), "1.50 GiB");
    assert_eq!(human_bytes(100), "100 bytes");
}

#[test]
fn pieces_are_as_even_as_the_unit_allows() {
    assert_eq!(even(20000, 16384, 1), (10000, 2));
    assert_eq!(even(100, 100, 1), (100, 1));
    assert_eq!(even(100, 30, 1), (25, 4));
    // Whole blocks of b = 32 along k.
    assert_eq!(even(1000, 300, 32), (256, 4));
    assert_eq!(even(7, 3, 32), (3, 3));
    assert_eq!(pieces(10, 4), vec![(0, 4), (4, 4), (8, 2)]);
    let x = Matrix::from_fn(5, 7, |i, j| (i * 10 + j) as f32);
    let s = sub(&x, 1, 3, 2, 4);
    assert_eq!(s.get(0, 0), 12.0);
    assert_eq!(s.get(2, 3), 35.0);
    let mut y = Matrix::zeros(5, 7);
    place(&mut y, &s, 1, 2);
    assert_eq!(y.get(3, 5), 35.0);
}
