//! Hall, Carr & Hart (2003), "Cache and Bandwidth Aware Matrix Multiplication on the GPU", §3,
//! algorithm (5), in the fragment-program model the paper was written for: an `!!ARBfp1.0`
//! program (`GL_ARB_fragment_program`, OpenGL's face of DirectX 9's pixel shaders) on a headless
//! compatibility context ([`crate::gl`]). Program text: `shaders/hall_arbfp.fp`.
//!
//! One pass draws a quad over C (n wide, m high). Fragment (i, j) runs the program: b texture
//! reads of A, b of B and b multiply-adds, the product section written out b times (the paper:
//! "four instructions per iteration of the m loop", §3; ARB programs have no loops), then it adds
//! F[i][j], the sum of the earlier passes, and writes `C_t[i][j] = Σ_{p < end of block t}
//! A[i][p]·B[p][j]`. Between passes the paper copies the framebuffer into F; here two framebuffer
//! objects take turns (ping-pong), as `hall-blocked`'s default does. ⌈k/b⌉ passes, the last
//! block shorter when b does not divide k (a second program), then `glReadPixels`.
//!
//! Textures are rectangles (`GL_ARB_texture_rectangle`: the integer indexing of the paper's
//! footnote 1). A k past the largest rectangle side is drawn from several texture pairs, each a
//! whole number of blocks, so the blocks are those of `hall-blocked`.
//!
//! - f32: `GL_LUMINANCE32F_ARB` textures, `GL_RGBA32F` framebuffers, colour clamping off.
//! - u8: `GL_LUMINANCE8` textures and `GL_RGBA8` framebuffers, the arithmetic of `hall-blocked
//!   --precision u8` (the program's `_u8` sections): each block's exact sum of 8-bit products
//!   times the polygon colour 1/d (d = k with `--scale-by-depth`, L-M §4, the result rescaled
//!   by k) rounded to 8 bits once per pass, the running sum saturating at 1.0; CPU model
//!   [`crate::precision::u8_model_blocked`]. Its integers stay exact in f32 while
//!   2·b·255² + 255·d < 2²⁴ (b ≤ 129 at d = 1), which the method checks.

use super::gl_era::{check_inputs, output, texels};
use super::{Method, Params, RunOutput, Timings};
use crate::error::{Error, Result};
use crate::gl::GlContext;
use crate::gl::bindings as gl;
use crate::gl::texture::Texels;
use crate::gpu::run::ms;
use crate::matrix::Matrix;
use crate::precision::{DEFAULT_BLOCK, blocks};

const NAME: &str = "hall-arbfp";

/// The program text, with its sections marked by `ANCHOR:` comments.
const PROGRAM: &str = include_str!("../../shaders/hall_arbfp.fp");

/// Whether the u8 program's integers stay exact in f32 for blocks of `b` products and polygon
/// colour 1/`depth`: 2S + 255·depth < 2²⁴ for the largest block sum S = b·255².
pub fn u8_exact(b: u64, depth: u64) -> bool {
    2 * b * 255 * 255 + 255 * depth < 1 << 24
}

/// The section `name` of [`PROGRAM`] (between `# ANCHOR: name` and `# ANCHOR_END: name`).
fn section(name: &str) -> Result<&'static str> {
    let open = format!("# ANCHOR: {name}\n");
    let close = format!("# ANCHOR_END: {name}\n");
    let start = PROGRAM
        .find(&open)
        .map(|i| i + open.len())
        .ok_or_else(|| Error::Internal(format!("shaders/hall_arbfp.fp has no section {name}")))?;
    let len = PROGRAM[start..]
        .find(&close)
        .ok_or_else(|| Error::Internal(format!("shaders/hall_arbfp.fp leaves {name} open")))?;
    Ok(&PROGRAM[start..start + len])
}

