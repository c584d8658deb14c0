//! Pictures of matrices: a diverging colour map (blue for negative, white for zero, red for
//! positive), side-by-side panels, each titled and with its colour scale, the few shapes the
//! figures draw (boxes, lines, arrows, colour bars), and PNG output through a temporary file.
//! Text goes through [`super::text`], the one style of every picture.

use super::text::{self, INK, MUTED};
use crate::error::{Error, Result};
use crate::matrix::Matrix;
use image::{Rgb, RgbImage};
use std::path::Path;

/// The background of the figures: a light grey, so a white (zero) cell still shows its edge.
pub const BG: Rgb<u8> = Rgb([244, 244, 244]);
/// Panel outlines and rules.
pub const RULE: Rgb<u8> = Rgb([40, 40, 40]);

/// Colour of `v` on a diverging map scaled so ±`scale` are full blue / full red.
pub fn diverging(v: f32, scale: f32) -> Rgb<u8> {
    if !v.is_finite() {
        return Rgb([255, 0, 255]); // magenta: NaN or infinity, never a valid result
    }
    let t = if scale > 0.0 {
        (v / scale).clamp(-1.0, 1.0)
    } else {
        0.0
    };
    let fade = |x: f32| (255.0 * (1.0 - x)).round() as u8;
    if t >= 0.0 {
        Rgb([255, fade(t * 0.85), fade(t)])
    } else {
        Rgb([fade(-t), fade(-t * 0.85), 255])
    }
}

/// Pixels per matrix cell so the larger side is about `target` pixels (at least 1).
pub fn cell_size(m: &Matrix, target: usize) -> usize {
    (target / m.rows.max(m.cols)).max(1)
}

/// Draw `m` into `img` at (`x0`, `y0`), `cell` pixels per element; matrices larger than
/// `max_px` on a side are sampled down to it.
pub fn draw_matrix(
    img: &mut RgbImage,
    m: &Matrix,
    x0: u32,
    y0: u32,
    cell: usize,
    max_px: usize,
    scale: f32,
) {
    let (w, h) = panel_size(m, cell, max_px);
    for py in 0..h {
        let i = py * m.rows / h;
        for px in 0..w {
            let j = px * m.cols / w;
            img.put_pixel(
                x0 + px as u32,
                y0 + py as u32,
                diverging(m.get(i, j), scale),
            );
        }
    }
}

/// Pixel size of a panel for `m`.
pub fn panel_size(m: &Matrix, cell: usize, max_px: usize) -> (usize, usize) {
    ((m.cols * cell).min(max_px), (m.rows * cell).min(max_px))
}

/// Panels side by side, each with its own symmetric colour scale, on a light grey background,
/// untitled (see [`titled_panels`] for panels that explain themselves).
#[cfg(feature = "internals")]
pub fn panels(mats: &[&Matrix], target: usize) -> RgbImage {
    let gap = 12usize;
    let cell = mats.iter().map(|m| cell_size(m, target)).min().unwrap_or(1);
    let sizes: Vec<(usize, usize)> = mats.iter().map(|m| panel_size(m, cell, target)).collect();
    let width = sizes.iter().map(|s| s.0).sum::<usize>() + gap * (mats.len() + 1);
    let height = sizes.iter().map(|s| s.1).max().unwrap_or(1) + 2 * gap;
    let mut img = RgbImage::from_pixel(width as u32, height as u32, Rgb([230, 230, 230]));
    let mut x = gap;
    for (m, (w, _)) in mats.iter().zip(&sizes) {
        draw_matrix(
            &mut img,
            m,
            x as u32,
            gap as u32,
            cell,
            target,
            robust_scale(m),
        );
        x += w + gap;
    }
    img
}

