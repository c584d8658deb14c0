//! Hall–Carr–Hart §4's packed layout (eq. 8): a matrix's 2×2 quadrants as the four channels of
//! an RGBA texel, packed on upload and unpacked on readback.

use crate::error::Error;
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::gpu::run::Read;
use crate::gpu::run::Work;
use crate::gpu::run::run;
use crate::gpu::texture::INPUT_USAGE;
use crate::gpu::texture::MatrixTexture;
use crate::matrix::Matrix;
use crate::precision::Precision;

/// Size of the packed texture of a `rows × cols` matrix: (⌈rows/2⌉, ⌈cols/2⌉).
pub fn packed_shape(rows: usize, cols: usize) -> (usize, usize) {
    (rows.div_ceil(2), cols.div_ceil(2))
}

/// Eq. (8): the texels of `x`'s packed texture, row-major, `[r, g, b, a]` = the (i, j) elements of
/// the top-left, top-right, bottom-left and bottom-right quadrants of `x` zero-padded to even
/// sides.
///
/// Texel row i is rows i and i + h of `x` (h = ⌈rows/2⌉), each split at column w = ⌈cols/2⌉;
/// only the padding (row i + h when rows is odd, column w - 1's right half when cols is odd) is
/// zero. Large matrices are packed a band of texel rows per thread.
pub fn pack(x: &Matrix) -> Vec<[f32; 4]> {
    let (h, w) = packed_shape(x.rows, x.cols);
    // Zeroed pages from the allocator, faulted in by the threads that fill them.
    let mut out: Vec<[f32; 4]> = bytemuck::zeroed_vec(h * w);
    if out.is_empty() {
        return out;
    }
    let (rows, cols) = (x.rows, x.cols);
    crate::gpu::host::by_rows(&mut out, w, |first, band| {
        for (di, texels) in band.chunks_mut(w).enumerate() {
            let i = first + di;
            let (tl, tr) = x.data[i * cols..][..cols].split_at(w);
            // tr is w or, for odd cols, w - 1 long: the zips stop there, the last texel's right
            // half stays zero.
            if i + h < rows {
                let (bl, br) = x.data[(i + h) * cols..][..cols].split_at(w);
                for ((t, (&a, &b)), (&c, &d)) in texels
                    .iter_mut()
                    .zip(tl.iter().zip(tr))
                    .zip(bl.iter().zip(br))
                {
                    *t = [a, b, c, d];
                }
                if tr.len() < w {
                    texels[w - 1] = [tl[w - 1], 0.0, bl[w - 1], 0.0];
                }
            } else {
                // Row i + h is padding (odd rows): the bottom halves stay zero.
                for (t, (&a, &b)) in texels.iter_mut().zip(tl.iter().zip(tr)) {
                    *t = [a, b, 0.0, 0.0];
                }
                if tr.len() < w {
                    texels[w - 1] = [tl[w - 1], 0.0, 0.0, 0.0];
                }
            }
        }
    });
    out
}

/// The inverse of [`pack`]: the `rows × cols` matrix whose packed texels (⌈rows/2⌉ × ⌈cols/2⌉ of
/// them, row-major) are `texels`. The padding is dropped.
///
/// Row i of the matrix is texel row i mod h, channels (r, g) for i < h and (b, a) below, the
/// first channel filling columns 0..w and the second columns w..cols. Large matrices are
/// unpacked a band of rows per thread.
pub fn unpack(texels: &[[f32; 4]], rows: usize, cols: usize) -> Result<Matrix> {
    let (h, w) = packed_shape(rows, cols);
    if texels.len() != h * w {
        return Err(Error::Invalid(format!(
            "unpack: {} texels given, a {rows}x{cols} matrix packs into {h}x{w} = {}",
            texels.len(),
            h * w
        )));
    }
    let mut data: Vec<f32> = bytemuck::zeroed_vec(rows * cols);
    if data.is_empty() {
        return Matrix::new(rows, cols, data);
    }
    crate::gpu::host::by_rows(&mut data, cols, |first, band| {
        for (di, row) in band.chunks_mut(cols).enumerate() {
            let i = first + di;
            let (ti, ch) = if i < h { (i, 0) } else { (i - h, 2) };
            let src = &texels[ti * w..][..w];
            let (left, right) = row.split_at_mut(w);
            for (v, t) in left.iter_mut().zip(src) {
                *v = t[ch];
            }
            for (v, t) in right.iter_mut().zip(src) {
                *v = t[ch + 1];
            }
        }
    });
    Matrix::new(rows, cols, data)
}

