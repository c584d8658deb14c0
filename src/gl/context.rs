//! The headless compatibility-profile context: EGL display, config, context, made current on the
//! calling thread, with the GL functions loaded and what the context offers recorded.

use super::bindings as gl;
use crate::error::{Error, Result};
use khronos_egl as egl;
use std::ffi::{CStr, c_char, c_void};
use std::sync::OnceLock;

type Egl = egl::DynamicInstance<egl::EGL1_4>;

/// `EGL_EXT_platform_device`'s platform and `EGL_MESA_platform_surfaceless`'s.
const PLATFORM_DEVICE_EXT: egl::Enum = 0x313F;
const PLATFORM_SURFACELESS_MESA: egl::Enum = 0x31DD;
/// `EGL_KHR_create_context`: the profile attribute and its compatibility bit.
const CONTEXT_OPENGL_PROFILE_MASK: egl::Int = 0x30FD;
const CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT: egl::Int = 0x2;
/// `glGetIntegerv(GL_CONTEXT_PROFILE_MASK)`'s core bit (GL 3.2).
const GL_CONTEXT_PROFILE_MASK: gl::types::GLenum = 0x9126;
const GL_CONTEXT_CORE_PROFILE_BIT: gl::types::GLint = 0x1;

type GetPlatformDisplayExt =
    unsafe extern "system" fn(egl::Enum, *mut c_void, *const egl::Int) -> *mut c_void;
type QueryDevicesExt =
    unsafe extern "system" fn(egl::Int, *mut *mut c_void, *mut egl::Int) -> egl::Boolean;
type QueryDeviceStringExt = unsafe extern "system" fn(*mut c_void, egl::Int) -> *const c_char;

/// What the context is and offers.
#[derive(Clone, Debug)]
pub struct GlInfo {
    /// The EGL display it was made on: `device`, `surfaceless` or `default (pbuffer)`.
    pub platform: &'static str,
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub vendor: String,
    pub renderer: String,
    pub version: String,
    pub extensions: Vec<String>,
    /// `GL_MAX_TEXTURE_SIZE` and `GL_MAX_RECTANGLE_TEXTURE_SIZE_ARB` (0 without rectangles).
    pub max_texture: usize,
    pub max_rectangle: usize,
}

impl GlInfo {
    /// Whether the context has the extension `name` (`GL_ARB_fragment_program`).
    pub fn has(&self, name: &str) -> bool {
        self.extensions.iter().any(|e| e == name)
    }

    /// `llvmpipe (…), OpenGL 4.5 (Compatibility Profile) Mesa 22.3.6, EGL surfaceless`.
    pub fn name(&self) -> String {
        format!(
            "{}, OpenGL {}, EGL {}",
            self.renderer, self.version, self.platform
        )
    }
}

/// A compatibility-profile OpenGL context, current on the thread that made it (it is neither
/// `Send` nor `Sync`) until dropped.
pub struct GlContext {
    egl: &'static Egl,
    display: egl::Display,
    context: egl::Context,
    surface: Option<egl::Surface>,
    /// The GL functions.
    pub gl: gl::Gl,
    pub info: GlInfo,
    _not_send: std::marker::PhantomData<*const ()>,
}

/// EGL, loaded once per process; the one-line reason where it cannot be.
fn egl_library() -> std::result::Result<&'static Egl, String> {
    static LIB: OnceLock<std::result::Result<Egl, String>> = OnceLock::new();
    LIB.get_or_init(|| {
        // SAFETY: libEGL.so.1 is the system's EGL, whose symbols have the EGL API's types.
        unsafe { Egl::load_required() }.map_err(|e| {
            format!("no EGL 1.4 library (libEGL.so.1: {e}); install one: apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri")
        })
    })
    .as_ref()
    .map_err(Clone::clone)
}

fn refuse(method: &str, missing: impl Into<String>) -> Error {
    Error::HostGl {
        method: method.into(),
        missing: missing.into(),
    }
}

/// The kinds of EGL display, in the order [`GlContext::new`] tries them (devices: hardware ones
/// first, Mesa's software device last).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    /// `EGL_EXT_platform_device`: an EGL device (NVIDIA's headless driver; Mesa's software one).
    Device,
    /// `EGL_MESA_platform_surfaceless`.
    Surfaceless,
    /// `eglGetDisplay(EGL_DEFAULT_DISPLAY)`, with a 1×1 pbuffer where surfaceless contexts are
    /// missing.
    Default,
}

