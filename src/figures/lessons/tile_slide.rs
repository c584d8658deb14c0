//! The shared-memory tiled compute kernel (`cs-tiled`, `shaders/cs_tiled.wgsl`; the HIP blog's
//! "Optimized Implementation"): one workgroup's tile of C, and the tiles of A and B it stages in
//! workgroup (shared) memory, one pair per step along k.

use super::diagrams::*;
use super::*;

/// The example: C is M×N, the inner dimension K, tiles of T×T; the workgroup drawn owns tile
/// (WG_X, WG_Y) of C, and step STEP is drawn as the current one.
const M: i32 = 12;
const N: i32 = 12;
const K: i32 = 16;
const T: i32 = 4;
const WG_X: i32 = 2;
const WG_Y: i32 = 2;
const STEP: i32 = 1;
/// Pixels per element.
const CELL: i32 = 22;

/// Where the tiles of the workgroup (`wg_x`, `wg_y`) at step `t` lie, as cs_tiled.wgsl indexes
/// them with TILE = `tile`: A's rows and columns, then B's rows and columns (half-open ranges).
pub fn tiled_step_ranges(
    wg_x: usize,
    wg_y: usize,
    t: usize,
    tile: usize,
) -> [std::ops::Range<usize>; 4] {
    // row = wg.y·TILE + lid.y, col_a = step·TILE + lid.x; row_b = step·TILE + lid.y,
    // col = wg.x·TILE + lid.x.
    [
        wg_y * tile..(wg_y + 1) * tile,
        t * tile..(t + 1) * tile,
        t * tile..(t + 1) * tile,
        wg_x * tile..(wg_x + 1) * tile,
    ]
}

/// cs-tiled's workgroup at work: its T×T tile of C, A's row band and B's column band cut into
/// the tiles it loads at steps t = 0, 1, 2, 3 (arrows along k), and step t = 1's pair in
/// workgroup memory.
pub fn tile_slide(_ctx: &GpuContext, out: &Path) -> Result<()> {
    let mut img = RgbImage::from_pixel(1180, 1080, picture::BG);
    text::left(
        &mut img,
        30.0,
        16.0,
        "Tiled compute kernel (cs-tiled): one workgroup's tile of C, and the tiles of A and B it loads, step by step along k",
        text::TITLE,
        INK,
    );
    text::left(
        &mut img,
        30.0,
        46.0,
        &format!(
            "shaders/cs_tiled.wgsl, the HIP blog's tiled kernel. Here m = {M}, n = {N}, k = {K}, tile size T = {T} (TILE in the shader): {} steps t = 0 … {}.",
            K / T,
            K / T - 1
        ),
        text::SMALL,
        MUTED,
    );
    let (ax, by) = (90i32, 118i32);
    let bx = ax + K * CELL + 50;
    let ay = by + K * CELL + 50;
    draw_b(&mut img, (bx, by));
    draw_a(&mut img, (ax, ay));
    draw_c(&mut img, (bx, ay));
    steps_text(&mut img, (ax - 50, by - 6));
    shared_tiles(&mut img, (ax, ay), (bx, by));
    key_row(
        &mut img,
        (30, 1022),
        &[
            (A_LIGHT, "A's row band"),
            (B_LIGHT, "B's column band"),
            (A_DARK, "A's tile at step t = 1"),
            (B_DARK, "B's tile at step t = 1"),
            (C_DARK, "the workgroup's tile of C"),
            (IDLE, "not touched by this workgroup"),
        ],
        22,
    );
    text::left(
        &mut img,
        30.0,
        1048.0,
        "The number in a tile is the step t that loads it. Indices count from 0.",
        text::SMALL,
        MUTED,
    );
    picture::save_png(out, &img)
}

/// A `rows`×`cols` matrix at (`x`, `y`), each cell coloured by `paint`, with the tiles' edges
/// drawn every T cells.
fn tiled_matrix(
    img: &mut RgbImage,
    (x, y): (i32, i32),
    (rows, cols): (i32, i32),
    paint: impl Fn(i32, i32) -> Rgb<u8>,
) {
    grid(img, (x, y), (rows as usize, cols as usize, CELL), |r, c| {
        Some((paint(r as i32, c as i32), String::new()))
    });
    for t in 1..rows / T {
        fill(img, x, y + t * T * CELL - 1, (cols * CELL) as u32, 2, RULE);
    }
    for t in 1..cols / T {
        fill(img, x + t * T * CELL - 1, y, 2, (rows * CELL) as u32, RULE);
    }
}

/// Tick labels every T cells along a matrix's top (`top`) or left side.
fn ticks(img: &mut RgbImage, (x, y): (i32, i32), count: i32, top: bool, name: &str) {
    for t in 0..count / T {
        let v = t * T;
        if top {
            text::centre(
                img,
                (x + v * CELL + CELL / 2) as f32,
                (y - 18) as f32,
                &v.to_string(),
                text::SMALL,
                MUTED,
            );
        } else {
            text::draw(
                img,
                (x - 6) as f32,
                (y + v * CELL + 3) as f32,
                &v.to_string(),
                text::SMALL,
                MUTED,
                text::Align::Right,
            );
        }
    }
    if top {
        text::left(
            img,
            (x + count * CELL + 6) as f32,
            (y - 20) as f32,
            name,
            text::SMALL,
            INK,
        );
    } else {
        text::draw(
            img,
            (x - 6) as f32,
            (y + count * CELL + 2) as f32,
            name,
            text::SMALL,
            INK,
            text::Align::Right,
        );
    }
}

