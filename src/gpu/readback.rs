//! Reading results back: the reads a run asks for ([`Read`]) — one at a time
//! ([`read`]), or all of a run's together ([`read_all`]): their copies in one command buffer
//! and one submission, every staging buffer's mapping asked for before any is awaited, so a
//! run with eight attachments to read waits once, not eight times. In a browser each wait is
//! a trip through the page's event loop (on WebGL2 until the page next polls wgpu's fences).
//! A run's textures share one staging buffer, each copied to its own stretch of it: on WebGL2
//! mapping a buffer is a synchronous `getBufferSubData`, one trip to the GPU process per buffer
//! mapped, so frag-mrt's eight attachments cost one trip, not eight.

use super::buffer::MatrixBuffer;
use super::context::GpuContext;
use super::staging::Bytes;
use super::texture::{MatrixTexture, split_channels};
use super::wait::oneshot;
use crate::clock::Instant;
use crate::error::{Error, Result};
use crate::matrix::Matrix;
use crate::precision::Precision;

/// Something the host wants back once the work is done: a texture (read through a staging
/// buffer with rows padded to 256 bytes, de-padded on the way out), the first `len` bytes of
/// a buffer, or `rows` rows of `row_bytes` bytes lying `pitch` bytes apart at the start of a
/// buffer (the top-left corner of a padded matrix, de-padded on the way out).
pub enum Read {
    Texture(MatrixTexture),
    Buffer {
        buffer: wgpu::Buffer,
        len: u64,
    },
    Rows {
        buffer: wgpu::Buffer,
        rows: usize,
        row_bytes: usize,
        pitch: usize,
    },
}

/// Read `r` back: copy it into a pooled staging buffer, map it, and copy the wanted bytes
/// (de-padded) straight into the result.
pub async fn read(ctx: &GpuContext, r: &Read) -> Result<Bytes> {
    let (mut bytes, _) = read_all(ctx, std::slice::from_ref(r)).await?;
    bytes
        .pop()
        .ok_or_else(|| Error::Internal("a read gave back nothing".into()))
}

/// Copy `tex` into a staging buffer (rows padded to 256 bytes), map it and return the tightly
/// packed rows. The copy writes every byte that is read out of the staging buffer (wgpu
/// checks its extent); the texture itself was poisoned before the passes wrote it.
pub async fn read_texture_bytes(ctx: &GpuContext, tex: &MatrixTexture) -> Result<Bytes> {
    read(ctx, &Read::Texture(tex.clone())).await
}

/// The first `len` bytes of a `COPY_SRC` buffer, through a pooled `MAP_READ` staging buffer.
pub async fn read_buffer_bytes(ctx: &GpuContext, buffer: &wgpu::Buffer, len: u64) -> Result<Bytes> {
    read_rows(ctx, buffer, 1, len as usize, len as usize).await
}

/// `rows` rows of `row_bytes` bytes lying `pitch` bytes apart from the start of a `COPY_SRC`
/// buffer, tightly packed.
pub async fn read_rows(
    ctx: &GpuContext,
    buffer: &wgpu::Buffer,
    rows: usize,
    row_bytes: usize,
    pitch: usize,
) -> Result<Bytes> {
    let r = Read::Rows {
        buffer: buffer.clone(),
        rows,
        row_bytes,
        pitch,
    };
    read(ctx, &r).await
}

/// One read on its way: the staging buffer its copy writes (or the mappable buffer itself,
/// read in place), where in it the read's rows start, the rows to take out of it, and its
/// mapping's completion.
struct Staged {
    /// None for a read of no bytes.
    buffer: Option<wgpu::Buffer>,
    /// The byte where the read's first row starts in `buffer`.
    offset: usize,
    rows: usize,
    row_bytes: usize,
    pitch: usize,
    /// Whether `buffer` is the pool's (given back once read) rather than the run's own.
    pooled: bool,
    /// Whether an earlier read of the run has the same `buffer` (mapped, unmapped and given
    /// back once, by that read).
    shared: bool,
}

/// Read every one of `reads`: one command buffer of copies, one submission, every mapping
/// asked for, then one wait for all of them. Returns their bytes in order and when the last
/// mapping completed (the copies out of the mapped memory come after it).
pub async fn read_all(ctx: &GpuContext, reads: &[Read]) -> Result<(Vec<Bytes>, Instant)> {
    read_all_into(ctx, reads, Vec::new()).await
}

