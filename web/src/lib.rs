//! rendermm in a web page. `run` multiplies through the library's own methods
//! (`rendermm::plan::multiply_async`: WebGPU, or WebGL2 through wgpu's GL backend) on inputs drawn
//! from a seed as `rendermm multiply --random` draws them or read from pasted or dropped files
//! (files.rs), checks the product against the f64 CPU reference computed here, returns the run's
//! report (`rendermm::Report`, what `rendermm multiply --json` prints, for `<pre id="result">`)
//! and the page's own facts about the run (its words, its warm caches, its times; for
//! `<pre id="page-facts">`), then draws the result — or replays the passes — on the page's
//! canvas with the renderer of `rendermm demo` (`rendermm::demo`: its scene, layout, labels and
//! `shaders/demo.wgsl`; frame.rs puts the frames on the page).
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
mod words;

use device::*;
use page::*;
use request::*;
use show::*;
use words::*;

use rendermm::check;
use rendermm::clock::Instant;
use rendermm::demo::render::Renderer;
use rendermm::demo::scene::Scene;
use rendermm::demo::{Inputs, Kind, Settings, Source};
use rendermm::error::{Error, Result};
use rendermm::gpu::texture::{MatrixTexture, ScalarFormat};
use rendermm::gpu::{GpuContext, run::Observer};
use rendermm::matrix::Matrix;
use rendermm::methods::{Era, Method};
use rendermm::plan::{self, Options};
use rendermm::precision::{Precision, U8Bits};
use rendermm::report::Report;
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
                // The GL-era methods run the papers' own OpenGL calls natively only: a browser's
                // WebGL has neither the fixed-function pipeline nor ARB fragment programs.
                "unavailable": m.is_host_api().then_some(
                    "native only: WebGL has neither OpenGL 1.x's fixed function nor GL_ARB_fragment_program",
                ),
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
/// the reader gave them) ask, and in compare mode (`vs`) a second method on the same A and B.
/// Resolves to JSON text: `{"report": …, "page": …}` — the run's report, as `rendermm multiply
/// --json` prints it (docs/report.schema.json), for `#result`, and the page's own facts about the
/// run for `#page-facts` (in compare mode with the second run's report and facts under
/// `page.vs`) — or `{"error": "<sentence>"}`. The result is published as soon as C is checked;
/// its frame (and the replay, if asked) is drawn afterwards.
#[wasm_bindgen]
pub async fn run(params: js_sys::Map) -> String {
    let page = Page::find();
    running_start();
    let _busy = Busy::run();
    let out = match parse_request(&params) {
        Ok(req) => run_all(&req, &page).await,
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
        Error::MissingFeature { feature, .. } if *feature == "EXPERIMENTAL_COOPERATIVE_MATRIX" => {
            "coop needs the cooperative-matrix feature (tensor cores, through wgpu's experimental cooperative matrices), and this browser's adapter lacks it: browsers do not offer it yet, so coop runs from the command line (rendermm multiply --method coop) on a GPU that has it; cs-fast is the fastest method here".into()
        }
        Error::Unsupported { option, why, .. }
            if option == "--u8-sum-bits 16" && why.contains("16-bit normalized") =>
        {
            "u8_sum_bits=16 keeps L-M §4's 16-bit running sum in a 16-bit normalized texture (R16Unorm), which this browser's adapter does not offer (WebGPU has no such format; WebGL2 only with the EXT_texture_norm16 extension); use u8_sum_bits=8 here (u8_product_bits=14 or 16 still runs), or the command line: rendermm multiply --precision u8 --u8-sum-bits 16".into()
        }
        Error::MissingFeature {
            feature,
            needed_for,
            ..
        } => plain(&format!(
            "this browser's adapter lacks the {feature} feature, which {needed_for}"
        )),
        e => plain(&e.to_string()),
    }
}

