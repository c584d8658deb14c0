//! Matrix files: .npy (f32/f64, C order), Matrix Market (.mtx, dense `array` and `coordinate`) and
//! CSV, chosen by extension. Writes go to a temporary file that is renamed into place, so a failed
//! run never leaves a partial output; a read-only file is never replaced (as `cp` without `-f`),
//! and [`check_output`] tells before any work whether a path can be written at all.
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

/// The number type of a .npy file's elements. Matrices are held and computed in `f32`; a
/// float64 file is rounded to `f32` on reading and can be written back as float64.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Dtype {
    /// float32 (`<f4`), what rendermm computes in.
    #[default]
    F32,
    /// float64 (`<f8`).
    F64,
}

impl Dtype {
    /// NumPy's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "float32",
            Dtype::F64 => "float64",
        }
    }
}

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

/// Read a matrix as [`read_matrix`] does, and say whether it was stored as float64: `Some` of
/// the .npy dtype, `None` for the text formats (their numbers are read as `f32`).
pub fn read_matrix_typed(path: &Path) -> Result<(Matrix, Option<Dtype>)> {
    let format = format_of(path)?;
    let bytes = read_bytes(path)?;
    match format {
        Format::Npy => npy::read_matrix(path, &bytes).map(|(m, d)| (m, Some(d))),
        _ => Ok((parse_as(format, path, &bytes)?, None)),
    }
}

/// Read a batch of matrices: a 3-D .npy array of shape (batch, rows, cols) gives `batch`
/// matrices; a 2-D .npy file, or any .mtx or .csv file, gives one.
pub fn read_batch(path: &Path) -> Result<Vec<Matrix>> {
    let format = format_of(path)?;
    parse_batch_as(format, path, &read_bytes(path)?)
}

/// Read a batch as [`read_batch`] does, with the .npy dtype as in [`read_matrix_typed`].
pub fn read_batch_typed(path: &Path) -> Result<(Vec<Matrix>, Option<Dtype>)> {
    let format = format_of(path)?;
    let bytes = read_bytes(path)?;
    match format {
        Format::Npy => npy::read_batch(path, &bytes).map(|(m, d)| (m, Some(d))),
        _ => Ok((parse_batch_as(format, path, &bytes)?, None)),
    }
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
    npy::read_matrix(Path::new("<npy bytes>"), bytes).map(|(m, _)| m)
}

/// Parse .npy bytes as a batch: a 3-D array gives one matrix per leading index, a 2-D one gives one.
pub fn parse_npy_batch(bytes: &[u8]) -> Result<Vec<Matrix>> {
    npy::read_batch(Path::new("<npy bytes>"), bytes).map(|(ms, _)| ms)
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
        Format::Npy => npy::read_matrix(path, bytes).map(|(m, _)| m),
        Format::Mtx => mtx::parse(path, as_text(path, bytes)?),
        Format::Csv => csv::parse(path, as_text(path, bytes)?),
    }
}

fn parse_batch_as(format: Format, path: &Path, bytes: &[u8]) -> Result<Vec<Matrix>> {
    match format {
        Format::Npy => npy::read_batch(path, bytes).map(|(ms, _)| ms),
        Format::Mtx | Format::Csv => Ok(vec![parse_as(format, path, bytes)?]),
    }
}

/// Write a matrix atomically, choosing the format by extension (.npy, .mtx, .csv).
///
/// .npy is written as little-endian float32 (`<f4`) in C order; .mtx as a dense
/// `%%MatrixMarket matrix array real general` file (column-major, as the format requires); .csv as
/// one row per line. Text formats print every value so that it reads back to the same `f32`.
pub fn write_matrix(path: &Path, m: &Matrix) -> Result<()> {
    write_matrix_as(path, m, Dtype::F32)
}

