//! Larsen & McAllister (2001) §3 and the text of its figure 2: the processor cube, cut into
//! slices parallel to the front face, one textured rectangle (one pass) per slice, summed onto
//! the front face by the blend unit.

use super::diagrams::*;
use super::*;

/// The cube's side in the drawing: m = n = k = 4.
const SIDE: usize = 4;
/// The slice drawn in detail.
const P: usize = 2;

/// The slice's colour: the red of the highlight, faded.
fn slice_colour(strength: f32) -> Rgb<u8> {
    picture::blend(Rgb([255, 255, 255]), SLICE_RED, strength)
}

/// L-M §3's processor cube at m = n = k = 4: A(i, p) on a side face, B(p, j) on the top face,
/// slice p (column p of A times row p of B) as one rectangle, and the front face C = Σ_p slices.
pub fn lm_cube(_ctx: &GpuContext, out: &Path) -> Result<()> {
    let mut img = RgbImage::from_pixel(1360, 720, picture::BG);
    text::left(
        &mut img,
        30.0,
        16.0,
        "Larsen–McAllister §3: the processor cube, one slice per pass (m = n = k = 4)",
        text::TITLE,
        INK,
    );
    cube_panel(&mut img);
    slice_panel(&mut img);
    passes_panel(&mut img);
    key_row(
        &mut img,
        (30, 600),
        &[
            (A_LIGHT, "A(i, p)"),
            (B_LIGHT, "B(p, j)"),
            (slice_colour(0.35), "slice p = 2: A(i, 2) · B(2, j)"),
            (C_LIGHT, "C(i, j), the front face"),
        ],
        36,
    );
    text::lines(
        &mut img,
        30.0,
        630.0,
        &[
            "§3: \"render z parallel rectangles (each x × y) one behind the other … texture map both matrices A and B onto each one, and sum them up onto the screen.\"  Here x, y, z = m, n, k.",
            "§3's words lay the first matrix on the top face; drawn with C's rows running down the front face, as figure 2 and lm draw it, column p of A runs down a side face and row p of B across the top.",
            "lm draws the k rectangles as k instances of one draw (instance_index = p); the blend unit (src + dst) adds each onto the framebuffer, the front face. Indices count from 0.",
        ],
        text::SMALL,
        MUTED,
    );
    picture::save_png(out, &img)
}

