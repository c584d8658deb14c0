//! A run's parameters, as the URL or the form gives them: parsed and checked here, in Rust, so
//! the page and a test see the same one-sentence errors; and the inputs drawn as the command
//! line draws them.

use super::*;

/// The parameters of one run, as the URL or the form gives them (strings; checked here).
#[derive(Clone)]
pub(crate) struct Request {
    pub(crate) method: Method,
    pub(crate) m: usize,
    pub(crate) k: usize,
    pub(crate) n: usize,
    pub(crate) precision: Precision,
    pub(crate) seed: u64,
    pub(crate) block: Option<u32>,
    pub(crate) backend: Backend,
    /// Milliseconds per pass of the replay after the run; 0 = none.
    pub(crate) pace: u32,
    /// Stop the replay at this pass (a still for a screenshot or a lecture).
    pub(crate) hold: Option<usize>,
    /// A and B given (pasted or dropped) instead of drawn from the seed.
    pub(crate) given: Option<(Matrix, Matrix, String)>,
    /// Every element of A (`fill_a`, or `fill`) is this number instead of drawn from the seed.
    pub(crate) fill_a: Option<f32>,
    /// ... and of B (`fill_b`, or `fill`).
    pub(crate) fill_b: Option<f32>,
    /// u8 only: polygon colour 1/k (L-M §4), the CLI's --scale-by-depth.
    pub(crate) scale_by_depth: bool,
    /// u8 only: the widths of the value a fragment hands on and of the running sum (L-M §4),
    /// the CLI's --u8-product-bits and --u8-sum-bits.
    pub(crate) u8_bits: U8Bits,
    /// Compare mode: a second method run after this one on the same A and B.
    pub(crate) vs: Option<Method>,
}

impl Request {
    /// Whether the passes are kept for a replay (else the run is a plain multiply, and only its
    /// result is drawn).
    pub(crate) fn replays(&self) -> bool {
        self.pace > 0 || self.hold.is_some()
    }

    /// The request of compare mode's second run: `method` on the same inputs, without a replay
    /// (the canvas shows the first run). Its precision is this one's where it takes one, else
    /// f32 (the u8 options with it); Hall's b is the first run's where both are Hall methods.
    pub(crate) fn versus(&self, method: Method) -> Request {
        let precision = if method.takes_precision() {
            self.precision
        } else {
            Precision::F32
        };
        let u8 = precision == Precision::U8;
        let hall = |m: Method| Kind::of(m).ping_pong();
        let block = match (hall(self.method), hall(method)) {
            (true, true) => block_for(self),
            (false, true) => self.block,
            _ => None,
        };
        Request {
            method,
            precision,
            block,
            pace: 0,
            hold: None,
            scale_by_depth: self.scale_by_depth && u8,
            u8_bits: if u8 { self.u8_bits } else { U8Bits::default() },
            vs: None,
            ..self.clone()
        }
    }
}

#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) enum Backend {
    Auto,
    WebGpu,
    WebGl2,
}

