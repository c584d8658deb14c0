//! Larsen–McAllister (2001), §3, in the calls of 2001: OpenGL 1.x's fixed-function pipeline on a
//! headless compatibility context ([`crate::gl`]), no shader anywhere.
//!
//! A and B are two textures on two texture units. One pass draws slice p: one quad over the
//! m×n framebuffer whose texture coordinates replicate column p of A across it (unit 0) and row
//! p of B down it (unit 1). The texture environment multiplies: unit 0 modulates the white
//! polygon colour by A, unit 1 modulates that by B (`GL_MODULATE`, L-M §2's "modulate"); the
//! blender sums (`glBlendFunc(GL_ONE, GL_ONE)`, §3's blend mode "sum"), so after pass p the
//! framebuffer holds `C_p = Σ_{q≤p} A[:,q] ⊗ B[q,:]`. k quads, then `glReadPixels` (§3: "the
//! resulting matrix is retrieved as a memory copy from the graphics card to main memory").
//!
//! - u8: `GL_LUMINANCE8` textures (four matrices in `GL_RGBA8`, L-M §5 "RGBA") and an 8-bit
//!   `GL_RGBA8` framebuffer, whose blend saturates (§4: `FF + 01 = FF`); `--scale-by-depth` sets
//!   the polygon colour to 1/k (§4). Its CPU model is the 8-bit pipeline of
//!   [`crate::precision::Pipeline::FixedFunction`]: L-M's slices with each product rounded as
//!   the driver's texture environment rounds it, which the run records
//!   ([`crate::precision::SliceRounding`], measured on two drivers): Mesa's llvmpipe multiplies
//!   in f32 and rounds to nearest, which at polygon colour 1 is `lm`'s rounding on every byte
//!   pair; NVIDIA's multiplies in 12-bit fixed point and truncates, one step lower on 2 060 of
//!   the 65 536 byte pairs.
//! - f32: `GL_LUMINANCE32F_ARB` / `GL_RGBA32F` textures into a `GL_RGBA32F` framebuffer with
//!   colour clamping off (`glClampColor`, GL 3.0 / `GL_ARB_color_buffer_float`); refused where
//!   the context has neither.
//!
//! A k past the context's largest texture side is drawn from several texture pairs, each a run
//! of columns of A and the matching rows of B, one quad per p as before. The framebuffer is a
//! framebuffer object (an 8-bit or float colour texture) rather than the window of 2001.

use super::gl_era::{check_inputs, output, texels};
use super::{Method, Params, RunOutput, Timings};
use crate::error::{Error, Result};
use crate::gl::GlContext;
use crate::gl::bindings as gl;
use crate::gl::texture::Texels;
use crate::gpu::run::ms;
use crate::matrix::Matrix;
use crate::precision::SliceRounding;

const NAME: &str = "lm-gl1";

