//! Hall, Carr & Hart (2003), §4, equations (8)-(11): the 2×2 channel-packed multiply.
//!
//! Each matrix is cut into quadrants and stored as one `Rgba32Float` texture of half its size in
//! each direction (eq. 8): texel (i, j) of X = (A B; C D) holds `(A[i][j], B[i][j], C[i][j],
//! D[i][j])` in (r, g, b, a). One pass draws a quad over the ⌈m/2⌉×⌈n/2⌉ packed target; its
//! fragment (i, j) sums, over the pass's block of packed p, `X.rrbb·Y.rgrg + X.ggaa·Y.baba`
//! (eq. 10-11) — all four quadrants of Z = (AE+BG AF+BH; CE+DG CF+DH) at once, two 4-wide
//! multiply-adds per p — adds the running sum, and writes it. ⌈(k/2)/b⌉ passes; the passes, the
//! accumulation modes and the timing are those of [`super::hall_blocked`], run on 4-channel
//! textures.
//!
//! Odd m, k or n: the matrix is padded with zeros to even sides before it is cut, so a quadrant
//! boundary is at ⌈rows/2⌉ and ⌈cols/2⌉. Padded columns of A meet padded rows of B, so they add
//! zero products; padded rows and columns of C are never unpacked, so the padding never shows.
//!
//! Packing and unpacking run on the CPU, inside `upload_ms` and `readback_ms`: [`pack`] is one
//! linear pass that writes the upload buffer directly (the packed texture has the same number of
//! bytes as the unpacked one, plus the padding), whereas packing on the GPU would need the
//! unpacked matrix resident as a second texture and an extra render pass, and would gain nothing
//! on a layout change that is a memory shuffle. Unpacking likewise reads the one RGBA readback
//! once. The packed textures themselves are what the passes see, and what the observer gets:
//! [`read_unpacked`] turns such a texture back into a matrix.
//!
//! Precision (`Params::precision`): as [`super::hall_blocked`], in four channels — f32
//! `Rgba32Float`, f16 `Rgba16Float` (also blend mode's fallback where 32-bit floats cannot be blended),
//! u8 `Rgba8Unorm`: inputs in [0, 1] quantized to 8 bits before packing, each channel's 2b
//! products of a pass summed exactly in integers, rounded to 8 bits once per pass and saturated
//! at 1.0 by the store or the blend. CPU model: [`crate::precision::u8_model_packed`];
//! `--scale-by-depth` (polygon colour 1/k, k the unpacked inner dimension) as in hall-blocked.
//!
//! Shader: `shaders/hall_packed.wgsl`.

use super::hall_common::{Engine, PACKED, PrecisionSetup, block_size};
#[cfg_attr(not(feature = "internals"), allow(unused_imports))]
pub use super::hall_common::{
    pack, packed_shape, read_unpacked, unpack, unpack_bytes, upload_packed, upload_packed_as,
};
use super::{Method, Params};
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::gpu::run::Work;
use crate::matrix::Matrix;

/// Loop iterations of one fragment of a pass over depth `k`, for drivers that cap them
/// ([`super::Loops`]): the block loop over packed k (b + 1 iterations, b at most ⌈k/2⌉) and the
/// two 64-step divisions of the u8 widths' `pass_steps` (65 each) for each of the 4 channels.
pub fn loop_iterations(k: usize) -> u64 {
    k.div_ceil(2) as u64 + 1 + 4 * 2 * 65
}

