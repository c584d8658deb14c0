//! The compute-shader harness. A method describes its dispatches as a [`Plan`] — which WGSL entry
//! point, with which pipeline-overridable constants, over which grid, reading and writing which
//! buffers — and [`run`] does the rest: checks the plan against the adapter's limits (workgroup
//! size, invocations, workgroup storage, grid size, storage-buffer sizes) before allocating
//! anything, uploads A and B into storage buffers, poisons the outputs with NaN, builds the
//! pipelines, records every dispatch into one compute pass, and reads C back.
//!
//! Every compute shader in `shaders/` binds the same four slots, so one pipeline layout serves all:
//!
//! | binding | type                         | [`Io::Gemm`] | [`Io::GemmToScratch`] | [`Io::ScratchToC`] |
//! |---------|------------------------------|--------------|-----------------------|--------------------|
//! | 0       | `storage, read` `array<f32>` | A            | A                     | scratch            |
//! | 1       | `storage, read` `array<f32>` | B            | B                     | scratch            |
//! | 2       | `storage, read_write`        | C            | scratch               | C                  |
//! | 3       | `uniform` `Dims {m, k, n, extra}` | shape   | shape                 | shape              |
//!
//! Timings: `upload_ms` covers creating, filling and poisoning the buffers; `compute_ms` is the
//! wall-clock time from submitting the dispatches to their completion (pipelines are built
//! before, and their build time is reported in a note, so shader compilation does not count as
//! compute); `readback_ms` is the copy to a mapped staging buffer.

use super::buffer::{self, MatrixBuffer, check_storage_size};
use super::context::GpuContext;
#[cfg_attr(not(feature = "internals"), allow(unused_imports))]
use super::run::{Dispatch, Grid, Ran, Read, Repeats, Work, ms};
use crate::clock::Instant;
use crate::error::{Error, Result};
use crate::matrix::Matrix;

/// One WGSL compute entry point, with the values of its `override` constants and the workgroup
/// shape and workgroup storage those constants give it (used for the limit checks).
#[derive(Clone, Debug)]
pub struct Kernel {
    /// File name under `shaders/`, used in labels and errors.
    pub file: &'static str,
    pub source: &'static str,
    pub entry: &'static str,
    /// Pipeline-overridable constants (`override NAME: u32`), by name.
    pub constants: Vec<(&'static str, f64)>,
    /// `@workgroup_size` as the constants make it.
    pub workgroup_size: [u32; 3],
    /// Bytes of `var<workgroup>` storage the kernel declares.
    pub workgroup_bytes: u64,
}

impl Kernel {
    /// Invocations per workgroup.
    pub fn invocations(&self) -> u64 {
        self.workgroup_size.iter().map(|&d| d as u64).product()
    }
}

/// Which buffers a dispatch binds to slots 0, 1 and 2 (see the module table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Io {
    /// A, B → C.
    Gemm,
    /// A, B → the scratch buffer (partial sums).
    GemmToScratch,
    /// scratch → C (a reduction pass).
    ScratchToC,
}

/// One dispatch of a plan.
#[derive(Clone, Debug)]
pub struct Stage {
    pub kernel: Kernel,
    /// Workgroups along x, y, z.
    pub groups: [u32; 3],
    pub io: Io,
}

impl Stage {
    /// Total workgroups of the dispatch.
    pub fn workgroups(&self) -> u64 {
        self.groups.iter().map(|&g| g as u64).product()
    }
}

/// Everything one compute method does for one product: its dispatches in order, the scratch
/// buffer they share, and remarks for the report.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The method's command-line name, used in errors.
    pub method: &'static str,
    pub stages: Vec<Stage>,
    /// f32 words of scratch (partial sums), 0 if none.
    pub scratch_words: u64,
    /// The fourth word of the `Dims` uniform (the number of partial sums for a reduction).
    pub extra: u32,
    pub notes: Vec<String>,
    /// `Some(why every index is in range)`: the plan's shaders are compiled with wgpu's runtime
    /// bounds checks and loop bounding off (`GpuContext::shader_trusted`). Only for kernels whose indexing
    /// is proven in range for the buffers their method uploads (e.g. padded to tile multiples).
    pub trusted: Option<&'static str>,
}

