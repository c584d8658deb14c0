//! The explanatory pictures: L-M §5's reachability example, Hall's 2x2 packing, the tour's L-M
//! picture.

use super::*;

/// L-M §5's sample application on `assets/graph-example.txt` (24 nodes, 6 components), by
/// One panel of [`reach_example`] at `x0`: its title lines, the 0/1 matrix `m` as black and
/// white cells over `nodes` nodes, and every fourth node's index along the top and the left.
fn reach_panel(
    img: &mut RgbImage,
    m: &Matrix,
    (title, sub): (&str, &str),
    x0: u32,
    (top, cell, nodes): (u32, u32, usize),
) {
    use picture::{RULE, fill, outline};
    use text::{INK, LABEL, MUTED, SMALL};
    let (n, side) = (nodes as u32, nodes as u32 * cell);
    text::centre(img, (x0 + side / 2) as f32, 48.0, title, LABEL, INK);
    text::centre(img, (x0 + side / 2) as f32, 70.0, sub, SMALL, MUTED);
    outline(
        img,
        x0 as i32 - 1,
        top as i32 - 1,
        side + 2,
        side + 2,
        1,
        RULE,
    );
    for u in 0..nodes {
        for v in 0..nodes {
            let c = if m.get(u, v) != 0.0 { 255 } else { 0 };
            let (x, y) = (x0 + v as u32 * cell, top + u as u32 * cell);
            fill(img, x as i32, y as i32, cell, cell, Rgb([70, 70, 70]));
            fill(
                img,
                x as i32 + 1,
                y as i32 + 1,
                cell - 1,
                cell - 1,
                Rgb([c, c, c]),
            );
        }
    }
    for t in (0..n).step_by(4) {
        text::centre(
            img,
            (x0 + t * cell + cell / 2) as f32,
            (top - 18) as f32,
            &t.to_string(),
            SMALL,
            MUTED,
        );
        text::draw(
            img,
            x0 as f32 - 5.0,
            (top + t * cell + cell / 2) as f32 - 8.0,
            &t.to_string(),
            SMALL,
            MUTED,
            text::Align::Right,
        );
    }
}

/// `rendermm reach`: M = I + A, M² (who reaches whom within 2 steps) and the transitive closure,
/// white where node v (column) is reachable from node u (row), each panel titled, node indices
/// along the edges.
pub fn reach_example(ctx: &GpuContext, out: &Path) -> Result<()> {
    use crate::reach::{self, Goal, ReachOptions};
    use picture::BG;
    use text::{INK, MUTED, SMALL, TITLE};
    let source = include_str!("../../assets/graph-example.txt");
    let g = reach::graph::parse_edge_list(
        Path::new("assets/graph-example.txt"),
        source,
        Default::default(),
    )?;
    let o = ReachOptions::default();
    let base = reach::power(ctx, &g.reach_base(), &[], &o)?.matrix;
    let two = reach::reach(ctx, &g, Goal::Steps(2), &o)?;
    let closure = reach::reach(ctx, &g, Goal::Closure, &o)?;
    let count = closure.components.as_ref().map_or(0, |c| c.count());
    let panels = [
        (
            "M = I + A".to_string(),
            "an edge or the node itself".to_string(),
            base,
        ),
        (
            "M² = M·M".to_string(),
            "reachable within 2 steps".to_string(),
            two.matrix,
        ),
        (
            format!(
                "Closure: M{} ({} squarings)",
                superscript(1usize << closure.steps.len()),
                closure.steps.len()
            ),
            format!("reachable at all: {count} components"),
            closure.matrix,
        ),
    ];
    let n = g.nodes as u32;
    let cell = 14u32;
    let side = n * cell;
    let (gap, top, left) = (70u32, 108u32, 44u32);
    let width = left + 3 * side + 2 * gap + 30;
    let height = top + side + 96;
    let mut img = RgbImage::from_pixel(width, height, BG);
    text::left(
        &mut img,
        24.0,
        14.0,
        &format!(
            "L-M §5's sample application: reachability in a {n}-node graph by repeated 0/1 products (lm)"
        ),
        TITLE,
        INK,
    );
    for (p, (title, sub, m)) in panels.iter().enumerate() {
        let x0 = left + p as u32 * (side + gap);
        reach_panel(&mut img, m, (title, sub), x0, (top, cell, g.nodes));
    }
    text::lines(
        &mut img,
        left as f32,
        (top + side + 14) as f32,
        &[
            "Row u, column v: white (1) where node v is reachable from node u, black (0) where not. Node indices count from 0.",
            "The graph: a path 0–5, a cycle 6–11, a complete graph on 12–16, a star around 17 (17–21), and the isolated nodes 22 and 23.",
            "Each squaring is one 0/1 product on the GPU; an 8-bit sum above one saturates to 1, which is what reachability wants.",
        ],
        SMALL,
        MUTED,
    );
    picture::save_png(out, &img)
}

