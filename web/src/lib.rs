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

mod files;
mod frame;

use rendermm::check;
use rendermm::clock::Instant;
use rendermm::cpu;
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
                "render": render_pass(m),
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

/// The methods drawn by a render pipeline (they run on WebGL2 too).
fn render_pass(m: Method) -> bool {
    matches!(
        m,
        Method::Lm
            | Method::HallBlocked
            | Method::HallPacked
            | Method::FragMrt
            | Method::FragMrtF16
    )
}

/// The parameters of one run, as the URL or the form gives them (strings; checked here).
#[derive(Clone)]
struct Request {
    method: Method,
    m: usize,
    k: usize,
    n: usize,
    precision: Precision,
    seed: u64,
    block: Option<u32>,
    backend: Backend,
    /// Milliseconds per pass of the replay after the run; 0 = none.
    pace: u32,
    /// Stop the replay at this pass (a still for a screenshot or a lecture).
    hold: Option<usize>,
    /// A and B given (pasted or dropped) instead of drawn from the seed.
    given: Option<(Matrix, Matrix, String)>,
}

impl Request {
    /// Whether the passes are kept for a replay (else the run is a plain multiply, and only its
    /// result is drawn).
    fn replays(&self) -> bool {
        self.pace > 0 || self.hold.is_some()
    }
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Backend {
    Auto,
    WebGpu,
    WebGl2,
}

fn get(params: &js_sys::Map, key: &str) -> Option<String> {
    params
        .get(&JsValue::from_str(key))
        .as_string()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// Matrix `which` ("A" or "B") as given in `params` under `matrix_a` / `matrix_b`: pasted text
/// (a string) or a dropped file's bytes (a Uint8Array, named by `matrix_a_name` /
/// `matrix_b_name`). None when it is absent or blank.
fn given_matrix(params: &js_sys::Map, which: &str) -> Result<Option<Matrix>> {
    let key = format!("matrix_{}", which.to_ascii_lowercase());
    let value = params.get(&JsValue::from_str(&key));
    let name = get(params, &format!("{key}_name")).unwrap_or_else(|| format!("pasted {which}"));
    if let Some(text) = value.as_string() {
        if text.trim().is_empty() {
            return Ok(None);
        }
        return files::read(&which, &name, text.as_bytes()).map(Some);
    }
    if let Ok(bytes) = value.dyn_into::<js_sys::Uint8Array>() {
        return files::read(&which, &name, &bytes.to_vec()).map(Some);
    }
    Ok(None)
}

fn parse_size(s: &str) -> Result<(usize, usize, usize)> {
    let bad = || {
        Error::Invalid(format!(
            "size '{s}' is not MxKxN with three whole numbers, each at least 1 (for example 24x17x9)"
        ))
    };
    let parts: Vec<&str> = s.split(['x', 'X', '×']).collect();
    if parts.len() != 3 {
        return Err(bad());
    }
    let mut v = [0usize; 3];
    for (slot, p) in v.iter_mut().zip(&parts) {
        *slot = p.trim().parse().map_err(|_| bad())?;
    }
    if let Some(i) = v.iter().position(|&x| x == 0) {
        return Err(Error::Invalid(format!(
            "size '{s}': {} is 0, but every side of a product must be at least 1",
            ["m", "k", "n"][i]
        )));
    }
    Ok((v[0], v[1], v[2]))
}

fn parse_request(params: &js_sys::Map) -> Result<Request> {
    let method = Method::parse(&get(params, "method").unwrap_or_else(|| "lm".into()))?;
    if !method.is_gpu() {
        return Err(Error::Invalid(format!(
            "method {method} runs on the CPU; the page runs the GPU methods (the CPU's f64 reference checks every run)"
        )));
    }
    let given = match (given_matrix(params, "A")?, given_matrix(params, "B")?) {
        (Some(a), Some(b)) => {
            if a.cols != b.rows {
                return Err(Error::Invalid(format!(
                    "A is {}x{} and B is {}x{}: A's columns must equal B's rows",
                    a.rows, a.cols, b.rows, b.cols
                )));
            }
            a.check_finite("A")?;
            b.check_finite("B")?;
            let names = format!(
                "{} · {}",
                get(params, "matrix_a_name").unwrap_or_else(|| "pasted A".into()),
                get(params, "matrix_b_name").unwrap_or_else(|| "pasted B".into())
            );
            Some((a, b, names))
        }
        (None, None) => None,
        (Some(_), None) | (None, Some(_)) => {
            return Err(Error::Invalid(
                "only one of A and B was given; give both (or neither, to draw them from the seed)"
                    .into(),
            ));
        }
    };
    let (m, k, n) = match &given {
        Some((a, b, _)) => (a.rows, a.cols, b.cols),
        None => parse_size(&get(params, "size").unwrap_or_else(|| "24x17x9".into()))?,
    };
    let work = m as u64 * k as u64 * n as u64;
    if work > MAX_WORK {
        return Err(Error::Invalid(format!(
            "size {m}x{k}x{n} is {work} multiply-adds, more than the {MAX_WORK} the page takes; take a smaller product (or the command line, rendermm multiply)"
        )));
    }
    let precision = Precision::parse(&get(params, "precision").unwrap_or_else(|| "f32".into()))?;
    let seed = match get(params, "seed") {
        None => 1,
        Some(s) => s.parse().map_err(|_| {
            Error::Invalid(format!("seed '{s}' is not a whole number from 0 to 2^64-1"))
        })?,
    };
    let block = match get(params, "b") {
        None => None,
        Some(s) => match s.parse::<u32>() {
            Ok(b) if b >= 1 => Some(b),
            _ => {
                return Err(Error::Invalid(format!(
                    "block size b = '{s}': give a whole number from 1 up (products per fragment per pass)"
                )));
            }
        },
    };
    let backend = match get(params, "backend").as_deref() {
        None | Some("auto") => Backend::Auto,
        Some("webgpu") => Backend::WebGpu,
        Some("webgl2") | Some("webgl") => Backend::WebGl2,
        Some(other) => {
            return Err(Error::Invalid(format!(
                "backend '{other}' is not one the page knows; use webgpu, webgl2 or auto"
            )));
        }
    };
    let pace = match get(params, "pace") {
        None => 0,
        Some(s) => s
            .parse::<u32>()
            .ok()
            .filter(|&p| p <= 5000)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "pace '{s}': give milliseconds per pass from 0 to 5000"
                ))
            })?,
    };
    let hold =
        match get(params, "hold") {
            None => None,
            Some(s) => Some(s.parse::<usize>().ok().filter(|&h| h >= 1).ok_or_else(|| {
                Error::Invalid(format!("hold '{s}': give a pass number from 1 up"))
            })?),
        };
    Ok(Request {
        method,
        m,
        k,
        n,
        precision,
        seed,
        block,
        backend,
        pace,
        hold,
        given,
    })
}

