//! O'Neil (2013), "Experiments with Massively Parallel Matrix Multiplication", §2.3 and §3.1:
//! Cannon's algorithm in a single workgroup.
//!
//! One dispatch of ONE workgroup: the workgroup is Cannon's mesh, one invocation per element of
//! C. The invocations load all of A and B into workgroup memory together, then invocation
//! (i, j) sums `A[i][(i + j + p) mod k] · B[(i + j + p) mod k][j]` for p = 0..k — the order in
//! which the torus would shift the operands past processor (i, j) — in a register, and writes
//! C(i, j). For m×k · k×n the mesh is m×n and the skew runs mod k, which is O'Neil's
//! `(tx + ty + k) % n` when m = k = n; so no padding is needed.
//!
//! Being one workgroup, it accepts only products whose mesh and operands fit one: m·n ≤
//! `max_compute_invocations_per_workgroup` and 4·(m·k + k·n) bytes ≤
//! `max_compute_workgroup_storage_size` — square n ≤ 32 on an adapter with 1024 invocations and
//! 32 KiB (O'Neil ran 8×8 and 16×16). Larger products give an [`Error::Limit`] naming the
//! limit and the accepted sizes; [`super::cannon_tiled`] handles any shape.
//!
//! Shader: `shaders/cannon.wgsl` (M, K, N are pipeline constants).

use crate::error::{Error, Result};
use crate::gpu::compute::{Kernel, Plan};
use crate::methods::Method;

const SHADER: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/cannon.wgsl"));

/// The largest square n the single workgroup accepts under `limits`.
pub fn max_square(limits: &wgpu::Limits) -> usize {
    let inv = limits.max_compute_invocations_per_workgroup as usize;
    let words = limits.max_compute_workgroup_storage_size as usize / 4;
    let mut n = 0;
    while (n + 1) * (n + 1) <= inv && 2 * (n + 1) * (n + 1) <= words {
        n += 1;
    }
    n
}

/// Loop iterations of one invocation of the m×k·k×n workgroup, for drivers that cap them
/// ([`super::Loops`]): the loops staging A (⌈k/n⌉ iterations) and B (⌈k/m⌉), then the k-step
/// inner product (k), each + 1.
pub fn loop_iterations(m: usize, k: usize, n: usize) -> u64 {
    let k = k as u64;
    k + k.div_ceil(n.max(1) as u64) + k.div_ceil(m.max(1) as u64) + 3
}

/// The one-workgroup dispatch, or an error naming the limit and the sizes accepted.
pub fn plan(limits: &wgpu::Limits, m: usize, k: usize, n: usize) -> Result<Plan> {
    let accepts = || {
        format!(
            "{} runs in one workgroup (O'Neil §3.1) and accepts m·n ≤ {} invocations with \
             4·(m·k + k·n) ≤ {} bytes of workgroup memory, i.e. square n ≤ {} here; use \
             {} for {m}x{k}x{n}",
            Method::Cannon.name(),
            limits.max_compute_invocations_per_workgroup,
            limits.max_compute_workgroup_storage_size,
            max_square(limits),
            Method::CannonTiled.name(),
        )
    };
    let invocations = (m * n) as u64;
    let max_inv = limits.max_compute_invocations_per_workgroup as u64;
    if invocations > max_inv {
        return Err(Error::Limit {
            what: format!("{}; its mesh m·n", accepts()),
            value: invocations,
            limit: "max_compute_invocations_per_workgroup",
            max: max_inv,
        });
    }
    let bytes = 4 * (m * k + k * n) as u64;
    let max_bytes = limits.max_compute_workgroup_storage_size as u64;
    if bytes > max_bytes {
        return Err(Error::Limit {
            what: format!("{}; A and B in workgroup memory, 4·(m·k + k·n)", accepts()),
            value: bytes,
            limit: "max_compute_workgroup_storage_size",
            max: max_bytes,
        });
    }
    let kernel = Kernel {
        file: "cannon.wgsl",
        source: SHADER,
        entry: "main",
        constants: vec![("M", m as f64), ("K", k as f64), ("N", n as f64)],
        workgroup_size: [n as u32, m as u32, 1],
        workgroup_bytes: bytes,
    };
    Ok(
        Plan::single(Method::Cannon.name(), kernel, [1, 1, 1]).note(format!(
            "one workgroup: a {m}x{n} mesh, skew (i + j + p) mod {k}"
        )),
    )
}
