//! The figures and tables that measure: L-M figure 3, `reach --bench`, Hall's tables, the
//! demos' GIFs, the 5kk73 steps, O'Neil's tables, the eras, tiling.

use super::*;

/// L-M figure 3: operations per second of `lm` over a grid of shapes (sides 16, 64 and 256 in
/// every combination), in u8 as the paper and in f32, against the elements passed in (m·k + k·n,
/// the left graph) and the operations done (2·m·k·n − m·n, the right), with the GeForce3's 4.4
/// GBops as the reference line. Times include upload and readback, as the paper's did.
pub fn lm_fig3(ctx: &GpuContext, out: &Path) -> Result<()> {
    let sides = [16usize, 64, 256];
    let mut left = vec![];
    let mut right = vec![];
    let mut rows = vec![];
    for precision in [Precision::U8, Precision::F32] {
        // The paper's two strata (its §5 and figure 3's caption): square-ish shapes above,
        // oblong ones below. One series each, so the picture shows which points are which.
        let mut by_elems = [vec![], vec![]];
        let mut by_ops = [vec![], vec![]];
        for &m in &sides {
            for &k in &sides {
                for &n in &sides {
                    let (lo, hi) = if precision == Precision::U8 {
                        (0.0, 1.0)
                    } else {
                        (-1.0, 1.0)
                    };
                    let a = Matrix::random(m, k, 7, lo, hi);
                    let b = Matrix::random(k, n, 8, lo, hi);
                    let opts = Options {
                        precision,
                        ..Default::default()
                    };
                    // One untimed run first: the pipeline's first use pays for shader compilation.
                    plan::multiply(
                        Some(ctx),
                        plan::Request::new(Method::Lm, &a, &b).options(opts.clone()),
                    )?;
                    let run = plan::multiply(
                        Some(ctx),
                        plan::Request::new(Method::Lm, &a, &b).options(opts),
                    )?;
                    let ops = (2 * m * k * n - m * n) as f64;
                    let mops = ops / (run.timings.total_ms().max(1e-9) * 1e3);
                    let s = lm_stratum(m, k, n) as usize;
                    by_elems[s].push(((m * k + k * n) as f64, mops));
                    by_ops[s].push((ops, mops));
                    rows.push((precision, m, k, n, run.timings.total_ms(), mops));
                }
            }
        }
        strata_series(precision, by_elems, by_ops, (&mut left, &mut right));
    }
    let y = "M operations/s (2mkn − mn over total time)".to_string();
    plots::scatter_panels(
        out,
        &format!(
            "L-M figure 3 on {}: lm, shapes m, k, n in {{16, 64, 256}}, marked by the paper's two strata (square-ish, oblong)",
            adapter_tag(ctx)
        ),
        &[
            Panel {
                x_desc: "elements passed in (m·k + k·n)".into(),
                y_desc: y.clone(),
                series: left,
            },
            Panel {
                x_desc: "operations (2·m·k·n − m·n)".into(),
                y_desc: y,
                series: right,
            },
        ],
        Some((4400.0, "GeForce3, 2001: 4.4 GBops (the paper)")),
    )?;
    write_text(&out.with_extension("md"), &lm_fig3_md(ctx, &rows))
}

/// One row of L-M figure 3's table: precision, m, k, n, total ms, M operations/s.
type LmRow = (Precision, usize, usize, usize, f64, f64);

/// One precision's points as two series each side, one per stratum of L-M figure 3.
fn strata_series(
    precision: Precision,
    by_elems: [Vec<(f64, f64)>; 2],
    by_ops: [Vec<(f64, f64)>; 2],
    (left, right): (&mut Vec<Series>, &mut Vec<Series>),
) {
    for (s, (elems, ops)) in by_elems.into_iter().zip(by_ops).enumerate() {
        let name = format!("lm {precision}, {}", STRATA[s]);
        // The strata in two hues (2001's red, and blue for the oblong shapes), each
        // precision a shade and a marker of its own.
        let group = if s == 0 { 0 } else { 2 };
        left.push(Series {
            name: name.clone(),
            points: elems,
            group,
        });
        right.push(Series {
            name,
            points: ops,
            group,
        });
    }
}