/// The inputs `rendermm multiply --random MxKxN --seed S` draws: A from seed 4S and B from
/// 4S + 1 (the CLI's one-channel seeds), uniform in [-1, 1); in u8 in [0, min(1, √(2/k))).
fn draw_like_the_cli(
    m: usize,
    k: usize,
    n: usize,
    seed: u64,
    precision: Precision,
) -> (Matrix, Matrix) {
    let (lo, hi) = if precision == Precision::U8 {
        (0.0, (2.0 / k.max(1) as f32).sqrt().min(1.0))
    } else {
        (-1.0, 1.0)
    };
    let s = seed.wrapping_mul(4);
    (
        Matrix::random(m, k, s, lo, hi),
        Matrix::random(k, n, s.wrapping_add(1), lo, hi),
    )
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
    let _busy = Busy::new();
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

/// The page's elements the run writes to.
#[derive(Clone)]
struct Page {
    document: web_sys::Document,
}

impl Page {
    fn find() -> Self {
        let document = web_sys::window()
            .and_then(|w| w.document())
            .expect("the page has a document");
        Page { document }
    }

    fn set_text(&self, id: &str, text: &str) {
        if let Some(e) = self.document.get_element_by_id(id) {
            e.set_text_content(Some(text));
        }
    }

    fn status(&self, text: &str) {
        self.set_text("status", text);
    }

    /// The 2D context of the canvas `#demo`, which shows the frames. Only ever a 2D context:
    /// the GPU draws offscreen, so one canvas serves every run on either backend.
    fn canvas2d(&self) -> Result<web_sys::CanvasRenderingContext2d> {
        let canvas: web_sys::HtmlCanvasElement = self
            .document
            .get_element_by_id("demo")
            .and_then(|c| c.dyn_into().ok())
            .ok_or_else(|| Error::Invalid("the page has no canvas #demo".into()))?;
        canvas.set_width(CANVAS.0);
        canvas.set_height(CANVAS.1);
        canvas
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into().ok())
            .ok_or_else(|| Error::Invalid("the page's canvas gave no 2D context".into()))
    }

    /// Mark the canvas with the pass it shows (for tests).
    fn mark(&self, pass: usize, passes: usize) {
        if let Some(c) = self.document.get_element_by_id("demo") {
            let _ = c.set_attribute("data-pass", &pass.to_string());
            let _ = c.set_attribute("data-passes", &passes.to_string());
        }
    }
}

