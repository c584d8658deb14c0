//! A headless wgpu adapter and device, chosen the way wgpu's own tools choose them
//! (`WGPU_BACKEND`, `WGPU_ADAPTER_NAME`), preferring Vulkan, with the adapter's real limits.

use super::loop_cap::StageLoops;
use crate::error::{Error, Result};
use serde::Serialize;
#[cfg(not(target_arch = "wasm32"))]
use std::future::Future;
use std::sync::{Arc, Mutex};

/// What the report says about the adapter.
#[derive(Clone, Debug, Serialize)]
pub struct AdapterSummary {
    pub name: String,
    pub backend: String,
    pub driver: String,
    pub driver_info: String,
    pub device_type: String,
}

/// The shared GPU state. `Device` and `Queue` are `Send + Sync`, so one context may be shared
/// across threads (error scopes are per thread in wgpu 30).
pub struct GpuContext {
    pub instance: wgpu::Instance,
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub features: wgpu::Features,
    pub limits: wgpu::Limits,
    /// Set by the device-lost callback; checked after each wait.
    lost: Arc<Mutex<Option<String>>>,
    /// Errors that escaped every error scope (wgpu's default would panic), with the thread they
    /// happened on: wgpu reports an error on the thread that made the call, and each thread
    /// collects only its own, so one thread's fault never fails another's run.
    uncaptured: Arc<Mutex<Vec<(std::thread::ThreadId, String)>>>,
    /// Staging buffers kept between uploads and readbacks, and the poison source.
    pub staging: super::pools::Staging,
    /// The driver's shader loop caps, each stage measured when first needed
    /// ([`GpuContext::stage_loops`]): compute, fragment.
    pub(super) loops: Mutex<[Option<StageLoops>; 2]>,
    /// Every pipeline built on this device, kept for the next product of its kind.
    pub pipelines: super::cache::PipelineCache,
}

/// Features we ask for when the adapter offers them.
fn wanted_features() -> wgpu::Features {
    // With TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES, textures are validated against what the
    // adapter's own formats can do (float colour buffers and blending on OpenGL) rather than
    // the downlevel defaults; see [`GpuContext::format_features`].
    wgpu::Features::TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES
        | wgpu::Features::FLOAT32_BLENDABLE
        | wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
        | wgpu::Features::SHADER_F16
        | wgpu::Features::SUBGROUP
        | wgpu::Features::SUBGROUP_BARRIER
        | wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX
        // R16Unorm / Rgba16Unorm: the 16-bit sum of `--u8-sum-bits 16` (L-M §4).
        | wgpu::Features::TEXTURE_FORMAT_16BIT_NORM
}

/// The report of `rendermm info --json` ([`GpuContext::info_report`]).
#[derive(Clone, Debug, Serialize)]
pub struct InfoReport {
    pub adapter: AdapterSummary,
    pub features: std::collections::BTreeMap<&'static str, bool>,
    pub limits: std::collections::BTreeMap<&'static str, u64>,
    pub loop_cap: super::loop_cap::LoopCap,
}

/// What one adapter offers that matters to rendermm (`rendermm info --all`).
#[derive(Clone, Debug, Serialize)]
pub struct AdapterCapabilities {
    pub name: String,
    pub backend: String,
    pub driver: String,
    pub device_type: String,
    /// Render passes can draw into `R32Float` / `Rgba32Float` (Hall, frag-mrt in f32).
    pub render_f32: bool,
    /// ... and blend into them (L-M in f32, `--accumulate blend`).
    pub blend_f32: bool,
    /// Compute shaders (the compute era, cs-fast, coop).
    pub compute: bool,
    pub timestamps: bool,
    pub subgroups: bool,
    pub shader_f16: bool,
    pub cooperative_matrix: bool,
    pub max_texture_dimension_2d: u32,
}