/// A message of the library in the page's words: on one line, an adapter the browser does not
/// name called "this browser's adapter", and the command line's flags as the page's parameters.
fn plain(text: &str) -> String {
    let mut s = text.split_whitespace().collect::<Vec<_>>().join(" ");
    s = s.replace("adapter ''", "this browser's adapter");
    for (flag, param) in [
        ("--scale-by-depth", "scale_by_depth=1"),
        ("--u8-product-bits", "u8_product_bits"),
        ("--u8-sum-bits", "u8_sum_bits"),
        ("--precision u8", "precision=u8"),
        ("--precision", "precision"),
        ("--block", "b"),
    ] {
        s = s.replace(flag, param);
    }
    s
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
    /// The f64 reference of the last inputs ([`Kept`]). The same inputs again (the same seed and
    /// shape, or the same pasted matrices) are not multiplied on the CPU again.
    static REFERENCE: RefCell<Option<Kept>> = const { RefCell::new(None) };
    /// The inputs last drawn from a seed or filled, by what drew them: a warm page's next Run
    /// of the same product takes copies instead of drawing them again.
    static DRAWN: RefCell<Option<(DrawKey, Matrix, Matrix)>> = const { RefCell::new(None) };
    /// Products run so far (each run of compare mode counts): which one computed a reference.
    static PRODUCTS: Cell<u64> = const { Cell::new(0) };
    /// C of the last run that produced one, for the download links.
    static LAST_C: RefCell<Option<Matrix>> = const { RefCell::new(None) };
    /// Runs and replays under way: WebGL2's context is polled while this is not 0.
    static BUSY: Cell<usize> = const { Cell::new(0) };
}

/// Milliseconds since `t`.
fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// What drew a run's A and B where the page drew them (the seed, or a fill, for each; the shape;
/// the precision, which sets the seed's range): the same key is the same inputs, bit for bit.
#[derive(Clone, Copy, PartialEq)]
struct DrawKey {
    m: usize,
    k: usize,
    n: usize,
    seed: u64,
    precision: Precision,
    fill_a: Option<u32>,
    fill_b: Option<u32>,
}

/// Drawn inputs past this many elements (A's and B's together) are not kept for the next Run:
/// a copy of each would stay in the page's memory, and such a product's time is the GPU's.
const KEEP_DRAWN: usize = 1 << 22;

/// The f64 reference of the last inputs: A, B (or the key that drew them), and A·B with |A|·|B|
/// and, for f32, the runs of partial sums (the scale of the judge's bounds).
struct Kept {
    a: Matrix,
    b: Matrix,
    key: Option<DrawKey>,
    reference: Rc<check::Reference>,
    /// The product ([`PRODUCTS`]) that computed it, and how long that took.
    by: u64,
    ms: f64,
}

impl Kept {
    /// Whether these are the inputs kept: the same key where the page drew both, else the same
    /// numbers.
    fn holds(&self, a: &Matrix, b: &Matrix, key: Option<DrawKey>) -> bool {
        let same =
            |x: &Matrix, y: &Matrix| x.rows == y.rows && x.cols == y.cols && x.data == y.data;
        match (key, self.key) {
            (Some(k), Some(kept)) => k == kept,
            _ => same(&self.a, a) && same(&self.b, b),
        }
    }
}

/// The f64 reference of A·B, with its |A|·|B| and, where `runs` (an f32 check), the runs of
/// partial sums the f32 bound takes: computed now and kept for the next run.
fn compute_reference(a: &Matrix, b: &Matrix, runs: bool) -> Rc<check::Reference> {
    Rc::new(check::Reference::with_bounds(a, b, runs))
}

/// The f64 reference of A·B for product `by`: the kept one when A and B are the kept ones, else
/// computed now (and kept). Also says whether it was kept from an earlier product (not computed
/// for this one, beside its GPU work or now) and the milliseconds it took this product.
fn reference_of(
    a: &Matrix,
    b: &Matrix,
    key: Option<DrawKey>,
    by: u64,
    runs: bool,
) -> (Rc<check::Reference>, bool, f64) {
    let t = Instant::now();
    if let Some(found) = REFERENCE.with(|r| {
        r.borrow()
            .as_ref()
            .filter(|kept| kept.holds(a, b, key))
            .map(|kept| (kept.reference.clone(), kept.by, kept.ms))
    }) {
        let (r, computed_by, computed_ms) = found;
        return if computed_by == by {
            (r, false, computed_ms)
        } else {
            (r, true, ms_since(t))
        };
    }
    let r = compute_reference(a, b, runs);
    let ms = ms_since(t);
    keep_reference(a, b, key, r.clone(), by, ms);
    (r, false, ms)
}

