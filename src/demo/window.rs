//! The demo window: winit 0.30's `ApplicationHandler` (the window and the GPU state are made in
//! `resumed`, frames drawn on `RedrawRequested`) around the same state and renderer as the
//! headless frames.
//!
//! The wgpu instance is made with winit's display handle, as wgpu 30 asks for windows
//! (`InstanceDescriptor::new_with_display_handle_from_env`). Screenshots are drawn into an
//! offscreen texture rather than copied from the surface: a GL surface offers only
//! `RENDER_ATTACHMENT`.

use super::render::Renderer;
use super::state::DemoState;
use super::{Inputs, Kind, Settings, Source};
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::precision::Precision;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

/// How the window runs.
#[derive(Clone, Debug)]
pub struct WindowOptions {
    /// Inner size in pixels.
    pub size: (u32, u32),
    /// Render this many frames, one pass per frame, then save `screenshot` and exit.
    pub frames_then_exit: Option<u64>,
    pub screenshot: Option<PathBuf>,
    /// Passes per second while playing.
    pub speed: f32,
    /// The environment names no display (read at the command line): a window that cannot
    /// open is explained by that rather than by winit's message.
    pub no_display: bool,
}

/// Open the window and run until it is closed (or `frames_then_exit` frames are drawn).
pub fn run(settings: Settings, inputs: Inputs, opts: WindowOptions) -> Result<()> {
    let no_display = opts.no_display;
    let event_loop = EventLoop::new().map_err(|e| no_window(&e.to_string(), no_display))?;
    let mut app = App {
        settings,
        inputs: Some(inputs),
        opts,
        running: None,
        result: Ok(()),
    };
    event_loop
        .run_app(&mut app)
        .map_err(|e| Error::Invalid(format!("window event loop: {e}")))?;
    app.result
}

/// The error for a window that cannot be opened, as one sentence: winit's reason without the
/// source path it prefixes (`os error at .../winit-0.30/src/...rs:765: reason`).
fn no_window(winit_message: &str, no_display: bool) -> Error {
    let reason = if no_display {
        "there is no display (DISPLAY and WAYLAND_DISPLAY are unset)".to_string()
    } else {
        let reason = match winit_message.split_once(".rs:") {
            // Past the path, its line number and the colon that ends it.
            Some((_, rest)) => rest
                .split_once(':')
                .map_or(rest, |(_, r)| r)
                .trim()
                .trim_end_matches('.'),
            None => winit_message.trim().trim_end_matches('.'),
        };
        format!("the display refused it ({reason})")
    };
    Error::Invalid(format!(
        "cannot open the demo window: {reason}; run it under xvfb-run, or draw it offscreen with --headless --gif FILE"
    ))
}

struct App {
    settings: Settings,
    inputs: Option<Inputs>,
    opts: WindowOptions,
    running: Option<Running>,
    result: Result<()>,
}

struct Running {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    renderer: Renderer,
    state: DemoState,
    /// Frames presented.
    frames: u64,
    /// Frames tried (presented or not), so a surface that never yields cannot hang the exit.
    attempts: u64,
    last: Instant,
    cursor: (f64, f64),
    dragging: bool,
    /// A transient remark for the title (e.g. "hall runs in f32 only").
    message: Option<(String, Instant)>,
    title: String,
}

impl App {
    fn fail(&mut self, event_loop: &ActiveEventLoop, e: Error) {
        if self.result.is_ok() {
            self.result = Err(e);
        }
        event_loop.exit();
    }