/// Record `a · b` in ⌈⌈k/2⌉/b⌉ channel-packed passes, at `opts.precision`, for the runner: as
/// [`super::hall_blocked::record`], on packed textures, the observer (`opts.observe`) shown the
/// packed running sum, the readback unpacked on the CPU.
pub fn record(ctx: &GpuContext, a: &Matrix, b: &Matrix, opts: &Params) -> Result<Work> {
    let per_pass = opts.observe;
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let block = block_size(ctx, opts.block)?;
    let (m2, k2) = packed_shape(m, k);
    let n2 = n.div_ceil(2);
    let setup = PrecisionSetup::new(ctx, opts, a, b, 2 * (block as usize).min(k2))?;
    let precision = setup.precision;
    let sum_format = setup.sum_format(ctx, Method::HallPacked, 4, opts.accumulate)?;
    crate::gpu::texture::check_target(ctx, "C packed", m2, n2, sum_format)?;

    let xt = upload_packed_as(ctx, "A packed", a, precision)?;
    let yt = upload_packed_as(ctx, "B packed", b, precision)?;
    // The pipelines' build time is setup, kept out of the upload time.
    let built = crate::clock::Instant::now();
    let engine = Engine::build_bits(
        ctx,
        &PACKED,
        sum_format,
        setup.u8_depth,
        setup.bits,
        &xt,
        &yt,
        k2,
        block,
        opts.accumulate,
    )?;
    let mut work = Work::new(engine.passes());
    work.sums = Some(precision);
    work.setup_ms = crate::gpu::run::ms(built);
    let rec = engine.record(ctx, &mut work, None, per_pass)?;
    let reduced = setup.read_result(ctx, &mut work, &rec.result, 4)?;
    work.notes = rec.notes(&format!("{m2}x{n2} RGBA"), block, k2);
    work.notes.push(format!(
        "2x2 channel-packed (eq. 8): A {m}x{k} as {m2}x{k2} RGBA, B {k}x{n} as {k2}x{n2} RGBA; packed and unpacked on the CPU"
    ));
    let (notes, rescale) = setup.finish(rec.passes, &format!("{sum_format:?}"), reduced);
    work.notes.extend(notes);
    // Unpacking runs on the CPU inside readback_ms, as packing runs inside upload_ms.
    work.finish(move |bytes| {
        let mut c = unpack_bytes(precision, &bytes[0], m, n)?;
        rescale.apply(&mut c);
        Ok(vec![c])
    });
    Ok(work)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::precision::Precision;

    /// Eq. (8) element by element, bounds-tested: the reference for [`pack`].
    fn pack_reference(x: &Matrix) -> Vec<[f32; 4]> {
        let (h, w) = packed_shape(x.rows, x.cols);
        let at = |i: usize, j: usize| {
            if i < x.rows && j < x.cols {
                x.get(i, j)
            } else {
                0.0
            }
        };
        let mut out = Vec::with_capacity(h * w);
        for i in 0..h {
            for j in 0..w {
                out.push([at(i, j), at(i, j + w), at(i + h, j), at(i + h, j + w)]);
            }
        }
        out
    }

    /// The inverse of eq. (8) element by element: the reference for [`unpack`].
    fn unpack_reference(texels: &[[f32; 4]], rows: usize, cols: usize) -> Matrix {
        let (h, w) = packed_shape(rows, cols);
        Matrix::from_fn(rows, cols, |i, j| {
            let channel = 2 * usize::from(i >= h) + usize::from(j >= w);
            texels[(i % h) * w + j % w][channel]
        })
    }

    fn bits(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn pack_and_unpack_match_the_element_formulas() {
        // 1500x1501 packs into 9 MB of texels and unpacks into 9 MB of f32s: above
        // `threads_for`'s threshold, so both go through the banded path where there are cores.
        let shapes = [
            (1, 1),
            (1, 2),
            (2, 1),
            (1, 7),
            (7, 1),
            (2, 2),
            (3, 3),
            (5, 9),
            (13, 17),
            (31, 8),
            (8, 31),
            (64, 33),
            (97, 101),
            (1500, 1501),
        ];
        for (s, &(rows, cols)) in shapes.iter().enumerate() {
            let x = Matrix::random(rows, cols, 7 + s as u64, -1.0, 1.0);
            let texels = pack(&x);
            let want = pack_reference(&x);
            assert_eq!(texels.len(), want.len(), "{rows}x{cols}");
            assert_eq!(
                bits(bytemuck::cast_slice(&texels)),
                bits(bytemuck::cast_slice(&want)),
                "pack {rows}x{cols}"
            );
            // Unpack arbitrary texels (padding channels nonzero too): the padding is dropped.
            let (h, w) = packed_shape(rows, cols);
            let noisy = Matrix::random(h, 4 * w, 1000 + s as u64, -2.0, 2.0);
            let noisy: &[[f32; 4]] = bytemuck::cast_slice(&noisy.data);
            let got = unpack(noisy, rows, cols).unwrap();
            let want = unpack_reference(noisy, rows, cols);
            assert_eq!((got.rows, got.cols), (rows, cols));
            assert_eq!(bits(&got.data), bits(&want.data), "unpack {rows}x{cols}");
            // Round trip, through the bytes as read back.
            let back =
                unpack_bytes(Precision::F32, bytemuck::cast_slice(&texels), rows, cols).unwrap();
            assert_eq!(bits(&back.data), bits(&x.data), "round trip {rows}x{cols}");
            for p in [Precision::F16, Precision::U8] {
                let bytes = p.encode(bytemuck::cast_slice(&texels));
                let got = unpack_bytes(p, &bytes, rows, cols).unwrap();
                let values = p.decode(&bytes);
                let want = unpack_reference(bytemuck::cast_slice(&values), rows, cols);
                assert_eq!(bits(&got.data), bits(&want.data), "{p:?} {rows}x{cols}");
            }
        }
    }

    #[test]
    fn empty_and_wrong_sizes() {
        assert!(pack(&Matrix::zeros(0, 0)).is_empty());
        assert!(pack(&Matrix::zeros(3, 0)).is_empty());
        assert!(pack(&Matrix::zeros(0, 3)).is_empty());
        let m = unpack(&[], 0, 5).unwrap();
        assert_eq!((m.rows, m.cols, m.data.len()), (0, 5, 0));
        let m = unpack(&[], 5, 0).unwrap();
        assert_eq!((m.rows, m.cols, m.data.len()), (5, 0, 0));
        assert!(unpack(&[[0.0; 4]; 3], 3, 3).is_err());
        assert!(unpack_bytes(Precision::F32, &[0u8; 32], 1, 1).is_err());
        assert!(unpack_bytes(Precision::F16, &[0u8; 10], 1, 2).is_ok());
    }
}