impl Plan {
    /// A plan of one dispatch A, B → C.
    pub fn single(method: &'static str, kernel: Kernel, groups: [u32; 3]) -> Self {
        Plan {
            method,
            stages: vec![Stage {
                kernel,
                groups,
                io: Io::Gemm,
            }],
            scratch_words: 0,
            extra: 0,
            notes: vec![],
            trusted: None,
        }
    }

    /// Add a remark for the report.
    pub fn note(mut self, s: impl Into<String>) -> Self {
        self.notes.push(s.into());
        self
    }

    /// Check every dispatch and the scratch buffer against `limits`.
    pub fn check(&self, limits: &wgpu::Limits) -> Result<()> {
        for s in &self.stages {
            let who = format!(
                "{} ({}, entry {})",
                self.method, s.kernel.file, s.kernel.entry
            );
            check_workgroup(
                limits,
                &who,
                s.kernel.workgroup_size,
                s.kernel.workgroup_bytes,
            )?;
            check_grid(limits, &who, s.groups)?;
        }
        if self.scratch_words > 0 {
            check_storage_size(
                limits,
                &format!(
                    "{}: scratch of {} partial-sum words",
                    self.method, self.scratch_words
                ),
                self.scratch_words * 4,
            )?;
        }
        Ok(())
    }

    /// Dispatches in the plan.
    pub fn dispatches(&self) -> usize {
        self.stages.len()
    }

    /// The plan's dispatches without their shaders: what a run of it records
    /// ([`Work::grid`]) and the compute model reads, for a run and for a size not run alike.
    pub fn grid(&self) -> Grid {
        Grid(
            self.stages
                .iter()
                .map(|s| Dispatch {
                    groups: s.groups,
                    workgroup_size: s.kernel.workgroup_size,
                    workgroup_bytes: s.kernel.workgroup_bytes,
                })
                .collect(),
        )
    }
}

/// Error naming the limit if a workgroup of `size` invocations using `bytes` of workgroup storage
/// cannot run on an adapter with `limits`.
pub fn check_workgroup(limits: &wgpu::Limits, who: &str, size: [u32; 3], bytes: u64) -> Result<()> {
    let axes = [
        (
            "x",
            "max_compute_workgroup_size_x",
            limits.max_compute_workgroup_size_x,
        ),
        (
            "y",
            "max_compute_workgroup_size_y",
            limits.max_compute_workgroup_size_y,
        ),
        (
            "z",
            "max_compute_workgroup_size_z",
            limits.max_compute_workgroup_size_z,
        ),
    ];
    for (&d, (axis, limit, max)) in size.iter().zip(axes) {
        if d > max {
            return Err(Error::Limit {
                what: format!("{who}: workgroup size along {axis}"),
                value: d as u64,
                limit,
                max: max as u64,
            });
        }
    }
    let invocations: u64 = size.iter().map(|&d| d as u64).product();
    let max = limits.max_compute_invocations_per_workgroup as u64;
    if invocations > max {
        return Err(Error::Limit {
            what: format!(
                "{who}: invocations per workgroup {}x{}x{}",
                size[0], size[1], size[2]
            ),
            value: invocations,
            limit: "max_compute_invocations_per_workgroup",
            max,
        });
    }
    let max = limits.max_compute_workgroup_storage_size as u64;
    if bytes > max {
        return Err(Error::Limit {
            what: format!("{who}: workgroup storage (bytes)"),
            value: bytes,
            limit: "max_compute_workgroup_storage_size",
            max,
        });
    }
    Ok(())
}

/// Error naming the limit if a grid of `groups` workgroups cannot be dispatched.
pub fn check_grid(limits: &wgpu::Limits, who: &str, groups: [u32; 3]) -> Result<()> {
    let max = limits.max_compute_workgroups_per_dimension;
    for (axis, &g) in ["x", "y", "z"].iter().zip(&groups) {
        if g > max {
            return Err(Error::Limit {
                what: format!("{who}: workgroups along {axis}"),
                value: g as u64,
                limit: "max_compute_workgroups_per_dimension",
                max: max as u64,
            });
        }
    }
    Ok(())
}

/// `ceil(a / b)` as a workgroup count.
pub fn groups_for(a: usize, b: usize) -> u32 {
    a.div_ceil(b).max(1) as u32
}

