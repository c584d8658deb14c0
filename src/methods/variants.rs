//! [`Kernels`]: the named variants of the tunable methods (cs-fast's tile shapes, coop's
//! fragment layouts, frag-mrt's shapes) and the papers' own kernel configurations (O'Neil's
//! Cannon tile and DNS block layouts) that a request names. Each tunable method looks its own up
//! by name with [`super::named::parse`]; a named configuration of a compute-harness method is
//! its plan at that configuration ([`Kernels::compute_plan`]). [`Variant`] is the one of them a
//! run ran, as the run records it ([`super::RanKernel::variant`]).

use super::{Method, cannon_tiled, coop, cs_fast, dns, frag_mrt};
use crate::error::{Error, Result};
use crate::gpu::compute::Plan;

/// The variant, block shape or configuration a run ran, for the methods that have several: the
/// typed record of what the run chose, never parsed back from its name. Its name
/// ([`std::fmt::Display`], and its serde form) is the one that selects it: a cs-fast or coop
/// variant's name, frag-mrt's shape (`8x4,unroll=2`), `tile 4`, `8x8x1 blocks`, `rgba`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// cs-fast's tile shape.
    CsFast(cs_fast::Variant),
    /// coop's fragment layout.
    Coop(coop::Variant),
    /// frag-mrt's (and frag-mrt-f16's) block shape.
    FragMrt(frag_mrt::Shape),
    /// `cannon-tiled`'s tile edge T, as a request named it.
    CannonTile(u32),
    /// The DNS block one workgroup holds, as a request named it.
    DnsLayout(dns::Layout),
    /// L-M's four channels (§5): one product per colour channel, in one set of passes.
    Rgba,
}

impl Variant {
    /// The kernel configurations this variant names, as a request would name them: what the
    /// models of the kernel that ran read.
    pub fn kernels(self) -> Kernels {
        let mut k = Kernels::default();
        match self {
            Variant::CsFast(v) => k.cs_fast = Some(v),
            Variant::Coop(v) => k.coop = Some(v),
            Variant::FragMrt(s) => k.frag_mrt = Some(s),
            Variant::CannonTile(t) => k.cannon_tile = Some(t),
            Variant::DnsLayout(l) => k.dns_layout = Some(l),
            Variant::Rgba => {}
        }
        k
    }
}

impl std::fmt::Display for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Variant::CsFast(v) => f.write_str(v.name),
            Variant::Coop(v) => f.write_str(v.name),
            Variant::FragMrt(s) => f.write_str(&s.name()),
            Variant::CannonTile(t) => write!(f, "tile {t}"),
            Variant::DnsLayout(l) => write!(f, "{}x{}x{} blocks", l.bi, l.bk, l.bj),
            Variant::Rgba => f.write_str("rgba"),
        }
    }
}

impl serde::Serialize for Variant {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The kernel variants a request names for the tunable methods; `None` lets the method pick
/// ([`cs_fast::Variant::for_product`], [`coop::Variant::for_product`], [`frag_mrt::Shape::DEFAULT`]).
/// The library reads no environment: the command line fills these from `RENDERMM_CS_FAST`,
/// `RENDERMM_COOP` and `RENDERMM_FRAG_MRT` ([`Kernels::from_knobs`]), other hosts as they like.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Kernels {
    pub cs_fast: Option<cs_fast::Variant>,
    pub coop: Option<coop::Variant>,
    pub frag_mrt: Option<frag_mrt::Shape>,
    /// `cannon-tiled`'s tile edge T (O'Neil §5 tiles 16×16 with T = 8); `None`: its own, 8.
    pub cannon_tile: Option<u32>,
    /// The block of the DNS cube one workgroup holds, for `dns`, `dns-n-blocks`,
    /// `dns-2n-blocks`, `dns-4n-blocks` and `dns-tiled` (O'Neil's 8-block DNS at 16×16 as 64
    /// blocks of 8×8: bi = 8, bk = 8, bj = 1); `None`: the method's own layout.
    pub dns_layout: Option<dns::Layout>,
}

