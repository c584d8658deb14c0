//! [`Kernels`]: the named variants of the tunable methods (cs-fast's tile shapes, coop's
//! fragment layouts, frag-mrt's shapes) that a request names. Each method looks its own up by
//! name with [`super::named::parse`].

use super::{Method, RanKernel, coop, cs_fast, frag_mrt};
use crate::error::{Error, Result};

/// The kernel variants a request names for the tunable methods; `None` lets the method pick
/// ([`cs_fast::Variant::for_product`], [`coop::Variant::for_product`], [`frag_mrt::Shape::DEFAULT`]).
/// The library reads no environment: the command line fills these from `RENDERMM_CS_FAST`,
/// `RENDERMM_COOP` and `RENDERMM_FRAG_MRT` ([`Kernels::from_knobs`]), other hosts as they like.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Kernels {
    pub cs_fast: Option<cs_fast::Variant>,
    pub coop: Option<coop::Variant>,
    pub frag_mrt: Option<frag_mrt::Shape>,
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
        })
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
