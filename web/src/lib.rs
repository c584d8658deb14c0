//! rendermm in a web page. `run` multiplies through the library's own methods
//! (`rendermm::plan::multiply_async`: WebGPU, or WebGL2 through wgpu's GL backend) on inputs drawn
//! from a seed as `rendermm multiply --random` draws them or read from pasted or dropped files
//! (files.rs), checks the product against the f64 CPU reference computed here, returns one JSON
//! object for `<pre id="result">` with the run's times, then draws the result — or replays the
//! passes — on the page's canvas with the renderer of `rendermm demo` (`rendermm::demo`: its
//! scene, layout, labels and `shaders/demo.wgsl`; frame.rs puts the frames on the page).
//!
//! The page is warm: one context per backend for its whole life (its pipelines, compute and
//! render, cached in `ctx.pipelines`; the demo's renderer built once), and the CPU reference of the last inputs
//! kept, so a second Run of the same product compiles nothing and multiplies nothing on the CPU.
//! Every parameter is checked here, in Rust, so the page and a test see the same one-sentence
//! errors. See docs/web.md.

mod device;
mod files;
mod frame;
mod page;
mod request;
mod show;

use device::*;
use page::*;
use request::*;
use show::*;

use rendermm::check;
use rendermm::clock::Instant;
use rendermm::demo::render::Renderer;
use rendermm::demo::scene::{Scene, done_line};
use rendermm::demo::{Inputs, Kind, Settings, Source};
use rendermm::error::{Error, Result};
use rendermm::gpu::texture::{MatrixTexture, ScalarFormat};
use rendermm::gpu::{GpuContext, run::Observer};
use rendermm::matrix::Matrix;
use rendermm::methods::{Era, Method};
use rendermm::plan::{self, Options};
use rendermm::precision::Precision;
use serde_json::{Value, json};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// Products up to this many multiply-adds (m·k·n) are checked in full against the f64 reference
/// (computed in the page, on one thread, once per input); larger ones on sampled elements, as
/// the bench checks them.
const FULL_CHECK: u64 = 1 << 27;
/// The most multiply-adds the page takes (its inputs and C in the page's memory): the products
/// past the adapter's limits below it are tiled as the command line tiles them.
const MAX_WORK: u64 = 1 << 36;
/// Canvas size in pixels: the size of `rendermm demo --headless` frames.
const CANVAS: (u32, u32) = (960, 420);
/// Pass snapshots kept for the replay, at most.
const MAX_SNAPSHOTS: usize = 256;
/// ... and at most this many bytes of them on the GPU.
const SNAPSHOT_BYTES: u64 = 256 << 20;

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// The course page of an era (relative to the repository root).
fn course_page(era: Era) -> Option<&'static str> {
    match era {
        Era::Blending2001 => Some("docs/larsen-mcallister.md"),
        Era::Shaders2003 => Some("docs/hall-carr-hart.md"),
        Era::RenderPassToday => Some("docs/frag-mrt.md"),
        Era::Compute => Some("docs/compute-era.md"),
        Era::TensorCores => Some("docs/tensor-cores.md"),
        Era::Cpu => None,
    }
}

/// One sentence per era for the walk through them.
fn era_sentence(era: Era) -> &'static str {
    match era {
        Era::Blending2001 => {
            "Before shaders, Larsen and McAllister drew one textured quad per k, modulating a column of A by a row of B, and let the framebuffer's additive blending sum the products."
        }
        Era::Shaders2003 => {
            "With programmable fragment shaders, Hall, Carr and Hart summed a block of b products per fragment per pass and packed 2×2 blocks into RGBA texels."
        }
        Era::RenderPassToday => {
            "The same render pipeline on today's GPUs: four rows per RGBA32F texel and a register block per fragment written to several colour attachments."
        }
        Era::Compute => {
            "Compute shaders dropped the drawing: one invocation per element, then shared-memory tiles, coalesced loads and register blocking (needs WebGPU)."
        }
        Era::TensorCores => {
            "Tensor cores multiply small f16 tiles in hardware through cooperative matrices (an experimental feature browsers do not offer)."
        }
        Era::Cpu => "The CPU baselines the GPU methods are checked against.",
    }
}