/// The `Dims` uniform every compute shader reads.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Dims {
    m: u32,
    k: u32,
    n: u32,
    extra: u32,
}

/// Storage buffers for one product: A, B, C (poisoned) and the scratch buffer if the plan has one.
pub struct Operands {
    pub a: MatrixBuffer,
    pub b: MatrixBuffer,
    pub c: MatrixBuffer,
    pub scratch: Option<MatrixBuffer>,
    pub dims: wgpu::Buffer,
}

impl Operands {
    /// Check the sizes, then create and fill the buffers `plan` needs for `a · b`.
    pub fn upload(ctx: &GpuContext, plan: &Plan, a: &Matrix, b: &Matrix) -> Result<Self> {
        Ok(Self::upload_scanned(ctx, plan, a, b)?.0)
    }

    /// [`Operands::upload`], saying whether every value of A and B was finite (tested as they
    /// were copied up, [`MatrixBuffer::write_scanned`]).
    pub fn upload_scanned(
        ctx: &GpuContext,
        plan: &Plan,
        a: &Matrix,
        b: &Matrix,
    ) -> Result<(Self, bool)> {
        let (m, k, n) = (a.rows, a.cols, b.cols);
        if plan.trusted.is_some() {
            // Its kernels index in range only on the padded layout its method uploads.
            return Err(Error::Internal(format!(
                "{}: a plan compiled without bounds checks runs only on the operands its method lays out (padded), not on A and B as given",
                plan.method
            )));
        }
        // Every size first, so nothing is allocated for a product that cannot run.
        for (what, bytes) in [
            (
                format!("A, a {m}x{k} f32 storage buffer"),
                buffer::matrix_bytes(m, k),
            ),
            (
                format!("B, a {k}x{n} f32 storage buffer"),
                buffer::matrix_bytes(k, n),
            ),
            (
                format!("C, a {m}x{n} f32 storage buffer"),
                buffer::matrix_bytes(m, n),
            ),
        ] {
            check_storage_size(&ctx.limits, &format!("{}: {what}", plan.method), bytes)?;
        }
        plan.check(&ctx.limits)?;
        // The copies and C's poison go to the queue in one submission.
        let (ab, a_finite, bb, b_finite, c) = super::batch::batched(ctx, || {
            let (ab, a_finite) = MatrixBuffer::upload_scanned(ctx, "A", a)?;
            let (bb, b_finite) = MatrixBuffer::upload_scanned(ctx, "B", b)?;
            Ok((
                ab,
                a_finite,
                bb,
                b_finite,
                MatrixBuffer::output(ctx, "C", m, n)?,
            ))
        })?;
        Ok((
            Self::from_buffers(ctx, plan, ab, bb, c, (m, k, n))?,
            a_finite && b_finite,
        ))
    }

    /// Operands from buffers a method made and filled itself (padded, transposed or converted
    /// to f16 on the way; C poisoned with [`MatrixBuffer::output`]), with `(m, k, n)` as its
    /// kernels are to see them in the `Dims` uniform, and the plan's scratch buffer. Check the
    /// plan against the limits with [`Plan::check`] before making the buffers.
    pub fn from_buffers(
        ctx: &GpuContext,
        plan: &Plan,
        a: MatrixBuffer,
        b: MatrixBuffer,
        c: MatrixBuffer,
        (m, k, n): (usize, usize, usize),
    ) -> Result<Self> {
        let scratch = match plan.scratch_words {
            0 => None,
            w => Some(MatrixBuffer::output(ctx, "partial sums", 1, w as usize)?),
        };
        let dims = Dims {
            m: m as u32,
            k: k as u32,
            n: n as u32,
            extra: plan.extra,
        };
        let dims = buffer::uniform(ctx, "dims", bytemuck::bytes_of(&dims))?;
        Ok(Self {
            a,
            b,
            c,
            scratch,
            dims,
        })
    }

    /// Poison C and the scratch buffer again (for repeated runs on the same buffers).
    pub fn poison(&self, ctx: &GpuContext) -> Result<()> {
        self.c.poison(ctx)?;
        if let Some(s) = &self.scratch {
            s.poison(ctx)?;
        }
        Ok(())
    }
}

