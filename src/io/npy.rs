//! NumPy .npy files, header and data both read here. The header is the subset of a Python
//! literal that NumPy writes (a dict of `descr`, `fortran_order` and `shape`, with quoted
//! strings, `True`/`False` and tuples of integers; [`header`]), not Python's whole grammar: a
//! small parser keeps the browser build small, and hostile headers (huge, deeply nested,
//! arithmetic in literals, non-ASCII escapes, overflowing shapes) are refused with one line
//! before anything is allocated for them.

mod header;

use super::Dtype;
use crate::error::{Error, Result};
use crate::matrix::Matrix;
use header::Descr;
use std::io::Read;
use std::path::Path;

const MAGIC: &[u8] = b"\x93NUMPY";
/// Longest header text accepted. NumPy itself refuses headers over 10,000 bytes by default.
const MAX_HEADER_LEN: usize = 1 << 16;
/// Deepest bracket nesting accepted in the header (NumPy writes 2 for plain arrays).
const MAX_NESTING: usize = 16;

/// A decoded array: its shape, its elements in C order as `f32`, and the type they were stored
/// in.
pub(super) struct Array {
    pub(super) shape: Vec<usize>,
    pub(super) data: Vec<f32>,
    pub(super) dtype: Dtype,
    /// A float64 file holding a finite value past f32's range (which `data` holds as an
    /// infinity): the first such element (row-major index, value), and every value as stored.
    pub(super) past_f32: Option<(usize, f64, Vec<f64>)>,
}

/// What a header says: the shape, the element width and byte order, and where the data starts.
struct Header {
    shape: Vec<usize>,
    dtype: Descr,
    width: usize,
    big_endian: bool,
    data_start: usize,
    /// Data bytes the shape and dtype call for.
    needed: usize,
}