/// Hall–Carr–Hart eq. (8), drawn from a real packed texture: a 7×9 matrix X (odd both ways, so
/// the padding shows) goes through [`hall_packed::upload_packed`] on `ctx`'s adapter and is read
/// back texel by texel. Left: X zero-padded to 8×10, each element coloured by its quadrant
/// (A red, B green, C blue, D grey), shaded by its place in the quadrant, the quadrants lettered;
/// padding hatched. Right: the 4×5 packed texture, each texel drawn as 2×2 sub-cells holding its
/// r, g, b, a channels in the quadrants' own arrangement, each sub-cell lettered. Every sub-cell's
/// colour is looked up from the value the GPU returned, so a wrong packing would show as a wrong
/// picture. One element and the texel channel it lands in are outlined in both.
pub fn packing_picture(ctx: &GpuContext) -> Result<RgbImage> {
    use hall_packed::{packed_shape, upload_packed};
    let (rows, cols) = (7usize, 9usize);
    let (h, w) = packed_shape(rows, cols);
    // Element (i, j) holds 1 + its row-major index (i·cols + j), exact in f32; padding is 0, so
    // a value names the element it came from.
    let x = Matrix::from_fn(rows, cols, |i, j| (i * cols + j + 1) as f32);
    let tex = upload_packed(ctx, "figure X", &x)?;
    let texels: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(&tex.read_bytes(ctx)?);

    let cell = 34u32;
    let panel_w = 2 * w as u32 * cell;
    let panel_h = 2 * h as u32 * cell;
    let arrow_w = 150u32;
    let (lx, ty) = (56u32, 118u32);
    let rx = lx + panel_w + arrow_w;
    let width = rx + panel_w + 300;
    let height = ty + panel_h + 76;
    let g = Packing {
        rows,
        cols,
        h,
        w,
        cell,
        lx,
        rx,
        ty,
        panel_w,
        panel_h,
        arrow_w,
    };
    let mut img = RgbImage::from_pixel(width, height, picture::BG);
    g.titles(&mut img);
    g.left(&mut img, &x);
    g.indices(&mut img);
    g.arrow(&mut img);
    g.right(&mut img, &texels);
    let followed = g.follow(&mut img);
    g.key(&mut img, followed);
    let foot = (ty + panel_h + 24) as f32;
    text::lines(
        &mut img,
        lx as f32,
        foot,
        &[
            "One texel carries the (i, j) element of all four quadrants, so one fragment of hall-packed computes four elements of C at once (eq. 10-11):",
            "Z = (AE + BG  AF + BH; CE + DG  CF + DH), two 4-wide multiply-adds per packed p. Odd sides are padded with zeros, which add nothing.",
        ],
        text::SMALL,
        text::MUTED,
    );
    Ok(img)
}