/// The program of one pass that sums `b` products, in f32 or in the 8-bit pipeline.
pub fn program(b: usize, texels: Texels) -> Result<String> {
    let (product, accumulate) = match texels {
        Texels::F32 => (section("product")?, section("accumulate")?),
        Texels::Unorm8 => (section("product_u8")?, section("accumulate_u8")?),
    };
    let mut text = String::from("!!ARBfp1.0\n");
    text.push_str(section("setup")?);
    for _ in 0..b {
        text.push_str(product);
    }
    text.push_str(accumulate);
    text.push_str("END\n");
    Ok(text)
}

/// Compile `text` as a fragment program, or the driver's error with its position; the program
/// and its instruction count as the driver parsed it.
fn compile(ctx: &GlContext, text: &str, b: usize) -> Result<(u32, i32)> {
    let g = &ctx.gl;
    let mut id = 0;
    // SAFETY: the context is current on this thread; the text's length is passed with it.
    unsafe {
        g.GenProgramsARB(1, &mut id);
        g.BindProgramARB(gl::FRAGMENT_PROGRAM_ARB, id);
        g.ProgramStringARB(
            gl::FRAGMENT_PROGRAM_ARB,
            gl::PROGRAM_FORMAT_ASCII_ARB,
            text.len() as i32,
            text.as_ptr() as *const std::ffi::c_void,
        );
    }
    // SAFETY: as above.
    if unsafe { g.GetError() } != gl::NO_ERROR {
        let mut at = -1;
        // SAFETY: as above; the error string is GL's, read at once.
        let why = unsafe {
            g.GetIntegerv(gl::PROGRAM_ERROR_POSITION_ARB, &mut at);
            let s = g.GetString(gl::PROGRAM_ERROR_STRING_ARB);
            if s.is_null() {
                String::new()
            } else {
                std::ffi::CStr::from_ptr(s as *const std::ffi::c_char)
                    .to_string_lossy()
                    .into_owned()
            }
        };
        return Err(Error::Gl(format!(
            "{NAME}'s fragment program for b = {b} was refused at character {at}: {why} ({})",
            ctx.info.name()
        )));
    }
    let mut instructions = 0;
    // SAFETY: as above; the program is bound.
    unsafe {
        g.GetProgramivARB(
            gl::FRAGMENT_PROGRAM_ARB,
            gl::PROGRAM_INSTRUCTIONS_ARB,
            &mut instructions,
        )
    };
    Ok((id, instructions))
}