/// Every adapter of every backend wgpu offers on this machine, with its capabilities, in the
/// order rendermm would prefer them.
pub async fn survey() -> Vec<AdapterCapabilities> {
    let desc = wgpu::InstanceDescriptor {
        backends: wgpu::Backends::all(),
        ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
    };
    let instance = wgpu::Instance::new(desc);
    let mut adapters = instance.enumerate_adapters(wgpu::Backends::all()).await;
    adapters.sort_by_key(|a| backend_rank(a.get_info().backend));
    adapters
        .iter()
        .map(|a| {
            let info = a.get_info();
            let features = a.features();
            let ff = |f: wgpu::TextureFormat| {
                if features.contains(wgpu::Features::TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES) {
                    a.get_texture_format_features(f)
                } else {
                    f.guaranteed_format_features(features)
                }
            };
            let formats = [
                wgpu::TextureFormat::R32Float,
                wgpu::TextureFormat::Rgba32Float,
            ];
            let render = formats.iter().all(|&f| {
                ff(f)
                    .allowed_usages
                    .contains(wgpu::TextureUsages::RENDER_ATTACHMENT)
            });
            let blend = render
                && formats.iter().all(|&f| {
                    ff(f)
                        .flags
                        .contains(wgpu::TextureFormatFeatureFlags::BLENDABLE)
                });
            AdapterCapabilities {
                name: info.name.clone(),
                backend: format!("{:?}", info.backend),
                driver: format!("{} {}", info.driver, info.driver_info)
                    .trim()
                    .to_string(),
                device_type: format!("{:?}", info.device_type),
                render_f32: render,
                blend_f32: blend,
                compute: a
                    .get_downlevel_capabilities()
                    .flags
                    .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS),
                timestamps: features.contains(wgpu::Features::TIMESTAMP_QUERY),
                subgroups: features.contains(wgpu::Features::SUBGROUP),
                shader_f16: features.contains(wgpu::Features::SHADER_F16),
                cooperative_matrix: features
                    .contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX),
                max_texture_dimension_2d: a.limits().max_texture_dimension_2d,
            }
        })
        .collect()
}

/// Mesa's desktop OpenGL core profile renders and blends into 32-bit float colour buffers (core
/// since OpenGL 3.0) but does not list `GL_ARB_color_buffer_float`, the extension string wgpu's
/// GL backend looks for; without it wgpu refuses R32Float and Rgba32Float render targets there.
/// This environment setting asks Mesa to list it (other drivers ignore it). The command line
/// sets it at start-up, before any thread or driver runs, where it is not already set.
pub const MESA_FLOAT_COLOR_BUFFERS: (&str, &str) =
    ("MESA_EXTENSION_OVERRIDE", "+GL_ARB_color_buffer_float");

/// The names `WGPU_BACKEND` may list (comma separated, any case), as wgpu reads them.
const BACKEND_NAMES: [&str; 11] = [
    "vulkan", "vk", "gl", "opengl", "gles", "metal", "mtl", "dx12", "d3d12", "webgpu", "noop",
];

/// Refuse a `WGPU_BACKEND` that names something other than a backend: wgpu skips such a name
/// with only a log warning, and with no backend left finds no adapter, which would be reported
/// as a missing driver.
fn check_backend_env() -> Result<()> {
    let Ok(list) = std::env::var("WGPU_BACKEND") else {
        return Ok(());
    };
    for name in list.split(',').map(str::trim) {
        if !BACKEND_NAMES.contains(&name.to_lowercase().as_str()) {
            return Err(Error::Invalid(format!(
                "WGPU_BACKEND='{list}': '{name}' is not a backend; the backends are {} (comma separated, any case)",
                BACKEND_NAMES.join(", ")
            )));
        }
    }
    Ok(())
}

fn backend_rank(b: wgpu::Backend) -> u32 {
    match b {
        wgpu::Backend::Vulkan => 0,
        wgpu::Backend::Metal => 1,
        wgpu::Backend::Dx12 => 2,
        wgpu::Backend::Gl => 3,
        _ => 4,
    }
}

impl GpuContext {
    /// Open the default adapter (blocking).
    pub fn new() -> Result<Self> {
        pollster::block_on(Self::new_async())
    }

    /// Open the default adapter: `WGPU_BACKEND` limits the backends, `WGPU_ADAPTER_NAME` picks by
    /// a substring of the name, otherwise Vulkan is preferred over other backends and a real GPU
    /// over a software one.
    pub async fn new_async() -> Result<Self> {
        // Backends and flags from WGPU_BACKEND, WGPU_VALIDATION, ... as wgpu's tools read them.
        check_backend_env()?;
        let desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        let backends = desc.backends;
        Self::with_instance_async(wgpu::Instance::new(desc), backends, None).await
    }

    /// Open an adapter of `instance` (blocking); see [`GpuContext::with_instance_async`].
    pub fn with_instance(
        instance: wgpu::Instance,
        backends: wgpu::Backends,
        compatible_surface: Option<&wgpu::Surface<'_>>,
    ) -> Result<Self> {
        pollster::block_on(Self::with_instance_async(
            instance,
            backends,
            compatible_surface,
        ))
    }