/// The pipelines and bind groups of a plan, ready to record.
pub struct Prepared {
    pipelines: Vec<(wgpu::ComputePipeline, wgpu::BindGroup, [u32; 3])>,
}

/// The compute harness's one bind-group layout (A, B, C or scratch, the dimensions) and its
/// pipeline layout, made once per context.
fn compute_layouts(ctx: &GpuContext) -> Result<super::cache::ComputeLayout> {
    let storage = super::pipeline::storage_entry;
    ctx.scoped("creating the compute pipeline layout", || {
        let bind_group = ctx
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("compute"),
                entries: &[
                    storage(0, true),
                    storage(1, true),
                    storage(2, false),
                    super::pipeline::compute_uniform_entry(3),
                ],
            });
        let pipeline = ctx
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("compute"),
                bind_group_layouts: &[Some(&bind_group)],
                immediate_size: 0,
            });
        Ok(super::cache::ComputeLayout {
            bind_group,
            pipeline,
        })
    })
}

impl Prepared {
    /// A pipeline (the context's cached one where it built it before) and a bind group for
    /// every stage of `plan` over `ops`.
    pub fn new(ctx: &GpuContext, plan: &Plan, ops: &Operands) -> Result<Self> {
        let layouts = ctx.pipelines.compute_layout(|| compute_layouts(ctx))?;
        let (layout, pl) = (&layouts.bind_group, &layouts.pipeline);
        let mut pipelines = Vec::with_capacity(plan.stages.len());
        for stage in &plan.stages {
            let k = &stage.kernel;
            let key = super::cache::ComputeKey {
                file: k.file,
                source: k.source,
                entry: k.entry,
                constants: k.constants.iter().map(|&(n, v)| (n, v.to_bits())).collect(),
                trusted: plan.trusted.is_some(),
            };
            let pipeline = ctx.pipelines.get_or_build(&key, || {
                let module = match plan.trusted {
                    // SAFETY: a trusted plan states why its kernels index in range on the
                    // operands its method uploads (`Plan::trusted`); the methods that set it
                    // (cs-fast, coop) pad every buffer to their tile multiples and check that
                    // before dispatching.
                    Some(_) => unsafe { ctx.shader_trusted(k.file, k.source)? },
                    None => ctx.shader(k.file, k.source)?,
                };
                ctx.scoped(
                    &format!("building the {} pipeline ({})", plan.method, k.file),
                    || {
                        Ok(ctx
                            .device
                            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                                label: Some(k.file),
                                layout: Some(pl),
                                module: &module,
                                entry_point: Some(k.entry),
                                compilation_options: wgpu::PipelineCompilationOptions {
                                    constants: &k.constants,
                                    // Every kernel writes its workgroup memory before reading it.
                                    zero_initialize_workgroup_memory: false,
                                },
                                cache: None,
                            }))
                    },
                )
            })?;
            let scratch = || {
                ops.scratch.as_ref().map(|s| &s.buffer).ok_or_else(|| {
                    Error::Internal(format!(
                        "{}: a stage uses the scratch buffer but the plan has none",
                        plan.method
                    ))
                })
            };
            let [r0, r1, w] = match stage.io {
                Io::Gemm => [&ops.a.buffer, &ops.b.buffer, &ops.c.buffer],
                Io::GemmToScratch => [&ops.a.buffer, &ops.b.buffer, scratch()?],
                Io::ScratchToC => [scratch()?, scratch()?, &ops.c.buffer],
            };
            let built = ctx.scoped(&format!("binding the {} operands", plan.method), || {
                fn entry(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
                    wgpu::BindGroupEntry {
                        binding,
                        resource: buffer.as_entire_binding(),
                    }
                }
                let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some(k.file),
                    layout,
                    entries: &[entry(0, r0), entry(1, r1), entry(2, w), entry(3, &ops.dims)],
                });
                Ok(((*pipeline).clone(), bind_group, stage.groups))
            })?;
            pipelines.push(built);
        }
        Ok(Self { pipelines })
    }

    /// Record every dispatch into one compute pass and submit it (wgpu orders the dispatches'
    /// storage accesses, so a reduction pass sees the partial sums of the pass before it). To
    /// time it, give [`Prepared::encode`]'s commands to a [`super::timer::Span`] instead.
    #[cfg(feature = "internals")]
    pub fn submit(&self, ctx: &GpuContext, label: &str) -> Result<()> {
        ctx.scoped(&format!("the {label} dispatches"), || {
            ctx.queue.submit([self.encode(&ctx.device, label)?]);
            Ok(())
        })
    }

    /// Record every dispatch into one compute pass.
    pub fn encode(&self, device: &wgpu::Device, label: &str) -> Result<wgpu::CommandBuffer> {
        let mut enc = device.create_command_encoder(&Default::default());
        self.encode_into(&mut enc, label);
        Ok(enc.finish())
    }

    /// Record every dispatch into one compute pass of `enc`.
    pub fn encode_into(&self, enc: &mut wgpu::CommandEncoder, label: &str) {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(label),
            timestamp_writes: None,
        });
        for (pipeline, bind_group, [x, y, z]) in &self.pipelines {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bind_group, &[]);
            pass.dispatch_workgroups(*x, *y, *z);
        }
    }
}

