//! rendermm in a web page. `run` multiplies through the library's own methods
//! (`rendermm::plan::multiply_async`: WebGPU, or WebGL2 through wgpu's GL backend), draws the
//! passes on the page's canvas as they accumulate with the renderer of `rendermm demo`
//! (`rendermm::demo`: its scene, layout, labels and `shaders/demo.wgsl`; frame.rs puts the
//! frames on the page), checks the product against the f64 CPU reference computed here, and
//! returns one JSON object for `<pre id="result">`. Every parameter is checked here, in Rust, so
//! the page and a test see the same one-sentence errors. See docs/web.md.

mod frame;

use rendermm::check;
use rendermm::cpu;
use rendermm::demo::render::Renderer;
use rendermm::demo::scene::{Scene, done_line};
use rendermm::demo::{Inputs, Kind, Settings};
use rendermm::error::{Error, Result};
use rendermm::gpu::texture::{MatrixTexture, ScalarFormat};
use rendermm::gpu::{GpuContext, run::Observer};
use rendermm::matrix::Matrix;
use rendermm::methods::{Era, Method};
use rendermm::plan::{self, Options};
use rendermm::precision::Precision;
use serde_json::{Value, json};
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// Products up to this many multiply-adds (m·k·n) run here: the f64 reference is computed in
/// the page, on one thread.
const MAX_WORK: u64 = 1 << 30;
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
    let (m, k, n) = parse_size(&get(params, "size").unwrap_or_else(|| "24x17x9".into()))?;
    let work = m as u64 * k as u64 * n as u64;
    if work > MAX_WORK {
        return Err(Error::Invalid(format!(
            "size {m}x{k}x{n} is {work} multiply-adds, more than the {MAX_WORK} the page checks against its CPU reference; take a smaller product"
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
    })
}

/// Run one multiply as `params` (a JS Map of the URL's or the form's strings) ask, drawing on
/// a fresh canvas that replaces the element `#demo`. Resolves to the JSON text for `#result`:
/// the result, or `{"error": "<sentence>"}`.
#[wasm_bindgen]
pub async fn run(params: js_sys::Map) -> String {
    let page = Page::find();
    page.status("running…");
    let out = match parse_request(&params) {
        Ok(req) => run_request(&req, &page).await,
        Err(e) => Err(e),
    };
    match out {
        Ok(v) => v.to_string(),
        Err(e) => json!({ "error": sentence(&e) }).to_string(),
    }
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

    /// A new canvas in place of `#demo` (a canvas keeps the first kind of context it gets, and
    /// each run may pick another backend).
    fn fresh_canvas(&self) -> Result<web_sys::HtmlCanvasElement> {
        let err = |_| Error::Invalid("the page has no canvas #demo".into());
        let old = self
            .document
            .get_element_by_id("demo")
            .ok_or_else(|| Error::Invalid("the page has no canvas #demo".into()))?;
        let canvas: web_sys::HtmlCanvasElement = self
            .document
            .create_element("canvas")
            .map_err(err)?
            .dyn_into()
            .map_err(|_| Error::Invalid("could not make a canvas".into()))?;
        canvas.set_id("demo");
        canvas.set_width(CANVAS.0);
        canvas.set_height(CANVAS.1);
        old.replace_with_with_node_1(&canvas).map_err(err)?;
        Ok(canvas)
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

/// The context opened on the chosen backend, and what the page shows of it.
struct Gpu {
    ctx: Rc<GpuContext>,
    /// WebGL2 only: the surface of the (off-page) canvas whose WebGL2 context wgpu draws with.
    _surface: Option<wgpu::Surface<'static>>,
    backend: &'static str,
    /// The adapter's name as the page shows it.
    adapter: String,
    /// The visible canvas's 2D context, which each frame is copied into.
    canvas2d: web_sys::CanvasRenderingContext2d,
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

async fn open(req: &Request, page: &Page) -> Result<Gpu> {
    let visible = page.fresh_canvas()?;
    let canvas2d: web_sys::CanvasRenderingContext2d = visible
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into().ok())
        .ok_or_else(|| Error::Invalid("the page's canvas gave no 2D context".into()))?;
    let webgpu = match req.backend {
        Backend::WebGl2 => false,
        Backend::WebGpu => {
            if !webgpu_available().await {
                return Err(Error::Invalid(
                    "this browser offers no WebGPU adapter (backend=webgpu); drop the backend parameter to fall back to WebGL2".into(),
                ));
            }
            true
        }
        Backend::Auto => webgpu_available().await,
    };
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
    // own, since frames reach the page as images (see `Canvas::draw`).
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
        canvas2d,
    })
}

/// Draws the demo's frames on the canvas and keeps the passes for the replay.
struct Canvas {
    /// The context and, on WebGL2, the surface its adapter came from, kept for the replay.
    _gpu: Rc<Gpu>,
    screen: frame::Screen,
    renderer: Renderer,
    /// The problem as `rendermm demo` shows it: inputs, their textures, colour scales.
    scene: Scene,
    page: Page,
    req: Request,
    /// Which run this is (a newer run stops this one's replay).
    id: u64,
    /// (pass, running sums after it: [the one it wrote, the one before]).
    snapshots: Vec<(usize, [wgpu::Texture; 2])>,
    /// The running sum after the last pass seen (what the next pass of a ping-pong method reads).
    last: Option<wgpu::Texture>,
    passes: usize,
    /// The bottom line of the last frame once the run is checked.
    status: Option<String>,
}

impl Canvas {
    /// Draw pass `pass` of `passes`: `sums` holds the running sum after it and the one before.
    fn draw(&mut self, pass: usize, passes: usize, sums: &[wgpu::Texture; 2]) -> Result<()> {
        // The written sum in the slot the demo shows it in; the one the pass read in the other.
        let slot = self.scene.settings.kind.shown_slot(pass);
        let mut shown = [&sums[1], &sums[1]];
        shown[slot] = &sums[0];
        let mut frame = self.scene.frame(shown, pass, passes);
        if pass >= passes {
            frame.status = self.status.clone();
        }
        self.screen.show(&mut self.renderer, &frame)?;
        self.page.mark(pass, passes);
        Ok(())
    }
}

impl Observer for Canvas {
    fn after_pass(
        &mut self,
        ctx: &GpuContext,
        pass: usize,
        passes: usize,
        acc: &MatrixTexture,
    ) -> Result<()> {
        self.passes = passes;
        let snap = frame::snapshot_texture(ctx, acc)?;
        let before = match self.last.take() {
            Some(t) => t,
            None => frame::blank_like(ctx, acc)?,
        };
        let sums = [snap.clone(), before];
        // Live frames are dropped while the page is still taking earlier ones (a long run on a
        // slow GPU would otherwise pile up readbacks); the last pass is always drawn after the run.
        if self.screen.pending.get() < 3 {
            self.draw(pass, passes, &sums)?;
        }
        // Keep every pass up to MAX_SNAPSHOTS (and SNAPSHOT_BYTES of GPU memory, two sums a pass
        // for a ping-pong method), else an even spread, the first and the last.
        let per_pass = if self.scene.settings.kind.ping_pong() {
            2
        } else {
            1
        };
        let bytes = (acc.rows * acc.cols) as u64 * acc.bytes_per_texel() as u64 * per_pass;
        let room = (SNAPSHOT_BYTES / bytes.max(1)).clamp(2, MAX_SNAPSHOTS as u64) as usize;
        let every = passes.div_ceil(room).max(1);
        if pass.is_multiple_of(every) || pass == passes || pass == 1 {
            self.snapshots.push((pass, sums));
        }
        self.last = Some(snap);
        Ok(())
    }
}

/// Poll the device while the page uses it on WebGL2: wgpu's GL backend completes its callbacks
/// (work done, buffers mapped) only when polled; WebGPU's browser does it itself. Stops when
/// the run and its replay have let go of the context.
fn keep_polling(ctx: Rc<GpuContext>) {
    wasm_bindgen_futures::spawn_local(async move {
        while Rc::strong_count(&ctx) > 1 {
            let _ = ctx.device.poll(wgpu::PollType::Poll);
            sleep(2).await;
        }
    });
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

thread_local! {
    /// The latest run's number: a replay stops once another run has started.
    static LATEST: Cell<u64> = const { Cell::new(0) };
}

/// Mark the canvas with where the demo is: running, replay, held, done.
fn canvas_state(page: &Page, state: &str) {
    if let Some(c) = page.document.get_element_by_id("demo") {
        let _ = c.set_attribute("data-state", state);
    }
}

async fn run_request(req: &Request, page: &Page) -> Result<Value> {
    let id = LATEST.with(|l| {
        l.set(l.get() + 1);
        l.get()
    });
    let gpu = Rc::new(open(req, page).await?);
    canvas_state(page, "running");
    let ctx = gpu.ctx.clone();
    let (m, k, n) = (req.m, req.k, req.n);
    let max = ctx.limits.max_texture_dimension_2d as usize;
    for (name, v) in [("m", m), ("k", k), ("n", n)] {
        if v > max {
            return Err(Error::Invalid(format!(
                "size {m}x{k}x{n}: {name} = {v} is past this adapter's largest texture side, {max} ({}, {})",
                gpu.adapter, gpu.backend
            )));
        }
    }
    if gpu.backend == "webgl2" && !render_pass(req.method) {
        return Err(Error::Invalid(format!(
            "method {} is a compute shader, and WebGL2 has none; run it with WebGPU, or pick lm, hall-blocked, hall-packed, frag-mrt or frag-mrt-f16",
            req.method
        )));
    }
    // Inputs as `rendermm multiply --random MxKxN --seed S` draws them: in [0, 1) for u8.
    let inputs = Inputs::draw(m, k, n, req.seed, req.precision);
    let (a, b) = (inputs.a.clone(), inputs.b.clone());
    let reference = cpu::reference_f64(&a, &b);
    let product = Matrix {
        rows: m,
        cols: n,
        data: reference.iter().map(|&v| v as f32).collect(),
    };
    let scene = Scene::build(
        &ctx,
        &settings_for(req),
        &inputs,
        req.precision,
        Some(&product),
    )?;
    let mut canvas = Canvas {
        _gpu: gpu.clone(),
        screen: frame::Screen {
            ctx: ctx.clone(),
            canvas2d: gpu.canvas2d.clone(),
            size: CANVAS,
            pending: Rc::new(Cell::new(0)),
        },
        renderer: Renderer::new(&ctx)?,
        scene,
        page: page.clone(),
        req: req.clone(),
        id,
        snapshots: vec![],
        last: None,
        passes: 0,
        status: None,
    };
    page.status(&format!(
        "running {} on {} ({})…",
        req.method, gpu.adapter, gpu.backend
    ));
    if gpu.backend == "webgl2" {
        keep_polling(ctx.clone());
    }
    let out = {
        let opts = Options {
            precision: req.precision,
            block: block_for(req),
            ..Default::default()
        };
        let mut request = plan::Request::new(req.method, &a, &b).options(opts);
        // The methods with one accumulation texture are watched pass by pass (the demos lm,
        // hall and packed); frag-mrt (C spread over several attachments) and the compute era
        // show their result.
        if !matches!(Kind::of(req.method), Kind::Result(_)) {
            request = request.observed(&mut canvas);
        }
        plan::multiply_async(&ctx, request).await?
    };
    let used = out.precision();
    // Methods not watched pass by pass (frag-mrt, the compute era) show their result.
    if canvas.snapshots.is_empty() {
        let c = MatrixTexture::upload(&ctx, "page C", &out.c, ScalarFormat::R32Float)?;
        canvas.passes = out.passes.max(1);
        canvas
            .snapshots
            .push((canvas.passes, [c.texture.clone(), c.texture]));
    }
    let stats = check::compare(&out.c, &reference);
    // Judged by the model of the pipeline that ran (the precision it used, its block size).
    let verdict = out.verdict(&a, &b);
    canvas.status = Some(done_line(&verdict));
    let mut result = json!({
        "method": req.method.name(),
        "m": m,
        "k": k,
        "n": n,
        "backend": gpu.backend,
        "adapter": gpu.adapter,
        "passes": out.passes,
        "rel_err": stats.rel_err,
        "passed": verdict.passed,
        "precision": used.name(),
        // The kernel that ran and what the judge held C to, as `multiply --json` names them.
        "kernel": out.kernel,
        "held": verdict.held,
        "tolerance": verdict.tolerance,
    });
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
    lines.extend(out.notes.iter().map(|n| format!("note: {n}")));
    page.status(&lines.join("\n"));
    // The last pass, then the replay in a task of its own: the result is published now.
    if let Some((p, sums)) = canvas.snapshots.last().cloned() {
        canvas.draw(p, canvas.passes, &sums)?;
    }
    if req.pace > 0 || req.hold.is_some() {
        canvas_state(page, "replay");
        wasm_bindgen_futures::spawn_local(replay(canvas));
    } else {
        canvas_state(page, "done");
    }
    Ok(result)
}

/// Show the kept passes again, `pace` ms each, stopping at pass `hold` if given.
async fn replay(mut canvas: Canvas) {
    let (pace, hold) = (canvas.req.pace, canvas.req.hold);
    let id = canvas.id;
    let current = || LATEST.with(|l| l.get()) == id;
    let snapshots = std::mem::take(&mut canvas.snapshots);
    for (p, sums) in &snapshots {
        if !current() || hold.is_some_and(|h| *p > h) {
            break;
        }
        if canvas.draw(*p, canvas.passes, sums).is_err() {
            return;
        }
        if hold == Some(*p) {
            // Let the frame reach the page before saying so.
            for _ in 0..500 {
                if canvas.screen.pending.get() == 0 {
                    break;
                }
                sleep(10).await;
            }
            sleep(50).await;
            if current() {
                canvas_state(&canvas.page, "held");
            }
            return;
        }
        sleep(pace.max(16)).await;
    }
    if current() {
        canvas_state(&canvas.page, "done");
    }
}