/// Save an image as PNG atomically.
pub fn save_png(path: &Path, img: &RgbImage) -> Result<()> {
    crate::io::write_atomic(path, |w| {
        let mut buf = std::io::Cursor::new(Vec::new());
        img.write_to(&mut buf, image::ImageFormat::Png)
            .map_err(|e| Error::format(path, format!("PNG encoding failed: {e}")))?;
        w.write_all(buf.get_ref()).map_err(|e| Error::io(path, e))
    })
}

/// A colour scale that keeps a few large elements from washing out the rest: the smaller of the
/// largest |value| and three times the root mean square (the demos' scale, one function).
pub use super::scale::robust_scale;

/// One panel of [`titled_panels`]: a matrix, the lines of its title, and the colour scale it is
/// drawn on (± `scale` is full colour; `None`: its own [`robust_scale`]).
pub struct Titled<'a> {
    pub m: &'a Matrix,
    pub title: Vec<String>,
    pub scale: Option<f32>,
}

impl<'a> Titled<'a> {
    pub fn new(m: &'a Matrix, title: &[&str]) -> Self {
        Titled {
            m,
            title: title.iter().map(|t| t.to_string()).collect(),
            scale: None,
        }
    }

    /// Drawn on ± `scale`.
    pub fn scale(mut self, scale: f32) -> Self {
        self.scale = Some(scale);
        self
    }
}

/// Where [`titled_panels`] put each panel's matrix: left, top, pixels per cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    pub x: u32,
    pub y: u32,
    pub cell: u32,
}

/// Margin around and between titled panels.
pub const GAP: u32 = 28;

/// A figure of titled panels side by side: the figure's title on top, then each matrix with its
/// title lines above it, an outline, and its colour bar below it (a shared one when every panel
/// uses the same scale), then `notes` in small print at the bottom. One cell size for every panel
/// (the largest that keeps each within `target` pixels). Returns the image and where each
/// matrix lies in it, for drawing over them.
pub fn titled_panels(
    title: &str,
    panels: &[Titled],
    target: usize,
    notes: &[&str],
) -> (RgbImage, Vec<Placed>) {
    let cell = panels
        .iter()
        .map(|p| cell_size(p.m, target))
        .min()
        .unwrap_or(1) as u32;
    let scales: Vec<f32> = panels
        .iter()
        .map(|p| {
            p.scale
                .unwrap_or_else(|| robust_scale(p.m))
                .max(f32::MIN_POSITIVE)
        })
        .collect();
    let shared = scales.windows(2).all(|w| w[0] == w[1]);
    let label_lines = panels.iter().map(|p| p.title.len()).max().unwrap_or(0) as f32;
    let title_h = if title.is_empty() {
        0.0
    } else {
        text::line(text::TITLE) + 6.0
    };
    // The titles, then a strip for numbers along the matrix's top edge (sizes, indices).
    let labels_h = label_lines * text::line(text::LABEL) + text::line(text::SMALL) + 6.0;
    let bar_h = BAR_H + text::line(text::SMALL) * 2.0 + 8.0;
    let widths = panel_widths(panels, cell, shared);
    let mat_h = panels
        .iter()
        .map(|p| p.m.rows as u32 * cell)
        .max()
        .unwrap_or(1);
    let notes_h = notes.len() as f32 * text::line(text::SMALL);
    let content_w = widths.iter().sum::<u32>() + GAP * (panels.len() as u32 + 1);
    let shared_bar_w = if shared { 360 } else { 0 };
    let width = figure_width(title, notes, content_w, shared_bar_w);
    let height = (GAP as f32 + title_h + labels_h) as u32
        + mat_h
        + 10
        + bar_h as u32
        + notes_h as u32
        + GAP / 2;
    let mut img = RgbImage::from_pixel(width, height, BG);
    if !title.is_empty() {
        text::left(
            &mut img,
            GAP as f32,
            GAP as f32 / 2.0,
            title,
            text::TITLE,
            INK,
        );
    }
    let top = (GAP as f32 / 2.0 + title_h + labels_h) as u32;
    let mut x = GAP + (width - content_w) / 2;
    let mut placed = vec![];
    for ((p, &w), &scale) in panels.iter().zip(&widths).zip(&scales) {
        let bar_y = (!shared).then_some(top + mat_h + 10);
        placed.push(draw_titled(
            &mut img,
            p,
            (x, w),
            (top, labels_h),
            cell,
            scale,
            bar_y,
        ));
        x += w + GAP;
    }
    if shared {
        let s = scales.first().copied().unwrap_or(1.0);
        diverging_bar(
            &mut img,
            ((width - shared_bar_w) / 2) as i32,
            (top + mat_h + 10) as i32,
            shared_bar_w,
            s,
            "colour scale of every panel",
        );
    }
    let mut y = (top + mat_h + 10) as f32 + bar_h;
    for n in notes {
        text::left(&mut img, GAP as f32, y, n, text::SMALL, MUTED);
        y += text::line(text::SMALL);
    }
    (img, placed)
}

