//! Matrices as storage buffers, for the compute-era methods. A buffer holds the host layout
//! unchanged — row-major `f32`, element (i, j) at index `i·cols + j` — so upload and readback are
//! straight copies (no 256-byte row padding as with textures).
//!
//! Output buffers are *poisoned* with NaN (all bits set, as the texture readback does) every time
//! they are created or reused, so an element a kernel never writes reads back as NaN and fails
//! [`crate::check::compare`] instead of passing as a stale or zero value.
//!
//! Sizes are checked against the adapter's `max_storage_buffer_binding_size` and `max_buffer_size`
//! before anything is allocated, and an oversized matrix is an [`Error::Limit`] naming the limit.

use super::context::GpuContext;
use crate::error::{Error, Result};
use crate::matrix::Matrix;

/// The bit pattern output buffers are filled with before a run: a quiet NaN.
#[cfg(feature = "internals")]
pub const POISON_BITS: u32 = 0xFFFF_FFFF;

/// Usage of a matrix storage buffer: bound to shaders, written from the host, copied out.
pub const STORAGE_USAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::COPY_SRC);

/// Bytes of a `rows × cols` f32 matrix (at least 4: a zero-sized binding is invalid).
pub fn matrix_bytes(rows: usize, cols: usize) -> u64 {
    (rows as u64 * cols as u64 * 4).max(4)
}

/// Error naming the limit if a storage buffer of `bytes` cannot be bound on an adapter with
/// `limits`: it must fit both `max_storage_buffer_binding_size` (one binding) and
/// `max_buffer_size` (one allocation).
pub fn check_storage_size(limits: &wgpu::Limits, what: &str, bytes: u64) -> Result<()> {
    for (limit, max) in [
        (
            "max_storage_buffer_binding_size",
            limits.max_storage_buffer_binding_size,
        ),
        ("max_buffer_size", limits.max_buffer_size),
    ] {
        if bytes > max {
            return Err(Error::Limit {
                what: format!("{what} (bytes)"),
                value: bytes,
                limit,
                max,
            });
        }
    }
    Ok(())
}

/// A storage buffer holding a `rows × cols` row-major f32 matrix. Dropped, it gives its buffer
/// back to the context's pool for the next matrix of the same size: a 64 MiB device allocation
/// cost milliseconds on the H100, more than the upload into it.
pub struct MatrixBuffer {
    pub buffer: wgpu::Buffer,
    pub rows: usize,
    pub cols: usize,
    pool: std::sync::Arc<std::sync::Mutex<Vec<wgpu::Buffer>>>,
}

impl Drop for MatrixBuffer {
    fn drop(&mut self) {
        super::pools::give_storage(&self.pool, self.buffer.clone());
    }
}

impl MatrixBuffer {
    /// An uninitialised storage buffer for a `rows × cols` matrix, after the size checks: from
    /// the context's pool (holding what its last user left) or new.
    pub fn new(ctx: &GpuContext, label: &str, rows: usize, cols: usize) -> Result<Self> {
        let size = matrix_bytes(rows, cols);
        check_storage_size(
            &ctx.limits,
            &format!("{label}, a {rows}x{cols} f32 storage buffer"),
            size,
        )?;
        // Mappable where device memory is host memory (a CPU adapter): read back in place.
        let usage = if ctx.maps_storage() {
            STORAGE_USAGE | wgpu::BufferUsages::MAP_READ
        } else {
            STORAGE_USAGE
        };
        let buffer = ctx.staging.take_storage(size, usage, || {
            ctx.scoped(&format!("creating buffer {label}"), || {
                Ok(ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size,
                    usage,
                    mapped_at_creation: false,
                }))
            })
        })?;
        Ok(Self {
            buffer,
            rows,
            cols,
            pool: ctx.staging.storage_pool(),
        })
    }

    /// Upload a matrix into a new storage buffer.
    #[cfg(feature = "internals")]
    pub fn upload(ctx: &GpuContext, label: &str, m: &Matrix) -> Result<Self> {
        Ok(Self::upload_scanned(ctx, label, m)?.0)
    }

    /// [`MatrixBuffer::upload`], saying whether every value of `m` was finite (tested as it
    /// was copied, [`MatrixBuffer::write_scanned`]).
    pub fn upload_scanned(ctx: &GpuContext, label: &str, m: &Matrix) -> Result<(Self, bool)> {
        let buf = Self::new(ctx, label, m.rows, m.cols)?;
        let finite = buf.write_scanned(ctx, &m.data)?;
        Ok((buf, finite))
    }

    /// A new output buffer, poisoned with NaN so that unwritten elements show.
    pub fn output(ctx: &GpuContext, label: &str, rows: usize, cols: usize) -> Result<Self> {
        let buf = Self::new(ctx, label, rows, cols)?;
        buf.poison(ctx)?;
        Ok(buf)
    }

    /// Fill the whole buffer with [`POISON_BITS`] (NaN), by copies on the device.
    pub fn poison(&self, ctx: &GpuContext) -> Result<()> {
        ctx.scoped("poisoning an output buffer", || {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            ctx.staging
                .poison(ctx, &mut enc, &self.buffer, 0, self.buffer.size())?;
            super::batch::submit(ctx, [enc.finish()]);
            Ok(())
        })
    }

    /// Write `rows·cols` values into the buffer.
    pub fn write(&self, ctx: &GpuContext, data: &[f32]) -> Result<()> {
        self.write_scanned(ctx, data).map(|_| ())
    }

    /// [`MatrixBuffer::write`], saying whether every value was finite: the values are tested
    /// as they are copied ([`super::host::copy_f32_scanned`]), not in a pass of their own.
    pub fn write_scanned(&self, ctx: &GpuContext, data: &[f32]) -> Result<bool> {
        if data.len() != self.rows * self.cols {
            return Err(Error::Invalid(format!(
                "buffer upload: {} values given, a {}x{} matrix needs {}",
                data.len(),
                self.rows,
                self.cols,
                self.rows * self.cols
            )));
        }
        if data.is_empty() {
            return Ok(true);
        }
        let mut finite = true;
        ctx.staging
            .upload(ctx, &self.buffer, 0, (data.len() * 4) as u64, |w| {
                finite = super::host::copy_f32_scanned(w, data)
            })?;
        Ok(finite)
    }

    /// Fill the buffer through mapped staging memory: `fill` gets the whole buffer's bytes,
    /// write-only, and must write every one (a layout done on the way up, with no
    /// intermediate matrix).
    pub fn write_with(
        &self,
        ctx: &GpuContext,
        fill: impl FnOnce(wgpu::WriteOnly<'_, [u8]>),
    ) -> Result<()> {
        ctx.staging
            .upload(ctx, &self.buffer, 0, self.buffer.size(), fill)
    }
}

