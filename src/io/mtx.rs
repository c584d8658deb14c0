//! Matrix Market (.mtx) files: dense `array` and sparse `coordinate` layouts of real, integer or
//! pattern matrices, general, symmetric or skew-symmetric. Sparse files are expanded to dense.

use super::{fmt_f32, parse_f32, snippet};
use crate::error::{Error, Result};
use crate::matrix::Matrix;
use std::path::Path;

/// Most elements a `coordinate` file may expand to (4 GiB of `f32`). Dense `array` files are
/// bounded by the file's own length instead.
const MAX_DENSE_ELEMENTS: usize = 1 << 30;

const HEADER_HINT: &str = "'%%MatrixMarket matrix <array|coordinate> <real|integer|pattern> <general|symmetric|skew-symmetric>'";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    Array,
    Coordinate,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Symmetry {
    General,
    Symmetric,
    Skew,
}

/// Parse a Matrix Market file into a dense matrix.
pub(super) fn parse(path: &Path, text: &str) -> Result<Matrix> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let Some((_, first)) = lines.next() else {
        return Err(Error::format(
            path,
            format!("the file is empty; expected a {HEADER_HINT} header"),
        ));
    };
    let header = header(path, first)?;
    // Everything after the header: comments ('%') and blank lines are skipped.
    let mut content = lines.filter(|(_, l)| {
        let t = l.trim_start();
        !t.is_empty() && !t.starts_with('%')
    });
    let size = size(path, &header, &mut content)?;
    match header.layout {
        Layout::Array => array(path, text.len(), &header, &size, content),
        Layout::Coordinate => coordinate(path, &header, &size, content),
    }
}

/// `line {line}: {msg}`, the error of a bad line.
fn at(path: &Path, line: usize, msg: String) -> Error {
    Error::format(path, format!("line {line}: {msg}"))
}

/// What the header line declares.
struct Header {
    layout: Layout,
    pattern: bool,
    /// The field is `integer`: every value must be a whole number.
    integer: bool,
    symmetry: Symmetry,
}

/// The size line: where it is, and the sizes it gives (`nnz` 0 for an array).
struct Size {
    line: usize,
    rows: usize,
    cols: usize,
    nnz: usize,
    /// rows × cols.
    dense: usize,
}

/// Read the `%%MatrixMarket matrix <format> <field> <symmetry>` header line.
fn header(path: &Path, first: &str) -> Result<Header> {
    let at = |line: usize, msg: String| at(path, line, msg);
    let words: Vec<&str> = first.split_whitespace().collect();
    if !words
        .first()
        .is_some_and(|w| w.eq_ignore_ascii_case("%%MatrixMarket"))
    {
        return Err(at(1, format!("missing the {HEADER_HINT} header")));
    }
    if words.len() != 5 {
        return Err(at(
            1,
            format!(
                "invalid header {}; expected {HEADER_HINT}",
                snippet(first.trim())
            ),
        ));
    }
    let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    if lower[1] != "matrix" {
        return Err(at(
            1,
            format!(
                "unsupported object '{}'; only 'matrix' is supported",
                words[1]
            ),
        ));
    }
    let layout = match lower[2].as_str() {
        "array" => Layout::Array,
        "coordinate" => Layout::Coordinate,
        _ => {
            return Err(at(
                1,
                format!(
                    "unknown format '{}'; expected 'array' or 'coordinate'",
                    words[2]
                ),
            ));
        }
    };
    let pattern = match lower[3].as_str() {
        "real" | "double" | "integer" => false,
        "pattern" => true,
        "complex" => {
            return Err(at(
                1,
                "complex matrices are not supported; use real values".into(),
            ));
        }
        _ => {
            return Err(at(
                1,
                format!(
                    "unknown field '{}'; expected 'real', 'integer' or 'pattern'",
                    words[3]
                ),
            ));
        }
    };
    let symmetry = match lower[4].as_str() {
        "general" => Symmetry::General,
        "symmetric" => Symmetry::Symmetric,
        "skew-symmetric" => Symmetry::Skew,
        "hermitian" => {
            return Err(at(
                1,
                "hermitian matrices are complex, which is not supported".into(),
            ));
        }
        _ => {
            return Err(at(
                1,
                format!(
                    "unknown symmetry '{}'; expected 'general', 'symmetric' or 'skew-symmetric'",
                    words[4]
                ),
            ));
        }
    };
    if pattern && layout == Layout::Array {
        return Err(at(
            1,
            "the 'pattern' field is only valid with the 'coordinate' format".into(),
        ));
    }
    Ok(Header {
        layout,
        pattern,
        integer: lower[3] == "integer",
        symmetry,
    })
}

