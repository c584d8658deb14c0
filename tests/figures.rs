//! The pictures of the lessons: each is registered and draws a PNG; the charts show the pinned
//! H100 run's numbers (parsed here independently of the figure's own parser); the 5kk73 picture
//! indexes B and its tile as rendermm's shaders do; L-M figure 3's strata split the shapes as
//! the paper's caption does; the packed demo has a value key under every packed texture; the
//! diagrams of Hall's eq. 10, the tiled kernel, Cannon and DNS draw what their shaders compute.

mod common;

use rendermm::demo::Kind;
use rendermm::demo::layout::Scales;
use rendermm::demo::layout::{self, Look, View};
use rendermm::figures::{self, KK73_ACCESS};
use rendermm::precision::Precision;
use std::path::{Path, PathBuf};

const LESSONS: [&str; 10] = [
    "eras-best-h100",
    "texel-rate-vs-fma",
    "5kk73-access",
    "frag-mrt-attachments",
    "tensor-core-tile",
    "lm-cube",
    "hall-eq10",
    "tile-slide",
    "cannon-shift",
    "dns-cube",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

#[test]
fn every_lesson_picture_is_registered_and_draws_a_png() {
    let dir = std::env::temp_dir().join(format!("rendermm-lessons-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in LESSONS {
        let f = figures::find(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            !f.per_adapter,
            "{name} draws the pinned run, not this adapter"
        );
        let path = dir.join(format!("{name}.png"));
        (f.draw)(common::ctx(), &path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let img = image::open(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            img.width() >= 900 && img.height() >= 500,
            "{name}: {}x{}",
            img.width(),
            img.height()
        );
        // Not a blank canvas: dark ink (text) and colour (bars, cells) both present.
        let rgb = img.to_rgb8();
        assert!(
            rgb.pixels().any(|p| p.0.iter().all(|&c| c < 60)),
            "{name}: no text"
        );
        assert!(
            rgb.pixels()
                .any(|p| p.0.iter().max().unwrap() - p.0.iter().min().unwrap() > 80),
            "{name}: no colour"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The pinned CSV read the simple way: (method, n, gflops) of the rows that passed.
fn pinned_passed_rows() -> Vec<(String, usize, f64)> {
    let text = std::fs::read_to_string(root().join("docs/perf/h100/bench.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let (cm, cn, cg, cp) = (col("method"), col("n"), col("gflops"), col("passed"));
    lines
        .filter_map(|l| {
            // No field before `passed` holds a comma except the quoted `checked`, which comes
            // after gflops: count from the start for the first columns, and find "true" after.
            let f: Vec<&str> = l.split(',').collect();
            let passed = f[cp..].contains(&"true");
            let g: f64 = f[cg].parse().ok()?;
            (passed && g.is_finite()).then(|| (f[cm].to_string(), f[cn].parse().unwrap(), g))
        })
        .collect()
}

#[test]
fn the_eras_picture_shows_each_method_at_its_fastest_n_in_the_pinned_csv() {
    let rows = figures::pinned_rows().unwrap();
    let simple = pinned_passed_rows();
    for (_, method) in figures::ERA_BEST {
        let want = simple
            .iter()
            .filter(|r| r.0 == method)
            .max_by(|a, b| a.2.total_cmp(&b.2))
            .map(|r| (r.1, r.2))
            .unwrap_or_else(|| panic!("{method} has no passed row in the pinned CSV"));
        let got = figures::best_of(&rows, method).unwrap();
        assert_eq!(got.0, want.0, "{method}: best n");
        assert!(
            (got.1 - want.1).abs() <= 1e-9 * want.1,
            "{method}: {got:?} vs {want:?}"
        );
    }
    // lm did not run at 4096 (one product at 2048 took over two seconds): its best is 2048.
    assert_eq!(figures::best_of(&rows, "lm").unwrap().0, 2048);
    // The tensor cores are the fastest era, above the FP32 peak; cs-fast below it.
    let coop = figures::best_of(&rows, "coop").unwrap().1;
    let fast = figures::best_of(&rows, "cs-fast").unwrap().1;
    assert!(coop > figures::H100_FP32_PEAK && fast < figures::H100_FP32_PEAK && coop > fast);
}

#[test]
fn a_sweep_csv_without_a_needed_column_is_refused_with_its_name() {
    let e = figures::parse_sweep_csv("method,n,gflops\nlm,16,1.0\n", "x.csv").unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("x.csv") && msg.contains("passed"), "{msg}");
    let e = figures::parse_sweep_csv("method,n,gflops,passed\nlm,sixteen,1.0,true\n", "x.csv")
        .unwrap_err();
    assert!(e.to_string().contains("line 2"), "{e}");
}

#[test]
fn the_roofline_ceilings_are_the_pinned_runs() {
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("docs/perf/h100/bench.json")).unwrap(),
    )
    .unwrap();
    for name in ["fragment-fma", "texture-fetch", "texture-fetch-rgba32f"] {
        let want = json["ceilings"]["ceilings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap()["value"]
            .as_f64()
            .unwrap();
        assert_eq!(figures::pinned_ceiling(name).unwrap(), want, "{name}");
    }
    assert!(figures::pinned_ceiling("no-such-ceiling").is_err());
}

/// The value of a WGSL index expression of sums of `X * BS` and `X` terms, with tx as given,
/// ty = 0, kk = 0, the first tile (t = 0) of the first workgroup (wg = 0).
fn eval(expr: &str, tx: usize) -> usize {
    let var = |v: &str| match v.trim() {
        "tx" => tx,
        "ty" | "kk" | "t" | "wg.x" | "wg.y" => 0,
        "col" => tx, // wg.x * BS + tx
        "row" => 0,  // wg.y * BS + ty
        other => panic!("unknown variable {other} in {expr}"),
    };
    expr.split('+')
        .map(|term| match term.split_once('*') {
            Some((v, bs)) => {
                assert_eq!(bs.trim(), "BS", "{expr}");
                var(v) * 16
            }
            None => var(term),
        })
        .sum()
}

/// The text between `open` and the matching `)` or `]` after it.
fn inside<'a>(s: &'a str, open: &str) -> &'a str {
    let at = s.find(open).unwrap_or_else(|| panic!("no {open} in {s}")) + open.len();
    let close = if open.ends_with('[') { ']' } else { ')' };
    let mut depth = 0;
    for (i, c) in s[at..].char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' if depth > 0 => depth -= 1,
            c if c == close => return &s[at..at + i],
            _ => {}
        }
    }
    panic!("unclosed {open} in {s}")
}

#[test]
fn the_5kk73_access_picture_indexes_b_and_its_tile_as_the_shaders_do() {
    let shaders = ["kk73_1_uncoalesced", "kk73_2_coalesced", "kk73_3_bank_free"];
    for (step, file) in KK73_ACCESS.iter().zip(shaders) {
        let src = std::fs::read_to_string(root().join(format!("shaders/{file}.wgsl"))).unwrap();
        let store = src
            .lines()
            .map(|l| l.split("//").next().unwrap())
            .find(|l| l.contains("b_tile[") && l.contains("= load_b("))
            .unwrap_or_else(|| panic!("{file}: no store into b_tile"));
        let inner = src
            .lines()
            .map(|l| l.split("//").next().unwrap())
            .find(|l| l.contains("accu +=") && l.contains("b_tile["))
            .unwrap_or_else(|| panic!("{file}: no inner product"));
        let (r, c) = inside(store, "load_b(").split_once(',').unwrap();
        for tx in 0..16 {
            assert_eq!(
                (step.read)(tx),
                (eval(r, tx), eval(c, tx)),
                "{file}: B read by tx = {tx}"
            );
            assert_eq!(
                (step.store)(tx),
                eval(inside(store, "b_tile["), tx),
                "{file}: store, tx = {tx}"
            );
            assert_eq!(
                (step.inner)(tx),
                eval(inside(inner, "b_tile["), tx),
                "{file}: read, tx = {tx}"
            );
        }
    }
    // What the picture then says: step 1 reads B down a column, steps 2 and 3 along a row; the
    // transposed tile of step 2 puts 8 of the 16 threads on one bank, step 3 one per bank.
    let coalesced =
        |s: usize| (0..16).all(|t| (KK73_ACCESS[s].read)(t).0 == (KK73_ACCESS[s].read)(0).0);
    assert_eq!(
        [coalesced(0), coalesced(1), coalesced(2)],
        [false, true, true]
    );
    let worst = |w: fn(usize) -> usize| figures::bank_load(w).into_iter().max().unwrap();
    let ways: Vec<usize> = KK73_ACCESS.iter().map(|s| worst(s.inner)).collect();
    assert_eq!(ways, [1, 8, 1]);
}

/// A shader's source, its comments dropped.
fn shader_code(name: &str) -> String {
    std::fs::read_to_string(root().join(format!("shaders/{name}.wgsl")))
        .unwrap()
        .lines()
        .map(|l| l.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_hall_eq10_picture_is_the_block_product_and_the_shaders_swizzles() {
    let code = shader_code("hall_packed");
    for (x, y) in figures::HALL_SWIZZLES {
        assert!(
            code.contains(&format!("r1.{x} * r2.{y}")),
            "hall_packed.wgsl has no r1.{x} * r2.{y}"
        );
    }
    // Quadrants as numbers: X = (A B; C D), Y = (E F; G H) in channels r g b a.
    let x = [2.0f64, 3.0, 5.0, 7.0];
    let y = [11.0f64, 13.0, 17.0, 19.0];
    let block = [
        x[0] * y[0] + x[1] * y[2],
        x[0] * y[1] + x[1] * y[3],
        x[2] * y[0] + x[3] * y[2],
        x[2] * y[1] + x[3] * y[3],
    ];
    let ch = |s: &str, c: usize| "rgba".find(s.as_bytes()[c] as char).unwrap();
    let quad = |q: &str| "ABCDEFGH".find(q).unwrap() % 4;
    for c in 0..4 {
        let swizzled: f64 = figures::HALL_SWIZZLES
            .iter()
            .map(|(sx, sy)| x[ch(sx, c)] * y[ch(sy, c)])
            .sum();
        assert_eq!(swizzled, block[c], "channel {c}: the swizzles");
        let drawn: f64 = figures::HALL_EQ10[c]
            .iter()
            .map(|(a, b)| x[quad(a)] * y[quad(b)])
            .sum();
        assert_eq!(drawn, block[c], "channel {c}: the picture's sum");
    }
}

#[test]
fn the_tile_slide_picture_indexes_the_tiles_as_cs_tiled_does() {
    let code = shader_code("cs_tiled");
    for line in [
        "let row = wg.y * TILE + lid.y;",
        "let col = wg.x * TILE + lid.x;",
        "let col_a = step * TILE + lid.x;",
        "let row_b = step * TILE + lid.y;",
    ] {
        assert!(code.contains(line), "cs_tiled.wgsl has no `{line}`");
    }
    let tile = 4;
    for (wx, wy, step) in [(0, 0, 0), (2, 2, 1), (1, 3, 3)] {
        let [a_rows, a_cols, b_rows, b_cols] = figures::tiled_step_ranges(wx, wy, step, tile);
        let lid = 0..tile;
        assert_eq!(a_rows, wy * tile + lid.start..wy * tile + lid.end, "row");
        assert_eq!(
            a_cols,
            step * tile + lid.start..step * tile + lid.end,
            "col_a"
        );
        assert_eq!(
            b_rows,
            step * tile + lid.start..step * tile + lid.end,
            "row_b"
        );
        assert_eq!(b_cols, wx * tile + lid.start..wx * tile + lid.end, "col");
    }
}

#[test]
fn the_cannon_picture_holds_the_pairs_cannon_wgsl_reads() {
    assert!(
        shader_code("cannon").contains("let dex = (tx + ty + p) % K;"),
        "cannon.wgsl's skewed index changed"
    );
    let n = 4;
    for i in 0..n {
        for j in 0..n {
            let mut seen = vec![];
            for s in 0..n {
                let ((ai, aq), (bq, bj)) = figures::cannon_holds(i, j, s, n);
                // tx = j, ty = i, p = s.
                let dex = (j + i + s) % n;
                assert_eq!((ai, aq, bq, bj), (i, dex, dex, j), "({i}, {j}) at step {s}");
                seen.push(aq);
            }
            seen.sort_unstable();
            assert_eq!(
                seen,
                (0..n).collect::<Vec<_>>(),
                "({i}, {j}) sees every q once"
            );
            // One shift: A comes from the right neighbour, B from the one below.
            let (a_next, b_next) = figures::cannon_holds(i, j, 1, n);
            assert_eq!(a_next, figures::cannon_holds(i, (j + 1) % n, 0, n).0);
            assert_eq!(b_next, figures::cannon_holds((i + 1) % n, j, 0, n).1);
        }
    }
}

#[test]
fn the_dns_picture_reduces_as_dns_wgsl_does() {
    let code = shader_code("dns");
    assert!(
        code.contains("for (var s = KHALF; s > 0u; s >>= 1u)"),
        "dns.wgsl's loop"
    );
    assert!(
        code.contains("if lk < s && lk + s < BK"),
        "dns.wgsl's guard"
    );
    for bk in 1..=40usize {
        let tree = figures::dns_tree(bk);
        assert_eq!(
            tree.len() - 1,
            bk.next_power_of_two().trailing_zeros() as usize,
            "bk = {bk}: ⌈log₂ BK⌉ steps"
        );
        let mut last = tree.last().unwrap().1[0].clone();
        last.sort_unstable();
        assert_eq!(
            last,
            (0..bk).collect::<Vec<_>>(),
            "bk = {bk}: slot 0 sums every term once"
        );
    }
    // The picture's k = 4: strides 2 then 1.
    let strides: Vec<usize> = figures::dns_tree(4).iter().skip(1).map(|s| s.0).collect();
    assert_eq!(strides, [2, 1]);
}

#[test]
fn lm_figure_3_strata_split_square_ish_from_oblong_shapes() {
    assert_eq!(figures::lm_stratum(256, 256, 256), 0);
    assert_eq!(figures::lm_stratum(16, 64, 64), 0);
    assert_eq!(figures::lm_stratum(64, 256, 256), 0);
    assert_eq!(figures::lm_stratum(16, 256, 64), 1);
    assert_eq!(figures::lm_stratum(256, 16, 256), 1);
    let sides = [16usize, 64, 256];
    let mut oblong = 0;
    for m in sides {
        for k in sides {
            for n in sides {
                oblong += usize::from(figures::lm_stratum(m, k, n) == 1);
            }
        }
    }
    assert_eq!(oblong, 12, "the shapes holding both 16 and 256");
}

fn packed_view(m: usize, k: usize, n: usize) -> View {
    View {
        kind: Kind::Packed,
        m,
        k,
        n,
        precision: Precision::F32,
        pass: 1,
        passes: k.div_ceil(2),
        block: (0, 1),
        b: 1,
        scales: Scales {
            a: 1.0,
            b: 2.0,
            slice: 1.0,
            c: 3.0,
        },
        keys: true,
        status: Some("DONE".into()),
    }
}

#[test]
fn the_packed_demo_has_a_channel_value_key_under_every_packed_texture() {
    for (m, k, n) in [(8, 8, 8), (7, 9, 5), (64, 64, 64)] {
        for (w, h) in [(960, 420), (1280, 720)] {
            let lay = layout::layout(&packed_view(m, k, n), w, h);
            assert!(
                lay.panels.len() + lay.bars.len() <= 8,
                "the renderer draws 8 at most"
            );
            for p in lay.panels.iter().filter(|p| p.look == Look::Texels) {
                let key = lay
                    .bars
                    .iter()
                    .find(|b| {
                        b.rows == 4
                            && b.rect.y >= p.rect.y + p.rect.h
                            && b.rect.x <= p.rect.x + 1.0
                            && b.rect.x + b.rect.w >= p.rect.x + p.rect.w - 1.0
                    })
                    .unwrap_or_else(|| {
                        panic!("{m}x{k}x{n} in {w}x{h}: no key under {:?}", p.label)
                    });
                assert_eq!(key.scale, p.scale, "the key is on its panel's scale");
                assert!(key.rect.y + key.rect.h <= h as f32, "key outside the frame");
                // Its numbers: −scale at the left, +scale at the right.
                let plus = format!("+{}", layout::number(p.scale));
                assert!(lay.labels.iter().any(|l| l.text == plus), "no {plus} tick");
            }
        }
    }
}
