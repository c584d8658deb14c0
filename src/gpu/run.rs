//! The runner: a method records its GPU work ([`Work`]: command buffers in order, the
//! readbacks it wants, how to turn the bytes into matrices) and [`run`] / [`run_async`] submit
//! and resolve it — blocking natively, awaited in a browser. The runner alone waits on the
//! device, maps buffers, times the phases ([`Timings`]) and calls the [`Observer`] after each
//! pass. Every layer above the harness (methods, the entry point, bench, demos) shares these
//! types.

use super::context::GpuContext;
pub use super::readback::Read;
use super::readback::{read_all_into, read_buffer_bytes};
pub use super::staging::Bytes;
use super::texture::MatrixTexture;
use super::timer::{Clock, Span};
use super::wait::settle;
use crate::clock::Instant;
use crate::error::Result;
use crate::matrix::Matrix;
use crate::precision::Precision;
use serde::Serialize;

/// Sees the accumulation texture after passes (the demos and frame writers use it).
pub trait Observer {
    /// Called after pass `pass` (1-based) of `passes`, with the texture holding the running sum.
    fn after_pass(
        &mut self,
        ctx: &GpuContext,
        pass: usize,
        passes: usize,
        acc: &MatrixTexture,
    ) -> Result<()>;
}

/// Wall-clock milliseconds of each phase, split as in the L-M paper's figures 4-5, and the bytes
/// the data path moved.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Timings {
    /// Building pipelines (and compiling their shaders), where the method times it apart.
    pub setup_ms: f64,
    /// Creating the textures and loading the matrices into them.
    pub upload_ms: f64,
    /// The passes themselves.
    pub compute_ms: f64,
    /// GPU-side copies between passes.
    pub copy_ms: f64,
    /// Copying the result back to the host.
    pub readback_ms: f64,
    /// Device time of each timed repetition of a repeated compute phase (the bench's
    /// [`Work::repeat`]); empty without timestamps or repetitions.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub repeats_ms: Vec<f64>,
    /// Wall-clock time, submit to completion, of each timed repetition of a repeated compute
    /// phase ([`Repeats::trials`]; the warm-up runs left out); empty without repetitions.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trials_ms: Vec<f64>,
    /// GPU time of the compute phase from timestamp queries (`None` where the adapter has none;
    /// then `compute_ms`, wall clock after a full wait, is the only figure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_ms: Option<f64>,
    /// Bytes written from the host to the device (matrices as laid out for the method).
    pub upload_bytes: u64,
    /// Bytes read back from the device to the host.
    pub readback_bytes: u64,
    /// Host to host: what a stopwatch around the library's call reads, from the request to C in
    /// the caller's hands (`plan::multiply`), the phases and everything outside them (checks of
    /// the inputs, layouts, C's allocation and cropping). 0 until the plan sets it.
    pub wall_ms: f64,
}

impl Timings {
    /// The timed phases summed: setup, upload, compute, copies and readback. Not host to host:
    /// the call also spends time outside them ([`Timings::outside_ms`]); host to host is
    /// [`Timings::wall_ms`].
    pub fn total_ms(&self) -> f64 {
        self.setup_ms + self.upload_ms + self.compute_ms + self.copy_ms + self.readback_ms
    }

    /// The call's time outside its timed phases: `wall_ms` − the phases (0 before the plan set
    /// `wall_ms`).
    pub fn outside_ms(&self) -> f64 {
        (self.wall_ms - self.total_ms()).max(0.0)
    }

