//! The OpenGL of 2001 and 2003 on today's machines, for the GL-era methods (`lm-gl1`,
//! `hall-arbfp`): a headless OpenGL **compatibility-profile** context made through EGL, so the
//! fixed-function texture environment, `glBlendFunc`, `GL_ARB_fragment_program` and
//! `glReadPixels` run as the papers called them.
//!
//! EGL is loaded at run time (`libEGL.so.1`, through the `khronos-egl` crate), and the GL
//! functions through bindings that `build.rs` generates from Khronos' registry (`gl_generator`),
//! so a machine without EGL or GL still builds and runs everything else; there a GL-era method is
//! refused in one line naming what is missing ([`crate::Error::HostGl`], exit 3). None of this
//! is in the browser build: WebGL has neither the fixed-function pipeline nor ARB fragment
//! programs.
//!
//! The display, in order: an EGL **device** (`EGL_EXT_platform_device`) that is not Mesa's
//! software one (NVIDIA's headless driver; the GPU rather than llvmpipe where both are
//! installed), Mesa's **surfaceless** platform (`EGL_MESA_platform_surfaceless`), the **default**
//! display with a 1×1 pbuffer, and last any EGL device (Mesa's software device). What was
//! picked is in [`GlInfo`].
//!
//! This layer sits beside `gpu/`: it may use `error` and below; `methods/` uses it.

mod context;
pub mod texture;

#[cfg_attr(not(feature = "internals"), allow(unused_imports))]
pub use context::{GlContext, GlInfo, Platform};

/// The generated OpenGL 3.0 compatibility-profile bindings with the ARB extensions the methods
/// call (see `build.rs`): `Gl`, a struct of function pointers, and the enums as constants.
#[allow(
    clippy::all,
    non_upper_case_globals,
    non_snake_case,
    unused,
    unsafe_op_in_unsafe_fn,
    missing_docs
)]
pub mod bindings {
    include!(concat!(env!("OUT_DIR"), "/gl_compat.rs"));
}
