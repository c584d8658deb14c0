//! Typed library errors. Every message names what was wrong so the CLI can print it as one line.

use std::path::PathBuf;

/// Errors returned by the rendermm library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No GPU adapter could be found.
    #[error(
        "no GPU adapter found{detail}; on a machine without a GPU install the lavapipe software Vulkan driver: apt-get install mesa-vulkan-drivers libvulkan1"
    )]
    NoAdapter { detail: String },
    /// The adapter could not give us a device.
    #[error("could not open a device on adapter '{adapter}': {reason}")]
    RequestDevice { adapter: String, reason: String },
    /// A feature the method needs is missing on this adapter.
    #[error("adapter '{adapter}' lacks the {feature} feature, which {needed_for}")]
    MissingFeature {
        adapter: String,
        feature: &'static str,
        needed_for: String,
    },
    /// A method needs a capability of a texture format that this adapter lacks.
    #[error(
        "{method} needs {capability} {format} textures, which adapter '{adapter}' ({backend}) does not offer; {hint}"
    )]
    FormatCapability {
        adapter: String,
        backend: String,
        method: String,
        format: String,
        capability: &'static str,
        hint: String,
    },
    /// A GL-era method (`lm-gl1`, `hall-arbfp`) cannot run here: no EGL, no compatibility-profile
    /// OpenGL context, or no extension it needs; `missing` names what.
    #[error("{method} cannot run here: {missing}")]
    HostGl { method: String, missing: String },
    /// The OpenGL driver reported an error while a GL-era method ran.
    #[error("OpenGL: {0}")]
    Gl(String),
    /// A dimension exceeds one of the adapter's limits.
    #[error("{what} = {value} exceeds the adapter's {limit} = {max}")]
    Limit {
        what: String,
        value: u64,
        limit: &'static str,
        max: u64,
    },
    /// A multiply needs more device memory than the memory budget (`--mem-budget`) allows, and
    /// tiling is off or cannot help; checked before anything is allocated.
    #[error(
        "{what} needs {needed} bytes on the device ({detail}), over the memory budget of {budget} bytes ({budget_source}){hint}"
    )]
    Budget {
        what: String,
        needed: u64,
        detail: String,
        budget: u64,
        budget_source: String,
        hint: String,
    },
    /// wgpu reported a validation, out-of-memory or internal error.
    #[error("wgpu {kind} error during {during}: {message}")]
    Wgpu {
        kind: &'static str,
        during: String,
        message: String,
    },
    /// The device was lost.
    #[error("GPU device lost: {0}")]
    DeviceLost(String),
    /// A buffer could not be mapped for readback.
    #[error("readback failed: {0}")]
    Readback(String),
    /// The two matrices cannot be multiplied.
    #[error(
        "shape mismatch: A is {a_rows}x{a_cols} but B is {b_rows}x{b_cols} (A's columns must equal B's rows)"
    )]
    ShapeMismatch {
        a_rows: usize,
        a_cols: usize,
        b_rows: usize,
        b_cols: usize,
    },
    /// A matrix has a zero dimension.
    #[error("{name} is empty ({rows}x{cols}); every dimension must be at least 1")]
    Empty {
        name: String,
        rows: usize,
        cols: usize,
    },
    /// NaN or infinity in an input.
    #[error(
        "{name} has a non-finite value {value} at row {row}, column {col} (pass --allow-nonfinite to accept it)"
    )]
    NonFinite {
        name: String,
        row: usize,
        col: usize,
        value: f32,
    },
    /// A value outside the range a precision mode accepts.
    #[error("{name} has {value} at row {row}, column {col}, outside [{lo}, {hi}] which {why}")]
    OutOfRange {
        name: String,
        row: usize,
        col: usize,
        value: f32,
        lo: f32,
        hi: f32,
        why: String,
    },
    /// A file could not be read or written. (`error` is deliberately not a `#[source]`: the
    /// message already carries it, and anyhow's `{:#}` would print it twice.)
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// A file was readable but its contents are not a matrix we understand.
    #[error("{path}: {message}")]
    Format { path: PathBuf, message: String },
    /// A name (of a method, variant, figure, ...) that is not one of the known ones.
    #[error("unknown {what} '{name}'; known: {known}")]
    UnknownName {
        what: &'static str,
        name: String,
        known: String,
    },
    /// An option given to a method that does not take it.
    #[error("{option}: method {method} {why}")]
    Unsupported {
        option: String,
        method: &'static str,
        why: String,
    },
    /// A command-line or API argument is invalid.
    #[error("{0}")]
    Invalid(String),
    /// A state the code should never reach whatever it is given (a buffer of the wrong size, a
    /// plan that contradicts itself): a fault in rendermm, not in the request, so the user is
    /// told to report it rather than to change the command.
    #[error(
        "internal error: {0}; this is a bug in rendermm, not in your request; please report it with the command that caused it"
    )]
    Internal(String),
}