/// Part A: the cube in an oblique view, glass-like: A on the right face, B on the top, slice P
/// inside, C on the front.
fn cube_panel(img: &mut RgbImage) {
    text::left(
        img,
        30.0,
        58.0,
        "A. The cube: x × y × z processors, one product each",
        text::LABEL,
        INK,
    );
    let k = SIDE as f32;
    let v = Oblique::new((130.0, 250.0), 54.0, 0.5, 35.0);
    // The hidden edges of the box, dashed.
    for (a, b) in [
        ((0.0, k, 0.0), (0.0, k, k)),
        ((0.0, k, k), (k, k, k)),
        ((0.0, 0.0, k), (0.0, k, k)),
    ] {
        picture::dashed(
            img,
            v.at(a.0, a.1, a.2),
            v.at(b.0, b.1, b.2),
            1.0,
            4.0,
            GRID,
        );
    }
    // The slices, back to front; the one drawn in detail in red.
    for p in (0..SIDE).rev() {
        let z = p as f32 + 0.5;
        let sq = [
            v.at(0.0, 0.0, z),
            v.at(k, 0.0, z),
            v.at(k, k, z),
            v.at(0.0, k, z),
        ];
        if p == P {
            picture::polygon(img, &sq, SLICE_RED, 0.28);
        } else {
            for e in 0..4 {
                picture::dashed(img, sq[e], sq[(e + 1) % 4], 1.0, 3.0, Rgb([170, 170, 170]));
            }
        }
    }
    // Top face: B(p, j); right face: A(i, p); glass, so the slice shows through.
    for p in 0..SIDE {
        for j in 0..SIDE {
            let q = v.top(j as f32, 0.0, p as f32);
            let c = if p == P { B_DARK } else { B_LIGHT };
            picture::polygon(img, &q, c, 0.8);
            picture::polygon_outline(img, &q, 1.0, Rgb([255, 255, 255]));
        }
        for i in 0..SIDE {
            let q = v.side(k, i as f32, p as f32);
            let c = if p == P { A_DARK } else { A_LIGHT };
            picture::polygon(img, &q, c, 0.8);
            picture::polygon_outline(img, &q, 1.0, Rgb([255, 255, 255]));
        }
    }
    // Front face: C, glass.
    for i in 0..SIDE {
        for j in 0..SIDE {
            let q = v.front(j as f32, i as f32, 0.0);
            picture::polygon(img, &q, C_LIGHT, 0.45);
            picture::polygon_outline(img, &q, 1.0, C_DARK);
        }
    }
    // The slice's outline over everything, and the cube's visible edges.
    let z = P as f32 + 0.5;
    let sq = [
        v.at(0.0, 0.0, z),
        v.at(k, 0.0, z),
        v.at(k, k, z),
        v.at(0.0, k, z),
    ];
    picture::polygon_outline(img, &sq, 2.5, SLICE_RED);
    for (a, b) in [
        ((0.0, 0.0, 0.0), (k, 0.0, 0.0)),
        ((k, 0.0, 0.0), (k, k, 0.0)),
        ((k, k, 0.0), (0.0, k, 0.0)),
        ((0.0, k, 0.0), (0.0, 0.0, 0.0)),
        ((0.0, 0.0, 0.0), (0.0, 0.0, k)),
        ((0.0, 0.0, k), (k, 0.0, k)),
        ((k, 0.0, k), (k, 0.0, 0.0)),
        ((k, 0.0, k), (k, k, k)),
        ((k, k, k), (k, k, 0.0)),
    ] {
        picture::line(img, v.at(a.0, a.1, a.2), v.at(b.0, b.1, b.2), 1.5, RULE);
    }
    cube_axes(img, &v);
    cube_callouts(img, &v);
}

/// The cube's indices: i down the left, j along the bottom, p along the receding edge.
fn cube_axes(img: &mut RgbImage, v: &Oblique) {
    let k = SIDE as f32;
    for t in 0..SIDE {
        let (x, y) = v.at(-0.15, t as f32 + 0.5, 0.0);
        text_at(img, (x - 4.0, y), &t.to_string(), text::SMALL, MUTED);
        let (x, y) = v.at(t as f32 + 0.5, k, 0.0);
        text_at(img, (x, y + 12.0), &t.to_string(), text::SMALL, MUTED);
        let (x, y) = v.at(k, k, t as f32 + 0.5);
        text_at(
            img,
            (x + 14.0, y + 10.0),
            &t.to_string(),
            text::SMALL,
            MUTED,
        );
    }
    let (x0, y0) = v.at(0.0, 0.0, 0.0);
    let (_, y1) = v.at(0.0, k, 0.0);
    picture::arrow(img, (x0 - 40.0, y0 + 4.0), (x0 - 40.0, y1 - 4.0), 1.5, INK);
    text::draw(
        img,
        x0 - 48.0,
        (y0 + y1) / 2.0 - 30.0,
        "i",
        text::LABEL,
        INK,
        text::Align::Right,
    );
    text::draw(
        img,
        x0 - 48.0,
        (y0 + y1) / 2.0 - 10.0,
        "row",
        text::SMALL,
        MUTED,
        text::Align::Right,
    );
    text::draw(
        img,
        x0 - 48.0,
        (y0 + y1) / 2.0 + 6.0,
        "of C",
        text::SMALL,
        MUTED,
        text::Align::Right,
    );
    let (xa, ya) = v.at(0.0, k, 0.0);
    let (xb, _) = v.at(k, k, 0.0);
    picture::arrow(img, (xa + 4.0, ya + 32.0), (xb - 4.0, ya + 32.0), 1.5, INK);
    text_at(
        img,
        ((xa + xb) / 2.0, ya + 48.0),
        "j, column of C",
        text::SMALL,
        INK,
    );
    let (xc, yc) = v.at(k, k, 0.0);
    let (xd, yd) = v.at(k, k, k);
    picture::arrow(
        img,
        (xc + 28.0, yc + 20.0),
        (xd + 28.0, yd + 20.0),
        1.5,
        INK,
    );
    text::left(
        img,
        xd + 36.0,
        yd + 2.0,
        "p, depth (0 … k − 1)",
        text::SMALL,
        INK,
    );
}