fn keep_reference(
    a: &Matrix,
    b: &Matrix,
    key: Option<DrawKey>,
    reference: Rc<check::Reference>,
    by: u64,
    ms: f64,
) {
    REFERENCE.with(|c| {
        *c.borrow_mut() = Some(Kept {
            a: a.clone(),
            b: b.clone(),
            key,
            reference,
            by,
            ms,
        })
    });
}

/// Start product `by`'s f64 reference beside its GPU work: in a task of its own, which runs once
/// this task has handed the browser its commands (a timer's turn later), while the page waits
/// for the device to open, the loop cap's probe and the product. Nothing where the inputs' is
/// kept; where the product finishes first, the judge computes it then and this does nothing.
/// The result still waits for the check, so it never shows as checked before it is.
fn reference_alongside(a: &Matrix, b: &Matrix, key: Option<DrawKey>, by: u64, runs: bool) {
    let held = REFERENCE.with(|r| {
        r.borrow()
            .as_ref()
            .is_some_and(|kept| kept.holds(a, b, key))
    });
    if held {
        return;
    }
    let (a, b) = (a.clone(), b.clone());
    wasm_bindgen_futures::spawn_local(async move {
        sleep(0).await;
        let held = REFERENCE.with(|r| {
            r.borrow()
                .as_ref()
                .is_some_and(|kept| kept.holds(&a, &b, key))
        });
        if held {
            return;
        }
        let t = Instant::now();
        let r = compute_reference(&a, &b, runs);
        keep_reference(&a, &b, key, r, by, ms_since(t));
    });
}

/// One run done: its report, the page's facts about it, its words for the status, the sums of
/// the inputs it multiplied, its C and what its frame needs.
struct Done {
    report: Report,
    facts: Value,
    words: Words,
    input_sums: [f64; 2],
    show: Show,
}

impl Done {
    fn side(&self) -> Side<'_> {
        Side {
            report: &self.report,
            input_sums: self.input_sums,
            c: &self.show.c,
        }
    }
}

/// What compare mode sets side by side of one run: its report, the sums of its inputs, its C.
struct Side<'a> {
    report: &'a Report,
    input_sums: [f64; 2],
    c: &'a Matrix,
}

impl Side<'_> {
    /// The multiply's time: the compute phase, GPU time where the adapter has timestamps.
    fn multiply_ms(&self) -> f64 {
        self.report.device_ms.unwrap_or(self.report.compute_ms)
    }
}

/// A report as JSON (serializing a report fails only on a bug).
fn report_json(report: &Report) -> Result<Value> {
    serde_json::to_value(report)
        .map_err(|e| Error::Internal(format!("the report did not serialize: {e}")))
}