/// L-M figure 3's notes: the best shape of each precision and the strata's medians.
fn lm_fig3_md(ctx: &GpuContext, rows: &[LmRow]) -> String {
    let mut md = provenance(Some(ctx), None);
    md.push_str("L-M figure 3, re-measured: `lm` on every shape with sides 16, 64 and 256, one warm-up run then one timed run each; operations per second are the paper's (2·m·k·n − m·n) over the total time (upload, passes, readback), as its timings included conversion and transfer.\n\n");
    md.push_str("| precision | best shape (m×k×n) | total ms | M operations/s | the paper (GeForce3, u8) |\n|---|---|---|---|---|\n");
    for precision in [Precision::U8, Precision::F32] {
        let Some(best) = rows
            .iter()
            .filter(|r| r.0 == precision)
            .max_by(|x, y| x.5.total_cmp(&y.5))
        else {
            continue;
        };
        let paper = if precision == Precision::U8 {
            "4400 (4.4 GBops, its best)"
        } else {
            "– (8-bit only)"
        };
        let _ = writeln!(
            md,
            "| {precision} | {}×{}×{} | {:.2} | {:.0} | {paper} |",
            best.1, best.2, best.3, best.4, best.5
        );
    }
    md.push_str("\nThe paper's two strata (figure 3: \"the lower representing oblong textures and the upper representing more square matrix sizes\"), median over the shapes of each:\n\n| precision | stratum | shapes | median M operations/s |\n|---|---|---|---|\n");
    for precision in [Precision::U8, Precision::F32] {
        for (s, name) in STRATA.iter().enumerate() {
            let mut v: Vec<f64> = rows
                .iter()
                .filter(|r| r.0 == precision && lm_stratum(r.1, r.2, r.3) as usize == s)
                .map(|r| r.5)
                .collect();
            v.sort_by(f64::total_cmp);
            let median = v.get(v.len() / 2).copied().unwrap_or(f64::NAN);
            let _ = writeln!(md, "| {precision} | {name} | {} | {median:.0} |", v.len());
        }
    }
    md
}

/// The names of L-M figure 3's two strata, as [`lm_stratum`] numbers them.
pub const STRATA: [&str; 2] = [
    "square-ish (sides within 4× of each other)",
    "oblong (one side 16× another)",
];

/// Which of L-M figure 3's strata a shape falls in: 0 square-ish (its largest side at most 4
/// times its smallest), 1 oblong. The paper blames the lower stratum on oblong textures missing
/// the cache of a layout made for square ones.
pub fn lm_stratum(m: usize, k: usize, n: usize) -> u8 {
    let (lo, hi) = (m.min(k).min(n).max(1), m.max(k).max(n));
    u8::from(hi > 4 * lo)
}

