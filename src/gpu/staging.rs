//! The data path between host memory and the device: staging buffers kept across calls, uploads
//! written straight into mapped memory, readbacks copied (and de-padded) straight into the
//! result, and output buffers poisoned by the GPU.
//!
//! Why each part (measured with `cargo run --release --example data_path`, numbers in `docs/performance.md`):
//! - A fresh `MAP_READ` buffer is slow to *read* the first time: every page of its mapping
//!   faults in on first touch (on lavapipe 4 MiB read at 1.7 GB/s from a fresh mapping, 13 GB/s
//!   from one read before). So staging buffers are pooled and reused.
//! - `Queue::write_buffer` allocates a new staging buffer per call and copies the data into it;
//!   a pooled `MAP_WRITE` buffer, re-mapped in the background once its copy has run, takes the
//!   data in one straight copy (on several threads when large, [`super::host`]); padding and
//!   transposes are done on the device ([`super::layout`]).
//! - Poisoning an output with NaN from the host meant a host vector as large as the output and
//!   an upload of it; a GPU copy from a small poison buffer does the same on the device.
//!
//! The pools themselves, and their bounds, are the context's ([`super::pools`]); this file fills
//! and empties them.

use super::context::GpuContext;
use super::host::copy_rows_raw;
use super::pools::{POOL_MAX_BYTES, Staging, fits, relock, rounded, take_fitting};
use crate::error::{Error, Result};

/// Bytes of the device-side poison source (0xFF bytes: a NaN in every float format), copied
/// over an output as many times as needed.
const POISON_BYTES: u64 = 4 << 20;