/// Run `plan` on `a · b`: check, upload, build, dispatch, read back (blocking); C is
/// [`Ran::into_c`].
#[cfg(feature = "internals")]
pub fn run(ctx: &GpuContext, plan: &Plan, a: &Matrix, b: &Matrix) -> Result<Ran> {
    run_with(
        ctx,
        plan,
        || Operands::upload(ctx, plan, a, b),
        (a.rows, b.cols),
    )
}

/// [`run`] for a method that lays its operands out itself: `upload` makes and fills them
/// (timed as upload: padding, transposing or converting the inputs happens there, see
/// [`Operands::from_buffers`]); the result is the top-left `out` = (rows, cols) of C (timed as
/// readback). Blocking; [`record`] is the recording itself.
#[cfg(feature = "internals")]
pub fn run_with(
    ctx: &GpuContext,
    plan: &Plan,
    upload: impl FnOnce() -> Result<Operands>,
    out: (usize, usize),
) -> Result<Ran> {
    super::run::run(ctx, None, || record(ctx, plan, upload()?, out, None))
}

/// Record `plan` over `ops` for the runner: the pipelines (their build time is setup, kept out
/// of the upload time and noted), the dispatches in one compute pass — submitted as many times
/// as `repeats` asks, each repetition timed on its own — and the readback of C,
/// of which the top-left `out` = (rows, cols) is the result (a method that padded C crops it
/// there, on the way out of the staging buffer). `repeats` (the request's
/// [`crate::methods::Params::repeats`], for the bench) submits the compute pass as many times
/// as it asks on the same operands, C and the scratch buffer poisoned before each, each timed
/// on its own: repeats from one upload and one pipeline build; `None` runs it once.
pub fn record(
    ctx: &GpuContext,
    plan: &Plan,
    ops: Operands,
    out: (usize, usize),
    repeats: Option<Repeats>,
) -> Result<Work> {
    let repeats = repeats.unwrap_or(Repeats::back_to_back(1));
    let t1 = Instant::now();
    let prepared = std::rc::Rc::new(Prepared::new(ctx, plan, &ops)?);
    let build_ms = ms(t1);
    let mut work = Work::new(plan.dispatches());
    work.setup_ms = build_ms;
    work.grid = Some(plan.grid());
    let label = plan.method;
    // Device time is that of the compute pass, from timestamps written in the same command
    // buffer before and after it (gpu::timer::Span::time_encoded_async): encoder timestamps,
    // not the pass's own, which on lavapipe do not bracket the work it runs. Every repetition
    // rewrites all of C from the same inputs, so the result is that of one.
    work.repeat(repeats, move |enc: &mut wgpu::CommandEncoder| {
        prepared.encode_into(enc, label);
        Ok(())
    });
    let ops = std::rc::Rc::new(ops);
    let poisoned = ops.clone();
    work.reset_before_each(move |ctx| poisoned.poison(ctx));
    let (rows, cols) = (ops.c.rows, ops.c.cols);
    // The top-left out_rows × out_cols of C (all of it unless the method padded it), de-padded
    // straight into the result.
    let (out_rows, out_cols) = out;
    if out_rows > rows || out_cols > cols {
        return Err(Error::Internal(format!(
            "{label}: result {out_rows}x{out_cols} is larger than C, {rows}x{cols}"
        )));
    }
    work.read(Read::Rows {
        buffer: ops.c.buffer.clone(),
        rows: out_rows,
        row_bytes: out_cols * 4,
        pitch: cols * 4,
    });
    work.finish(move |mut bytes| {
        Ok(vec![Matrix::new(
            out_rows,
            out_cols,
            bytes.remove(0).into_f32s(),
        )?])
    });
    work.keep(ops);

    let mut notes = plan.notes.clone();
    let grids: Vec<String> = plan
        .stages
        .iter()
        .map(|s| {
            let [x, y, z] = s.groups;
            let [wx, wy, wz] = s.kernel.workgroup_size;
            format!(
                "{} ({}x{}x{} workgroups of {}x{}x{}, {} B shared)",
                s.kernel.file, x, y, z, wx, wy, wz, s.kernel.workgroup_bytes
            )
        })
        .collect();
    notes.push(format!("dispatches: {}", grids.join(" then ")));
    notes.push(format!(
        "pipelines built in {build_ms:.3} ms (not counted in upload or compute)"
    ));
    if let Some(why) = plan.trusted {
        notes.push(format!(
            "shaders compiled with wgpu's runtime bounds checks off: {why}"
        ));
    }
    work.notes = notes;
    Ok(work)
}

