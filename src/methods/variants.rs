//! [`Kernels`]: the named variants of the tunable methods (cs-fast's tile shapes, coop's
//! fragment layouts, frag-mrt's shapes) and the papers' own kernel configurations (O'Neil's
//! Cannon tile and DNS block layouts) that a request names. Each tunable method looks its own up
//! by name with [`super::named::parse`]; a named configuration of a compute-harness method is
//! its plan at that configuration ([`Kernels::compute_plan`]).

use super::{Method, RanKernel, cannon_tiled, coop, cs_fast, dns, frag_mrt};
use crate::error::{Error, Result};
use crate::gpu::compute::Plan;

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
    /// The plan of the kernel configuration these name for the compute-harness `method` on an
    /// m×k·k×n product, and the configuration's name ([`RanKernel::variant`]): `None` where
    /// they name none for it (then the method plans as it likes), an error for an empty tile or
    /// block. Checked against the adapter's limits where its operands are made, as every plan is.
    pub fn compute_plan(
        &self,
        method: Method,
        m: usize,
        k: usize,
        n: usize,
    ) -> Option<Result<(Plan, String)>> {
        let empty = |what: String| {
            Err(Error::Invalid(format!(
                "{method}: {what} is empty; every side of a kernel's block must be at least 1"
            )))
        };
        match method {
            Method::CannonTiled => self.cannon_tile.map(|t| match t {
                0 => empty("tile 0".into()),
                t => Ok((cannon_tiled::plan_tile(t, m, k, n), format!("tile {t}"))),
            }),
            Method::Dns
            | Method::DnsNBlocks
            | Method::Dns2nBlocks
            | Method::Dns4nBlocks
            | Method::DnsTiled => self.dns_layout.map(|l| {
                let name = format!("{}x{}x{} blocks", l.bi, l.bk, l.bj);
                if l.invocations() == 0 {
                    return empty(name);
                }
                Ok((dns::plan_layout(method.name(), l, m, k, n), name))
            }),
            _ => None,
        }
    }

    /// The variants a run ran ([`RanKernel::variant`]), for the model of the kernel that ran;
    /// empty where the run names none or a name this build does not know.
    pub fn of_run(ran: &RanKernel) -> Kernels {
        let Some(name) = ran.variant.as_deref() else {
            return Kernels::default();
        };
        let mut k = Kernels::default();
        match Method::parse(&ran.method) {
            Ok(Method::CsFast) => k.cs_fast = cs_fast::Variant::parse(name).ok(),
            Ok(Method::Coop) => k.coop = coop::Variant::parse(name).ok(),
            Ok(Method::FragMrt | Method::FragMrtF16) => {
                k.frag_mrt = frag_mrt::Shape::parse(name).ok();
            }
            _ => {}
        }
        k
    }
}