impl Staging {
    /// An unmapped `MAP_READ | COPY_DST` buffer of at least `size` bytes, from the pool or new.
    pub fn take_read(&self, ctx: &GpuContext, size: u64) -> Result<wgpu::Buffer> {
        if let Some(b) = take_fitting(&mut relock(&self.read), size) {
            return Ok(b);
        }
        self.created
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        ctx.scoped("creating a readback staging buffer", || {
            Ok(ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("readback staging"),
                size: rounded(size),
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                mapped_at_creation: false,
            }))
        })
    }

    /// A mapped `MAP_WRITE | COPY_SRC` buffer of at least `size` bytes: a pooled one whose
    /// re-mapping has completed, or a new one mapped at creation.
    fn take_write(&self, ctx: &GpuContext, size: u64) -> Result<wgpu::Buffer> {
        if let Some(b) = take_fitting(&mut relock(&self.write), size) {
            return Ok(b);
        }
        // A buffer given back is mapped again once the copies out of it have run, at a device
        // poll. If one that would fit is on its way, wait for it rather than make a new one: a
        // new buffer's memory is touched for the first time as it is filled, and on the H100 a
        // 4096² product's upload took 20-58 ms when it made one, 5-6 ms when it did not (which
        // of the two a run got depended on whether B's upload came before or after A's copy had
        // run). The wait is for all work submitted so far: between products that is none, and
        // within one it is mostly the copy out of the buffer, but a caller that uploads while a
        // long pass is queued waits for the pass too. Not in a browser, where there is no blocking wait to be had (WebGL2's
        // times out, and a WebGPU mapping completes only when the page's event loop runs).
        let on_its_way =
            !cfg!(target_arch = "wasm32") && relock(&self.remapping).iter().any(|&p| fits(p, size));
        if on_its_way {
            ctx.wait()?;
            if let Some(b) = take_fitting(&mut relock(&self.write), size) {
                return Ok(b);
            }
        }
        self.created
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        ctx.scoped("creating an upload staging buffer", || {
            Ok(ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("upload staging"),
                size: rounded(size),
                usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::MAP_WRITE,
                mapped_at_creation: true,
            }))
        })
    }

    /// Write `size` bytes at `offset` of `dst` (a `COPY_DST` buffer): `fill` writes them into
    /// mapped staging memory (write-only: it may be write-combined), then a copy moves them to
    /// `dst`, submitted at once (ahead of any later submission, as `Queue::write_buffer` is).
    pub fn upload(
        &self,
        ctx: &GpuContext,
        dst: &wgpu::Buffer,
        offset: u64,
        size: u64,
        fill: impl FnOnce(wgpu::WriteOnly<'_, [u8]>),
    ) -> Result<()> {
        if size == 0 {
            return Ok(());
        }
        if !size.is_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT) {
            return Err(Error::Internal(format!(
                "an upload of {size} bytes: buffer copies move whole multiples of {} bytes",
                wgpu::COPY_BUFFER_ALIGNMENT
            )));
        }
        if cfg!(target_arch = "wasm32") {
            // In a browser the page's memory is not the mapping: the browser stages the bytes
            // itself, and one `writeBuffer` call beats a pooled buffer's map, copy, submit and
            // re-map, each a call across to the browser (the upload of a 64² product took 1–13 ms
            // that way on WebGPU).
            let mut data = vec![0u8; size as usize];
            fill(wgpu::WriteOnly::from(&mut data[..]));
            ctx.scoped("uploading", || {
                ctx.queue.write_buffer(dst, offset, &data);
                Ok(())
            })?;
            self.count_upload(size);
            return Ok(());
        }
        self.stage(
            ctx,
            size,
            size,
            "uploading through a staging buffer",
            fill,
            |enc, staging| enc.copy_buffer_to_buffer(staging, 0, dst, offset, size),
        )
    }

    /// Write the whole of `texture` (one mip level, one layer, a plain colour format): `fill`
    /// writes the rows `first..first + rows` (the range it is given) into mapped staging memory
    /// (write-only), each `row_bytes` long (width · bytes per texel) and the pitch it is given
    /// (`row_bytes` rounded up to `COPY_BYTES_PER_ROW_ALIGNMENT`, 256) apart, and a
    /// buffer-to-texture copy moves them into place, submitted at once.
    ///
    /// `Queue::write_texture` copied the bytes on one thread into fresh staging memory of its
    /// own on every call; here the staging buffer is pooled and already mapped, and `fill` can
    /// spread its copy across threads ([`super::host::copy_rows_pitched`]), as [`Staging::upload`]
    /// does for buffers. A texture whose padded rows exceed what one staging buffer may hold
    /// (`max_buffer_size`, or the pool's [`POOL_MAX_BYTES`]) goes up in bands of whole rows,
    /// one `fill` and one copy each.
    pub fn upload_texture(
        &self,
        ctx: &GpuContext,
        texture: &wgpu::Texture,
        mut fill: impl FnMut(wgpu::WriteOnly<'_, [u8]>, std::ops::Range<usize>, usize),
    ) -> Result<()> {
        let bpt = texture.format().block_copy_size(None).ok_or_else(|| {
            Error::Internal(format!(
                "a texture upload of {:?}: not a plain colour format",
                texture.format()
            ))
        })?;
        let (width, rows) = (texture.width(), texture.height() as usize);
        let row_bytes = width as usize * bpt as usize;
        if row_bytes == 0 || rows == 0 {
            return Ok(());
        }
        let pitch = row_bytes.next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT as usize);
        if cfg!(target_arch = "wasm32") {
            // As in `upload`: in a browser one `writeTexture` call of the whole texture.
            let mut data = vec![0u8; rows * pitch];
            fill(wgpu::WriteOnly::from(&mut data[..]), 0..rows, pitch);
            ctx.scoped("uploading a texture", || {
                ctx.queue.write_texture(
                    texture.as_image_copy(),
                    &data,
                    wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(pitch as u32),
                        rows_per_image: Some(rows as u32),
                    },
                    texture.size(),
                );
                Ok(())
            })?;
            self.count_upload((rows * row_bytes) as u64);
            return Ok(());
        }
        let most = ctx.limits.max_buffer_size.min(POOL_MAX_BYTES) as usize;
        let band = (most / pitch).clamp(1, rows);
        let mut first = 0;
        while first < rows {
            let n = band.min(rows - first);
            let size = (n * pitch) as u64;
            self.stage(
                ctx,
                size,
                (n * row_bytes) as u64,
                "uploading a texture through a staging buffer",
                |view| fill(view, first..first + n, pitch),
                |enc, staging| {
                    enc.copy_buffer_to_texture(
                        wgpu::TexelCopyBufferInfo {
                            buffer: staging,
                            layout: wgpu::TexelCopyBufferLayout {
                                offset: 0,
                                bytes_per_row: Some(pitch as u32),
                                rows_per_image: Some(n as u32),
                            },
                        },
                        wgpu::TexelCopyTextureInfo {
                            origin: wgpu::Origin3d {
                                x: 0,
                                y: first as u32,
                                z: 0,
                            },
                            ..texture.as_image_copy()
                        },
                        wgpu::Extent3d {
                            width,
                            height: n as u32,
                            depth_or_array_layers: 1,
                        },
                    )
                },
            )?;
            first += n;
        }
        Ok(())
    }

    /// The part [`Staging::upload`] and [`Staging::upload_texture`] share: take a mapped write
    /// staging buffer of at least `size` bytes, let `fill` write its first `size` bytes, unmap
    /// it, submit the copy `record` encodes out of it (`during` names that step in an error),
    /// send the buffer back to the pool and count `counted` bytes uploaded.
    fn stage(
        &self,
        ctx: &GpuContext,
        size: u64,
        counted: u64,
        during: &str,
        fill: impl FnOnce(wgpu::WriteOnly<'_, [u8]>),
        record: impl FnOnce(&mut wgpu::CommandEncoder, &wgpu::Buffer),
    ) -> Result<()> {
        let staging = self.take_write(ctx, size)?;
        {
            // A new buffer mapped at creation fails to map only when it is invalid: the device
            // was lost (or destroyed), which check_lost names.
            let mut view = staging.get_mapped_range_mut(..size).map_err(|e| {
                // A wait lets the device-lost callback run (a destroyed device's poll fails at
                // once, and the callback may not have run at a poll that does not wait).
                ctx.wait().err().unwrap_or_else(|| {
                    Error::Readback(format!("mapping an upload staging buffer: {e}"))
                })
            })?;
            fill(view.slice(..));
        }
        staging.unmap();
        ctx.scoped(during, || {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            record(&mut enc, &staging);
            super::batch::submit(ctx, [enc.finish()]);
            Ok(())
        })?;
        // Inside a batch the copy is not submitted yet: the buffer goes back after it is.
        if let Some(staging) = super::batch::after_submit(ctx, staging) {
            self.recycle_write(staging);
        }
        self.count_upload(counted);
        Ok(())
    }

    /// Record copies filling `bytes` of `dst` from `offset` with 0xFF (a quiet NaN in every float
    /// format) into `enc`, from the device-side poison source.
    pub fn poison(
        &self,
        ctx: &GpuContext,
        enc: &mut wgpu::CommandEncoder,
        dst: &wgpu::Buffer,
        offset: u64,
        bytes: u64,
    ) -> Result<()> {
        let src = {
            let mut p = relock(&self.poison);
            match p.as_ref() {
                Some(src) => src.clone(),
                None => p
                    .insert(ctx.scoped("creating the poison source", || {
                        Ok(create_buffer_init(
                            &ctx.device,
                            &wgpu::util::BufferInitDescriptor {
                                label: Some("poison source"),
                                contents: &vec![0xFF; POISON_BYTES as usize],
                                usage: wgpu::BufferUsages::COPY_SRC,
                            },
                        ))
                    })?)
                    .clone(),
            }
        };
        let mut done = 0;
        while done < bytes {
            let n = POISON_BYTES.min(bytes - done);
            enc.copy_buffer_to_buffer(&src, 0, dst, offset + done, n);
            done += n;
        }
        Ok(())
    }
}

