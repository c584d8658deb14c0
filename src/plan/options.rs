//! Every rule about a run's options, in one place: which options a method takes (precision,
//! block size and accumulation, the 8-bit pipeline's widths and `scale_by_depth`, kernel
//! variants, four channels), which values they take, and the memory budget's syntax. The command
//! line, Python and the page only translate their inputs into an [`Asked`] and call [`validate`];
//! each refusal is one line, naming the option as the front end spells it ([`Spelling`]).

use super::Options;
use crate::error::{Error, Result};
use crate::methods::{Accumulate, Kernels, Method, coop, cs_fast, frag_mrt};
use crate::precision::{Precision, U8Bits};

/// How a front end names an option in its messages: the command line's flags (`--precision
/// u8`), Python's keywords (`precision='u8'`), the page's URL parameters (`precision=u8`), or
/// the library's own fields (`precision u8`).
// The Python and page spellings are the other crates' (which turn `internals` on).
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    Cli,
    Python,
    Page,
    Library,
}

/// An option, as a refusal names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opt {
    Method,
    Precision,
    Block,
    Accumulate,
    ScaleByDepth,
    U8ProductBits,
    U8SumBits,
    Variant,
    Channels,
}

impl Spelling {
    /// The option's name: `--block`, `block`, `b`.
    pub fn name(self, opt: Opt) -> &'static str {
        use Opt::*;
        match (self, opt) {
            (Spelling::Cli, Method) => "--method",
            (Spelling::Cli, Precision) => "--precision",
            (Spelling::Cli, Block) => "--b/--block",
            (Spelling::Cli, Accumulate) => "--accumulate",
            (Spelling::Cli, ScaleByDepth) => "--scale-by-depth",
            (Spelling::Cli, U8ProductBits) => "--u8-product-bits",
            (Spelling::Cli, U8SumBits) => "--u8-sum-bits",
            (Spelling::Cli, Variant) => "--variant",
            (Spelling::Cli, Channels) => "--channels",
            (Spelling::Page, Block) => "b",
            (_, Method) => "method",
            (_, Precision) => "precision",
            (_, Block) => "block",
            (_, Accumulate) => "accumulate",
            (_, ScaleByDepth) => "scale_by_depth",
            (_, U8ProductBits) => "u8_product_bits",
            (_, U8SumBits) => "u8_sum_bits",
            (_, Variant) => "variant",
            (_, Channels) => "channels",
        }
    }

    /// The option given `value`: `--precision u8`, `precision='u8'`, `precision=u8`.
    pub fn given(self, opt: Opt, value: &str) -> String {
        let text = matches!(
            opt,
            Opt::Method | Opt::Precision | Opt::Accumulate | Opt::Variant
        );
        let name = self.name(opt);
        match self {
            Spelling::Cli | Spelling::Library => format!("{name} {value}"),
            Spelling::Python if text => format!("{name}='{value}'"),
            Spelling::Python | Spelling::Page => format!("{name}={value}"),
        }
    }

    /// The option given as on: `--scale-by-depth`, `scale_by_depth=True`, `scale_by_depth=1`.
    fn on(self, opt: Opt) -> String {
        match self {
            Spelling::Cli | Spelling::Library => self.name(opt).to_string(),
            Spelling::Python => format!("{}=True", self.name(opt)),
            Spelling::Page => format!("{}=1", self.name(opt)),
        }
    }

    /// How to name a method: `--method`, `method=`.
    fn method_hint(self) -> String {
        match self {
            Spelling::Cli => "--method".into(),
            _ => format!("{}=", self.name(Opt::Method)),
        }
    }
}

/// What a front end was asked, each option parsed to its type, before the rules that tie the
/// options to the method and to one another.
#[derive(Clone, Debug)]
pub struct Asked {
    /// `None`: no method named (`rendermm check` and `rendermm.judge` without one: f32).
    pub method: Option<Method>,
    pub precision: Precision,
    /// Hall–Carr–Hart's block size b, as given.
    pub block: Option<u32>,
    /// The block size is to be timed (`--b auto`): asked, but no size yet.
    pub block_auto: bool,
    pub accumulate: Option<Accumulate>,
    pub scale_by_depth: bool,
    pub u8_product_bits: Option<u32>,
    pub u8_sum_bits: Option<u32>,
    /// The kernel variant by name (cs-fast's, coop's, frag-mrt's shape).
    pub variant: Option<String>,
    /// Products computed at once: 1, or 4 in L-M's RGBA mode.
    pub channels: usize,
    /// The memory budget as given (`2GiB`).
    pub mem_budget: Option<String>,
}