    /// Add the times of another run of the same product (one chunk of a tiled block) to these;
    /// the device time only while every run has one.
    pub fn add_run(&mut self, run: &Timings) {
        let first = self.total_ms() == 0.0 && self.device_ms.is_none();
        self.setup_ms += run.setup_ms;
        self.upload_ms += run.upload_ms;
        self.upload_bytes += run.upload_bytes;
        self.readback_bytes += run.readback_bytes;
        self.compute_ms += run.compute_ms;
        self.copy_ms += run.copy_ms;
        self.readback_ms += run.readback_ms;
        self.device_ms = match (first, self.device_ms, run.device_ms) {
            (true, _, d) => d,
            (false, Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
    }

    /// The best figure for the compute phase: device time where timestamps exist, else the wall
    /// clock; with the clock it came from.
    pub fn compute_time(&self) -> (f64, Clock) {
        match self.device_ms {
            Some(d) => (d, Clock::GpuTimestamp),
            None => (self.compute_ms, Clock::WallClock),
        }
    }
}

/// One dispatch of a compute plan as it ran: its grid and its workgroup, without its shader
/// (a [`super::compute::Stage`] reduced to what the model of the run reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dispatch {
    /// Workgroups along x, y, z.
    pub groups: [u32; 3],
    /// Invocations of one workgroup along x, y, z.
    pub workgroup_size: [u32; 3],
    /// Bytes of workgroup storage one workgroup declares.
    pub workgroup_bytes: u64,
}

impl Dispatch {
    /// Total workgroups of the dispatch.
    pub fn workgroups(&self) -> u64 {
        self.groups.iter().map(|&g| g as u64).product()
    }

    /// Invocations per workgroup.
    pub fn invocations(&self) -> u64 {
        self.workgroup_size.iter().map(|&d| d as u64).product()
    }
}

/// The dispatches of a compute plan in order ([`super::compute::Plan::grid`]): what a run of
/// the plan records ([`Work::grid`]) and the compute model reads, the same for a run and for a
/// size that was not run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Grid(pub Vec<Dispatch>);

impl Grid {
    /// Dispatches in the plan.
    pub fn dispatches(&self) -> usize {
        self.0.len()
    }

    /// Workgroups of all the dispatches together.
    pub fn workgroups(&self) -> u64 {
        self.0.iter().map(Dispatch::workgroups).sum()
    }

    /// Invocations per workgroup of the first dispatch (the product's own; a reduction after it
    /// is smaller); `None` for an empty plan.
    pub fn invocations_per_workgroup(&self) -> Option<u64> {
        self.0.first().map(Dispatch::invocations)
    }

    /// Bytes of workgroup storage of the first dispatch; `None` for an empty plan.
    pub fn workgroup_bytes(&self) -> Option<u64> {
        self.0.first().map(|d| d.workgroup_bytes)
    }
}

/// Milliseconds since `t`.
pub fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// Which phase of a run a recorded step belongs to, for [`Timings`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The passes (or dispatches) themselves.
    Compute,
    /// GPU-side copies between passes (Hall's copy-to-texture), timed apart: by GPU timestamps
    /// around each copy where the adapter has them, else by waiting before and after each
    /// ([`copy_clock`]).
    Copy,
}

/// How [`run`] times the [`Phase::Copy`] steps on `ctx`: [`Clock::GpuTimestamp`] where the
/// adapter writes timestamps inside encoders (one before and one after each copy, in command
/// buffers of their own, nothing waited for), else [`Clock::WallClock`] (the device idle before
/// and after each copy).
pub fn copy_clock(ctx: &GpuContext) -> Clock {
    if ctx.has(wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS) {
        Clock::GpuTimestamp
    } else {
        Clock::WallClock
    }
}

/// One command buffer of recorded work, what phase it is, and what the observer sees after it.
struct Step {
    commands: wgpu::CommandBuffer,
    phase: Phase,
    observe: Option<(usize, MatrixTexture)>,
}

/// Records the compute phase again, for runs that time several repetitions of it.
pub type Repeat = Box<dyn Fn(&mut wgpu::CommandEncoder) -> Result<()>>;

/// Puts a repeated phase's outputs back as they were before it ran (poisons them), so that the
/// next repetition must compute the whole result again.
pub type Reset = Box<dyn Fn(&GpuContext) -> Result<()>>;

