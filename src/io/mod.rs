//! Matrix files: .npy (f32/f64, C order), Matrix Market (.mtx, dense `array` and `coordinate`) and
//! CSV, chosen by extension. Writes go to a temporary file that is renamed into place, so a failed
//! or interrupted run never leaves a partial output; a device or pipe is written in place, never
//! replaced; a read-only file, or one this user may not write, is never replaced; and
//! [`check_output`](crate::io::check_output) tells before any work whether a path can be written at all (see `output.rs`).
//!
//! Readers never panic on malformed input: every problem comes back as a one-line
//! [`Error::Format`] naming what was wrong (and the line, for the text formats). A .npy file is
//! read no further than its header promises, and its sizes are checked against the file's length
//! before anything is allocated; a text file is refused at the first chunk that is not text. A
//! finite number past f32's range is named as such, never silently made an infinity.

mod csv;
mod mtx;
mod npy;
mod output;
#[cfg(target_os = "linux")]
mod signals;

pub use output::{
    check_output, check_output_folder, is_device_or_pipe, refuse_same_file, same_file, write_atomic,
};

/// Remove the temporary files of unfinished writes on every signal whose default action ends the
/// process (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ, SIGXCPU, SIGALRM, SIGUSR1, SIGABRT, the
/// real-time signals, ...; not SIGKILL, which no handler sees), then end the process by that
/// signal as it would have ended. A signal that is ignored (`nohup`; SIGPIPE, which Rust's
/// runtime ignores) or has someone else's handler is left alone. For programs (the `rendermm`
/// binary calls it first thing); a library user keeps its own signal handling unless it calls
/// this.
pub fn install_signal_cleanup() {
    #[cfg(target_os = "linux")]
    signals::install();
}

/// Remove the temporary files of the writes under way now, as the signal handler does. For a
/// panic hook that ends the process with `std::process::exit` (no unwinding, so no write's own
/// guard runs): call it there, just before the exit, and a panic in the middle of a write leaves
/// no temporary file either. Only async-signal-safe calls.
pub fn remove_unfinished_temporaries() {
    #[cfg(target_os = "linux")]
    signals::remove_all();
}

use crate::error::{Error, Result};
use crate::matrix::Matrix;
use std::fs;
use std::path::Path;

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

/// The format of an output: by extension, and CSV for a character device or FIFO named
/// without one (`/dev/stdout`, `/dev/null`), where text is what a reader at the other end can use.
fn output_format_of(path: &Path) -> Result<Format> {
    if path.extension().is_none() && output::is_device_or_pipe(path) {
        return Ok(Format::Csv);
    }
    format_of(path)
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

/// Bytes of text read at a time: a file that is no text (a NUL byte, bytes that are not UTF-8) is
/// refused after the first of them, whatever its size.
const TEXT_CHUNK: usize = 1 << 20;

/// Open `path` for reading, with its length where it is a regular file.
fn open_input(path: &Path) -> Result<(fs::File, Option<u64>)> {
    let file = fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    if meta.is_dir() {
        return Err(Error::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                "is a directory; expected a matrix file",
            ),
        ));
    }
    Ok((file, meta.is_file().then_some(meta.len())))
}

/// A .npy file, read no further than its header promises.
fn read_npy(path: &Path) -> Result<npy::Array> {
    let (file, len) = open_input(path)?;
    npy::read_from(path, std::io::BufReader::new(file), len)
}

/// The bytes of a file read by extension as the matrix readers read it (a .npy file no further
/// than its header promises, anything else as text, refused at the first chunk that is not), for
/// a reader of its own such as the graph reader's edge lists.
pub fn read_input(path: &Path) -> Result<Vec<u8>> {
    let is_npy = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"));
    if is_npy {
        let (file, len) = open_input(path)?;
        npy::read_raw(path, std::io::BufReader::new(file), len)
    } else {
        read_text(path)
    }
}

/// A text file, read a chunk at a time and refused at the first chunk that is not text (a NUL
/// byte, which no matrix text holds, or bytes that are not UTF-8): `/dev/zero` named `x.csv`
/// or gigabytes of zeros cost one chunk.
fn read_text(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let (mut file, len) = open_input(path)?;
    let mut bytes = Vec::with_capacity(len.map_or(0, |l| l.min(TEXT_CHUNK as u64) as usize));
    let mut checked = 0usize;
    loop {
        let before = bytes.len();
        let n = (&mut file)
            .take(TEXT_CHUNK as u64)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(path, e))?;
        if let Some(at) = bytes[before..].iter().position(|&b| b == 0) {
            let line = 1 + bytes[..before + at].iter().filter(|&&b| b == b'\n').count();
            return Err(Error::format(
                path,
                format!("line {line}: a NUL byte; this is not a text file"),
            ));
        }
        if let Err(e) = std::str::from_utf8(&bytes[checked..]) {
            if e.error_len().is_some() {
                as_text(path, &bytes)?;
            }
            checked += e.valid_up_to();
        } else {
            checked = bytes.len();
        }
        if n == 0 {
            return Ok(bytes);
        }
    }
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
/// dimension are returned as they are; callers that need a non-empty matrix check for that. A
/// finite number past f32's range (1e300 in a float64 file, 1e39 in a text file) is refused:
/// it would become an infinity.
pub fn read_matrix(path: &Path) -> Result<Matrix> {
    read_matrix_typed(path).map(|(m, _)| m)
}

