//! Matrix files: .npy (f32/f64, C order), Matrix Market (.mtx, dense `array` and `coordinate`) and
//! CSV, chosen by extension. Writes go to a temporary file that is renamed into place, so a failed
//! run never leaves a partial output.
//!
//! Readers never panic on malformed input: every problem comes back as a one-line
//! [`Error::Format`] naming what was wrong (and the line, for the text formats). Sizes declared in
//! headers are checked against the file's length before anything is allocated.

mod csv;
mod mtx;
mod npy;

use crate::error::{Error, Result};
use crate::matrix::Matrix;
use std::fs::{self, File, OpenOptions};
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The file formats, chosen by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Npy,
    Mtx,
    Csv,
}

const SUPPORTED: &str = "supported extensions are .npy, .mtx and .csv";

fn format_of(path: &Path) -> Result<Format> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("npy") => Ok(Format::Npy),
        Some("mtx") => Ok(Format::Mtx),
        Some("csv") => Ok(Format::Csv),
        Some(other) => Err(Error::format(
            path,
            format!("unknown file extension '.{other}'; {SUPPORTED}"),
        )),
        None => Err(Error::format(
            path,
            format!("no file extension; {SUPPORTED}"),
        )),
    }
}

fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    fs::read(path).map_err(|e| Error::io(path, e))
}

/// The contents as UTF-8 text (a leading byte-order mark is dropped), or an error naming the line
/// of the first invalid byte.
fn as_text<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text.strip_prefix('\u{feff}').unwrap_or(text)),
        Err(e) => {
            let line = 1 + bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            Err(Error::format(
                path,
                format!("line {line}: not valid UTF-8 text (is this really a text file?)"),
            ))
        }
    }
}

/// Read a matrix, choosing the format by extension (.npy, .mtx, .csv; case-insensitive).
///
/// A .npy file must hold a 2-D float32 or float64 array in C order. Matrices with a zero
/// dimension are returned as they are; callers that need a non-empty matrix check for that.
pub fn read_matrix(path: &Path) -> Result<Matrix> {
    let format = format_of(path)?;
    parse_as(format, path, &read_bytes(path)?)
}

/// Read a batch of matrices: a 3-D .npy array of shape (batch, rows, cols) gives `batch`
/// matrices; a 2-D .npy file, or any .mtx or .csv file, gives one.
pub fn read_batch(path: &Path) -> Result<Vec<Matrix>> {
    let format = format_of(path)?;
    parse_batch_as(format, path, &read_bytes(path)?)
}

/// Parse a matrix held in memory, the format chosen by `path`'s extension as in [`read_matrix`];
/// `path` only names the source in errors (nothing is read from disk). Any bytes give a matrix
/// or an [`Error::Format`], never a panic: the fuzz targets and property tests feed this.
pub fn parse_matrix(path: &Path, bytes: &[u8]) -> Result<Matrix> {
    parse_as(format_of(path)?, path, bytes)
}

/// Parse a batch held in memory, as [`read_batch`] reads one from disk.
pub fn parse_batch(path: &Path, bytes: &[u8]) -> Result<Vec<Matrix>> {
    parse_batch_as(format_of(path)?, path, bytes)
}

/// Parse .npy bytes (a 2-D float32 or float64 array in C order).
pub fn parse_npy(bytes: &[u8]) -> Result<Matrix> {
    npy::read_matrix(Path::new("<npy bytes>"), bytes)
}

/// Parse .npy bytes as a batch: a 3-D array gives one matrix per leading index, a 2-D one gives one.
pub fn parse_npy_batch(bytes: &[u8]) -> Result<Vec<Matrix>> {
    npy::read_batch(Path::new("<npy bytes>"), bytes)
}

/// Parse Matrix Market bytes (UTF-8 text).
pub fn parse_mtx(bytes: &[u8]) -> Result<Matrix> {
    parse_as(Format::Mtx, Path::new("<mtx bytes>"), bytes)
}

/// Parse CSV bytes (UTF-8 text).
pub fn parse_csv(bytes: &[u8]) -> Result<Matrix> {
    parse_as(Format::Csv, Path::new("<csv bytes>"), bytes)
}

fn parse_as(format: Format, path: &Path, bytes: &[u8]) -> Result<Matrix> {
    match format {
        Format::Npy => npy::read_matrix(path, bytes),
        Format::Mtx => mtx::parse(path, as_text(path, bytes)?),
        Format::Csv => csv::parse(path, as_text(path, bytes)?),
    }
}

