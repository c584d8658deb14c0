//! What a reader sees of a run, in words: one plain line (passed or not, how far C is from the
//! f64 product against the bound it was held to, how long the multiply took and its GFLOP/s),
//! a line for each thing the browser changed about what ran and why, and the rest — the bound's
//! formula, the timing breakdown, the notes — behind a toggle. The canvas draws the plain line.

use super::*;
use rendermm::check::Verdict;
use rendermm::methods::cs_fast;
use rendermm::methods::frag_mrt::Shape;

/// One run's words: a column of the status (two side by side in compare mode).
pub(crate) struct Words {
    /// The method as asked (the column's title in compare mode).
    pub(crate) title: String,
    pub(crate) passed: bool,
    /// The plain line; the canvas draws it too.
    pub(crate) line: String,
    /// What the browser (or the page) changed about what ran, and why: one sentence each.
    pub(crate) changes: Vec<String>,
    /// Behind the toggle: what ran, the inputs, the check and its bound, the times.
    pub(crate) details: Vec<String>,
    pub(crate) notes: Vec<String>,
}

impl Words {
    /// A run that ended in an error (compare mode's second column; the first's error is the
    /// page's).
    pub(crate) fn error(title: &str, message: &str) -> Words {
        Words {
            title: title.into(),
            passed: false,
            line: format!("Error: {message}"),
            changes: vec![],
            details: vec![],
            notes: vec![],
        }
    }

    fn html(&self, titled: bool) -> String {
        let mut h = format!(
            "<div class=\"run-col {}\">",
            if self.passed { "passed" } else { "failed" }
        );
        if titled {
            h += &format!("<p class=\"run-title\">{}</p>", esc(&self.title));
        }
        // The plain line, its first word (Passed / FAILED / Error) in bold.
        let (first, rest) = self.line.split_once(' ').unwrap_or((&self.line, ""));
        h += &format!(
            "<p class=\"verdict\"><strong>{}</strong> {}</p>",
            esc(first),
            esc(rest)
        );
        for c in &self.changes {
            h += &format!("<p class=\"ran\">{}</p>", esc(c));
        }
        if !self.details.is_empty() || !self.notes.is_empty() {
            h += "<details class=\"more\"><summary>How it was checked and timed</summary>";
            for d in &self.details {
                h += &format!("<p>{}</p>", esc(d));
            }
            if !self.notes.is_empty() {
                h += "<p>Notes from the run:</p><ul class=\"notes\">";
                for n in &self.notes {
                    h += &format!("<li>{}</li>", esc(n));
                }
                h += "</ul>";
            }
            h += "</details>";
        }
        h + "</div>"
    }
}

/// The status's HTML: one column, or two side by side (compare mode) with `summary` under them.
pub(crate) fn status_html(cols: &[Words], summary: Option<&str>) -> String {
    let titled = cols.len() > 1;
    let mut h = String::from("<div class=\"cols\">");
    for c in cols {
        h += &c.html(titled);
    }
    h += "</div>";
    if let Some(s) = summary {
        h += &format!("<p class=\"compare\">{}</p>", esc(s));
    }
    h
}

/// `s` safe inside HTML text.
pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A share (1 = 100%) in words: `0.4%`, `3.2%`, `43%`, `340%`.
fn pct(r: f64) -> String {
    let p = r * 100.0;
    if !p.is_finite() {
        "infinitely much".into()
    } else if p < 0.1 {
        "under 0.1%".into()
    } else if p < 10.0 {
        format!("{p:.1}%")
    } else {
        format!("{p:.0}%")
    }
}

/// Milliseconds in words: `0.041 ms`, `0.41 ms`, `4.1 ms`, `41 ms`.
pub(crate) fn ms(v: f64) -> String {
    if v < 0.1 {
        format!("{v:.3} ms")
    } else if v < 1.0 {
        format!("{v:.2} ms")
    } else if v < 10.0 {
        format!("{v:.1} ms")
    } else {
        format!("{v:.0} ms")
    }
}