/// Timed repetitions of a compute phase on the same operands: `warmup` untimed runs (the first
/// dispatch pays for lazy setup), then `trials` timed ones, each on its own — wall clock from
/// submit to completion ([`Timings::trials_ms`]) and, where the adapter has timestamps, the
/// device time around it ([`Timings::repeats_ms`]). Before every run but a lone one the outputs
/// are poisoned again ([`Work::reset_before_each`]), so the result read back is the last
/// trial's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Repeats {
    pub warmup: usize,
    pub trials: usize,
}

impl Repeats {
    /// `trials` timed runs back to back, no warm-up.
    pub fn back_to_back(trials: usize) -> Self {
        Repeats { warmup: 0, trials }
    }

    /// Runs in all, warm-up included (at least one).
    pub fn runs(self) -> usize {
        self.warmup + self.trials.max(1)
    }
}

/// Turns the bytes of a run's reads (in the order they were asked for) into its result.
pub type Finish = Box<dyn FnOnce(Vec<Bytes>) -> Result<Vec<Matrix>>>;

/// GPU work a method recorded for one product — command buffers in order, the readbacks it
/// wants, and how to turn them into matrices — for [`run`] (natively) or [`run_async`] (in a
/// browser, where nothing may block) to submit and resolve. Recording creates textures,
/// buffers and pipelines and queues uploads; it never waits for the device.
pub struct Work {
    steps: Vec<Step>,
    repeated: Option<(Repeats, Repeat)>,
    reset: Option<Reset>,
    reads: Vec<Read>,
    finish: Option<Finish>,
    /// Passes (render passes, slices or dispatches) the work runs.
    pub passes: usize,
    /// Remarks for the report.
    pub notes: Vec<String>,
    /// Milliseconds of setup (pipeline creation) the method measured while recording and wants
    /// kept out of `upload_ms` (it says so in a note); 0 counts its setup as upload.
    pub setup_ms: f64,
    /// The dispatches of the compute plan the work runs, where it runs one
    /// ([`super::compute::record`]); `None` for render passes.
    pub grid: Option<Grid>,
    /// The number format A and B are read in where it differs from the sums' (f16 inputs with
    /// f32 sums); `None`: the same as the sums'.
    pub inputs: Option<Precision>,
    /// The number format the running sum was kept in, where the method chose it (a render pass
    /// that falls back to f16 where f32 blending is missing); `None`: the precision asked.
    pub sums: Option<Precision>,
    /// What must live until the work has run and been read: matrix buffers, which give their
    /// storage back to the context's pool when dropped ([`Work::keep`]).
    kept: Vec<Box<dyn std::any::Any>>,
}

impl Work {
    /// Empty work of `passes` passes.
    pub fn new(passes: usize) -> Self {
        Work {
            steps: vec![],
            repeated: None,
            reset: None,
            reads: vec![],
            finish: None,
            passes,
            notes: vec![],
            setup_ms: 0.0,
            grid: None,
            inputs: None,
            sums: None,
            kept: vec![],
        }
    }

    /// Keep `x` alive until the run has read its results (a dropped matrix buffer goes back to
    /// the pool, where another product could take it while this one still uses it).
    pub fn keep(&mut self, x: impl std::any::Any) {
        self.kept.push(Box::new(x));
    }

    /// Append a finished command buffer of `phase`.
    pub fn push(&mut self, commands: wgpu::CommandBuffer, phase: Phase) {
        self.steps.push(Step {
            commands,
            phase,
            observe: None,
        });
    }

    /// Make the compute phase the submissions `repeats` asks of what `record` records, each
    /// timed on its own ([`Ran::repeats_ms`], [`Timings::trials_ms`]); every one must compute
    /// the whole result from the same inputs, so the result is that of one. Replaces any pushed
    /// steps.
    pub fn repeat(
        &mut self,
        repeats: Repeats,
        record: impl Fn(&mut wgpu::CommandEncoder) -> Result<()> + 'static,
    ) {
        self.steps.clear();
        self.repeated = Some((repeats, Box::new(record)));
    }