/// L-M figures 4-5 from `reach --bench`, drawn by [`crate::reach::breakdown_chart`] (the chart
/// `reach --bench` draws): on a CPU adapter n = 256 and 8 powers (the paper's 1024 and 20 take
/// minutes there), elsewhere the paper's.
pub fn reach_bench(ctx: &GpuContext, out: &Path) -> Result<()> {
    let (n, powers) = if ctx.info.device_type == wgpu::DeviceType::Cpu {
        (256, 8)
    } else {
        (1024, 20)
    };
    let opts = crate::reach::ReachOptions {
        method: Method::Lm,
        precision: Some(Precision::U8),
        ..Default::default()
    };
    let r = crate::reach::bench(ctx, n, powers, 1, &opts)?;
    crate::reach::breakdown_chart(&r, out)?;
    let mut md = provenance(
        Some(ctx),
        Some(&format!("rendermm reach --bench --n {n} --powers {powers}")),
    );
    md.push_str("| phase | count | per matrix ms | total ms | the paper (GeForce3, n = 1024, 20 products) |\n|---|---|---|---|---|\n");
    let b = &r.breakdown;
    let _ = writeln!(
        md,
        "| texture load | 1 | {:.3} | {:.3} | figure 4 (bars, no numbers) |",
        r.load_per_matrix_ms, b.load_ms
    );
    let gpu = r
        .copy_gpu_per_matrix_ms
        .map_or(String::new(), |g| format!(" ({g:.3} by GPU timestamps)"));
    let _ = writeln!(
        md,
        "| GPU copy | {} | {:.3}{gpu} | {:.3} | \"approximately twice as fast\" as load or readback |",
        b.copies, r.copy_per_matrix_ms, b.copy_ms
    );
    let _ = writeln!(
        md,
        "| readback | 1 | {:.3} | {:.3} | |",
        r.readback_per_matrix_ms, b.readback_ms
    );
    let _ = writeln!(
        md,
        "| multiplies | {} | {:.3} | {:.3} | 546 ms per product |",
        b.products, r.multiply_per_product_ms, b.multiply_ms
    );
    let _ = writeln!(
        md,
        "| total | | | {:.3} | figure 5: the multiplies \"vastly dominate\" |",
        b.total_ms()
    );
    let _ = writeln!(
        md,
        "\nThe multiplies take {:.1}% of the total ({:.3} GBops over them).",
        100.0 * r.multiply_share,
        r.gbops
    );
    write_text(&out.with_extension("md"), &md)
}

/// One row of Hall's tables: ours from the model, the paper's formula and its value.
pub(super) fn hall_table(bytes: bool, out: &Path) -> Result<()> {
    let (n, b) = (1024usize, 32u32);
    let (nf, bf) = (n as f64, b as f64);
    let paper: [(&str, Method, f64, f64, f64, f64); 3] = if bytes {
        [
            ("L-M", Method::Lm, nf, nf * nf, 16.0, 16.0 * nf.powi(3)),
            (
                "single",
                Method::HallBlocked,
                nf / bf,
                nf * nf,
                (2.0 * bf + 2.0) * 4.0,
                8.0 * nf.powi(3) * (bf + 1.0) / bf,
            ),
            (
                "multi",
                Method::HallPacked,
                nf / (2.0 * bf),
                (nf / 2.0).powi(2),
                (2.0 * bf + 2.0) * 16.0,
                4.0 * nf.powi(3) * (bf + 1.0) / bf,
            ),
        ]
    } else {
        [
            ("L-M", Method::Lm, nf, nf * nf, 2.0, 2.0 * nf.powi(3)),
            (
                "single",
                Method::HallBlocked,
                nf / bf,
                nf * nf,
                2.0 * bf + 4.0,
                nf.powi(3) * (2.0 * bf + 4.0) / bf,
            ),
            (
                "multi",
                Method::HallPacked,
                nf / (2.0 * bf),
                (nf / 2.0).powi(2),
                3.0 * bf + 4.0,
                nf.powi(3) * (3.0 * bf + 4.0) / (8.0 * bf),
            ),
        ]
    };
    let what = if bytes {
        "bytes moved inside the GPU"
    } else {
        "fragment-shader instructions"
    };
    let unit = if bytes { "bytes/frag" } else { "inst/frag" };
    let mut md = provenance(None, None);
    let _ = writeln!(
        md,
        "Hall–Carr–Hart table {}, {what}, from `rendermm model --m {n} --k {n} --n {n} --b {b}` beside the paper's formula evaluated at n = {n}, b = {b}.\n",
        if bytes { 1 } else { 2 }
    );
    let _ = writeln!(
        md,
        "| paper row | method | passes | frags/pass | {unit} | total (model) | paper's formula | paper at n = {n} | equal |"
    );
    md.push_str("|---|---|---|---|---|---|---|---|---|\n");
    for (row, method, _, _, _, pv) in paper {
        let m = crate::model::model(method, n, n, n, b)
            .ok_or_else(|| Error::Internal(format!("{method} has no model")))?;
        let (per, total, formula) = if bytes {
            (m.bytes_per_fragment, m.total_bytes, m.paper_bytes_formula)
        } else {
            (
                m.instructions_per_fragment,
                m.total_instructions,
                m.paper_instructions_formula,
            )
        };
        let same = if (total as f64 - pv).abs() < 0.5 {
            "yes"
        } else {
            "no"
        };
        let _ = writeln!(
            md,
            "| {row} | `{}` | {} | {} | {per} | {total} | {formula} | {pv:.0} | {same} |",
            m.method, m.passes, m.fragments_per_pass
        );
    }
    if bytes {
        md.push_str("\n§5.3: \"our multi-channel algorithm transfers 4.125 GB of data\" for n = 1024, b = 32 — the model's `hall-packed` total is 4 429 185 024 bytes = 4.125 GiB.\n");
    }
    write_text(out, &md)
}

