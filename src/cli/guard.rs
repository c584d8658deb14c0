//! Checks made before any work starts: that the host can hold the matrices a user-given size
//! asks for (a one-line error naming the size and the memory, never an allocation abort).

use crate::matrix::human_bytes;

/// Memory the host can give now: `MemAvailable` of `/proc/meminfo`, where there is one.
fn available_bytes() -> Option<u128> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u128 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Error unless the host can hold `f32` matrices of these shapes at once. `request` names what
/// was asked (`--random 99999999x99999999x2`), `which` the matrices (`A, B and C`).
pub fn host_memory(
    request: &str,
    which: &str,
    shapes: &[(usize, usize)],
) -> crate::error::Result<()> {
    let bytes: u128 = shapes.iter().map(|&(r, c)| r as u128 * c as u128 * 4).sum();
    let addressable = shapes
        .iter()
        .all(|&(r, c)| r as u128 * c as u128 * 4 <= isize::MAX as u128);
    let need = format!("{which} take {} ({bytes} bytes)", human_bytes(bytes));
    if !addressable {
        return Err(crate::Error::Invalid(format!(
            "{request}: {need}, more memory than this machine can address"
        )));
    }
    match available_bytes() {
        Some(avail) if bytes > avail => Err(crate::Error::Invalid(format!(
            "{request}: {need} of host memory, and this machine has {} available",
            human_bytes(avail)
        ))),
        _ => Ok(()),
    }
}

/// [`host_memory`] for an m×k·k×n product held `copies` times over (A, B and C each).
pub fn product_memory(
    request: &str,
    (m, k, n): (usize, usize, usize),
    copies: usize,
) -> crate::error::Result<()> {
    let shapes: Vec<(usize, usize)> = (0..copies.max(1))
        .flat_map(|_| [(m, k), (k, n), (m, n)])
        .collect();
    host_memory(request, "A, B and C", &shapes)
}