/// Run `a · b` (one pair) by ⌈k/b⌉ passes of the fragment program.
pub fn run(a: &[&Matrix], b: &[&Matrix], opts: &Params) -> Result<(RunOutput, Vec<Matrix>)> {
    let texels = texels(Method::HallArbfp, opts)?;
    if a.len() != 1 || b.len() != 1 {
        return Err(Error::Invalid(format!(
            "{NAME} multiplies one pair, not {}",
            a.len()
        )));
    }
    check_inputs(texels, a, b)?;
    let block = opts.block.unwrap_or(DEFAULT_BLOCK);
    if block == 0 {
        return Err(Error::Invalid(
            "block size b = 0: each pass must sum at least one product (give --b 1 or more)".into(),
        ));
    }
    let (m, k, n) = (a[0].rows, a[0].cols, b[0].cols);
    let depth = if opts.scale_by_depth { k } else { 1 };
    let longest = (block as usize).min(k) as u64;
    if texels == Texels::Unorm8 && !u8_exact(longest, depth as u64) {
        return Err(Error::Limit {
            what: format!("2·b·255² + 255·d in u8 (b = {longest}, polygon colour 1/{depth})"),
            value: 2 * longest * 255 * 255 + 255 * depth as u64,
            limit: "exact integers in the program's f32 registers (2^24)",
            max: 1 << 24,
        });
    }
    let started = crate::clock::Instant::now();
    let ctx = GlContext::new(NAME)?;
    ctx.require(
        NAME,
        "GL_ARB_fragment_program",
        None,
        "the fragment-program model of 2003",
    )?;
    ctx.require(
        NAME,
        "GL_ARB_texture_rectangle",
        Some((3, 1)),
        "texel-addressed textures",
    )?;
    if texels == Texels::F32 {
        ctx.unclamp_colours(NAME)?;
    }
    let side = ctx.info.max_rectangle.max(1);
    for (what, v) in [
        ("C width (n)", n),
        ("C height (m)", m),
        ("block size b", block as usize),
    ] {
        if v > side {
            return Err(Error::Limit {
                what: what.into(),
                value: v as u64,
                limit: "GL_MAX_RECTANGLE_TEXTURE_SIZE of the GL context",
                max: side as u64,
            });
        }
    }
    let rect = gl::TEXTURE_RECTANGLE_ARB;
    let targets = [
        ctx.framebuffer(NAME, rect, (n, m), texels)?,
        ctx.framebuffer(NAME, rect, (n, m), texels)?,
    ];
    // The passes: hall-blocked's blocks of b over k; one program per block length.
    let passes = blocks(k, block);
    let mut programs = std::collections::BTreeMap::new();
    let mut notes = vec![format!("ran on {}", ctx.info.name())];
    for &(_, len) in &passes {
        if let std::collections::btree_map::Entry::Vacant(e) = programs.entry(len) {
            let (id, instructions) = compile(&ctx, &program(len as usize, texels)?, len as usize)?;
            notes.push(format!(
                "fragment program for b = {len}: {instructions} instructions (Hall §3: 6 + 4b = {} in f32)",
                6 + 4 * len
            ));
            e.insert(id);
        }
    }
    let mut timings = Timings {
        setup_ms: ms(started),
        ..Default::default()
    };
    // The u8 program's polygon colour 1/d: (255·d, 510·d, 1/(510·d), 0).
    let d = depth as f32;
    let colour = [255.0 * d, 510.0 * d, 1.0 / (510.0 * d), 0.0];
    // Texture pairs of a whole number of blocks each.
    let chunk = (side / block as usize) * block as usize;
    let mut from = 0; // the target holding F
    let mut chunks = 0;
    for c0 in (0..k).step_by(chunk) {
        let width = chunk.min(k - c0);
        let t = crate::clock::Instant::now();
        let at = ctx.matrix_texture(rect, a, (0, c0), (m, width), texels)?;
        let bt = ctx.matrix_texture(rect, b, (c0, 0), (width, n), texels)?;
        timings.upload_ms += ms(t);
        let t = crate::clock::Instant::now();
        for &(start, len) in passes
            .iter()
            .filter(|(s, _)| (c0..c0 + width).contains(&(*s as usize)))
        {
            let program = programs.get(&len).copied().ok_or_else(|| {
                Error::Internal(format!("{NAME} compiled no program for a block of {len}"))
            })?;
            let p0 = (start as usize - c0) as f32 + 0.5;
            let first = [p0, 0.0, 0.0, p0];
            pass(
                &ctx,
                program,
                [first, colour],
                (at, bt),
                targets[from].1,
                targets[1 - from].0,
                (m, n),
            );
            from = 1 - from;
        }
        // SAFETY: the context is current on this thread.
        unsafe { ctx.gl.Finish() };
        ctx.check("the passes")?;
        timings.compute_ms += ms(t);
        chunks += 1;
    }
    let t = crate::clock::Instant::now();
    // SAFETY: as above; the framebuffer is one of the two made above.
    unsafe { ctx.gl.BindFramebuffer(gl::FRAMEBUFFER, targets[from].0) };
    let mut cs = ctx.read_matrices((n, m), 1, texels)?;
    if opts.scale_by_depth {
        for c in &mut cs {
            c.data.iter_mut().for_each(|v| *v *= k as f32);
        }
    }
    timings.readback_ms = ms(t);
    let bytes = if texels == Texels::Unorm8 { 1 } else { 4 };
    timings.upload_bytes = ((m * k + k * n) * bytes) as u64;
    timings.readback_bytes = (m * n * bytes) as u64;
    if chunks > 1 {
        notes.push(format!(
            "k = {k} past the largest rectangle texture side {side}: {chunks} texture pairs"
        ));
    }
    output(Method::HallArbfp, cs, passes.len(), timings, notes, texels)
}

