//! `frag-mrt`'s packed sizes and packing: A's columns and B's rows four to a texel, padded to
//! the tiles and the unroll, uploaded straight into staging, and C unpacked from the attachments.

use super::{Inputs, Shape};
use crate::error::Error;
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::gpu::texture::MatrixTexture;
use crate::matrix::Matrix;

/// The packed sizes of one product m×k·k×n in a [`Shape`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub shape: Shape,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    /// Tiles (fragments) down and across: ⌈m/R⌉ and ⌈n/C⌉, rounded up to even with sharing.
    pub tiles_m: usize,
    pub tiles_n: usize,
    /// k padded to a multiple of the unroll: the A texture's width and the B texture's height.
    pub kp: usize,
}

impl Layout {
    pub fn new(shape: Shape, m: usize, k: usize, n: usize) -> Layout {
        let even = |t: usize| {
            if shape.share {
                t.next_multiple_of(2)
            } else {
                t
            }
        };
        Layout {
            shape,
            m,
            k,
            n,
            tiles_m: even(m.div_ceil(shape.rows as usize)),
            tiles_n: even(n.div_ceil(shape.cols as usize)),
            kp: k.next_multiple_of(shape.unroll as usize),
        }
    }

    /// (height, width) of the packed A texture: tiles_m·R/4 × k'.
    pub fn a_size(&self) -> (usize, usize) {
        (self.tiles_m * self.shape.a_texels() as usize, self.kp)
    }

    /// (height, width) of the packed B texture: k' × tiles_n·C/4.
    pub fn b_size(&self) -> (usize, usize) {
        (self.kp, self.tiles_n * self.shape.b_texels() as usize)
    }

    /// The passes' (start, end) ranges of padded k: one pass over all of k' when `block` is
    /// `None`, else blocks of b rounded up to a multiple of the unroll (the last may be shorter,
    /// still a multiple of it). Every bound is a multiple of the unroll and at most k'.
    pub fn blocks(&self, block: Option<u32>) -> Vec<(u32, u32)> {
        let u = self.shape.unroll as usize;
        let b = block
            .map_or(self.kp, |b| (b.max(1) as usize).next_multiple_of(u))
            .max(u);
        (0..self.kp)
            .step_by(b)
            .map(|s| (s as u32, (s + b).min(self.kp) as u32))
            .collect()
    }

    /// The A texels, row-major: texel (x = p, y = Y) = column p of rows 4Y..4Y+3, zero-padded.
    #[cfg(feature = "internals")]
    pub fn pack_a(&self, a: &Matrix) -> Vec<[f32; 4]> {
        self.pack_a_as(a)
    }

    /// [`Layout::pack_a`] rounded to f16 (round to nearest even), for `Rgba16Float`.
    #[cfg(feature = "internals")]
    pub fn pack_a_f16(&self, a: &Matrix) -> Vec<[half::f16; 4]> {
        self.pack_a_as(a)
    }

    /// The B texels, row-major: texel (x = X, y = p) = row p of columns 4X..4X+3, zero-padded.
    #[cfg(feature = "internals")]
    pub fn pack_b(&self, b: &Matrix) -> Vec<[f32; 4]> {
        self.pack_b_as(b)
    }

    /// [`Layout::pack_b`] rounded to f16 (round to nearest even), for `Rgba16Float`.
    #[cfg(feature = "internals")]
    pub fn pack_b_f16(&self, b: &Matrix) -> Vec<[half::f16; 4]> {
        self.pack_b_as(b)
    }

    /// Pack A (`is_a`) or B in `inputs`' format and write it into `tex`.
    pub(super) fn write_packed(
        &self,
        ctx: &GpuContext,
        tex: &MatrixTexture,
        x: &Matrix,
        is_a: bool,
        inputs: Inputs,
    ) -> Result<()> {
        match inputs {
            Inputs::F32 => self.upload_packed::<f32>(ctx, tex, x, is_a),
            Inputs::F16 => self.upload_packed::<half::f16>(ctx, tex, x, is_a),
        }
    }

    /// Pack `x` (A when `is_a`, else B) texel row by texel row straight into the texture's
    /// mapped staging buffer, on threads (`gpu::host::fill_rows`): no packed matrix in between,
    /// whose fresh pages cost more to fault in than the packing.
    fn upload_packed<T: Channel>(
        &self,
        ctx: &GpuContext,
        tex: &MatrixTexture,
        x: &Matrix,
        is_a: bool,
    ) -> Result<()> {
        let w = tex.cols;
        ctx.staging
            .upload_texture(ctx, &tex.texture, |view, range, pitch| {
                crate::gpu::host::fill_rows(view, range.len(), w, pitch, |r, out: &mut [[T; 4]]| {
                    let y = range.start + r;
                    if is_a {
                        self.pack_a_row(x, y, out);
                    } else {
                        self.pack_b_row(x, y, out);
                    }
                })
            })
    }