/// Hall–Carr–Hart table 1 (bytes) as Markdown.
pub fn hall_table1(_ctx: &GpuContext, out: &Path) -> Result<()> {
    hall_table(true, out)
}

/// Hall–Carr–Hart table 2 (instructions) as Markdown.
pub fn hall_table2(_ctx: &GpuContext, out: &Path) -> Result<()> {
    hall_table(false, out)
}

/// A demo's GIF, as `rendermm demo KIND --random 8x8x8 --headless --gif OUT` writes it.
pub(super) fn demo_gif(kind: crate::demo::Kind, out: &Path) -> Result<()> {
    use crate::demo::{Inputs, Settings, headless, render::Renderer, state::DemoState};
    // The demo's state holds its own context (it steps the passes on a thread).
    let ctx = std::sync::Arc::new(GpuContext::new()?);
    let settings = Settings {
        kind,
        precision: Precision::F32,
        block: None,
        scale_by_depth: false,
    };
    let inputs = Inputs::random(8, 8, 8, 1, Precision::F32)?;
    let mut state = DemoState::new(ctx.clone(), settings, inputs)?;
    let mut renderer = Renderer::new(&ctx)?;
    let opts = headless::HeadlessOptions {
        frames: None,
        gif: Some(out.to_path_buf()),
        screenshot: None,
        size: (960, 420),
        status: true,
    };
    headless::run(&mut state, &mut renderer, &opts)?;
    Ok(())
}

/// `demo lm` as a GIF.
pub fn demo_lm(_ctx: &GpuContext, out: &Path) -> Result<()> {
    demo_gif(crate::demo::Kind::Lm, out)
}

/// `demo hall` as a GIF.
pub fn demo_hall(_ctx: &GpuContext, out: &Path) -> Result<()> {
    demo_gif(crate::demo::Kind::Hall, out)
}

/// `demo packed` as a GIF.
pub fn demo_packed(_ctx: &GpuContext, out: &Path) -> Result<()> {
    demo_gif(crate::demo::Kind::Packed, out)
}

/// `demo cube` as a GIF.
pub fn demo_cube(_ctx: &GpuContext, out: &Path) -> Result<()> {
    demo_gif(crate::demo::Kind::Cube, out)
}

/// A bench suite with few trials (the figures must stay quick).
pub(super) fn suite(
    ctx: &GpuContext,
    s: Suite,
    trials: usize,
    size: Option<(usize, usize, usize)>,
) -> Result<SuiteReport> {
    let rep = bench::run(
        ctx,
        s,
        &BenchOptions {
            trials,
            warmup: 1,
            size,
            seed: 1,
        },
    )?;
    if let Some(r) = rep
        .tables
        .iter()
        .flat_map(|t| &t.rows)
        .find(|r| r.error.is_some() || !r.check_passed)
    {
        return Err(Error::Invalid(format!(
            "bench --suite {}: row '{}' {}",
            rep.suite,
            r.label,
            r.error
                .clone()
                .unwrap_or_else(|| format!("failed its check (rel_err {:e})", r.rel_err))
        )));
    }
    Ok(rep)
}