    /// Open an adapter of a caller-made `instance` among `backends`, chosen as in
    /// [`GpuContext::new_async`]; with `compatible_surface`, only adapters that can present to it.
    /// The demo window needs this: its instance must know the display (winit's display handle).
    pub async fn with_instance_async(
        instance: wgpu::Instance,
        backends: wgpu::Backends,
        compatible_surface: Option<&wgpu::Surface<'_>>,
    ) -> Result<Self> {
        #[cfg(not(target_arch = "wasm32"))]
        let adapters = instance.enumerate_adapters(backends).await;
        // In a browser there is one adapter to ask for: WebGPU's, or WebGL2's, which wgpu makes
        // from the canvas's context (its enumeration lists no GL adapter without a surface).
        #[cfg(target_arch = "wasm32")]
        let adapters: Vec<wgpu::Adapter> = {
            let _ = backends;
            let options = wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                compatible_surface,
                ..Default::default()
            };
            instance
                .request_adapter(&options)
                .await
                .into_iter()
                .collect()
        };
        let adapter = choose_adapter(adapters, compatible_surface)?;
        let info = adapter.get_info();
        let (device, queue, features, limits) = open_device(&adapter, &info).await?;
        let lost = Arc::new(Mutex::new(None));
        let lost2 = lost.clone();
        device.set_device_lost_callback(move |reason, msg| {
            *relock(&lost2) = Some(format!("{reason:?}: {msg}"));
        });
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        let unc2 = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            relock(&unc2).push((std::thread::current().id(), e.to_string()));
        }));
        let ctx = Self {
            instance,
            adapter,
            device,
            queue,
            info,
            features,
            limits,
            lost,
            uncaptured,
            staging: Default::default(),
            loops: Mutex::new([None, None]),
            pipelines: Default::default(),
        };
        // WebGL2 in a browser warns on every reuse of a read-back buffer: take a new one each time.
        if cfg!(target_arch = "wasm32") && ctx.info.backend == wgpu::Backend::Gl {
            ctx.staging.read_once();
        }
        if let Some(note) = ctx.fallback_note() {
            static ONCE: std::sync::Once = std::sync::Once::new();
            ONCE.call_once(|| eprintln!("note: {note}"));
        }
        Ok(ctx)
    }

    /// Why the adapter is an OpenGL one when nobody asked for OpenGL: wgpu found no Vulkan
    /// driver and fell back (said once on stderr when a context opens).
    pub fn fallback_note(&self) -> Option<String> {
        let asked =
            std::env::var("WGPU_BACKEND").is_ok() || std::env::var("WGPU_ADAPTER_NAME").is_ok();
        (self.info.backend == wgpu::Backend::Gl && !asked).then(|| {
            format!(
                "no Vulkan adapter found, running on OpenGL ({}); for Vulkan on a machine without a GPU install lavapipe: apt-get install mesa-vulkan-drivers libvulkan1",
                self.info.name
            )
        })
    }

    /// What `format` can do on this device: the adapter's own answer where the device has
    /// `TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES`, else what WebGPU guarantees.
    pub fn format_features(&self, format: wgpu::TextureFormat) -> wgpu::TextureFormatFeatures {
        if self.has(wgpu::Features::TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES) {
            self.adapter.get_texture_format_features(format)
        } else {
            format.guaranteed_format_features(self.features)
        }
    }

    /// Whether a pass can render into `format` (and, with `blend`, blend into it).
    pub fn can_render(&self, format: wgpu::TextureFormat, blend: bool) -> bool {
        let f = self.format_features(format);
        f.allowed_usages
            .contains(wgpu::TextureUsages::RENDER_ATTACHMENT)
            && (!blend || f.flags.contains(wgpu::TextureFormatFeatureFlags::BLENDABLE))
    }

    /// One clear error unless a pass of `method` can render (and with `blend`, blend) into
    /// `format` here; `hint` says what to do instead.
    pub fn require_render(
        &self,
        method: &str,
        format: wgpu::TextureFormat,
        blend: bool,
        hint: &str,
    ) -> Result<()> {
        if self.can_render(format, blend) {
            return Ok(());
        }
        Err(Error::FormatCapability {
            adapter: self.info.name.clone(),
            backend: format!("{:?}", self.info.backend),
            method: method.to_string(),
            format: format!("{format:?}"),
            capability: if blend && self.can_render(format, false) {
                "blending into"
            } else {
                "rendering into"
            },
            hint: hint.to_string(),
        })
    }

    /// Name, backend and driver of the chosen adapter.
    pub fn summary(&self) -> AdapterSummary {
        AdapterSummary {
            name: self.info.name.clone(),
            backend: format!("{:?}", self.info.backend),
            driver: self.info.driver.clone(),
            driver_info: self.info.driver_info.clone(),
            device_type: format!("{:?}", self.info.device_type),
        }
    }

    /// One line for the terminal: `adapter: NAME (Vulkan, driver ...)`.
    pub fn describe(&self) -> String {
        let s = self.summary();
        format!("{} ({}, {} {})", s.name, s.backend, s.driver, s.driver_info)
    }

    /// Whether the device has `f`.
    pub fn has(&self, f: wgpu::Features) -> bool {
        self.features.contains(f)
    }

    /// The features that decide what rendermm runs here, by name, and whether the device has
    /// each (`rendermm info`, the Python binding's `info()`).
    pub fn key_features(&self) -> [(&'static str, bool); 4] {
        [
            ("FLOAT32_BLENDABLE", wgpu::Features::FLOAT32_BLENDABLE),
            ("TIMESTAMP_QUERY", wgpu::Features::TIMESTAMP_QUERY),
            ("SHADER_F16", wgpu::Features::SHADER_F16),
            ("SUBGROUP", wgpu::Features::SUBGROUP),
        ]
        .map(|(name, f)| (name, self.has(f)))
    }

    /// The limits that decide which products run whole here, by wgpu's names (`rendermm info`,
    /// the Python binding's `info()`).
    pub fn key_limits(&self) -> [(&'static str, u64); 8] {
        let l = &self.limits;
        [
            (
                "max_texture_dimension_2d",
                l.max_texture_dimension_2d as u64,
            ),
            ("max_color_attachments", l.max_color_attachments as u64),
            (
                "max_color_attachment_bytes_per_sample",
                l.max_color_attachment_bytes_per_sample as u64,
            ),
            (
                "max_storage_buffer_binding_size",
                l.max_storage_buffer_binding_size,
            ),
            ("max_buffer_size", l.max_buffer_size),
            (
                "max_compute_workgroup_size_x",
                l.max_compute_workgroup_size_x as u64,
            ),
            (
                "max_compute_invocations_per_workgroup",
                l.max_compute_invocations_per_workgroup as u64,
            ),
            (
                "max_compute_workgroup_storage_size",
                l.max_compute_workgroup_storage_size as u64,
            ),
        ]
    }

    /// Whether storage buffers are created mappable (`MAP_READ`), so that results are read
    /// straight from them: on CPU adapters whose device has `MAPPABLE_PRIMARY_BUFFERS`.
    pub fn maps_storage(&self) -> bool {
        self.has(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS)
    }

    /// Error naming the missing feature unless the device has it.
    pub fn require(&self, f: wgpu::Features, name: &'static str, needed_for: &str) -> Result<()> {
        if self.has(f) {
            Ok(())
        } else {
            Err(Error::MissingFeature {
                adapter: self.info.name.clone(),
                feature: name,
                needed_for: needed_for.to_string(),
            })
        }
    }

    /// Error naming the limit if `value` exceeds `max_texture_dimension_2d`.
    pub fn check_texture_dim(&self, what: &str, value: usize) -> Result<()> {
        let max = self.limits.max_texture_dimension_2d as usize;
        if value > max {
            return Err(Error::Limit {
                what: what.to_string(),
                value: value as u64,
                limit: "max_texture_dimension_2d",
                max: max as u64,
            });
        }
        Ok(())
    }

    /// Run `f`; in a browser nothing may wait for an error scope to pop, so an error wgpu
    /// reports reaches [`GpuContext::check_lost`] through the uncaptured-error handler instead.
    #[cfg(target_arch = "wasm32")]
    pub fn scoped<T>(&self, during: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let out = f();
        self.after_scope(during)?;
        out
    }

    /// What [`GpuContext::scoped`] checks after `f`, apart from it so that its many callers
    /// share one copy (the page's download carries each generic copy).
    #[cfg(target_arch = "wasm32")]
    #[inline(never)]
    fn after_scope(&self, during: &str) -> Result<()> {
        self.check_lost().map_err(|e| match e {
            Error::Wgpu { kind, message, .. } => Error::Wgpu {
                kind,
                during: during.to_string(),
                message,
            },
            Error::DeviceLost(m) => Error::DeviceLost(format!("{m} (during {during})")),
            e => e,
        })
    }

    /// Run `f` inside validation, out-of-memory and internal error scopes; any error wgpu reports
    /// while it runs becomes an [`Error::Wgpu`] naming `during`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn scoped<T>(&self, during: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let scopes = [
            self.device.push_error_scope(wgpu::ErrorFilter::Internal),
            self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory),
            self.device.push_error_scope(wgpu::ErrorFilter::Validation),
        ];
        let out = f();
        self.after_scope(during, scopes)?;
        out
    }

    /// What [`GpuContext::scoped`] checks after `f`: the scopes popped (innermost first), apart
    /// from it so that its many callers share one copy.
    #[cfg(not(target_arch = "wasm32"))]
    #[inline(never)]
    fn after_scope(
        &self,
        during: &str,
        [internal, oom, validation]: [wgpu::ErrorScopeGuard; 3],
    ) -> Result<()> {
        let v = block(validation.pop());
        let o = block(oom.pop());
        let i = block(internal.pop());
        // On a lost device every call fails validation; the loss is what happened. After
        // `Device::destroy` wgpu calls the lost callback only once a poll has waited for the
        // queue (a plain poll may return before it), so wait before looking, whenever a scope
        // caught something: on a healthy device that costs only the error path a wait for the
        // work already submitted.
        if v.is_some() || o.is_some() || i.is_some() {
            let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
        }
        if let Some(msg) = relock(&self.lost).clone() {
            return Err(Error::DeviceLost(format!("{msg} (during {during})")));
        }
        for (kind, e) in [("validation", v), ("out-of-memory", o), ("internal", i)] {
            if let Some(e) = e {
                return Err(Error::Wgpu {
                    kind,
                    during: during.to_string(),
                    message: flatten(&e.to_string()),
                });
            }
        }
        self.check_lost()
    }

    /// Wait for all submitted work; error if the device was lost meanwhile.
    pub fn wait(&self) -> Result<()> {
        let r = self.device.poll(wgpu::PollType::wait_indefinitely());
        self.check_lost()?;
        r.map(|_| ()).map_err(|e| Error::DeviceLost(e.to_string()))
    }

    /// Error if the device-lost callback fired, or if an error on this thread escaped every scope.
    pub fn check_lost(&self) -> Result<()> {
        if let Some(msg) = relock(&self.lost).clone() {
            return Err(Error::DeviceLost(msg));
        }
        let mine = {
            let mut list = relock(&self.uncaptured);
            let me = std::thread::current().id();
            list.iter()
                .position(|(t, _)| *t == me)
                .map(|i| list.remove(i).1)
        };
        if let Some(e) = mine {
            return Err(Error::Wgpu {
                kind: "uncaptured",
                during: "GPU work".into(),
                message: flatten(&e),
            });
        }
        Ok(())
    }

    /// Load WGSL source as a shader module, inside an error scope so a bad shader is an error.
    pub fn shader(&self, label: &str, source: &str) -> Result<wgpu::ShaderModule> {
        self.pipelines.note_compiled();
        self.scoped(&format!("compiling shader {label}"), || {
            Ok(self
                .device
                .create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(label),
                    source: wgpu::ShaderSource::Wgsl(source.into()),
                }))
        })
    }

    /// Compile `source` with wgpu's runtime bounds checks (index clamping, or a test per buffer
    /// access) and its loop bounding (an iteration cap on every loop) off, inside an error
    /// scope. Loop bounding costs more than it looks: on the H100 it held an FMA loop of 64
    /// vec4 steps to 0.85 of the FP32 peak, which the same loop unbounded passes
    /// (docs/performance.md, the ceilings).
    ///
    /// # Safety
    ///
    /// Every index the shader computes must lie inside the buffer, array or texture it indexes,
    /// for the resources it is bound to, and every loop must end.
    pub unsafe fn shader_trusted(&self, label: &str, source: &str) -> Result<wgpu::ShaderModule> {
        self.pipelines.note_compiled();
        self.scoped(
            &format!("compiling shader {label} (runtime bounds checks off)"),
            || {
                let desc = wgpu::ShaderModuleDescriptor {
                    label: Some(label),
                    source: wgpu::ShaderSource::Wgsl(source.into()),
                };
                // SAFETY: passed on to the caller (see above).
                Ok(unsafe {
                    self.device
                        .create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked())
                })
            },
        )
    }
}

