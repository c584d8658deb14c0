//! The host matrix: row-major `f32`, any shape with both sides at least 1.

use crate::error::{Error, Result};
use rand::{Rng, SeedableRng, rngs::StdRng};
#[cfg(not(target_arch = "wasm32"))]
use std::any::Any;
use std::fmt;
use std::ops::{Deref, DerefMut};
#[cfg(not(target_arch = "wasm32"))]
use std::sync::Arc;

/// A dense row-major `f32` matrix. Element (i, j) lives at `data[i * cols + j]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Matrix {
    pub rows: usize,
    pub cols: usize,
    pub data: Data,
}

/// A matrix's values: a `Vec<f32>` of its own, or memory it reads in place (a caller's array,
/// see [`Matrix::borrowed`]) so a large input is not copied before its upload. Either way it
/// reads as a `[f32]`; writing to a borrowed one first copies it into a Vec of its own (copy on
/// write), and a clone always owns its values.
#[derive(Default)]
pub struct Data(Repr);

enum Repr {
    Owned(Vec<f32>),
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    Borrowed(Borrowed),
}

impl Default for Repr {
    fn default() -> Self {
        Repr::Owned(Vec::new())
    }
}

/// Values read in place: `len` f32 at `ptr`, kept valid and unmodified by the caller of
/// [`Matrix::borrowed`] for as long as the `Data` lives, and `owner`, held alive with it.
#[cfg(not(target_arch = "wasm32"))]
struct Borrowed {
    ptr: *const f32,
    len: usize,
    /// Whatever keeps the memory alive, held as long as the values are (dropped with them).
    _owner: Option<Arc<dyn Any + Send + Sync>>,
}

/// In a browser nothing is read in place (the page owns its inputs): the variant cannot exist,
/// and every read of a matrix compiles to a plain Vec's, as small as before.
#[cfg(target_arch = "wasm32")]
enum Borrowed {}

impl Borrowed {
    #[cfg(not(target_arch = "wasm32"))]
    #[inline]
    fn values(&self) -> &[f32] {
        // SAFETY: `Matrix::borrowed`'s caller guarantees `len` initialised f32 at `ptr`,
        // valid and unmodified while this `Data` lives; the slice borrows `self`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    #[cfg(target_arch = "wasm32")]
    #[inline]
    fn values(&self) -> &[f32] {
        match *self {}
    }
}

// SAFETY: a `Borrowed` only ever reads its memory (never writes it, never frees it), and
// `Matrix::borrowed`'s caller guarantees that memory stays valid and unmodified for as long as
// the `Data` lives, from whichever thread. Shared reads of unchanging `f32`s from any number of
// threads are sound, so moving or sharing it across threads is as safe as for a `&[f32]`.
// The owner handle is itself `Send + Sync`.
#[cfg(not(target_arch = "wasm32"))]
unsafe impl Send for Borrowed {}
// SAFETY: as for `Send` above: only shared reads of memory that does not change.
#[cfg(not(target_arch = "wasm32"))]
unsafe impl Sync for Borrowed {}

impl Data {
    /// Whether the values are read in place from memory the matrix does not own.
    pub fn is_borrowed(&self) -> bool {
        matches!(self.0, Repr::Borrowed(_))
    }

    /// The values as a Vec: an owned one moved out as it is (no copy, no reallocation), a
    /// borrowed one copied.
    pub fn into_vec(self) -> Vec<f32> {
        match self.0 {
            Repr::Owned(v) => v,
            Repr::Borrowed(_) => self.to_vec(),
        }
    }

    /// The values as a Vec of their own, copied first where they are borrowed.
    pub fn to_mut(&mut self) -> &mut Vec<f32> {
        if let Repr::Borrowed(_) = self.0 {
            self.0 = Repr::Owned(self.to_vec());
        }
        match &mut self.0 {
            Repr::Owned(v) => v,
            Repr::Borrowed(_) => unreachable!("a borrowed Data was just made owned"),
        }
    }
}

impl Deref for Data {
    type Target = [f32];