/// The geometry of [`packing_picture`]: X's size and its packed size, the cell size, and where
/// the two panels sit.
#[derive(Clone, Copy)]
struct Packing {
    rows: usize,
    cols: usize,
    h: usize,
    w: usize,
    cell: u32,
    lx: u32,
    rx: u32,
    ty: u32,
    panel_w: u32,
    panel_h: u32,
    arrow_w: u32,
}

const BASE: [[f32; 3]; 4] = [
    [214., 39., 40.],
    [44., 160., 44.],
    [31., 119., 180.],
    [110., 110., 110.],
];
const QUADRANT: [&str; 4] = ["A", "B", "C", "D"];
const CHANNEL: [&str; 4] = ["r", "g", "b", "a"];

impl Packing {
    /// The colour of the element whose value is `v` (1 + its row-major index): its quadrant's,
    /// lighter towards the quadrant's top-left; `None` for padding.
    fn colour(&self, v: f32) -> Option<Rgb<u8>> {
        let Packing { cols, h, w, .. } = *self;
        if v == 0.0 {
            return None;
        }
        let idx = v as usize - 1;
        let (i, j) = (idx / cols, idx % cols);
        let q = 2 * usize::from(i >= h) + usize::from(j >= w);
        let t =
            ((i % h) as f32 / (h - 1).max(1) as f32 + (j % w) as f32 / (w - 1).max(1) as f32) / 2.0;
        let lift = 0.6 * (1.0 - t);
        Some(Rgb(BASE[q].map(|c| (c + (255.0 - c) * lift).round() as u8)))
    }

    /// One cell at (`x0`, `y0`): filled with `c` and edged darker, or hatched for padding.
    fn draw_cell(&self, img: &mut RgbImage, x0: u32, y0: u32, c: Option<Rgb<u8>>) {
        let cell = self.cell;
        for dy in 0..cell {
            for dx in 0..cell {
                let edge = dx == 0 || dy == 0 || dx == cell - 1 || dy == cell - 1;
                let px = match c {
                    Some(Rgb(c)) if edge => Rgb(c.map(|v| (v as f32 * 0.7) as u8)),
                    Some(c) => c,
                    None if edge || (dx + dy) % 7 == 0 => Rgb([150, 150, 150]),
                    None => Rgb([250, 250, 250]),
                };
                img.put_pixel(x0 + dx, y0 + dy, px);
            }
        }
    }

    /// The title and the two panels' headings.
    fn titles(&self, img: &mut RgbImage) {
        use text::{INK, LABEL, MUTED, SMALL, TITLE};
        let Packing {
            rows,
            cols,
            h,
            w,
            lx,
            rx,
            panel_w,
            ..
        } = *self;
        text::left(
            img,
            24.0,
            14.0,
            &format!(
                "Hall–Carr–Hart eq. 8: a {rows}×{cols} matrix X packed 2×2 into a {h}×{w} RGBA texture (read back from the GPU)"
            ),
            TITLE,
            INK,
        );
        text::centre(
            img,
            (lx + panel_w / 2) as f32,
            50.0,
            &format!(
                "X padded with zeros to {}×{}, cut into quadrants",
                2 * h,
                2 * w
            ),
            LABEL,
            INK,
        );
        text::centre(
            img,
            (lx + panel_w / 2) as f32,
            72.0,
            &format!("X = (A B; C D), each quadrant {h}×{w}"),
            SMALL,
            MUTED,
        );
        text::centre(
            img,
            (rx + panel_w / 2) as f32,
            50.0,
            &format!("The texture: {h}×{w} texels of 4 channels"),
            LABEL,
            INK,
        );
        text::centre(
            img,
            (rx + panel_w / 2) as f32,
            72.0,
            "texel (i, j) = (r, g, b, a) = (A[i, j], B[i, j], C[i, j], D[i, j])",
            SMALL,
            MUTED,
        );
    }