/// [`read_all`], the first read's bytes copied into `memory` (a caller's, kept from product to
/// product; [`Bytes::copied_rows_into`]) where it is not empty.
pub async fn read_all_into(
    ctx: &GpuContext,
    reads: &[Read],
    memory: Vec<u32>,
) -> Result<(Vec<Bytes>, Instant)> {
    let mut memory = Some(memory);
    let staged = ctx.scoped("reading the results back", || {
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        let staged = stage_all(ctx, &mut enc, reads)?;
        ctx.queue.submit([enc.finish()]);
        Ok(staged)
    })?;
    // A buffer shared by several reads is mapped once, by the first of them.
    let waits: Vec<_> = staged
        .iter()
        .filter(|s| !s.shared)
        .filter_map(|s| s.buffer.as_ref())
        .map(|b| {
            let (tx, rx) = oneshot();
            b.map_async(wgpu::MapMode::Read, .., tx);
            rx
        })
        .collect();
    #[cfg(not(target_arch = "wasm32"))]
    ctx.wait()?;
    for rx in waits {
        rx.await.map_err(|e| Error::Readback(e.to_string()))?;
    }
    ctx.check_lost()?;
    let mapped = Instant::now();
    let mut out = Vec::with_capacity(staged.len());
    for s in &staged {
        let Some(buffer) = &s.buffer else {
            out.push(Bytes::default());
            continue;
        };
        let end = (s.offset + span_len(s.rows, s.row_bytes, s.pitch) as usize).min(buffer.size() as usize);
        let view = buffer
            .get_mapped_range(s.offset as u64..end as u64)
            .map_err(|e| Error::Readback(e.to_string()))?;
        let into = memory.take().unwrap_or_default();
        out.push(Bytes::copied_rows_into(into, &view, s.rows, s.row_bytes, s.pitch));
    }
    for s in staged.iter().filter(|s| !s.shared) {
        if let Some(buffer) = &s.buffer {
            buffer.unmap();
            if s.pooled {
                ctx.staging.give_read(buffer.clone());
            }
        }
    }
    Ok((out, mapped))
}

/// Record the copies of every one of `reads` into staging buffers: the textures' into one
/// buffer from the pool, each at an offset of its own (a multiple of 256), where there are two
/// or more and together they fit in a buffer; each other read as [`stage`] does it.
fn stage_all(
    ctx: &GpuContext,
    enc: &mut wgpu::CommandEncoder,
    reads: &[Read],
) -> Result<Vec<Staged>> {
    let align = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT as u64;
    let (mut offsets, mut total, mut textures) = (Vec::with_capacity(reads.len()), 0u64, 0);
    for r in reads {
        offsets.push(total);
        if let Read::Texture(tex) = r {
            textures += 1;
            total += super::texture::readback_bytes(ctx, tex)?.next_multiple_of(align);
        }
    }
    let shared = if textures >= 2 && total <= ctx.limits.max_buffer_size {
        Some(ctx.staging.take_read(ctx, total)?)
    } else {
        None
    };
    let mut staged = Vec::with_capacity(reads.len());
    for (r, offset) in reads.iter().zip(offsets) {
        staged.push(match (r, &shared) {
            (Read::Texture(tex), Some(buffer)) => {
                super::texture::copy_to_buffer(enc, tex, buffer, offset)?;
                Staged {
                    offset: offset as usize,
                    // The first texture's read (at 0) maps the buffer and gives it back.
                    shared: offset != 0,
                    ..texture_rows(tex, buffer.clone())?
                }
            }
            _ => stage(ctx, enc, r)?,
        });
    }
    Ok(staged)
}

/// The rows to take out of a staging buffer that holds `tex` from its start.
fn texture_rows(tex: &MatrixTexture, buffer: wgpu::Buffer) -> Result<Staged> {
    let bpt = tex.texel_bytes()?;
    Ok(Staged {
        buffer: Some(buffer),
        offset: 0,
        rows: tex.rows,
        row_bytes: tex.cols * bpt as usize,
        pitch: super::texture::padded_bytes_per_row(tex.cols, bpt) as usize,
        pooled: true,
        shared: false,
    })
}

/// Record the copy of `r` into a staging buffer from the pool (none for a buffer that can be
/// mapped itself) and say which rows of it to take.
fn stage(ctx: &GpuContext, enc: &mut wgpu::CommandEncoder, r: &Read) -> Result<Staged> {
    match r {
        Read::Texture(tex) => texture_rows(tex, super::texture::stage_readback(ctx, enc, tex)?),
        Read::Buffer { buffer, len } => {
            stage_rows(ctx, enc, buffer, 1, *len as usize, *len as usize)
        }
        Read::Rows {
            buffer,
            rows,
            row_bytes,
            pitch,
        } => stage_rows(ctx, enc, buffer, *rows, *row_bytes, *pitch),
    }
}

