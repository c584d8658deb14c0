//! The contexts the page opens, one per backend for its whole life (the page is warm: a second
//! run reuses the device, its cached pipelines and the demo's renderer), and what keeps WebGL2's
//! context polled while work is under way.

use super::*;

/// Whether this browser has WebGPU and an adapter for it.
pub(crate) async fn webgpu_available() -> bool {
    wgpu::util::is_browser_webgpu_supported().await
}

/// The context opened on one backend, kept for the page's life: every run on that backend
/// reuses its device, its pipelines (`ctx.pipelines`) and the demo's renderer.
pub(crate) struct Gpu {
    pub(crate) ctx: Rc<GpuContext>,
    /// WebGL2 only: the surface of the (off-page) canvas whose WebGL2 context wgpu draws with.
    pub(crate) _surface: Option<wgpu::Surface<'static>>,
    pub(crate) backend: &'static str,
    /// The adapter's name as the page shows it.
    pub(crate) adapter: String,
    /// The demo's renderer, built the first time a frame is drawn.
    pub(crate) renderer: RefCell<Option<Renderer>>,
}

/// Counts a run or a replay as under way while it lives.
pub(crate) struct Busy {
    run: bool,
}

impl Busy {
    /// A product under way: WebGL2's poller looks at every turn of the event loop for a while
    /// ([`keep_polling`]), and starts now.
    pub(crate) fn run() -> Self {
        BUSY.with(|b| b.set(b.get() + 1));
        RUNNING.with(|r| r.set(r.get() + 1));
        wake_poller();
        Busy { run: true }
    }

    /// A replay or a frame under way: polled every few milliseconds.
    pub(crate) fn show() -> Self {
        BUSY.with(|b| b.set(b.get() + 1));
        Busy { run: false }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        BUSY.with(|b| b.set(b.get().saturating_sub(1)));
        if self.run {
            RUNNING.with(|r| r.set(r.get().saturating_sub(1)));
        }
    }
}

thread_local! {
    /// Products under way (a subset of BUSY): the poller looks at every turn while one waits.
    static RUNNING: Cell<usize> = const { Cell::new(0) };
    /// Until when the poller looks at every turn of the event loop rather than every 4 ms.
    static SPIN_UNTIL: Cell<Option<Instant>> = const { Cell::new(None) };
    /// The resolve function of the idle poller's sleep, to wake it early.
    static IDLE: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
}

/// How long, after a product starts or submits new work, WebGL2's poller looks at every turn
/// of the event loop (a message, microseconds) before falling back to timers (4 ms each once
/// nested): small products finish within it, and long GPU work does not keep the page's
/// thread busy beside a software rasterizer.
const SPIN: std::time::Duration = std::time::Duration::from_millis(30);

/// Start looking at every turn now, and wake the poller if it sleeps.
fn wake_poller() {
    SPIN_UNTIL.with(|s| s.set(Some(Instant::now() + SPIN)));
    if let Some(resolve) = IDLE.with(|i| i.borrow_mut().take()) {
        let _ = resolve.call0(&JsValue::NULL);
    }
}

/// The adapter's description from `navigator.gpu` (wgpu's WebGPU backend leaves the name empty;
/// browsers give vendor and architecture at most).
pub(crate) async fn webgpu_adapter_name() -> String {
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
pub(crate) async fn gpu_for(req: &Request, page: &Page) -> Result<(Rc<Gpu>, bool)> {
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

pub(crate) async fn open(webgpu: bool, page: &Page) -> Result<Gpu> {
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
/// (work done, buffers mapped) only when polled, and the browser updates a WebGL fence only
/// between tasks; WebGPU's browser does it itself. While a product is under way the poller
/// looks at every turn of the event loop for [`SPIN`] after the product starts and after the
/// queue takes new work, then every 2 ms (4 ms, as timers nest); during a replay or a frame
/// every 2 ms; otherwise it sleeps until a product wakes it, or 20 ms.
pub(crate) fn keep_polling(ctx: Rc<GpuContext>) {
    wasm_bindgen_futures::spawn_local(async move {
        let mut was_empty = true;
        loop {
            if BUSY.with(|b| b.get()) > 0 || frame::pending() > 0 {
                let empty = ctx
                    .device
                    .poll(wgpu::PollType::Poll)
                    .is_ok_and(|s| s.is_queue_empty());
                if was_empty && !empty {
                    SPIN_UNTIL.with(|s| s.set(Some(Instant::now() + SPIN)));
                }
                was_empty = empty;
                let spin = RUNNING.with(|r| r.get()) > 0
                    && SPIN_UNTIL
                        .with(|s| s.get())
                        .is_some_and(|t| Instant::now() < t);
                if spin {
                    next_turn().await;
                } else {
                    sleep(2).await;
                }
            } else {
                was_empty = true;
                idle(20).await;
            }
        }
    });
}

/// Sleep `ms` milliseconds, or until [`wake_poller`] is called.
async fn idle(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
        IDLE.with(|i| *i.borrow_mut() = Some(resolve));
    });
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
    IDLE.with(|i| i.borrow_mut().take());
}