    /// Left: the padded matrix, quadrant boundaries ruled, quadrants lettered.
    fn left(&self, img: &mut RgbImage, x: &Matrix) {
        use picture::{RULE, fill, outline};
        use text::INK;
        let Packing {
            rows,
            cols,
            h,
            w,
            cell,
            lx,
            ty,
            panel_w,
            panel_h,
            ..
        } = *self;
        for i in 0..2 * h {
            for j in 0..2 * w {
                let v = if i < rows && j < cols {
                    x.get(i, j)
                } else {
                    0.0
                };
                self.draw_cell(
                    img,
                    lx + j as u32 * cell,
                    ty + i as u32 * cell,
                    self.colour(v),
                );
            }
        }
        fill(
            img,
            (lx + w as u32 * cell) as i32 - 2,
            ty as i32,
            4,
            panel_h,
            RULE,
        );
        fill(
            img,
            lx as i32,
            (ty + h as u32 * cell) as i32 - 2,
            panel_w,
            4,
            RULE,
        );
        for (q, name) in QUADRANT.iter().enumerate() {
            let (qi, qj) = ((q / 2) as u32, (q % 2) as u32);
            let cx = (lx + qj * w as u32 * cell + w as u32 * cell / 2) as f32;
            let cy = (ty + qi * h as u32 * cell + h as u32 * cell / 2) as f32;
            fill(
                img,
                cx as i32 - 17,
                cy as i32 - 19,
                34,
                38,
                Rgb([255, 255, 255]),
            );
            outline(img, cx as i32 - 17, cy as i32 - 19, 34, 38, 1, RULE);
            text::centre(img, cx, cy - 17.0, name, 30.0, INK);
        }
    }

    /// Indices, 0-based: X's rows and columns, the texture's texel rows and columns.
    fn indices(&self, img: &mut RgbImage) {
        use text::{MUTED, SMALL};
        let Packing {
            h,
            w,
            cell,
            lx,
            rx,
            ty,
            ..
        } = *self;
        for j in 0..2 * w as u32 {
            text::centre(
                img,
                (lx + j * cell + cell / 2) as f32,
                (ty - 20) as f32,
                &j.to_string(),
                SMALL,
                MUTED,
            );
        }
        for i in 0..2 * h as u32 {
            text::draw(
                img,
                (lx - 8) as f32,
                (ty + i * cell + cell / 2) as f32 - 8.0,
                &i.to_string(),
                SMALL,
                MUTED,
                text::Align::Right,
            );
        }
        for j in 0..w as u32 {
            text::centre(
                img,
                (rx + 2 * j * cell + cell) as f32,
                (ty - 20) as f32,
                &j.to_string(),
                SMALL,
                MUTED,
            );
        }
        for i in 0..h as u32 {
            text::draw(
                img,
                (rx - 8) as f32,
                (ty + 2 * i * cell + cell) as f32 - 8.0,
                &i.to_string(),
                SMALL,
                MUTED,
                text::Align::Right,
            );
        }
    }

    /// Middle: an arrow.
    fn arrow(&self, img: &mut RgbImage) {
        use picture::RULE;
        use text::{INK, SMALL};
        let Packing {
            lx,
            rx,
            ty,
            panel_w,
            panel_h,
            arrow_w,
            ..
        } = *self;
        let ay = (ty + panel_h / 2) as f32;
        picture::arrow(
            img,
            ((lx + panel_w + 24) as f32, ay),
            ((rx - 30) as f32, ay),
            4.0,
            RULE,
        );
        text::centre(
            img,
            (lx + panel_w + arrow_w / 2) as f32 - 3.0,
            ay - 28.0,
            "pack (eq. 8)",
            SMALL,
            INK,
        );
    }

