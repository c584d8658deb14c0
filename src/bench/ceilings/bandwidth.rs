//! The copy-bandwidth ceilings: buffer-to-buffer and texture copies timed at their best.

use super::best;
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::gpu::submit::submit;
use crate::gpu::timer::Clock;

#[derive(Clone, Copy)]
pub(super) enum Copy {
    DeviceToDevice,
    /// `Queue::write_buffer` of a host vector.
    QueueWrite,
    /// A pooled mapped staging buffer filled from a host vector, then copied on the device.
    Staged,
    /// A copy into a reused `MAP_READ` buffer and its mapping, the bytes not read.
    DeviceToMapped,
    /// As `DeviceToMapped`, then the bytes copied into a host vector used before.
    DeviceToHost,
    /// As `DeviceToMapped`, then the bytes copied into new memory, as a readback does
    /// (`Bytes::copied_rows`: several threads when large).
    DeviceToNewHost,
}

pub(super) fn copy_bandwidth(
    ctx: &GpuContext,
    what: Copy,
    bytes: u64,
    repeats: usize,
) -> Result<(f64, Clock)> {
    let make = |label, usage| {
        ctx.scoped("allocating copy buffers", || {
            Ok(ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage,
                mapped_at_creation: false,
            }))
        })
    };
    let read_back = |src: &wgpu::Buffer, dst: &wgpu::Buffer, host: Option<&mut Vec<u8>>| {
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(src, 0, dst, 0, bytes);
        submit(ctx, [enc.finish()]);
        crate::gpu::readback::blocking::map_read(ctx, dst, |b| {
            if let Some(h) = host {
                h.copy_from_slice(&b[..bytes as usize]);
            }
        })
    };
    let host = vec![1u8; bytes as usize];
    match what {
        Copy::DeviceToDevice => {
            let src = make("copy src", wgpu::BufferUsages::COPY_SRC)?;
            let dst = make("copy dst", wgpu::BufferUsages::COPY_DST)?;
            best(ctx, repeats, || {
                let mut enc = ctx.device.create_command_encoder(&Default::default());
                enc.copy_buffer_to_buffer(&src, 0, &dst, 0, bytes);
                Ok(enc.finish())
            })
        }
        // Host transfers include the CPU side, so they are timed by the wall clock.
        Copy::QueueWrite => {
            let dst = make("h2d dst", wgpu::BufferUsages::COPY_DST)?;
            best_wall(ctx, repeats, || {
                ctx.queue.write_buffer(&dst, 0, &host);
                submit(ctx, []);
                ctx.wait()
            })
        }
        Copy::Staged => {
            let dst = make("h2d dst", wgpu::BufferUsages::COPY_DST)?;
            best_wall(ctx, repeats, || {
                ctx.staging.upload(ctx, &dst, 0, bytes, |w| {
                    crate::gpu::host::copy_into(w, &host)
                })?;
                ctx.wait()
            })
        }
        Copy::DeviceToNewHost => {
            let src = make("d2h src", wgpu::BufferUsages::COPY_SRC)?;
            let dst = make(
                "d2h dst",
                wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            )?;
            best_wall(ctx, repeats, || {
                let mut enc = ctx.device.create_command_encoder(&Default::default());
                enc.copy_buffer_to_buffer(&src, 0, &dst, 0, bytes);
                submit(ctx, [enc.finish()]);
                let got = crate::gpu::readback::blocking::map_read(ctx, &dst, |b| {
                    crate::gpu::staging::Bytes::copied_rows(b, 1, bytes as usize, bytes as usize)
                })?;
                drop(std::hint::black_box(got));
                Ok(())
            })
        }
        Copy::DeviceToMapped | Copy::DeviceToHost => {
            let src = make("d2h src", wgpu::BufferUsages::COPY_SRC)?;
            let dst = make(
                "d2h dst",
                wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            )?;
            let mut out = vec![0u8; bytes as usize];
            let into_host = matches!(what, Copy::DeviceToHost);
            best_wall(ctx, repeats, || {
                read_back(&src, &dst, into_host.then_some(&mut out))
            })
        }
    }
}

pub(super) fn best_wall(
    ctx: &GpuContext,
    repeats: usize,
    mut f: impl FnMut() -> Result<()>,
) -> Result<(f64, Clock)> {
    f()?;
    let mut best = f64::INFINITY;
    for _ in 0..repeats.max(1) {
        ctx.wait()?;
        let t = std::time::Instant::now();
        f()?;
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok((best, Clock::WallClock))
}
