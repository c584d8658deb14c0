//! What the three diagrams share: colours, a grid of cells, a labelled box.

use super::*;

pub(super) fn hsv(h: f32, s: f32, v: f32) -> Rgb<u8> {
    let c = v * s;
    let x = c * (1.0 - ((h / 60.0) % 2.0 - 1.0).abs());
    let (r, g, b) = match (h / 60.0) as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    let q = |u: f32| ((u + m) * 255.0).round() as u8;
    Rgb([q(r), q(g), q(b)])
}

pub(super) const EMPTY: Rgb<u8> = Rgb([255, 255, 255]);
pub(super) const GRID: Rgb<u8> = Rgb([200, 200, 200]);

/// A `rows`×`cols` grid of `cell`-pixel cells at (`x`, `y`): each cell white or `paint`'s colour,
/// with `paint`'s text centred in it, thin grid lines and an outline.
pub(super) fn grid(
    img: &mut RgbImage,
    (x, y): (i32, i32),
    (rows, cols, cell): (usize, usize, i32),
    paint: impl Fn(usize, usize) -> Option<(Rgb<u8>, String)>,
) {
    for r in 0..rows {
        for c in 0..cols {
            let (cx, cy) = (x + c as i32 * cell, y + r as i32 * cell);
            let p = paint(r, c);
            fill(
                img,
                cx,
                cy,
                cell as u32,
                cell as u32,
                p.as_ref().map_or(EMPTY, |p| p.0),
            );
            outline(img, cx, cy, cell as u32 + 1, cell as u32 + 1, 1, GRID);
            if let Some((_, t)) = p.filter(|p| !p.1.is_empty()) {
                let px = (cell as f32 * 0.6).min(text::SMALL);
                let ty = cy as f32 + (cell as f32 - text::height(px)) / 2.0;
                text::centre(img, cx as f32 + cell as f32 / 2.0, ty, &t, px, INK);
            }
        }
    }
    outline(
        img,
        x - 1,
        y - 1,
        (cols as i32 * cell + 3) as u32,
        (rows as i32 * cell + 3) as u32,
        1,
        RULE,
    );
}

pub(super) const F16: Rgb<u8> = Rgb([158, 202, 225]);
pub(super) const F16_HI: Rgb<u8> = Rgb([49, 130, 189]);
pub(super) const F32: Rgb<u8> = Rgb([253, 208, 162]);
pub(super) const F32_HI: Rgb<u8> = Rgb([230, 85, 13]);

/// A box `w`×`h` at (`x`, `y`) filled with `c`, outlined, with `label` centred in it.
pub(super) fn boxed(
    img: &mut RgbImage,
    (x, y, w, h): (i32, i32, i32, i32),
    c: Rgb<u8>,
    label: &str,
) {
    fill(img, x, y, w as u32, h as u32, c);
    outline(img, x, y, w as u32, h as u32, 1, RULE);
    if !label.is_empty() {
        let ty = y as f32 + (h as f32 - text::height(text::SMALL)) / 2.0;
        text::centre(img, x as f32 + w as f32 / 2.0, ty, label, text::SMALL, INK);
    }
}