impl Kernels {
    /// The variants named by the knobs `value(name)` returns (the command line passes the
    /// environment): `RENDERMM_CS_FAST`, `RENDERMM_COOP` and `RENDERMM_FRAG_MRT`; unset or empty
    /// leaves the method's own choice. An unknown name is an error that names the knob.
    pub fn from_knobs(value: impl Fn(&str) -> Option<String>) -> Result<Kernels> {
        Kernels::from_knobs_for(Method::ALL, value)
    }

    /// [`Kernels::from_knobs`] reading only the knobs of `methods`: a bad `RENDERMM_FRAG_MRT`
    /// does not stop `lm`, which has no block shape to take from it.
    pub fn from_knobs_for(
        methods: &[Method],
        value: impl Fn(&str) -> Option<String>,
    ) -> Result<Kernels> {
        let uses = |knob: &str| {
            methods.iter().any(|m| match m {
                Method::CsFast => knob == cs_fast::ENV,
                Method::Coop => knob == coop::ENV,
                Method::FragMrt | Method::FragMrtF16 => knob == frag_mrt::SHAPE_ENV,
                _ => false,
            })
        };
        let given = |knob: &str| {
            value(knob)
                .filter(|s| !s.trim().is_empty())
                .filter(|_| uses(knob))
        };
        let in_knob = |knob: &'static str| move |e: Error| Error::Invalid(format!("{knob}: {e}"));
        Ok(Kernels {
            cs_fast: given(cs_fast::ENV)
                .map(|s| cs_fast::Variant::parse(s.trim()).map_err(in_knob(cs_fast::ENV)))
                .transpose()?,
            coop: given(coop::ENV)
                .map(|s| coop::Variant::parse(s.trim()).map_err(in_knob(coop::ENV)))
                .transpose()?,
            frag_mrt: given(frag_mrt::SHAPE_ENV)
                .map(|s| frag_mrt::Shape::parse(&s).map_err(in_knob(frag_mrt::SHAPE_ENV)))
                .transpose()?,
            ..Default::default()
        })
    }
    /// The configuration these name for `method`, if they name one: the variant a run of it
    /// records ([`super::RanKernel::variant`]).
    pub fn variant_for(&self, method: Method) -> Option<Variant> {
        match method {
            Method::CsFast => self.cs_fast.map(Variant::CsFast),
            Method::Coop => self.coop.map(Variant::Coop),
            Method::FragMrt | Method::FragMrtF16 => self.frag_mrt.map(Variant::FragMrt),
            Method::CannonTiled => self.cannon_tile.map(Variant::CannonTile),
            Method::Dns
            | Method::DnsNBlocks
            | Method::Dns2nBlocks
            | Method::Dns4nBlocks
            | Method::DnsTiled => self.dns_layout.map(Variant::DnsLayout),
            _ => None,
        }
    }

    /// The plan of the kernel configuration these name for the compute-harness `method` on an
    /// m×k·k×n product, and the configuration ([`super::RanKernel::variant`]): `None` where
    /// they name none for it (then the method plans as it likes), an error for an empty tile or
    /// block. Checked against the adapter's limits where its operands are made, as every plan is.
    pub fn compute_plan(
        &self,
        method: Method,
        m: usize,
        k: usize,
        n: usize,
    ) -> Option<Result<(Plan, Variant)>> {
        let empty = |what: String| {
            Err(Error::Invalid(format!(
                "{method}: {what} is empty; every side of a kernel's block must be at least 1"
            )))
        };
        match method {
            Method::CannonTiled => self.cannon_tile.map(|t| match t {
                0 => empty(Variant::CannonTile(0).to_string()),
                t => Ok((cannon_tiled::plan_tile(t, m, k, n), Variant::CannonTile(t))),
            }),
            Method::Dns
            | Method::DnsNBlocks
            | Method::Dns2nBlocks
            | Method::Dns4nBlocks
            | Method::DnsTiled => self.dns_layout.map(|l| {
                if l.invocations() == 0 {
                    return empty(Variant::DnsLayout(l).to_string());
                }
                Ok((dns::plan_layout(method.name(), l, m, k, n), Variant::DnsLayout(l)))
            }),
            _ => None,
        }
    }
}