/// Read the size line, the first line after the header that is not a comment.
fn size<'t>(
    path: &Path,
    header: &Header,
    content: &mut impl Iterator<Item = (usize, &'t str)>,
) -> Result<Size> {
    let at = |line: usize, msg: String| at(path, line, msg);
    let (layout, symmetry) = (header.layout, header.symmetry);
    let size_hint = match layout {
        Layout::Array => "'rows cols'",
        Layout::Coordinate => "'rows cols entries'",
    };
    let Some((size_line, size_text)) = content.next() else {
        return Err(Error::format(
            path,
            format!("the file ends before the {size_hint} size line"),
        ));
    };
    let size_words: Vec<&str> = size_text.split_whitespace().collect();
    let want = if layout == Layout::Array { 2 } else { 3 };
    if size_words.len() != want {
        return Err(at(
            size_line,
            format!(
                "expected the {size_hint} size line, found {}",
                snippet(size_text.trim())
            ),
        ));
    }
    let mut size = [0usize; 3];
    for (slot, w) in size.iter_mut().zip(&size_words) {
        *slot = w.parse().map_err(|_| {
            at(
                size_line,
                format!("size '{w}' in the {size_hint} size line is not a non-negative integer"),
            )
        })?;
    }
    let [rows, cols, nnz] = size;
    if symmetry != Symmetry::General && rows != cols {
        return Err(at(
            size_line,
            format!("a symmetric or skew-symmetric matrix must be square, but it is {rows}x{cols}"),
        ));
    }
    let too_big = || at(size_line, format!("the size {rows}x{cols} is too large"));
    let dense = rows.checked_mul(cols).ok_or_else(too_big)?;
    Ok(Size {
        line: size_line,
        rows,
        cols,
        nnz,
        dense,
    })
}

/// One value of the file: a number, and a whole one where the header's field is `integer`.
fn value(tok: &str, integer: bool) -> std::result::Result<f32, String> {
    if integer && tok.parse::<i64>().is_err() {
        return Err(format!(
            "value {} is not a whole number, and the header's field is 'integer' (write 'real' for fractions)",
            snippet(tok)
        ));
    }
    parse_f32(tok)
}

/// The values of an `array` file: column-major, all of them or one triangle.
fn array<'t>(
    path: &Path,
    file_len: usize,
    header: &Header,
    size: &Size,
    content: impl Iterator<Item = (usize, &'t str)>,
) -> Result<Matrix> {
    let at = |line: usize, msg: String| at(path, line, msg);
    let symmetry = header.symmetry;
    let (size_line, rows, cols, dense) = (size.line, size.rows, size.cols, size.dense);
    let too_big = || at(size_line, format!("the size {rows}x{cols} is too large"));
    // Column-major values: all of them, or the lower triangle (strictly lower when skew).
    let expected = match symmetry {
        Symmetry::General => Some(dense),
        Symmetry::Symmetric => rows
            .checked_add(1)
            .and_then(|r1| rows.checked_mul(r1))
            .map(|p| p / 2),
        Symmetry::Skew => rows.checked_mul(rows.saturating_sub(1)).map(|p| p / 2),
    }
    .ok_or_else(too_big)?;
    // Every entry takes at least two bytes, so this bounds the allocation by the file size.
    if expected > file_len {
        return Err(at(
            size_line,
            format!(
                "the size {rows}x{cols} needs {expected} values but the file has only {} bytes",
                file_len
            ),
        ));
    }
    let mut data = vec![0.0f32; dense];
    let first_row = |j: usize| match symmetry {
        Symmetry::General => 0,
        Symmetry::Symmetric => j,
        Symmetry::Skew => j + 1,
    };
    let (mut i, mut j) = (first_row(0), 0usize);
    let mut k = 0usize;
    for (line, l) in content {
        for tok in l.split_whitespace() {
            if k == expected {
                return Err(at(
                    line,
                    format!("more values than the {expected} that a {rows}x{cols} array holds"),
                ));
            }
            let v = value(tok, header.integer).map_err(|why| at(line, why))?;
            data[i * cols + j] = v;
            match symmetry {
                Symmetry::General => {}
                Symmetry::Symmetric => data[j * cols + i] = v,
                Symmetry::Skew => data[j * cols + i] = -v,
            }
            k += 1;
            i += 1;
            // Advance to the next column that has entries in the stored part.
            while i >= rows && j < cols {
                j += 1;
                i = first_row(j);
            }
        }
    }
    if k < expected {
        return Err(Error::format(
            path,
            format!(
                "the file ends after {k} of the {expected} values that the {rows}x{cols} array on line {size_line} needs"
            ),
        ));
    }
    Ok(Matrix {
        rows,
        cols,
        data: data.into(),
    })
}