fn shape_str<T: std::fmt::Display>(shape: &[T]) -> String {
    match shape {
        [d] => format!("({d},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A matrix from a 2-D array, and the type its elements were stored in.
pub(super) fn read_matrix(path: &Path, bytes: &[u8]) -> Result<(Matrix, Dtype)> {
    let a = decode(path, bytes)?;
    refuse_past_f32(path, &a)?;
    matrix_of(path, a)
}

/// Error if the array holds a finite value that f32 cannot (it would become an infinity).
pub(super) fn refuse_past_f32(path: &Path, a: &Array) -> Result<()> {
    match &a.past_f32 {
        Some((idx, v, _)) => Err(Error::format(
            path,
            format!(
                "{}: {v:e} is past f32's range (largest ≈3.4e38), which rendermm computes in",
                position(&a.shape, *idx)
            ),
        )),
        None => Ok(()),
    }
}

/// `row r, column c` (from 0, as the non-finite errors count) of a row-major index; with the
/// matrix too for a batch.
fn position(shape: &[usize], idx: usize) -> String {
    let cols = shape.last().copied().unwrap_or(1).max(1);
    let rows = if shape.len() >= 2 {
        shape[shape.len() - 2].max(1)
    } else {
        1
    };
    let (r, c) = ((idx / cols) % rows, idx % cols);
    if shape.len() == 3 {
        format!("matrix {}, row {r}, column {c}", idx / (rows * cols))
    } else {
        format!("row {r}, column {c}")
    }
}

/// A matrix from a decoded 2-D array.
pub(super) fn matrix_of(path: &Path, a: Array) -> Result<(Matrix, Dtype)> {
    match a.shape[..] {
        [rows, cols] => Ok((
            Matrix {
                rows,
                cols,
                data: a.data.into(),
            },
            a.dtype,
        )),
        _ => Err(Error::format(
            path,
            format!(
                "expected a 2-D array (rows, cols) but the .npy array is {}-D with shape {}",
                a.shape.len(),
                shape_str(&a.shape)
            ),
        )),
    }
}

/// One matrix from a 2-D array, or `batch` matrices from a 3-D array (batch, rows, cols), and
/// the type their elements were stored in.
pub(super) fn read_batch(path: &Path, bytes: &[u8]) -> Result<(Vec<Matrix>, Dtype)> {
    let a = decode(path, bytes)?;
    refuse_past_f32(path, &a)?;
    batch_of(path, a)
}

/// One matrix from a decoded 2-D array, or one per leading index of a 3-D one.
pub(super) fn batch_of(path: &Path, a: Array) -> Result<(Vec<Matrix>, Dtype)> {
    let dtype = a.dtype;
    let batch = match a.shape[..] {
        [rows, cols] => Ok(vec![Matrix {
            rows,
            cols,
            data: a.data.into(),
        }]),
        [batch, rows, cols] => {
            // Exact whenever batch > 0: the total was checked against the file length.
            let per = rows.saturating_mul(cols);
            let mut out = Vec::with_capacity(batch);
            if per == 0 {
                out.extend((0..batch).map(|_| Matrix {
                    rows,
                    cols,
                    data: Vec::new().into(),
                }));
            } else {
                out.extend(a.data.chunks_exact(per).map(|c| Matrix {
                    rows,
                    cols,
                    data: c.to_vec().into(),
                }));
            }
            Ok(out)
        }
        _ => Err(Error::format(
            path,
            format!(
                "expected a 2-D array (rows, cols) or a 3-D batch (batch, rows, cols) but the .npy array is {}-D with shape {}",
                a.shape.len(),
                shape_str(&a.shape)
            ),
        )),
    }?;
    Ok((batch, dtype))
}

/// Reject header text outside the plain subset NumPy writes, before it is parsed: ASCII only, no
/// backslash escapes, and outside string literals only names, digits, brackets, commas, colons and
/// whitespace (so no `+`/`-` arithmetic or floats), with bounded nesting.
fn check_header_text(text: &[u8]) -> std::result::Result<(), String> {
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    for &b in text {
        if !(b.is_ascii_graphic() || b == b' ' || b == b'\t' || b == b'\n' || b == b'\r') {
            return Err(format!(
                "the .npy header contains the byte 0x{b:02x}; expected plain ASCII text"
            ));
        }
        if b == b'\\' {
            return Err(
                "the .npy header contains a backslash escape, which NumPy never writes".into(),
            );
        }
        if let Some(q) = quote {
            if b == q {
                quote = None;
            }
            continue;
        }
        match b {
            b'\'' | b'"' => quote = Some(b),
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(format!(
                        "the .npy header nests brackets more than {MAX_NESTING} deep"
                    ));
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b if b.is_ascii_alphanumeric()
                || b.is_ascii_whitespace()
                || b == b'_'
                || b == b','
                || b == b':' => {}
            _ => {
                return Err(format!(
                    "the .npy header has an unexpected '{}' outside a string; expected a dict like {{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }}",
                    b as char
                ));
            }
        }
    }
    Ok(())
}

/// The preamble (magic, version, header length) at the start of `bytes`: where the header text
/// starts and how long it is. `bytes` may be just the first 12 bytes of the file.
fn preamble(path: &Path, bytes: &[u8]) -> Result<(usize, usize)> {
    let err = |msg: String| Error::format(path, msg);
    let magic_len = bytes.len().min(MAGIC.len());
    if bytes.is_empty() {
        return Err(err("the file is empty; expected a .npy array".into()));
    }
    if bytes[..magic_len] != MAGIC[..magic_len] {
        return Err(err(
            "not a .npy file (it does not start with the \\x93NUMPY magic)".into(),
        ));
    }
    if bytes.len() < 8 {
        return Err(err(if bytes.len() < MAGIC.len() {
            format!(
                "truncated .npy file: it ends after {} bytes, inside the \\x93NUMPY magic",
                bytes.len()
            )
        } else {
            format!(
                "truncated .npy file: it ends after the \\x93NUMPY magic ({} bytes), before the format version and the header",
                bytes.len()
            )
        }));
    }
    let (major, minor) = (bytes[6], bytes[7]);
    let text_start = match major {
        1 => 10,
        2 | 3 => 12,
        _ => {
            return Err(err(format!(
                "unsupported .npy format version {major}.{minor}; expected 1.0, 2.0 or 3.0"
            )));
        }
    };
    if bytes.len() < text_start {
        return Err(err(format!(
            "truncated .npy file: only {} bytes, too short for a header",
            bytes.len()
        )));
    }
    let header_len = if major == 1 {
        u16::from_le_bytes([bytes[8], bytes[9]]) as usize
    } else {
        u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize
    };
    Ok((text_start, header_len))
}

/// Where the data starts, and the header's text: within the size limit, all there, and
/// ASCII.
fn header_text<'b>(path: &Path, bytes: &'b [u8]) -> Result<(usize, &'b str)> {
    let err = |msg: String| Error::format(path, msg);
    let (text_start, header_len) = preamble(path, bytes)?;
    if header_len > MAX_HEADER_LEN {
        return Err(err(format!(
            "the .npy header is {header_len} bytes, over the {MAX_HEADER_LEN}-byte limit"
        )));
    }
    let available = bytes.len() - text_start;
    if header_len > available {
        return Err(err(format!(
            "truncated .npy file: the header declares {header_len} bytes of text but only {available} follow"
        )));
    }
    let data_start = text_start + header_len;
    let text_bytes = &bytes[text_start..data_start];
    check_header_text(text_bytes).map_err(err)?;
    // Cannot fail after check_header_text (ASCII only), but stay total.
    let text = std::str::from_utf8(text_bytes)
        .map_err(|_| err("the .npy header is not ASCII text".into()))?;
    Ok((data_start, text))
}

/// The bytes per element of a float32 or float64 dtype and whether it is big-endian (`=`, `|`
/// and no order character mean this machine's order, as NumPy reads them); the message for any
/// other dtype.
fn float_width(dtype: &Descr) -> std::result::Result<(usize, bool), String> {
    let unsupported = || format!("unsupported dtype {}; use float32 or float64", dtype.name());
    let Descr::Plain(ts) = dtype else {
        return Err(unsupported());
    };
    let width = match (ts.kind, ts.size) {
        (b'f', Some(4)) => 4usize,
        (b'f', Some(8)) => 8,
        _ => return Err(unsupported()),
    };
    let big_endian = match ts.order {
        b'>' => true,
        b'<' => false,
        _ => cfg!(target_endian = "big"),
    };
    Ok((width, big_endian))
}

/// Parse the header at the start of `bytes` (which must hold at least the whole header; the
/// data may follow or not).
fn parse_header(path: &Path, bytes: &[u8]) -> Result<Header> {
    let err = |msg: String| Error::format(path, msg);
    let (data_start, text) = header_text(path, bytes)?;

    let dict = header::parse(text, MAX_NESTING).map_err(err)?;
    let declared = dict.shape;
    // Every partial product of the nonzero dimensions must fit: no real array, empty or not,
    // has more elements along its other dimensions than u64 can count.
    let nonzero_product = declared
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1u64, |acc, &d| acc.checked_mul(d));
    if nonzero_product.is_none() {
        return Err(err(format!(
            "the .npy shape {} is too large to be real",
            shape_str(&declared)
        )));
    }

    let dtype = dict.descr;
    let (width, big_endian) = float_width(&dtype).map_err(err)?;

    if dict.fortran_order && declared.iter().filter(|&&d| d > 1).count() > 1 {
        return Err(err(
            "Fortran-order (column-major) .npy arrays are not supported; save a C-order array, e.g. numpy.save(path, numpy.ascontiguousarray(a))"
                .into(),
        ));
    }

    let shape: Vec<usize> = declared
        .iter()
        .map(|&d| usize::try_from(d))
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| {
            err(format!(
                "the .npy shape {} is too large for this platform",
                shape_str(&declared)
            ))
        })?;
    let count = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    let Some(needed) = count.and_then(|c| c.checked_mul(width)) else {
        return Err(err(format!(
            "the .npy shape {} is too large to be real",
            shape_str(&shape)
        )));
    };
    Ok(Header {
        shape,
        dtype,
        width,
        big_endian,
        data_start,
        needed,
    })
}