/// The methods and the eras, in the tour's order, as JSON for the page's menu and walk.
#[wasm_bindgen]
pub fn catalogue() -> String {
    let methods: Vec<Value> = Method::ALL
        .iter()
        .filter(|m| m.is_gpu())
        .map(|&m| {
            let i = m.info();
            json!({
                "name": i.name,
                "era": i.era.name(),
                "source": i.source,
                "summary": i.summary,
                "render": m.is_render_pass(),
                "precision": m.takes_precision(),
            })
        })
        .collect();
    let mut eras: Vec<Value> = vec![];
    for &m in Method::ALL {
        let era = m.info().era;
        if eras.last().and_then(|e| e["era"].as_str()) != Some(era.name()) {
            eras.push(json!({
                "era": era.name(),
                "sentence": era_sentence(era),
                "course": course_page(era),
                "methods": [],
            }));
        }
        if let Some(list) = eras.last_mut().and_then(|e| e["methods"].as_array_mut()) {
            list.push(json!(m.name()));
        }
    }
    json!({ "methods": methods, "eras": eras }).to_string()
}

/// A and B as the seed draws them, for a benchmark that hands the same numbers to another
/// library: `{ "a": Float32Array, "b": Float32Array }`, row-major.
#[wasm_bindgen]
pub fn seeded_inputs(m: usize, k: usize, n: usize, seed: u64) -> js_sys::Object {
    let (a, b) = draw_like_the_cli(m, k, n, seed, Precision::F32);
    let out = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&out, &"a".into(), &js_sys::Float32Array::from(&a.data[..]));
    let _ = js_sys::Reflect::set(&out, &"b".into(), &js_sys::Float32Array::from(&b.data[..]));
    out
}

/// Run one multiply as `params` (a JS Map of the URL's or the form's strings, and A and B where
/// the reader gave them) ask. Resolves to the JSON text for `#result`: the result, or
/// `{"error": "<sentence>"}`. The result is published as soon as C is checked; its frame (and
/// the replay, if asked) is drawn afterwards.
#[wasm_bindgen]
pub async fn run(params: js_sys::Map) -> String {
    let page = Page::find();
    page.status("running…");
    let _busy = Busy::run();
    let out = match parse_request(&params) {
        Ok(req) => run_request(&req, &page).await,
        Err(e) => Err(e),
    };
    match out {
        Ok(v) => v.to_string(),
        Err(e) => json!({ "error": sentence(&e) }).to_string(),
    }
}

/// C of the last run as a .npy file (float32, C order); empty before the first.
#[wasm_bindgen]
pub fn c_npy() -> Vec<u8> {
    LAST_C.with(|c| c.borrow().as_ref().map(files::npy).unwrap_or_default())
}

/// C of the last run as CSV; empty before the first.
#[wasm_bindgen]
pub fn c_csv() -> String {
    LAST_C.with(|c| c.borrow().as_ref().map(files::csv).unwrap_or_default())
}

/// Whether the page is idle: no run, no frame on its way to the canvas, no replay (a benchmark
/// waits for this between products, so one product's drawing is not timed as the next's).
#[wasm_bindgen]
pub fn idle() -> bool {
    BUSY.with(|b| b.get()) == 0 && frame::pending() == 0
}

/// An error as one sentence for the page.
fn sentence(e: &Error) -> String {
    match e {
        Error::NoAdapter { .. } => {
            "this browser offered no GPU adapter for the chosen backend; try backend=webgl2, or a browser with WebGPU enabled".into()
        }
        e => e.to_string().split_whitespace().collect::<Vec<_>>().join(" "),
    }
}

thread_local! {
    /// The latest run's number: a replay stops once another run has started.
    static LATEST: Cell<u64> = const { Cell::new(0) };
    /// The contexts opened so far, one per backend at most.
    static GPUS: RefCell<Vec<Rc<Gpu>>> = const { RefCell::new(Vec::new()) };
    /// How many contexts this page has created (the result reports it: a warm page creates
    /// one per backend, whatever the number of runs).
    static CONTEXTS: Cell<usize> = const { Cell::new(0) };
    /// Whether the browser has WebGPU, asked once (backend=auto).
    static HAS_WEBGPU: Cell<Option<bool>> = const { Cell::new(None) };
    /// The f64 reference of the last inputs: (A, B, and A·B with |A|·|B|, the scale of the
    /// judge's bound). The same inputs again (the same seed and shape, or the same pasted
    /// matrices) are not multiplied on the CPU again.
    static REFERENCE: RefCell<Option<(Matrix, Matrix, Rc<check::Reference>)>> = const { RefCell::new(None) };
    /// C of the last run that produced one, for the download links.
    static LAST_C: RefCell<Option<Matrix>> = const { RefCell::new(None) };
    /// Runs and replays under way: WebGL2's context is polled while this is not 0.
    static BUSY: Cell<usize> = const { Cell::new(0) };
}

