//! Large host-memory copies, split across threads: the bytes of an upload into mapped staging
//! memory, and of a readback out of it into the result.
//!
//! On the H100 machine one thread moved 64 MiB into fresh host memory at 1.3-1.5 GB/s, against
//! 6.4 GB/s into memory it had touched before (`cargo run --release --example data_path --
//! 4096`, docs/performance.md): a fresh result's first touch of each page costs more than the copy.
//! Several threads fault their own pages in at once and each stream their part of the copy, so
//! both costs divide by the number of threads. Below [`PARALLEL_MIN`] bytes, or on wasm32 (no
//! threads), the copy stays on the calling thread.
//!
//! The parts run on rayon's pool, threads started once per process: started per copy, seven
//! scoped threads took longer to start than their 4 MiB copy took (on the H200's host a 1024²
//! operand's fill of its staging buffer took 0.33–0.53 ms that way). So the bar is low: on one
//! thread each of that product's two operands went up at about 6 GB/s (1.3 ms of a 2.5 ms call),
//! and handing a part to a waiting thread costs microseconds.

/// Copies at least this large are split across threads.
pub const PARALLEL_MIN: usize = 1 << 20;

/// Each thread takes at least this many bytes.
const PER_THREAD_MIN: usize = 512 << 10;

/// Threads at most (more gain nothing once the memory bus is busy).
const THREADS_MAX: usize = 8;

