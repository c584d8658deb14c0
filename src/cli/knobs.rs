//! The environment knobs, read here and nowhere else: the library takes every option as a
//! value ([`crate::plan::Options`]) and reads no environment variable or system file, so the
//! command line reads them once and hands them in.
//!
//! - `RENDERMM_CS_FAST`, `RENDERMM_COOP`: the variant cs-fast / coop runs (unset: chosen by the
//!   size of C, and for coop the vendor);
//! - `RENDERMM_FRAG_MRT`: frag-mrt's block shape (unset: the default shape);
//! - `RENDERMM_MEM_BUDGET`: the memory budget when `--mem-budget` is not given;
//! - `/proc/meminfo`'s `MemAvailable`: the host memory a CPU adapter allocates from, for the
//!   default budget; `/proc/self/statm`: this process's resident memory, which the soak watches.

use crate::methods::Kernels;
use crate::plan::Options;
use crate::plan::tiled::{self, BUDGET_ENV};

/// The kernel variants the knobs name; an unknown name is refused in one line naming the knob.
pub fn kernels() -> crate::error::Result<Kernels> {
    Kernels::from_knobs(|name| std::env::var(name).ok())
}

/// [`kernels`] reading only the knobs of `methods` (a bad `RENDERMM_FRAG_MRT` does not stop
/// `--method lm`).
pub fn kernels_for(methods: &[crate::methods::Method]) -> crate::error::Result<Kernels> {
    Kernels::from_knobs_for(methods, |name| std::env::var(name).ok())
}

/// The library's options the knobs give, for a command with `--mem-budget` (`flag`, already
/// parsed): the kernel variants, and the memory budget — the flag's, else
/// `RENDERMM_MEM_BUDGET`'s (a bad value is refused in one line), else the default, which on a CPU
/// adapter takes half of the host's available memory.
///
/// Only the kernel knobs of `methods` are read: the knobs of methods that will not run are not.
pub fn options_for(
    flag: Option<u64>,
    methods: &[crate::methods::Method],
) -> crate::error::Result<Options> {
    let (mem_budget, mem_budget_source) = match flag {
        Some(bytes) => (Some(bytes), None),
        None => match std::env::var(BUDGET_ENV) {
            Ok(s) => (
                // The variable named, so the reader knows where the bad value came from.
                Some(tiled::parse_bytes(&s).map_err(|e| match e {
                    crate::Error::Invalid(why) => {
                        crate::Error::Invalid(format!("{BUDGET_ENV}: {why}"))
                    }
                    other => other,
                })?),
                Some(format!("{BUDGET_ENV}={s}")),
            ),
            Err(_) => (None, None),
        },
    };
    Ok(Options {
        kernels: kernels_for(methods)?,
        mem_budget,
        mem_budget_source,
        host_available: host_available(),
        ..Default::default()
    })
}

/// `MemAvailable` of `/proc/meminfo`, where there is one.
pub fn host_available() -> Option<u64> {
    tiled::mem_available(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

/// Resident bytes of this process (Linux `/proc/self/statm`), for the soak's host memory.
pub fn host_resident() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = s.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}