const ADD_SHADER: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/tile_accumulate.wgsl"));

/// `acc += part` on the GPU (`shaders/tile_accumulate.wgsl`); its pipeline is built once per
/// context (`gpu::cache`).
pub struct GpuAdd {
    kept: std::sync::Arc<(wgpu::ComputePipeline, wgpu::BindGroupLayout)>,
}

impl GpuAdd {
    pub fn new(ctx: &GpuContext) -> Result<Self> {
        let kept = ctx.pipelines.get_or_build(&"tile_accumulate.wgsl", || {
            let module = ctx.shader("tile_accumulate.wgsl", ADD_SHADER)?;
            ctx.scoped("building the tile accumulation pipeline", || {
                let storage = super::pipeline::storage_entry;
                let (layout, pl) = super::pipeline::one_group_layout(
                    &ctx.device,
                    "tile accumulate",
                    &[
                        storage(0, true),
                        storage(1, false),
                        super::pipeline::compute_uniform_entry(2),
                    ],
                );
                let pipeline =
                    ctx.device
                        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                            label: Some("tile_accumulate.wgsl"),
                            layout: Some(&pl),
                            module: &module,
                            entry_point: Some("cs_main"),
                            compilation_options: Default::default(),
                            cache: None,
                        });
                Ok((pipeline, layout))
            })
        })?;
        Ok(Self { kept })
    }

    /// Record `acc += part` (same shape).
    pub fn encode(
        &self,
        ctx: &GpuContext,
        part: &MatrixBuffer,
        acc: &MatrixBuffer,
    ) -> Result<wgpu::CommandBuffer> {
        if (part.rows, part.cols) != (acc.rows, acc.cols) {
            return Err(Error::Internal(format!(
                "tile accumulation: a {}x{} chunk into a {}x{} block",
                part.rows, part.cols, acc.rows, acc.cols
            )));
        }
        let words = (acc.rows * acc.cols) as u64;
        let gx = words
            .div_ceil(256)
            .clamp(1, ctx.limits.max_compute_workgroups_per_dimension as u64);
        let row = gx * 256;
        let gy = words.div_ceil(row).max(1);
        let len = buffer::uniform(
            ctx,
            "tile accumulate len",
            bytemuck::cast_slice(&[words as u32, row as u32, 0, 0]),
        )?;
        ctx.scoped("adding a k chunk into its block of C", || {
            let group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("tile accumulate"),
                layout: &self.kept.1,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: part.buffer.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: acc.buffer.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: len.as_entire_binding(),
                    },
                ],
            });
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            {
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("tile accumulate"),
                    timestamp_writes: None,
                });
                pass.set_pipeline(&self.kept.0);
                pass.set_bind_group(0, &group, &[]);
                pass.dispatch_workgroups(gx as u32, gy as u32, 1);
            }
            Ok(enc.finish())
        })
    }
}