/// Error unless `have` data bytes are exactly what the header calls for.
fn check_data_len(path: &Path, h: &Header, have: u64) -> Result<()> {
    let needed = h.needed as u64;
    if have < needed {
        return Err(Error::format(
            path,
            format!(
                "truncated .npy file: shape {} of {} needs {needed} data bytes but only {have} follow the header",
                shape_str(&h.shape),
                h.dtype.name(),
            ),
        ));
    }
    if have > needed {
        return Err(Error::format(
            path,
            format!(
                "the .npy file has {} unexpected bytes after the {needed} data bytes of shape {} {}",
                have - needed,
                shape_str(&h.shape),
                h.dtype.name()
            ),
        ));
    }
    Ok(())
}

fn decode(path: &Path, bytes: &[u8]) -> Result<Array> {
    let h = parse_header(path, bytes)?;
    let data = &bytes[h.data_start..];
    check_data_len(path, &h, data.len() as u64)?;
    Ok(decode_data(h, data))
}

/// Read a .npy array from `r`, reading no more than its header promises (see [`read_raw`]).
pub(super) fn read_from(path: &Path, r: impl std::io::Read, len: Option<u64>) -> Result<Array> {
    decode(path, &read_raw(path, r, len)?)
}

/// The bytes of a .npy file from `r`, read no further than its header promises: the preamble,
/// then the header, then (once the header is understood, and `len`, the file's length where
/// known, agrees with it) exactly the data it calls for. A file that is not .npy costs a few
/// bytes of reading, whatever its size (`/dev/zero` included).
pub(super) fn read_raw(
    path: &Path,
    mut r: impl std::io::Read,
    len: Option<u64>,
) -> Result<Vec<u8>> {
    let io = |e| Error::io(path, e);
    let mut bytes = Vec::with_capacity(12);
    (&mut r).take(12).read_to_end(&mut bytes).map_err(io)?;
    let (text_start, header_len) = preamble(path, &bytes)?;
    if header_len <= MAX_HEADER_LEN {
        let want = (text_start + header_len).saturating_sub(bytes.len()) as u64;
        (&mut r).take(want).read_to_end(&mut bytes).map_err(io)?;
    }
    let h = parse_header(path, &bytes)?;
    if let Some(len) = len {
        check_data_len(path, &h, len.saturating_sub(h.data_start as u64))?;
    }
    bytes.try_reserve_exact(h.needed + 1).map_err(|_| {
        Error::format(
            path,
            format!(
                "the .npy shape {} needs {} bytes, more than this machine can hold",
                shape_str(&h.shape),
                h.needed
            ),
        )
    })?;
    // One byte past the data tells a stream (no known length) that has more.
    (&mut r)
        .take(h.needed as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    check_data_len(path, &h, (bytes.len() - h.data_start) as u64)?;
    Ok(bytes)
}

/// The elements of `data` (exactly `h.needed` bytes) as f32, noting a float64 value past f32's
/// range.
fn decode_data(h: Header, data: &[u8]) -> Array {
    let count = h.needed / h.width;
    let big_endian = h.big_endian;
    let mut out = Vec::with_capacity(count);
    let mut past_f32 = None;
    if h.width == 4 {
        out.extend(data.chunks_exact(4).map(|c| {
            let b = [c[0], c[1], c[2], c[3]];
            if big_endian {
                f32::from_be_bytes(b)
            } else {
                f32::from_le_bytes(b)
            }
        }));
    } else {
        let f64_at = |c: &[u8]| {
            let b = [c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]];
            if big_endian {
                f64::from_be_bytes(b)
            } else {
                f64::from_le_bytes(b)
            }
        };
        out.extend(data.chunks_exact(8).map(|c| f64_at(c) as f32));
        // A finite value that f32 rounds to an infinity: keep every value as stored.
        if let Some(idx) =
            (0..out.len()).find(|&i| out[i].is_infinite() && f64_at(&data[8 * i..]).is_finite())
        {
            let wide: Vec<f64> = data.chunks_exact(8).map(f64_at).collect();
            past_f32 = Some((idx, wide[idx], wide));
        }
    }
    let dtype = if h.width == 4 { Dtype::F32 } else { Dtype::F64 };
    Array {
        shape: h.shape,
        data: out,
        dtype,
        past_f32,
    }
}