/// The entries of a `coordinate` file, summed into a dense matrix.
fn coordinate<'t>(
    path: &Path,
    header: &Header,
    size: &Size,
    content: impl Iterator<Item = (usize, &'t str)>,
) -> Result<Matrix> {
    let at = |line: usize, msg: String| at(path, line, msg);
    let (pattern, symmetry) = (header.pattern, header.symmetry);
    let (size_line, rows, cols, nnz, dense) =
        (size.line, size.rows, size.cols, size.nnz, size.dense);
    if dense > MAX_DENSE_ELEMENTS {
        return Err(at(
            size_line,
            format!(
                "{rows}x{cols} is too large to hold as a dense matrix ({dense} elements, limit {MAX_DENSE_ELEMENTS})"
            ),
        ));
    }
    // Probe that the memory can be had (an error, not an abort, if not), then take it
    // zeroed: `vec![0.0; n]` asks the allocator for zeroed memory, which the OS maps
    // lazily, so a large declared size with few entries costs little until entries land
    // (a `resize` would write every byte of it first).
    let mut probe: Vec<f32> = Vec::new();
    probe.try_reserve_exact(dense).map_err(|_| {
        at(
            size_line,
            format!("not enough memory for a dense {rows}x{cols} matrix"),
        )
    })?;
    drop(probe);
    let mut data = vec![0.0f32; dense];
    let entry_hint = if pattern {
        "'row col'"
    } else {
        "'row col value'"
    };
    let fields = if pattern { 2 } else { 3 };
    let mut k = 0usize;
    for (line, l) in content {
        if k == nnz {
            return Err(at(
                line,
                format!("more entries than the {nnz} declared on line {size_line}"),
            ));
        }
        let words: Vec<&str> = l.split_whitespace().collect();
        if words.len() != fields {
            return Err(at(
                line,
                format!(
                    "expected an entry {entry_hint}, found {}",
                    snippet(l.trim())
                ),
            ));
        }
        let index = |w: &str, what: &str, n: usize| -> Result<usize> {
            let v: usize = w.parse().map_err(|_| {
                at(
                    line,
                    format!("{what} index {} is not a positive integer", snippet(w)),
                )
            })?;
            if v == 0 || v > n {
                return Err(at(
                    line,
                    format!("{what} index {v} is out of range 1..={n}"),
                ));
            }
            Ok(v - 1)
        };
        let i = index(words[0], "row", rows)?;
        let j = index(words[1], "column", cols)?;
        let v = if pattern {
            1.0
        } else {
            value(words[2], header.integer).map_err(|why| at(line, why))?
        };
        // Duplicates are summed; symmetric files store one triangle, mirrored here.
        data[i * cols + j] += v;
        if i != j {
            match symmetry {
                Symmetry::General => {}
                Symmetry::Symmetric => data[j * cols + i] += v,
                Symmetry::Skew => data[j * cols + i] -= v,
            }
        }
        k += 1;
    }
    if k < nnz {
        return Err(Error::format(
            path,
            format!("the file ends after {k} of the {nnz} entries declared on line {size_line}"),
        ));
    }
    Ok(Matrix {
        rows,
        cols,
        data: data.into(),
    })
}

/// Write a dense `array real general` file, column-major.
pub(super) fn write(w: &mut dyn std::io::Write, m: &Matrix) -> std::io::Result<()> {
    write!(
        w,
        "%%MatrixMarket matrix array real general\n% written by rendermm\n{} {}\n",
        m.rows, m.cols
    )?;
    let mut buf = String::with_capacity(16 * m.rows + 16);
    for j in 0..m.cols {
        buf.clear();
        for i in 0..m.rows {
            fmt_f32(m.data[i * m.cols + j], &mut buf);
            buf.push('\n');
        }
        w.write_all(buf.as_bytes())?;
    }
    Ok(())
}