/// The run `req` asks for, and in compare mode the second method on the same A and B: the
/// status written (one column, or two side by side), the first run's frame drawn (or replayed)
/// in a task of its own after the result is published.
async fn run_all(req: &Request, page: &Page) -> Result<Value> {
    let started = Instant::now();
    let id = LATEST.with(|l| {
        l.set(l.get() + 1);
        l.get()
    });
    let drawn = inputs_of(req);
    let first = run_one(req, page, &drawn, started, id).await?;
    let mut facts = first.facts;
    let mut cols = vec![first.words];
    let mut summary = None;
    if let Some(vs) = req.vs {
        let vreq = req.versus(vs);
        match run_one(&vreq, page, &drawn, Instant::now(), id).await {
            Ok(mut d) => {
                if vreq.precision != req.precision {
                    d.words.changes.insert(
                        0,
                        format!(
                            "Ran in f32: {vs} computes in f32 only ({} is a mode of lm and Hall's methods).",
                            req.precision
                        ),
                    );
                    d.facts["changes"] = json!(d.words.changes);
                }
                let (line, diff) = compare_line(
                    &Side {
                        report: &first.report,
                        input_sums: first.input_sums,
                        c: &first.show.c,
                    },
                    &d.side(),
                );
                facts["compare"] = json!({ "max_abs_diff": diff, "summary": line });
                summary = Some(line);
                facts["vs"] = json!({ "report": report_json(&d.report)?, "page": d.facts });
                cols.push(d.words);
            }
            Err(e) => {
                facts["vs"] = json!({ "method": vs.name(), "error": sentence(&e) });
                cols.push(Words::error(vs.name(), &sentence(&e)));
            }
        }
        cols[0].title = req.method.name().to_string();
        cols[1].title = format!("vs {}", cols[1].title);
    }
    // The status's words; whether it reads passed is main.js's, from the reports.
    status_with_result(status_html(&cols, summary.as_deref()));
    let result = json!({ "report": report_json(&first.report)?, "page": facts });
    let show = first.show;
    LAST_C.with(|c| *c.borrow_mut() = Some(show.c.clone()));
    // The frame, then the replay, in a task of their own: the result is published now.
    canvas_state(page, if req.replays() { "replay" } else { "drawing" });
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
            page.status_note(&format!(
                "The picture could not be drawn (the check above stands): {}.",
                sentence(&e)
            ));
        }
    });
    Ok(result)
}

/// Compare mode's summary under the two columns: the same inputs, how far apart the two C are
/// (the largest element difference) and which multiply was faster, by how much. Also the
/// difference.
fn compare_line(first: &Side, second: &Side) -> (String, f64) {
    let (c1, c2) = (first.c, second.c);
    let diff = c1
        .data
        .iter()
        .zip(&c2.data)
        .map(|(x, y)| (x - y).abs() as f64)
        .fold(0.0f64, |a, d| if d.is_nan() { f64::NAN } else { a.max(d) });
    let name = |d: &Side| d.report.method.clone();
    let (t1, t2) = (first.multiply_ms(), second.multiply_ms());
    let speed = if t1 > 0.0 && t2 > 0.0 {
        let (fast, slow, r) = if t2 <= t1 {
            (name(second), name(first), t1 / t2)
        } else {
            (name(first), name(second), t2 / t1)
        };
        if r < 1.1 {
            format!(
                "the two multiplies took about as long ({} and {})",
                ms(t1),
                ms(t2)
            )
        } else {
            format!(
                "{fast}'s multiply was {r:.1}× as fast as {slow}'s ({} against {})",
                ms(t1.min(t2)),
                ms(t1.max(t2))
            )
        }
    } else {
        "no time to compare".into()
    };
    // A u8 run maps inputs outside [0, 1] into it and an f32 run does not: then the two ran on
    // different numbers, and their C are not held side by side as if they had not.
    if first.input_sums != second.input_sums {
        return (
            format!(
                "Not the same A and B: {} ran in {} and {} in {}, which take these inputs differently (u8 maps them into [0, 1]), so the two C are not compared; {speed}.",
                name(first),
                first.report.precision,
                name(second),
                second.report.precision,
            ),
            f64::NAN,
        );
    }
    let apart = if diff == 0.0 {
        "the two C are equal, element for element".to_string()
    } else {
        format!("the two C differ by at most {diff:.2e} in an element")
    };
    (format!("Same A and B: {apart}; {speed}."), diff)
}

