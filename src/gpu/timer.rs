//! Device time of a span of GPU work.
//!
//! A [`Span`] writes a GPU timestamp in a command buffer of its own before the work it measures
//! and another after it (`CommandEncoder::write_timestamp`, which needs
//! `TIMESTAMP_QUERY_INSIDE_ENCODERS`); the queue runs command buffers in order, so the difference
//! is the device time of everything submitted in between, however many passes and submissions a
//! method uses. Without the feature the span falls back to the wall clock after a full wait, and
//! says so in [`Clock`].
//!
//! On a GPU the opening timestamp goes to the queue in the same `submit` as the first work
//! ([`Span::submit`]), and the closing one, where the caller can, in the same `submit` as the
//! last ([`Span::end_with`]), or both in the work's own command buffer
//! ([`Span::time_encoded_async`]). A timestamp submitted on its own is written at once by an idle
//! GPU, which then waits for the host's next submission: the span would count that wait, tens of
//! microseconds on the H100, as device time (it was a tenth of `coop`'s 0.5 ms at n = 4096).
//!
//! On a CPU adapter each timestamp goes in a submission of its own instead. lavapipe runs a
//! compute dispatch on worker threads and writes a timestamp recorded after it in the same
//! submission without waiting for them (its compute-FMA ceiling came out at 28 TFLOP/s on two
//! cores); a new submission starts only once the one before is done. The host's time between
//! submissions, microseconds, is then inside the span, beside work that takes milliseconds there.

use super::context::GpuContext;
use crate::clock::Instant;
use crate::error::Result;
use serde::Serialize;

/// Which clock a time came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
// The names are the reports' (`gpu-timestamp`, `wall-clock`).
#[allow(clippy::enum_variant_names)]
pub enum Clock {
    /// GPU timestamp queries.
    GpuTimestamp,
    /// Host wall clock around submit and a full wait.
    WallClock,
    /// Timestamp queries of a CPU adapter (lavapipe): written as the CPU cores run the work,
    /// the opening one submitted alone ([`Span::begin`]), so the span also counts the host's
    /// submission of the work. A label for reports only: a CPU's time, not a GPU's.
    CpuAdapterTimestamp,
}

impl Clock {
    pub fn name(self) -> &'static str {
        match self {
            Clock::GpuTimestamp => "gpu-timestamp",
            Clock::WallClock => "wall-clock",
            Clock::CpuAdapterTimestamp => "cpu-adapter-timestamp",
        }
    }

    /// This clock as a report names it on `ctx`'s adapter: a CPU adapter's timestamps are
    /// [`Clock::CpuAdapterTimestamp`].
    pub fn on(self, ctx: Option<&crate::gpu::GpuContext>) -> Clock {
        match (self, ctx) {
            (Clock::GpuTimestamp, Some(c)) if c.info.device_type == wgpu::DeviceType::Cpu => {
                Clock::CpuAdapterTimestamp
            }
            (clock, _) => clock,
        }
    }
}

/// A span being measured; [`Span::end`] waits for the GPU and returns milliseconds.
pub struct Span {
    start: Instant,
    gpu: Option<Stamps>,
}

/// The span's query set, its resolve and read buffers, and the opening timestamp's command
/// buffer until it is submitted with the first work.
struct Stamps {
    qs: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    read: wgpu::Buffer,
    opening: Option<wgpu::CommandBuffer>,
    /// Each timestamp in a submission of its own (CPU adapters, see the module docs).
    alone: bool,
}