    /// Right: the packed texture as the GPU holds it, texel boundaries ruled, channels
    /// lettered.
    fn right(&self, img: &mut RgbImage, texels: &[[f32; 4]]) {
        use picture::{RULE, fill};
        use text::{INK, MUTED, SMALL};
        let Packing {
            h,
            w,
            cell,
            rx,
            ty,
            panel_w,
            panel_h,
            ..
        } = *self;
        for ti in 0..h {
            for tj in 0..w {
                let texel = texels[ti * w + tj];
                for (ch, &v) in texel.iter().enumerate() {
                    let (sy, sx) = (ch as u32 / 2, ch as u32 % 2);
                    let (x0, y0) = (
                        rx + (2 * tj as u32 + sx) * cell,
                        ty + (2 * ti as u32 + sy) * cell,
                    );
                    self.draw_cell(img, x0, y0, self.colour(v));
                    let letter = if self.colour(v).is_some() { INK } else { MUTED };
                    text::centre(
                        img,
                        (x0 + cell / 2) as f32,
                        (y0 + cell / 2) as f32 - 9.0,
                        CHANNEL[ch],
                        SMALL,
                        letter,
                    );
                }
            }
        }
        for t in 0..=w as u32 {
            let x = (rx + 2 * t * cell).saturating_sub(1).min(rx + panel_w - 2);
            fill(img, x as i32, ty as i32, 2, panel_h, RULE);
        }
        for t in 0..=h as u32 {
            let y = (ty + 2 * t * cell).saturating_sub(1).min(ty + panel_h - 2);
            fill(img, rx as i32, y as i32, panel_w, 2, RULE);
        }
    }

    /// One element followed through: outlined in X and in the texture.
    fn follow(&self, img: &mut RgbImage) -> Followed {
        use picture::outline;
        let Packing {
            h,
            w,
            cell,
            lx,
            rx,
            ty,
            ..
        } = *self;
        // One element followed through: X[1, 6] is B[1, 1], the g channel of texel (1, 1).
        let (ei, ej) = (1usize, 6usize);
        let (ti, tj) = (ei % h, ej % w);
        let q = 2 * usize::from(ei >= h) + usize::from(ej >= w);
        let black = Rgb([0, 0, 0]);
        outline(
            img,
            (lx + ej as u32 * cell) as i32 - 2,
            (ty + ei as u32 * cell) as i32 - 2,
            cell + 4,
            cell + 4,
            3,
            black,
        );
        let (sy, sx) = (q as u32 / 2, q as u32 % 2);
        outline(
            img,
            (rx + (2 * tj as u32 + sx) * cell) as i32 - 2,
            (ty + (2 * ti as u32 + sy) * cell) as i32 - 2,
            cell + 4,
            cell + 4,
            3,
            black,
        );
        Followed { ei, ej, ti, tj, q }
    }

    /// The key, right of the texture.
    fn key(&self, img: &mut RgbImage, f: Followed) {
        let Followed { ei, ej, ti, tj, q } = f;
        use picture::fill;
        use text::{INK, LABEL, MUTED, SMALL};
        let Packing {
            rx, ty, panel_w, ..
        } = *self;
        let kx = (rx + panel_w + 28) as f32;
        let mut ky = ty as f32;
        text::left(img, kx, ky, "Key", LABEL, INK);
        ky += text::line(LABEL) + 4.0;
        let corner = ["top-left", "top-right", "bottom-left", "bottom-right"];
        for q in 0..4 {
            let c = Rgb(BASE[q].map(|v| v as u8));
            fill(img, kx as i32, ky as i32 + 2, 16, 16, c);
            text::left(
                img,
                kx + 24.0,
                ky,
                &format!("{} ({}) → {}", QUADRANT[q], corner[q], CHANNEL[q]),
                SMALL,
                INK,
            );
            ky += text::line(SMALL) + 4.0;
        }
        ky += 6.0;
        for l in [
            "Light to dark: the element's place",
            "in its quadrant (top-left lightest).",
            "Hatched: zero padding.",
            "",
            &format!("Outlined: X[{ei}, {ej}] = {}[{ti}, {tj}],", QUADRANT[q]),
            &format!("channel {} of texel ({ti}, {tj}).", CHANNEL[q]),
            "",
            "Indices count from 0.",
        ] {
            text::left(img, kx, ky, l, SMALL, MUTED);
            ky += text::line(SMALL);
        }
    }
}