/// The 5kk73 ladder at 256³ as a bar chart and a table.
pub fn kk73_steps(ctx: &GpuContext, out: &Path) -> Result<()> {
    let size = (256, 256, 256);
    let rep = suite(ctx, Suite::Kk73, 3, Some(size))?;
    let t = &rep.tables[0];
    let bars: Vec<Bar> = t
        .rows
        .iter()
        .map(|r| Bar {
            label: r.label.clone(),
            value: Some(r.best_gflops),
            text: format!(
                "{} GFLOP/s ({} ms)",
                plots::short(r.best_gflops),
                plots::short(r.wall.min)
            ),
            group: 2,
        })
        .collect();
    plots::bar_chart(
        out,
        &format!(
            "The 5kk73 ladder at {}x{}x{} on {} (best of 3, wall clock)",
            size.0,
            size.1,
            size.2,
            adapter_tag(ctx)
        ),
        "GFLOP/s",
        &bars,
        false,
        &plots::ERA_NAMES,
    )?;
    let mut md = provenance(
        Some(ctx),
        Some("rendermm bench --suite 5kk73 --size 256x256x256 --trials 3"),
    );
    md.push_str("| rung | ran as | min ms | avg ms | GFLOP/s (best) | check | the course page |\n|---|---|---|---|---|---|---|\n");
    for r in &t.rows {
        let _ = writeln!(
            md,
            "| {} | `{}` | {:.2} | {:.2} | {:.3} | {} | a figure only (8800 GT, n = 4096) |",
            r.label,
            r.ran_as,
            r.wall.min,
            r.wall.avg,
            r.best_gflops,
            if r.check_passed { "ok" } else { "FAIL" }
        );
    }
    md.push_str("\nThe 5kk73 page plots its steps for an 8800 GT at n = 4096 but prints no numbers, so there is no paper column to set beside these.\n");
    write_text(&out.with_extension("md"), &md)
}

/// O'Neil's tables 1-2, re-measured, beside the paper's.
pub fn oneil_tables(ctx: &GpuContext, out: &Path) -> Result<()> {
    let rep = suite(ctx, Suite::Oneil, 5, None)?;
    let mut md = provenance(Some(ctx), Some("rendermm bench --suite oneil --trials 5"));
    for t in &rep.tables {
        let _ = writeln!(
            md,
            "**{}** ({}×{}, µs: ours over 5 trials after a warm-up, wall clock; the paper's on a Tesla C2070)\n",
            t.title, t.m, t.n
        );
        md.push_str("| algorithm | ran as | min | max | avg | std | GPU avg | paper trials | paper min | paper max | paper avg | paper std |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for r in &t.rows {
            let gpu = r.gpu.map_or("–".to_string(), |g| format!("{:.1}", g.avg));
            let paper = match r.paper {
                Some(p) => format!(
                    "{} | {:.1} | {:.1} | {:.1} | {:.1}",
                    p.trials, p.min, p.max, p.avg, p.std
                ),
                None => "– | – | – | – | –".to_string(),
            };
            let _ = writeln!(
                md,
                "| {} | `{}` | {:.1} | {:.1} | {:.1} | {:.1} | {gpu} | {paper} |",
                r.label, r.ran_as, r.wall.min, r.wall.max, r.wall.avg, r.wall.std
            );
        }
        md.push('\n');
    }
    for n in &rep.notes {
        let _ = writeln!(md, "- {n}");
    }
    write_text(out, &md)
}

