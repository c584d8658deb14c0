//! The host matrix: row-major `f32`, any shape with both sides at least 1.

use crate::error::{Error, Result};
use rand::{Rng, SeedableRng, rngs::StdRng};

/// A dense row-major `f32` matrix. Element (i, j) lives at `data[i * cols + j]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Matrix {
    pub rows: usize,
    pub cols: usize,
    pub data: Vec<f32>,
}

impl Matrix {
    /// A matrix from row-major data; `data.len()` must be `rows * cols`.
    pub fn new(rows: usize, cols: usize, data: Vec<f32>) -> Result<Self> {
        if data.len() != rows * cols {
            return Err(Error::Invalid(format!(
                "matrix data has {} elements but {rows}x{cols} needs {}",
                data.len(),
                rows * cols
            )));
        }
        Ok(Self { rows, cols, data })
    }

    /// A matrix filled with zeros.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        Self::filled(rows, cols, 0.0)
    }

    /// A matrix filled with one value.
    pub fn filled(rows: usize, cols: usize, value: f32) -> Self {
        Self {
            rows,
            cols,
            data: vec![value; rows * cols],
        }
    }

    /// A matrix from a function of (row, column).
    pub fn from_fn(rows: usize, cols: usize, mut f: impl FnMut(usize, usize) -> f32) -> Self {
        let mut data = Vec::with_capacity(rows * cols);
        for i in 0..rows {
            for j in 0..cols {
                data.push(f(i, j));
            }
        }
        Self { rows, cols, data }
    }

    /// [`Matrix::random`], or an error naming the shape and the memory it would take when the
    /// host cannot hold it (checked before anything is filled; never an allocation abort).
    pub fn try_random(rows: usize, cols: usize, seed: u64, lo: f32, hi: f32) -> Result<Self> {
        let len = elements(rows, cols, "a random matrix")?;
        let mut data: Vec<f32> = Vec::new();
        data.try_reserve_exact(len).map_err(|_| {
            Error::Invalid(format!(
                "a random {rows}x{cols} matrix needs {} of memory, which cannot be allocated",
                human_bytes(4 * len as u128)
            ))
        })?;
        let mut rng = StdRng::seed_from_u64(seed);
        data.extend((0..len).map(|_| rng.random_range(lo..hi)));
        Ok(Self { rows, cols, data })
    }

    /// Uniform random values in `[lo, hi)` from a seeded generator, so runs can be replayed.
    /// Panics if the memory cannot be had; a size from a user goes through
    /// [`Matrix::try_random`].
    pub fn random(rows: usize, cols: usize, seed: u64, lo: f32, hi: f32) -> Self {
        let mut rng = StdRng::seed_from_u64(seed);
        let data = (0..rows * cols).map(|_| rng.random_range(lo..hi)).collect();
        Self { rows, cols, data }
    }

    /// Element (i, j).
    #[inline]
    pub fn get(&self, i: usize, j: usize) -> f32 {
        self.data[i * self.cols + j]
    }

    /// Set element (i, j).
    #[inline]
    pub fn set(&mut self, i: usize, j: usize, v: f32) {
        self.data[i * self.cols + j] = v;
    }

    /// Shape as `(rows, cols)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    /// The transpose.
    pub fn transpose(&self) -> Matrix {
        Matrix::from_fn(self.cols, self.rows, |i, j| self.get(j, i))
    }

    /// Error unless both sides are at least 1.
    pub fn check_nonempty(&self, name: &str) -> Result<()> {
        if self.rows == 0 || self.cols == 0 {
            return Err(Error::Empty {
                name: name.into(),
                rows: self.rows,
                cols: self.cols,
            });
        }
        Ok(())
    }

    /// Error at the first NaN or infinity, naming its row and column ([`first_nonfinite`]).
    pub fn check_finite(&self, name: &str) -> Result<()> {
        match first_nonfinite(&self.data) {
            None => Ok(()),
            Some(idx) => Err(Error::NonFinite {
                name: name.into(),
                row: idx / self.cols,
                col: idx % self.cols,
                value: self.data[idx],
            }),
        }
    }

    /// Largest absolute value (0 for an all-zero matrix).
    pub fn max_abs(&self) -> f32 {
        self.data.iter().fold(0.0f32, |m, v| m.max(v.abs()))
    }
}