/// GFLOP/s in words, to two significant figures in plain decimals (`0.00090 GFLOP/s` on a
/// software adapter, `2.5`, `41`, `1234` on a GPU).
pub(crate) fn gflops_words(g: f64) -> String {
    if !g.is_finite() || g <= 0.0 {
        return "? GFLOP/s".into();
    }
    let decimals = (1.0 - g.log10().floor()).clamp(0.0, 12.0) as usize;
    format!("{g:.decimals$} GFLOP/s")
}

/// The multiply's time (the compute phase: GPU timestamps where the adapter has them, else the
/// wall clock of the passes) and its GFLOP/s, 2·m·k·n over that time.
pub(crate) fn speed(req: &Request, out: &plan::Outcome) -> (f64, f64) {
    let (t, _) = out.timings.compute_time();
    let flops = 2.0 * req.m as f64 * req.k as f64 * req.n as f64;
    (t, if t > 0.0 { flops / (t * 1e6) } else { 0.0 })
}

/// How far C is from the f64 product, against what the run was held to, in a few words.
fn how_far(v: &Verdict) -> String {
    if v.stats.nonfinite > 0 {
        return format!(
            "{} element{} of C not finite where the f64 product is",
            v.stats.nonfinite,
            if v.stats.nonfinite == 1 { "" } else { "s" }
        );
    }
    if let Some(steps) = v.u8_model_max_steps {
        return if steps <= 1e-3 && v.close {
            format!("equals the 8-bit model ({} off f64)", pct(v.stats.rel_err))
        } else if steps <= 1e-3 {
            // Why it is not close: the elements that left the 8-bit range, else the distance.
            let why = match (v.saturated, v.u8_zero) {
                (Some(n), _) if n > 0 => format!("{n} elements of C saturated at 1.0"),
                (_, Some(n)) if n > 0 => format!("{n} elements of C rounded to 0"),
                _ => "far from exact".into(),
            };
            format!(
                "equals the 8-bit model, but {why} ({} off f64)",
                pct(v.stats.rel_err)
            )
        } else {
            format!("{steps:.0} steps off the 8-bit model")
        };
    }
    let (ratio, allows) = match (v.bound_ratio, v.f16_bound_ratio, v.f16_model_spacings) {
        (Some(r), _, _) => (r, "f32"),
        (None, Some(r), Some(_)) => (r, "f16 sums"),
        (None, Some(r), None) => (r, "f16 inputs"),
        _ => {
            return format!("relative error {:.1e} against f64", v.stats.rel_err);
        }
    };
    let mut s = format!(
        "largest error vs f64 is {} of what {allows} allow{}",
        pct(ratio),
        if allows == "f32" { "s" } else { "" }
    );
    if let (false, true, Some(sp)) = (v.model_passed, ratio <= 1.0, v.f16_model_spacings) {
        s += &format!(", but {sp:.1} f16 spacings off its model");
    } else if v.model_passed && !v.close {
        s += &format!(", but far from exact ({} off f64)", pct(v.stats.rel_err));
    }
    s
}

/// The plain line: `Passed · largest error vs f64 is 3.2% of what f32 allows · multiply 0.41
/// ms · 2.5 GFLOP/s`. Short enough for the canvas's bottom line (without "multiply" where the
/// whole is too wide).
pub(crate) fn plain_line(v: &Verdict, multiply_ms: f64, gflops: f64) -> String {
    let verdict = if v.passed { "Passed" } else { "FAILED" };
    let line = format!(
        "{verdict} · {} · multiply {} · {}",
        how_far(v),
        ms(multiply_ms),
        gflops_words(gflops)
    );
    let room = CANVAS.0 as f32 - 40.0;
    if rendermm::draw::font::width_px(&line, rendermm::draw::font::px(2)) <= room {
        line
    } else {
        format!(
            "{verdict} · {} · {} · {}",
            how_far(v),
            ms(multiply_ms),
            gflops_words(gflops)
        )
    }
}

