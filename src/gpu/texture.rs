//! Matrices as textures: element (i, j) is texel (x = j, y = i), so a texture is `cols` wide and
//! `rows` high. Both ways go through a staging buffer whose rows are padded to
//! `COPY_BYTES_PER_ROW_ALIGNMENT` (256 bytes) for any width: an upload copies the tight rows into
//! it at that pitch, a readback strips the padding.

use super::context::GpuContext;
use super::host::copy_rows_pitched;
use crate::error::{Error, Result};
use crate::matrix::Matrix;
use crate::precision::Precision;

/// How one matrix element is stored in a single-channel texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarFormat {
    /// 32-bit float, `R32Float` (blendable with `FLOAT32_BLENDABLE`).
    R32Float,
}

impl ScalarFormat {
    pub fn texture_format(self) -> wgpu::TextureFormat {
        match self {
            ScalarFormat::R32Float => wgpu::TextureFormat::R32Float,
        }
    }
    pub fn bytes_per_texel(self) -> u32 {
        match self {
            ScalarFormat::R32Float => 4,
        }
    }
}

/// A texture holding a matrix, with its shape. Cloning shares the texture (wgpu handles are
/// reference-counted).
#[derive(Clone)]
pub struct MatrixTexture {
    pub texture: wgpu::Texture,
    pub view: wgpu::TextureView,
    pub rows: usize,
    pub cols: usize,
    pub format: wgpu::TextureFormat,
}

/// Usage for textures that are rendered into, sampled, copied and read back.
pub const TARGET_USAGE: wgpu::TextureUsages = wgpu::TextureUsages::RENDER_ATTACHMENT
    .union(wgpu::TextureUsages::TEXTURE_BINDING)
    .union(wgpu::TextureUsages::COPY_SRC)
    .union(wgpu::TextureUsages::COPY_DST);

/// Usage for input textures.
pub const INPUT_USAGE: wgpu::TextureUsages = wgpu::TextureUsages::TEXTURE_BINDING
    .union(wgpu::TextureUsages::COPY_DST)
    .union(wgpu::TextureUsages::COPY_SRC);