impl GlContext {
    /// Make a compatibility-profile context for `method` (named in a refusal) and make it
    /// current on this thread, on the first display that gives one.
    pub fn new(method: &str) -> Result<GlContext> {
        Self::on(method, None)
    }

    /// [`GlContext::new`] on displays of `platform` only (every one where `None`).
    pub fn on(method: &str, platform: Option<Platform>) -> Result<GlContext> {
        let lib = egl_library().map_err(|m| refuse(method, m))?;
        let mut tried = vec![];
        let displays = displays(lib)
            .into_iter()
            .filter(|(_, kind, _)| platform.is_none_or(|p| p == *kind));
        for (platform, _, display) in displays {
            match context_on(lib, platform, display) {
                Ok(ctx) => return Ok(ctx),
                Err(why) => tried.push(format!("{platform}: {why}")),
            }
        }
        Err(refuse(
            method,
            if tried.is_empty() {
                "no OpenGL compatibility context (EGL found no display: no device, surfaceless or default platform)".to_string()
            } else {
                format!("no OpenGL compatibility context ({})", tried.join("; "))
            },
        ))
    }

    /// Refuse `method` unless the context has the extension `name` (or GL `core_since` or
    /// later has its functions, where given), saying what it is for.
    pub fn require(
        &self,
        method: &str,
        name: &str,
        core_since: Option<(u32, u32)>,
        for_what: &str,
    ) -> Result<()> {
        let core = core_since.is_some_and(|v| self.version_at_least(v));
        if self.info.has(name) || core {
            return Ok(());
        }
        Err(refuse(
            method,
            format!("no {name} in {} ({for_what})", self.info.name()),
        ))
    }

    /// Whether the context is a core profile (GL 3.2's profile mask), which has no
    /// fixed-function pipeline; a compatibility profile, or a GL before 3.2, has it.
    pub fn core_profile(&self) -> bool {
        if !self.version_at_least((3, 2)) {
            return false;
        }
        let mut mask = 0;
        // SAFETY: the context is current on this thread; GL ≥ 3.2 has the profile mask.
        unsafe { self.gl.GetIntegerv(GL_CONTEXT_PROFILE_MASK, &mut mask) };
        mask & GL_CONTEXT_CORE_PROFILE_BIT != 0
    }

    /// Whether the context's GL version is at least `(major, minor)`.
    pub fn version_at_least(&self, (major, minor): (u32, u32)) -> bool {
        parse_version(&self.info.version) >= (major, minor)
    }

    /// The first GL error since the last check, as an error naming `what` was being done.
    pub fn check(&self, what: &str) -> Result<()> {
        // SAFETY: the context is current on this thread (it is not Send).
        let err = unsafe { self.gl.GetError() };
        if err == gl::NO_ERROR {
            return Ok(());
        }
        // Clear any further queued errors so the next check reports its own.
        for _ in 0..16 {
            // SAFETY: as above.
            if unsafe { self.gl.GetError() } == gl::NO_ERROR {
                break;
            }
        }
        Err(Error::Gl(format!(
            "{what}: GL error 0x{err:04X} on {}",
            self.info.name()
        )))
    }
}

impl Drop for GlContext {
    fn drop(&mut self) {
        // The display is left initialised: EGL displays are per process, and another thread may
        // hold a context on the same one.
        let _ = self.egl.make_current(self.display, None, None, None);
        let _ = self.egl.destroy_context(self.display, self.context);
        if let Some(s) = self.surface {
            let _ = self.egl.destroy_surface(self.display, s);
        }
    }
}

/// `4.5 (Compatibility Profile) Mesa 22.3.6` → (4, 5).
fn parse_version(v: &str) -> (u32, u32) {
    let mut it = v
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap_or(0));
    (it.next().unwrap_or(0), it.next().unwrap_or(0))
}