/// A JS promise resolved after `ms` milliseconds.
async fn sleep(ms: u32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms as i32);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
}

/// Whether this browser has WebGPU and an adapter for it.
async fn webgpu_available() -> bool {
    wgpu::util::is_browser_webgpu_supported().await
}

/// The context opened on one backend, kept for the page's life: every run on that backend
/// reuses its device, its pipelines (`ctx.pipelines`) and the demo's renderer.
struct Gpu {
    ctx: Rc<GpuContext>,
    /// WebGL2 only: the surface of the (off-page) canvas whose WebGL2 context wgpu draws with.
    _surface: Option<wgpu::Surface<'static>>,
    backend: &'static str,
    /// The adapter's name as the page shows it.
    adapter: String,
    /// The demo's renderer, built the first time a frame is drawn.
    renderer: RefCell<Option<Renderer>>,
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
    /// The f64 reference of the last inputs: (A, B, A·B). The same inputs again (the same seed
    /// and shape, or the same pasted matrices) are not multiplied on the CPU again.
    static REFERENCE: RefCell<Option<(Matrix, Matrix, Rc<Vec<f64>>)>> = const { RefCell::new(None) };
    /// C of the last run that produced one, for the download links.
    static LAST_C: RefCell<Option<Matrix>> = const { RefCell::new(None) };
    /// Runs and replays under way: WebGL2's context is polled while this is not 0.
    static BUSY: Cell<usize> = const { Cell::new(0) };
}

/// Counts a run or a replay as under way while it lives.
struct Busy;

impl Busy {
    fn new() -> Self {
        BUSY.with(|b| b.set(b.get() + 1));
        Busy
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        BUSY.with(|b| b.set(b.get().saturating_sub(1)));
    }
}

/// The adapter's description from `navigator.gpu` (wgpu's WebGPU backend leaves the name empty;
/// browsers give vendor and architecture at most).
async fn webgpu_adapter_name() -> String {
    let fallback = "WebGPU adapter (the browser does not name it)".to_string();
    let Some(window) = web_sys::window() else {
        return fallback;
    };
    let get = |o: &JsValue, k: &str| js_sys::Reflect::get(o, &JsValue::from_str(k)).ok();
    let Some(gpu) = get(&window.navigator().into(), "gpu") else {
        return fallback;
    };
    let Some(request) =
        get(&gpu, "requestAdapter").and_then(|f| f.dyn_into::<js_sys::Function>().ok())
    else {
        return fallback;
    };
    let Ok(promise) = request
        .call0(&gpu)
        .and_then(|p| p.dyn_into::<js_sys::Promise>())
    else {
        return fallback;
    };
    let Ok(adapter) = wasm_bindgen_futures::JsFuture::from(promise).await else {
        return fallback;
    };
    let Some(info) = get(&adapter, "info") else {
        return fallback;
    };
    let parts: Vec<String> = ["vendor", "architecture", "device", "description"]
        .iter()
        .filter_map(|k| get(&info, k).and_then(|v| v.as_string()))
        .filter(|v| !v.is_empty())
        .collect();
    if parts.is_empty() {
        fallback
    } else {
        parts.join(" ")
    }
}