pub(crate) fn get(params: &js_sys::Map, key: &str) -> Option<String> {
    params
        .get(&JsValue::from_str(key))
        .as_string()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// Matrix `which` ("A" or "B") as given in `params` under `matrix_a` / `matrix_b`: pasted text
/// (a string) or a dropped file's bytes (a Uint8Array, named by `matrix_a_name` /
/// `matrix_b_name`). None when it is absent or blank.
pub(crate) fn given_matrix(params: &js_sys::Map, which: &str) -> Result<Option<Matrix>> {
    let key = format!("matrix_{}", which.to_ascii_lowercase());
    let value = params.get(&JsValue::from_str(&key));
    let name = get(params, &format!("{key}_name")).unwrap_or_else(|| format!("pasted {which}"));
    if let Some(text) = value.as_string() {
        if text.trim().is_empty() {
            return Ok(None);
        }
        return files::read(which, &name, text.as_bytes()).map(Some);
    }
    if let Ok(bytes) = value.dyn_into::<js_sys::Uint8Array>() {
        return files::read(which, &name, &bytes.to_vec()).map(Some);
    }
    Ok(None)
}

pub(crate) fn parse_size(s: &str) -> Result<(usize, usize, usize)> {
    let bad = || {
        Error::Invalid(format!(
            "size '{s}' is not MxKxN with three whole numbers, each at least 1 (for example 24x17x9)"
        ))
    };
    let parts: Vec<&str> = s.split(['x', 'X', '×']).collect();
    if parts.len() != 3 {
        return Err(bad());
    }
    let mut v = [0usize; 3];
    for (slot, p) in v.iter_mut().zip(&parts) {
        *slot = p.trim().parse().map_err(|_| bad())?;
    }
    if let Some(i) = v.iter().position(|&x| x == 0) {
        return Err(Error::Invalid(format!(
            "size '{s}': {} is 0, but every side of a product must be at least 1",
            ["m", "k", "n"][i]
        )));
    }
    Ok((v[0], v[1], v[2]))
}

pub(crate) fn parse_request(params: &js_sys::Map) -> Result<Request> {
    let method = Method::parse(&get(params, "method").unwrap_or_else(|| "lm".into()))?;
    if !method.is_gpu() {
        return Err(Error::Invalid(format!(
            "method {method} runs on the CPU; the page runs the GPU methods (the CPU's f64 reference checks every run)"
        )));
    }
    if method.is_host_api() {
        return Err(Error::HostGl {
            method: method.name().into(),
            missing: "no OpenGL compatibility profile in a browser (WebGL has neither OpenGL 1.x's fixed function nor GL_ARB_fragment_program); run it with the rendermm command".into(),
        });
    }
    let given = match (given_matrix(params, "A")?, given_matrix(params, "B")?) {
        (Some(a), Some(b)) => {
            if a.cols != b.rows {
                return Err(Error::Invalid(format!(
                    "A is {}x{} and B is {}x{}: A's columns must equal B's rows",
                    a.rows, a.cols, b.rows, b.cols
                )));
            }
            a.check_finite("A")?;
            b.check_finite("B")?;
            let names = format!(
                "{} · {}",
                get(params, "matrix_a_name").unwrap_or_else(|| "pasted A".into()),
                get(params, "matrix_b_name").unwrap_or_else(|| "pasted B".into())
            );
            Some((a, b, names))
        }
        (None, None) => None,
        (Some(_), None) | (None, Some(_)) => {
            return Err(Error::Invalid(
                "only one of A and B was given; give both (or neither, to draw them from the seed)"
                    .into(),
            ));
        }
    };
    let (m, k, n) = match &given {
        Some((a, b, _)) => (a.rows, a.cols, b.cols),
        None => parse_size(&get(params, "size").unwrap_or_else(|| "24x17x9".into()))?,
    };
    let work = m as u64 * k as u64 * n as u64;
    if work > MAX_WORK {
        return Err(Error::Invalid(format!(
            "size {m}x{k}x{n} is {work} multiply-adds, more than the {MAX_WORK} the page takes; take a smaller product (or the command line, rendermm multiply)"
        )));
    }
    let precision = Precision::parse(&get(params, "precision").unwrap_or_else(|| "f32".into()))?;
    let seed = match get(params, "seed") {
        None => 1,
        Some(s) => s.parse().map_err(|_| {
            Error::Invalid(format!("seed '{s}' is not a whole number from 0 to 2^64-1"))
        })?,
    };
    let block = match get(params, "b") {
        None => None,
        Some(s) => match s.parse::<u32>() {
            Ok(b) if b >= 1 => Some(b),
            _ => {
                return Err(Error::Invalid(format!(
                    "block size b = '{s}': give a whole number from 1 up (products per fragment per pass)"
                )));
            }
        },
    };
    let backend = match get(params, "backend").as_deref() {
        None | Some("auto") => Backend::Auto,
        Some("webgpu") => Backend::WebGpu,
        Some("webgl2") | Some("webgl") => Backend::WebGl2,
        Some(other) => {
            return Err(Error::Invalid(format!(
                "backend '{other}' is not one the page knows; use webgpu, webgl2 or auto"
            )));
        }
    };
    let (pace, hold) = replay_of(params)?;
    let (fill_a, fill_b) = fills_of(params, precision, given.is_some())?;
    let (scale_by_depth, u8_product_bits, u8_sum_bits) = u8_options_of(params)?;
    // The page's b is for whichever method takes one (the compare mode's second method too).
    let asked = plan::Asked {
        method: Some(method),
        precision,
        block: block.filter(|_| method.info().takes.block),
        scale_by_depth,
        u8_product_bits,
        u8_sum_bits,
        ..plan::Asked::default()
    };
    let u8_bits =
        plan::options::validate(&asked, plan::Spelling::Page, plan::Options::default())?.u8_bits;
    let vs = match get(params, "vs") {
        None => None,
        Some(v) if v == "none" => None,
        Some(v) => {
            let m = Method::parse(&v).map_err(|e| Error::Invalid(format!("vs={v}: {e}")))?;
            if !m.is_gpu() {
                return Err(Error::Invalid(format!(
                    "vs={m}: {m} runs on the CPU; compare mode runs a second GPU method on the same A and B"
                )));
            }
            if m.is_host_api() {
                return Err(Error::Invalid(format!(
                    "vs={m}: {m} runs the papers' own OpenGL calls, which a browser does not have"
                )));
            }
            Some(m)
        }
    };
    Ok(Request {
        method,
        m,
        k,
        n,
        precision,
        seed,
        block,
        backend,
        pace,
        hold,
        given,
        fill_a,
        fill_b,
        scale_by_depth,
        u8_bits,
        vs,
    })
}

/// `fill` (every element of A and B), `fill_a`, `fill_b`: a finite number, in [0, 1] for u8;
/// not with `fill` and `fill_a`/`fill_b` together, nor with A and B given.
fn fills_of(
    params: &js_sys::Map,
    precision: Precision,
    given: bool,
) -> Result<(Option<f32>, Option<f32>)> {
    let one = |key: &str| -> Result<Option<f32>> {
        let Some(s) = get(params, key) else {
            return Ok(None);
        };
        let v = s.parse::<f64>().ok().map(|v| v as f32).filter(|v| v.is_finite()).ok_or_else(|| {
            Error::Invalid(format!(
                "{key}={s}: give a number, such as {key}=0.5 (every element of {} is then that number)",
                match key {
                    "fill_a" => "A",
                    "fill_b" => "B",
                    _ => "A and B",
                }
            ))
        })?;
        if precision == Precision::U8 && !(0.0..=1.0).contains(&v) {
            return Err(Error::Invalid(format!(
                "{key}={s}: the 8-bit pipeline (precision=u8) holds numbers from 0 to 1 only; give a fill in [0, 1]"
            )));
        }
        Ok(Some(v))
    };
    let (fill, a, b) = (one("fill")?, one("fill_a")?, one("fill_b")?);
    if fill.is_some() && (a.is_some() || b.is_some()) {
        return Err(Error::Invalid(
            "fill sets both A and B; give fill, or fill_a and fill_b, not both".into(),
        ));
    }
    let (a, b) = (a.or(fill), b.or(fill));
    if given && (a.is_some() || b.is_some()) {
        return Err(Error::Invalid(
            "A and B were given (pasted or dropped) and a fill was asked too; give one or the other".into(),
        ));
    }
    Ok((a, b))
}

/// `scale_by_depth` (0 or 1), `u8_product_bits` and `u8_sum_bits` (whole numbers) as the page
/// was given them; which values they take, and that they need precision=u8, is the options'
/// rules' ([`plan::options::validate`]).
fn u8_options_of(params: &js_sys::Map) -> Result<(bool, Option<u32>, Option<u32>)> {
    let scale = match get(params, "scale_by_depth").as_deref() {
        None | Some("0") | Some("false") | Some("off") => false,
        Some("1") | Some("true") | Some("on") => true,
        Some(other) => {
            return Err(Error::Invalid(format!(
                "scale_by_depth={other}: give 1 (polygon colour 1/k, L-M §4) or 0"
            )));
        }
    };
    let bits = |key: &str| -> Result<Option<u32>> {
        let Some(s) = get(params, key) else {
            return Ok(None);
        };
        match s.parse::<u32>() {
            Ok(v) => Ok(Some(v)),
            Err(_) => Err(Error::Invalid(format!(
                "{key}={s}: give {}",
                match key {
                    "u8_product_bits" =>
                        "8 (rendermm's u8), 14 (the GeForce2 of L-M §4) or 16 (the GeForce3)",
                    _ => "8 (an 8-bit framebuffer) or 16 (L-M §4's 16-bit saturating sum)",
                }
            ))),
        }
    };
    Ok((scale, bits("u8_product_bits")?, bits("u8_sum_bits")?))
}

/// The inputs `rendermm multiply --random MxKxN --seed S` draws: A from seed 4S and B from
/// 4S + 1 (the CLI's one-channel seeds), uniform in [-1, 1); in u8 in [0, min(1, √(2/k))).
pub(crate) fn draw_like_the_cli(
    m: usize,
    k: usize,
    n: usize,
    seed: u64,
    precision: Precision,
) -> (Matrix, Matrix) {
    let (lo, hi) = if precision == Precision::U8 {
        (0.0, (2.0 / k.max(1) as f32).sqrt().min(1.0))
    } else {
        (-1.0, 1.0)
    };
    let s = seed.wrapping_mul(4);
    (
        Matrix::random(m, k, s, lo, hi),
        Matrix::random(k, n, s.wrapping_add(1), lo, hi),
    )
}

/// The demo's settings for a request: lm, hall or packed for the methods watched pass by
/// pass, else the method's result.
pub(crate) fn settings_for(req: &Request) -> Settings {
    Settings {
        kind: Kind::of(req.method),
        precision: req.precision,
        block: req.block,
        scale_by_depth: req.scale_by_depth,
    }
}

/// The block size the method runs with. The Hall methods, when their passes are replayed, as
/// the demos choose it (as asked, else about 8 passes, so that the replay shows the sum grow);
/// without a replay a run costs what a plain multiply costs, so the block is the one
/// `rendermm multiply` takes (as asked, else its default). frag-mrt keeps its own.
pub(crate) fn block_for(req: &Request) -> Option<u32> {
    let settings = settings_for(req);
    match (settings.kind.ping_pong(), req.replays()) {
        (true, true) => Some(settings.block_for(req.k)),
        (true, false) => Some(req.block.unwrap_or(rendermm::precision::DEFAULT_BLOCK)),
        (false, _) => req.block,
    }
}

/// The replay a run asks for: milliseconds per pass (`pace`, 0 = none) and the pass to stop at
/// (`hold`).
fn replay_of(params: &js_sys::Map) -> Result<(u32, Option<usize>)> {
    let pace = match get(params, "pace") {
        None => 0,
        Some(s) => s
            .parse::<u32>()
            .ok()
            .filter(|&p| p <= 5000)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "pace '{s}': give milliseconds per pass from 0 to 5000"
                ))
            })?,
    };
    let hold =
        match get(params, "hold") {
            None => None,
            Some(s) => Some(s.parse::<usize>().ok().filter(|&h| h >= 1).ok_or_else(|| {
                Error::Invalid(format!("hold '{s}': give a pass number from 1 up"))
            })?),
        };
    Ok((pace, hold))
}