/// The cube's labels: the faces and the slice.
fn cube_callouts(img: &mut RgbImage, v: &Oblique) {
    let k = SIDE as f32;
    let (tx, ty) = v.at(k / 2.0, 0.0, k);
    text::centre(
        img,
        tx,
        ty - 46.0,
        "top face: B(p, j), replicated down",
        text::SMALL,
        B_DARK,
    );
    text::centre(
        img,
        tx,
        ty - 28.0,
        "(dark: row p = 2 of B)",
        text::SMALL,
        MUTED,
    );
    let (sx, sy) = v.at(k, 0.6, k);
    text::lines(
        img,
        sx + 12.0,
        sy,
        &[
            "side face:",
            "A(i, p),",
            "replicated",
            "across",
            "(dark: column",
            "p = 2 of A)",
        ],
        text::SMALL,
        A_DARK,
    );
    let (fx, fy) = v.at(k / 2.0, k, 0.0);
    text::centre(
        img,
        fx,
        fy + 62.0,
        "front face: C = Σ_p slices",
        text::LABEL,
        C_DARK,
    );
    // The slice's label, with a leader to its top-left corner.
    let corner = v.at(0.0, 0.0, P as f32 + 0.5);
    let (lx, ly) = (40.0, 150.0);
    text::left(img, lx, ly, "slice p = 2", text::LABEL, SLICE_RED);
    text::left(
        img,
        lx,
        ly + 18.0,
        "one rectangle, x × y",
        text::SMALL,
        SLICE_RED,
    );
    picture::line(img, (lx + 70.0, ly + 36.0), corner, 1.5, SLICE_RED);
}

/// Part B: slice P as the outer product of column P of A and row P of B.
fn slice_panel(img: &mut RgbImage) {
    let x0 = 590i32;
    text::left(
        img,
        x0 as f32,
        58.0,
        "B. Slice p = column p of A × row p of B",
        text::LABEL,
        INK,
    );
    text::left(
        img,
        x0 as f32,
        80.0,
        "one pass: every fragment (i, j) multiplies two texels (p = 2)",
        text::SMALL,
        MUTED,
    );
    let cell = 68i32;
    let (ax, gx) = (x0, x0 + cell + 34);
    let (by, gy) = (150i32, 150 + cell + 34);
    text::centre(
        img,
        (gx + 2 * cell) as f32,
        by as f32 - 22.0,
        "row p = 2 of B",
        text::SMALL,
        B_DARK,
    );
    text::centre(
        img,
        (ax + cell / 2) as f32,
        gy as f32 - 40.0,
        "column p = 2",
        text::SMALL,
        A_DARK,
    );
    text::centre(
        img,
        (ax + cell / 2) as f32,
        gy as f32 - 24.0,
        "of A",
        text::SMALL,
        A_DARK,
    );
    for t in 0..SIDE as i32 {
        boxed(
            img,
            (gx + t * cell, by, cell, cell),
            B_LIGHT,
            &format!("B(2, {t})"),
        );
        boxed(
            img,
            (ax, gy + t * cell, cell, cell),
            A_LIGHT,
            &format!("A({t}, 2)"),
        );
        // Replicated down, and across.
        let cx = (gx + t * cell + cell / 2) as f32;
        picture::arrow(
            img,
            (cx, (by + cell + 4) as f32),
            (cx, (gy - 4) as f32),
            2.0,
            B_DARK,
        );
        let cy = (gy + t * cell + cell / 2) as f32;
        picture::arrow(
            img,
            ((ax + cell + 4) as f32, cy),
            ((gx - 4) as f32, cy),
            2.0,
            A_DARK,
        );
    }
    for i in 0..SIDE as i32 {
        for j in 0..SIDE as i32 {
            let (x, y) = (gx + j * cell, gy + i * cell);
            boxed(img, (x, y, cell, cell), slice_colour(0.22), "");
            let cx = (x + cell / 2) as f32;
            text::centre(
                img,
                cx,
                (y + 14) as f32,
                &format!("A({i}, 2)"),
                text::SMALL,
                INK,
            );
            text::centre(
                img,
                cx,
                (y + 34) as f32,
                &format!("· B(2, {j})"),
                text::SMALL,
                INK,
            );
        }
    }
    outline(
        img,
        gx - 1,
        gy - 1,
        (4 * cell + 3) as u32,
        (4 * cell + 3) as u32,
        2,
        SLICE_RED,
    );
    let below = (gy + 4 * cell + 14) as f32;
    text::lines(
        img,
        gx as f32 - 20.0,
        below,
        &[
            "slice p = column p of A × row p of B:",
            "the outer product A(i, p) · B(p, j),",
            "all m × n of them in one pass",
        ],
        text::SMALL,
        INK,
    );
}