/// Write a matrix as [`write_matrix`] does, a .npy file with elements of `dtype` (the text
/// formats print the `f32` values whatever `dtype` says: they read back to the same numbers).
pub fn write_matrix_as(path: &Path, m: &Matrix, dtype: Dtype) -> Result<()> {
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
            Format::Npy => npy::write(w, m, dtype),
            Format::Mtx => mtx::write(w, m),
            Format::Csv => csv::write(w, m),
        };
        written.map_err(|e| Error::io(path, e))
    })
}

/// Write same-shaped matrices atomically as one 3-D .npy array (batch, rows, cols), the layout
/// [`read_batch`] reads.
pub fn write_batch(path: &Path, ms: &[Matrix]) -> Result<()> {
    write_batch_as(path, ms, Dtype::F32)
}

/// Write a batch as [`write_batch`] does, with elements of `dtype`.
pub fn write_batch_as(path: &Path, ms: &[Matrix], dtype: Dtype) -> Result<()> {
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
        npy::write_batch(w, ms, dtype).map_err(|e| Error::io(path, e))
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
/// at `path` is replaced unless it is read-only (then nothing is written: like `cp` without
/// `-f`, a read-only file is refused, even to a user whose rights would allow the rename).
pub fn write_atomic(
    path: &Path,
    fill: impl FnOnce(&mut dyn std::io::Write) -> Result<()>,
) -> Result<()> {
    let (dir, _) = split_output(path)?;
    check_replaceable(path)?;
    let tmp = temp_beside(path, "tmp")?;

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

/// The folder and file name of an output path (the folder `.` for a bare name).
fn split_output(path: &Path) -> Result<(&Path, &std::ffi::OsStr)> {
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
    Ok((dir, name))
}

/// `.{file name}.{tag}-{pid}-{counter}` beside `path`.
fn temp_beside(path: &Path, tag: &str) -> Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let (dir, name) = split_output(path)?;
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{tag}-{}-{n}", std::process::id()));
    Ok(dir.join(tmp_name))
}

fn output_error(path: &Path, kind: std::io::ErrorKind, message: String) -> Error {
    Error::io(path, std::io::Error::new(kind, message))
}

/// Error if `path` exists and may not be replaced: a folder, or a read-only file.
fn check_replaceable(path: &Path) -> Result<()> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(path, e)),
    };
    if meta.is_dir() {
        return Err(output_error(
            path,
            std::io::ErrorKind::IsADirectory,
            "is a directory; give a file name for the output".into(),
        ));
    }
    if meta.permissions().readonly() {
        return Err(output_error(
            path,
            std::io::ErrorKind::PermissionDenied,
            "the file is read-only; refusing to replace it (make it writable or remove it first)"
                .into(),
        ));
    }
    Ok(())
}

/// Check before any work that a result can be written to `path`: its folder exists and accepts
/// new files (a file is created there and removed again), and an existing file at `path` is
/// neither a folder nor read-only. Writes through [`write_atomic`] refuse the same cases; this
/// only tells sooner, before the ten seconds of computing that would be lost.
pub fn check_output(path: &Path) -> Result<()> {
    let (dir, _) = split_output(path)?;
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(output_error(
                path,
                std::io::ErrorKind::NotADirectory,
                format!("{} is not a directory", dir.display()),
            ));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(output_error(
                path,
                std::io::ErrorKind::NotFound,
                format!("the directory {} does not exist", dir.display()),
            ));
        }
        Err(e) => return Err(Error::io(path, e)),
    }
    check_replaceable(path)?;
    let probe = temp_beside(path, "probe")?;
    match OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(f) => {
            drop(f);
            let _ = fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(output_error(
            path,
            e.kind(),
            format!("cannot create files in {}: {e}", dir.display()),
        )),
    }
}

/// [`check_output`] for a matrix file: also its extension names a format this module writes,
/// and a batch (`batch`, more than one matrix) goes to .npy.
pub fn check_matrix_output(path: &Path, batch: bool) -> Result<()> {
    check_replaceable(path)?;
    let format = format_of(path)?;
    if batch && format != Format::Npy {
        return Err(Error::format(
            path,
            "a batch of matrices can only be written as .npy",
        ));
    }
    check_output(path)
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