impl Span {
    /// Start measuring: everything submitted through [`Span::submit`] or [`Span::end_with`], or
    /// on the queue after the first such call and before [`Span::end`], is timed. On a GPU
    /// nothing is submitted yet; on a CPU adapter the opening timestamp is.
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
                let alone = ctx.info.device_type == wgpu::DeviceType::Cpu;
                let mut opening = Some(enc.finish());
                if alone {
                    ctx.queue.submit(opening.take());
                }
                Ok(Stamps {
                    qs,
                    resolve,
                    read,
                    opening,
                    alone,
                })
            })?)
        } else {
            None
        };
        Ok(Span {
            start: Instant::now(),
            gpu,
        })
    }

    /// Submit `commands` inside the span, in one `queue.submit` with the opening timestamp if it
    /// has not gone yet.
    pub fn submit(
        &mut self,
        ctx: &GpuContext,
        commands: impl IntoIterator<Item = wgpu::CommandBuffer>,
    ) -> Result<()> {
        let opening = self.gpu.as_mut().and_then(|g| g.opening.take());
        ctx.scoped("submitting recorded GPU work", || {
            ctx.queue.submit(opening.into_iter().chain(commands));
            Ok(())
        })
    }

    /// Stop measuring, wait for the GPU, and return (milliseconds, clock) (blocking).
    #[cfg(feature = "internals")]
    pub fn end(self, ctx: &GpuContext) -> Result<(f64, Clock)> {
        pollster::block_on(self.end_with_async(ctx, []))
    }

    /// Submit `commands` as the span's last work, in one `queue.submit` with the closing
    /// timestamp (and the opening one if nothing went before), and return (milliseconds,
    /// clock) (blocking).
    pub fn end_with(
        self,
        ctx: &GpuContext,
        commands: impl IntoIterator<Item = wgpu::CommandBuffer>,
    ) -> Result<(f64, Clock)> {
        pollster::block_on(self.end_with_async(ctx, commands))
    }

    /// Stop measuring, await the GPU, and return (milliseconds, clock).
    pub async fn end_async(self, ctx: &GpuContext) -> Result<(f64, Clock)> {
        self.end_with_async(ctx, []).await
    }

    /// [`Span::time_encoded_async`], blocking.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn time_encoded(
        self,
        ctx: &GpuContext,
        record: impl FnOnce(&mut wgpu::CommandEncoder) -> Result<()>,
    ) -> Result<(f64, Clock)> {
        pollster::block_on(self.time_encoded_async(ctx, record))
    }

    /// Record the work with `record` into one command buffer between the span's two
    /// timestamps, submit it, and return (milliseconds, clock) once the GPU is done. Nothing may
    /// have been submitted through the span before. The tightest bracket: no boundary between
    /// command buffers lies inside the span.
    pub async fn time_encoded_async(
        self,
        ctx: &GpuContext,
        record: impl FnOnce(&mut wgpu::CommandEncoder) -> Result<()>,
    ) -> Result<(f64, Clock)> {
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        let Stamps {
            qs, resolve, read, ..
        } = match self.gpu {
            Some(stamps) if !stamps.alone => stamps,
            gpu => {
                record(&mut enc)?;
                return Span { gpu, ..self }
                    .end_with_async(ctx, [enc.finish()])
                    .await;
            }
        };
        ctx.scoped("recording timed GPU work", || {
            enc.write_timestamp(&qs, 0);
            record(&mut enc)?;
            enc.write_timestamp(&qs, 1);
            enc.resolve_query_set(&qs, 0..2, &resolve, 0);
            enc.copy_buffer_to_buffer(&resolve, 0, &read, 0, 16);
            ctx.queue.submit([enc.finish()]);
            Ok(())
        })?;
        read_ticks(ctx, &read).await
    }

    /// [`Span::end_with`], awaiting the GPU.
    pub async fn end_with_async(
        self,
        ctx: &GpuContext,
        commands: impl IntoIterator<Item = wgpu::CommandBuffer>,
    ) -> Result<(f64, Clock)> {
        let Some(Stamps {
            qs,
            resolve,
            read,
            opening,
            alone,
        }) = self.gpu
        else {
            ctx.scoped("submitting recorded GPU work", || {
                ctx.queue.submit(commands);
                Ok(())
            })?;
            super::wait::settle(ctx).await?;
            return Ok((self.start.elapsed().as_secs_f64() * 1e3, Clock::WallClock));
        };
        ctx.scoped("ending a timestamp span", || {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            enc.write_timestamp(&qs, 1);
            enc.resolve_query_set(&qs, 0..2, &resolve, 0);
            enc.copy_buffer_to_buffer(&resolve, 0, &read, 0, 16);
            let closing = enc.finish();
            if alone {
                ctx.queue.submit(commands);
                ctx.queue.submit([closing]);
            } else {
                ctx.queue.submit(
                    opening
                        .into_iter()
                        .chain(commands)
                        .chain(std::iter::once(closing)),
                );
            }
            Ok(())
        })?;
        read_ticks(ctx, &read).await
    }
}

/// The span's two timestamps from its read buffer, as (milliseconds, clock).
async fn read_ticks(ctx: &GpuContext, read: &wgpu::Buffer) -> Result<(f64, Clock)> {
    let ticks: Vec<u64> = super::wait::map_read(ctx, read, bytemuck::pod_collect_to_vec).await?;
    let period = ctx.queue.get_timestamp_period() as f64;
    let ns = ticks[1].wrapping_sub(ticks[0]) as f64 * period;
    Ok((ns * 1e-6, Clock::GpuTimestamp))
}