impl Default for Asked {
    fn default() -> Self {
        Asked {
            method: None,
            precision: Precision::F32,
            block: None,
            block_auto: false,
            accumulate: None,
            scale_by_depth: false,
            u8_product_bits: None,
            u8_sum_bits: None,
            variant: None,
            channels: 1,
            mem_budget: None,
        }
    }
}

/// The names of the methods that `pred` picks, as `a, b or c`.
pub fn names(pred: impl Fn(Method) -> bool) -> String {
    let list: Vec<&str> = Method::ALL
        .iter()
        .copied()
        .filter(|&m| pred(m))
        .map(Method::name)
        .collect();
    match list.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => list.join(""),
    }
}

/// Why `method` does not take `precision`, or `None` where it does: the one wording of this
/// refusal.
pub fn precision_refusal(method: Method, precision: Precision) -> Option<String> {
    if method.takes(precision) {
        return None;
    }
    if method.is_host_api() {
        return Some(
            "runs the formats of its paper's API only: u8 (8-bit textures and framebuffer) or f32 (float textures, clamping off)"
                .into(),
        );
    }
    let takes: Vec<&str> = Method::ALL
        .iter()
        .filter(|m| m.takes_precision())
        .map(|m| m.name())
        .collect();
    Some(format!(
        "{}; u8 and f16 are modes of {} only",
        match method {
            Method::FragMrtF16 | Method::Coop =>
                "rounds its inputs to f16 itself (f32 sums) and takes no --precision",
            _ => "computes in f32 only",
        },
        takes.join(", ")
    ))
}

/// The refusal of `precision` for `method`, as the library's entry point and every front end
/// give it ([`Error::Unsupported`]: `{option}: method {method} {why}`).
pub fn check_precision(method: Method, precision: Precision, spelling: Spelling) -> Result<()> {
    match precision_refusal(method, precision) {
        None => Ok(()),
        Some(why) => Err(Error::Unsupported {
            option: spelling.given(Opt::Precision, precision.name()),
            method: method.name(),
            why,
        }),
    }
}

/// The refusal of timed repeats with no trial (the bench's runs through the entry point).
pub fn check_repeats(repeats: Option<crate::methods::Repeats>) -> Result<()> {
    match repeats {
        Some(r) if r.trials == 0 => Err(Error::Invalid(
            "timed repeats of 0 trials: a timed run needs at least one trial".into(),
        )),
        _ => Ok(()),
    }
}

/// The refusal of `channels` products at once for `method` (1, or 4 in L-M's RGBA mode).
pub fn check_channels(method: Method, channels: usize, spelling: Spelling) -> Result<()> {
    let given = spelling.given(Opt::Channels, &channels.to_string());
    if channels != 1 && channels != 4 {
        return Err(Error::Invalid(format!("{given}: use 1 or 4")));
    }
    if channels == 4 && !method.info().takes.channels {
        return Err(Error::Unsupported {
            option: given,
            method: method.name(),
            why: format!(
                "has no channels: four at once is the Larsen–McAllister RGBA mode ({})",
                names(|m| m.info().takes.channels)
            ),
        });
    }
    Ok(())
}