/// The index of the first NaN or infinity in `v`, if any.
///
/// Every multiply scans both inputs before any work, so the scan must cost little beside the
/// product: a plain `position(|x| !x.is_finite())` took 40 ms for two 4096² matrices on the
/// H200's host, as long as the product's whole upload. Here each block of 4096 values is tested
/// without an early exit (exponent bits all ones), which the compiler vectorises, the first block
/// that holds one is searched value by value, and a large input is split over the host's cores.
pub fn first_nonfinite(v: &[f32]) -> Option<usize> {
    const BLOCK: usize = 1 << 12;
    const EXPONENT: u32 = 0x7f80_0000;
    let any = |b: &[f32]| {
        b.iter().fold(0u32, |acc, x| {
            acc | u32::from(x.to_bits() & EXPONENT == EXPONENT)
        }) != 0
    };
    let scan = |start: usize, part: &[f32]| -> Option<usize> {
        let (i, b) = part.chunks(BLOCK).enumerate().find(|(_, b)| any(b))?;
        Some(start + i * BLOCK + b.iter().position(|x| !x.is_finite())?)
    };
    #[cfg(not(target_arch = "wasm32"))]
    if v.len() >= 1 << 22 {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
        if threads > 1 {
            let per = v.len().div_ceil(threads);
            return std::thread::scope(|s| {
                let parts: Vec<_> = v
                    .chunks(per)
                    .enumerate()
                    .map(|(t, part)| s.spawn(move || scan(t * per, part)))
                    .collect();
                parts
                    .into_iter()
                    .filter_map(|h| h.join().ok().flatten())
                    .min()
            });
        }
    }
    scan(0, v)
}

/// Check that `a · b` is a valid product of non-empty matrices.
pub fn check_product(a: &Matrix, b: &Matrix) -> Result<()> {
    a.check_nonempty("A")?;
    b.check_nonempty("B")?;
    if a.cols != b.rows {
        return Err(Error::ShapeMismatch {
            a_rows: a.rows,
            a_cols: a.cols,
            b_rows: b.rows,
            b_cols: b.cols,
        });
    }
    Ok(())
}

/// `rows * cols`, or an error naming `what`, its shape and its size in bytes when the count
/// of elements (or of their bytes) overflows.
pub fn elements(rows: usize, cols: usize, what: &str) -> Result<usize> {
    rows.checked_mul(cols)
        .filter(|n| n.checked_mul(4).is_some())
        .ok_or_else(|| {
            Error::Invalid(format!(
                "{what} of {rows}x{cols} would take {} of memory, more than this machine can address",
                human_bytes(rows as u128 * cols as u128 * 4)
            ))
        })
}

/// Bytes for people: `512 B`, `3.0 KiB`, `1.5 GiB`, `35.5 PiB`.
pub fn human_bytes(bytes: u128) -> String {
    const UNITS: [&str; 7] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// Parse a shape such as `65x100x37` into `(m, k, n)`.
pub fn parse_mkn(s: &str) -> Result<(usize, usize, usize)> {
    let parts: Vec<&str> = s.split(['x', 'X', '*']).collect();
    let bad = || {
        Error::Invalid(format!(
            "--random '{s}': expected MxKxN with positive integers, e.g. 65x100x37"
        ))
    };
    if parts.len() != 3 {
        return Err(Error::Invalid(format!(
            "--random '{s}': expected three sizes MxKxN, got {}, e.g. 65x100x37",
            parts.len()
        )));
    }
    let mut v = [0usize; 3];
    for (slot, p) in v.iter_mut().zip(&parts) {
        let p = p.trim();
        *slot = p.parse().map_err(|e: std::num::ParseIntError| {
            if *e.kind() == std::num::IntErrorKind::PosOverflow {
                Error::Invalid(format!(
                    "--random '{s}': {p} is too large a size (at most {} on this machine)",
                    usize::MAX
                ))
            } else {
                bad()
            }
        })?;
        if *slot == 0 {
            return Err(Error::Invalid(format!(
                "--random '{s}': every dimension must be at least 1"
            )));
        }
    }
    Ok((v[0], v[1], v[2]))
}

#[cfg(test)]
mod tests {
    use super::first_nonfinite;

    /// The fast scan finds the first NaN or infinity wherever it lies — first or last element,
    /// at a block's edge, in a later thread's part of a large input with another one after it —
    /// and nothing in a finite input (largest, smallest and subnormal values included).
    #[test]
    fn the_scan_finds_the_first_non_finite_value_wherever_it_lies() {
        for len in [1usize, 4095, 4096, 4097, (1 << 22) + 12_345] {
            let mut v = vec![1.5f32; len];
            v[len / 3] = f32::MAX;
            v[len / 2] = f32::MIN_POSITIVE / 4.0;
            assert_eq!(first_nonfinite(&v), None, "len {len}");
            let spots = [0, 4095, 4096, len / 2 + 1, len - 1];
            for (bad, &at) in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY]
                .iter()
                .cycle()
                .zip(&spots)
            {
                if at >= len {
                    continue;
                }
                let mut w = v.clone();
                w[at] = *bad;
                if at + 7 < len {
                    w[len - 1] = f32::NAN; // a later one is not the first
                }
                assert_eq!(first_nonfinite(&w), Some(at), "len {len}, {bad} at {at}");
            }
        }
    }
}