/// The context of the backend `req` asks for: the page's own if it has one, else opened now
/// (and kept). Also says whether it was opened by this call.
async fn gpu_for(req: &Request, page: &Page) -> Result<(Rc<Gpu>, bool)> {
    let webgpu = match req.backend {
        Backend::WebGl2 => false,
        Backend::WebGpu | Backend::Auto => {
            let has = match HAS_WEBGPU.with(|h| h.get()) {
                Some(h) => h,
                None => {
                    let h = webgpu_available().await;
                    HAS_WEBGPU.with(|c| c.set(Some(h)));
                    h
                }
            };
            if req.backend == Backend::WebGpu && !has {
                return Err(Error::Invalid(
                    "this browser offers no WebGPU adapter (backend=webgpu); drop the backend parameter to fall back to WebGL2".into(),
                ));
            }
            has
        }
    };
    let name = if webgpu { "webgpu" } else { "webgl2" };
    if let Some(g) = GPUS.with(|g| g.borrow().iter().find(|g| g.backend == name).cloned()) {
        return Ok((g, false));
    }
    let g = Rc::new(open(webgpu, page).await?);
    GPUS.with(|gs| gs.borrow_mut().push(g.clone()));
    CONTEXTS.with(|c| c.set(c.get() + 1));
    if !webgpu {
        keep_polling(g.ctx.clone());
    }
    Ok((g, true))
}

async fn open(webgpu: bool, page: &Page) -> Result<Gpu> {
    let backends = if webgpu {
        wgpu::Backends::BROWSER_WEBGPU
    } else {
        wgpu::Backends::GL
    };
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    // WebGL2: wgpu's GL adapter comes from a canvas's WebGL2 context; an off-page canvas of its
    // own, since frames reach the page as images (see `frame::Screen`).
    let surface = if webgpu {
        None
    } else {
        let gl_canvas: web_sys::HtmlCanvasElement = page
            .document
            .create_element("canvas")
            .ok()
            .and_then(|c| c.dyn_into().ok())
            .ok_or_else(|| Error::Invalid("could not make a canvas for WebGL2".into()))?;
        Some(
            instance
                .create_surface(wgpu::SurfaceTarget::Canvas(gl_canvas))
                .map_err(|e| Error::Invalid(format!("this browser gave no WebGL2 context: {e}")))?,
        )
    };
    let ctx = GpuContext::with_instance_async(instance, backends, surface.as_ref()).await?;
    let adapter = if ctx.info.name.is_empty() {
        webgpu_adapter_name().await
    } else {
        ctx.info.name.clone()
    };
    Ok(Gpu {
        ctx: Rc::new(ctx),
        _surface: surface,
        backend: if webgpu { "webgpu" } else { "webgl2" },
        adapter,
        renderer: RefCell::new(None),
    })
}

/// Poll the device while the page uses it on WebGL2: wgpu's GL backend completes its callbacks
/// (work done, buffers mapped) only when polled; WebGPU's browser does it itself. Polls every
/// 2 ms while a run, a replay or a frame is under way, and checks every 20 ms otherwise.
fn keep_polling(ctx: Rc<GpuContext>) {
    wasm_bindgen_futures::spawn_local(async move {
        loop {
            if BUSY.with(|b| b.get()) > 0 || frame::pending() > 0 {
                let _ = ctx.device.poll(wgpu::PollType::Poll);
                sleep(2).await;
            } else {
                sleep(20).await;
            }
        }
    });
}

/// Keeps the passes for the replay while the method runs: a GPU copy of the running sum after
/// each kept pass, nothing read back and nothing drawn (the replay draws them afterwards).
struct Capture {
    kind: Kind,
    /// (pass, running sums after it: [the one it wrote, the one before]).
    snapshots: Vec<(usize, [wgpu::Texture; 2])>,
    /// The running sum after the last pass seen (what the next pass of a ping-pong method reads).
    last: Option<wgpu::Texture>,
    passes: usize,
}

impl Observer for Capture {
    fn after_pass(
        &mut self,
        ctx: &GpuContext,
        pass: usize,
        passes: usize,
        acc: &MatrixTexture,
    ) -> Result<()> {
        self.passes = passes;
        // Keep every pass up to MAX_SNAPSHOTS (and SNAPSHOT_BYTES of GPU memory, two sums a pass
        // for a ping-pong method), else an even spread, the first and the last.
        let per_pass = if self.kind.ping_pong() { 2 } else { 1 };
        let bytes = (acc.rows * acc.cols) as u64 * acc.bytes_per_texel() as u64 * per_pass;
        let room = (SNAPSHOT_BYTES / bytes.max(1)).clamp(2, MAX_SNAPSHOTS as u64) as usize;
        let every = passes.div_ceil(room).max(1);
        let keep = pass.is_multiple_of(every) || pass == passes || pass == 1;
        // A frame shows the sum the pass read too: the one after the pass before a kept one.
        let before_kept = (pass + 1).is_multiple_of(every) || pass + 1 == passes;
        if !keep && !before_kept {
            self.last = None;
            return Ok(());
        }
        let snap = frame::snapshot_texture(ctx, acc)?;
        if keep {
            let before = match self.last.take() {
                Some(t) => t,
                None => frame::blank_like(ctx, acc)?,
            };
            self.snapshots.push((pass, [snap.clone(), before]));
        }
        self.last = Some(snap);
        Ok(())
    }
}

