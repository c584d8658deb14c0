//! CSV matrices: one row per line, numbers separated by commas. Blank lines and lines starting
//! with `#` are skipped; every other line must hold the same number of numeric fields.

use super::{fmt_f32, parse_f32};
use crate::error::{Error, Result};
use crate::matrix::Matrix;
use std::path::Path;

/// Parse CSV text. A file with no data lines gives a 0x0 matrix.
pub(super) fn parse(path: &Path, text: &str) -> Result<Matrix> {
    let at = |line: usize, msg: String| Error::format(path, format!("line {line}: {msg}"));
    let mut data = Vec::new();
    let mut rows = 0usize;
    // (columns, line it was set by)
    let mut width: Option<(usize, usize)> = None;
    for (idx, raw) in text.lines().enumerate() {
        let line = idx + 1;
        let t = raw.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let mut n = 0usize;
        for (c, field) in t.split(',').enumerate() {
            let f = field.trim();
            if f.is_empty() {
                return Err(at(
                    line,
                    format!("column {}: empty field; expected a number", c + 1),
                ));
            }
            let v = parse_f32(f).map_err(|why| at(line, format!("column {}: {why}", c + 1)))?;
            data.push(v);
            n += 1;
        }
        match width {
            None => width = Some((n, line)),
            Some((w, first)) if w != n => {
                return Err(at(
                    line,
                    format!(
                        "{n} columns, but line {first} has {w}; every row needs the same number"
                    ),
                ));
            }
            Some(_) => {}
        }
        rows += 1;
    }
    let cols = width.map_or(0, |(w, _)| w);
    Ok(Matrix {
        rows,
        cols,
        data: data.into(),
    })
}

/// Write one row per line, comma separated, every value printed to read back exactly.
pub(super) fn write(w: &mut dyn std::io::Write, m: &Matrix) -> std::io::Result<()> {
    let mut buf = String::with_capacity(16 * m.cols + 1);
    if m.cols == 0 {
        return Ok(());
    }
    for row in m.data.chunks_exact(m.cols) {
        buf.clear();
        for (j, &v) in row.iter().enumerate() {
            if j > 0 {
                buf.push(',');
            }
            fmt_f32(v, &mut buf);
        }
        buf.push('\n');
        w.write_all(buf.as_bytes())?;
    }
    Ok(())
}
