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
}

/// What kind of failure an error is, for the exit status: the user's request (exit 2), the
/// machine's GPU or driver (exit 3), or a file (exit 4). Documented in the CLI's `--help`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Bad input: shapes, values, names, options, sizes past a limit or the memory budget.
    Usage,
    /// No adapter, no device, a missing feature, a wgpu error, a lost device, a failed readback.
    Gpu,
    /// A file could not be read, parsed or written.
    File,
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