/// One pass: the program with its two local parameters (the block's first column / row of the
/// texture pair, in texels at the centre; the u8 polygon colour), F read from `f_tex` (unit
/// 2), the new sum drawn into `into`.
fn pass(
    ctx: &GlContext,
    program: u32,
    [first, colour]: [[f32; 4]; 2],
    (a_tex, b_tex): (u32, u32),
    f_tex: u32,
    into: u32,
    (m, n): (usize, usize),
) {
    let g = &ctx.gl;
    let (mf, nf) = (m as f32, n as f32);
    // SAFETY: the context is current on this thread; the program, textures and framebuffer
    // are its own.
    unsafe {
        // ANCHOR: arbfp_pass
        g.BindFramebuffer(gl::FRAMEBUFFER, into); // ping-pong: draw into the other target
        g.Viewport(0, 0, n as i32, m as i32);
        g.MatrixMode(gl::PROJECTION);
        g.LoadIdentity();
        g.Ortho(0.0, n as f64, 0.0, m as f64, -1.0, 1.0);
        g.Enable(gl::FRAGMENT_PROGRAM_ARB);
        g.BindProgramARB(gl::FRAGMENT_PROGRAM_ARB, program);
        g.ProgramLocalParameter4fvARB(gl::FRAGMENT_PROGRAM_ARB, 0, first.as_ptr());
        g.ProgramLocalParameter4fvARB(gl::FRAGMENT_PROGRAM_ARB, 1, colour.as_ptr());
        for (unit, tex) in [
            (gl::TEXTURE0, a_tex),
            (gl::TEXTURE1, b_tex),
            (gl::TEXTURE2, f_tex),
        ] {
            g.ActiveTexture(unit); // texture[0] = A, [1] = B, [2] = F
            g.BindTexture(gl::TEXTURE_RECTANGLE_ARB, tex);
        }
        g.Begin(gl::QUADS); // one screen-filling quad: a fragment per element of C
        for (x, y) in [(0.0, 0.0), (nf, 0.0), (nf, mf), (0.0, mf)] {
            g.Vertex2f(x, y);
        }
        g.End();
        // ANCHOR_END: arbfp_pass
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_program_is_the_setup_b_products_and_the_accumulation() {
        for (texels, product, accumulate) in [
            (
                Texels::F32,
                "MAD sum, a, b, sum;",
                "ADD result.color, sum, prev;",
            ),
            (Texels::Unorm8, "FLR a, a;", "MIN t, t, unorm.x;"),
        ] {
            let text = program(3, texels).unwrap();
            assert!(
                text.starts_with("!!ARBfp1.0\n") && text.ends_with("END\n"),
                "{text}"
            );
            assert_eq!(text.matches("!!ARBfp1.0").count(), 1);
            assert_eq!(text.matches(product).count(), 3, "{text}");
            assert_eq!(text.matches("ADD c, c, step;").count(), 3, "{text}");
            assert_eq!(text.matches(accumulate).count(), 1, "{text}");
            // The anchors mark the sections in the file; none reaches the driver.
            assert!(!text.contains("ANCHOR"), "{text}");
        }
    }

    #[test]
    fn the_u8_program_is_exact_while_its_integers_fit_in_f32() {
        assert!(u8_exact(129, 1));
        assert!(!u8_exact(130, 1));
        assert!(u8_exact(32, 32_000));
        assert!(!u8_exact(32, 50_000));
    }
}