/// [`stage`] for `rows` rows of `row_bytes` bytes, `pitch` apart, at the start of `buffer`.
fn stage_rows(
    ctx: &GpuContext,
    enc: &mut wgpu::CommandEncoder,
    buffer: &wgpu::Buffer,
    rows: usize,
    row_bytes: usize,
    pitch: usize,
) -> Result<Staged> {
    if rows == 0 || row_bytes == 0 {
        return Ok(Staged {
            buffer: None,
            offset: 0,
            rows: 0,
            row_bytes: 0,
            pitch: 0,
            pooled: false,
            shared: false,
        });
    }
    // A mappable buffer (a CPU adapter's, `GpuContext::maps_storage`) is read in place.
    if buffer.usage().contains(wgpu::BufferUsages::MAP_READ) {
        return Ok(Staged {
            buffer: Some(buffer.clone()),
            offset: 0,
            rows,
            row_bytes,
            pitch,
            pooled: false,
            shared: false,
        });
    }
    let len = span_len(rows, row_bytes, pitch).min(buffer.size());
    let staging = super::buffer::stage_readback(ctx, enc, buffer, len)?;
    Ok(Staged {
        buffer: Some(staging),
        offset: 0,
        rows,
        row_bytes,
        pitch,
        pooled: true,
        shared: false,
    })
}

/// Bytes from the start of the first row to the end of the last, rounded up to the copy
/// alignment.
fn span_len(rows: usize, row_bytes: usize, pitch: usize) -> u64 {
    let span = ((rows - 1) * pitch + row_bytes) as u64;
    span.div_ceil(wgpu::COPY_BUFFER_ALIGNMENT) * wgpu::COPY_BUFFER_ALIGNMENT
}

/// The blocking forms of the reads, for the layers above the methods (demos, benchmarks,
/// tests) and the harness's own checks: each waits for the device before it returns. Methods
/// ask the runner instead ([`Read`]).
impl MatrixTexture {
    /// Read back a texture of `precision` with `channels` channels as one matrix per channel.
    pub fn read_channels(
        &self,
        ctx: &GpuContext,
        precision: Precision,
        channels: usize,
    ) -> Result<Vec<Matrix>> {
        if self.format != precision.format(channels as u32) {
            return Err(Error::Internal(format!(
                "texture is {:?}, not {precision} with {channels} channel(s)",
                self.format
            )));
        }
        split_channels(
            self.rows,
            self.cols,
            precision.decode(&self.read_bytes(ctx)?),
            channels,
        )
    }

    /// Read the texture back as tightly packed rows of texels.
    pub fn read_bytes(&self, ctx: &GpuContext) -> Result<Bytes> {
        pollster::block_on(read_texture_bytes(ctx, self))
    }

    /// Read an `R32Float` texture back as a matrix.
    pub fn read_matrix(&self, ctx: &GpuContext) -> Result<Matrix> {
        if self.format != wgpu::TextureFormat::R32Float {
            return Err(Error::Internal(format!(
                "read_matrix needs an R32Float texture, this one is {:?}",
                self.format
            )));
        }
        let bytes = self.read_bytes(ctx)?;
        Matrix::new(self.rows, self.cols, bytes.into_f32s())
    }
}

impl MatrixBuffer {
    /// Copy the buffer into a staging buffer, map it and return the matrix.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn read_matrix(&self, ctx: &GpuContext) -> Result<Matrix> {
        let bytes =
            blocking::read_buffer_bytes(ctx, &self.buffer, (self.rows * self.cols * 4) as u64)?;
        Matrix::new(self.rows, self.cols, bytes.into_f32s())
    }
}

/// Blocking reads of plain buffers and textures (the awaited forms are this file's).
pub mod blocking {
    use crate::error::Result;
    use crate::gpu::context::GpuContext;
    use crate::gpu::staging::Bytes;
    use crate::gpu::texture::MatrixTexture;

    /// Read the first `len` bytes of a `COPY_SRC` buffer back to the host through a `MAP_READ`
    /// staging buffer, blocking ([`super::read_buffer_bytes`] is the runner's form).
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn read_buffer_bytes(ctx: &GpuContext, buffer: &wgpu::Buffer, len: u64) -> Result<Bytes> {
        pollster::block_on(super::read_buffer_bytes(ctx, buffer, len))
    }

    /// Copy a texture into a staging buffer (rows padded to 256 bytes), map it and return the tightly
    /// packed rows, blocking ([`super::read_texture_bytes`] is the runner's, awaited form).
    /// For the layers above the methods (demos, benchmarks, tests); methods ask the runner.
    pub fn read_texture_bytes(
        ctx: &GpuContext,
        texture: &wgpu::Texture,
        rows: usize,
        cols: usize,
        bytes_per_texel: u32,
    ) -> Result<Vec<u8>> {
        let tex = MatrixTexture {
            texture: texture.clone(),
            view: texture.create_view(&Default::default()),
            rows,
            cols,
            format: texture.format(),
        };
        let _ = bytes_per_texel;
        Ok(pollster::block_on(super::read_texture_bytes(ctx, &tex))?.to_vec())
    }

    /// Map a `MAP_READ` buffer, wait, and hand its bytes to `f` (blocking; see
    /// [`crate::gpu::wait::map_read`]).
    pub fn map_read<T>(
        ctx: &GpuContext,
        buffer: &wgpu::Buffer,
        f: impl FnOnce(&[u8]) -> T,
    ) -> Result<T> {
        pollster::block_on(crate::gpu::wait::map_read(ctx, buffer, f))
    }
}
