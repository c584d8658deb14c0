//! Looking a method's variant up by name: the one lookup cs-fast's and coop's variants share,
//! below both (and below [`super::variants::Kernels`], which names them), so that no method
//! imports the module that imports it.

use crate::error::{Error, Result};

/// The variant of `all` called `name`; the error lists the known names (`what` names the method).
pub fn parse<T: Copy>(
    all: &[T],
    name_of: impl Fn(&T) -> &str,
    what: &str,
    name: &str,
) -> Result<T> {
    all.iter()
        .copied()
        .find(|v| name_of(v) == name)
        .ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(&name_of).collect();
            Error::Invalid(format!(
                "unknown {what} variant '{name}'; known: {}",
                names.join(", ")
            ))
        })
}