/// The EGL extension string of `display` (`None`: the client extensions).
fn egl_extensions(lib: &Egl, display: Option<egl::Display>) -> String {
    lib.query_string(display, egl::EXTENSIONS)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The displays to try, in order (see the module's doc): hardware EGL devices, Mesa's
/// surfaceless platform, the default display, software EGL devices.
fn displays(lib: &Egl) -> Vec<(&'static str, Platform, egl::Display)> {
    let client = egl_extensions(lib, None);
    let has = |e: &str| client.split_whitespace().any(|x| x == e);
    let get_platform: Option<GetPlatformDisplayExt> = lib
        .get_proc_address("eglGetPlatformDisplayEXT")
        // SAFETY: the EGL_EXT_platform_base entry point has this signature.
        .map(|f| unsafe { std::mem::transmute::<extern "system" fn(), GetPlatformDisplayExt>(f) });
    let platform_display = |platform: egl::Enum, native: *mut c_void| -> Option<egl::Display> {
        let f = get_platform?;
        let attribs = [egl::NONE];
        // SAFETY: a platform the client extensions list, its native display (a device or
        // EGL_DEFAULT_DISPLAY), and an attribute list ended by EGL_NONE.
        let d = unsafe { f(platform, native, attribs.as_ptr()) };
        // SAFETY: a display EGL returned.
        (!d.is_null()).then(|| unsafe { egl::Display::from_ptr(d) })
    };
    let (mut hardware, mut software) = (vec![], vec![]);
    if has("EGL_EXT_platform_device") {
        for (device, is_software) in devices(lib) {
            if let Some(d) = platform_display(PLATFORM_DEVICE_EXT, device) {
                if is_software {
                    software.push(("device (software)", Platform::Device, d));
                } else {
                    hardware.push(("device", Platform::Device, d));
                }
            }
        }
    }
    let mut out = hardware;
    if has("EGL_MESA_platform_surfaceless")
        && let Some(d) = platform_display(PLATFORM_SURFACELESS_MESA, std::ptr::null_mut())
    {
        out.push(("surfaceless", Platform::Surfaceless, d));
    }
    // SAFETY: EGL_DEFAULT_DISPLAY is a valid native display for eglGetDisplay.
    if let Some(d) = unsafe { lib.get_display(egl::DEFAULT_DISPLAY) } {
        out.push(("default (pbuffer)", Platform::Default, d));
    }
    out.extend(software);
    out
}

/// The EGL devices (`EGL_EXT_device_enumeration`), each with whether it is Mesa's software
/// device (`EGL_MESA_device_software`).
fn devices(lib: &Egl) -> Vec<(*mut c_void, bool)> {
    let (Some(query), Some(string)) = (
        lib.get_proc_address("eglQueryDevicesEXT"),
        lib.get_proc_address("eglQueryDeviceStringEXT"),
    ) else {
        return vec![];
    };
    // SAFETY: the EGL_EXT_device_enumeration / _query entry points have these signatures.
    let query = unsafe { std::mem::transmute::<extern "system" fn(), QueryDevicesExt>(query) };
    let string =
        unsafe { std::mem::transmute::<extern "system" fn(), QueryDeviceStringExt>(string) };
    let mut list = vec![std::ptr::null_mut(); 16];
    let mut count: egl::Int = 0;
    // SAFETY: room for 16 devices; EGL writes at most that many and their count.
    if unsafe { query(16, list.as_mut_ptr(), &mut count) } == egl::FALSE {
        return vec![];
    }
    list.truncate(count.clamp(0, 16) as usize);
    list.into_iter()
        .map(|d| {
            // SAFETY: a device EGL listed; the string (or null) is EGL's, read at once.
            let ext = unsafe { string(d, egl::EXTENSIONS) };
            let software = !ext.is_null()
                && unsafe { CStr::from_ptr(ext) }
                    .to_string_lossy()
                    .contains("EGL_MESA_device_software");
            (d, software)
        })
        .collect()
}

/// A compatibility-profile context on `display`, current on this thread, or why not.
fn context_on(
    lib: &'static Egl,
    platform: &'static str,
    display: egl::Display,
) -> std::result::Result<GlContext, String> {
    lib.initialize(display)
        .map_err(|e| format!("eglInitialize failed ({e})"))?;
    let apis = lib
        .query_string(Some(display), egl::CLIENT_APIS)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if !apis.split_whitespace().any(|a| a == "OpenGL") {
        return Err(format!("no OpenGL client API (offers {apis:?})"));
    }
    lib.bind_api(egl::OPENGL_API)
        .map_err(|e| format!("eglBindAPI(EGL_OPENGL_API) failed ({e})"))?;
    let config_attribs = [
        egl::RENDERABLE_TYPE,
        egl::OPENGL_BIT,
        egl::SURFACE_TYPE,
        egl::PBUFFER_BIT,
        egl::RED_SIZE,
        8,
        egl::GREEN_SIZE,
        8,
        egl::BLUE_SIZE,
        8,
        egl::ALPHA_SIZE,
        8,
        egl::NONE,
    ];
    let config = lib
        .choose_first_config(display, &config_attribs)
        .map_err(|e| format!("eglChooseConfig failed ({e})"))?
        .ok_or("no RGBA8 pbuffer config for OpenGL")?;
    let compat = [
        CONTEXT_OPENGL_PROFILE_MASK,
        CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT,
        egl::NONE,
    ];
    let context = lib
        .create_context(display, config, None, &compat)
        .or_else(|_| lib.create_context(display, config, None, &[egl::NONE]))
        .map_err(|e| format!("no compatibility-profile context ({e})"))?;
    let surfaceless = egl_extensions(lib, Some(display))
        .split_whitespace()
        .any(|e| e == "EGL_KHR_surfaceless_context");
    let surface = if surfaceless {
        None
    } else {
        let attribs = [egl::WIDTH, 1, egl::HEIGHT, 1, egl::NONE];
        match lib.create_pbuffer_surface(display, config, &attribs) {
            Ok(s) => Some(s),
            Err(e) => {
                let _ = lib.destroy_context(display, context);
                return Err(format!("no pbuffer surface ({e})"));
            }
        }
    };
    if let Err(e) = lib.make_current(display, surface, surface, Some(context)) {
        let _ = lib.destroy_context(display, context);
        return Err(format!("eglMakeCurrent failed ({e})"));
    }
    let gl = gl::Gl::load_with(|name| {
        lib.get_proc_address(name)
            .map_or(std::ptr::null(), |f| f as *const c_void)
    });
    let info = query_info(&gl, platform);
    let ctx = GlContext {
        egl: lib,
        display,
        context,
        surface,
        gl,
        info,
        _not_send: std::marker::PhantomData,
    };
    if ctx.core_profile() {
        return Err(format!(
            "only a core-profile context ({}), which has no fixed-function pipeline",
            ctx.info.name()
        ));
    }
    if !ctx.gl.TexEnvi.is_loaded() || !ctx.gl.Begin.is_loaded() {
        return Err(format!(
            "no fixed-function entry points (glTexEnvi, glBegin) in {}",
            ctx.info.name()
        ));
    }
    Ok(ctx)
}

/// A `glGetString` value as text ("" where the driver returns none).
fn string(gl: &gl::Gl, name: gl::types::GLenum) -> String {
    // SAFETY: the context is current; GL returns a static NUL-terminated string or null.
    let s = unsafe { gl.GetString(name) };
    if s.is_null() {
        return String::new();
    }
    // SAFETY: non-null, NUL-terminated, owned by GL.
    unsafe { CStr::from_ptr(s as *const c_char) }
        .to_string_lossy()
        .into_owned()
}

fn query_info(gl: &gl::Gl, platform: &'static str) -> GlInfo {
    let mut extensions: Vec<String> = string(gl, gl::EXTENSIONS)
        .split_whitespace()
        .map(String::from)
        .collect();
    if extensions.is_empty() && gl.GetStringi.is_loaded() {
        let mut count = 0;
        // SAFETY: the context is current; GL ≥ 3.0 lists its extensions by index.
        unsafe { gl.GetIntegerv(gl::NUM_EXTENSIONS, &mut count) };
        for i in 0..count.max(0) as u32 {
            // SAFETY: i < GL_NUM_EXTENSIONS.
            let s = unsafe { gl.GetStringi(gl::EXTENSIONS, i) };
            if !s.is_null() {
                // SAFETY: non-null, NUL-terminated, owned by GL.
                extensions.push(
                    unsafe { CStr::from_ptr(s as *const c_char) }
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    let int = |name| {
        let mut v = 0;
        // SAFETY: the context is current; a single-integer query.
        unsafe { gl.GetIntegerv(name, &mut v) };
        // SAFETY: as above.
        unsafe { gl.GetError() };
        v.max(0) as usize
    };
    GlInfo {
        platform,
        vendor: string(gl, gl::VENDOR),
        renderer: string(gl, gl::RENDERER),
        version: string(gl, gl::VERSION),
        max_texture: int(gl::MAX_TEXTURE_SIZE),
        max_rectangle: int(gl::MAX_RECTANGLE_TEXTURE_SIZE_ARB),
        extensions,
    }
}

#[cfg(test)]
mod tests {
    use super::parse_version;

    #[test]
    fn versions_parse_from_the_version_string() {
        assert_eq!(
            parse_version("4.5 (Compatibility Profile) Mesa 22.3.6"),
            (4, 5)
        );
        assert_eq!(parse_version("4.6.0 NVIDIA 580.65"), (4, 6));
        assert_eq!(parse_version(""), (0, 0));
    }
}
