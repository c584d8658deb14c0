//! 5kk73's first three steps: which element each invocation reads and which bank it hits.

use super::diagrams::*;
use super::*;

/// Thread `t`'s colour of 16: hues around the wheel, light enough for dark digits on them.
fn thread_colour(t: usize) -> Rgb<u8> {
    let h = (t % 16) as f32 / 16.0 * 330.0;
    hsv(h, 0.55, 0.97)
}

/// One step of the 5kk73 ladder as the 16 invocations with ty = 0 run it at kk = 0: the element
/// (row kk, column j of the tile) each reads of B, the word of `b_tile` it stores and the word
/// the inner product reads.
pub struct AccessStep {
    pub heading: &'static str,
    pub code: &'static str,
    pub read: fn(usize) -> (usize, usize),
    pub store: fn(usize) -> usize,
    pub inner: fn(usize) -> usize,
}

/// The first three steps of 5kk73, with the index arithmetic of rendermm's shaders
/// (`shaders/kk73_1_uncoalesced.wgsl` ... `kk73_3_bank_free.wgsl`) for tx = 0..15, ty = 0, kk = 0.
pub const KK73_ACCESS: [AccessStep; 3] = [
    AccessStep {
        heading: "Step 1, tiling (5kk73-1-uncoalesced): B's tile kept as B is; each thread loads down a column of B",
        code: "b_tile[tx·16 + ty] = B(k0 + tx, col0 + ty)          inner product: a_tile[ty·16 + kk] · b_tile[kk·16 + tx]",
        read: |tx| (tx, 0),
        store: |tx| tx * 16,
        inner: |tx| tx,
    },
    AccessStep {
        heading: "Step 2, coalescing (5kk73-2-coalesced): B read along a row, the tile stored transposed (5kk73 transposes B on the CPU)",
        code: "b_tile[tx·16 + ty] = B(k0 + ty, col0 + tx)          inner product: a_tile[ty·16 + kk] · b_tile[tx·16 + kk]",
        read: |tx| (0, tx),
        store: |tx| tx * 16,
        inner: |tx| tx * 16,
    },
    AccessStep {
        heading: "Step 3, no bank conflicts (5kk73-3-bank-free): B read along a row and the tile stored as read",
        code: "b_tile[ty·16 + tx] = B(k0 + ty, col0 + tx)          inner product: a_tile[ty·16 + kk] · b_tile[kk·16 + tx]",
        read: |tx| (0, tx),
        store: |tx| tx,
        inner: |tx| tx,
    },
];

/// Banks of workgroup memory: 32 of 4 bytes, word w in bank w mod 32.
pub const BANKS: usize = 32;

/// How many of the 16 threads each bank serves when thread t touches word `word(t)`.
pub fn bank_load(word: fn(usize) -> usize) -> [usize; BANKS] {
    let mut load = [0; BANKS];
    for t in 0..16 {
        load[word(t) % BANKS] += 1;
    }
    load
}

/// Threads per bank as stacked bars under a tile, 9 pixels a bank, 5 a thread.
fn bank_bars(img: &mut RgbImage, (x, y): (i32, i32), word: fn(usize) -> usize) -> i32 {
    let (bw, th, max) = (9, 5, 8);
    let base = y + max * th;
    let mut stacked = [0i32; BANKS];
    for t in 0..16 {
        let b = word(t) % BANKS;
        fill(
            img,
            x + b as i32 * bw + 1,
            base - (stacked[b] + 1) * th + 1,
            (bw - 2) as u32,
            (th - 1) as u32,
            thread_colour(t),
        );
        stacked[b] += 1;
    }
    fill(img, x, base, (BANKS as i32 * bw) as u32, 1, RULE);
    for (b, label) in [(0usize, "bank 0"), (16, "16"), (31, "31")] {
        let cx = x as f32 + (b as f32 + 0.5) * bw as f32;
        fill(img, cx as i32, base, 1, 3, RULE);
        let align = if b == 0 {
            text::Align::Left
        } else {
            text::Align::Centre
        };
        let lx = if b == 0 { x as f32 } else { cx };
        text::draw(img, lx, base as f32 + 3.0, label, text::SMALL, MUTED, align);
    }
    base + 3 + text::line(text::SMALL) as i32
}

/// The verdict on a set of bank accesses.
fn bank_verdict(word: fn(usize) -> usize) -> String {
    let worst = bank_load(word).into_iter().max().unwrap_or(0);
    if worst <= 1 {
        "one thread per bank: no conflict".into()
    } else {
        format!("{worst} threads on one bank: a {worst}-way conflict")
    }
}

/// The diagram's geometry: a grid cell's side, a grid's side, the grids' left edges, the width.
const CELL: i32 = 18;
const SIDE: i32 = 16 * CELL;
const COLS: [i32; 3] = [70, 470, 870];
const WIDTH: u32 = 1220;