/// What kind of failure an error is, for the exit status: the user's request (exit 2), the
/// machine's GPU or driver (exit 3), a file (exit 4), or a bug in rendermm (exit 70,
/// `EX_SOFTWARE` of sysexits.h). Documented in the CLI's `--help`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Bad input: shapes, values, names, options, sizes past a limit or the memory budget.
    Usage,
    /// No adapter, no device, a missing feature, a wgpu error, a lost device, a failed readback.
    Gpu,
    /// A file could not be read, parsed or written.
    File,
    /// An internal invariant broke: no request can cause it, so only a fix to rendermm can.
    Bug,
}

impl Kind {
    /// The process exit status for this kind, as the CLI documents it: 2 the request, 3 the
    /// GPU, 4 a file, 70 a bug (sysexits.h's `EX_SOFTWARE`, so a bug is never read as the
    /// user's mistake).
    pub fn exit_status(self) -> i32 {
        match self {
            Kind::Usage => 2,
            Kind::Gpu => 3,
            Kind::File => 4,
            Kind::Bug => 70,
        }
    }
}

/// Result alias for the library.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Which kind of failure this is.
    pub fn kind(&self) -> Kind {
        match self {
            Error::NoAdapter { .. }
            | Error::RequestDevice { .. }
            | Error::MissingFeature { .. }
            | Error::FormatCapability { .. }
            | Error::HostGl { .. }
            | Error::Gl(_)
            | Error::Wgpu { .. }
            | Error::DeviceLost(_)
            | Error::Readback(_) => Kind::Gpu,
            Error::Io { .. } | Error::Format { .. } => Kind::File,
            Error::Limit { .. }
            | Error::Budget { .. }
            | Error::ShapeMismatch { .. }
            | Error::Empty { .. }
            | Error::NonFinite { .. }
            | Error::OutOfRange { .. }
            | Error::UnknownName { .. }
            | Error::Unsupported { .. }
            | Error::Invalid(_) => Kind::Usage,
            Error::Internal(_) => Kind::Bug,
        }
    }

    /// A malformed file at `path`.
    pub fn format(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error::Format {
            path: path.into(),
            message: message.into(),
        }
    }
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            error: source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_internal_error_is_a_bug_with_exit_status_70_and_says_so() {
        let e = Error::Internal("a readback of 3 bytes where 4 were asked".into());
        assert_eq!(e.kind(), Kind::Bug);
        assert_eq!(e.kind().exit_status(), 70);
        let msg = e.to_string();
        assert!(
            msg.contains("a readback of 3 bytes where 4 were asked"),
            "{msg}"
        );
        assert!(
            msg.contains("bug in rendermm, not in your request"),
            "{msg}"
        );
    }

    #[test]
    fn each_kind_has_its_own_exit_status() {
        let cases = [
            (Error::Invalid("--b 0".into()), Kind::Usage, 2),
            (Error::DeviceLost("gone".into()), Kind::Gpu, 3),
            (Error::format("a.npy", "bad header"), Kind::File, 4),
            (Error::Internal("x".into()), Kind::Bug, 70),
        ];
        for (e, kind, status) in cases {
            assert_eq!(e.kind(), kind, "{e}");
            assert_eq!(kind.exit_status(), status, "{e}");
        }
    }
}
