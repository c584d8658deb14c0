//! One run of the powers on the GPU: M uploaded once by the entry point, each product (and its
//! clamp) a [`plan::multiply`] on operands kept on the device, the paper's copy of F into R, and
//! the timings of each step.

use super::{Breakdown, Layout, ReachOptions, Step, Transfer, ms};
use crate::error::Error;
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::gpu::readback::blocking::map_read;
use crate::gpu::submit::submit;
use crate::gpu::texture::extent;
use crate::matrix::Matrix;
use crate::methods::Method;
use crate::plan::resident::{self, OnDevice, Resident};
use crate::plan::{self, Options, Request};
use crate::precision::Precision;
use std::time::Instant;

/// The resident matrices of one chain of products.
pub(super) struct Run<'c> {
    pub(super) ctx: &'c GpuContext,
    pub(super) method: Method,
    pub(super) precision: Precision,
    pub(super) block: Option<u32>,
    pub(super) transfer: Transfer,
    /// M, never overwritten.
    pub(super) base: Resident,
    /// R, the running power, filled by copies from F.
    pub(super) input: Resident,
    /// F, the last product, kept on the device by the entry point.
    pub(super) fb: Option<Resident>,
    pub(super) stamps: Option<Stamps>,
    /// Whether R still equals M (no copy yet), so products read M.
    pub(super) input_is_base: bool,
    /// Whether F holds the latest product.
    pub(super) fb_fresh: bool,
    pub(super) passes_per_product: usize,
    pub(super) t: Breakdown,
}

impl<'c> Run<'c> {
    pub(super) fn new(
        ctx: &'c GpuContext,
        layout: Layout,
        precision: Precision,
        opts: &ReachOptions,
        m: &Matrix,
        copies: usize,
    ) -> Result<Self> {
        let method = match layout {
            Layout::Lm => Method::Lm,
            Layout::Blocked => Method::HallBlocked,
            Layout::Packed => Method::HallPacked,
        };
        let t0 = Instant::now();
        let base = resident::upload(ctx, method, m, precision)?;
        ctx.wait()?;
        let load_ms = ms(t0);

        let t1 = Instant::now();
        let input = resident::empty_like(ctx, &base, "R (power)")?;
        let stamps = match opts.transfer {
            Transfer::GpuCopy => Stamps::new(ctx, copies),
            Transfer::HostRoundTrip => None,
        };
        ctx.wait()?;
        let passes_per_product = match layout {
            Layout::Lm => m.rows,
            _ => base.texture().cols.div_ceil(
                opts.block
                    .unwrap_or(crate::methods::hall_blocked::DEFAULT_BLOCK)
                    .max(1) as usize,
            ),
        };
        Ok(Self {
            ctx,
            method,
            precision,
            block: opts.block,
            transfer: opts.transfer,
            base,
            input,
            fb: None,
            stamps,
            input_is_base: true,
            fb_fresh: false,
            passes_per_product,
            t: Breakdown {
                load_ms,
                setup_ms: ms(t1),
                ..Default::default()
            },
        })
    }

    /// One product into F through the entry point, the operands and F on the device, then the
    /// clamp if the precision needs it (asked of the same call, timed apart).
    pub(super) fn product(&mut self, step: Step) -> Result<()> {
        let x_is_base = self.input_is_base;
        let y_is_base = match step {
            Step::Square => self.input_is_base,
            Step::TimesBase => true,
        };
        let pick = |is_base: bool| if is_base { &self.base } else { &self.input };
        let product = OnDevice {
            x: pick(x_is_base),
            y: pick(y_is_base),
            clamp_to_one: true,
        };
        let opts = Options {
            precision: self.precision,
            block: self.block,
            ..Default::default()
        };
        let t1 = Instant::now();
        let out = plan::multiply(
            Some(self.ctx),
            Request::on_device(self.method, product).options(opts),
        )?;
        let call_ms = ms(t1);
        // Pipelines built for the product and the clamp are setup; the clamp's step is its own.
        let clamp = out.clamp.as_ref();
        let clamp_setup = clamp.map_or(0.0, |c| c.setup_ms);
        let clamp_ms = clamp.map_or(0.0, |c| c.total_ms() - c.setup_ms);
        self.t.setup_ms += out.timings.setup_ms + clamp_setup;
        self.t.clamp_ms += clamp_ms;
        self.t.multiply_ms += (call_ms - out.timings.setup_ms - clamp_setup - clamp_ms).max(0.0);
        self.fb = Some(
            out.on_device
                .ok_or_else(|| Error::Internal("the product was not kept on the device".into()))?,
        );
        self.t.products += 1;
        self.fb_fresh = true;
        Ok(())
    }

