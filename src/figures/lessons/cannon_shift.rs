//! Cannon's algorithm as O'Neil (2013) §2.3 describes it (figure 2's mesh): the initial skew —
//! row i of A shifted left by i, column j of B shifted up by j — then one shift, A left by one
//! and B up by one, on a 4×4 torus.

use super::diagrams::*;
use super::*;

/// The mesh's side.
const MESH: usize = 4;
/// Pixels per processor.
const PROC: i32 = 74;
/// Pixels between processors.
const GAP: i32 = 6;
/// From one processor to the next.
const STEP: i32 = PROC + GAP;

/// The elements processor (i, j) of an `n`×`n` mesh holds after the skew and `s` shifts:
/// A(i, q) and B(q, j) with q = (i + j + s) mod n — O'Neil's
/// C[i][j] = Σ_s A[i][(i+j+s) % n] · B[(i+j+s) % n][j], and `cannon.wgsl`'s
/// `dex = (tx + ty + p) % K` with tx = j, ty = i, p = s.
pub fn cannon_holds(i: usize, j: usize, s: usize, n: usize) -> ((usize, usize), (usize, usize)) {
    let q = (i + j + s) % n;
    ((i, q), (q, j))
}

/// The colour of inner index `q` of `n`: one hue each, light.
fn index_colour(q: usize, n: usize) -> Rgb<u8> {
    hsv(30.0 + q as f32 * 360.0 / n as f32, 0.36, 0.98)
}

/// Cannon on a 4×4 mesh: the start, the skew (step 0) and one shift (step 1), each processor
/// showing the A and the B element it holds, coloured by their inner index.
pub fn cannon_shift(_ctx: &GpuContext, out: &Path) -> Result<()> {
    let mut img = RgbImage::from_pixel(1260, 670, picture::BG);
    text::left(
        &mut img,
        30.0,
        16.0,
        "Cannon's algorithm (O'Neil 2013, §2.3): a 4 × 4 mesh with wraparound, the initial skew, then one shift",
        text::TITLE,
        INK,
    );
    let side = MESH as i32 * STEP - GAP;
    let (top, gap) = (170i32, 110i32);
    let xs = [70i32, 70 + side + gap, 70 + 2 * (side + gap)];
    let panels: [(&str, &str, &str); 3] = [
        ("A. Start", "processor (i, j) holds A(i, j) and B(i, j)", ""),
        (
            "B. Initial skew = step p = 0",
            "row i of A shifted left by i,",
            "column j of B shifted up by j",
        ),
        (
            "C. One shift = step p = 1",
            "every A one place left, every B one",
            "place up, wrapping round the torus",
        ),
    ];
    for (p, (x, (h, l1, l2))) in xs.iter().zip(panels).enumerate() {
        text::left(&mut img, *x as f32, 64.0, h, text::LABEL, INK);
        text::left(&mut img, *x as f32, 88.0, l1, text::SMALL, MUTED);
        text::left(&mut img, *x as f32, 106.0, l2, text::SMALL, MUTED);
        mesh(&mut img, (*x, top), |i, j| match p {
            0 => ((i, j), (i, j)),
            _ => cannon_holds(i, j, p - 1, MESH),
        });
    }
    // Row and column numbers of the first mesh.
    for t in 0..MESH as i32 {
        text::draw(
            &mut img,
            (xs[0] - 8) as f32,
            (top + t * STEP + PROC / 2 - 8) as f32,
            &format!("i = {t}"),
            text::SMALL,
            MUTED,
            text::Align::Right,
        );
    }
    for x in xs {
        for t in 0..MESH as i32 {
            text::centre(
                &mut img,
                (x + t * STEP + PROC / 2) as f32,
                (top - 22) as f32,
                &format!("j = {t}"),
                text::SMALL,
                MUTED,
            );
        }
    }
    skew_marks(&mut img, xs[1], top);
    transitions(&mut img, &xs, top);
    legend(&mut img, top + side + 70);
    picture::save_png(out, &img)
}