/// The element [`Packing::follow`] outlines: X[ei, ej], in quadrant q at texel (ti, tj).
#[derive(Clone, Copy)]
struct Followed {
    ei: usize,
    ej: usize,
    ti: usize,
    tj: usize,
    q: usize,
}

/// Hall–Carr–Hart eq. (8), drawn from a real packed texture (see [`packing_picture`]).
pub fn hall_packing(ctx: &GpuContext, out: &Path) -> Result<()> {
    picture::save_png(out, &packing_picture(ctx)?)
}

/// The tour's inputs: A (32×32) diagonal, A[i, i] running from +1 at the top to −1 at the bottom,
/// and B a checkerboard of 4×4 blocks of ±1, so that row i of C = A·B is row i of B times
/// A[i, i] — the checkerboard fading out towards the middle and coming back inverted — and each
/// slice p touches only row p of C.
pub fn tour_inputs() -> (Matrix, Matrix) {
    let n = 32;
    let a = Matrix::from_fn(n, n, |i, p| {
        if i == p {
            1.0 - 2.0 * i as f32 / (n - 1) as f32
        } else {
            0.0
        }
    });
    let b = Matrix::from_fn(
        n,
        n,
        |p, j| if (p / 4 + j / 4) % 2 == 0 { 1.0 } else { -1.0 },
    );
    (a, b)
}

/// The tour's picture: A, B, one slice, C after the slices up to it, and C, all computed by
/// `lm` on the GPU from [`tour_inputs`], titled, on one colour scale.
pub fn tour_picture(ctx: &GpuContext) -> Result<RgbImage> {
    let (a, b) = tour_inputs();
    let n = a.rows;
    let p = 5;
    let lm = |x: &Matrix, y: &Matrix| -> Result<Matrix> {
        Ok(plan::multiply(Some(ctx), plan::Request::new(Method::Lm, x, y))?.c)
    };
    let slice = lm(
        &Matrix::from_fn(n, 1, |i, _| a.get(i, p)),
        &Matrix::from_fn(1, n, |_, j| b.get(p, j)),
    )?;
    let partial = lm(
        &Matrix::from_fn(n, p + 1, |i, q| a.get(i, q)),
        &Matrix::from_fn(p + 1, n, |q, j| b.get(q, j)),
    )?;
    let c = lm(&a, &b)?;
    let (img, _) = picture::titled_panels(
        &format!("C = A·B by lm ({n}×{n}×{n}, {n} blended slices), one slice at a time"),
        &[
            picture::Titled::new(&a, &["A: diagonal", "A[i, i] from +1 down to −1"]).scale(1.0),
            picture::Titled::new(&b, &["B: checkerboard", "4×4 blocks of ±1"]).scale(1.0),
            picture::Titled::new(
                &slice,
                &[
                    &format!("Slice p = {p}"),
                    &format!("A[i, {p}] · B[{p}, j]: row {p} only"),
                ],
            )
            .scale(1.0),
            picture::Titled::new(
                &partial,
                &[
                    &format!("C after slices 0…{p}"),
                    &format!("rows 0…{p} done"),
                ],
            )
            .scale(1.0),
            picture::Titled::new(&c, &["C = A·B", "row i = A[i, i] × row i of B"]).scale(1.0),
        ],
        200,
        &[
            "Indices count from 0: row i, column j, slice p. Slice p multiplies column p of A (across) by row p of B (down); lm blends the k slices into C.",
            "A is zero off its diagonal, so slice p lights only row p of C: C fills in row by row, and row i is B's row i scaled by A[i, i].",
        ],
    );
    Ok(img)
}

/// The tour's picture of `lm` (see [`tour_picture`]).
pub fn tour_lm(ctx: &GpuContext, out: &Path) -> Result<()> {
    picture::save_png(out, &tour_picture(ctx)?)
}