/// Each era's methods on one 256³ product: GFLOP/s (device time where the adapter has
/// timestamps), best of two runs after a warm-up, each checked against the f64 reference.
/// Methods the adapter cannot run (tensor cores without cooperative matrices) or this build does
/// not have are listed with the reason.
pub fn eras(ctx: &GpuContext, out: &Path) -> Result<()> {
    let n = 256;
    let roster: [Method; 12] = [
        Method::Lm,
        Method::HallBlocked,
        Method::HallPacked,
        Method::FragMrt,
        Method::CsNaive,
        Method::CsTiled16,
        Method::Kk73Unrolled,
        Method::CannonTiled,
        Method::DnsTiled,
        Method::CsFast,
        Method::Coop,
        Method::CpuFast,
    ];
    let a = Matrix::random(n, n, 21, -1.0, 1.0);
    let b = Matrix::random(n, n, 22, -1.0, 1.0);
    let reference = crate::cpu::reference_f64(&a, &b);
    let mut bars = vec![];
    let mut md = provenance(Some(ctx), None);
    md.push_str("| era | method | GFLOP/s | clock | rel_err | note |\n|---|---|---|---|---|---|\n");
    let era_names = plots::ERA_NAMES;
    for method in roster {
        let group = plots::era_group(method.info().era);
        let name = method.name();
        let (value, text, row) = {
            let run = || plan::multiply(Some(ctx), plan::Request::new(method, &a, &b));
            match run()
                .and_then(|_| run())
                .and_then(|r1| run().map(|r2| (r1, r2)))
            {
                Err(e) => {
                    let msg = e.to_string();
                    let short: String = msg.chars().take(70).collect();
                    (None, format!("not on this adapter: {short}…"), msg)
                }
                Ok((r1, r2)) => {
                    let best = if r1.timings.compute_time().0 <= r2.timings.compute_time().0 {
                        r1
                    } else {
                        r2
                    };
                    let stats = crate::check::compare(&best.c, &reference);
                    let rep = Report::of(Some(ctx), &best, vec![]);
                    // Each method held to its own bound (coop's f16 inputs are not 1e-5).
                    let ok = best.verdict(&a, &b).passed;
                    let text = format!(
                        "{} GFLOP/s{}",
                        plots::short(rep.gflops),
                        if ok { "" } else { " (FAILED its check)" }
                    );
                    let _ = writeln!(
                        md,
                        "| {} | `{name}` | {:.3} | {} | {:.2e} | {} |",
                        era_names[group],
                        rep.gflops,
                        rep.timing.name(),
                        stats.rel_err,
                        if ok { "" } else { "outside its tolerance" }
                    );
                    bars.push(Bar {
                        label: name.to_string(),
                        value: Some(rep.gflops),
                        text,
                        group,
                    });
                    continue;
                }
            }
        };
        let _ = writeln!(
            md,
            "| {} | `{name}` | – | – | – | {} |",
            era_names[group],
            row.replace('|', "/")
        );
        bars.push(Bar {
            label: name.to_string(),
            value,
            text,
            group,
        });
    }
    plots::bar_chart(
        out,
        &format!(
            "Each era on one {n}x{n}x{n} multiply, {} (GFLOP/s, log scale)",
            adapter_tag(ctx)
        ),
        "GFLOP/s (2n³ over the compute time; device time where the adapter has timestamps)",
        &bars,
        true,
        &era_names,
    )?;
    write_text(&out.with_extension("md"), &md)
}

/// `0..total` in pieces of `size`, the last short: (start, end) of each.
fn cuts(total: usize, size: usize) -> Vec<(usize, usize)> {
    (0..total)
        .step_by(size.max(1))
        .map(|s| (s, (s + size).min(total)))
        .collect()
}