/// The adapter to open among `adapters`: the one WGPU_ADAPTER_NAME names (a part of its name,
/// any case), that can present to `compatible_surface` if one is given; the first by backend
/// (Vulkan, Metal, DX12, GL) and then by kind (discrete, integrated, virtual, CPU).
fn choose_adapter(
    adapters: Vec<wgpu::Adapter>,
    compatible_surface: Option<&wgpu::Surface<'_>>,
) -> Result<wgpu::Adapter> {
    let wanted_name = std::env::var("WGPU_ADAPTER_NAME")
        .ok()
        .map(|s| s.to_lowercase());
    let seen: Vec<String> = adapters
        .iter()
        .map(|a| {
            let i = a.get_info();
            format!("{} ({:?})", i.name, i.backend)
        })
        .collect();
    let mut candidates: Vec<wgpu::Adapter> = adapters
        .into_iter()
        .filter(|a| match &wanted_name {
            Some(n) => a.get_info().name.to_lowercase().contains(n),
            None => true,
        })
        .filter(|a| compatible_surface.is_none_or(|s| a.is_surface_supported(s)))
        .collect();
    candidates.sort_by_key(|a| {
        let i = a.get_info();
        let ty = match i.device_type {
            wgpu::DeviceType::DiscreteGpu => 0,
            wgpu::DeviceType::IntegratedGpu => 1,
            wgpu::DeviceType::VirtualGpu => 2,
            wgpu::DeviceType::Cpu => 3,
            wgpu::DeviceType::Other => 4,
        };
        (backend_rank(i.backend), ty)
    });
    candidates.into_iter().next().ok_or_else(|| {
        let detail = match (&wanted_name, seen.is_empty()) {
            (Some(n), false) => format!(
                " matching WGPU_ADAPTER_NAME='{n}' (adapters present: {})",
                seen.join(", ")
            ),
            (Some(n), true) => format!(" (WGPU_ADAPTER_NAME='{n}', and no adapter at all)"),
            (None, _) => match std::env::var("WGPU_BACKEND") {
                Ok(b) => format!(" for WGPU_BACKEND='{b}'"),
                Err(_) => String::new(),
            },
        };
        Error::NoAdapter { detail }
    })
}