fn parse_batch_as(format: Format, path: &Path, bytes: &[u8]) -> Result<Vec<Matrix>> {
    match format {
        Format::Npy => npy::read_batch(path, bytes),
        Format::Mtx | Format::Csv => Ok(vec![parse_as(format, path, bytes)?]),
    }
}

/// Write a matrix atomically, choosing the format by extension (.npy, .mtx, .csv).
///
/// .npy is written as little-endian float32 (`<f4`) in C order; .mtx as a dense
/// `%%MatrixMarket matrix array real general` file (column-major, as the format requires); .csv as
/// one row per line. Text formats print every value so that it reads back to the same `f32`.
pub fn write_matrix(path: &Path, m: &Matrix) -> Result<()> {
    let format = format_of(path)?;
    if m.rows.checked_mul(m.cols) != Some(m.data.len()) {
        return Err(Error::Invalid(format!(
            "cannot write {}: matrix data has {} elements but its shape is {}x{}",
            path.display(),
            m.data.len(),
            m.rows,
            m.cols
        )));
    }
    write_atomic(path, |w| {
        let written = match format {
            Format::Npy => npy::write(w, m),
            Format::Mtx => mtx::write(w, m),
            Format::Csv => csv::write(w, m),
        };
        written.map_err(|e| Error::io(path, e))
    })
}

/// Write same-shaped matrices atomically as one 3-D .npy array (batch, rows, cols), the layout
/// [`read_batch`] reads.
pub fn write_batch(path: &Path, ms: &[Matrix]) -> Result<()> {
    if format_of(path)? != Format::Npy {
        return Err(Error::format(
            path,
            "a batch of matrices can only be written as .npy",
        ));
    }
    if let Some(m) = ms
        .iter()
        .find(|m| m.shape() != ms[0].shape() || m.rows * m.cols != m.data.len())
    {
        return Err(Error::Invalid(format!(
            "cannot write {}: the batch mixes shapes ({}x{} and {}x{})",
            path.display(),
            ms[0].rows,
            ms[0].cols,
            m.rows,
            m.cols
        )));
    }
    write_atomic(path, |w| {
        npy::write_batch(w, ms).map_err(|e| Error::io(path, e))
    })
}

/// Removes the temporary file when dropped, unless disarmed after a successful rename. Covers
/// early returns and panics inside `fill` alike.
struct TempGuard {
    path: Option<PathBuf>,
}

impl Drop for TempGuard {
    fn drop(&mut self) {
        if let Some(p) = self.path.take() {
            let _ = fs::remove_file(p);
        }
    }
}

/// Write a file atomically: `fill` writes into a temporary file beside `path`, which is renamed
/// onto `path` only if `fill` succeeds; on failure the temporary file is removed.
///
/// The temporary file is `.{file name}.tmp-{pid}-{counter}` in the same directory, so the rename
/// never crosses file systems. The data is flushed and synced before the rename; an existing file
/// at `path` is replaced.
pub fn write_atomic(
    path: &Path,
    fill: impl FnOnce(&mut dyn std::io::Write) -> Result<()>,
) -> Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);

    let name = path.file_name().ok_or_else(|| {
        Error::Invalid(format!(
            "cannot write '{}': it does not name a file",
            path.display()
        ))
    })?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp-{}-{n}", std::process::id()));
    let tmp = dir.join(tmp_name);

    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(|e| Error::io(path, e))?;
    let mut guard = TempGuard {
        path: Some(tmp.clone()),
    };

    let mut writer = BufWriter::with_capacity(1 << 16, file);
    fill(&mut writer)?;
    let file: File = writer
        .into_inner()
        .map_err(|e| Error::io(path, e.into_error()))?;
    file.sync_all().map_err(|e| Error::io(path, e))?;
    drop(file);
    fs::rename(&tmp, path).map_err(|e| Error::io(path, e))?;
    guard.path = None;

    // Make the rename itself durable where the platform allows it; failure here is harmless.
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Format an `f32` so that parsing the text gives back the same value: the shortest round-trip
/// digits, in exponent form for very small or very large magnitudes so that the text stays short.
pub(crate) fn fmt_f32(v: f32, out: &mut String) {
    use std::fmt::Write as _;
    let a = v.abs();
    let _ = if a != 0.0 && a.is_finite() && !(1e-5..1e16).contains(&a) {
        write!(out, "{v:e}")
    } else {
        write!(out, "{v}")
    };
}

/// A short, quoted, single-line excerpt of untrusted text for error messages.
pub(crate) fn snippet(s: &str) -> String {
    const MAX: usize = 40;
    let mut t: String = s.chars().take(MAX).collect();
    if s.chars().nth(MAX).is_some() {
        t.push('…');
    }
    format!("{t:?}")
}