/// [`tiling`]'s cut lines and sizes over the matrix `m` placed at `p`: `rows` splits along y
/// (left labels), `cols` along x (top labels).
fn mark_cuts(img: &mut RgbImage, p: picture::Placed, m: &Matrix, rows: usize, cols: usize) {
    let ink = Rgb([20, 20, 20]);
    let (w, h) = (m.cols as u32 * p.cell, m.rows as u32 * p.cell);
    for (s, e) in cuts(m.rows, rows) {
        if s > 0 {
            picture::fill(
                img,
                p.x as i32,
                (p.y + s as u32 * p.cell) as i32 - 1,
                w,
                3,
                ink,
            );
        }
        let mid = p.y as f32 + (s + e) as f32 * p.cell as f32 / 2.0;
        text::draw(
            img,
            p.x as f32 - 4.0,
            mid - 8.0,
            &(e - s).to_string(),
            text::SMALL,
            ink,
            text::Align::Right,
        );
    }
    for (s, e) in cuts(m.cols, cols) {
        if s > 0 {
            picture::fill(
                img,
                (p.x + s as u32 * p.cell) as i32 - 1,
                p.y as i32,
                3,
                h,
                ink,
            );
        }
        let mid = p.x as f32 + (s + e) as f32 * p.cell as f32 / 2.0;
        text::centre(
            img,
            mid,
            p.y as f32 - text::line(text::SMALL),
            &(e - s).to_string(),
            text::SMALL,
            ink,
        );
    }
}

/// Past one texture: `hall-blocked` (b = 8) on 48×40·40×36 under a 14 KiB budget, which cuts C
/// into blocks and k into chunks; A, B and the tiled C side by side, each titled and on its own
/// colour scale, with the cuts drawn over them and each block's and chunk's size written along
/// its edge.
pub fn tiling(ctx: &GpuContext, out: &Path) -> Result<()> {
    let a = Matrix::random(48, 40, 31, -1.0, 1.0);
    let b = Matrix::random(40, 36, 32, -1.0, 1.0);
    let budget = 14usize << 10;
    let opts = Options {
        mem_budget: Some(budget as u64),
        block: Some(8),
        ..Default::default()
    };
    let run = plan::multiply(
        Some(ctx),
        plan::Request::new(Method::HallBlocked, &a, &b).options(opts),
    )?;
    let c = run.c;
    let t = run
        .tiling
        .ok_or_else(|| Error::Internal("the tiling figure's budget did not tile".into()))?;
    let (img, at) = picture::titled_panels(
        &format!(
            "Past one texture: hall-blocked on {}×{}·{}×{} under a {} KiB memory budget",
            a.rows,
            a.cols,
            b.rows,
            b.cols,
            budget >> 10
        ),
        &[
            picture::Titled::new(
                &a,
                &[
                    &format!("A {}×{}", a.rows, a.cols),
                    &format!(
                        "rows in blocks of {}, k in chunks of {}",
                        t.tile_m, t.tile_k
                    ),
                ],
            ),
            picture::Titled::new(
                &b,
                &[
                    &format!("B {}×{}", b.rows, b.cols),
                    &format!(
                        "k in chunks of {}, columns in blocks of {}",
                        t.tile_k, t.tile_n
                    ),
                ],
            ),
            picture::Titled::new(
                &c,
                &[
                    &format!(
                        "C {}×{}: {}×{} blocks",
                        c.rows, c.cols, t.blocks_m, t.blocks_n
                    ),
                    &format!("each summed over {} chunks of k", t.chunks_k),
                ],
            ),
        ],
        240,
        &[
            &format!(
                "Each block of C is one product per chunk of k: {} tile multiplies in all, the chunks of a block summed by {} (accumulate: {}).",
                t.tile_multiplies, t.ran_as, t.accumulate
            ),
            "Numbers along the edges: the size of each block or chunk, in elements. Colours: blue < 0 < red, each panel on its own scale (its bar below it).",
        ],
    );
    let mut img = img;
    mark_cuts(&mut img, at[0], &a, t.tile_m, t.tile_k);
    mark_cuts(&mut img, at[1], &b, t.tile_k, t.tile_n);
    mark_cuts(&mut img, at[2], &c, t.tile_m, t.tile_n);
    picture::save_png(out, &img)
}