/// A tile's step number, centred on the tile at cell (`r`, `c`) of the matrix at (`x`, `y`).
fn step_label(img: &mut RgbImage, (x, y): (i32, i32), (r, c): (i32, i32), t: i32) {
    let cx = (x + c * CELL + T * CELL / 2) as f32;
    let cy = (y + r * CELL + T * CELL / 2) as f32;
    let ink = if t == STEP { Rgb([255, 255, 255]) } else { INK };
    text_at(img, (cx, cy), &format!("t = {t}"), text::LABEL, ink);
}

/// B (k×n) with the workgroup's column band, its tiles numbered by step, sliding down.
fn draw_b(img: &mut RgbImage, (x, y): (i32, i32)) {
    let [_, _, rows, band] = ranges(STEP);
    tiled_matrix(img, (x, y), (K, N), |r, c| {
        if !band.contains(&c) {
            IDLE
        } else if rows.contains(&r) {
            B_DARK
        } else {
            B_LIGHT
        }
    });
    for t in 0..K / T {
        step_label(img, (x, y), (t * T, WG_X * T), t);
    }
    // The slide: down the band, in the grey column beside it.
    let ax = (x + WG_X * T * CELL - CELL / 2) as f32;
    for t in 0..K / T - 1 {
        let y0 = (y + t * T * CELL + T * CELL / 2) as f32;
        picture::arrow(
            img,
            (ax, y0 + 6.0),
            (ax, y0 + (T * CELL) as f32 - 6.0),
            2.0,
            B_DARK,
        );
    }
    text::centre(
        img,
        (x + N * CELL / 2) as f32,
        (y - 40) as f32,
        &format!("B, k × n = {K} × {N}: the workgroup reads column band wg.x = {WG_X}"),
        text::LABEL,
        INK,
    );
    ticks(img, (x, y), N, true, "j");
    ticks(img, (x, y), K, false, "k");
}

/// A (m×k) with the workgroup's row band, its tiles numbered by step, sliding right.
fn draw_a(img: &mut RgbImage, (x, y): (i32, i32)) {
    let [band, cols, _, _] = ranges(STEP);
    tiled_matrix(img, (x, y), (M, K), |r, c| {
        if !band.contains(&r) {
            IDLE
        } else if cols.contains(&c) {
            A_DARK
        } else {
            A_LIGHT
        }
    });
    for t in 0..K / T {
        step_label(img, (x, y), (WG_Y * T, t * T), t);
    }
    let ay = (y + WG_Y * T * CELL - CELL / 2) as f32;
    for t in 0..K / T - 1 {
        let x0 = (x + t * T * CELL + T * CELL / 2) as f32;
        picture::arrow(
            img,
            (x0 + 6.0, ay),
            (x0 + (T * CELL) as f32 - 6.0, ay),
            2.0,
            A_DARK,
        );
    }
    text::centre(
        img,
        (x + K * CELL / 2) as f32,
        (y - 40) as f32,
        &format!("A, m × k = {M} × {K}: row band wg.y = {WG_Y}"),
        text::LABEL,
        INK,
    );
    ticks(img, (x, y), K, true, "k");
    ticks(img, (x, y), M, false, "i");
}

/// C (m×n) with the workgroup's tile.
fn draw_c(img: &mut RgbImage, (x, y): (i32, i32)) {
    tiled_matrix(img, (x, y), (M, N), |r, c| {
        if r / T == WG_Y && c / T == WG_X {
            C_DARK
        } else {
            IDLE
        }
    });
    text::centre(
        img,
        (x + N * CELL / 2) as f32,
        (y - 40) as f32,
        "C, m × n",
        text::LABEL,
        INK,
    );
    ticks(img, (x, y), N, true, "j");
    let (tx, ty) = (x + WG_X * T * CELL, y + WG_Y * T * CELL);
    text_at(
        img,
        ((tx + T * CELL / 2) as f32, (ty + T * CELL / 2) as f32),
        "C tile",
        text::LABEL,
        Rgb([255, 255, 255]),
    );
    // T along the tile's bottom edge.
    let yb = (ty + T * CELL + 12) as f32;
    let (x0, x1) = (tx as f32, (tx + T * CELL) as f32);
    picture::arrow(img, ((x0 + x1) / 2.0, yb), (x0, yb), 1.5, INK);
    picture::arrow(img, ((x0 + x1) / 2.0, yb), (x1, yb), 1.5, INK);
    text::centre(img, (x0 + x1) / 2.0, yb + 6.0, "T", text::LABEL, INK);
    text::lines(
        img,
        (x + N * CELL + 24) as f32,
        (ty + 4) as f32,
        &[
            &format!("workgroup (wg.x, wg.y) = ({WG_X}, {WG_Y}):"),
            &format!("T × T = {} invocations, one element", T * T),
            "of the C tile each, its sum kept in a",
            "register across all the steps and",
            "written once at the end.",
        ],
        text::SMALL,
        INK,
    );
}