/// A limit of the adapter that a product ran past, in plain words. `what` names the product's
/// quantity as the library's `Error::Limit` does (`...; m·k·n`).
fn plain_limit(method: &str, what: &str, value: u64, limit: &str, max: u64) -> String {
    // The quantity after the library's "who: " or "who; ".
    let cut = what
        .rfind("; ")
        .into_iter()
        .chain(what.rfind(": "))
        .max()
        .map_or(0, |i| i + 2);
    let expr = what[cut..].trim();
    match limit {
        "max_compute_invocations_per_workgroup" if expr.starts_with("invocations") => {
            format!("this browser caps a workgroup at {max} invocations, and {expr} = {value}")
        }
        "max_compute_invocations_per_workgroup" => format!(
            "this browser caps a workgroup at {max} invocations, and one-workgroup {method} needs {expr} = {value} invocations"
        ),
        "max_compute_workgroup_storage_size" => format!(
            "this browser gives a workgroup {max} bytes of shared memory, and one-workgroup {method} needs {expr} = {value} bytes"
        ),
        "max_texture_dimension_2d" => format!(
            "this browser's textures are at most {max} texels on a side, and {expr} = {value}"
        ),
        "max_storage_buffer_binding_size" | "max_buffer_size" => format!(
            "this browser binds at most {max} bytes of a buffer, and {expr} = {value} bytes"
        ),
        "max_compute_workgroups_per_dimension" => format!(
            "this browser dispatches at most {max} workgroups along a side, and {expr} = {value}"
        ),
        _ => format!("{expr} = {value} is more than this browser's {limit} = {max}"),
    }
}

/// A reason the library gives for tiling, in plain words where it is an adapter's limit
/// (`X = V exceeds the adapter's LIMIT = MAX`).
/// Also the limit's name, where it is one.
fn plain_reason(method: &str, reason: &str) -> (String, Option<String>) {
    if let Some((left, right)) = reason.split_once(" exceeds the adapter's ")
        && let Some((what, value)) = left.rsplit_once(" = ")
        && let Some((limit, max)) = right.split_once(" = ")
        && let (Ok(value), Ok(max)) = (value.trim().parse::<u64>(), max.trim().parse::<u64>())
    {
        let limit = limit.trim();
        return (
            plain_limit(method, what, value, limit, max),
            Some(format!("{limit} = {max}")),
        );
    }
    (plain(reason), None)
}

