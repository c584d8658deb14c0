//! What a run ran, as the run knew it: [`RanKernel`] (the method whose kernel ran, its
//! [`Variant`], the number formats it computed in, the dispatches of its compute plan) and the
//! single-product [`RunOutput`] that carries it up to the entry point. A method's recording says
//! which of its variants it chose ([`Recorded`]); nothing above re-derives it.

use super::Method;
use super::variants::Variant;
use crate::error::{Error, Result};
use crate::gpu::run::{Grid, Ran, Timings, Work};
use crate::matrix::Matrix;
use crate::precision::{Precision, SliceRounding};
use serde::Serialize;

/// The GPU work a method recorded for one product ([`super::RecordFn`]), and the variant or
/// shape it chose, for the methods that have several.
pub struct Recorded {
    pub work: Work,
    pub variant: Option<Variant>,
}

impl Recorded {
    /// Work of a method with no variants to choose from.
    pub fn plain(work: Work) -> Self {
        Recorded {
            work,
            variant: None,
        }
    }
}

/// What a run returns.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub c: Matrix,
    /// Passes (render passes or slices) the method ran.
    pub passes: usize,
    pub timings: Timings,
    /// Remarks for the report (how the passes were laid out, fallbacks taken).
    pub notes: Vec<String>,
    /// The kernel that ran, as the run knew it: the report, the bench rows and the model read
    /// it here instead of guessing it again from the request.
    pub kernel: RanKernel,
}

impl RunOutput {
    /// The single-product output of `ran`, a run of `method`'s kernel in `variant` (where it
    /// has several), which kept its sums in the format it recorded ([`Work::sums`]), else in
    /// `asked`; the dispatches of its compute plan as the run recorded them ([`Work::grid`]).
    pub fn of(
        ran: Ran,
        method: Method,
        variant: Option<Variant>,
        asked: Precision,
    ) -> Result<RunOutput> {
        let sums = ran.sums.unwrap_or(asked);
        let kernel = RanKernel {
            method,
            variant,
            inputs: ran.inputs.unwrap_or(sums),
            sums,
            rounding: None,
            grid: ran.grid,
        };
        let Ran {
            cs,
            passes,
            timings,
            notes,
            ..
        } = ran;
        let c = cs
            .into_iter()
            .next()
            .ok_or_else(|| Error::Readback("the run produced no matrix".into()))?;
        Ok(RunOutput {
            c,
            passes,
            timings,
            notes,
            kernel,
        })
    }
}

/// The kernel a run actually ran and the number formats it computed in. Serialized (the soak's
/// rows) with the method and the variant by name, as the command line spells them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RanKernel {
    /// The method whose kernel ran: the one asked, or the one it handed the product to
    /// (`cannon` → `cannon-tiled`).
    #[serde(serialize_with = "method_name")]
    pub method: Method,
    /// The variant or block shape of a method that has several (cs-fast's and coop's variants,
    /// frag-mrt's shape, a named Cannon tile or DNS layout, L-M's four channels).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<Variant>,
    /// The number format A and B were read in (f16 for coop and frag-mrt-f16).
    pub inputs: Precision,
    /// The number format the sums were kept in (f32 for coop and frag-mrt-f16).
    pub sums: Precision,
    /// How the fixed-function texture environment that ran rounds a slice's product to 8 bits
    /// (`lm-gl1`, by its driver): the rounding its 8-bit model follows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounding: Option<SliceRounding>,
    /// The dispatches of the compute plan that ran, where one product ran one plan on the
    /// compute harness (a tiled product's blocks each ran their own: none); the compute model of
    /// the run reads it ([`crate::gpu::compute::Plan::grid`]).
    #[serde(skip)]
    pub grid: Option<Grid>,
}

impl RanKernel {
    /// The kernel of `method`, with no variant, computing in `precision` throughout.
    pub fn new(method: Method, precision: Precision) -> Self {
        RanKernel {
            method,
            variant: None,
            inputs: precision,
            sums: precision,
            rounding: None,
            grid: None,
        }
    }

    /// The kernel configurations the run's variant names, as a request would name them (none
    /// without a variant): what the models of the kernel that ran read.
    pub fn kernels(&self) -> super::Kernels {
        self.variant.map(Variant::kernels).unwrap_or_default()
    }
}

fn method_name<S: serde::Serializer>(m: &Method, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(m.name())
}
