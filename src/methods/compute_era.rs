//! The compute-era methods behind one function: which [`Plan`] each runs. The methods
//! themselves, one file each beside one shader each, are
//!
//! - [`super::cs_naive`] (`cs-naive`) and [`super::cs_tiled`] (`cs-tiled-16`, `cs-tiled-32`):
//!   the HIP blog's naive and tiled kernels;
//! - [`super::kk73`]: the 5kk73 ladder, `5kk73-1-uncoalesced` … `5kk73-6-prefetch`;
//! - [`super::cannon`] (`cannon`), [`super::cannon_tiled`] (`cannon-tiled`): O'Neil's Cannon in
//!   one workgroup and by blocks;
//! - [`super::dns`] (`dns`), [`super::dns_blocks`] (`dns-n-blocks`, `dns-2n-blocks`,
//!   `dns-4n-blocks`), [`super::dns_tiled`] (`dns-tiled`): O'Neil's DNS in one workgroup, over
//!   planes, and by cube tiles.
//!
//! They share the harness in [`crate::gpu::compute`]: storage buffers, poisoned outputs, limit
//! checks, one compute pass.

use super::{
    Method, RunOutput, cannon, cannon_tiled, cs_naive, cs_tiled, dns, dns_blocks, dns_tiled, kk73,
};
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::gpu::compute::{self, Plan};
use crate::matrix::Matrix;

/// The compute methods, in the order the tour shows them.
pub const METHODS: &[Method] = &[
    Method::CsNaive,
    Method::CsTiled16,
    Method::CsTiled32,
    Method::Kk73Uncoalesced,
    Method::Kk73Coalesced,
    Method::Kk73BankFree,
    Method::Kk73OuterProduct,
    Method::Kk73Unrolled,
    Method::Kk73Prefetch,
    Method::Cannon,
    Method::CannonTiled,
    Method::Dns,
    Method::DnsTiled,
    Method::DnsNBlocks,
    Method::Dns2nBlocks,
    Method::Dns4nBlocks,
];

/// Whether `method` is one of the compute-shader methods.
pub fn is_compute(method: Method) -> bool {
    METHODS.contains(&method)
}

/// The plan `method` runs for an m×k·k×n product under `limits`: `None` if `method` is not a
/// compute method, `Some(Err(..))` if it cannot run this product (a single-workgroup method
/// given too large a product).
pub fn plan(
    method: Method,
    limits: &wgpu::Limits,
    m: usize,
    k: usize,
    n: usize,
) -> Option<Result<Plan>> {
    Some(Ok(match method {
        Method::CsNaive => cs_naive::plan(m, k, n),
        Method::CsTiled16 => cs_tiled::plan(16, m, k, n),
        Method::CsTiled32 => cs_tiled::plan(32, m, k, n),
        Method::Kk73Uncoalesced => kk73::uncoalesced::plan(m, k, n),
        Method::Kk73Coalesced => kk73::coalesced::plan(m, k, n),
        Method::Kk73BankFree => kk73::bank_free::plan(m, k, n),
        Method::Kk73OuterProduct => kk73::outer_product::plan(m, k, n),
        Method::Kk73Unrolled => kk73::unrolled::plan(m, k, n),
        Method::Kk73Prefetch => kk73::prefetch::plan(m, k, n),
        Method::Cannon => return Some(cannon::plan(limits, m, k, n)),
        Method::CannonTiled => cannon_tiled::plan(m, k, n),
        Method::Dns => return Some(dns::plan(limits, m, k, n)),
        Method::DnsTiled => dns_tiled::plan(m, k, n),
        Method::DnsNBlocks => dns_blocks::plan(limits, 1, m, k, n),
        Method::Dns2nBlocks => dns_blocks::plan(limits, 2, m, k, n),
        Method::Dns4nBlocks => dns_blocks::plan(limits, 4, m, k, n),
        _ => return None,
    }))
}

/// Multiply `a · b` with the compute method `method`.
///
/// `cannon` and `dns` are O'Neil's single-workgroup kernels. A product too large for one
/// workgroup runs on their multi-workgroup versions (`cannon-tiled`, `dns-tiled`) instead, and
/// the report's notes say so and name the limit the single-workgroup kernel ran into.
pub fn multiply(ctx: &GpuContext, method: Method, a: &Matrix, b: &Matrix) -> Result<RunOutput> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let planned = plan(method, &ctx.limits, m, k, n).unwrap_or_else(|| {
        Err(crate::error::Error::Invalid(format!(
            "{method} is not a compute-shader method"
        )))
    });
    let fallback = match method {
        Method::Cannon => Some(Method::CannonTiled),
        Method::Dns => Some(Method::DnsTiled),
        _ => None,
    };
    match (planned, fallback) {
        (Ok(p), _) => compute::run(ctx, &p, a, b),
        (Err(e @ crate::error::Error::Limit { .. }), Some(tiled)) => {
            let p =
                plan(tiled, &ctx.limits, m, k, n).expect("tiled methods are compute methods")?;
            let mut out = compute::run(ctx, &p, a, b)?;
            out.notes.insert(
                0,
                format!(
                    "single-workgroup {method} cannot take {m}x{k}x{n} ({e}); ran {tiled} instead"
                ),
            );
            Ok(out)
        }
        (Err(e), _) => Err(e),
    }
}
