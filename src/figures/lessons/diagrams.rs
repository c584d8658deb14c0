//! What the diagrams share: colours, a grid of cells, a labelled box.

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

/// The operands' colours in the lesson diagrams of the parallel algorithms (the cube, the
/// tiles, the meshes): A orange, B blue, C purple; light for the matrix, dark for what the
/// step shown uses.
pub(super) const A_LIGHT: Rgb<u8> = Rgb([253, 208, 162]);
pub(super) const A_DARK: Rgb<u8> = Rgb([230, 85, 13]);
pub(super) const B_LIGHT: Rgb<u8> = Rgb([158, 202, 225]);
pub(super) const B_DARK: Rgb<u8> = Rgb([49, 130, 189]);
pub(super) const C_LIGHT: Rgb<u8> = Rgb([218, 210, 236]);
pub(super) const C_DARK: Rgb<u8> = Rgb([117, 107, 177]);
/// What the step shown does not touch.
pub(super) const IDLE: Rgb<u8> = Rgb([225, 225, 225]);
/// A highlight that is none of A, B or C (a slice, a chosen sum).
pub(super) const SLICE_RED: Rgb<u8> = Rgb([214, 39, 40]);

/// An oblique view of a box of cells: x across (columns, to the right), y down (rows), z into
/// the page (depth, drawn up and to the right, foreshortened), `s` pixels per cell across and
/// down; the front face (z = 0) is seen square.
#[derive(Clone, Copy, Debug)]
pub(super) struct Oblique {
    origin: (f32, f32),
    s: f32,
    d: (f32, f32),
}

impl Oblique {
    /// The front face's top-left corner at `origin`; depth drawn at `depth` of a cell's side per
    /// cell, at `angle` degrees above the horizontal.
    pub(super) fn new(origin: (f32, f32), s: f32, depth: f32, angle: f32) -> Self {
        let a = angle.to_radians();
        Oblique {
            origin,
            s,
            d: (depth * s * a.cos(), -depth * s * a.sin()),
        }
    }

    /// The screen point of (x, y, z) in cells.
    pub(super) fn at(&self, x: f32, y: f32, z: f32) -> (f32, f32) {
        (
            self.origin.0 + x * self.s + z * self.d.0,
            self.origin.1 + y * self.s + z * self.d.1,
        )
    }

    /// The cell (x, y) of the plane z = `z`, parallel to the front face.
    pub(super) fn front(&self, x: f32, y: f32, z: f32) -> [(f32, f32); 4] {
        [
            self.at(x, y, z),
            self.at(x + 1.0, y, z),
            self.at(x + 1.0, y + 1.0, z),
            self.at(x, y + 1.0, z),
        ]
    }

    /// The cell (x, z) of the horizontal plane y = `y` (a top face).
    pub(super) fn top(&self, x: f32, y: f32, z: f32) -> [(f32, f32); 4] {
        [
            self.at(x, y, z),
            self.at(x + 1.0, y, z),
            self.at(x + 1.0, y, z + 1.0),
            self.at(x, y, z + 1.0),
        ]
    }

    /// The cell (y, z) of the vertical plane x = `x` (a side face).
    pub(super) fn side(&self, x: f32, y: f32, z: f32) -> [(f32, f32); 4] {
        [
            self.at(x, y, z),
            self.at(x, y, z + 1.0),
            self.at(x, y + 1.0, z + 1.0),
            self.at(x, y + 1.0, z),
        ]
    }
}

/// `t` centred (both ways) on `at`.
pub(super) fn text_at(img: &mut RgbImage, at: (f32, f32), t: &str, px: f32, c: Rgb<u8>) {
    text::centre(img, at.0, at.1 - text::height(px) / 2.0, t, px, c);
}

/// A key along a row from (`x`, `y`): a swatch and its meaning per entry, `gap` pixels apart.
pub(super) fn key_row(
    img: &mut RgbImage,
    (x, y): (i32, i32),
    entries: &[(Rgb<u8>, &str)],
    gap: i32,
) {
    let mut at = x;
    for (c, what) in entries {
        boxed(img, (at, y, 16, 16), *c, "");
        text::left(
            img,
            (at + 24) as f32,
            y as f32 - 1.0,
            what,
            text::SMALL,
            INK,
        );
        at += 24 + text::width(what, text::SMALL).ceil() as i32 + gap;
    }
}