    /// The paper's "Copy": F into R, inside GPU memory (or through the host, for comparison).
    pub(super) fn copy_into_input(&mut self) -> Result<()> {
        let ctx = self.ctx;
        let Run {
            fb, input, stamps, ..
        } = self;
        let fb = fb
            .as_ref()
            .ok_or_else(|| Error::Internal("nothing to copy: no product yet".into()))?
            .texture();
        let input = input.texture();
        let t0 = Instant::now();
        match self.transfer {
            Transfer::GpuCopy => {
                ctx.scoped("the framebuffer-to-texture copy", || {
                    let mut enc = ctx.device.create_command_encoder(&Default::default());
                    if let Some(s) = stamps.as_mut() {
                        s.stamp(&mut enc);
                    }
                    enc.copy_texture_to_texture(
                        fb.texture.as_image_copy(),
                        input.texture.as_image_copy(),
                        extent(fb.rows, fb.cols),
                    );
                    if let Some(s) = stamps.as_mut() {
                        s.stamp(&mut enc);
                    }
                    submit(ctx, [enc.finish()]);
                    Ok(())
                })?;
            }
            Transfer::HostRoundTrip => {
                let bytes = fb.read_bytes(ctx)?;
                input.write_bytes(ctx, &bytes)?;
            }
        }
        ctx.wait()?;
        self.t.copy_ms += ms(t0);
        self.t.copies += 1;
        self.input_is_base = false;
        self.fb_fresh = false;
        Ok(())
    }

    /// Read the final product back (M itself if there were no products): the only transfer to
    /// the host.
    pub(super) fn read_back(&mut self) -> Result<Matrix> {
        let r = match (&self.fb, self.fb_fresh) {
            (Some(fb), true) => fb,
            _ if self.input_is_base => &self.base,
            _ => &self.input,
        };
        let t0 = Instant::now();
        let m = resident::read_back(self.ctx, r)?;
        self.t.readback_ms += ms(t0);
        if let Some(idx) = m.data.iter().position(|&v| v != 0.0 && v != 1.0) {
            return Err(Error::Invalid(format!(
                "the GPU returned {} at ({}, {}) where every entry should be 0 or 1",
                m.data[idx],
                idx / m.cols,
                idx % m.cols
            )));
        }
        Ok(m)
    }
}

/// GPU timestamps before and after each copy.
pub(super) struct Stamps {
    pub(super) set: wgpu::QuerySet,
    pub(super) next: u32,
    pub(super) capacity: u32,
}

impl Stamps {
    /// Room for `copies` copies, if there are any and the adapter writes timestamps inside
    /// encoders.
    pub(super) fn new(ctx: &GpuContext, copies: usize) -> Option<Self> {
        let needed =
            wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS;
        let capacity = 2 * copies as u32;
        if copies == 0 || capacity > wgpu::QUERY_SET_MAX_QUERIES || !ctx.has(needed) {
            return None;
        }
        let set = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("reach copy timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: capacity,
        });
        Some(Self {
            set,
            next: 0,
            capacity,
        })
    }

    pub(super) fn stamp(&mut self, enc: &mut wgpu::CommandEncoder) {
        if self.next < self.capacity {
            enc.write_timestamp(&self.set, self.next);
            self.next += 1;
        }
    }

    /// Sum of (after − before) over the copies, in milliseconds.
    pub(super) fn read_ms(&self, ctx: &GpuContext) -> Result<f64> {
        let count = self.next - self.next % 2;
        if count == 0 {
            return Ok(0.0);
        }
        let bytes = count as u64 * 8;
        let ticks: Vec<u64> = ctx.scoped("reading the copy timestamps", || {
            let resolve = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("reach timestamps"),
                size: bytes,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let read = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("reach timestamps readback"),
                size: bytes,
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                mapped_at_creation: false,
            });
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            enc.resolve_query_set(&self.set, 0..count, &resolve, 0);
            enc.copy_buffer_to_buffer(&resolve, 0, &read, 0, bytes);
            submit(ctx, [enc.finish()]);
            map_read(ctx, &read, bytemuck::pod_collect_to_vec)
        })?;
        let period_ns = ctx.queue.get_timestamp_period() as f64;
        let ns: f64 = ticks
            .chunks_exact(2)
            .map(|p| p[1].saturating_sub(p[0]) as f64 * period_ns)
            .sum();
        Ok(ns / 1e6)
    }
}