/// What the browser (or the page) changed about what ran, and why: one sentence each, in
/// plain words. `block` is the b the run took (Hall's methods).
pub(crate) fn changes(
    req: &Request,
    gpu: &Gpu,
    out: &plan::Outcome,
    block: Option<u32>,
) -> Vec<String> {
    let (m, k, n) = (req.m, req.k, req.n);
    let asked = req.method.name();
    let ran = out.kernel.method.name();
    let mut said = vec![];
    if req.backend == Backend::Auto && gpu.backend == "webgl2" {
        said.push(
            "Ran on WebGL2: this browser offers no WebGPU, so the page draws through wgpu's GL backend."
                .to_string(),
        );
    }
    // The limit that made the page run another method, if one did: a tiling for the same
    // limit is said as "within the same cap".
    let mut limit_said = None;
    if ran != asked {
        let why = match plan::compute_plan(req.method, &gpu.ctx.limits, m, k, n) {
            Some(Err(Error::Limit {
                what,
                value,
                limit,
                max,
            })) => {
                limit_said = Some(format!("{limit} = {max}"));
                plain_limit(asked, &what, value, limit, max)
            }
            Some(Err(e)) => sentence(&e),
            _ => format!("one {asked} cannot take {m}x{k}x{n} here"),
        };
        said.push(format!(
            "Ran {ran} instead of {asked}: {why}; {ran} spreads the same work over many workgroups."
        ));
    }
    if let Some(t) = &out.tiling {
        let mut why: Vec<String> = vec![];
        let mut same = false;
        for r in &t.reasons {
            let (words, limit) = plain_reason(asked, r);
            if limit.is_some() && limit == limit_said {
                same = true;
            } else {
                why.push(words);
            }
        }
        if let Some(cap) = t.loop_cap {
            why.push(format!(
                "this driver stops a shader's loop after {cap} iterations, so k is split into chunks of at most {}",
                t.tile_k
            ));
        }
        why.dedup();
        let pieces = if t.chunks_k > 1 {
            format!(
                "{}×{} blocks of C, k in {} chunks",
                t.blocks_m, t.blocks_n, t.chunks_k
            )
        } else {
            format!("{}×{} blocks of C", t.blocks_m, t.blocks_n)
        };
        let why = if why.is_empty() && same {
            format!(
                "{ran}'s own workgroups meet the same cap, so each tile is small enough for one"
            )
        } else if why.is_empty() {
            "the whole product is past what this browser's adapter takes at once".into()
        } else {
            why.join("; ")
        };
        said.push(format!(
            "Cut into {} tiles ({pieces}), each multiplied on its own: {why}.",
            t.tile_multiplies
        ));
    }
    let used = out.precision();
    if used != req.precision && req.method.takes_precision() {
        said.push(format!(
            "Summed in {used}, not {}: this browser's adapter cannot blend {} numbers, so the running sum was kept in {used}.",
            req.precision,
            req.precision
        ));
    }
    if let Some(rendermm::methods::Variant::CsFast(v)) = out.kernel.variant
        && v.name != cs_fast::VARIANTS[0].name
    {
        let v = v.name;
        let why = if cs_fast::CPU_VARIANTS.contains(&v) {
            "on a CPU adapter (this browser's software WebGPU), a kernel without workgroup memory compiles in a tenth of the time and multiplies faster; of its 32×32, 64×64 and 128×128 tiles, the one that pads C least".to_string()
        } else if v == cs_fast::VARIANTS[1].name {
            format!(
                "C ({m}×{n}) holds fewer than {} of the default's 128×64 tiles, and smaller tiles keep more of the GPU busy",
                cs_fast::SMALL_PRODUCT_TILES
            )
        } else {
            "the variant this page's build names".into()
        };
        said.push(format!(
            "cs-fast ran its {v} variant ({}): {why}.",
            variant_words(v)
        ));
    }
    let attachments = gpu.ctx.limits.max_color_attachments;
    if matches!(req.method, Method::FragMrt | Method::FragMrtF16)
        && Shape::DEFAULT.attachments() > attachments
    {
        said.push(format!("{ran} wrote a 4×4 block of C per fragment, not its 4×8: this browser offers {attachments} colour attachments, and a 4×8 block takes 8 (a 4×4 block, 4)."));
    }
    for note in &out.notes {
        if note.starts_with("quad sharing off") {
            said.push(format!("{ran} ran without quad sharing: this browser's adapter offers no subgroup operations (quadSwapX/Y), so each fragment fetches all of its own texels."));
        } else if note.contains("; ran ping-pong") {
            said.push(format!("{ran} summed its passes by ping-pong, not by blending: this browser's adapter cannot blend into 32-bit float targets."));
        }
    }
    if Kind::of(req.method).ping_pong()
        && req.block.is_none()
        && req.replays()
        && let Some(b) = block
    {
        said.push(format!(
            "Hall's b = {b} (none given): the page picks b so that the replay shows about 8 passes over k = {k}; without a replay (pace=0) it takes rendermm multiply's b = {}.",
            rendermm::precision::DEFAULT_BLOCK
        ));
    }
    said
}

/// A cs-fast variant's name (`64x64x8-4x8`: BM×BN×BK-RM×RN) in words.
fn variant_words(name: &str) -> String {
    let mut parts = name.split('-');
    let tile: Vec<&str> = parts.next().unwrap_or("").split('x').collect();
    let reg: Vec<&str> = parts.next().unwrap_or("").split('x').collect();
    match (tile.as_slice(), reg.as_slice()) {
        ([bm, bn, bk], [rm, rn]) => format!(
            "a {bm}×{bn} tile of C per workgroup, {bk} of k per step, {rm}×{rn} elements per invocation"
        ),
        _ => name.to_string(),
    }
}
