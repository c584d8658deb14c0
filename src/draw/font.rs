//! The demos' labels: the text style of every rendermm picture (the bundled DejaVu Sans through
//! `ab_glyph`, anti-aliased, mixed case, at the sizes of `draw::text`), rasterized on the CPU
//! into an 8-bit coverage mask that the renderer blends over the frame.
//!
//! The glyph metrics and the rasterizer live here, the one copy, below both users: the demos'
//! renderer builds for the browser too, where the rest of `draw` (figures, charts, the `image`
//! crate) is not compiled; `draw::text` draws its figures and charts with them.

use crate::error::{Error, Result};
use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use std::sync::OnceLock;

/// DejaVu Sans, compiled in (`assets/fonts/`), so no system font is needed.
#[cfg(feature = "native")]
pub const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// In the browser build, DejaVu Sans cut to what the labels draw — printable ASCII and Latin-1
/// (names of dropped files among them), the Greek letters, dashes and ellipsis, super- and
/// subscripts, a few arrows and mathematical operators, squares and a disc — with every
/// outline, advance and kerning pair as in the whole font, and no hinting (the rasterizer does
/// not use it): `pyftsubset assets/fonts/DejaVuSans.ttf --unicodes=U+0020-007E,U+00A0-00FF,U+0391-03A9,U+03B1-03C9,U+2010-2027,U+2030-203A,U+2070-209F,U+2190-2195,U+21D0-21D5,U+2200-2212,U+2215-221E,U+2227-222B,U+2248,U+2260-2265,U+2308-230B,U+1D40,U+25A0-25A1,U+25CF
/// --layout-features=kern --legacy-kern --no-hinting` (fontTools), 44 KB of the whole font's 760.
#[cfg(not(feature = "native"))]
pub const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-page.ttf");

/// The page's font file, for the test that it holds every character the labels draw.
#[cfg(feature = "internals")]
pub const PAGE_FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-page.ttf");

/// `draw::text::SMALL`: the figures' small print, the demos' text in small frames.
pub const SMALL: f32 = 13.0;
/// `draw::text::LABEL` + 3: a little larger than the figures' panel titles, in large frames.
pub const LARGE: f32 = 18.0;

/// The bundled font, parsed once; `None` if the bytes compiled in are not a font (which
/// [`check`] reports, and with which the measures below are 0 and nothing is drawn).
fn font() -> Option<&'static FontRef<'static>> {
    static F: OnceLock<Option<FontRef<'static>>> = OnceLock::new();
    F.get_or_init(|| FontRef::try_from_slice(FONT).ok())
        .as_ref()
}

/// An internal error if the bundled font does not parse: what a user of the labels (the demos'
/// renderer) asks before it draws any.
pub fn check() -> Result<()> {
    match FontRef::try_from_slice(FONT) {
        Ok(_) => Ok(()),
        Err(e) => Err(Error::Internal(format!(
            "the bundled DejaVu Sans does not parse: {e}"
        ))),
    }
}

/// Pixel size of the text at a layout's text scale (1 in small frames, 2 from 900×420 up): the
/// figures' small print, and a little larger than their panel titles in large frames.
pub fn px(scale: u32) -> f32 {
    if scale >= 2 { LARGE } else { SMALL }
}

/// Width in pixels of `text` at `px` (kerning included).
pub fn width_px(text: &str, px: f32) -> f32 {
    let Some(font) = font() else {
        return 0.0;
    };
    let f = font.as_scaled(PxScale::from(px));
    let mut x = 0.0;
    let mut prev = None;
    for c in text.chars() {
        let id = f.glyph_id(c);
        if let Some(p) = prev {
            x += f.kern(p, id);
        }
        x += f.h_advance(id);
        prev = Some(id);
    }
    x
}

/// Height of a line's box at `px`: ascent to descent.
pub fn height_px(px: f32) -> f32 {
    let Some(font) = font() else {
        return 0.0;
    };
    let f = font.as_scaled(PxScale::from(px));
    f.ascent() - f.descent()
}

/// Distance between the baselines of two lines at `px` (1.2 line boxes, ascent to descent).
pub fn line_px(px: f32) -> f32 {
    (height_px(px) * 1.2).ceil()
}

/// Rasterize `text` at `px` with its line box's top-left corner at (`x`, `y`), calling `put(x, y,
/// coverage)` for every pixel it touches (coverage in 0..=1; the caller clips).
pub fn raster(text: &str, px: f32, x: f32, y: f32, mut put: impl FnMut(i32, i32, f32)) {
    let Some(font) = font() else {
        return;
    };
    let f = font.as_scaled(PxScale::from(px));
    let baseline = y + f.ascent();
    let mut pen = x;
    let mut prev = None;
    for c in text.chars() {
        let id = f.glyph_id(c);
        if let Some(p) = prev {
            pen += f.kern(p, id);
        }
        let glyph = id.with_scale_and_position(PxScale::from(px), point(pen, baseline));
        if let Some(g) = font.outline_glyph(glyph) {
            let b = g.px_bounds();
            g.draw(|gx, gy, cov| put(b.min.x as i32 + gx as i32, b.min.y as i32 + gy as i32, cov));
        }
        pen += f.h_advance(id);
        prev = Some(id);
    }
}

/// Distance in pixels between two lines of text at `scale`.
pub fn line(scale: u32) -> u32 {
    line_px(px(scale)) as u32
}

/// Width in pixels of `text` drawn at `scale`.
pub fn text_width(text: &str, scale: u32) -> u32 {
    width_px(text, px(scale)).ceil() as u32
}

/// An 8-bit coverage mask (255 = ink) the size of a frame.
pub struct Mask {
    pub width: u32,
    pub height: u32,
    pub data: Vec<u8>,
}

impl Mask {
    pub fn new(width: u32, height: u32) -> Self {
        Self {
            width,
            height,
            data: vec![0; (width * height) as usize],
        }
    }

    /// Draw `text` at `scale` with the top-left corner of its line box at (`x`, `y`); what falls
    /// outside the mask is clipped.
    pub fn text(&mut self, x: i32, y: i32, text: &str, scale: u32) {
        let (w, h) = (self.width as i32, self.height as i32);
        raster(text, px(scale), x as f32, y as f32, |px, py, cov| {
            if px >= 0 && py >= 0 && px < w && py < h {
                let i = (py * w + px) as usize;
                let v = (cov.clamp(0.0, 1.0) * 255.0).round() as u8;
                self.data[i] = self.data[i].max(v);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_drawn_antialiased_inside_their_measured_width() {
        let t = "Slice p = 3 of 8: A[i, p] · B[p, j]";
        let mut m = Mask::new(400, 40);
        m.text(5, 5, t, 1);
        let w = text_width(t, 1) as usize;
        let inked: Vec<usize> = (0..m.data.len())
            .filter(|&i| m.data[i] > 0)
            .map(|i| i % 400)
            .collect();
        assert!(!inked.is_empty());
        assert!(*inked.iter().max().unwrap() <= 5 + w + 1);
        // Anti-aliased: partial coverage at glyph edges, not only 0 and 255.
        assert!(m.data.iter().any(|&v| v > 0 && v < 255));
        assert!(text_width("pass", 2) > text_width("pass", 1));
    }
}