/// The options `asked` makes, every rule applied: `base` gives what was not asked (the command
/// line's knobs: kernel variants, memory budget, host memory). The first rule `asked` breaks is
/// refused in one line, the option named as `spelling` names it.
pub fn validate(asked: &Asked, spelling: Spelling, base: Options) -> Result<Options> {
    let s = spelling;
    let precision = asked.precision;
    let eight_bit: Vec<String> = [
        asked.scale_by_depth.then(|| s.on(Opt::ScaleByDepth)),
        asked
            .u8_product_bits
            .map(|p| s.given(Opt::U8ProductBits, &p.to_string())),
        asked
            .u8_sum_bits
            .map(|v| s.given(Opt::U8SumBits, &v.to_string())),
    ]
    .into_iter()
    .flatten()
    .collect();
    let blocks: Vec<String> = [
        (asked.block.is_some() || asked.block_auto).then(|| s.name(Opt::Block).to_string()),
        asked
            .accumulate
            .map(|_| s.name(Opt::Accumulate).to_string()),
    ]
    .into_iter()
    .flatten()
    .collect();
    let Some(method) = asked.method else {
        // No method: f32 arithmetic, and nothing of a render pipeline's.
        if precision != Precision::F32 {
            return Err(Error::Invalid(format!(
                "{} is the arithmetic of a method: name it with {} ({})",
                s.given(Opt::Precision, precision.name()),
                s.method_hint(),
                names(Method::takes_precision)
            )));
        }
        if let Some(name) = blocks.iter().chain(&eight_bit).next() {
            return Err(Error::Invalid(format!(
                "{name} is an option of a render pipeline's arithmetic: name it with {} ({})",
                s.method_hint(),
                names(Method::takes_precision)
            )));
        }
        return Ok(Options { precision, ..base });
    };
    check_channels(method, asked.channels, s)?;
    check_precision(method, precision, s)?;
    if !blocks.is_empty() && !method.info().takes.block {
        return Err(Error::Invalid(format!(
            "{} {} Hall–Carr–Hart {}; method {method} has no blocks (use {})",
            blocks.join(" and "),
            if blocks.len() == 1 { "is a" } else { "are" },
            if blocks.len() == 1 {
                "option"
            } else {
                "options"
            },
            names(|m| m.info().takes.block)
        )));
    }
    if asked.block == Some(0) {
        return Err(Error::Invalid(format!(
            "block size b = 0: each pass must sum at least one product (give {} 1 or more)",
            s.name(Opt::Block)
        )));
    }
    if precision != Precision::U8 && !eight_bit.is_empty() {
        return Err(Error::Invalid(format!(
            "{} {} the 8-bit pipeline (L-M §4), so {} {}{}",
            eight_bit.join(" and "),
            if eight_bit.len() == 1 {
                "is an option of"
            } else {
                "are options of"
            },
            if eight_bit.len() == 1 {
                "it needs"
            } else {
                "they need"
            },
            s.given(Opt::Precision, "u8"),
            if method.takes_precision() {
                String::new()
            } else {
                format!(", which {method} does not take (it computes in f32)")
            }
        )));
    }
    let u8_bits = u8_bits(asked, s)?;
    let kernels = match &asked.variant {
        None => base.kernels,
        Some(v) => kernels(method, v, base.kernels, s)?,
    };
    let (mem_budget, mem_budget_source) = match &asked.mem_budget {
        None => (base.mem_budget, base.mem_budget_source.clone()),
        Some(text) => (
            Some(super::tiled::parse_bytes(text)?),
            match s {
                Spelling::Cli => None,
                _ => Some("mem_budget=".to_string()),
            },
        ),
    };
    Ok(Options {
        precision,
        block: asked.block,
        accumulate: asked.accumulate.unwrap_or_default(),
        scale_by_depth: asked.scale_by_depth,
        u8_bits,
        kernels,
        mem_budget,
        mem_budget_source,
        ..base
    })
}

/// The 8-bit pipeline's widths (L-M §4): 8, 14 or 16 bits of product, 8 or 16 of sum.
fn u8_bits(asked: &Asked, s: Spelling) -> Result<U8Bits> {
    let product = asked.u8_product_bits.unwrap_or(8);
    let sum = asked.u8_sum_bits.unwrap_or(8);
    if !U8Bits::PRODUCT_BITS.contains(&product) {
        return Err(Error::Invalid(format!(
            "{}: use 8, 14 (GeForce2, L-M §4) or 16 (GeForce3)",
            s.given(Opt::U8ProductBits, &product.to_string())
        )));
    }
    if !U8Bits::SUM_BITS.contains(&sum) {
        return Err(Error::Invalid(format!(
            "{}: use 8 (an 8-bit framebuffer) or 16 (L-M §4's 16-bit sum)",
            s.given(Opt::U8SumBits, &sum.to_string())
        )));
    }
    U8Bits::new(product, sum)
}