    /// Before each run of a repeated phase (but a lone one), put its outputs back with `reset`
    /// (poisoned), waited for before the run's clock starts.
    pub fn reset_before_each(&mut self, reset: impl Fn(&GpuContext) -> Result<()> + 'static) {
        self.reset = Some(Box::new(reset));
    }

    /// After the last pushed command buffer, show `acc` to the observer as pass `pass`.
    pub fn observe(&mut self, pass: usize, acc: &MatrixTexture) {
        if let Some(s) = self.steps.last_mut() {
            s.observe = Some((pass, acc.clone()));
        }
    }

    /// Ask for `read` once the work is done; its bytes come to the finisher at this index.
    pub fn read(&mut self, read: Read) -> usize {
        self.reads.push(read);
        self.reads.len() - 1
    }

    /// How the read bytes become the result (default: each read an R32Float matrix texture or
    /// buffer, taken as it is).
    pub fn finish(&mut self, f: impl FnOnce(Vec<Bytes>) -> Result<Vec<Matrix>> + 'static) {
        self.finish = Some(Box::new(f));
    }
}

/// The result of [`run`]: the matrices the finisher made, the passes, the phases' times.
#[derive(Debug)]
pub struct Ran {
    pub cs: Vec<Matrix>,
    pub passes: usize,
    pub timings: Timings,
    pub notes: Vec<String>,
    /// The dispatches of the compute plan the work ran ([`Work::grid`]).
    pub grid: Option<Grid>,
    /// The inputs' number format where it differs from the sums' ([`Work::inputs`]).
    pub inputs: Option<Precision>,
    /// The sums' number format where the method chose it ([`Work::sums`]).
    pub sums: Option<Precision>,
    /// Device time of each repetition of a repeated compute phase ([`Work::repeat`]); empty
    /// without timestamps or repetitions.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub repeats_ms: Vec<f64>,
}

impl Ran {
    /// The first matrix the run made: C of a single product.
    pub fn into_c(self) -> Result<Matrix> {
        self.cs
            .into_iter()
            .next()
            .ok_or_else(|| crate::error::Error::Readback("the run produced no matrix".into()))
    }
}