impl MatrixTexture {
    /// An uninitialised `rows × cols` texture (`cols` wide, `rows` high). Checks the adapter's
    /// `max_texture_dimension_2d` first, and, for a render target that can be read back (a
    /// result: `RENDER_ATTACHMENT | COPY_SRC`), that its readback buffer fits `max_buffer_size`
    /// (see [`check_target`], which methods call before their first allocation).
    pub fn new(
        ctx: &GpuContext,
        label: &str,
        rows: usize,
        cols: usize,
        format: wgpu::TextureFormat,
        usage: wgpu::TextureUsages,
    ) -> Result<Self> {
        ctx.check_texture_dim(&format!("{label} height (rows)"), rows)?;
        ctx.check_texture_dim(&format!("{label} width (columns)"), cols)?;
        texel_bytes(format)?;
        if usage.contains(wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC) {
            check_target(ctx, label, rows, cols, format)?;
        }
        let texture = ctx.scoped(&format!("creating texture {label}"), || {
            Ok(ctx.device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: extent(rows, cols),
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            }))
        })?;
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        Ok(Self {
            texture,
            view,
            rows,
            cols,
            format,
        })
    }

    /// Upload a matrix into a new single-channel texture.
    pub fn upload(ctx: &GpuContext, label: &str, m: &Matrix, format: ScalarFormat) -> Result<Self> {
        let t = Self::new(
            ctx,
            label,
            m.rows,
            m.cols,
            format.texture_format(),
            INPUT_USAGE,
        )?;
        let bytes: &[u8] = match format {
            ScalarFormat::R32Float => bytemuck::cast_slice(&m.data),
        };
        t.write_bytes(ctx, bytes)?;
        Ok(t)
    }

    /// Upload 1 or 4 same-shaped matrices into one texture of `precision`: one matrix per channel
    /// (r, g, b, a), as the L-M paper packed four numbers into a pixel.
    pub fn upload_channels(
        ctx: &GpuContext,
        label: &str,
        mats: &[&Matrix],
        precision: Precision,
    ) -> Result<Self> {
        let channels = mats.len();
        if channels != 1 && channels != 4 {
            return Err(Error::Invalid(format!(
                "{label}: {channels} channels; use 1 or 4"
            )));
        }
        let (rows, cols) = mats[0].shape();
        if let Some(m) = mats.iter().find(|m| m.shape() != (rows, cols)) {
            return Err(Error::Invalid(format!(
                "{label}: the channels differ in shape ({rows}x{cols} and {}x{})",
                m.rows, m.cols
            )));
        }
        let t = Self::new(
            ctx,
            label,
            rows,
            cols,
            precision.format(channels as u32),
            INPUT_USAGE,
        )?;
        // Row by row straight into the staging buffer, on threads: the channels interleaved
        // (four) and encoded at `precision` on the way, with no whole-matrix copy in between.
        let row_bytes = cols * channels * precision.bytes();
        ctx.staging
            .upload_texture(ctx, &t.texture, |view, range, pitch| {
                super::host::fill_rows(view, range.len(), row_bytes, pitch, |r, out: &mut [u8]| {
                    let i = range.start + r;
                    if channels == 1 {
                        precision.encode_into(&mats[0].data[i * cols..(i + 1) * cols], out);
                    } else {
                        let texels: Vec<f32> = (i * cols..(i + 1) * cols)
                            .flat_map(|idx| mats.iter().map(move |m| m.data[idx]))
                            .collect();
                        precision.encode_into(&texels, out);
                    }
                })
            })?;
        Ok(t)
    }

    /// Write tightly packed texel rows into the whole texture, through a pooled staging buffer
    /// that is already mapped ([`super::staging::Staging::upload_texture`]): the rows are copied
    /// into it at the 256-byte pitch a buffer-to-texture copy wants, on several threads when
    /// large ([`super::host::copy_rows_pitched`]). `Queue::write_texture` made one fresh copy
    /// on one thread instead, which at 64 MiB cost the render-pass methods many times what
    /// the same bytes cost as a buffer.
    pub fn write_bytes(&self, ctx: &GpuContext, bytes: &[u8]) -> Result<()> {
        let bpt = self.texel_bytes()?;
        let expected = self.rows * self.cols * bpt as usize;
        if bytes.len() != expected {
            return Err(Error::Invalid(format!(
                "texture upload: {} bytes given, {}x{} texels of {bpt} bytes need {expected}",
                bytes.len(),
                self.rows,
                self.cols
            )));
        }
        let row_bytes = self.cols * bpt as usize;
        ctx.staging
            .upload_texture(ctx, &self.texture, |view, rows, pitch| {
                let src = &bytes[rows.start * row_bytes..rows.end * row_bytes];
                copy_rows_pitched(view, src, rows.len(), row_bytes, pitch);
            })
    }

    /// Bytes per texel of this texture's format; an internal error for a format without one
    /// texel size (depth-stencil, planar), which no matrix texture has ([`MatrixTexture::new`]
    /// refuses one).
    pub fn texel_bytes(&self) -> Result<u32> {
        texel_bytes(self.format)
    }

    /// Bytes per texel of this texture's format, for a size in a report; 0 for a format without
    /// one texel size ([`MatrixTexture::texel_bytes`] is the checked form, which the uploads and
    /// readbacks use).
    pub fn bytes_per_texel(&self) -> u32 {
        self.format.block_copy_size(None).unwrap_or(0)
    }
}

/// Bytes per texel of `format`; an internal error for a format without one texel size.
fn texel_bytes(format: wgpu::TextureFormat) -> Result<u32> {
    format.block_copy_size(None).ok_or_else(|| {
        Error::Internal(format!(
            "a matrix texture of {format:?}: not a plain colour format"
        ))
    })
}

/// Interleaved texel values of a `rows × cols` texture with `channels` channels, as one matrix per
/// channel (r, g, b, a).
pub fn split_channels(
    rows: usize,
    cols: usize,
    values: Vec<f32>,
    channels: usize,
) -> Result<Vec<Matrix>> {
    if channels == 1 {
        return Ok(vec![Matrix::new(rows, cols, values)?]);
    }
    (0..channels)
        .map(|c| {
            Matrix::new(
                rows,
                cols,
                values.iter().skip(c).step_by(channels).copied().collect(),
            )
        })
        .collect()
}

/// The size of a `rows × cols` matrix texture.
pub fn extent(rows: usize, cols: usize) -> wgpu::Extent3d {
    wgpu::Extent3d {
        width: cols as u32,
        height: rows as u32,
        depth_or_array_layers: 1,
    }
}