/// Run `a[c] · b[c]` for 1 or 4 pairs (one per colour channel) through the fixed-function
/// pipeline; C of the first pair in the output, the others after it.
pub fn run(a: &[&Matrix], b: &[&Matrix], opts: &Params) -> Result<(RunOutput, Vec<Matrix>)> {
    let texels = texels(Method::LmGl1, opts)?;
    check_inputs(texels, a, b)?;
    let (m, k, n) = (a[0].rows, a[0].cols, b[0].cols);
    let started = crate::clock::Instant::now();
    let ctx = GlContext::new(NAME)?;
    ctx.require(
        NAME,
        "GL_ARB_multitexture",
        Some((1, 3)),
        "two texture units",
    )?;
    if texels == Texels::F32 {
        ctx.unclamp_colours(NAME)?;
    }
    let side = ctx.info.max_texture.max(1);
    for (what, v) in [("C width (n)", n), ("C height (m)", m)] {
        if v > side {
            return Err(Error::Limit {
                what: what.into(),
                value: v as u64,
                limit: "GL_MAX_TEXTURE_SIZE of the GL context",
                max: side as u64,
            });
        }
    }
    let (_fbo, _colour) = ctx.framebuffer(NAME, gl::TEXTURE_2D, (n, m), texels)?;
    let mut timings = Timings {
        setup_ms: ms(started),
        ..Default::default()
    };
    let depth = if opts.scale_by_depth { k } else { 1 };
    let mut chunks = 0;
    for p0 in (0..k).step_by(side) {
        let width = side.min(k - p0);
        let t = crate::clock::Instant::now();
        let at = ctx.matrix_texture(gl::TEXTURE_2D, a, (0, p0), (m, width), texels)?;
        let bt = ctx.matrix_texture(gl::TEXTURE_2D, b, (p0, 0), (width, n), texels)?;
        timings.upload_ms += ms(t);
        let t = crate::clock::Instant::now();
        draw_slices(&ctx, (at, bt), (m, width, n), depth)?;
        timings.compute_ms += ms(t);
        chunks += 1;
    }
    let t = crate::clock::Instant::now();
    let mut cs = ctx.read_matrices((n, m), a.len(), texels)?;
    timings.readback_ms = ms(t);
    let bytes = if texels == Texels::Unorm8 { 1 } else { 4 };
    timings.upload_bytes = ((m * k + k * n) * a.len() * bytes) as u64;
    timings.readback_bytes = (m * n * a.len() * bytes) as u64;
    if opts.scale_by_depth {
        for c in &mut cs {
            c.data.iter_mut().for_each(|v| *v *= k as f32);
        }
    }
    let mut notes = vec![format!("ran on {}", ctx.info.name())];
    if chunks > 1 {
        notes.push(format!(
            "k = {k} past the largest texture side {side}: {chunks} texture pairs"
        ));
    }
    let (mut out, more) = output(Method::LmGl1, cs, k, timings, notes, texels)?;
    if texels == Texels::Unorm8 {
        // The 8-bit model follows this driver's texture environment (the two measured differ).
        out.kernel.rounding = Some(SliceRounding::of_gl_vendor(&ctx.info.vendor));
    }
    Ok((out, more))
}

/// The k quads of one texture pair: A's `width` columns on unit 0 (m high), B's `width` rows on
/// unit 1 (n wide), summed into the bound framebuffer (n wide, m high). The polygon colour is
/// 1/`depth` (L-M §4's scale; 1 unless `--scale-by-depth`).
fn draw_slices(
    ctx: &GlContext,
    (a_tex, b_tex): (u32, u32),
    (m, k, n): (usize, usize, usize),
    depth: usize,
) -> Result<()> {
    let g = &ctx.gl;
    let (mf, nf, kf) = (m as f32, n as f32, k as f32);
    let colour = 1.0 / depth as f32;
    // SAFETY: the context is current on this thread and the textures are its own.
    unsafe {
        // ANCHOR: gl1_calls
        g.MatrixMode(gl::PROJECTION);
        g.LoadIdentity();
        g.Ortho(0.0, n as f64, 0.0, m as f64, -1.0, 1.0); // one pixel per element of C
        g.MatrixMode(gl::MODELVIEW);
        g.LoadIdentity();

        g.ActiveTexture(gl::TEXTURE0); // unit 0: A, times the polygon colour
        g.BindTexture(gl::TEXTURE_2D, a_tex);
        g.Enable(gl::TEXTURE_2D);
        g.TexEnvi(gl::TEXTURE_ENV, gl::TEXTURE_ENV_MODE, gl::MODULATE as i32);
        g.ActiveTexture(gl::TEXTURE1); // unit 1: B, times what unit 0 made
        g.BindTexture(gl::TEXTURE_2D, b_tex);
        g.Enable(gl::TEXTURE_2D);
        g.TexEnvi(gl::TEXTURE_ENV, gl::TEXTURE_ENV_MODE, gl::MODULATE as i32);

        g.Enable(gl::BLEND); // the framebuffer sums: C += fragment
        g.BlendFunc(gl::ONE, gl::ONE);
        g.Color4f(colour, colour, colour, colour);

        for p in 0..k {
            // Column p of A across the quad, row p of B down it, at texel centres.
            let s = (p as f32 + 0.5) / kf;
            g.Begin(gl::QUADS);
            for (x, y) in [(0.0, 0.0), (nf, 0.0), (nf, mf), (0.0, mf)] {
                g.MultiTexCoord2f(gl::TEXTURE0, s, y / mf); // A: (column p, row y)
                g.MultiTexCoord2f(gl::TEXTURE1, x / nf, s); // B: (column x, row p)
                g.Vertex2f(x, y);
            }
            g.End();
        }
        g.Finish();
        // ANCHOR_END: gl1_calls
    }
    ctx.check("drawing the slices")
}