/// Hand `m` (or `mᵀ` when `transpose`), zero-padded to `rows × cols`, to `put` one whole row of
/// `cols` values at a time, in order: the host's form of the device's layout pass
/// ([`super::layout`]), used where the device is the host's CPU. The transpose gathers 16 output rows per sweep over `m`,
/// so each cache line of `m` is read once.
pub fn layout_rows(
    m: &Matrix,
    transpose: bool,
    rows: usize,
    cols: usize,
    mut put: impl FnMut(&[f32]),
) {
    if !transpose {
        let mut row = vec![0.0f32; cols];
        for r in 0..rows {
            if r < m.rows && cols == m.cols {
                put(&m.data[r * m.cols..(r + 1) * m.cols]);
            } else {
                row.fill(0.0);
                if r < m.rows {
                    row[..m.cols].copy_from_slice(&m.data[r * m.cols..(r + 1) * m.cols]);
                }
                put(&row);
            }
        }
        return;
    }
    const BAND: usize = 16;
    // Output row p is column p of m; columns i ≥ m.rows stay zero.
    let mut band = vec![0.0f32; BAND * cols];
    for p0 in (0..rows).step_by(BAND) {
        let pe = (p0 + BAND).min(rows);
        // Rows p0..live are columns of m; live..pe are padding.
        let live = pe.min(m.cols).max(p0);
        if live > p0 {
            for i in 0..m.rows {
                let src = &m.data[i * m.cols + p0..i * m.cols + live];
                for (q, &v) in src.iter().enumerate() {
                    band[q * cols + i] = v;
                }
            }
        }
        for p in live..pe {
            band[(p - p0) * cols..(p - p0 + 1) * cols].fill(0.0);
        }
        for p in p0..pe {
            put(&band[(p - p0) * cols..(p - p0 + 1) * cols]);
        }
    }
}

/// A pooled `MAP_READ` staging buffer that the copy of the first `len` bytes of `buffer`
/// recorded in `enc` fills; the caller submits `enc`, maps it and gives it back to
/// [`GpuContext::staging`].
pub fn stage_readback(
    ctx: &GpuContext,
    enc: &mut wgpu::CommandEncoder,
    buffer: &wgpu::Buffer,
    len: u64,
) -> Result<wgpu::Buffer> {
    let staging = ctx.staging.take_read(ctx, len)?;
    if len > 0 {
        enc.copy_buffer_to_buffer(buffer, 0, &staging, 0, len);
    }
    Ok(staging)
}

/// A small uniform buffer holding `bytes` (shapes and other per-dispatch constants).
pub fn uniform(ctx: &GpuContext, label: &str, bytes: &[u8]) -> Result<wgpu::Buffer> {
    ctx.scoped(&format!("creating uniform {label}"), || {
        let buf = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes.len().max(16) as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        ctx.queue.write_buffer(&buf, 0, bytes);
        Ok(buf)
    })
}