/// 5kk73's access patterns, steps 1-3: for each, the 16 threads of one row of the workgroup
/// (ty = 0), coloured by tx, on B in global memory, on the store into the tile in workgroup
/// memory and on the inner product's read at kk = 0, with the banks each touches.
pub fn kk73_access(_ctx: &GpuContext, out: &Path) -> Result<()> {
    let block_h = 560i32;
    let top = 150i32;
    let height = (top + 3 * block_h) as u32;
    let mut img = RgbImage::from_pixel(WIDTH, height, picture::BG);
    kk73_header(&mut img);
    for (s, step) in KK73_ACCESS.iter().enumerate() {
        let y0 = top + s as i32 * block_h;
        fill(&mut img, 20, y0 - 6, WIDTH - 40, 1, GRID);
        text::left(&mut img, 30.0, y0 as f32, step.heading, text::LABEL, INK);
        text::left(
            &mut img,
            30.0,
            y0 as f32 + 24.0,
            step.code,
            text::SMALL,
            MUTED,
        );
        let gy = y0 + 110;
        kk73_grids(&mut img, step, gy);
        kk73_verdicts(&mut img, step, gy + SIDE + 12);
    }
    picture::save_png(out, &img)
}

/// The title, the caption and the threads' colour bar.
fn kk73_header(img: &mut RgbImage) {
    text::left(
        img,
        30.0,
        16.0,
        "5kk73's first three steps: which word of B and of the tile each thread touches",
        text::TITLE,
        INK,
    );
    text::lines(
        img,
        30.0,
        48.0,
        &[
            "A 16×16 workgroup; drawn: the 16 threads of its first row (ty = 0, tx = 0…15), at the first step of the inner product (kk = 0). Words are 4 bytes;",
            "workgroup memory has 32 banks, word w in bank w mod 32, and the threads that touch different words of one bank take turns (the 8800 GT had 16 banks).",
        ],
        text::SMALL,
        MUTED,
    );
    picture::colour_bar(
        img,
        30,
        92,
        320,
        |t| thread_colour((t * 15.0).round() as usize),
        &[
            (0.0, "tx = 0".into()),
            (0.5, "7".into()),
            (1.0, "15".into()),
        ],
        "thread (colour and number in each cell)",
    );
}

/// One step's three grids at `gy`, titled, each cell coloured by the thread that touches it.
fn kk73_grids(img: &mut RgbImage, step: &AccessStep, gy: i32) {
    let titles = [
        (
            "B in global memory (n words a row)",
            "rows k0…k0+15 down, columns col0…col0+15 across",
        ),
        (
            "the store into b_tile (workgroup memory)",
            "word = row·16 + column of the tile",
        ),
        (
            "the inner product's read at kk = 0",
            "word = row·16 + column of the tile",
        ),
    ];
    for (c, (t1, t2)) in titles.iter().enumerate() {
        let cx = (COLS[c] + SIDE / 2) as f32;
        text::centre(img, cx, gy as f32 - 58.0, t1, text::LABEL, INK);
        text::centre(img, cx, gy as f32 - 38.0, t2, text::SMALL, MUTED);
    }
    let read = step.read;
    grid(img, (COLS[0], gy), (16, 16, CELL), |r, c| {
        (0..16)
            .find(|&t| read(t) == (r, c))
            .map(|t| (thread_colour(t), t.to_string()))
    });
    for (c, word) in [(1usize, step.store), (2, step.inner)] {
        grid(img, (COLS[c], gy), (16, 16, CELL), |r, col| {
            (0..16)
                .find(|&t| word(t) == r * 16 + col)
                .map(|t| (thread_colour(t), t.to_string()))
        });
    }
    // Row and column numbers of the grids.
    for &x in &COLS {
        for i in [0usize, 15] {
            let at = x as f32 + (i as f32 + 0.5) * CELL as f32;
            text::centre(
                img,
                at,
                gy as f32 - text::line(text::SMALL) + 1.0,
                &i.to_string(),
                text::SMALL,
                MUTED,
            );
            text::draw(
                img,
                x as f32 - 6.0,
                gy as f32 + i as f32 * CELL as f32 + 1.0,
                &i.to_string(),
                text::SMALL,
                MUTED,
                text::Align::Right,
            );
        }
    }
}

/// Under one step's grids (from `below`): the global read's verdict and each tile access's banks.
fn kk73_verdicts(img: &mut RgbImage, step: &AccessStep, below: i32) {
    let read = step.read;
    let coalesced = (0..16).all(|t| read(t).0 == read(0).0);
    let global = if coalesced {
        [
            "16 neighbouring words of one row:",
            "one 64-byte transaction (coalesced)",
        ]
    } else {
        [
            "16 words n apart, down a column:",
            "16 separate transactions (not coalesced)",
        ]
    };
    text::centre(
        img,
        (COLS[0] + SIDE / 2) as f32,
        below as f32 + 52.0,
        global[0],
        text::SMALL,
        INK,
    );
    text::centre(
        img,
        (COLS[0] + SIDE / 2) as f32,
        below as f32 + 70.0,
        global[1],
        text::SMALL,
        INK,
    );
    for (c, word, when) in [
        (1usize, step.store, "(once per tile)"),
        (2, step.inner, "(at every kk: 16 times per tile)"),
    ] {
        let x = COLS[c] + (SIDE - BANKS as i32 * 9) / 2;
        let y = bank_bars(img, (x, below), word);
        let cx = (COLS[c] + SIDE / 2) as f32;
        text::centre(
            img,
            cx,
            y as f32 + 2.0,
            &bank_verdict(word),
            text::SMALL,
            INK,
        );
        text::centre(img, cx, y as f32 + 20.0, when, text::SMALL, MUTED);
    }
    for (i, t) in ["threads", "per bank:"].iter().enumerate() {
        let y = (below + 6 + 16 * i as i32) as f32;
        text::draw(
            img,
            (COLS[1] - 10) as f32,
            y,
            t,
            text::SMALL,
            MUTED,
            text::Align::Right,
        );
    }
}