/// One multiply on `inputs` (the same for both runs of compare mode): the device, the product,
/// the check against the f64 reference, the result JSON and the words.
async fn run_one(
    req: &Request,
    page: &Page,
    drawn: &Drawn,
    started: Instant,
    id: u64,
) -> Result<Done> {
    let (inputs, seed) = (&drawn.inputs, drawn.seed);
    let product = PRODUCTS.with(|p| {
        p.set(p.get() + 1);
        p.get()
    });
    let (a, b, input_notes) = inputs.for_precision(req.precision)?;
    // Where this product is checked in full against a reference not yet kept, the CPU computes
    // it while the GPU works (the device opening, the loop cap's probe, the product).
    let full = check_policy(req).coverage.is_full((req.m, req.k, req.n));
    let runs = bounds_take_runs(req);
    // What drew A and B names them as multiplied only in the precision they were drawn for
    // (compare mode's second run may map them into u8's range).
    let key = drawn.key.filter(|k| k.precision == req.precision);
    if full {
        reference_alongside(&a, &b, key, product, runs);
    }
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
    let before = (gpu.ctx.pipelines.built(), gpu.ctx.pipelines.compiled());
    let mut capture = Capture {
        kind: Kind::of(req.method),
        snapshots: vec![],
        last: None,
        passes: 0,
    };
    page.running(&format!(
        "running {} on {} ({})…",
        req.method, gpu.adapter, gpu.backend
    ));
    let out = multiply(&gpu.ctx, req, &a, &b, &mut capture).await?;
    let judged = judge(req, &out, &a, &b, key, product)?;
    let ran = Ran {
        req,
        gpu: &gpu,
        out: &out,
        judged: &judged,
        seed,
        opened,
        before,
        times: (context_ms, started),
        probe_ms,
    };
    // The run's notes, as the command line's report orders them: the inputs', the check's, the
    // run's own.
    let notes: Vec<String> = input_notes
        .into_iter()
        .chain(judged.notes.iter().cloned())
        .chain(out.notes.iter().cloned())
        .collect();
    let mut words = ran.words();
    words.notes = notes.iter().map(|n| plain(n)).collect();
    let report = ran.report(notes);
    // What the run multiplied, in two numbers (the f64 sums of A's and of B's elements): compare
    // mode's two runs show the same.
    let sum = |x: &Matrix| x.data.iter().map(|&v| v as f64).sum::<f64>();
    let input_sums = [sum(&a), sum(&b)];
    let facts = ran.facts(&words, input_sums);
    // The kernel that ran draws the picture (dns-tiled where dns could not take the product).
    let ran_method = out.kernel.method;
    let show = Show {
        gpu,
        page: page.clone(),
        req: req.clone(),
        ran: ran_method,
        id,
        inputs: Inputs {
            a,
            b,
            source: inputs.source.clone(),
        },
        reference: judged.reference,
        c: out.c,
        passes: out.passes.max(1),
        capture,
        status: words.line.clone(),
    };
    Ok(Done {
        report,
        facts,
        words,
        input_sums,
        show,
    })
}

/// The run's inputs: as `rendermm multiply --random MxKxN --seed S` draws them (and the seed),
/// each of A and B filled with one number where `fill` / `fill_a` / `fill_b` ask, or as given
/// (mapped into [0, 1] for u8 where they leave it by `Inputs::for_precision`, as the CLI's
/// --normalize does, with a note saying so). The seed where either was drawn from it.
fn inputs_of(req: &Request) -> Drawn {
    if let Some((a, b, names)) = &req.given {
        let source = Source::Files {
            a: names.clone(),
            b: names.clone(),
        };
        return Drawn {
            inputs: Inputs {
                a: a.clone(),
                b: b.clone(),
                source,
            },
            seed: None,
            key: None,
        };
    }
    let key = DrawKey {
        m: req.m,
        k: req.k,
        n: req.n,
        seed: req.seed,
        precision: req.precision,
        fill_a: req.fill_a.map(f32::to_bits),
        fill_b: req.fill_b.map(f32::to_bits),
    };
    let kept = DRAWN.with(|d| {
        d.borrow()
            .as_ref()
            .filter(|(k, ..)| *k == key)
            .map(|(_, a, b)| (a.clone(), b.clone()))
    });
    let (a, b) = match kept {
        Some(kept) => kept,
        None => {
            let (mut a, mut b) = draw_like_the_cli(req.m, req.k, req.n, req.seed, req.precision);
            if let Some(v) = req.fill_a {
                a = Matrix::filled(req.m, req.k, v);
            }
            if let Some(v) = req.fill_b {
                b = Matrix::filled(req.k, req.n, v);
            }
            let keep = a.data.len() + b.data.len() <= KEEP_DRAWN;
            DRAWN.with(|d| {
                *d.borrow_mut() = keep.then(|| (key, a.clone(), b.clone()));
            });
            (a, b)
        }
    };
    let name = |fill: Option<f32>| match fill {
        Some(v) => format!("fill {v}"),
        None => format!("seed {}", req.seed),
    };
    let source = Source::Files {
        a: name(req.fill_a),
        b: name(req.fill_b),
    };
    let seed = (req.fill_a.is_none() || req.fill_b.is_none()).then_some(req.seed);
    Drawn {
        inputs: Inputs { a, b, source },
        seed,
        key: Some(key),
    }
}