    /// Texel row Y of A holds rows 4Y..4Y+3 of A interleaved: gathered into an f32 row, then
    /// converted in one go (`half`'s slice conversion uses the CPU's f16 instructions). Every
    /// texel of `out` is written: zeros past A.
    fn pack_a_row<T: Channel>(&self, a: &Matrix, y: usize, out: &mut [[T; 4]]) {
        out.fill([T::zeroed(); 4]);
        let i0 = 4 * y;
        if i0 >= a.rows {
            return;
        }
        let mut gathered = vec![0.0f32; 4 * a.cols];
        for r in 0..4 {
            if i0 + r < a.rows {
                let row = &a.data[(i0 + r) * a.cols..][..a.cols];
                for p in 0..a.cols {
                    gathered[4 * p + r] = row[p];
                }
            }
        }
        T::convert(bytemuck::cast_slice_mut(&mut out[..a.cols]), &gathered);
    }

    /// Texel row p of B is row p of B, zero-padded: converted straight from the matrix.
    fn pack_b_row<T: Channel>(&self, b: &Matrix, p: usize, out: &mut [[T; 4]]) {
        out.fill([T::zeroed(); 4]);
        if p < b.rows {
            let flat: &mut [T] = bytemuck::cast_slice_mut(out);
            T::convert(&mut flat[..b.cols], &b.data[p * b.cols..][..b.cols]);
        }
    }

    /// The packed texels of A (`a_size`, row-major), as [`Self::upload_packed`] writes them.
    #[cfg(feature = "internals")]
    fn pack_a_as<T: Channel>(&self, a: &Matrix) -> Vec<[T; 4]> {
        let (h, w) = self.a_size();
        let mut out: Vec<[T; 4]> = bytemuck::zeroed_vec(h * w);
        crate::gpu::host::by_rows(&mut out, w, |first, rows| {
            for (y, texels) in rows.chunks_mut(w).enumerate() {
                self.pack_a_row(a, first + y, texels);
            }
        });
        out
    }

    /// The packed texels of B (`b_size`, row-major), as [`Self::upload_packed`] writes them.
    #[cfg(feature = "internals")]
    fn pack_b_as<T: Channel>(&self, b: &Matrix) -> Vec<[T; 4]> {
        let (_, w) = self.b_size();
        let mut out: Vec<[T; 4]> = bytemuck::zeroed_vec(self.kp * w);
        crate::gpu::host::by_rows(&mut out, w, |first, rows| {
            for (y, texels) in rows.chunks_mut(w).enumerate() {
                self.pack_b_row(b, first + y, texels);
            }
        });
        out
    }

    /// C from the attachments' texels (each tiles_m × tiles_n, row-major): attachment
    /// t = r·(C/4) + j, tile (J, I), channel c is C[R·I + r][C·J + 4j + c]. Padding is dropped.
    pub fn unpack<T: AsRef<[[f32; 4]]>>(&self, attachments: &[T]) -> Result<Matrix> {
        let attachments: Vec<&[[f32; 4]]> = attachments.iter().map(|t| t.as_ref()).collect();
        let s = self.shape;
        let want = self.tiles_m * self.tiles_n;
        if attachments.len() != s.attachments() as usize
            || attachments.iter().any(|t| t.len() != want)
        {
            return Err(Error::Invalid(format!(
                "frag-mrt unpack: {} attachments of {:?} texels given, a {} block over {}x{} tiles needs {} of {want}",
                attachments.len(),
                attachments.iter().map(|t| t.len()).collect::<Vec<_>>(),
                s.name(),
                self.tiles_m,
                self.tiles_n,
                s.attachments()
            )));
        }
        let (rr, cb) = (s.rows as usize, s.b_texels() as usize);
        let (m, n, tiles_n) = (self.m, self.n, self.tiles_n);
        let mut data = vec![0.0f32; m * n];
        if n == 0 {
            return Matrix::new(m, n, data);
        }
        // Row i of C is row i % R of its tile row, I = i / R: tile by tile (J), texel by texel of
        // the block's columns (j), four columns at a time, cropped at n.
        let attachments = &attachments;
        let fill = |first: usize, out: &mut [f32]| {
            for (di, row) in out.chunks_mut(n).enumerate() {
                let i = first + di;
                let (base, r) = ((i / rr) * tiles_n, i % rr);
                let mut j = 0;
                'tiles: for tj in 0..tiles_n {
                    for q in 0..cb {
                        let texel = &attachments[r * cb + q][base + tj];
                        let take = (n - j).min(4);
                        row[j..j + take].copy_from_slice(&texel[..take]);
                        j += take;
                        if j == n {
                            break 'tiles;
                        }
                    }
                }
            }
        };
        // Large results a band of rows per thread (the 64 MiB of a 4096² product took most of
        // frag-mrt's readback on one thread).
        crate::gpu::host::by_rows(&mut data, n, fill);
        Matrix::new(m, n, data)
    }
}

/// A channel of a packed input texel: f32 (`Rgba32Float`) or f16 (`Rgba16Float`).
trait Channel: bytemuck::Pod + Send + Sync {
    /// `dst[i]` = `src[i]` in this format (`dst` and `src` of the same length).
    fn convert(dst: &mut [Self], src: &[f32]);
}

impl Channel for f32 {
    fn convert(dst: &mut [f32], src: &[f32]) {
        dst.copy_from_slice(src);
    }
}

impl Channel for half::f16 {
    fn convert(dst: &mut [half::f16], src: &[f32]) {
        use half::slice::HalfFloatSliceExt;
        dst.convert_from_f32_slice(src);
    }
}