/// `wgpu::util::DeviceExt::create_buffer_init` without its panic: wgpu's version `expect`s the
/// mapping of the new buffer to succeed, which it does not on a lost device. Here a failed
/// mapping leaves an invalid buffer whose creation error the caller's error scope has already
/// captured (call this inside [`GpuContext::scoped`]), so the run ends in a typed error.
pub fn create_buffer_init(
    device: &wgpu::Device,
    desc: &wgpu::util::BufferInitDescriptor<'_>,
) -> wgpu::Buffer {
    let len = desc.contents.len() as u64;
    // As wgpu's: a multiple of COPY_BUFFER_ALIGNMENT, at least one unit.
    let align = wgpu::COPY_BUFFER_ALIGNMENT;
    let size = len.div_ceil(align).max(1) * align;
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: desc.label,
        size,
        usage: desc.usage,
        mapped_at_creation: true,
    });
    let mapped = match buffer.get_mapped_range_mut(..) {
        Ok(mut view) => {
            view.slice(..desc.contents.len())
                .copy_from_slice(desc.contents);
            true
        }
        Err(_) => false,
    };
    if mapped {
        buffer.unmap();
    }
    buffer
}

/// Bytes read back from the device, held 4-aligned so that f32 results are taken without a
/// copy ([`Bytes::into_f32s`]); dereferences to the bytes.
#[derive(Clone, Debug, Default)]
pub struct Bytes {
    words: Vec<u32>,
    len: usize,
}