/// Write a 2-D little-endian C-order array of `dtype` (format version 1.0).
pub(super) fn write(w: &mut dyn std::io::Write, m: &Matrix, dtype: Dtype) -> std::io::Result<()> {
    write_array(w, &format!("({}, {})", m.rows, m.cols), &[m], dtype)
}

/// Write same-shaped matrices as one 3-D array (batch, rows, cols) of `dtype`.
pub(super) fn write_batch(
    w: &mut dyn std::io::Write,
    ms: &[Matrix],
    dtype: Dtype,
) -> std::io::Result<()> {
    let (rows, cols) = ms.first().map_or((0, 0), |m| m.shape());
    let refs: Vec<&Matrix> = ms.iter().collect();
    write_array(w, &format!("({}, {rows}, {cols})", ms.len()), &refs, dtype)
}

fn write_array(
    w: &mut dyn std::io::Write,
    shape: &str,
    ms: &[&Matrix],
    dtype: Dtype,
) -> std::io::Result<()> {
    let descr = match dtype {
        Dtype::F32 => "<f4",
        Dtype::F64 => "<f8",
    };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    // Magic (6) + version (2) + length (2) + dict + padding + '\n' is a multiple of 64.
    let unpadded = 10 + dict.len() + 1;
    let total = unpadded.div_ceil(64) * 64;
    let mut header = Vec::with_capacity(total);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&[1, 0]);
    let text_len = total - 10;
    let text_len16 = u16::try_from(text_len).map_err(|_| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "npy header too long")
    })?;
    header.extend_from_slice(&text_len16.to_le_bytes());
    header.extend_from_slice(dict.as_bytes());
    header.resize(total - 1, b' ');
    header.push(b'\n');
    w.write_all(&header)?;

    let mut buf = Vec::with_capacity(1 << 16);
    for chunk in ms.iter().flat_map(|m| m.data.chunks(1 << 14)) {
        buf.clear();
        for &v in chunk {
            match dtype {
                Dtype::F32 => buf.extend_from_slice(&v.to_le_bytes()),
                Dtype::F64 => buf.extend_from_slice(&f64::from(v).to_le_bytes()),
            }
        }
        w.write_all(&buf)?;
    }
    Ok(())
}