/// The demo's settings for a request: lm, hall or packed for the methods watched pass by
/// pass, else the method's result.
fn settings_for(req: &Request) -> Settings {
    Settings {
        kind: Kind::of(req.method),
        precision: req.precision,
        block: req.block,
        scale_by_depth: false,
    }
}

/// The block size the method runs with: the Hall methods' as the demos choose it (as asked, else
/// about 8 passes); frag-mrt keeps its own.
fn block_for(req: &Request) -> Option<u32> {
    let settings = settings_for(req);
    if settings.kind.ping_pong() {
        Some(settings.block_for(req.k))
    } else {
        req.block
    }
}

/// Mark the canvas with where the demo is: running, replay, held, done.
fn canvas_state(page: &Page, state: &str) {
    if let Some(c) = page.document.get_element_by_id("demo") {
        let _ = c.set_attribute("data-state", state);
    }
}

/// Milliseconds since `t`.
fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// The f64 reference of A·B: the cached one when A and B are the last run's, else computed now
/// (and cached). Also says whether it was cached.
fn reference_of(a: &Matrix, b: &Matrix) -> (Rc<Vec<f64>>, bool) {
    let same = |x: &Matrix, y: &Matrix| x.rows == y.rows && x.cols == y.cols && x.data == y.data;
    if let Some(r) = REFERENCE.with(|r| {
        r.borrow()
            .as_ref()
            .filter(|(ca, cb, _)| same(ca, a) && same(cb, b))
            .map(|(_, _, r)| r.clone())
    }) {
        return (r, true);
    }
    let r = Rc::new(cpu::reference_f64(a, b));
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
    canvas_state(page, "running");
    let ctx = gpu.ctx.clone();
    let (m, k, n) = (req.m, req.k, req.n);
    if gpu.backend == "webgl2" && !render_pass(req.method) {
        return Err(Error::Invalid(format!(
            "method {} is a compute shader, and WebGL2 has none; run it with WebGPU, or pick lm, hall-blocked, hall-packed, frag-mrt or frag-mrt-f16",
            req.method
        )));
    }
    // Inputs as `rendermm multiply --random MxKxN --seed S` draws them, or as given (mapped into
    // [0, 1] for u8 where they leave it, as the CLI's --normalize does, with a note saying so).
    let (names, seed) = match &req.given {
        Some((_, _, names)) => (names.clone(), None),
        None => (format!("seed {}", req.seed), Some(req.seed)),
    };
    let (a0, b0) = match &req.given {
        Some((a, b, _)) => (a.clone(), b.clone()),
        None => draw_like_the_cli(m, k, n, req.seed, req.precision),
    };
    let inputs = Inputs {
        a: a0,
        b: b0,
        source: Source::Files {
            a: names.clone(),
            b: names,
        },
    };
    let (a, b, input_notes) = inputs.for_precision(req.precision)?;
    let pipelines_before = ctx.pipelines.built();
    let shaders_before = ctx.pipelines.compiled();
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
    let out = {
        let opts = Options {
            precision: req.precision,
            block: block_for(req),
            ..Default::default()
        };
        let mut request = plan::Request::new(req.method, &a, &b).options(opts);
        // The passes are kept only for a replay (lm, hall and packed are watched pass by pass;
        // frag-mrt, C spread over several attachments, and the compute era show their result).
        // Without one the run is the plain multiply.
        // A product tiled past the adapter's limits has no single texture to watch: it runs
        // without a replay and shows its result.
        let max = ctx.limits.max_texture_dimension_2d as usize;
        let whole = m.max(k).max(n) <= max && (m * k * n) as u64 <= FULL_CHECK;
        if req.replays() && whole && !matches!(capture.kind, Kind::Result(_)) {
            request = request.observed(&mut capture);
        }
        plan::multiply_async(&ctx, request).await?
    };
    let method_ms = ms_since(method_started);
    let pipelines_built = ctx.pipelines.built();
    let shaders_compiled = ctx.pipelines.compiled();
    let used = out.precision();
    let reference_started = Instant::now();
    let full = (m as u64) * (k as u64) * (n as u64) <= FULL_CHECK;
    let (reference, reference_cached) = if full {
        let (r, cached) = reference_of(&a, &b);
        (Some(r), cached)
    } else {
        (None, false)
    };
    let reference_ms = ms_since(reference_started);
    let check_started = Instant::now();
    // Judged by the model of the pipeline that ran (the precision it used, its block size),
    // against the reference computed once for these inputs; past 2²⁷ multiply-adds on sampled
    // elements (each a 1×k · k×1 product the models and bounds take as they take the whole).
    let verdict = match &reference {
        Some(r) => check::judge_against(out.arith, &a, &b, &out.c, r),
        None => check::judge_sampled(out.arith, &a, &b, &out.c, check::SAMPLES, req.seed),
    };
    let check_ms = ms_since(check_started);
    let stats = &verdict.stats;
    let t = &out.timings;
    let mut result = json!({
        "method": req.method.name(),
        "m": m,
        "k": k,
        "n": n,
        "inputs": if seed.is_some() { "seed" } else { "given" },
        "backend": gpu.backend,
        "adapter": gpu.adapter,
        "passes": out.passes,
        "rel_err": stats.rel_err,
        "passed": verdict.passed,
        // How the product was tiled past the adapter's limits (null: whole), as `multiply --json`.
        "tiling": out.tiling,
        // "full", or how many sampled elements the judge checked (past 2²⁷ multiply-adds).
        "checked": if full { "full".to_string() } else { format!("{} sampled elements", check::SAMPLES) },
        "precision": used.name(),
        // The kernel that ran and what the judge held C to, as `multiply --json` names them.
        "kernel": out.kernel,
        "held": verdict.held,
        "tolerance": verdict.tolerance,
        // A warm page: one context per backend, and pipelines built (shaders compiled) once per
        // kind; the counts are the context's, the ones "by this run" what this multiply added.
        "contexts_created": CONTEXTS.with(|c| c.get()),
        "context_reused": !opened,
        "pipelines_built": pipelines_built,
        "pipelines_built_by_this_run": pipelines_built - pipelines_before,
        "shaders_compiled": shaders_compiled,
        "shaders_compiled_by_this_run": shaders_compiled - shaders_before,
        "reference_cached": reference_cached,
        // Milliseconds. setup, upload, compute, copy and readback are the method's own phases
        // (`multiply --json`'s timings); device is the compute phase's GPU time where the adapter
        // has timestamp queries (null elsewhere, and compute is the wall clock); context is
        // opening the device (0 once warm); method is the multiply call's wall time; reference
        // and check are the CPU's f64 product and the judge; total is the run up to this result.
        "times": {
            "context_ms": context_ms,
            "setup_ms": t.setup_ms,
            "upload_ms": t.upload_ms,
            "compute_ms": t.compute_ms,
            "device_ms": t.device_ms,
            "copy_ms": t.copy_ms,
            "readback_ms": t.readback_ms,
            "method_ms": method_ms,
            "reference_ms": reference_ms,
            "check_ms": check_ms,
            "total_ms": ms_since(started),
        },
    });
    if let Some(s) = seed {
        result["seed"] = json!(s);
    }
    // u8: how much of C saturated or rounded to 0 (names as in `multiply --json`), so a reader
    // of the result can tell a run that checked the 8-bit rounding from one that checked nothing.
    if let Some(share) = verdict.saturated_share {
        result["saturated_share"] = json!(share);
    }
    if let Some(zero) = verdict.u8_zero {
        result["u8_zero"] = json!(zero);
    }
    let mut lines = vec![format!(
        "{} {m}x{k}x{n} on {} ({}), {}{}: {} passes, relative error {:.2e} against the f64 CPU reference: {} ({})",
        req.method,
        gpu.adapter,
        gpu.backend,
        used.name(),
        if used != req.precision {
            " (fallback)"
        } else {
            ""
        },
        out.passes,
        stats.rel_err,
        if verdict.passed { "passed" } else { "FAILED" },
        verdict.tolerance
    )];
    lines.push(format!(
        "times: {}setup {:.1} ms, upload {:.1} ms, compute {:.1} ms{}, readback {:.1} ms; {:.1} ms in all{}",
        if opened {
            format!("opening the device {context_ms:.0} ms, ")
        } else {
            String::new()
        },
        t.setup_ms,
        t.upload_ms,
        t.compute_ms,
        t.device_ms
            .map(|d| format!(" ({d:.2} ms on the GPU)"))
            .unwrap_or_default(),
        t.readback_ms,
        ms_since(started),
        if reference_cached {
            " (the CPU reference of these inputs was at hand)"
        } else {
            ""
        }
    ));
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
        reference,
        c: out.c,
        passes: out.passes.max(1),
        capture,
        status: done_line(&verdict),
    };
    wasm_bindgen_futures::spawn_local(async move {
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

/// What the canvas shows of a finished run: its last pass (or its result), then the replay.
struct Show {
    gpu: Rc<Gpu>,
    page: Page,
    req: Request,
    id: u64,
    inputs: Inputs,
    /// The f64 product where the run was checked in full (the picture's C), else none.
    reference: Option<Rc<Vec<f64>>>,
    c: Matrix,
    passes: usize,
    capture: Capture,
    status: String,
}

impl Show {
    async fn run(mut self) -> Result<()> {
        let _busy = Busy::new();
        let current = |id: u64| LATEST.with(|l| l.get()) == id;
        let ctx = self.gpu.ctx.clone();
        // The picture's product: the f64 reference where there is one, else C itself (a large
        // product checked on sampled elements).
        let product = match &self.reference {
            Some(r) => Matrix {
                rows: self.req.m,
                cols: self.req.n,
                data: r.iter().map(|&v| v as f32).collect(),
            },
            None => self.c.clone(),
        };
        let scene = Scene::build(
            &ctx,
            &settings_for(&self.req),
            &self.inputs,
            self.req.precision,
            Some(&product),
        )?;
        let screen = frame::Screen {
            ctx: ctx.clone(),
            canvas2d: self.page.canvas2d()?,
            size: CANVAS,
        };
        let mut snapshots = std::mem::take(&mut self.capture.snapshots);
        let passes = if snapshots.is_empty() {
            // Not watched pass by pass (no replay, or frag-mrt and the compute era): C itself.
            let c = MatrixTexture::upload(&ctx, "page C", &self.c, ScalarFormat::R32Float)?;
            snapshots.push((self.passes, [c.texture.clone(), c.texture]));
            self.passes
        } else {
            self.capture.passes
        };
        let draw = |p: usize, sums: &[wgpu::Texture; 2]| -> Result<()> {
            let slot = scene.settings.kind.shown_slot(p);
            let mut shown = [&sums[1], &sums[1]];
            shown[slot] = &sums[0];
            let mut frame = scene.frame(shown, p, passes);
            if p >= passes {
                frame.status = Some(self.status.clone());
            }
            let mut renderer = self.gpu.renderer.borrow_mut();
            if renderer.is_none() {
                *renderer = Some(Renderer::new(&ctx)?);
            }
            let r = renderer.as_mut().expect("built above");
            screen.show(r, &frame)?;
            self.page.mark(p, passes);
            Ok(())
        };
        if !self.req.replays() {
            if let Some((p, sums)) = snapshots.last() {
                draw(*p, sums)?;
            }
            canvas_state(&self.page, "done");
            return Ok(());
        }
        // The replay: the kept passes, `pace` ms each, stopping at pass `hold` if given.
        let (pace, hold) = (self.req.pace, self.req.hold);
        for (p, sums) in &snapshots {
            if !current(self.id) || hold.is_some_and(|h| *p > h) {
                break;
            }
            draw(*p, sums)?;
            if hold == Some(*p) {
                // Let the frame reach the page before saying so.
                for _ in 0..500 {
                    if frame::pending() == 0 {
                        break;
                    }
                    sleep(10).await;
                }
                sleep(50).await;
                if current(self.id) {
                    canvas_state(&self.page, "held");
                }
                return Ok(());
            }
            sleep(pace.max(16)).await;
        }
        if current(self.id) {
            canvas_state(&self.page, "done");
        }
        Ok(())
    }
}