/// Threads to use for a copy of `bytes` bytes.
pub fn threads_for(bytes: usize) -> usize {
    if cfg!(target_arch = "wasm32") || bytes < PARALLEL_MIN {
        return 1;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores.min(THREADS_MAX).min(bytes / PER_THREAD_MIN).max(1)
}

/// Run `f(first_row, rows)` over `rows` rows split into `parts` contiguous runs, each a task on
/// rayon's pool; `take` splits the matching pieces off the destination, at whole rows.
fn split_rows<D: Send>(
    rows: usize,
    parts: usize,
    take: impl Fn(&mut D, usize) -> D,
    #[cfg_attr(target_arch = "wasm32", allow(unused_mut))] mut dst: D,
    f: impl Fn(D, usize, usize) + Sync,
) {
    #[cfg(not(target_arch = "wasm32"))]
    if parts > 1 {
        let per = rows.div_ceil(parts).max(1);
        let mut pieces = Vec::with_capacity(parts);
        let mut first = 0;
        while first < rows {
            let n = per.min(rows - first);
            pieces.push((take(&mut dst, n), first, n));
            first += n;
        }
        rayon::scope(|s| {
            for (piece, first, n) in pieces {
                let f = &f;
                s.spawn(move |_| f(piece, first, n));
            }
        });
        return;
    }
    // On wasm32 there are no threads: one run on the calling thread.
    let _ = (take, parts);
    f(dst, 0, rows);
}

/// A run of write-only bytes handed to one thread (`WriteOnly<[u8]>` is not `Send`).
struct Span(*mut u8, usize);
// SAFETY: each span is a disjoint piece of one mapping that outlives the scoped threads.
unsafe impl Send for Span {}

impl Span {
    /// Split off the first `bytes` bytes (fewer if the span is shorter) as their own span.
    fn take(&mut self, bytes: usize) -> Span {
        let len = bytes.min(self.1);
        let head = Span(self.0, len);
        // SAFETY: `len` ≤ the span's length, so the pointer stays inside the span.
        *self = Span(unsafe { self.0.add(len) }, self.1 - len);
        head
    }
}

/// Copy `rows` rows of `row_bytes` bytes, `pitch` bytes apart in `src`, tightly into `dst`
/// (`rows · row_bytes` bytes), on [`threads_for`] threads.
#[cfg(feature = "internals")]
pub fn copy_rows(dst: &mut [u8], src: &[u8], rows: usize, row_bytes: usize, pitch: usize) {
    let dst = &mut dst[..rows * row_bytes];
    // SAFETY: `dst` is valid for writes of its whole length.
    unsafe { copy_rows_raw(dst.as_mut_ptr(), src, rows, row_bytes, pitch) }
}

/// [`copy_rows`] into `rows · row_bytes` bytes at `dst`, which may be uninitialised.
///
/// # Safety
/// `dst` must be valid for writes of `rows · row_bytes` bytes and not overlap `src`.
pub unsafe fn copy_rows_raw(dst: *mut u8, src: &[u8], rows: usize, row_bytes: usize, pitch: usize) {
    // SAFETY: passed on from the caller; a tight destination has pitch `row_bytes`.
    unsafe { copy_pitched(dst, row_bytes, src, pitch, rows, row_bytes) }
}

/// Copy `rows` tightly packed rows of `row_bytes` bytes from `src` into write-only (mapped
/// staging) memory `dst`, `pitch` bytes apart, on [`threads_for`] threads: the opposite of
/// [`copy_rows`], for a texture upload whose rows a buffer-to-texture copy wants 256-byte
/// aligned. The bytes between rows are left as they were.
pub fn copy_rows_pitched(
    mut dst: wgpu::WriteOnly<'_, [u8]>,
    src: &[u8],
    rows: usize,
    row_bytes: usize,
    pitch: usize,
) {
    assert!(pitch >= row_bytes, "copy_rows_pitched: rows overlap");
    assert!(
        rows == 0 || dst.len() >= (rows - 1) * pitch + row_bytes,
        "copy_rows_pitched: the destination is short"
    );
    // SAFETY: the mapping is valid for writes of its whole length, which the assert above
    // checked covers every row; mapped device memory does not overlap a host slice.
    unsafe {
        copy_pitched(
            dst.as_raw_element_ptr().as_ptr(),
            pitch,
            src,
            row_bytes,
            rows,
            row_bytes,
        )
    }
}

/// Copy `rows` rows of `row_bytes` bytes from `src`, `src_pitch` bytes apart, to `dst`,
/// `dst_pitch` bytes apart, on [`threads_for`] threads (each a contiguous band of rows). Only
/// the rows' own bytes are written.
///
/// # Safety
/// `dst` must be valid for writes of `(rows - 1) · dst_pitch + row_bytes` bytes and not
/// overlap `src`; `dst_pitch ≥ row_bytes`.
unsafe fn copy_pitched(
    dst: *mut u8,
    dst_pitch: usize,
    src: &[u8],
    src_pitch: usize,
    rows: usize,
    row_bytes: usize,
) {
    let span = |pitch: usize| {
        if rows == 0 {
            0
        } else {
            (rows - 1) * pitch + row_bytes
        }
    };
    assert!(
        src.len() >= span(src_pitch),
        "copy_rows: the source is short"
    );
    split_rows(
        rows,
        threads_for(rows * row_bytes),
        |d: &mut Span, n| d.take(n * dst_pitch),
        Span(dst, span(dst_pitch)),
        |out: Span, first, n| {
            // SAFETY: `out` is this thread's own rows of `dst`; the assert above keeps every
            // source row inside `src`.
            unsafe {
                if src_pitch == row_bytes && dst_pitch == row_bytes {
                    std::ptr::copy_nonoverlapping(
                        src.as_ptr().add(first * src_pitch),
                        out.0,
                        out.1,
                    );
                } else {
                    for r in 0..n {
                        std::ptr::copy_nonoverlapping(
                            src.as_ptr().add((first + r) * src_pitch),
                            out.0.add(r * dst_pitch),
                            row_bytes,
                        );
                    }
                }
            }
        },
    );
}

/// Copy `src` into write-only (mapped staging) memory `dst` of the same length, on
/// [`threads_for`] threads.
pub fn copy_into(mut dst: wgpu::WriteOnly<'_, [u8]>, src: &[u8]) {
    assert_eq!(dst.len(), src.len(), "copy_into: lengths differ");
    if threads_for(src.len()) == 1 {
        dst.copy_from_slice(src);
        return;
    }
    const ROW: usize = 4096;
    let rows = src.len().div_ceil(ROW);
    let base = dst.as_raw_element_ptr().as_ptr();
    split_rows(
        rows,
        threads_for(src.len()),
        |d: &mut Span, n| d.take(n * ROW),
        Span(base, src.len()),
        |out: Span, first, _| {
            let at = first * ROW;
            // SAFETY: `out` is the piece of `dst` at byte `at`, `out.1` bytes long, written by
            // this thread alone; `src` has the same length as `dst`, and the two do not overlap
            // (one is mapped device memory, the other a host slice).
            unsafe { std::ptr::copy_nonoverlapping(src.as_ptr().add(at), out.0, out.1) };
        },
    );
}

/// [`copy_into`] for f32 values, saying whether every one is finite: each thread tests a block
/// of values ([`crate::matrix::all_finite`]) and copies it while it is in cache, so the scan
/// reads nothing from memory that the copy does not read anyway. An upload that must refuse a
/// NaN or an infinity learns it here, instead of from a pass of its own over the input.
pub fn copy_f32_scanned(mut dst: wgpu::WriteOnly<'_, [u8]>, src: &[f32]) -> bool {
    let bytes = std::mem::size_of_val(src);
    assert_eq!(dst.len(), bytes, "copy_f32_scanned: lengths differ");
    // Values per block: 16 KiB, well inside the first-level cache.
    const BLOCK: usize = 4096;
    let blocks = src.len().div_ceil(BLOCK);
    let bad = std::sync::atomic::AtomicBool::new(false);
    let base = dst.as_raw_element_ptr().as_ptr();
    split_rows(
        blocks,
        threads_for(bytes),
        |d: &mut Span, n| d.take(n * BLOCK * 4),
        Span(base, bytes),
        |out: Span, first, n| {
            let part = &src[first * BLOCK..((first + n) * BLOCK).min(src.len())];
            let mut finite = true;
            for (i, block) in part.chunks(BLOCK).enumerate() {
                finite &= crate::matrix::all_finite(block);
                // SAFETY: `out` is this thread's piece of `dst`, `part`'s bytes long, written
                // by this thread alone; block i lies i·BLOCK values into it, and mapped device
                // memory does not overlap a host slice.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        block.as_ptr().cast::<u8>(),
                        out.0.add(i * BLOCK * 4),
                        std::mem::size_of_val(block),
                    )
                };
            }
            if !finite {
                bad.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        },
    );
    !bad.into_inner()
}