    #[inline]
    fn deref(&self) -> &[f32] {
        match &self.0 {
            Repr::Owned(v) => v,
            Repr::Borrowed(b) => b.values(),
        }
    }
}

impl DerefMut for Data {
    #[inline]
    fn deref_mut(&mut self) -> &mut [f32] {
        self.to_mut()
    }
}

impl Clone for Data {
    fn clone(&self) -> Self {
        Data(Repr::Owned(self.to_vec()))
    }
}

impl fmt::Debug for Data {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl PartialEq for Data {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl PartialEq<Vec<f32>> for Data {
    fn eq(&self, other: &Vec<f32>) -> bool {
        **self == **other
    }
}

impl PartialEq<[f32]> for Data {
    fn eq(&self, other: &[f32]) -> bool {
        **self == *other
    }
}

impl PartialEq<&[f32]> for Data {
    fn eq(&self, other: &&[f32]) -> bool {
        **self == **other
    }
}

impl<const N: usize> PartialEq<[f32; N]> for Data {
    fn eq(&self, other: &[f32; N]) -> bool {
        **self == other[..]
    }
}

impl<const N: usize> PartialEq<&[f32; N]> for Data {
    fn eq(&self, other: &&[f32; N]) -> bool {
        **self == other[..]
    }
}

impl PartialEq<Data> for Vec<f32> {
    fn eq(&self, other: &Data) -> bool {
        **self == **other
    }
}

impl PartialEq<Data> for [f32] {
    fn eq(&self, other: &Data) -> bool {
        *self == **other
    }
}

impl PartialEq<Data> for &[f32] {
    fn eq(&self, other: &Data) -> bool {
        **self == **other
    }
}

impl From<Vec<f32>> for Data {
    fn from(v: Vec<f32>) -> Self {
        Data(Repr::Owned(v))
    }
}

impl From<Data> for Vec<f32> {
    fn from(d: Data) -> Self {
        d.into_vec()
    }
}

impl<'a> IntoIterator for &'a Data {
    type Item = &'a f32;
    type IntoIter = std::slice::Iter<'a, f32>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl FromIterator<f32> for Data {
    fn from_iter<I: IntoIterator<Item = f32>>(iter: I) -> Self {
        Data(Repr::Owned(iter.into_iter().collect()))
    }
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
        Ok(Self {
            rows,
            cols,
            data: data.into(),
        })
    }

