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
pub(crate) struct Busy;

impl Busy {
    pub(crate) fn new() -> Self {
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
/// (work done, buffers mapped) only when polled; WebGPU's browser does it itself. Polls every
/// 2 ms while a run, a replay or a frame is under way, and checks every 20 ms otherwise.
pub(crate) fn keep_polling(ctx: Rc<GpuContext>) {
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