/// The kernel variant named `v`, for the methods that have variants.
fn kernels(method: Method, v: &str, base: Kernels, s: Spelling) -> Result<Kernels> {
    Ok(match method {
        Method::CsFast => Kernels {
            cs_fast: Some(cs_fast::Variant::parse(v)?),
            ..base
        },
        Method::Coop => Kernels {
            coop: Some(coop::Variant::parse(v)?),
            ..base
        },
        Method::FragMrt | Method::FragMrtF16 => Kernels {
            frag_mrt: Some(frag_mrt::Shape::parse(v)?),
            ..base
        },
        _ => {
            return Err(Error::Invalid(format!(
                "{}: method {method} has no variants (cs-fast, coop, frag-mrt and frag-mrt-f16 have)",
                s.given(Opt::Variant, v)
            )));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Spelling; 4] = [
        Spelling::Cli,
        Spelling::Python,
        Spelling::Page,
        Spelling::Library,
    ];

    fn asked(method: Method) -> Asked {
        Asked {
            method: Some(method),
            ..Asked::default()
        }
    }

    /// The refusal of `a` under `s`, which must be one line.
    fn refused(a: &Asked, s: Spelling) -> String {
        let e = validate(a, s, Options::default())
            .err()
            .unwrap_or_else(|| panic!("{a:?} was taken ({s:?})"))
            .to_string();
        assert!(!e.contains('\n'), "{e}");
        e
    }

    #[test]
    fn each_rule_refuses_in_one_line_naming_the_option_as_the_front_end_spells_it() {
        let eight_bit = Asked {
            u8_sum_bits: Some(16),
            ..asked(Method::Lm)
        };
        for (s, needs) in [
            (
                Spelling::Cli,
                "--u8-sum-bits 16 is an option of the 8-bit pipeline",
            ),
            (Spelling::Python, "it needs precision='u8'"),
            (Spelling::Page, "u8_sum_bits=16 is an option"),
        ] {
            let e = refused(&eight_bit, s);
            assert!(e.contains(needs), "{s:?}: {e}");
        }
        let scaled = Asked {
            scale_by_depth: true,
            ..asked(Method::CsNaive)
        };
        let e = refused(&scaled, Spelling::Python);
        assert!(
            e.contains("scale_by_depth=True") && e.contains("cs-naive does not take"),
            "{e}"
        );
        let precision = Asked {
            precision: Precision::U8,
            ..asked(Method::CsNaive)
        };
        assert_eq!(
            refused(&precision, Spelling::Python),
            format!(
                "precision='u8': method cs-naive {}",
                precision_refusal(Method::CsNaive, Precision::U8).unwrap_or_default()
            )
        );
        let block = Asked {
            block: Some(4),
            ..asked(Method::Lm)
        };
        for s in ALL {
            let e = refused(&block, s);
            assert!(
                e.contains("method lm has no blocks") && e.contains("hall-blocked"),
                "{e}"
            );
        }
        let zero = Asked {
            block: Some(0),
            ..asked(Method::HallBlocked)
        };
        assert!(refused(&zero, Spelling::Page).contains("b = 0"));
        let bits = Asked {
            precision: Precision::U8,
            u8_product_bits: Some(12),
            ..asked(Method::Lm)
        };
        assert!(refused(&bits, Spelling::Cli).starts_with("--u8-product-bits 12: use 8, 14"));
        let variant = Asked {
            variant: Some("fast".into()),
            ..asked(Method::CsNaive)
        };
        assert!(refused(&variant, Spelling::Python).contains("variant='fast'"));
        let channels = Asked {
            channels: 4,
            ..asked(Method::CsNaive)
        };
        assert!(refused(&channels, Spelling::Cli).starts_with("--channels 4: method cs-naive"));
        let three = Asked {
            channels: 3,
            ..asked(Method::Lm)
        };
        assert_eq!(refused(&three, Spelling::Cli), "--channels 3: use 1 or 4");
        let no_method = Asked {
            precision: Precision::F16,
            ..Asked::default()
        };
        assert!(refused(&no_method, Spelling::Cli).contains("name it with --method"));
        let no_method = Asked {
            u8_sum_bits: Some(16),
            ..Asked::default()
        };
        assert!(refused(&no_method, Spelling::Python).contains("name it with method="));
    }

    #[test]
    fn what_the_rules_take_becomes_the_options() {
        let hall = Asked {
            precision: Precision::U8,
            block: Some(7),
            accumulate: Some(Accumulate::ALL[1]),
            scale_by_depth: true,
            u8_product_bits: Some(14),
            u8_sum_bits: Some(16),
            mem_budget: Some("2MiB".into()),
            ..asked(Method::HallBlocked)
        };
        let o =
            validate(&hall, Spelling::Python, Options::default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (o.precision, o.block, o.accumulate, o.scale_by_depth),
            (Precision::U8, Some(7), Accumulate::ALL[1], true)
        );
        assert_eq!(o.u8_bits, U8Bits::GEFORCE2);
        assert_eq!(o.mem_budget, Some(2 << 20));
        let fast = Asked {
            variant: Some(cs_fast::VARIANTS[0].name.into()),
            channels: 1,
            ..asked(Method::CsFast)
        };
        let o =
            validate(&fast, Spelling::Cli, Options::default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(o.kernels.cs_fast, Some(cs_fast::VARIANTS[0]));
        let lm4 = Asked {
            channels: 4,
            ..asked(Method::Lm)
        };
        assert!(validate(&lm4, Spelling::Cli, Options::default()).is_ok());
        assert!(validate(&Asked::default(), Spelling::Python, Options::default()).is_ok());
    }
}
