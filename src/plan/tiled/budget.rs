//! The memory budget a tiled product must fit: from `--mem-budget` / the command line's
//! knob, else from the adapter's limits and the host memory the command line read; and the byte
//! counts people read (`512MiB`, `2GiB`).

use super::*;

/// `bytes` in the largest binary unit that keeps it at least 1: `512 MiB`, `1.50 GiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} bytes")
    } else if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[u])
    } else {
        format!("{v:.2} {}", UNITS[u])
    }
}

/// Parse a size: a number with an optional unit, `4096`, `512MiB`, `2GiB`, `1.5GB`, `64k`.
/// `KiB`/`MiB`/`GiB`/`TiB` and the bare `K`/`M`/`G`/`T` are powers of 1024, `KB`/`MB`/`GB`/`TB`
/// powers of 1000; case does not matter.
pub fn parse_bytes(s: &str) -> Result<u64> {
    let bad = || {
        Error::Invalid(format!(
            "memory size '{s}': give a number of bytes with an optional unit, e.g. 512MiB, 2GiB, 1.5GB or 4096"
        ))
    };
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num.parse().map_err(|_| bad())?;
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024f64.powi(2),
        "g" | "gib" => 1024f64.powi(3),
        "t" | "tib" => 1024f64.powi(4),
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        _ => return Err(bad()),
    };
    let bytes = value * scale;
    if !bytes.is_finite() || bytes < 1.0 || bytes > u64::MAX as f64 {
        return Err(bad());
    }
    Ok(bytes.round() as u64)
}

/// The memory budget: `opts.mem_budget` (`--mem-budget`, or the knob the command line read),
/// else [`default_budget`].
pub fn budget(ctx: &GpuContext, opts: &Options) -> Result<Budget> {
    if let Some(bytes) = opts.mem_budget {
        return Ok(Budget {
            bytes,
            source: opts
                .mem_budget_source
                .clone()
                .unwrap_or_else(|| format!("--mem-budget {}", human_bytes(bytes))),
        });
    }
    Ok(default_budget(ctx, opts.host_available))
}

/// A safe share of what the adapter allows. wgpu reports no device-memory size, so: on a CPU
/// adapter (lavapipe), whose "device memory" is host memory, half of the host's available
/// memory (`host_available`, where the host said); on a GPU, four times
/// `max_storage_buffer_binding_size` (8 GiB on the H100), at least 1 GiB. Raise it with
/// `--mem-budget` where the card has more.
pub fn default_budget(ctx: &GpuContext, host_available: Option<u64>) -> Budget {
    if ctx.info.device_type == wgpu::DeviceType::Cpu
        && let Some(avail) = host_available
    {
        return Budget {
            bytes: avail / 2,
            source: format!(
                "default: half of the host's {} available memory, which a CPU adapter allocates from",
                human_bytes(avail)
            ),
        };
    }
    let bytes = (4 * ctx.limits.max_storage_buffer_binding_size).max(1 << 30);
    Budget {
        bytes,
        source: "default: 4 × max_storage_buffer_binding_size (wgpu reports no device memory size)"
            .into(),
    }
}

/// `MemAvailable` in bytes from the text of `/proc/meminfo` (which the host reads).
pub fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