    fn start(&mut self, event_loop: &ActiveEventLoop) -> Result<Running> {
        let (w, h) = self.opts.size;
        let attrs = Window::default_attributes()
            .with_title("rendermm demo")
            .with_inner_size(PhysicalSize::new(w, h));
        let window = Arc::new(
            event_loop
                .create_window(attrs)
                .map_err(|e| no_window(&e.to_string(), self.opts.no_display))?,
        );
        let desc = wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(
            event_loop.owned_display_handle(),
        ));
        let backends = desc.backends;
        let instance = wgpu::Instance::new(desc);
        let surface = instance.create_surface(window.clone()).map_err(|e| {
            Error::Invalid(format!("cannot make a wgpu surface for the window: {e}"))
        })?;
        let ctx = Arc::new(GpuContext::with_instance(
            instance,
            backends,
            Some(&surface),
        )?);
        eprintln!("adapter: {}", ctx.describe());
        let size = window.inner_size();
        let mut config = surface
            .get_default_config(&ctx.adapter, size.width.max(1), size.height.max(1))
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "adapter '{}' cannot present to this window",
                    ctx.info.name
                ))
            })?;
        // Prefer a plain 8-bit format; the shader handles an sRGB one too.
        let caps = surface.get_capabilities(&ctx.adapter);
        if let Some(f) = caps.formats.iter().copied().find(|f| {
            matches!(
                f,
                wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Rgba8Unorm
            )
        }) {
            config.format = f;
        }
        ctx.scoped("configuring the window surface", || {
            surface.configure(&ctx.device, &config);
            Ok(())
        })?;
        let inputs = self.inputs.take().ok_or_else(|| {
            crate::error::Error::Internal("the demo's inputs were taken twice".into())
        })?;
        let mut state = DemoState::new(ctx.clone(), self.settings, inputs)?;
        state.speed = self.opts.speed;
        for note in &state.notes {
            eprintln!("note: {note}");
        }
        let renderer = Renderer::new(&ctx)?;
        Ok(Running {
            window,
            surface,
            config,
            renderer,
            state,
            frames: 0,
            attempts: 0,
            last: Instant::now(),
            cursor: (0.0, 0.0),
            dragging: false,
            message: None,
            title: String::new(),
        })
    }

    /// Draw one frame; after `frames_then_exit` frames save the screenshot and stop.
    fn frame(&mut self, event_loop: &ActiveEventLoop) -> Result<()> {
        let opts = self.opts.clone();
        let Some(r) = self.running.as_mut() else {
            return Ok(());
        };
        let now = Instant::now();
        let dt = (now - r.last).as_secs_f32().min(0.25);
        r.last = now;
        if opts.frames_then_exit.is_some() {
            // Deterministic: one pass per frame, whatever the frame rate.
            if !r.state.at_end() {
                r.state.step();
            }
            r.state.anim = 1.0;
        } else {
            r.state.advance(dt);
        }
        r.attempts += 1;
        let frame = match r.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t) => Some((t, false)),
            wgpu::CurrentSurfaceTexture::Suboptimal(t) => Some((t, true)),
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => None,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                r.surface.configure(&r.state.ctx().device, &r.config);
                None
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                return Err(Error::Wgpu {
                    kind: "validation",
                    during: "acquiring the window's frame".into(),
                    message: "the surface reported it without details".into(),
                });
            }
        };
        if let Some((frame, suboptimal)) = frame {
            let view = frame.texture.create_view(&Default::default());
            let size = (r.config.width, r.config.height);
            r.renderer
                .render(&r.state, &view, r.config.format, size, true, true)?;
            r.window.pre_present_notify();
            r.state.ctx().queue.present(frame);
            r.frames += 1;
            if suboptimal {
                r.surface.configure(&r.state.ctx().device, &r.config);
            }
        }
        let mut title = r.state.title();
        if !r.state.paused && !r.state.at_end() {
            title += &format!(" · {} passes/s", r.state.speed);
        }
        if let Some((msg, at)) = &r.message {
            if at.elapsed().as_secs_f32() < 4.0 {
                title += &format!(" · {msg}");
            } else {
                r.message = None;
            }
        }
        if title != r.title {
            r.window.set_title(&title);
            r.title = title;
        }
        if let Some(n) = opts.frames_then_exit {
            if r.frames >= n {
                if let Some(path) = &opts.screenshot {
                    r.state.poll();
                    let size = (r.config.width, r.config.height);
                    let img = r.renderer.render_image(&r.state, size, true, true)?;
                    super::headless::save_png(path, &img)?;
                    println!(
                        "wrote {} ({}x{}) after {} frames",
                        path.display(),
                        size.0,
                        size.1,
                        r.frames
                    );
                }
                println!("{}", r.state.title());
                event_loop.exit();
            } else if r.attempts > 20 * n + 200 {
                return Err(Error::Invalid(format!(
                    "the window presented only {} of {n} frames in {} tries",
                    r.frames, r.attempts
                )));
            }
        }
        Ok(())
    }

    fn key(&mut self, event_loop: &ActiveEventLoop, key: &Key) -> Result<()> {
        let Some(r) = self.running.as_mut() else {
            return Ok(());
        };
        let s = &mut r.state;
        let mut settings = s.settings;
        let mut inputs = None;
        match key {
            Key::Named(NamedKey::Escape) => event_loop.exit(),
            Key::Named(NamedKey::Space) => s.paused = !s.paused,
            Key::Named(NamedKey::ArrowRight) => {
                s.paused = true;
                s.step();
            }
            Key::Character(c) => match c.as_str() {
                "+" | "=" => s.speed = (s.speed * 2.0).min(512.0),
                "-" | "_" => s.speed = (s.speed / 2.0).max(0.125),
                "1" | "2" | "3" | "4" => {
                    let idx: usize = c.parse().unwrap_or(1);
                    settings.kind = Kind::ALL[idx - 1];
                }
                "r" | "R" => {
                    let (m, k, n) = s.shape();
                    let seed = match s.inputs.source {
                        Source::Random { seed } => seed + 1,
                        Source::Files { .. } => 1,
                    };
                    inputs = Some(Inputs::random(m, k, n, seed, settings.precision)?);
                }
                "p" | "P" => {
                    if !settings.kind.takes_precision() {
                        r.message = Some((
                            format!("{} runs in f32 only", settings.kind),
                            Instant::now(),
                        ));
                        return Ok(());
                    }
                    settings.precision = match settings.precision {
                        Precision::U8 => Precision::F16,
                        Precision::F16 => Precision::F32,
                        Precision::F32 => Precision::U8,
                    };
                    settings.scale_by_depth &= settings.precision == Precision::U8;
                }
                _ => {}
            },
            _ => {}
        }
        if settings != s.settings || inputs.is_some() {
            let inputs = inputs.unwrap_or_else(|| s.inputs.clone());
            let paused = s.paused;
            if let Err(e) = s.reset(settings, inputs) {
                r.message = Some((format!("could not switch: {e}"), Instant::now()));
            }
            s.paused = paused;
            self.settings = s.settings;
        }
        Ok(())
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_some() {
            return;
        }
        match self.start(event_loop) {
            Ok(r) => {
                r.window.request_redraw();
                self.running = Some(r);
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let outcome = match event {
            WindowEvent::CloseRequested => {
                event_loop.exit();
                Ok(())
            }
            WindowEvent::Resized(size) => {
                if let Some(r) = self.running.as_mut()
                    && size.width > 0
                    && size.height > 0
                {
                    r.config.width = size.width;
                    r.config.height = size.height;
                    r.surface.configure(&r.state.ctx().device, &r.config);
                }
                Ok(())
            }
            WindowEvent::KeyboardInput { event, .. } if event.state == ElementState::Pressed => {
                self.key(event_loop, &event.logical_key)
            }
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left,
                ..
            } => {
                if let Some(r) = self.running.as_mut() {
                    r.dragging = state == ElementState::Pressed;
                }
                Ok(())
            }
            WindowEvent::CursorMoved { position, .. } => {
                if let Some(r) = self.running.as_mut() {
                    if r.dragging {
                        r.state.camera.drag(
                            (position.x - r.cursor.0) as f32,
                            (position.y - r.cursor.1) as f32,
                        );
                    }
                    r.cursor = (position.x, position.y);
                }
                Ok(())
            }
            WindowEvent::MouseWheel { delta, .. } => {
                if let Some(r) = self.running.as_mut() {
                    let steps = match delta {
                        MouseScrollDelta::LineDelta(_, y) => y,
                        MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                    };
                    r.state.camera.zoom(steps);
                }
                Ok(())
            }
            WindowEvent::RedrawRequested => self.frame(event_loop),
            _ => Ok(()),
        };
        if let Err(e) = outcome {
            self.fail(event_loop, e);
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(r) = &self.running {
            r.window.request_redraw();
        }
    }
}
