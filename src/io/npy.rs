//! NumPy .npy files. The header is parsed by `npyz` after our own checks, which keep hostile
//! headers (huge, deeply nested, arithmetic in literals, non-ASCII escapes, overflowing shapes) away
//! from code paths that could allocate without bound or panic. The data is decoded here.

use super::{Dtype, snippet};
use crate::error::{Error, Result};
use crate::matrix::Matrix;
use npyz::{DType, Endianness, NpyFile, Order, TypeChar};
use std::path::Path;

const MAGIC: &[u8] = b"\x93NUMPY";
/// Longest header text accepted. NumPy itself refuses headers over 10,000 bytes by default.
const MAX_HEADER_LEN: usize = 1 << 16;
/// Deepest bracket nesting accepted in the header (NumPy writes 2 for plain arrays).
const MAX_NESTING: usize = 16;

/// A decoded array: its shape, its elements in C order as `f32`, and the type they were stored
/// in.
struct Array {
    shape: Vec<usize>,
    data: Vec<f32>,
    dtype: Dtype,
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
    match a.shape[..] {
        [rows, cols] => Ok((
            Matrix {
                rows,
                cols,
                data: a.data,
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
    let dtype = a.dtype;
    let batch = match a.shape[..] {
        [rows, cols] => Ok(vec![Matrix {
            rows,
            cols,
            data: a.data,
        }]),
        [batch, rows, cols] => {
            // Exact whenever batch > 0: the total was checked against the file length.
            let per = rows.saturating_mul(cols);
            let mut out = Vec::with_capacity(batch);
            if per == 0 {
                out.extend((0..batch).map(|_| Matrix {
                    rows,
                    cols,
                    data: Vec::new(),
                }));
            } else {
                out.extend(a.data.chunks_exact(per).map(|c| Matrix {
                    rows,
                    cols,
                    data: c.to_vec(),
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

/// A NumPy-style name for a dtype, for error messages.
fn dtype_name(dtype: &DType) -> String {
    match dtype {
        DType::Plain(ts) => {
            let bits = ts.size_field().saturating_mul(8);
            match ts.type_char() {
                TypeChar::Bool => "bool".into(),
                TypeChar::Int => format!("int{bits}"),
                TypeChar::Uint => format!("uint{bits}"),
                TypeChar::Float => format!("float{bits}"),
                TypeChar::Complex => format!("complex{bits}"),
                TypeChar::TimeDelta => "timedelta64".into(),
                TypeChar::DateTime => "datetime64".into(),
                TypeChar::ByteStr => format!("bytes '{ts}'"),
                TypeChar::UnicodeStr => format!("str '{ts}'"),
                _ => format!("'{ts}'"),
            }
        }
        other => format!("structured {}", snippet(&other.descr())),
    }
}

/// Reject header text outside the plain subset NumPy writes, before `npyz` sees it: ASCII only, no
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

/// The `'shape': (...)` tuple of the header, found without `npyz` so that its size can be checked
/// before `npyz` multiplies the dimensions together.
fn scan_shape(text: &str) -> Option<Vec<u64>> {
    for key in ["'shape'", "\"shape\""] {
        for (pos, _) in text.match_indices(key) {
            let Some(rest) = text[pos + key.len()..].trim_start().strip_prefix(':') else {
                continue;
            };
            let rest = rest.trim_start();
            let close = match rest.as_bytes().first()? {
                b'(' => ')',
                b'[' => ']',
                _ => return None,
            };
            let end = rest.find(close)?;
            let mut dims = Vec::new();
            for part in rest[1..end].split(',') {
                let p = part.trim();
                if !p.is_empty() {
                    dims.push(p.parse::<u64>().ok()?);
                }
            }
            return Some(dims);
        }
    }
    None
}

fn decode(path: &Path, bytes: &[u8]) -> Result<Array> {
    let err = |msg: String| Error::format(path, msg);

    // Preamble: magic, version, header length.
    if bytes.len() < 8 || &bytes[..6] != MAGIC {
        return Err(err(if bytes.is_empty() {
            "the file is empty; expected a .npy array".into()
        } else {
            "not a .npy file (it does not start with the \\x93NUMPY magic)".into()
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
    let available = bytes.len() - text_start;
    if header_len > available {
        return Err(err(format!(
            "truncated .npy file: the header declares {header_len} bytes of text but only {available} follow"
        )));
    }
    if header_len > MAX_HEADER_LEN {
        return Err(err(format!(
            "the .npy header is {header_len} bytes, over the {MAX_HEADER_LEN}-byte limit"
        )));
    }
    let data_start = text_start + header_len;
    let text_bytes = &bytes[text_start..data_start];
    check_header_text(text_bytes).map_err(err)?;
    // Cannot fail after check_header_text (ASCII only), but stay total.
    let text = std::str::from_utf8(text_bytes)
        .map_err(|_| err("the .npy header is not ASCII text".into()))?;

    let declared = scan_shape(text).ok_or_else(|| {
        err(format!(
            "the .npy header has no 'shape' tuple of non-negative integers: {}",
            snippet(text.trim())
        ))
    })?;
    // Every partial product of the nonzero dimensions must fit (npyz computes strides from them).
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

    // npyz's parse errors draw the header over several lines with a caret; keep the first line
    // (it names the position) and a short excerpt, so the error stays one line.
    let npy = NpyFile::new(bytes).map_err(|e| {
        let e = e.to_string();
        let first = e.lines().next().unwrap_or("").trim();
        err(format!(
            "invalid .npy header {}: {}",
            snippet(text.trim()),
            first.split_whitespace().collect::<Vec<_>>().join(" ")
        ))
    })?;
    let header = npy.header();
    if header.shape() != declared.as_slice() {
        return Err(err(format!(
            "could not read the shape in the .npy header {}",
            snippet(text.trim())
        )));
    }

    let dtype = header.dtype();
    let unsupported = || {
        err(format!(
            "unsupported dtype {}; use float32 or float64",
            dtype_name(&dtype)
        ))
    };
    let DType::Plain(ts) = &dtype else {
        return Err(unsupported());
    };
    let width = match (ts.type_char(), ts.size_field()) {
        (TypeChar::Float, 4) => 4usize,
        (TypeChar::Float, 8) => 8,
        _ => return Err(unsupported()),
    };
    let big_endian = ts.endianness() == Endianness::Big;

    if header.order() == Order::Fortran && declared.iter().filter(|&&d| d > 1).count() > 1 {
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
    let data = &bytes[data_start..];
    let count = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    let needed = count.and_then(|c| c.checked_mul(width));
    let (Some(count), Some(needed)) = (count, needed) else {
        return Err(err(format!(
            "the .npy shape {} is too large to be real",
            shape_str(&shape)
        )));
    };
    if data.len() < needed {
        return Err(err(format!(
            "truncated .npy file: shape {} of {} needs {needed} data bytes but only {} follow the header",
            shape_str(&shape),
            dtype_name(&dtype),
            data.len()
        )));
    }
    if data.len() > needed {
        return Err(err(format!(
            "the .npy file has {} unexpected bytes after the {needed} data bytes of shape {} {}",
            data.len() - needed,
            shape_str(&shape),
            dtype_name(&dtype)
        )));
    }

    let mut out = Vec::with_capacity(count);
    if width == 4 {
        out.extend(data.chunks_exact(4).map(|c| {
            let b = [c[0], c[1], c[2], c[3]];
            if big_endian {
                f32::from_be_bytes(b)
            } else {
                f32::from_le_bytes(b)
            }
        }));
    } else {
        out.extend(data.chunks_exact(8).map(|c| {
            let b = [c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]];
            (if big_endian {
                f64::from_be_bytes(b)
            } else {
                f64::from_le_bytes(b)
            }) as f32
        }));
    }
    let dtype = if width == 4 { Dtype::F32 } else { Dtype::F64 };
    Ok(Array {
        shape,
        data: out,
        dtype,
    })
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