/// Milliseconds since `t`.
fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// The f64 reference of A·B: the cached one when A and B are the last run's, else computed now
/// (and cached). Also says whether it was cached.
fn reference_of(a: &Matrix, b: &Matrix) -> (Rc<check::Reference>, bool) {
    let same = |x: &Matrix, y: &Matrix| x.rows == y.rows && x.cols == y.cols && x.data == y.data;
    if let Some(r) = REFERENCE.with(|r| {
        r.borrow()
            .as_ref()
            .filter(|(ca, cb, _)| same(ca, a) && same(cb, b))
            .map(|(_, _, r)| r.clone())
    }) {
        return (r, true);
    }
    let r = Rc::new(check::Reference::new(a, b));
    REFERENCE.with(|c| *c.borrow_mut() = Some((a.clone(), b.clone(), r.clone())));
    (r, false)
}

async fn run_request(req: &Request, page: &Page) -> Result<Value> {
    let started = Instant::now();
    let id = LATEST.with(|l| {
        l.set(l.get() + 1);
        l.get()
    });
    let (gpu, opened) = gpu_for(req, page).await?;
    let context_ms = if opened { ms_since(started) } else { 0.0 };
    // The driver's loop cap in the method's stage, measured once per context as far as this
    // product needs (the plan reads it): timed apart from the product.
    let probe_started = Instant::now();
    plan::measure_loops(&gpu.ctx, req.method, req.m, req.k, req.n).await?;
    let probe_ms = ms_since(probe_started);
    canvas_state(page, "running");
    if gpu.backend == "webgl2" && !req.method.is_render_pass() {
        return Err(Error::Invalid(format!(
            "method {} is a compute shader, and WebGL2 has none; run it with WebGPU, or pick lm, hall-blocked, hall-packed, frag-mrt or frag-mrt-f16",
            req.method
        )));
    }
    let (inputs, seed) = inputs_of(req);
    let (a, b, input_notes) = inputs.for_precision(req.precision)?;
    let before = (gpu.ctx.pipelines.built(), gpu.ctx.pipelines.compiled());
    let mut capture = Capture {
        kind: Kind::of(req.method),
        snapshots: vec![],
        last: None,
        passes: 0,
    };
    page.status(&format!(
        "running {} on {} ({})…",
        req.method, gpu.adapter, gpu.backend
    ));
    let method_started = Instant::now();
    let out = multiply(&gpu.ctx, req, &a, &b, &mut capture).await?;
    let method_ms = ms_since(method_started);
    let judged = judge(req, &out, &a, &b);
    let run = Ran {
        req,
        gpu: &gpu,
        out: &out,
        judged: &judged,
        seed,
        opened,
        before,
        times: (context_ms, method_ms, started),
        probe_ms,
    };
    let result = run.json();
    let mut lines = run.status_lines();
    lines.extend(input_notes.iter().map(|n| format!("note: {n}")));
    lines.extend(out.notes.iter().map(|n| format!("note: {n}")));
    page.status(&lines.join("\n"));
    LAST_C.with(|c| *c.borrow_mut() = Some(out.c.clone()));
    // The frame, then the replay, in a task of their own: the result is published now.
    canvas_state(page, if req.replays() { "replay" } else { "drawing" });
    let show = Show {
        gpu,
        page: page.clone(),
        req: req.clone(),
        id,
        inputs,
        reference: judged.reference,
        c: out.c,
        passes: out.passes.max(1),
        capture,
        status: done_line(&judged.verdict),
    };
    // Busy from now: the page is not idle until the frame is drawn.
    let busy = Busy::show();
    wasm_bindgen_futures::spawn_local(async move {
        let _busy = busy;
        // A task of its own: whoever awaits the result (the form, a script) has it before the
        // frame's CPU work starts (a spawned future's first part runs before the caller's).
        sleep(0).await;
        let page = show.page.clone();
        let current = show.id == LATEST.with(|l| l.get());
        if let Err(e) = show.run().await
            && current
        {
            page.status(&format!(
                "the run passed its check, but its frame could not be drawn: {}",
                sentence(&e)
            ));
        }
    });
    Ok(result)
}

