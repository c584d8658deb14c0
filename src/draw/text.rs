//! Text for every picture rendermm draws — the figures, the charts and the demos — in one style:
//! the bundled DejaVu Sans (`assets/fonts/`, compiled in, so no system font is needed),
//! rasterized with anti-aliasing by `ab_glyph`, the same rasterizer the charts' plotters uses,
//! in mixed case, in dark ink, at the sizes below.

use super::font;
use image::{Rgb, RgbImage};

/// DejaVu Sans, compiled in (the demos' copy: one in the binary).
pub const FONT: &[u8] = font::FONT;

/// A picture's title.
pub const TITLE: f32 = 20.0;
/// A panel's title, an axis name.
pub const LABEL: f32 = 15.0;
/// Notes, tick labels, the small print.
pub const SMALL: f32 = 13.0;

/// Text colour.
pub const INK: Rgb<u8> = Rgb([25, 25, 25]);
/// Secondary text (notes, file names).
pub const MUTED: Rgb<u8> = Rgb([95, 95, 95]);

/// Horizontal anchor of a line of text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Centre,
    Right,
}

/// Width in pixels of `text` at `px` (kerning included).
pub fn width(text: &str, px: f32) -> f32 {
    font::width_px(text, px)
}

/// Height of a line's box at `px`: ascent to descent.
pub fn height(px: f32) -> f32 {
    font::height_px(px)
}

/// Distance between the baselines of two lines at `px`.
pub fn line(px: f32) -> f32 {
    (height(px) * 1.2).ceil()
}

/// Rasterize `text` at `px` with its line box's top-left corner at (`x`, `y`), calling `put(x, y,
/// coverage)` for every pixel it touches (coverage in 0..=1; pixels may be negative or beyond
/// any image, the caller clips).
pub fn raster(text: &str, px: f32, x: f32, y: f32, put: impl FnMut(i32, i32, f32)) {
    font::raster(text, px, x, y, put)
}

/// Draw `text` onto `img` in `colour`, blended by coverage, anchored at (`x`, `y`): `y` is the
/// top of the line box, `x` its left edge, centre or right edge as `align` says.
pub fn draw(
    img: &mut RgbImage,
    x: f32,
    y: f32,
    text: &str,
    px: f32,
    colour: Rgb<u8>,
    align: Align,
) {
    let x = match align {
        Align::Left => x,
        Align::Centre => x - width(text, px) / 2.0,
        Align::Right => x - width(text, px),
    };
    let (w, h) = (img.width() as i32, img.height() as i32);
    raster(text, px, x.round(), y.round(), |px_, py, cov| {
        if px_ < 0 || py < 0 || px_ >= w || py >= h {
            return;
        }
        let cov = cov.clamp(0.0, 1.0);
        let p = img.get_pixel_mut(px_ as u32, py as u32);
        for c in 0..3 {
            p.0[c] = (p.0[c] as f32 * (1.0 - cov) + colour.0[c] as f32 * cov).round() as u8;
        }
    });
}

/// [`draw`] with left alignment.
pub fn left(img: &mut RgbImage, x: f32, y: f32, text: &str, px: f32, colour: Rgb<u8>) {
    draw(img, x, y, text, px, colour, Align::Left);
}

/// [`draw`] centred on `x`.
pub fn centre(img: &mut RgbImage, x: f32, y: f32, text: &str, px: f32, colour: Rgb<u8>) {
    draw(img, x, y, text, px, colour, Align::Centre);
}

/// Draw lines of text from (`x`, `y`) down, one [`line`](fn@line) apart; returns the y below the last.
pub fn lines(img: &mut RgbImage, x: f32, y: f32, text: &[&str], px: f32, colour: Rgb<u8>) -> f32 {
    let mut y = y;
    for t in text {
        left(img, x, y, t, px, colour);
        y += line(px);
    }
    y
}

/// `text` broken into lines no wider than `max` pixels at `px`, at spaces (a word wider than
/// `max` gets a line of its own).
pub fn wrap(text: &str, px: f32, max: f32) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    let mut cur = String::new();
    for word in text.split_whitespace() {
        let candidate = if cur.is_empty() {
            word.to_string()
        } else {
            format!("{cur} {word}")
        };
        if !cur.is_empty() && width(&candidate, px) > max {
            out.push(std::mem::replace(&mut cur, word.to_string()));
        } else {
            cur = candidate;
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_drawn_inside_its_measured_box_and_lower_case_is_narrower() {
        let px = LABEL;
        let t = "Slice p = 2: A[i, p] · B[p, j]";
        let w = width(t, px).ceil() as i32;
        let h = height(px).ceil() as i32;
        let (mut lo, mut hi, mut ink) = ((i32::MAX, i32::MAX), (i32::MIN, i32::MIN), 0.0);
        raster(t, px, 10.0, 10.0, |x, y, c| {
            if c > 0.05 {
                lo = (lo.0.min(x), lo.1.min(y));
                hi = (hi.0.max(x), hi.1.max(y));
                ink += c;
            }
        });
        assert!(ink > 50.0, "no ink");
        assert!(lo.0 >= 9 && lo.1 >= 9, "{lo:?}");
        assert!(
            hi.0 <= 10 + w + 1 && hi.1 <= 10 + h + 1,
            "{hi:?} in {w}x{h}"
        );
        assert!(width("slice", px) < width("SLICE", px));
    }

    #[test]
    fn draw_blends_into_the_image_and_clips_at_its_edges() {
        let mut img = RgbImage::from_pixel(40, 20, Rgb([255, 255, 255]));
        draw(&mut img, -5.0, -3.0, "Abg", TITLE, INK, Align::Left);
        draw(&mut img, 38.0, 15.0, "Wide text", TITLE, INK, Align::Left);
        assert!(img.pixels().any(|p| p.0[0] < 100));
    }

    #[test]
    fn wrap_keeps_every_word_and_each_line_within_the_width() {
        let t = "a fragment program sums b products and the running sum read from texture F";
        let lines = wrap(t, SMALL, 120.0);
        assert!(lines.len() > 2);
        assert_eq!(lines.join(" "), t);
        assert!(lines.iter().all(|l| width(l, SMALL) <= 120.0));
    }
}