/// Fill write-only (mapped staging) memory `dst` with `rows` rows of `row_len` elements of `T`,
/// `pitch` bytes apart (at least a row's bytes; a texture's staging rows are padded to 256), on
/// [`threads_for`] threads: `fill(row, out)` writes the whole of row `row` into `out`, a scratch
/// row of the thread's own, which is then copied into place; the bytes between rows are left as
/// they were. For uploads laid out on the way up (converted, packed, padded) straight into the
/// staging buffer, with no intermediate matrix whose fresh pages would cost more to fault in
/// than the copy.
pub fn fill_rows<T: bytemuck::Pod + Send>(
    mut dst: wgpu::WriteOnly<'_, [u8]>,
    rows: usize,
    row_len: usize,
    pitch: usize,
    fill: impl Fn(usize, &mut [T]) + Sync,
) {
    let row_bytes = row_len * std::mem::size_of::<T>();
    assert!(pitch >= row_bytes, "fill_rows: rows overlap");
    assert!(
        rows == 0 || dst.len() >= (rows - 1) * pitch + row_bytes,
        "fill_rows: the destination is short"
    );
    let len = dst.len();
    let base = dst.as_raw_element_ptr().as_ptr();
    split_rows(
        rows,
        threads_for(rows * row_bytes),
        |d: &mut Span, n| d.take(n * pitch),
        Span(base, len),
        |out: Span, first, n| {
            let mut scratch = vec![T::zeroed(); row_len];
            for r in 0..n {
                fill(first + r, &mut scratch);
                // SAFETY: row r of this thread's piece starts r·pitch bytes into `out`, which
                // holds n rows `pitch` apart (the last possibly only `row_bytes` long, as the
                // assert above allows), and is written by this thread alone.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        scratch.as_ptr().cast::<u8>(),
                        out.0.add(r * pitch),
                        row_bytes,
                    )
                };
            }
        },
    );
}