/// The loop, in the empty corner above A and left of B.
fn steps_text(img: &mut RgbImage, (x, y): (i32, i32)) {
    text::left(
        img,
        x as f32,
        y as f32,
        "At each step t (the shader's loop variable step):",
        text::LABEL,
        INK,
    );
    text::lines(
        img,
        x as f32,
        y as f32 + 28.0,
        &[
            "1. invocation (lid.x, lid.y) loads one element of",
            "    A's tile t and one of B's tile t:",
            "    tile_a[lid.y·T + lid.x] = A(row, t·T + lid.x)",
            "    tile_b[lid.y·T + lid.x] = B(t·T + lid.y, col)",
            "    (zero past the matrix edges);",
            "2. workgroupBarrier();",
            "3. each adds T products from workgroup memory:",
            "    sum += tile_a[lid.y·T + i] · tile_b[i·T + lid.x]",
            "4. workgroupBarrier(); then t + 1: both tiles",
            "    slide T along k (arrows).",
            "",
            "Each element brought from global memory is used",
            "T times: global traffic falls by a factor of T.",
        ],
        text::SMALL,
        INK,
    );
}

/// Halfway between two colours.
fn mid(a: Rgb<u8>, b: Rgb<u8>) -> Rgb<u8> {
    picture::blend(a, b, 0.5)
}

/// The tiles of the drawn workgroup at step `t`, in cells: A's rows, A's columns, B's rows,
/// B's columns.
fn ranges(t: i32) -> [std::ops::Range<i32>; 4] {
    tiled_step_ranges(WG_X as usize, WG_Y as usize, t as usize, T as usize)
        .map(|r| r.start as i32..r.end as i32)
}

/// Step STEP's pair of tiles in workgroup memory: tile_b beside B, tile_a below A, with arrows
/// from the tiles they were loaded from.
fn shared_tiles(img: &mut RgbImage, (ax, ay): (i32, i32), (bx, by): (i32, i32)) {
    let sc = 36i32;
    let side = T * sc;
    // tile_b, right of B's tile STEP.
    let (tbx, tby) = (
        bx + N * CELL + 110,
        by + STEP * T * CELL + (T * CELL - side) / 2,
    );
    let from = (
        (bx + N * CELL + 4) as f32,
        (by + STEP * T * CELL + T * CELL / 2) as f32,
    );
    picture::arrow(img, from, ((tbx - 6) as f32, from.1), 2.5, B_DARK);
    grid(img, (tbx, tby), (T as usize, T as usize, sc), |r, c| {
        Some((
            mid(B_LIGHT, B_DARK),
            format!("{},{}", STEP * T + r as i32, WG_X * T + c as i32),
        ))
    });
    text::left(
        img,
        tbx as f32,
        (tby - 44) as f32,
        "tile_b: loaded into shared memory at step t",
        text::SMALL,
        INK,
    );
    text::left(
        img,
        tbx as f32,
        (tby - 26) as f32,
        &format!(
            "(t = {STEP}: B's rows {}…{}, columns {}…{})",
            STEP * T,
            STEP * T + T - 1,
            WG_X * T,
            WG_X * T + T - 1
        ),
        text::SMALL,
        MUTED,
    );
    // tile_a, below A's tile STEP.
    let (tax, tay) = (
        ax + STEP * T * CELL + (T * CELL - side) / 2,
        ay + M * CELL + 70,
    );
    let from = (
        (ax + STEP * T * CELL + T * CELL / 2) as f32,
        (ay + M * CELL + 4) as f32,
    );
    picture::arrow(img, from, (from.0, (tay - 6) as f32), 2.5, A_DARK);
    grid(img, (tax, tay), (T as usize, T as usize, sc), |r, c| {
        Some((
            mid(A_LIGHT, A_DARK),
            format!("{},{}", WG_Y * T + r as i32, STEP * T + c as i32),
        ))
    });
    text::left(
        img,
        (tax + side + 16) as f32,
        (tay + 10) as f32,
        "tile_a: loaded into shared memory at step t",
        text::SMALL,
        INK,
    );
    text::left(
        img,
        (tax + side + 16) as f32,
        (tay + 28) as f32,
        &format!(
            "(t = {STEP}: A's rows {}…{}, columns {}…{})",
            WG_Y * T,
            WG_Y * T + T - 1,
            STEP * T,
            STEP * T + T - 1
        ),
        text::SMALL,
        MUTED,
    );
    text::left(
        img,
        (tax + side + 16) as f32,
        (tay + 54) as f32,
        "cell label: the element's (row, column) in A or B",
        text::SMALL,
        MUTED,
    );
}