/// A run's inputs, the seed that drew them, and where the page drew them (not given), what drew
/// them.
struct Drawn {
    inputs: Inputs,
    seed: Option<u64>,
    key: Option<DrawKey>,
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
        scale_by_depth: req.scale_by_depth,
        u8_bits: req.u8_bits,
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

/// The page's check policy for `req`: held to the model of the pipeline that ran, in full up to
/// [`FULL_CHECK`] multiply-adds, else on elements sampled from the seed.
fn check_policy(req: &Request) -> check::CheckPolicy {
    check::CheckPolicy {
        hold: check::Hold::Model,
        coverage: check::Coverage::Auto {
            full_up_to_madds: FULL_CHECK,
            seed: req.seed,
        },
    }
}

/// Whether the judge's bound for `req` takes the runs of partial sums (the f32 bound; frag-mrt-f16
/// is held to its f16 inputs' bound, u8 and f16 to their models).
fn bounds_take_runs(req: &Request) -> bool {
    req.precision == Precision::F32 && req.method != Method::FragMrtF16
}

/// The judge's verdict on a run and what it took.
struct Judged {
    verdict: check::Verdict,
    /// `full`, or how many sampled elements the judge checked.
    coverage: String,
    /// The check's remarks for the report (an element of the product f32 cannot hold).
    notes: Vec<String>,
    /// The f64 product, where the run was checked in full.
    reference: Option<Rc<check::Reference>>,
    reference_cached: bool,
    reference_ms: f64,
    check_ms: f64,
}

/// Judged by the model of the pipeline that ran (the precision it used, its block size) under
/// the page's check policy: held to the pipeline's model (how far that is from the exact product
/// is in the words, `far from exact`), in full against the reference computed once for these
/// inputs up to 2²⁷ multiply-adds, else on sampled elements (each a 1×k · k×1 product the models
/// and bounds take as they take the whole).
fn judge(
    req: &Request,
    out: &plan::Outcome,
    a: &Matrix,
    b: &Matrix,
    key: Option<DrawKey>,
    product: u64,
) -> Result<Judged> {
    let policy = check_policy(req);
    let (reference, reference_cached, reference_ms) =
        if policy.coverage.is_full((req.m, req.k, req.n)) {
            let (r, cached, ms) = reference_of(a, b, key, product, bounds_take_runs(req));
            (Some(r), cached, ms)
        } else {
            (None, false, 0.0)
        };
    let check_started = Instant::now();
    let checked = out.check(
        policy,
        &[check::Inputs::new(a, b).with_reference(reference.as_deref())],
    );
    let verdict = checked
        .verdicts
        .into_iter()
        .next()
        .ok_or_else(|| Error::Internal("the check judged no C".into()))?;
    Ok(Judged {
        verdict,
        coverage: checked.coverage,
        notes: checked.notes,
        reference,
        reference_cached,
        reference_ms,
        check_ms: ms_since(check_started),
    })
}

/// One finished run, for its report, the page's facts about it and its status lines.
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
    /// Opening the device (ms), and when the run started.
    times: (f64, Instant),
    /// Measuring the driver's loop cap (the context's first run only; 0 after).
    probe_ms: f64,
}

