//! L-M figure 2: the processor cube's slices summed in the framebuffer, drawn from a real run.

use super::*;

/// Two 4×4 0/1 matrices in the spirit of the L-M paper's figure 2 (white is 1, black is 0),
/// chosen so that C has zeros, ones, and sums of two that saturate to white in 8 bits.
pub fn lm_fig2_inputs() -> (Matrix, Matrix) {
    const A: [[f32; 4]; 4] = [
        [1., 0., 1., 0.],
        [0., 1., 0., 0.],
        [1., 0., 1., 1.],
        [0., 0., 0., 1.],
    ];
    const B: [[f32; 4]; 4] = [
        [1., 0., 0., 1.],
        [0., 1., 0., 0.],
        [1., 0., 1., 0.],
        [0., 0., 1., 0.],
    ];
    (
        Matrix::from_fn(4, 4, |i, j| A[i][j]),
        Matrix::from_fn(4, 4, |i, j| B[i][j]),
    )
}

/// Grey of a 0..1 value, as the L-M paper draws its matrices (white is 1, black is 0).
pub(super) fn grey(v: f32) -> Rgb<u8> {
    let g = (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    Rgb([g, g, g])
}

/// Pixels per cell of L-M figure 2's 4×4 panels.
pub const LM_FIG2_CELL: u32 = 36;

/// L-M figure 2 as the paper draws it, recomputed: A and B (4×4, 0/1), column p = 2 of A
/// replicated across a slice, row p = 2 of B replicated down it, the two multiplied (the slice,
/// by `lm` in u8 on the GPU), and C, the sum of the four slices in the 8-bit pipeline (by `lm`
/// in u8), where a sum above one saturates to white. Each panel is titled; a grey scale, the
/// 0-based index convention and the saturated cells are marked in the picture. Returns the
/// picture and where each of the six panels lies (A, B, column, row, slice, C).
pub fn lm_fig2_picture(ctx: &GpuContext) -> Result<(RgbImage, Vec<picture::Placed>)> {
    use picture::BG;
    use text::{INK, TITLE};
    let (a, b) = lm_fig2_inputs();
    let p = 2; // the paper's "3rd column", 0-based
    let col = Matrix::from_fn(4, 1, |i, _| a.get(i, p));
    let row = Matrix::from_fn(1, 4, |_, j| b.get(p, j));
    let u8_opts = || Options {
        precision: Precision::U8,
        ..Default::default()
    };
    let slice = plan::multiply(
        Some(ctx),
        plan::Request::new(Method::Lm, &col, &row).options(u8_opts()),
    )?
    .c;
    let c = plan::multiply(
        Some(ctx),
        plan::Request::new(Method::Lm, &a, &b).options(u8_opts()),
    )?
    .c;
    let across = Matrix::from_fn(4, 4, |i, _| a.get(i, p));
    let down = Matrix::from_fn(4, 4, |_, j| b.get(p, j));
    let cell = LM_FIG2_CELL;
    let side = 4 * cell;
    let gap = 64u32;
    let panels: [(&Matrix, [String; 2]); 6] = [
        (&a, ["A".into(), format!("column p = {p} outlined")]),
        (&b, ["B".into(), format!("row p = {p} outlined")]),
        (
            &across,
            [format!("Column {p} of A"), "replicated across".into()],
        ),
        (&down, [format!("Row {p} of B"), "replicated down".into()]),
        (
            &slice,
            [format!("Slice p = {p}"), "the two multiplied".into()],
        ),
        (
            &c,
            ["C = slices 0 + 1 + 2 + 3".into(), "summed in 8 bits".into()],
        ),
    ];
    let ops = ["", "", "×", "=", "+ slices 0, 1 and 3", ""];
    let width = 6 * side + 5 * gap + 2 * 32;
    let top = 98u32;
    let height = top + side + 128;
    let mut img = RgbImage::from_pixel(width, height, BG);
    text::left(
        &mut img,
        32.0,
        14.0,
        "Larsen–McAllister figure 2, recomputed by lm in 8 bits on the GPU",
        TITLE,
        INK,
    );
    let g = Fig2 {
        p,
        cell,
        side,
        gap,
        top,
    };
    let mut placed = vec![];
    for (idx, (m, title)) in panels.iter().enumerate() {
        let x0 = 32 + idx as u32 * (side + gap);
        g.panel(&mut img, idx, x0, (m, title));
        g.factors(&mut img, idx, x0);
        if idx == 5 {
            g.saturated(&mut img, (&a, &b), x0);
        }
        if !ops[idx].is_empty() {
            g.op(&mut img, ops[idx], x0);
        }
        placed.push(picture::Placed {
            x: x0,
            y: top,
            cell,
        });
    }
    let y_bar = top + side + 34;
    picture::colour_bar(
        &mut img,
        32,
        y_bar as i32,
        240,
        grey,
        &[
            (0.0, "0 (black)".into()),
            (0.5, "0.5".into()),
            (1.0, "1 (white)".into()),
        ],
        "value of an element",
    );
    fig2_notes(&mut img, p, y_bar);
    Ok((img, placed))
}

/// The layout of [`lm_fig2_picture`]: the slice's index p, the cell and panel sizes, the gap
/// between panels and the panels' top.
#[derive(Clone, Copy)]
struct Fig2 {
    p: usize,
    cell: u32,
    side: u32,
    gap: u32,
    top: u32,
}

impl Fig2 {
    /// One panel at `x0`: its two title lines, its 4×4 cells in grey and its indices (the rows' only
    /// on the first panel).
    fn panel(&self, img: &mut RgbImage, idx: usize, x0: u32, (m, title): (&Matrix, &[String; 2])) {
        use picture::{RULE, fill, outline};
        use text::{INK, LABEL, MUTED, SMALL};
        let Fig2 {
            cell, side, top, ..
        } = *self;
        text::centre(img, (x0 + side / 2) as f32, 50.0, &title[0], LABEL, INK);
        text::centre(img, (x0 + side / 2) as f32, 72.0, &title[1], SMALL, MUTED);
        outline(
            img,
            x0 as i32 - 1,
            top as i32 - 1,
            side + 2,
            side + 2,
            1,
            RULE,
        );
        for i in 0..4 {
            for j in 0..4 {
                let (x, y) = (x0 + j * cell, top + i * cell);
                fill(img, x as i32, y as i32, cell, cell, Rgb([120, 120, 120]));
                fill(
                    img,
                    x as i32 + 1,
                    y as i32 + 1,
                    cell - 1,
                    cell - 1,
                    grey(m.get(i as usize, j as usize)),
                );
            }
        }
        // Indices along the top and the left, 0-based.
        for t in 0..4u32 {
            text::centre(
                img,
                (x0 + t * cell + cell / 2) as f32,
                (top + side + 4) as f32,
                &t.to_string(),
                SMALL,
                MUTED,
            );
        }
        if idx == 0 {
            for t in 0..4u32 {
                text::draw(
                    img,
                    x0 as f32 - 6.0,
                    (top + t * cell + cell / 2) as f32 - 8.0,
                    &t.to_string(),
                    SMALL,
                    MUTED,
                    text::Align::Right,
                );
            }
        }
    }

    /// Column p of A (panel 0) and row p of B (panel 1), the two factors of the slice, framed in
    /// red.
    fn factors(&self, img: &mut RgbImage, idx: usize, x0: u32) {
        use picture::outline;
        let Fig2 {
            p, cell, side, top, ..
        } = *self;
        let red = Rgb([220, 30, 30]);
        match idx {
            0 => outline(
                img,
                (x0 + p as u32 * cell) as i32 - 1,
                top as i32 - 2,
                cell + 3,
                side + 4,
                3,
                red,
            ),
            1 => outline(
                img,
                x0 as i32 - 2,
                (top + p as u32 * cell) as i32 - 1,
                side + 4,
                cell + 3,
                3,
                red,
            ),
            _ => {}
        }
    }

    /// C (at `x0`): the cells whose true sum is 2 but show 1.
    fn saturated(&self, img: &mut RgbImage, (a, b): (&Matrix, &Matrix), x0: u32) {
        use text::SMALL;
        let Fig2 { cell, top, .. } = *self;
        let red = Rgb([220, 30, 30]);
        for i in 0..4 {
            for j in 0..4 {
                let sum: f32 = (0..4).map(|q| a.get(i, q) * b.get(q, j)).sum();
                if sum > 1.0 {
                    let (x, y) = (x0 + j as u32 * cell, top + i as u32 * cell);
                    text::centre(
                        img,
                        (x + cell / 2) as f32,
                        (y + cell / 2) as f32 - 8.0,
                        &format!("{sum:.0}→1"),
                        SMALL,
                        red,
                    );
                }
            }
        }
    }

    /// The operator between the panel at `x0` and the next: a sign, or an arrow with words.
    fn op(&self, img: &mut RgbImage, op: &str, x0: u32) {
        use picture::RULE;
        use text::{INK, SMALL};
        let Fig2 { side, gap, top, .. } = *self;
        let ox = (x0 + side + gap / 2) as f32;
        let oy = (top + side / 2) as f32;
        if op.len() > 2 {
            picture::arrow(
                img,
                (ox - gap as f32 / 2.0 + 6.0, oy),
                (ox + gap as f32 / 2.0 - 6.0, oy),
                2.0,
                RULE,
            );
            for (n, l) in text::wrap(op, SMALL, gap as f32 - 4.0).iter().enumerate() {
                text::centre(
                    img,
                    ox,
                    oy + 8.0 + n as f32 * text::line(SMALL),
                    l,
                    SMALL,
                    INK,
                );
            }
        } else {
            text::centre(img, ox, oy - 16.0, op, 28.0, INK);
        }
    }
}

/// The notes under the picture, from `y_bar` down.
fn fig2_notes(img: &mut RgbImage, p: usize, y_bar: u32) {
    use text::{MUTED, SMALL};
    let notes = [
        format!("Indices count from 0: p = {p} is the paper's 3rd column of A and 3rd row of B. Every panel is 4×4 (the slice covers C's target)."),
        "The paper: \"The 3rd column of A is replicated across a slice, and the 3rd row of B is replicated down the slice. The two are then".into(),
        "shown multiplied together via multi-texturing. Finally, the result matrix, C, is the sum of this 3rd slice with the other three.\"".into(),
        "Red \"2→1\": the true sum is 2, but the 8-bit framebuffer saturates at 1 (FF + 01 = FF), so C shows white.".into(),
    ];
    let mut y = (y_bar + 12) as f32;
    for n in &notes {
        text::left(img, 300.0, y, n, SMALL, MUTED);
        y += text::line(SMALL);
    }
}

/// L-M figure 2 (see [`lm_fig2_picture`]).
pub fn lm_fig2(ctx: &GpuContext, out: &Path) -> Result<()> {
    picture::save_png(out, &lm_fig2_picture(ctx)?.0)
}
