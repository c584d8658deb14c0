//! Operand layout on the device: a matrix goes up as it is (one straight copy into mapped
//! staging memory, [`super::host::copy_into`]), and one compute pass (`shaders/layout.wgsl`)
//! writes the layout a kernel wants — transposed, zero-padded to its tile multiples — into the
//! operand buffer.
//!
//! The host used to do that layout on the way into staging memory, and still does where the
//! device *is* the host's CPU (lavapipe: its staging memory is ordinary memory, and its compute
//! passes run on the same cores, several times slower than the host's own transpose). Staging memory an upload
//! writes may be write-combined, which takes sequential stores well and scattered ones badly, and
//! on the H100 machine the transposed layout of a 4096² matrix took 82 ms on the host against
//! 7-12 ms for its straight copy (`cargo run --release --example data_path -- 4096`,
//! docs/performance.md). The device does the same in well under a millisecond.
//! [`super::buffer::layout_rows`] is the host's layout ([`Where::Host`]); the tests hold it and
//! the device's pass to the same transpose and padding, written plainly in the test.

use super::buffer::{MatrixBuffer, uniform};
use super::context::GpuContext;
use crate::error::{Error, Result};
use crate::matrix::Matrix;

const SHADER: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/layout.wgsl"));
/// The shader's tile (and workgroup) side.
const TILE: usize = 16;

/// The layout pipeline and its bind group layout, built once per context.
pub struct LayoutPipeline {
    pipeline: wgpu::ComputePipeline,
    group: wgpu::BindGroupLayout,
}

impl LayoutPipeline {
    fn new(ctx: &GpuContext) -> Result<Self> {
        let module = ctx.shader("layout.wgsl", SHADER)?;
        ctx.scoped("creating the layout pipeline", || {
            let storage = super::pipeline::storage_entry;
            let mut params = super::pipeline::uniform_entry(0);
            params.visibility = wgpu::ShaderStages::COMPUTE;
            let (group, layout) = super::pipeline::one_group_layout(
                &ctx.device,
                "layout",
                &[params, storage(1, true), storage(2, false)],
            );
            let pipeline = ctx
                .device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some("layout"),
                    layout: Some(&layout),
                    module: &module,
                    entry_point: Some("lay_out"),
                    compilation_options: Default::default(),
                    cache: None,
                });
            Ok(Self { pipeline, group })
        })
    }
}

/// Where an operand's layout is done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Where {
    /// On the way into staging memory ([`super::buffer::layout_rows`]).
    Host,
    /// In a compute pass after a straight upload.
    Device,
}

impl Where {
    /// The host for CPU adapters (lavapipe), the device for every other.
    pub fn for_adapter(ctx: &GpuContext) -> Where {
        if ctx.info.device_type == wgpu::DeviceType::Cpu {
            Where::Host
        } else {
            Where::Device
        }
    }
}

/// Upload `m` (or `mᵀ` when `transpose`) zero-padded to `rows × cols` into a new storage
/// buffer, laid out where [`Where::for_adapter`] says.
pub fn upload_laid_out(
    ctx: &GpuContext,
    label: &str,
    m: &Matrix,
    transpose: bool,
    rows: usize,
    cols: usize,
) -> Result<MatrixBuffer> {
    Ok(upload_laid_out_scanned(ctx, label, m, transpose, rows, cols)?.0)
}

/// [`upload_laid_out`], saying whether every value of `m` was finite: tested as the one copy
/// out of `m` is made (into the staging buffer), not in a pass of its own.
pub fn upload_laid_out_scanned(
    ctx: &GpuContext,
    label: &str,
    m: &Matrix,
    transpose: bool,
    rows: usize,
    cols: usize,
) -> Result<(MatrixBuffer, bool)> {
    upload_laid_out_at(
        ctx,
        Where::for_adapter(ctx),
        label,
        m,
        transpose,
        rows,
        cols,
    )
}

/// [`upload_laid_out_scanned`] with the layout done `at` the host or the device. On the device,
/// `m` goes up as it is and one compute pass lays it out (submitted; the runner's wait covers
/// it). A matrix that needs no layout is uploaded straight into the buffer either way.
#[allow(clippy::too_many_arguments)]
pub fn upload_laid_out_at(
    ctx: &GpuContext,
    at: Where,
    label: &str,
    m: &Matrix,
    transpose: bool,
    rows: usize,
    cols: usize,
) -> Result<(MatrixBuffer, bool)> {
    let (r, c) = if transpose {
        (m.cols, m.rows)
    } else {
        (m.rows, m.cols)
    };
    if rows < r || cols < c {
        return Err(Error::Invalid(format!(
            "{label}: padding {r}x{c} to {rows}x{cols} would cut it"
        )));
    }
    if !transpose && (rows, cols) == (m.rows, m.cols) || rows * cols == 0 {
        let buf = MatrixBuffer::new(ctx, label, rows, cols)?;
        let finite = rows * cols == 0 || buf.write_scanned(ctx, &m.data)?;
        return Ok((buf, finite));
    }
    // Check the laid-out size before the source goes up.
    let out = MatrixBuffer::new(ctx, label, rows, cols)?;
    if at == Where::Host {
        let row_bytes = cols * 4;
        let mut finite = true;
        out.write_with(ctx, |mut w| {
            let mut to = 0;
            super::buffer::layout_rows(m, transpose, rows, cols, |row| {
                finite &= crate::matrix::all_finite(row);
                w.slice(to..to + row_bytes)
                    .copy_from_slice(bytemuck::cast_slice(row));
                to += row_bytes;
            });
        })?;
        return Ok((out, finite));
    }
    if m.data.is_empty() {
        // All padding (a pooled buffer holds what its last user left).
        ctx.scoped(&format!("zeroing {label}"), || {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            enc.clear_buffer(&out.buffer, 0, None);
            super::batch::submit(ctx, [enc.finish()]);
            Ok(())
        })?;
        return Ok((out, true));
    }
    let (src, finite) = MatrixBuffer::upload_scanned(ctx, &format!("{label}, as given"), m)?;
    let groups = [cols.div_ceil(TILE), rows.div_ceil(TILE)].map(|g| g as u32);
    let grid = [groups[0], groups[1], 1];
    super::compute::check_grid(&ctx.limits, &format!("laying out {label}"), grid)?;
    let params: [u32; 8] = [
        m.rows as u32,
        m.cols as u32,
        rows as u32,
        cols as u32,
        transpose as u32,
        0,
        0,
        0,
    ];
    let params = uniform(ctx, "layout params", bytemuck::cast_slice(&params))?;
    let lp = ctx
        .pipelines
        .get_or_build(&"layout.wgsl", || LayoutPipeline::new(ctx))?;
    ctx.scoped(&format!("laying out {label} on the device"), || {
        let bind = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("layout"),
            layout: &lp.group,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: src.buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: out.buffer.as_entire_binding(),
                },
            ],
        });
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("layout"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&lp.pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(groups[0], groups[1], 1);
        }
        super::batch::submit(ctx, [enc.finish()]);
        Ok(())
    })?;
    Ok((out, finite))
}