/// Open `adapter`'s device with the features rendermm uses that it has, and all its limits.
async fn open_device(
    adapter: &wgpu::Adapter,
    info: &wgpu::AdapterInfo,
) -> Result<(wgpu::Device, wgpu::Queue, wgpu::Features, wgpu::Limits)> {
    let mut features = adapter.features() & wanted_features();
    // On a CPU adapter device memory is host memory: storage buffers that can be mapped
    // let results be read where the shader wrote them, with no copy into a staging buffer
    // and no submission to wait for (`GpuContext::maps_storage`). On a discrete GPU such
    // buffers would live in host memory and slow every shader down, so they are not asked for.
    if info.device_type == wgpu::DeviceType::Cpu {
        features |= adapter.features() & wgpu::Features::MAPPABLE_PRIMARY_BUFFERS;
    }
    let limits = adapter.limits();
    // Cooperative matrices (tensor cores, for the `coop` method) are an experimental wgpu
    // feature: asked for only where the adapter offers them, with the token that accepts
    // experimental features; should the device refuse them, it is opened without.
    let coop = wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX;
    let request = |features: wgpu::Features| {
        let experimental_features = if features.contains(coop) {
            // SAFETY: the token acknowledges that experimental features may be buggy; only
            // the coop method's shaders use cooperative matrices.
            unsafe { wgpu::ExperimentalFeatures::enabled() }
        } else {
            wgpu::ExperimentalFeatures::disabled()
        };
        adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("rendermm"),
            required_features: features,
            required_limits: limits.clone(),
            experimental_features,
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        })
    };
    let mut opened = request(features).await;
    if opened.is_err() && features.contains(coop) {
        features.remove(coop);
        opened = request(features).await;
    }
    let (device, queue) = opened.map_err(|e| Error::RequestDevice {
        adapter: info.name.clone(),
        reason: e.to_string(),
    })?;
    Ok((device, queue, features, limits))
}

/// wgpu's messages span several lines; the CLI prints errors on one.
fn flatten(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Lock a mutex even if a thread panicked while holding it: the data (a message, a list of
/// messages) is never left half-written, and a panic elsewhere must not become one here.
pub(super) fn relock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(not(target_arch = "wasm32"))]
fn block<F: Future>(f: F) -> F::Output {
    pollster::block_on(f)
}