impl Bytes {
    /// `rows` rows of `row_bytes` bytes, `pitch` bytes apart in `src`, copied tightly into new
    /// memory that is never zeroed first ([`super::host::copy_rows_raw`], on several threads
    /// when large).
    pub fn copied_rows(src: &[u8], rows: usize, row_bytes: usize, pitch: usize) -> Bytes {
        Self::copied_rows_into(Vec::new(), src, rows, row_bytes, pitch)
    }

    /// [`Bytes::copied_rows`] into `memory` (its old contents dropped, grown only if too
    /// short): memory a caller keeps from product to product, whose pages are already in, so
    /// the copy runs at the speed of memory it has touched before.
    pub fn copied_rows_into(
        mut words: Vec<u32>,
        src: &[u8],
        rows: usize,
        row_bytes: usize,
        pitch: usize,
    ) -> Bytes {
        let len = rows * row_bytes;
        words.clear();
        words.reserve_exact(len.div_ceil(4));
        huge_pages(words.spare_capacity_mut());
        // SAFETY: the capacity holds `len` bytes (rounded up to whole words); copy_rows_raw
        // writes all `len` of them, and the last word's tail bytes are set below before any
        // word is read.
        unsafe {
            let base = words.as_mut_ptr() as *mut u8;
            copy_rows_raw(base, src, rows, row_bytes, pitch);
            for i in len..len.div_ceil(4) * 4 {
                base.add(i).write(0);
            }
            words.set_len(len.div_ceil(4));
        }
        Bytes { words, len }
    }

    /// The bytes as f32 values (little-endian, as the device wrote them), without a copy when
    /// the length is a whole number of them.
    pub fn into_f32s(self) -> Vec<f32> {
        let Bytes { mut words, len } = self;
        words.truncate(len / 4);
        bytemuck::allocation::cast_vec(words)
    }
}

/// Ask Linux to back a large, fresh allocation with transparent huge pages before it is first
/// written: a 64 MiB result then faults in 32 times instead of 16 384 (where the kernel's
/// transparent huge pages are in `madvise` mode, as on Debian; a no-op elsewhere).
fn huge_pages<T>(words: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let bytes = std::mem::size_of_val(words);
        if bytes < 2 * HUGE {
            return;
        }
        let start = words.as_mut_ptr() as usize;
        let first = start.next_multiple_of(4096);
        let end = (start + bytes) & !4095;
        // SAFETY: the range lies inside `words`, page-aligned; MADV_HUGEPAGE changes only how
        // the kernel backs those pages, not their contents.
        unsafe {
            libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = words;
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &bytemuck::cast_slice(&self.words)[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copied_rows_keep_the_rows_and_drop_the_padding() {
        let src: Vec<u8> = (0..24).collect();
        assert_eq!(
            &*Bytes::copied_rows(&src, 3, 3, 8),
            [0, 1, 2, 8, 9, 10, 16, 17, 18]
        );
        assert_eq!(&*Bytes::copied_rows(&src, 3, 8, 8), &src[..]);
        // The last row needs only its own bytes, not a whole pitch.
        assert_eq!(
            &*Bytes::copied_rows(&src[..19], 3, 3, 8),
            [0, 1, 2, 8, 9, 10, 16, 17, 18]
        );
    }

    #[test]
    fn bytes_become_f32s_without_losing_any() {
        let values = [1.5f32, -2.0, f32::NAN, 0.0];
        let b = Bytes::copied_rows(bytemuck::cast_slice(&values), 1, 16, 16);
        assert_eq!(&*b, bytemuck::cast_slice::<f32, u8>(&values));
        let back = b.into_f32s();
        assert_eq!(back.len(), 4);
        assert_eq!(back[0].to_bits(), values[0].to_bits());
        assert!(back[2].is_nan());
        let odd = Bytes::copied_rows(&[7, 8, 9], 1, 3, 3);
        assert_eq!(&*odd, &[7, 8, 9]);
    }
}
