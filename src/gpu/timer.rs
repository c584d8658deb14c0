//! Device time of a span of GPU work.
//!
//! A [`Span`] writes a GPU timestamp in a command buffer of its own before the work it measures
//! and another after it (`CommandEncoder::write_timestamp`, which needs
//! `TIMESTAMP_QUERY_INSIDE_ENCODERS`); the queue runs command buffers in order, so the difference
//! is the device time of everything submitted in between, however many passes and submissions a
//! method uses. Without the feature the span falls back to the wall clock after a full wait, and
//! says so in [`Clock`].

use super::context::GpuContext;
use crate::clock::Instant;
use crate::error::Result;
use serde::Serialize;

/// Which clock a time came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Clock {
    /// GPU timestamp queries.
    GpuTimestamp,
    /// Host wall clock around submit and a full wait.
    WallClock,
}

impl Clock {
    pub fn name(self) -> &'static str {
        match self {
            Clock::GpuTimestamp => "gpu-timestamp",
            Clock::WallClock => "wall-clock",
        }
    }
}

/// A span being measured; [`Span::end`] waits for the GPU and returns milliseconds.
pub struct Span {
    start: Instant,
    gpu: Option<(wgpu::QuerySet, wgpu::Buffer, wgpu::Buffer)>,
}

impl Span {
    /// Start measuring: everything submitted after this call and before [`Span::end`] is timed.
    pub fn begin(ctx: &GpuContext) -> Result<Span> {
        let gpu = if ctx
            .has(wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
        {
            Some(ctx.scoped("starting a timestamp span", || {
                let qs = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("span"),
                    ty: wgpu::QueryType::Timestamp,
                    count: 2,
                });
                let resolve = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("span resolve"),
                    size: 16,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                });
                let read = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("span read"),
                    size: 16,
                    usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                    mapped_at_creation: false,
                });
                let mut enc = ctx.device.create_command_encoder(&Default::default());
                enc.write_timestamp(&qs, 0);
                ctx.queue.submit([enc.finish()]);
                Ok((qs, resolve, read))
            })?)
        } else {
            None
        };
        Ok(Span {
            start: Instant::now(),
            gpu,
        })
    }

    /// Stop measuring, wait for the GPU, and return (milliseconds, clock) (blocking).
    pub fn end(self, ctx: &GpuContext) -> Result<(f64, Clock)> {
        pollster::block_on(self.end_async(ctx))
    }

    /// Stop measuring, await the GPU, and return (milliseconds, clock).
    pub async fn end_async(self, ctx: &GpuContext) -> Result<(f64, Clock)> {
        let Some((qs, resolve, read)) = self.gpu else {
            super::run::settle(ctx).await?;
            return Ok((self.start.elapsed().as_secs_f64() * 1e3, Clock::WallClock));
        };
        ctx.scoped("ending a timestamp span", || {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            enc.write_timestamp(&qs, 1);
            enc.resolve_query_set(&qs, 0..2, &resolve, 0);
            enc.copy_buffer_to_buffer(&resolve, 0, &read, 0, 16);
            ctx.queue.submit([enc.finish()]);
            Ok(())
        })?;
        let ticks: Vec<u64> =
            super::run::map_read(ctx, &read, bytemuck::pod_collect_to_vec).await?;
        let period = ctx.queue.get_timestamp_period() as f64;
        let ns = ticks[1].wrapping_sub(ticks[0]) as f64 * period;
        Ok((ns * 1e-6, Clock::GpuTimestamp))
    }
}