/// Each panel's width: its matrix, its widest title line, and room for a colour bar of its
/// own when the scale is not shared.
fn panel_widths(panels: &[Titled], cell: u32, shared: bool) -> Vec<u32> {
    panels
        .iter()
        .map(|p| {
            let w = p.m.cols as u32 * cell;
            let tw = p
                .title
                .iter()
                .map(|t| text::width(t, text::LABEL).ceil() as u32)
                .max()
                .unwrap_or(0);
            w.max(tw).max(if shared { 0 } else { 150 })
        })
        .collect()
}

/// The figure's width: the panels', the title's, the notes' and the shared bar's, whichever is
/// widest.
fn figure_width(title: &str, notes: &[&str], content_w: u32, shared_bar_w: u32) -> u32 {
    let title_w = text::width(title, text::TITLE).ceil() as u32 + 2 * GAP;
    let notes_w = notes
        .iter()
        .map(|n| text::width(n, text::SMALL).ceil() as u32 + 2 * GAP)
        .max()
        .unwrap_or(0);
    content_w
        .max(title_w)
        .max(notes_w)
        .max(shared_bar_w + 2 * GAP)
}

/// One panel of [`titled_panels`] in the column at `x`, `w` wide: its title lines above
/// `top`, its matrix outlined, and its own colour bar at `bar_y` if it has one. Returns where
/// the matrix lies.
fn draw_titled(
    img: &mut RgbImage,
    p: &Titled,
    (x, w): (u32, u32),
    (top, labels_h): (u32, f32),
    cell: u32,
    scale: f32,
    bar_y: Option<u32>,
) -> Placed {
    let (pw, ph) = (p.m.cols as u32 * cell, p.m.rows as u32 * cell);
    let px = x + (w - pw) / 2;
    let mut ty = top as f32 - labels_h;
    for t in &p.title {
        text::centre(img, (x + w / 2) as f32, ty, t, text::LABEL, INK);
        ty += text::line(text::LABEL);
    }
    draw_matrix(img, p.m, px, top, cell as usize, usize::MAX, scale);
    outline(img, px as i32 - 1, top as i32 - 1, pw + 2, ph + 2, 1, RULE);
    if let Some(bar_y) = bar_y {
        let bw = w.clamp(120, 220);
        diverging_bar(img, (x + (w - bw) / 2) as i32, bar_y as i32, bw, scale, "");
    }
    Placed {
        x: px,
        y: top,
        cell,
    }
}

/// Height of a colour bar's strip.
pub const BAR_H: f32 = 12.0;

/// A horizontal colour bar of [`diverging`] from −`scale` to +`scale` at (`x`, `y`), `w` wide,
/// with tick labels under it (−scale, 0, +scale) and a caption after the ticks line.
pub fn diverging_bar(img: &mut RgbImage, x: i32, y: i32, w: u32, scale: f32, caption: &str) {
    colour_bar(
        img,
        x,
        y,
        w,
        |t| diverging((2.0 * t - 1.0) * scale, scale),
        &[
            (0.0, format!("−{}", number(scale))),
            (0.5, "0".into()),
            (1.0, format!("+{}", number(scale))),
        ],
        caption,
    );
}

