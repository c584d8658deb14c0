//! The page's own matrices: A and B pasted as text or dropped as files (.npy, .csv, .mtx), read
//! by the library's readers of bytes (`rendermm::io::parse_*`, the ones the CLI reads files
//! with), and C written back as .npy or .csv for the download links.

use rendermm::error::{Error, Result};
use rendermm::matrix::Matrix;

/// The format of a dropped or pasted matrix: by the file name's extension where there is one,
/// else by its first bytes (.npy's magic, Matrix Market's banner), else CSV.
fn format_of(name: &str, bytes: &[u8]) -> &'static str {
    let lower = name.to_ascii_lowercase();
    for ext in ["npy", "csv", "mtx"] {
        if lower.ends_with(&format!(".{ext}")) {
            return ext;
        }
    }
    if bytes.starts_with(b"\x93NUMPY") {
        "npy"
    } else if bytes.starts_with(b"%%MatrixMarket") {
        "mtx"
    } else {
        "csv"
    }
}

/// Read matrix `which` ("A" or "B") from `bytes` (a dropped file named `name`, or pasted text).
/// Errors name the matrix and the file, in one sentence.
pub fn read(which: &str, name: &str, bytes: &[u8]) -> Result<Matrix> {
    let parsed = match format_of(name, bytes) {
        "npy" => rendermm::io::parse_npy(bytes),
        "mtx" => rendermm::io::parse_mtx(bytes),
        _ => rendermm::io::parse_csv(bytes),
    };
    let m = parsed.map_err(|e| {
        let text = e.to_string();
        // The readers name their source as "<npy bytes>" and the like; the page names the file.
        let text = text
            .replace("<npy bytes>", name)
            .replace("<csv bytes>", name)
            .replace("<mtx bytes>", name);
        Error::Invalid(format!("{which} ({name}): {text}"))
    })?;
    if m.rows == 0 || m.cols == 0 {
        return Err(Error::Invalid(format!(
            "{which} ({name}) is {}x{}: a matrix needs at least one row and one column",
            m.rows, m.cols
        )));
    }
    Ok(m)
}

/// `m` as a .npy file: little-endian float32 (`<f4`), C order, as `rendermm multiply --out C.npy`
/// writes it.
pub fn npy(m: &Matrix) -> Vec<u8> {
    let mut header = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}), }}",
        m.rows, m.cols
    );
    // Magic (6) + version (2) + length (2) + header, padded with spaces to a multiple of 64 and
    // ended by a newline, as the format asks.
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + m.data.len() * 4);
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for v in &m.data {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// `m` as CSV: one row per line, every value printed so that it reads back to the same f32.
pub fn csv(m: &Matrix) -> String {
    let mut out = String::with_capacity(m.data.len() * 12);
    for row in m.data.chunks(m.cols.max(1)) {
        for (j, v) in row.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            out.push_str(&v.to_string());
        }
        out.push('\n');
    }
    out
}