    /// A matrix that reads `len` f32 at `ptr` in place, without copying them: the values of a
    /// caller's array handed straight to the upload. `owner`, if given, is held for as long as
    /// the matrix's values are (dropped with them). Writing to the matrix's values copies them
    /// first ([`Data`] is copy on write), and a clone owns a copy, so the memory is only read.
    /// `len` must be `rows * cols`.
    ///
    /// # Safety
    ///
    /// `ptr` must point at `len` initialised, properly aligned `f32` in one allocation, and that
    /// memory must stay valid (not freed, not moved) and unmodified (by no one, through no
    /// alias) for as long as the returned `Matrix` lives — from whichever thread it is read.
    /// Clones own their values and carry no such obligation; a `Vec` from
    /// [`Data::into_vec`] is a copy.
    #[cfg(not(target_arch = "wasm32"))]
    pub unsafe fn borrowed(
        rows: usize,
        cols: usize,
        ptr: *const f32,
        len: usize,
        owner: Option<Arc<dyn Any + Send + Sync>>,
    ) -> Result<Self> {
        if Some(len) != rows.checked_mul(cols) {
            return Err(Error::Invalid(format!(
                "matrix data has {len} elements but {rows}x{cols} needs {}",
                rows.saturating_mul(cols)
            )));
        }
        if len == 0 {
            // An empty slice still needs a non-null, aligned pointer: own an empty Vec instead.
            return Self::new(rows, cols, Vec::new());
        }
        if ptr.is_null() || !ptr.is_aligned() {
            return Err(Error::Internal(format!(
                "Matrix::borrowed: {ptr:p} is not an aligned f32 pointer"
            )));
        }
        Ok(Self {
            rows,
            cols,
            data: Data(Repr::Borrowed(Borrowed {
                ptr,
                len,
                _owner: owner,
            })),
        })
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
            data: vec![value; rows * cols].into(),
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
        Self {
            rows,
            cols,
            data: data.into(),
        }
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
        Ok(Self {
            rows,
            cols,
            data: data.into(),
        })
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

/// Refuse a NaN or an infinity that an upload saw in `a` or `b` as it copied them (`finite`
/// false), in [`Matrix::check_finite`]'s words, unless `allowed`: the methods whose uploads
/// test the values on the way up ([`crate::methods::Method::scans_inputs_on_upload`]) call this
/// in place of a pass of their own over the inputs before any work. Only when the upload saw
/// one are the inputs searched for it, to name its place.
pub fn refuse_nonfinite(finite: bool, allowed: bool, a: &Matrix, b: &Matrix) -> Result<()> {
    if finite || allowed {
        return Ok(());
    }
    a.check_finite("A")?;
    b.check_finite("B")
}

/// Whether every value of `block` is finite: one test of the exponent bits (all ones in a NaN
/// or an infinity) per value, with no early exit, which the compiler vectorises. The uploads
/// that scan the inputs as they copy them ([`crate::gpu::host::copy_f32_scanned`]) test each
/// block with it while the block is in cache.
pub fn all_finite(block: &[f32]) -> bool {
    const EXPONENT: u32 = 0x7f80_0000;
    block.iter().fold(0u32, |acc, x| {
        acc | u32::from(x.to_bits() & EXPONENT == EXPONENT)
    }) == 0
}

/// The index of the first NaN or infinity in `v`, if any.
///
/// A multiply by a method that does not test its inputs as it uploads them
/// ([`crate::methods::Method::scans_inputs_on_upload`]) scans both first, so the scan must cost little beside the
/// product: a plain `position(|x| !x.is_finite())` took 40 ms for two 4096² matrices on the
/// H200's host, as long as the product's whole upload. Here each block of 4096 values is tested
/// without an early exit (exponent bits all ones), which the compiler vectorises, the first block
/// that holds one is searched value by value, and a large input is split over the host's cores.
pub fn first_nonfinite(v: &[f32]) -> Option<usize> {
    const BLOCK: usize = 1 << 12;
    let scan = |start: usize, part: &[f32]| -> Option<usize> {
        let (i, b) = part
            .chunks(BLOCK)
            .enumerate()
            .find(|(_, b)| !all_finite(b))?;
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

/// The first chunk of A and of B of a tiled block, after checking that there is one and that
/// A and B come in as many chunks: what every method's chunk loop starts from.
pub fn first_chunks<'a>(a: &'a [Matrix], b: &'a [Matrix]) -> Result<(&'a Matrix, &'a Matrix)> {
    let (Some(a0), Some(b0)) = (a.first(), b.first()) else {
        return Err(Error::Internal(
            "a tiled block needs at least one chunk of k".into(),
        ));
    };
    if a.len() != b.len() {
        return Err(Error::Internal(format!(
            "a tiled block's chunks of k: {} of A, {} of B",
            a.len(),
            b.len()
        )));
    }
    Ok((a0, b0))
}

#[cfg(test)]
mod tests {
    use super::{Data, Matrix, first_nonfinite};
    use std::sync::Arc;

    /// A matrix over `src` read in place (the test keeps `src` alive and unwritten meanwhile).
    fn over(src: &[f32], rows: usize, cols: usize) -> Matrix {
        // SAFETY: `src` outlives every matrix the tests make with it and is not written while
        // they live (each test drops or mutates its copy before touching `src`).
        unsafe { Matrix::borrowed(rows, cols, src.as_ptr(), src.len(), None) }.unwrap()
    }

    /// A borrowed matrix reads the source memory itself, not a copy.
    #[test]
    fn a_borrowed_matrix_reads_its_source_in_place() {
        let src: Vec<f32> = (0..12).map(|i| i as f32).collect();
        let m = over(&src, 3, 4);
        assert!(m.data.is_borrowed());
        assert_eq!(m.data.as_ptr(), src.as_ptr());
        assert_eq!(m.data.len(), 12);
        assert_eq!(m.get(2, 1), 9.0);
        assert_eq!(m.max_abs(), 11.0);
        assert_eq!(m, Matrix::new(3, 4, src.clone()).unwrap());
    }

    /// Writing through `DerefMut` copies first: the matrix owns new memory and the source keeps
    /// its values.
    #[test]
    fn writing_to_a_borrowed_matrix_copies_it_first() {
        let src = vec![1.0f32, 2.0, 3.0, 4.0];
        let mut m = over(&src, 2, 2);
        m.set(0, 1, 20.0);
        assert!(!m.data.is_borrowed());
        assert_ne!(m.data.as_ptr(), src.as_ptr());
        assert_eq!(m.data, [1.0, 20.0, 3.0, 4.0]);
        assert_eq!(src, [1.0, 2.0, 3.0, 4.0]);
        let mut n = over(&src, 2, 2);
        n.data.fill(0.0);
        assert_eq!(n.data, [0.0; 4]);
        assert_eq!(src, [1.0, 2.0, 3.0, 4.0]);
    }

    /// A clone owns a copy of the values, and a borrowed `into_vec` copies too.
    #[test]
    fn a_clone_of_a_borrowed_matrix_owns_its_values() {
        let src = vec![5.0f32, 6.0, 7.0];
        let m = over(&src, 1, 3);
        let c = m.clone();
        assert!(!c.data.is_borrowed());
        assert_ne!(c.data.as_ptr(), src.as_ptr());
        assert_eq!(c, m);
        let v = m.data.into_vec();
        assert_ne!(v.as_ptr(), src.as_ptr());
        assert_eq!(v, src);
    }

    /// An owned matrix's values move out of `into_vec` without a copy or a reallocation.
    #[test]
    fn into_vec_of_an_owned_matrix_moves_the_vec_out() {
        let mut v = Vec::with_capacity(100);
        v.extend([1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let (ptr, cap) = (v.as_ptr(), v.capacity());
        let m = Matrix::new(2, 3, v).unwrap();
        assert!(!m.data.is_borrowed());
        assert_eq!(m.data.as_ptr(), ptr);
        let back = m.data.into_vec();
        assert_eq!((back.as_ptr(), back.capacity()), (ptr, cap));
    }

    /// Equality is by values, whatever holds them; `Debug` prints the values as a list.
    #[test]
    fn data_compares_by_values() {
        let src = vec![1.0f32, -0.0, 2.5];
        let borrowed = over(&src, 1, 3);
        let owned = Data::from(vec![1.0f32, 0.0, 2.5]);
        assert_eq!(borrowed.data, owned); // -0.0 == 0.0, as for Vec<f32>
        assert_eq!(borrowed.data, vec![1.0, 0.0, 2.5]);
        assert_ne!(borrowed.data, Data::from(vec![1.0f32, 0.0]));
        assert_ne!(Data::from(vec![f32::NAN]), Data::from(vec![f32::NAN]));
        assert_eq!(format!("{:?}", borrowed.data), "[1.0, -0.0, 2.5]");
        assert_eq!(Data::default().len(), 0);
    }

    /// The owner handle is held while the matrix is and let go with it; a wrong length, a null
    /// or misaligned pointer is refused, and an empty matrix owns an empty Vec.
    #[test]
    fn borrowed_keeps_its_owner_and_checks_its_pointer() {
        let owner: Arc<Vec<f32>> = Arc::new(vec![1.0, 2.0]);
        let any: Arc<dyn std::any::Any + Send + Sync> = owner.clone();
        // SAFETY: the values live in `owner`, which the matrix itself keeps alive, unwritten.
        let m = unsafe { Matrix::borrowed(2, 1, owner.as_ptr(), 2, Some(any)) }.unwrap();
        assert_eq!(Arc::strong_count(&owner), 2);
        assert_eq!(m.data.as_ptr(), owner.as_ptr());
        drop(m);
        assert_eq!(Arc::strong_count(&owner), 1);
        let src = [0.0f32; 4];
        // SAFETY: each of these is refused or empty before any memory is read.
        unsafe {
            assert!(Matrix::borrowed(3, 1, src.as_ptr(), 4, None).is_err());
            assert!(Matrix::borrowed(1, 1, std::ptr::null(), 1, None).is_err());
            let odd = src.as_ptr().cast::<u8>().wrapping_add(1).cast::<f32>();
            assert!(Matrix::borrowed(1, 1, odd, 1, None).is_err());
            let empty = Matrix::borrowed(0, 3, std::ptr::null(), 0, None).unwrap();
            assert!(!empty.data.is_borrowed() && empty.data.is_empty());
        }
    }

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