/// A horizontal colour bar at (`x`, `y`), `w` wide: `map(t)` for t from 0 (left) to 1 (right),
/// outlined, with `ticks` (t, label) under it and `caption` below them.
pub fn colour_bar(
    img: &mut RgbImage,
    x: i32,
    y: i32,
    w: u32,
    map: impl Fn(f32) -> Rgb<u8>,
    ticks: &[(f32, String)],
    caption: &str,
) {
    let h = BAR_H as u32;
    for dx in 0..w {
        let c = map(dx as f32 / (w.max(2) - 1) as f32);
        fill(img, x + dx as i32, y, 1, h, c);
    }
    outline(img, x - 1, y - 1, w + 2, h + 2, 1, RULE);
    let ty = (y + h as i32 + 3) as f32;
    for (t, label) in ticks {
        let tx = x as f32 + t * (w - 1) as f32;
        fill(img, tx.round() as i32, y + h as i32, 1, 3, RULE);
        let align = if *t <= 0.0 {
            text::Align::Left
        } else if *t >= 1.0 {
            text::Align::Right
        } else {
            text::Align::Centre
        };
        let ax = match align {
            text::Align::Left => x as f32,
            text::Align::Right => (x + w as i32) as f32,
            text::Align::Centre => tx,
        };
        text::draw(img, ax, ty, label, text::SMALL, INK, align);
    }
    if !caption.is_empty() {
        text::centre(
            img,
            x as f32 + w as f32 / 2.0,
            ty + text::line(text::SMALL),
            caption,
            text::SMALL,
            MUTED,
        );
    }
}

/// A value with two significant digits for a scale's ticks (`0.5`, `1`, `2.4`, `310`): the
/// demos' tick labels, one function.
pub use super::scale::number;

/// Fill the rectangle (`x`, `y`, `w`, `h`) with `c`, clipped to the image.
pub fn fill(img: &mut RgbImage, x: i32, y: i32, w: u32, h: u32, c: Rgb<u8>) {
    let (iw, ih) = (img.width() as i32, img.height() as i32);
    for py in y.max(0)..(y + h as i32).min(ih) {
        for px in x.max(0)..(x + w as i32).min(iw) {
            img.put_pixel(px as u32, py as u32, c);
        }
    }
}

/// The outline of the rectangle (`x`, `y`, `w`, `h`), `t` pixels thick, inside it.
pub fn outline(img: &mut RgbImage, x: i32, y: i32, w: u32, h: u32, t: u32, c: Rgb<u8>) {
    fill(img, x, y, w, t, c);
    fill(img, x, y + h as i32 - t as i32, w, t, c);
    fill(img, x, y, t, h, c);
    fill(img, x + w as i32 - t as i32, y, t, h, c);
}

/// A straight line `width` pixels wide from (`x0`, `y0`) to (`x1`, `y1`).
pub fn line(
    img: &mut RgbImage,
    (x0, y0): (f32, f32),
    (x1, y1): (f32, f32),
    width: f32,
    c: Rgb<u8>,
) {
    let len = ((x1 - x0).powi(2) + (y1 - y0).powi(2)).sqrt().max(1.0);
    let steps = (len * 2.0) as i32;
    let r = (width / 2.0).max(0.5);
    for s in 0..=steps {
        let t = s as f32 / steps.max(1) as f32;
        let (x, y) = (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t);
        fill(
            img,
            (x - r).round() as i32,
            (y - r).round() as i32,
            (2.0 * r).round().max(1.0) as u32,
            (2.0 * r).round().max(1.0) as u32,
            c,
        );
    }
}