/// Run `fill(first_row, rows)` over `out`'s rows of `row_len` elements, split into contiguous
/// bands on as many threads as [`threads_for`] gives a copy of that size (one below
/// [`PARALLEL_MIN`], and on wasm32); each band is `rows`, the elements of rows `first_row..`.
/// The packing and unpacking of the render-pass methods' RGBA texels use it.
pub fn by_rows<T: Send>(out: &mut [T], row_len: usize, fill: impl Fn(usize, &mut [T]) + Sync) {
    let rows = out.len() / row_len.max(1);
    let threads = threads_for(std::mem::size_of_val(out)).min(rows.max(1));
    if threads <= 1 {
        fill(0, out);
        return;
    }
    let per = rows.div_ceil(threads);
    #[cfg(not(target_arch = "wasm32"))]
    rayon::scope(|s| {
        for (t, band) in out.chunks_mut(per * row_len).enumerate() {
            let fill = &fill;
            s.spawn(move |_| fill(t * per, band));
        }
    });
    #[cfg(target_arch = "wasm32")]
    let _ = per;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_come_out_tight_and_in_order_at_every_thread_count() {
        // 3000 rows of 5 bytes, 8 apart: above PARALLEL_MIN when scaled, so check both paths by
        // calling split_rows directly at several part counts.
        for &(rows, row_bytes, pitch) in
            &[(0, 4, 4), (1, 3, 8), (7, 5, 8), (3000, 5, 8), (64, 4, 4)]
        {
            let src: Vec<u8> = (0..rows * pitch).map(|i| (i * 7 % 251) as u8).collect();
            let want: Vec<u8> = (0..rows)
                .flat_map(|r| src[r * pitch..r * pitch + row_bytes].to_vec())
                .collect();
            let mut got = vec![0xAB; rows * row_bytes];
            copy_rows(&mut got, &src, rows, row_bytes, pitch);
            assert_eq!(got, want, "{rows}x{row_bytes} pitch {pitch}");
            for parts in [1, 2, 3, 8] {
                let mut got = vec![0xAB; rows * row_bytes];
                split_rows(
                    rows,
                    parts,
                    |d: &mut &mut [u8], n| {
                        let (h, t) = std::mem::take(d).split_at_mut(n * row_bytes);
                        *d = t;
                        h
                    },
                    &mut got[..],
                    |out: &mut [u8], first, n| {
                        for r in 0..n {
                            let at = (first + r) * pitch;
                            out[r * row_bytes..(r + 1) * row_bytes]
                                .copy_from_slice(&src[at..at + row_bytes]);
                        }
                    },
                );
                assert_eq!(got, want, "{rows} rows in {parts} parts");
            }
        }
    }

    #[test]
    fn filled_rows_land_in_order_at_every_size() {
        // Below and above PARALLEL_MIN (the second on threads where the machine has them).
        for &(rows, row_len, pad) in &[
            (0usize, 3usize, 0usize),
            (1, 1, 0),
            (5, 7, 0),
            (5, 7, 6),
            (3000, 2000, 0),
            (3000, 2000, 96),
        ] {
            let pitch = row_len * 2 + pad;
            let mut dst = vec![0xABu8; rows * pitch];
            fill_rows(
                wgpu::WriteOnly::from_mut(&mut dst[..]),
                rows,
                row_len,
                pitch,
                |r, out: &mut [u16]| {
                    for (j, v) in out.iter_mut().enumerate() {
                        *v = (r * 31 + j) as u16;
                    }
                },
            );
            let want: Vec<u8> = (0..rows)
                .flat_map(|r| {
                    (0..row_len)
                        .flat_map(move |j| ((r * 31 + j) as u16).to_ne_bytes())
                        .chain(std::iter::repeat_n(0xAB, pad))
                })
                .collect();
            assert!(dst == want, "{rows}x{row_len} + {pad}");
        }
    }

    /// The scanning copy copies every value, and says a NaN or an infinity anywhere (first
    /// block, a block boundary, the last value, a thread's part past the first) is there.
    #[test]
    fn the_scanning_copy_copies_and_finds_every_nonfinite_value() {
        for len in [0usize, 1, 4095, 4097, PARALLEL_MIN / 4 + 4099] {
            let src: Vec<f32> = (0..len).map(|i| (i % 977) as f32 - 400.5).collect();
            let mut dst = vec![0u8; len * 4];
            let finite = copy_f32_scanned(wgpu::WriteOnly::from_mut(&mut dst[..]), &src);
            assert!(finite, "len {len}");
            assert!(dst == bytemuck::cast_slice::<f32, u8>(&src), "len {len}");
            for at in [0, 4095, 4096, len / 2 + 1, len.saturating_sub(1)] {
                if at >= len {
                    continue;
                }
                for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                    let mut w = src.clone();
                    w[at] = bad;
                    let mut dst = vec![0u8; len * 4];
                    let finite = copy_f32_scanned(wgpu::WriteOnly::from_mut(&mut dst[..]), &w);
                    assert!(!finite, "len {len}: {bad} at {at} not seen");
                    assert_eq!(dst[at * 4..at * 4 + 4], bad.to_ne_bytes(), "len {len}");
                }
            }
        }
    }

    #[test]
    fn large_copies_use_threads_and_small_ones_do_not() {
        assert_eq!(threads_for(PARALLEL_MIN - 1), 1);
        assert!(threads_for(64 << 20) <= THREADS_MAX);
        let src: Vec<u8> = (0..PARALLEL_MIN + 12345).map(|i| (i % 253) as u8).collect();
        let mut dst = vec![0u8; src.len()];
        copy_into(wgpu::WriteOnly::from_mut(&mut dst[..]), &src);
        assert_eq!(dst, src);
        let mut tight = vec![0u8; src.len()];
        copy_rows(&mut tight, &src, src.len() / 5, 5, 5);
        assert_eq!(tight[..src.len() / 5 * 5], src[..src.len() / 5 * 5]);
    }

    #[test]
    fn tight_rows_land_at_the_pitch_and_leave_the_gaps_alone() {
        // Small (one thread) and above PARALLEL_MIN (several), each round trip through
        // copy_rows giving the rows back.
        for &(rows, row_bytes, pitch) in &[
            (0, 4, 256),
            (1, 3, 256),
            (7, 12, 256),
            (33, 260, 512),
            (4, 8, 8),
            (PARALLEL_MIN / 200 + 3, 196, 256),
        ] {
            let src: Vec<u8> = (0..rows * row_bytes)
                .map(|i| (i * 13 % 251) as u8)
                .collect();
            let len = if rows == 0 {
                0
            } else {
                (rows - 1) * pitch + row_bytes
            };
            let mut dst = vec![0xABu8; len];
            copy_rows_pitched(
                wgpu::WriteOnly::from_mut(&mut dst[..]),
                &src,
                rows,
                row_bytes,
                pitch,
            );
            for r in 0..rows {
                let row = &dst[r * pitch..r * pitch + row_bytes];
                assert_eq!(row, &src[r * row_bytes..(r + 1) * row_bytes], "row {r}");
                let gap = &dst[(r * pitch + row_bytes).min(len)..((r + 1) * pitch).min(len)];
                assert!(gap.iter().all(|&b| b == 0xAB), "gap after row {r}");
            }
            let mut back = vec![0u8; rows * row_bytes];
            copy_rows(&mut back, &dst, rows, row_bytes, pitch);
            assert_eq!(back, src, "{rows}x{row_bytes} pitch {pitch}");
        }
    }
}