/// Part C: the k slices pulled apart along p, each one pass, summed onto the front face.
fn passes_panel(img: &mut RgbImage) {
    let x0 = 1010.0;
    text::left(img, x0, 58.0, "C. One pass per slice", text::LABEL, INK);
    text::left(
        img,
        x0,
        80.0,
        "the blend unit adds each onto the front face",
        text::SMALL,
        MUTED,
    );
    let v = Oblique::new((x0 + 10.0, 400.0), 22.0, 1.0, 35.0);
    let k = SIDE as f32;
    let depth = |p: usize| 3.0 + 2.3 * p as f32;
    for p in (0..SIDE).rev() {
        let z = depth(p);
        let strength = if p == P { 0.45 } else { 0.18 };
        for i in 0..SIDE {
            for j in 0..SIDE {
                let q = v.front(j as f32, i as f32, z);
                picture::polygon(img, &q, slice_colour(strength), 1.0);
                picture::polygon_outline(img, &q, 1.0, Rgb([255, 255, 255]));
            }
        }
        let sq = [
            v.at(0.0, 0.0, z),
            v.at(k, 0.0, z),
            v.at(k, k, z),
            v.at(0.0, k, z),
        ];
        picture::polygon_outline(img, &sq, if p == P { 2.0 } else { 1.0 }, SLICE_RED);
    }
    for p in 0..SIDE {
        let (lx, ly) = v.at(k, k, depth(p));
        text::left(
            img,
            lx + 6.0,
            ly - 17.0,
            &format!("p = {p}"),
            text::SMALL,
            SLICE_RED,
        );
    }
    for i in 0..SIDE {
        for j in 0..SIDE {
            let q = v.front(j as f32, i as f32, 0.0);
            picture::polygon(img, &q, C_LIGHT, 1.0);
            picture::polygon_outline(img, &q, 1.0, C_DARK);
        }
    }
    let from = v.at(-1.5, 0.0, depth(SIDE - 1) - 0.5);
    let to = v.at(-1.5, 0.0, 0.8);
    picture::arrow(img, from, to, 2.0, INK);
    text::draw(
        img,
        from.0 + 4.0,
        from.1 - 24.0,
        "blend: C += slice p",
        text::SMALL,
        INK,
        text::Align::Centre,
    );
    let (cx, cy) = v.at(k / 2.0, k, 0.0);
    text::centre(
        img,
        cx + 30.0,
        cy + 24.0,
        "C = Σ_p slice p",
        text::LABEL,
        C_DARK,
    );
    text::lines(
        img,
        x0,
        cy + 52.0,
        &[
            "k slices, k rectangles, k passes:",
            "pass p draws slice p, and blending",
            "adds it to what the earlier passes",
            "left in the framebuffer.",
        ],
        text::SMALL,
        INK,
    );
}