/// Read a matrix as [`read_matrix`] does, and say whether it was stored as float64: `Some` of
/// the .npy dtype, `None` for the text formats (their numbers are read as `f32`).
pub fn read_matrix_typed(path: &Path) -> Result<(Matrix, Option<Dtype>)> {
    match format_of(path)? {
        Format::Npy => {
            let a = read_npy(path)?;
            npy::refuse_past_f32(path, &a)?;
            npy::matrix_of(path, a).map(|(m, d)| (m, Some(d)))
        }
        format => Ok((parse_as(format, path, &read_text(path)?)?, None)),
    }
}

/// Read a batch of matrices: a 3-D .npy array of shape (batch, rows, cols) gives `batch`
/// matrices; a 2-D .npy file, or any .mtx or .csv file, gives one.
pub fn read_batch(path: &Path) -> Result<Vec<Matrix>> {
    read_batch_typed(path).map(|(ms, _)| ms)
}

/// Read a batch as [`read_batch`] does, with the .npy dtype as in [`read_matrix_typed`].
pub fn read_batch_typed(path: &Path) -> Result<(Vec<Matrix>, Option<Dtype>)> {
    let read = read_as_given(path, true)?;
    if let Some(e) = read.past_f32 {
        return Err(e);
    }
    Ok((read.matrices, read.dtype))
}

/// A matrix file as read, for a caller that decides itself what to do with numbers past f32's
/// range (`multiply --allow-nonfinite`).
pub struct AsGiven {
    /// The matrices in f32, what rendermm computes with (a value past f32's range is an
    /// infinity here).
    pub matrices: Vec<Matrix>,
    /// The .npy dtype; `None` for the text formats.
    pub dtype: Option<Dtype>,
    /// A float64 file with a finite value past f32's range: the error [`read_matrix`] gives for
    /// it (naming the first such element).
    pub past_f32: Option<Error>,
    /// In that case the values as stored, one `Vec` per matrix (row-major), from which the
    /// product of the inputs as given can be computed; `None` otherwise.
    pub values: Option<Vec<Vec<f64>>>,
}

/// Read a matrix (`batch`: a batch, as [`read_batch`]) keeping what f32 cannot hold: the values
/// of a float64 file past f32's range are kept as stored beside the f32 matrices, and the error
/// is handed back rather than returned. Text files refuse such numbers as [`read_matrix`] does.
pub fn read_as_given(path: &Path, batch: bool) -> Result<AsGiven> {
    let format = format_of(path)?;
    if format != Format::Npy {
        return Ok(AsGiven {
            matrices: vec![parse_as(format, path, &read_text(path)?)?],
            dtype: None,
            past_f32: None,
            values: None,
        });
    }
    let mut a = read_npy(path)?;
    let past_f32 = npy::refuse_past_f32(path, &a).err();
    let wide = a.past_f32.take().map(|(_, _, wide)| wide);
    let (matrices, dtype) = if batch {
        npy::batch_of(path, a)?
    } else {
        npy::matrix_of(path, a).map(|(m, d)| (vec![m], d))?
    };
    let values = wide.map(|w| {
        let per = matrices.first().map_or(0, |m| m.data.len()).max(1);
        w.chunks(per).map(<[f64]>::to_vec).collect()
    });
    Ok(AsGiven {
        matrices,
        dtype: Some(dtype),
        past_f32,
        values,
    })
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

/// Write a matrix atomically, choosing the format by extension (.npy, .mtx, .csv; CSV for a
/// device or pipe named without one, such as `/dev/stdout`).
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
    let format = output_format_of(path)?;
    if m.rows.checked_mul(m.cols) != Some(m.data.len()) {
        return Err(Error::Internal(format!(
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
    if output_format_of(path)? != Format::Npy {
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

/// [`check_output`] for a matrix file: also its extension names a format this module writes,
/// and a batch (`batch`, more than one matrix) goes to .npy.
pub fn check_matrix_output(path: &Path, batch: bool) -> Result<()> {
    output::check_existing(path)?;
    let format = output_format_of(path)?;
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

/// A number of a text file as `f32`, or what is wrong with it: not a number, or a finite number
/// past f32's range, which would become an infinity (`inf` and `nan` written as such are taken).
pub(crate) fn parse_f32(tok: &str) -> std::result::Result<f32, String> {
    let v: f32 = tok
        .parse()
        .map_err(|_| format!("{} is not a number", snippet(tok)))?;
    if v.is_infinite() {
        let word = tok.trim_start_matches(['+', '-']).to_ascii_lowercase();
        if word != "inf" && word != "infinity" {
            return Err(format!(
                "{} is past f32's range (largest ≈3.4e38), which rendermm computes in",
                snippet(tok)
            ));
        }
    }
    Ok(v)
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