/// The run's inputs: as `rendermm multiply --random MxKxN --seed S` draws them (and the seed),
/// or as given (mapped into [0, 1] for u8 where they leave it by `Inputs::for_precision`, as
/// the CLI's --normalize does, with a note saying so).
fn inputs_of(req: &Request) -> (Inputs, Option<u64>) {
    let (names, seed) = match &req.given {
        Some((_, _, names)) => (names.clone(), None),
        None => (format!("seed {}", req.seed), Some(req.seed)),
    };
    let (a, b) = match &req.given {
        Some((a, b, _)) => (a.clone(), b.clone()),
        None => draw_like_the_cli(req.m, req.k, req.n, req.seed, req.precision),
    };
    let source = Source::Files {
        a: names.clone(),
        b: names,
    };
    (Inputs { a, b, source }, seed)
}

/// The product through the library's entry point. The passes are kept only for a replay (lm,
/// hall and packed are watched pass by pass; frag-mrt, C spread over several attachments, and
/// the compute era show their result); without one the run is the plain multiply. A product
/// tiled past the adapter's limits has no single texture to watch: it runs without a replay and
/// shows its result.
async fn multiply(
    ctx: &GpuContext,
    req: &Request,
    a: &Matrix,
    b: &Matrix,
    capture: &mut Capture,
) -> Result<plan::Outcome> {
    let opts = Options {
        precision: req.precision,
        block: block_for(req),
        ..Default::default()
    };
    let mut request = plan::Request::new(req.method, a, b).options(opts);
    let max = ctx.limits.max_texture_dimension_2d as usize;
    let whole = req.m.max(req.k).max(req.n) <= max && work_of(req) <= FULL_CHECK;
    if req.replays() && whole && !matches!(capture.kind, Kind::Result(_)) {
        request = request.observed(capture);
    }
    plan::multiply_async(ctx, request).await
}

/// m·k·n of the request.
fn work_of(req: &Request) -> u64 {
    req.m as u64 * req.k as u64 * req.n as u64
}

/// The judge's verdict on a run and what it took.
struct Judged {
    verdict: check::Verdict,
    /// The f64 product, where the run was checked in full.
    reference: Option<Rc<check::Reference>>,
    reference_cached: bool,
    reference_ms: f64,
    check_ms: f64,
}

/// Judged by the model of the pipeline that ran (the precision it used, its block size),
/// against the reference computed once for these inputs; past 2²⁷ multiply-adds on sampled
/// elements (each a 1×k · k×1 product the models and bounds take as they take the whole).
fn judge(req: &Request, out: &plan::Outcome, a: &Matrix, b: &Matrix) -> Judged {
    let reference_started = Instant::now();
    let (reference, reference_cached) = if work_of(req) <= FULL_CHECK {
        let (r, cached) = reference_of(a, b);
        (Some(r), cached)
    } else {
        (None, false)
    };
    let reference_ms = ms_since(reference_started);
    let check_started = Instant::now();
    let verdict = match &reference {
        Some(r) => check::judge_against(out.arith, a, b, &out.c, r),
        None => check::judge_sampled(out.arith, a, b, &out.c, check::SAMPLES, req.seed),
    };
    Judged {
        verdict,
        reference,
        reference_cached,
        reference_ms,
        check_ms: ms_since(check_started),
    }
}

/// One finished run, for its result JSON and its status lines.
struct Ran<'a> {
    req: &'a Request,
    gpu: &'a Gpu,
    out: &'a plan::Outcome,
    judged: &'a Judged,
    seed: Option<u64>,
    /// Whether this run opened the context.
    opened: bool,
    /// The context's pipelines built and shaders compiled before the run.
    before: (usize, usize),
    /// Opening the device, the multiply call (ms), and when the run started.
    times: (f64, f64, Instant),
    /// Measuring the driver's loop cap (the context's first run only; 0 after).
    probe_ms: f64,
}

