//! Named variants of a tunable method (cs-fast's tile shapes, coop's fragment layouts): look one
//! up by name, or take the one an environment variable names.

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

/// The variant the environment variable `env` names, or the first of `all` (the default) when it
/// is unset or empty.
pub fn from_env<T: Copy>(
    env: &str,
    all: &[T],
    name_of: impl Fn(&T) -> &str,
    what: &str,
) -> Result<T> {
    match std::env::var(env) {
        Ok(s) if !s.trim().is_empty() => {
            parse(all, name_of, what, s.trim()).map_err(|e| Error::Invalid(format!("{env}: {e}")))
        }
        _ => Ok(all[0]),
    }
}