impl Ran<'_> {
    /// The run's report, as `rendermm multiply --json` prints it (`Report::of` the outcome and
    /// the verdict), with the run's `notes`. The adapter and the backend are named as the page
    /// names them: wgpu leaves a browser's WebGPU adapter unnamed (the page asks
    /// `navigator.gpu`), and calls the browser's backends `BrowserWebGpu` and `Gl`, which the
    /// page calls `webgpu` and `webgl2`. The model fields are left out: the cost models are the
    /// native library's.
    fn report(&self, notes: Vec<String>) -> Report {
        let mut report = Report::of(
            Some(self.gpu.ctx.as_ref()),
            self.out,
            vec![self.judged.verdict.clone()],
        );
        report.adapter = self.gpu.adapter.clone();
        report.backend = self.gpu.backend.to_string();
        report.notes = notes;
        report
    }

    /// What only the page knows about the run, for `<pre id="page-facts">`: where A and B came
    /// from, the status's plain line and its changes, how much of C the judge checked, the warm
    /// page's counts and the page's own times.
    fn facts(&self, words: &Words, input_sums: [f64; 2]) -> Value {
        let req = self.req;
        let (built, compiled) = (
            self.gpu.ctx.pipelines.built(),
            self.gpu.ctx.pipelines.compiled(),
        );
        let mut facts = json!({
            "source": if self.seed.is_some() { "seed" } else if req.given.is_some() { "given" } else { "fill" },
            "input_sums": input_sums,
            // The status's plain line (the canvas draws it too), and what the browser or the
            // page changed about what ran, and why, one sentence each.
            "status_line": words.line,
            "changes": words.changes,
            // "full", or how many sampled elements the judge checked (past 2²⁷ multiply-adds).
            "checked": self.judged.coverage,
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
            facts["seed"] = json!(s);
        }
        if let Some(f) = req.fill_a {
            facts["fill_a"] = json!(f);
        }
        if let Some(f) = req.fill_b {
            facts["fill_b"] = json!(f);
        }
        facts
    }

    /// Milliseconds, the page's own (the method's phases and the multiply call's wall time are
    /// the report's): context is opening the device and loop_cap measuring its loop cap (both 0
    /// once warm); reference and check are the CPU's f64 product and the judge; total is the
    /// run up to this result.
    fn times_json(&self) -> Value {
        let (context_ms, started) = self.times;
        json!({
            "context_ms": context_ms,
            "loop_cap_ms": self.probe_ms,
            "reference_ms": self.judged.reference_ms,
            "check_ms": self.judged.check_ms,
            "total_ms": ms_since(started),
        })
    }

    /// The run in words: the plain line, what changed and why, and the details (what ran, the
    /// inputs, the check and its bound, the times) for behind the toggle. The notes are the
    /// caller's.
    fn words(&self) -> Words {
        let (req, out, v) = (self.req, self.out, &self.judged.verdict);
        let (m, k, n) = (req.m, req.k, req.n);
        let (multiply_ms, gflops) = speed(req, out);
        let line = plain_line(v, multiply_ms, gflops);
        let block = block_for(req);
        let changes = changes(req, self.gpu, out, block);
        let used = out.precision();
        let mut details = vec![];
        details.push(format!(
            "Ran {}{} on {m}×{k}×{n} in {used}{}: {} pass{}, on {} ({}).",
            out.kernel.method,
            out.kernel
                .variant
                .as_ref()
                .map(|v| format!(" (variant {v})"))
                .unwrap_or_default(),
            match (Kind::of(req.method).ping_pong(), out.block) {
                (true, Some(b)) => format!(", Hall's b = {b}"),
                _ => String::new(),
            },
            out.passes,
            if out.passes == 1 { "" } else { "es" },
            self.gpu.adapter,
            self.gpu.backend
        ));
        if used == Precision::U8 {
            details.push(format!(
                "The 8-bit pipeline: {}{}.",
                req.u8_bits.name(),
                if req.scale_by_depth {
                    format!(", polygon colour 1/{k} (scale_by_depth: the sum cannot saturate; C rescaled by {k})")
                } else {
                    String::new()
                }
            ));
        }
        let drawn = |which: &str| {
            format!(
                "{which} drawn from seed {} as rendermm multiply --random {m}x{k}x{n} --seed {} draws {}",
                req.seed,
                req.seed,
                if which == "A and B" { "them" } else { "it" }
            )
        };
        details.push(match (&req.given, req.fill_a, req.fill_b) {
            (Some((_, _, names)), _, _) => format!("Inputs: A and B as given ({names})."),
            (None, Some(x), Some(y)) if x == y => {
                format!("Inputs: every element of A and of B is {x}.")
            }
            (None, Some(x), Some(y)) => {
                format!("Inputs: every element of A is {x}, every element of B is {y}.")
            }
            (None, Some(x), None) => {
                format!("Inputs: every element of A is {x}; {}.", drawn("B"))
            }
            (None, None, Some(y)) => {
                format!("Inputs: every element of B is {y}; {}.", drawn("A"))
            }
            (None, None, None) => format!("Inputs: {}.", drawn("A and B")),
        });
        details.push(format!(
            "The check: C against the f64 product computed in this page{}: {}. Relative error (Frobenius norm) {:.2e}, largest absolute error {:.2e}.{}",
            if self.judged.reference.is_some() {
                ", every element".to_string()
            } else {
                format!(", on {} sampled elements (a product this large)", check::SAMPLES)
            },
            v.held,
            v.stats.rel_err,
            v.stats.max_abs_err,
            v.exact
                .as_ref()
                .map(|e| format!(" {}{}.", e[..1].to_ascii_uppercase(), &e[1..]))
                .unwrap_or_default()
        ));
        details.push(format!("The bound it was held to: {}.", v.tolerance));
        let t = &out.timings;
        let (context_ms, started) = self.times;
        let mut phases = vec![];
        if self.opened {
            phases.push(format!("opening the device {}", ms(context_ms)));
        }
        if self.probe_ms >= 0.05 {
            phases.push(format!("measuring its loop cap {}", ms(self.probe_ms)));
        }
        phases.push(format!("setup {}", ms(t.setup_ms)));
        phases.push(format!("upload {}", ms(t.upload_ms)));
        phases.push(format!(
            "compute {}{}",
            ms(t.compute_ms),
            t.device_ms
                .map(|d| format!(" ({} on the GPU)", ms(d)))
                .unwrap_or_default()
        ));
        if t.copy_ms > 0.0 {
            phases.push(format!("copies {}", ms(t.copy_ms)));
        }
        phases.push(format!("readback {}", ms(t.readback_ms)));
        phases.push(if self.judged.reference_cached {
            "the f64 reference at hand (kept from the run before on these inputs)".to_string()
        } else {
            format!(
                "the f64 reference on the CPU {}",
                ms(self.judged.reference_ms)
            )
        });
        phases.push(format!("the check {}", ms(self.judged.check_ms)));
        details.push(format!(
            "Time: the multiply is the compute phase, {} ({}); 2·m·k·n = {} floating-point operations in it make {}. The whole run took {}: {}. This run built {} pipeline{}.",
            ms(multiply_ms),
            if t.device_ms.is_some() {
                "the GPU's timestamps"
            } else {
                "the wall clock, from submitting the passes until they finished"
            },
            2 * m as u64 * k as u64 * n as u64,
            gflops_words(gflops),
            ms(ms_since(started)),
            phases.join(", "),
            self.gpu.ctx.pipelines.built() - self.before.0,
            if self.gpu.ctx.pipelines.built() - self.before.0 == 1 { "" } else { "s" }
        ));
        Words {
            title: req.method.name().to_string(),
            passed: v.passed,
            line,
            changes,
            details,
            notes: vec![],
        }
    }
}