impl Ran<'_> {
    /// The result JSON for `<pre id="result">`.
    fn json(&self) -> Value {
        let (req, out, v) = (self.req, self.out, &self.judged.verdict);
        let (built, compiled) = (
            self.gpu.ctx.pipelines.built(),
            self.gpu.ctx.pipelines.compiled(),
        );
        let full = self.judged.reference.is_some();
        let mut result = json!({
            "method": req.method.name(),
            "m": req.m,
            "k": req.k,
            "n": req.n,
            "inputs": if self.seed.is_some() { "seed" } else { "given" },
            "backend": self.gpu.backend,
            "adapter": self.gpu.adapter,
            "passes": out.passes,
            "rel_err": v.stats.rel_err,
            "passed": v.passed,
            // How the product was tiled past the adapter's limits (null: whole), as `multiply --json`.
            "tiling": out.tiling,
            // "full", or how many sampled elements the judge checked (past 2²⁷ multiply-adds).
            "checked": if full { "full".to_string() } else { format!("{} sampled elements", check::SAMPLES) },
            "precision": out.precision().name(),
            // The kernel that ran and what the judge held C to, as `multiply --json` names them.
            "kernel": out.kernel,
            "held": v.held,
            "tolerance": v.tolerance,
            // A warm page: one context per backend, and pipelines built (shaders compiled) once
            // per kind; the counts are the context's, the ones "by this run" what it added.
            "contexts_created": CONTEXTS.with(|c| c.get()),
            "context_reused": !self.opened,
            "pipelines_built": built,
            "pipelines_built_by_this_run": built - self.before.0,
            "shaders_compiled": compiled,
            "shaders_compiled_by_this_run": compiled - self.before.1,
            "reference_cached": self.judged.reference_cached,
            "times": self.times_json(),
        });
        if let Some(s) = self.seed {
            result["seed"] = json!(s);
        }
        // u8: how much of C saturated or rounded to 0 (names as in `multiply --json`), so a
        // reader can tell a run that checked the 8-bit rounding from one that checked nothing.
        if let Some(share) = v.saturated_share {
            result["saturated_share"] = json!(share);
        }
        if let Some(zero) = v.u8_zero {
            result["u8_zero"] = json!(zero);
        }
        result
    }

    /// Milliseconds. setup, upload, compute, copy and readback are the method's own phases
    /// (`multiply --json`'s timings); device is the compute phase's GPU time where the adapter
    /// has timestamp queries (null elsewhere, and compute is the wall clock); context is opening
    /// the device and loop_cap measuring its loop cap (both 0 once warm); method is the multiply
    /// call's wall time; reference and check are the CPU's f64 product and the judge; total is
    /// the run up to this result. In a browser a run with nothing to time apart is waited for
    /// once (`gpu::run::ONE_WAIT_NOTE`, in the run's notes): upload is then the time to queue
    /// the uploads, and compute lasts until C is mapped.
    fn times_json(&self) -> Value {
        let t = &self.out.timings;
        let (context_ms, method_ms, started) = self.times;
        json!({
            "context_ms": context_ms,
            "loop_cap_ms": self.probe_ms,
            "setup_ms": t.setup_ms,
            "upload_ms": t.upload_ms,
            "compute_ms": t.compute_ms,
            "device_ms": t.device_ms,
            "copy_ms": t.copy_ms,
            "readback_ms": t.readback_ms,
            "method_ms": method_ms,
            "reference_ms": self.judged.reference_ms,
            "check_ms": self.judged.check_ms,
            "total_ms": ms_since(started),
        })
    }

    /// The status's first lines: the product, its check, and its times.
    fn status_lines(&self) -> Vec<String> {
        let (req, out, v) = (self.req, self.out, &self.judged.verdict);
        let (m, k, n) = (req.m, req.k, req.n);
        let used = out.precision();
        let t = &out.timings;
        let (context_ms, _, started) = self.times;
        vec![
            format!(
                "{} {m}x{k}x{n} on {} ({}), {}{}: {} pass{}, relative error {:.2e} against the f64 CPU reference: {} ({})",
                req.method,
                self.gpu.adapter,
                self.gpu.backend,
                used.name(),
                if used != req.precision {
                    " (fallback)"
                } else {
                    ""
                },
                out.passes,
                if out.passes == 1 { "" } else { "es" },
                v.stats.rel_err,
                if v.passed { "passed" } else { "FAILED" },
                v.tolerance
            ),
            format!(
                "times: {}setup {:.1} ms, upload {:.1} ms, compute {:.1} ms{}, readback {:.1} ms; {:.1} ms in all{}",
                match (self.opened, self.probe_ms >= 0.05) {
                    (true, true) => format!(
                        "opening the device {context_ms:.0} ms, measuring its loop cap {:.0} ms, ",
                        self.probe_ms
                    ),
                    (true, false) => format!("opening the device {context_ms:.0} ms, "),
                    (false, true) => format!("measuring the loop cap {:.0} ms, ", self.probe_ms),
                    (false, false) => String::new(),
                },
                t.setup_ms,
                t.upload_ms,
                t.compute_ms,
                t.device_ms
                    .map(|d| format!(" ({d:.2} ms on the GPU)"))
                    .unwrap_or_default(),
                t.readback_ms,
                ms_since(started),
                if self.judged.reference_cached {
                    " (the CPU reference of these inputs was at hand)"
                } else {
                    ""
                }
            ),
        ]
    }
}