/// One mesh at (`x`, `y`): processor (i, j) split into the A element it holds (top) and the B
/// element (bottom), each coloured by its inner index.
fn mesh(
    img: &mut RgbImage,
    (x, y): (i32, i32),
    holds: impl Fn(usize, usize) -> ((usize, usize), (usize, usize)),
) {
    let half = PROC / 2;
    for i in 0..MESH {
        for j in 0..MESH {
            let ((ai, aq), (bq, bj)) = holds(i, j);
            let (px, py) = (x + j as i32 * STEP, y + i as i32 * STEP);
            boxed(
                img,
                (px, py, PROC, half),
                index_colour(aq, MESH),
                &format!("A({ai}, {aq})"),
            );
            boxed(
                img,
                (px, py + half, PROC, half),
                index_colour(bq, MESH),
                &format!("B({bq}, {bj})"),
            );
            outline(img, px, py, PROC as u32 + 1, PROC as u32 + 1, 2, RULE);
        }
    }
}

/// The skew's amounts beside the skewed mesh: row i left by i, column j up by j.
fn skew_marks(img: &mut RgbImage, x: i32, top: i32) {
    let side = MESH as i32 * STEP - GAP;
    for t in 0..MESH as i32 {
        text::draw(
            img,
            (x - 8) as f32,
            (top + t * STEP + 6) as f32,
            &format!("A ← {t}"),
            text::SMALL,
            INK,
            text::Align::Right,
        );
        text::centre(
            img,
            (x + t * STEP + PROC / 2) as f32,
            (top + side + 8) as f32,
            &format!("B ↑ {t}"),
            text::SMALL,
            INK,
        );
    }
}

/// The arrows between the meshes, and the shifts under the last.
fn transitions(img: &mut RgbImage, xs: &[i32; 3], top: i32) {
    let side = MESH as i32 * STEP - GAP;
    let y = (top + 2 * STEP - GAP / 2) as f32;
    for (k, label) in [(0usize, "skew"), (1, "shift")] {
        let x0 = (xs[k] + side + 14) as f32;
        let x1 = x0 + 44.0;
        picture::arrow(img, (x0, y), (x1, y), 4.0, RULE);
        text::centre(img, (x0 + x1) / 2.0, y - 26.0, label, text::LABEL, INK);
    }
    let x = xs[2];
    text::lines(
        img,
        x as f32,
        (top + side + 8) as f32,
        &[
            "each processor gets A from its right neighbour",
            "and B from the one below; column 0 sends A to",
            "column 3, row 0 sends B to row 3 (the wraparound)",
        ],
        text::SMALL,
        INK,
    );
}

/// What the colours mean, and how rendermm runs it.
fn legend(img: &mut RgbImage, y: i32) {
    let entries: Vec<(Rgb<u8>, String)> = (0..MESH)
        .map(|q| (index_colour(q, MESH), format!("r = {q}")))
        .collect();
    let refs: Vec<(Rgb<u8>, &str)> = entries.iter().map(|(c, s)| (*c, s.as_str())).collect();
    text::left(
        img,
        30.0,
        y as f32,
        "Colour = the inner index r = (i + j + p) mod k: A's column, B's row.",
        text::SMALL,
        INK,
    );
    key_row(img, (470, y), &refs, 26);
    text::lines(
        img,
        30.0,
        y as f32 + 28.0,
        &[
            "After the skew each processor (i, j) holds a matching pair, A(i, r) and B(r, j) with r = (i + j + p) mod k: both halves of every cell share a colour.",
            "Each step adds the pair's product to the processor's C(i, j), then shifts; after k steps every r has passed, and C(i, j) = Σ A(i, r)·B(r, j) over r = 0 … k − 1.",
            "O'Neil §2.3: C[i][j] = Σ_k A[i][(i+j+k) % n] · B[(i+j+k) % n][j] (his k is the step p here, his n our k). rendermm's cannon (shaders/cannon.wgsl), like O'Neil's §3.1 kernel, moves no data:",
            "A and B sit in workgroup memory and invocation (tx, ty) = (j, i) reads the pair the shifts would bring, dex = (tx + ty + p) % K at step p (K = k). cannon-tiled does the same with T × T tiles of C.",
        ],
        text::SMALL,
        MUTED,
    );
}