/// Record with `record`, then submit and resolve: blocking, for native hosts.
pub fn run(
    ctx: &GpuContext,
    observer: Option<&mut (dyn Observer + '_)>,
    record: impl FnOnce() -> Result<Work>,
) -> Result<Ran> {
    pollster::block_on(run_async(ctx, observer, record))
}

/// Record with `record`, then submit the steps in order and resolve the reads, awaiting the
/// device instead of blocking on it (natively each await is a wait that has already finished;
/// in a browser the callbacks complete them).
///
/// Times: `upload_ms` from the start of recording until the queued uploads are done;
/// `compute_ms` the steps of the compute phase (with `device_ms` from a timestamp span around
/// all the steps where the adapter has timestamps); `copy_ms` the copy steps, by GPU timestamps
/// around each or, without them, waited for on their own ([`copy_clock`]), and taken out of
/// `compute_ms` and `device_ms`; `readback_ms` the reads and the finisher.
///
/// In a browser, where every wait for the GPU is a trip through the page's event loop, work
/// with nothing to time apart (no timestamps, no copy steps, no observer) is waited for once:
/// `upload_ms` is then the time to queue the uploads, and `compute_ms` runs from the steps'
/// submission until the results are mapped (the uploads' and the readback's copies with it);
/// the run's notes say so.
pub async fn run_async(
    ctx: &GpuContext,
    observer: Option<&mut (dyn Observer + '_)>,
    record: impl FnOnce() -> Result<Work>,
) -> Result<Ran> {
    run_async_into(ctx, observer, Vec::new(), record).await
}

/// Run `count` pieces of work in turn, awaiting each: `record(i)` records the `i`-th only
/// once the one before it has run (submitted, waited for, read back), so that a piece may start
/// from what the one before left on the GPU and only one piece's inputs are uploaded at a time.
/// The waiting is the runner's alone; the caller records. One [`Ran`] per piece, in order.
pub async fn run_in_turn_async(
    ctx: &GpuContext,
    count: usize,
    mut record: impl FnMut(usize) -> Result<Work>,
) -> Result<Vec<Ran>> {
    let mut ran = Vec::with_capacity(count);
    for i in 0..count {
        ran.push(run_async(ctx, None, || record(i)).await?);
    }
    Ok(ran)
}

/// [`run_async`], the first read (C, for a method that reads back one matrix) copied into
/// `memory` where it is not empty: a caller's, kept from product to product
/// ([`crate::plan::Request::reusing`]).
pub async fn run_async_into(
    ctx: &GpuContext,
    observer: Option<&mut (dyn Observer + '_)>,
    memory: Vec<f32>,
    record: impl FnOnce() -> Result<Work>,
) -> Result<Ran> {
    let t0 = Instant::now();
    let uploaded = ctx.staging.uploaded();
    let work = record()?;
    run_recorded(ctx, observer, memory, work, (t0, uploaded)).await
}

/// The runner's body for work already recorded (started at `t0`, when the staging belt had
/// uploaded `uploaded` bytes): apart from [`run_async_into`], whose every caller's closure would
/// otherwise carry a copy of it.
async fn run_recorded(
    ctx: &GpuContext,
    observer: Option<&mut (dyn Observer + '_)>,
    memory: Vec<f32>,
    work: Work,
    (t0, uploaded): (Instant, u64),
) -> Result<Ran> {
    let memory: Vec<u32> = bytemuck::allocation::cast_vec(memory);
    let once = waits_once(ctx, &work, observer.is_some());
    if !once {
        settle(ctx).await?;
    }
    // Setup the method measured apart (pipeline creation) is not upload.
    let upload_ms = (ms(t0) - work.setup_ms).max(0.0);
    let setup_ms = work.setup_ms;
    let upload_bytes = ctx.staging.uploaded() - uploaded;

    let Work {
        steps,
        repeated,
        reset,
        reads,
        finish,
        passes,
        mut notes,
        grid,
        inputs,
        sums,
        // Alive until the results are read (bound, so not dropped here).
        kept: _kept,
        ..
    } = work;
    let (mut repeats_ms, mut trials_ms) = (vec![], vec![]);
    let (compute_ms, copy_ms, device_ms, bytes, t2) = if once {
        let t = Instant::now();
        ctx.scoped("submitting recorded GPU work", || {
            let mut commands: Vec<wgpu::CommandBuffer> =
                steps.into_iter().map(|s| s.commands).collect();
            // A kernel recorded once (`Work::repeat` with 1) goes in the same submission.
            if let Some((_, record)) = &repeated {
                let mut enc = ctx.device.create_command_encoder(&Default::default());
                record(&mut enc)?;
                commands.push(enc.finish());
            }
            ctx.queue.submit(commands);
            Ok(())
        })?;
        let (bytes, mapped) = read_all_into(ctx, &reads, memory).await?;
        notes.push(ONE_WAIT_NOTE.to_string());
        let compute_ms = mapped.duration_since(t).as_secs_f64() * 1e3;
        (compute_ms, 0.0, None, bytes, mapped)
    } else {
        let (compute_ms, copy_ms, device_ms) = match repeated {
            Some((repeats, record)) => {
                let (mut wall, mut device) = (0.0, None);
                let runs = repeats.runs();
                for run in 0..runs {
                    if let (Some(reset), true) = (&reset, runs > 1) {
                        reset(ctx)?;
                        settle(ctx).await?;
                    }
                    let span = Span::begin(ctx)?;
                    let t = Instant::now();
                    // One command buffer: the opening timestamp, the work, the closing one.
                    let (span_ms, clock) = span.time_encoded_async(ctx, |enc| record(enc)).await?;
                    wall = ms(t);
                    device = (clock == Clock::GpuTimestamp).then_some(span_ms);
                    if run >= repeats.warmup {
                        trials_ms.push(wall);
                        repeats_ms.extend(device);
                    }
                }
                (wall, 0.0, device)
            }
            None => submit_steps(ctx, steps, passes, observer).await?,
        };
        let t2 = Instant::now();
        let (bytes, _) = read_all_into(ctx, &reads, memory).await?;
        (compute_ms, copy_ms, device_ms, bytes, t2)
    };

    let readback_bytes = bytes.iter().map(|b| b.len() as u64).sum();
    let cs = matrices(finish, bytes, &reads)?;
    let readback_ms = ms(t2);
    Ok(Ran {
        cs,
        passes,
        timings: Timings {
            setup_ms,
            upload_ms,
            compute_ms,
            copy_ms,
            readback_ms,
            device_ms,
            upload_bytes,
            readback_bytes,
            repeats_ms: repeats_ms.clone(),
            trials_ms,
            wall_ms: 0.0,
        },
        notes,
        grid,
        inputs,
        sums,
        repeats_ms,
    })
}

/// The run's result from the bytes of its reads: the method's finisher, or each read an f32
/// matrix as it is.
fn matrices(finish: Option<Finish>, bytes: Vec<Bytes>, reads: &[Read]) -> Result<Vec<Matrix>> {
    match finish {
        Some(f) => f(bytes),
        None => bytes
            .into_iter()
            .zip(reads)
            .map(|(b, r)| match r {
                Read::Texture(t) => Matrix::new(t.rows, t.cols, b.into_f32s()),
                Read::Rows { rows, .. } => {
                    let rows = *rows;
                    let v = b.into_f32s();
                    Matrix::new(rows, v.len().checked_div(rows).unwrap_or(0), v)
                }
                Read::Buffer { .. } => {
                    let v = b.into_f32s();
                    Matrix::new(1, v.len(), v)
                }
            })
            .collect(),
    }
}

/// What a run waited for once says of its times.
pub const ONE_WAIT_NOTE: &str = "times: waited for the GPU once (in a browser each wait is a trip through the page's event loop): upload is the time to queue the uploads, compute runs from the passes' submission until C was mapped, with the copies in and out";

/// Whether `work` is waited for once: in a browser, with nothing to time apart (no GPU
/// timestamps to read, no copy steps, no observer to show passes to, no repeats: a compute
/// kernel recorded once, `Work::repeat` with 1, counts as none).
fn waits_once(ctx: &GpuContext, work: &Work, observed: bool) -> bool {
    cfg!(target_arch = "wasm32")
        && !observed
        && work
            .repeated
            .as_ref()
            .is_none_or(|(repeats, _)| repeats.runs() == 1)
        && work
            .steps
            .iter()
            .all(|s| s.phase != Phase::Copy && s.observe.is_none())
        && !ctx
            .has(wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
}

/// Submit `steps` in order, calling the observer where they ask; (compute, copy, device) ms.
async fn submit_steps(
    ctx: &GpuContext,
    steps: Vec<Step>,
    passes: usize,
    mut observer: Option<&mut (dyn Observer + '_)>,
) -> Result<(f64, f64, Option<f64>)> {
    let copies = steps.iter().filter(|s| s.phase == Phase::Copy).count();
    let mut stamps = CopyStamps::new(ctx, copies)?;
    // Without timestamps, copies are timed apart by waiting before and after each.
    let waited = copies > 0 && stamps.is_none();
    let mut compute_ms = 0.0;
    let mut copy_ms = 0.0;
    let mut span = Span::begin(ctx)?;
    let mut t = Instant::now();
    for step in steps {
        let copy = step.phase == Phase::Copy;
        if waited {
            // Finish what came before, then time the copy alone.
            settle(ctx).await?;
            compute_ms += ms(t);
            t = Instant::now();
        }
        // One submission per step, with a copy's timestamps around it; the first step's also
        // carries the span's opening timestamp.
        let mut commands = Vec::with_capacity(3);
        if let Some(s) = stamps.as_mut().filter(|_| copy) {
            commands.push(s.stamp(ctx)?);
        }
        commands.push(step.commands);
        if let Some(s) = stamps.as_mut().filter(|_| copy) {
            commands.push(s.stamp(ctx)?);
        }
        span.submit(ctx, commands)?;
        if waited && copy {
            settle(ctx).await?;
            copy_ms += ms(t);
            t = Instant::now();
        }
        if let (Some((pass, acc)), Some(obs)) = (&step.observe, observer.as_deref_mut()) {
            settle(ctx).await?;
            obs.after_pass(ctx, *pass, passes, acc)?;
        }
    }
    let (span_ms, clock) = span.end_async(ctx).await?;
    compute_ms += ms(t);
    let mut device_ms = (clock == Clock::GpuTimestamp && !waited).then_some(span_ms);
    if let Some(s) = stamps {
        // The copies ran inside the compute phase's wall clock and span: move them out.
        copy_ms = s.read_ms(ctx).await?;
        compute_ms = (compute_ms - copy_ms).max(0.0);
        device_ms = device_ms.map(|d| (d - copy_ms).max(0.0));
    }
    Ok((compute_ms, copy_ms, device_ms))
}

/// GPU timestamps written before and after each [`Phase::Copy`] step, in command buffers of
/// their own (the queue runs command buffers in order, as for [`Span`]), in as many query sets
/// as `QUERY_SET_MAX_QUERIES` requires.
struct CopyStamps {
    sets: Vec<(wgpu::QuerySet, u32)>,
    next: u32,
}

impl CopyStamps {
    /// Stamps for `copies` copies, if there are any and [`copy_clock`] is the GPU's.
    fn new(ctx: &GpuContext, copies: usize) -> Result<Option<Self>> {
        if copies == 0 || copy_clock(ctx) != Clock::GpuTimestamp {
            return Ok(None);
        }
        let total = 2 * copies as u32;
        let max = wgpu::QUERY_SET_MAX_QUERIES;
        ctx.scoped("creating the copy timestamps", || {
            let sets = (0..total.div_ceil(max))
                .map(|s| {
                    let count = max.min(total - s * max);
                    let set = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
                        label: Some("copy timestamps"),
                        ty: wgpu::QueryType::Timestamp,
                        count,
                    });
                    (set, count)
                })
                .collect();
            Ok(Some(Self { sets, next: 0 }))
        })
    }

    /// Submit a command buffer writing the next timestamp.
    fn stamp(&mut self, ctx: &GpuContext) -> Result<wgpu::CommandBuffer> {
        let max = wgpu::QUERY_SET_MAX_QUERIES;
        let (set, index) = (&self.sets[(self.next / max) as usize].0, self.next % max);
        self.next += 1;
        ctx.scoped("recording a copy timestamp", || {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            enc.write_timestamp(set, index);
            Ok(enc.finish())
        })
    }

    /// Sum of (after − before) over the copies, in milliseconds.
    async fn read_ms(&self, ctx: &GpuContext) -> Result<f64> {
        let period_ns = ctx.queue.get_timestamp_period() as f64;
        let mut total_ns = 0.0;
        for (set, count) in &self.sets {
            let bytes = *count as u64 * 8;
            let resolve = ctx.scoped("resolving the copy timestamps", || {
                let resolve = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("copy timestamps"),
                    size: bytes,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                });
                let mut enc = ctx.device.create_command_encoder(&Default::default());
                enc.resolve_query_set(set, 0..*count, &resolve, 0);
                ctx.queue.submit([enc.finish()]);
                Ok(resolve)
            })?;
            let ticks: Vec<u64> =
                bytemuck::pod_collect_to_vec(&read_buffer_bytes(ctx, &resolve, bytes).await?);
            for pair in ticks.chunks_exact(2) {
                total_ns += pair[1].saturating_sub(pair[0]) as f64 * period_ns;
            }
        }
        Ok(total_ns / 1e6)
    }
}