/// The `rows × cols` matrix held by the bytes of a packed texture of `precision` (tightly packed
/// rows of RGBA texels, as the runner reads them back).
pub fn unpack_bytes(
    precision: Precision,
    bytes: &[u8],
    rows: usize,
    cols: usize,
) -> Result<Matrix> {
    // f32 texels read back 4-aligned are unpacked where they lie, without a copy.
    if precision == Precision::F32
        && let Ok(texels) = bytemuck::try_cast_slice::<u8, [f32; 4]>(bytes)
    {
        return unpack(texels, rows, cols);
    }
    let values = precision.decode(bytes);
    // Whole texels only: a trailing partial texel is dropped (and the count then fails unpack's
    // check).
    let texels: &[[f32; 4]] = bytemuck::cast_slice(&values[..values.len() / 4 * 4]);
    unpack(texels, rows, cols)
}

/// Read a packed texture (`Rgba32Float`, `Rgba16Float` or `Rgba8Unorm`, such as the one an
/// observer is given) back as the `rows × cols` matrix it holds; `rows` and `cols` are the
/// unpacked sides, which the packed texture alone cannot tell when they are odd. For the layers
/// above the methods (observers, reach, tests): the read goes through the runner, which blocks.
pub fn read_unpacked(
    ctx: &GpuContext,
    tex: &MatrixTexture,
    rows: usize,
    cols: usize,
) -> Result<Matrix> {
    let precision = Precision::ALL
        .into_iter()
        .find(|p| p.format(4) == tex.format);
    let Some(precision) = precision.filter(|_| packed_shape(rows, cols) == (tex.rows, tex.cols))
    else {
        return Err(Error::Invalid(format!(
            "read_unpacked: a {rows}x{cols} matrix packs into an RGBA {}x{} texture (Rgba32Float, Rgba16Float or Rgba8Unorm), this one is {:?} {}x{}",
            rows.div_ceil(2),
            cols.div_ceil(2),
            tex.format,
            tex.rows,
            tex.cols
        )));
    };
    let ran = run(ctx, None, || {
        let mut work = Work::new(0);
        work.read(Read::Texture(tex.clone()));
        work.finish(move |bytes| Ok(vec![unpack_bytes(precision, &bytes[0], rows, cols)?]));
        Ok(work)
    })?;
    ran.into_c()
}

/// Upload `x` packed (eq. 8) into a new `Rgba32Float` texture.
pub fn upload_packed(ctx: &GpuContext, label: &str, x: &Matrix) -> Result<MatrixTexture> {
    upload_packed_as(ctx, label, x, Precision::F32)
}

/// Upload `x` packed (eq. 8) into a new texture of `precision` (`Rgba32Float`, `Rgba16Float`,
/// or `Rgba8Unorm` with each value rounded to the nearest 8-bit step).
pub fn upload_packed_as(
    ctx: &GpuContext,
    label: &str,
    x: &Matrix,
    precision: Precision,
) -> Result<MatrixTexture> {
    let (h, w) = packed_shape(x.rows, x.cols);
    let t = MatrixTexture::new(ctx, label, h, w, precision.format(4), INPUT_USAGE)?;
    let texels = pack(x);
    let values: &[f32] = bytemuck::cast_slice(&texels);
    // f32 texels are the texture's bytes as they are; f16 and u8 are encoded from them.
    match precision {
        Precision::F32 => t.write_bytes(ctx, bytemuck::cast_slice(values))?,
        _ => t.write_bytes(ctx, &precision.encode(values))?,
    }
    Ok(t)
}