/// Error naming the limit if a `rows × cols` result texture of `format` could not be made or
/// read back: its sides against `max_texture_dimension_2d`, its readback buffer (rows padded to
/// 256 bytes) against `max_buffer_size`. The render-pass methods call it for C before they
/// allocate anything, so a product whose result could not be read is refused up front.
pub fn check_target(
    ctx: &GpuContext,
    label: &str,
    rows: usize,
    cols: usize,
    format: wgpu::TextureFormat,
) -> Result<()> {
    ctx.check_texture_dim(&format!("{label} height (rows)"), rows)?;
    ctx.check_texture_dim(&format!("{label} width (columns)"), cols)?;
    let bpt = format.block_copy_size(None).ok_or_else(|| {
        Error::Internal(format!("{label}: {format:?} is not a plain colour format"))
    })?;
    check_readback_size(ctx, label, rows, cols, bpt).map(|_| ())
}

/// The size of the staging buffer a `rows × cols` texture of `bytes_per_texel` is read back
/// through (rows padded to 256 bytes), or an [`Error::Limit`] naming `max_buffer_size` if no
/// buffer that large can exist.
pub fn check_readback_size(
    ctx: &GpuContext,
    label: &str,
    rows: usize,
    cols: usize,
    bytes_per_texel: u32,
) -> Result<u64> {
    let padded = (cols as u64 * bytes_per_texel as u64)
        .div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT as u64)
        * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT as u64;
    let size = padded.saturating_mul(rows as u64);
    let max = ctx.limits.max_buffer_size;
    if size > max {
        return Err(Error::Limit {
            what: format!(
                "{label}: readback buffer of {rows}x{cols} texels of {bytes_per_texel} bytes, rows padded to 256 (bytes)"
            ),
            value: size,
            limit: "max_buffer_size",
            max,
        });
    }
    Ok(size)
}

/// Row pitch of a copy between texture and buffer: `width · bytes_per_texel` rounded up to 256.
pub fn padded_bytes_per_row(cols: usize, bytes_per_texel: u32) -> u32 {
    let unpadded = cols as u32 * bytes_per_texel;
    unpadded.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT
}

/// A pooled `MAP_READ` staging buffer that the copy of `tex` recorded in `enc` fills (rows
/// padded to 256 bytes); the caller submits `enc`, maps the buffer and gives it back to
/// [`GpuContext::staging`].
pub fn stage_readback(
    ctx: &GpuContext,
    enc: &mut wgpu::CommandEncoder,
    tex: &MatrixTexture,
) -> Result<wgpu::Buffer> {
    let size = readback_bytes(ctx, tex)?;
    let buffer = ctx.staging.take_read(ctx, size)?;
    copy_to_buffer(enc, tex, &buffer, 0)?;
    Ok(buffer)
}

/// The bytes a copy of `tex` into a buffer takes, rows padded to 256 (checked against
/// `max_buffer_size`).
pub fn readback_bytes(ctx: &GpuContext, tex: &MatrixTexture) -> Result<u64> {
    check_readback_size(ctx, "texture", tex.rows, tex.cols, tex.texel_bytes()?)
}

/// Record the copy of the whole of `tex` into `buffer` from byte `offset` on (a multiple of
/// 256), rows padded to 256 bytes.
pub fn copy_to_buffer(
    enc: &mut wgpu::CommandEncoder,
    tex: &MatrixTexture,
    buffer: &wgpu::Buffer,
    offset: u64,
) -> Result<()> {
    let padded = padded_bytes_per_row(tex.cols, tex.texel_bytes()?);
    enc.copy_texture_to_buffer(
        tex.texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset,
                bytes_per_row: Some(padded),
                rows_per_image: Some(tex.rows as u32),
            },
        },
        extent(tex.rows, tex.cols),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_format_without_one_texel_size_is_an_internal_error_not_a_panic() {
        assert_eq!(texel_bytes(wgpu::TextureFormat::R32Float).ok(), Some(4));
        assert_eq!(texel_bytes(wgpu::TextureFormat::Rgba16Float).ok(), Some(8));
        let err = texel_bytes(wgpu::TextureFormat::Depth24PlusStencil8);
        assert!(matches!(err, Err(Error::Internal(_))), "{err:?}");
    }
}