/// An arrow from (`x0`, `y0`) to (`x1`, `y1`) with a filled head at the end.
pub fn arrow(img: &mut RgbImage, from: (f32, f32), to: (f32, f32), width: f32, c: Rgb<u8>) {
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (ux, uy) = (dx / len, dy / len);
    let head = (4.0 * width).max(9.0);
    let base = (to.0 - ux * head, to.1 - uy * head);
    line(img, from, base, width, c);
    // The head: lines across the triangle from its base to its tip.
    let half = head * 0.55;
    let steps = (head * 2.0) as i32;
    for s in 0..=steps {
        let t = s as f32 / steps as f32;
        let (cx, cy) = (base.0 + ux * head * t, base.1 + uy * head * t);
        let w = half * (1.0 - t);
        line(
            img,
            (cx - uy * w, cy + ux * w),
            (cx + uy * w, cy - ux * w),
            1.0,
            c,
        );
    }
}

/// `c` laid over `under` at opacity `alpha` (0: `under` unchanged, 1: `c`).
pub fn blend(under: Rgb<u8>, c: Rgb<u8>, alpha: f32) -> Rgb<u8> {
    let a = alpha.clamp(0.0, 1.0);
    let mix = |u: u8, v: u8| (u as f32 * (1.0 - a) + v as f32 * a).round() as u8;
    Rgb([
        mix(under.0[0], c.0[0]),
        mix(under.0[1], c.0[1]),
        mix(under.0[2], c.0[2]),
    ])
}

/// Fill the polygon through `pts` (closed, convex or not; even-odd rule) with `c` at opacity
/// `alpha` over what is there, clipped to the image: a pixel is inside when its centre is.
pub fn polygon(img: &mut RgbImage, pts: &[(f32, f32)], c: Rgb<u8>, alpha: f32) {
    if pts.len() < 3 {
        return;
    }
    let (w, h) = (img.width() as i32, img.height() as i32);
    let lo = pts.iter().map(|p| p.1).fold(f32::INFINITY, f32::min);
    let hi = pts.iter().map(|p| p.1).fold(f32::NEG_INFINITY, f32::max);
    let mut xs: Vec<f32> = vec![];
    for py in (lo.floor() as i32).max(0)..(hi.ceil() as i32).min(h) {
        let y = py as f32 + 0.5;
        xs.clear();
        for (k, &(x0, y0)) in pts.iter().enumerate() {
            let (x1, y1) = pts[(k + 1) % pts.len()];
            if (y0 <= y) != (y1 <= y) {
                xs.push(x0 + (y - y0) / (y1 - y0) * (x1 - x0));
            }
        }
        xs.sort_by(f32::total_cmp);
        for span in xs.chunks_exact(2) {
            let from = ((span[0] - 0.5).ceil() as i32).max(0);
            let to = ((span[1] - 0.5).floor() as i32).min(w - 1);
            for px in from..=to {
                let p = img.get_pixel_mut(px as u32, py as u32);
                *p = blend(*p, c, alpha);
            }
        }
    }
}

/// The outline of the closed polygon through `pts`, `width` pixels wide.
pub fn polygon_outline(img: &mut RgbImage, pts: &[(f32, f32)], width: f32, c: Rgb<u8>) {
    for (k, &a) in pts.iter().enumerate() {
        line(img, a, pts[(k + 1) % pts.len()], width, c);
    }
}

/// A dashed line from `a` to `b`, `width` pixels wide: dashes of `dash` pixels, gaps as long.
pub fn dashed(img: &mut RgbImage, a: (f32, f32), b: (f32, f32), width: f32, dash: f32, c: Rgb<u8>) {
    let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
    let count = (len / (2.0 * dash)).ceil().max(1.0) as usize;
    let at = |t: f32| (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
    for s in 0..count {
        let t0 = s as f32 * 2.0 * dash / len.max(1.0);
        let t1 = ((s as f32 * 2.0 + 1.0) * dash / len.max(1.0)).min(1.0);
        if t0 < 1.0 {
            line(img, at(t0), at(t1), width, c);
        }
    }
}
