//! Matrix file reading and writing: round trips, hand-written files, malformed input (which must
//! give an error, never a panic) and atomic writes.

mod common;
use common::npy_with_header;
use rand::{Rng, SeedableRng, rngs::StdRng};
use rendermm::io::{read_batch, read_matrix, write_atomic, write_matrix};
use rendermm::{Error, Matrix};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// A fresh directory under the system temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        static N: AtomicU32 = AtomicU32::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!(
            "rendermm-io-test-{tag}-{}-{}-{nanos}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
    fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(name);
        fs::write(&p, bytes).unwrap();
        p
    }
    /// Names of everything in the directory, sorted.
    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Random finite f32 values from random bit patterns: every exponent, subnormals, both zeros.
fn awkward_matrix(rows: usize, cols: usize, seed: u64) -> Matrix {
    let mut rng = StdRng::seed_from_u64(seed);
    let data = (0..rows * cols)
        .map(|k| match k % 4 {
            0 => rng.random_range(-1.0f32..1.0),
            1 => rng.random_range(-1000.0f32..1000.0),
            _ => loop {
                let v = f32::from_bits(rng.random::<u32>());
                if v.is_finite() {
                    break v;
                }
            },
        })
        .collect();
    Matrix::new(rows, cols, data).unwrap()
}

fn assert_bits_eq(a: &Matrix, b: &Matrix, what: &str) {
    assert_eq!((a.rows, a.cols), (b.rows, b.cols), "{what}: shape");
    for (k, (x, y)) in a.data.iter().zip(&b.data).enumerate() {
        assert_eq!(
            x.to_bits(),
            y.to_bits(),
            "{what}: element {k}: wrote {x:e}, read {y:e}"
        );
    }
}

/// The error's message, after checking it is a format error (not a panic, not an I/O error).
fn format_err(r: rendermm::error::Result<impl std::fmt::Debug>) -> String {
    match r {
        Err(e @ Error::Format { .. }) => {
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "message should be one line: {msg}");
            msg
        }
        other => panic!("expected a format error, got {other:?}"),
    }
}

fn assert_err_mentions(r: rendermm::error::Result<impl std::fmt::Debug>, words: &[&str]) {
    let msg = format_err(r);
    for w in words {
        assert!(
            msg.to_lowercase().contains(&w.to_lowercase()),
            "error {msg:?} should mention {w:?}"
        );
    }
}

/// A hand-made .npy file (format 1.0) with the given dict entries and raw data bytes.
fn npy_bytes(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
    let dict = format!(
        "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}",
        if fortran { "True" } else { "False" }
    );
    npy_with_header(&dict, data)
}

fn io_err(e: std::io::Error) -> Error {
    Error::Invalid(e.to_string())
}

const SHAPES: [(usize, usize); 5] = [(1, 1), (1, 7), (7, 1), (13, 5), (5, 13)];

#[test]
fn round_trip_all_formats_exactly() {
    let dir = TempDir::new("roundtrip");
    for ext in ["npy", "mtx", "csv", "NPY", "Mtx", "CSV"] {
        for (s, &(r, c)) in SHAPES.iter().enumerate() {
            let m = awkward_matrix(r, c, 1000 + s as u64);
            let p = dir.path(&format!("m{r}x{c}.{ext}"));
            write_matrix(&p, &m).unwrap();
            let back = read_matrix(&p).unwrap();
            assert_bits_eq(&m, &back, &format!("{ext} {r}x{c}"));
            let batch = read_batch(&p).unwrap();
            assert_eq!(batch.len(), 1);
            assert_bits_eq(&m, &batch[0], &format!("{ext} {r}x{c} batch"));
        }
    }
    // No temporary files left behind.
    assert!(
        dir.names().iter().all(|n| !n.starts_with('.')),
        "{:?}",
        dir.names()
    );
}

#[test]
fn round_trip_special_values() {
    let dir = TempDir::new("special");
    let vals = vec![
        0.0,
        -0.0,
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        -f32::MAX,
        f32::MAX,
        1e-30,
        123456789.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        0.1,
    ];
    let m = Matrix::new(3, 4, vals).unwrap();
    for ext in ["npy", "mtx", "csv"] {
        let p = dir.path(&format!("s.{ext}"));
        write_matrix(&p, &m).unwrap();
        let back = read_matrix(&p).unwrap();
        assert_eq!(back.shape(), (3, 4));
        for (k, (x, y)) in m.data.iter().zip(&back.data).enumerate() {
            if x.is_nan() {
                assert!(y.is_nan(), "{ext} element {k}");
            } else {
                assert_eq!(
                    x.to_bits(),
                    y.to_bits(),
                    "{ext} element {k}: {x:e} vs {y:e}"
                );
            }
        }
    }
}

#[test]
fn npy_written_layout_is_standard() {
    let dir = TempDir::new("npylayout");
    let m = Matrix::new(2, 3, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let p = dir.path("a.npy");
    write_matrix(&p, &m).unwrap();
    let bytes = fs::read(&p).unwrap();
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
    let hlen = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    assert_eq!((10 + hlen) % 64, 0, "data must start 64-byte aligned");
    let text = std::str::from_utf8(&bytes[10..10 + hlen]).unwrap();
    assert!(
        text.contains("'descr': '<f4'") && text.contains("'fortran_order': False"),
        "{text}"
    );
    assert!(
        text.contains("'shape': (2, 3)") && text.ends_with('\n'),
        "{text}"
    );
    let data: Vec<f32> = bytes[10 + hlen..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(data, m.data);

    // npyz agrees.
    let npy = npyz::NpyFile::new(&bytes[..]).unwrap();
    assert_eq!(npy.shape(), &[2, 3]);
    assert_eq!(npy.into_vec::<f32>().unwrap(), m.data);
}

#[test]
fn mtx_and_csv_written_layout() {
    let dir = TempDir::new("textlayout");
    let m = Matrix::new(2, 3, vec![1.0, 2.0, 3.0, 4.0, 5.5, -6.0]).unwrap();
    let p = dir.path("a.mtx");
    write_matrix(&p, &m).unwrap();
    let text = fs::read_to_string(&p).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('%') || l.starts_with("%%"))
        .collect();
    assert_eq!(
        lines,
        [
            "%%MatrixMarket matrix array real general",
            "2 3",
            "1",
            "4",
            "2",
            "5.5",
            "3",
            "-6"
        ]
    );

    let p = dir.path("a.csv");
    write_matrix(&p, &m).unwrap();
    assert_eq!(fs::read_to_string(&p).unwrap(), "1,2,3\n4,5.5,-6\n");
}

#[test]
fn npy_f64_big_endian_and_npyz_written() {
    let dir = TempDir::new("npyf64");
    let vals = [0.1f64, -2.5, 1e30, 1e-300, 3.0, 7.25];
    let le: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let p = dir.write("f64.npy", npy_bytes("<f8", false, "(2, 3)", &le));
    let m = read_matrix(&p).unwrap();
    assert_eq!(m.shape(), (2, 3));
    let want: Vec<f32> = vals.iter().map(|&v| v as f32).collect();
    assert_eq!(m.data[..2], want[..2]);
    assert_eq!(m.data[2], 1e30f32);
    assert_eq!(m.data[3], 0.0);
    assert_eq!(m.data[4..], want[4..]);
    assert_eq!(m.data[0], 0.1f32);

    let be64: Vec<u8> = vals.iter().flat_map(|v| v.to_be_bytes()).collect();
    let p = dir.write("be64.npy", npy_bytes(">f8", false, "(3, 2)", &be64));
    let m = read_matrix(&p).unwrap();
    assert_eq!(m.shape(), (3, 2));
    assert_eq!(m.data[0], 0.1f32);
    assert_eq!(m.data[5], 7.25);

    let be32: Vec<u8> = [1.5f32, -2.0, 3.25]
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .collect();
    let p = dir.write("be32.npy", npy_bytes(">f4", false, "(1, 3)", &be32));
    assert_eq!(read_matrix(&p).unwrap().data, [1.5, -2.0, 3.25]);

    // A file written by npyz itself, as float64.
    let mut buf = Vec::new();
    {
        use npyz::WriterBuilder;
        let mut w = npyz::WriteOptions::<f64>::new()
            .default_dtype()
            .shape(&[2, 2])
            .writer(&mut buf)
            .begin_nd()
            .unwrap();
        w.extend([1.0f64, 2.0, 3.0, 0.5]).unwrap();
        w.finish().unwrap();
    }
    let p = dir.write("npyz.npy", &buf);
    let m = read_matrix(&p).unwrap();
    assert_eq!(
        (m.rows, m.cols, m.data.into_vec()),
        (2, 2, vec![1.0, 2.0, 3.0, 0.5])
    );
}

#[test]
fn npy_batches_and_dimensions() {
    let dir = TempDir::new("npybatch");
    let data: Vec<u8> = (0..24).flat_map(|v| (v as f32).to_le_bytes()).collect();
    let p = dir.write("b.npy", npy_bytes("<f4", false, "(2, 3, 4)", &data));
    let batch = read_batch(&p).unwrap();
    assert_eq!(batch.len(), 2);
    for (b, m) in batch.iter().enumerate() {
        assert_eq!(m.shape(), (3, 4));
        assert_eq!(
            m.data,
            (0..12).map(|v| (b * 12 + v) as f32).collect::<Vec<_>>()
        );
    }
    assert_err_mentions(read_matrix(&p), &["2-D", "(2, 3, 4)"]);

    let p = dir.write("one.npy", npy_bytes("<f4", false, "(24,)", &data));
    assert_err_mentions(read_matrix(&p), &["2-D", "(24,)"]);
    assert_err_mentions(read_batch(&p), &["3-D", "(24,)"]);
    let p = dir.write("four.npy", npy_bytes("<f4", false, "(2, 3, 2, 2)", &data));
    assert_err_mentions(read_batch(&p), &["4-D"]);

    // Zero-sized dimensions parse; the caller decides whether empty is acceptable.
    let p = dir.write("empty.npy", npy_bytes("<f4", false, "(0, 3)", &[]));
    let m = read_matrix(&p).unwrap();
    assert_eq!((m.rows, m.cols, m.data.len()), (0, 3, 0));
    assert!(m.check_nonempty("A").is_err());
    let p = dir.write("emptyb.npy", npy_bytes("<f4", false, "(3, 0, 2)", &[]));
    let b = read_batch(&p).unwrap();
    assert_eq!(b.len(), 3);
    assert!(b.iter().all(|m| m.shape() == (0, 2) && m.data.is_empty()));
}

#[test]
fn npy_rejects_unsupported_content() {
    let dir = TempDir::new("npybad");
    let ints: Vec<u8> = (0..6i64).flat_map(|v| v.to_le_bytes()).collect();
    let p = dir.write("i64.npy", npy_bytes("<i8", false, "(2, 3)", &ints));
    assert_err_mentions(read_matrix(&p), &["int64", "float32"]);
    let p = dir.write("u8.npy", npy_bytes("|u1", false, "(2, 3)", &[0; 6]));
    assert_err_mentions(read_matrix(&p), &["uint8"]);
    let p = dir.write("f16.npy", npy_bytes("<f2", false, "(2, 3)", &[0; 12]));
    assert_err_mentions(read_matrix(&p), &["float16"]);
    let p = dir.write("c64.npy", npy_bytes("<c8", false, "(1, 1)", &[0; 8]));
    assert_err_mentions(read_matrix(&p), &["complex64"]);
    let p = dir.write(
        "rec.npy",
        npy_with_header(
            "{'descr': [('a', '<f4'), ('b', '<f4')], 'fortran_order': False, 'shape': (1, 1), }",
            &[0; 8],
        ),
    );
    assert_err_mentions(read_matrix(&p), &["structured"]);

    let f32s: Vec<u8> = (0..6).flat_map(|v| (v as f32).to_le_bytes()).collect();
    let p = dir.write("fortran.npy", npy_bytes("<f4", true, "(2, 3)", &f32s));
    assert_err_mentions(read_matrix(&p), &["Fortran"]);
    // Fortran order is the same layout as C when only one dimension exceeds 1.
    let p = dir.write("fortran_row.npy", npy_bytes("<f4", true, "(1, 6)", &f32s));
    assert_eq!(
        read_matrix(&p).unwrap().data,
        [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    );

    // Data length must match the shape exactly.
    let p = dir.write("short.npy", npy_bytes("<f4", false, "(2, 3)", &f32s[..20]));
    assert_err_mentions(read_matrix(&p), &["truncated", "24"]);
    let mut long = f32s.clone();
    long.extend_from_slice(&[0; 4]);
    let p = dir.write("long.npy", npy_bytes("<f4", false, "(2, 3)", &long));
    assert_err_mentions(read_matrix(&p), &["unexpected bytes"]);
}

#[test]
fn npy_truncated_at_every_length() {
    let dir = TempDir::new("npytrunc");
    let p = dir.path("full.npy");
    write_matrix(&p, &awkward_matrix(3, 5, 7)).unwrap();
    let bytes = fs::read(&p).unwrap();
    for len in 0..bytes.len() {
        let q = dir.write("cut.npy", &bytes[..len]);
        let msg = format_err(read_matrix(&q));
        assert!(
            msg.contains("truncated")
                || msg.contains("empty")
                || msg.contains("magic")
                || msg.contains("header"),
            "length {len}: {msg}"
        );
        format_err(read_batch(&q));
    }
}

#[test]
fn npy_hostile_headers_give_errors() {
    let dir = TempDir::new("npyhostile");
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();

    // Header length far beyond the file (v2 uses a 32-bit length).
    let mut v2 = b"\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr': '<f4'".to_vec();
    v2.extend_from_slice(&[b' '; 16]);
    cases.push(("huge header length", v2));
    cases.push((
        "bad version",
        b"\x93NUMPY\x09\x00\x10\x00{}              ".to_vec(),
    ));
    cases.push((
        "not npy",
        b"hello, world, this is not a numpy file".to_vec(),
    ));
    cases.push(("empty", Vec::new()));
    // Shapes whose element count overflows, with and without a zero dimension.
    for shape in [
        "(4294967296, 4294967296, 4294967296)",
        "(0, 1099511627776, 1099511627776)",
        "(18446744073709551615, 2)",
    ] {
        cases.push(("overflowing shape", npy_bytes("<f4", false, shape, &[])));
    }
    cases.push((
        "shape bigger than file",
        npy_bytes("<f4", false, "(100000, 100000)", &[0; 16]),
    ));
    cases.push((
        "shape too big for u64",
        npy_bytes("<f4", false, "(99999999999999999999999, 1)", &[]),
    ));
    cases.push(("negative dim", npy_bytes("<f4", false, "(-1, 3)", &[])));
    cases.push(("float dim", npy_bytes("<f4", false, "(1.5, 3)", &[])));
    cases.push(("hex dim", npy_bytes("<f4", false, "(0x10, 1)", &[])));
    // Python-literal arithmetic with a huge integer (would panic inside py_literal).
    let big = "9".repeat(400);
    cases.push((
        "arithmetic",
        npy_with_header(
            &format!(
                "{{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), 'x': 1.0+{big}, }}"
            ),
            &[0; 4],
        ),
    ));
    // Deep nesting.
    let deep = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), 'x': {}{}, }}",
        "[".repeat(5000),
        "]".repeat(5000)
    );
    cases.push(("deep nesting", npy_with_header(&deep, &[0; 4])));
    // A dtype string that decodes to a single multi-byte character.
    cases.push((
        "escape dtype",
        npy_with_header(
            "{'descr': '\\u20ac', 'fortran_order': False, 'shape': (1, 1), }",
            &[0; 4],
        ),
    ));
    cases.push((
        "utf8 dtype",
        npy_with_header(
            "{'descr': '\u{20ac}', 'fortran_order': False, 'shape': (1, 1), }",
            &[0; 4],
        ),
    ));
    cases.push((
        "bad dtype",
        npy_with_header(
            "{'descr': 'zz9', 'fortran_order': False, 'shape': (1, 1), }",
            &[0; 4],
        ),
    ));
    cases.push((
        "no shape",
        npy_with_header("{'descr': '<f4', 'fortran_order': False, }", &[0; 4]),
    ));
    cases.push((
        "no descr",
        npy_with_header("{'fortran_order': False, 'shape': (1, 1), }", &[0; 4]),
    ));
    cases.push(("not a dict", npy_with_header("[1, 2, 3]", &[0; 4])));
    cases.push((
        "unbalanced",
        npy_with_header("{'descr': '<f4', 'shape': (1, 1", &[0; 4]),
    ));
    cases.push((
        "fortran not bool",
        npy_with_header(
            "{'descr': '<f4', 'fortran_order': 3, 'shape': (1, 1), }",
            &[0; 4],
        ),
    ));

    for (what, bytes) in cases {
        let p = dir.write("h.npy", &bytes);
        let r = read_matrix(&p);
        assert!(matches!(r, Err(Error::Format { .. })), "{what}: {r:?}");
        let r = read_batch(&p);
        assert!(matches!(r, Err(Error::Format { .. })), "{what}: {r:?}");
    }
}

#[test]
fn mtx_coordinate_files() {
    let dir = TempDir::new("mtxcoord");
    let general = "%%MatrixMarket matrix coordinate real general\n\
                   % a comment\n\
                   %\n\
                   \n\
                   3 4 5\n\
                   1 1 1.5\n\
                   3 4 -2\n\
                   2 3 1e2\n\
                   2 3 0.5\n\
                   1 4 7\n";
    let m = read_matrix(&dir.write("g.mtx", general)).unwrap();
    assert_eq!(m.shape(), (3, 4));
    let mut want = Matrix::zeros(3, 4);
    want.set(0, 0, 1.5);
    want.set(2, 3, -2.0);
    want.set(1, 2, 100.5); // duplicates are summed
    want.set(0, 3, 7.0);
    assert_eq!(m, want);

    let symmetric =
        "%%matrixmarket MATRIX Coordinate Real Symmetric\n3 3 4\n1 1 2\n2 1 -1\n3 2 4\n3 3 5\n";
    let m = read_matrix(&dir.write("s.mtx", symmetric)).unwrap();
    assert_eq!(m.data, [2.0, -1.0, 0.0, -1.0, 0.0, 4.0, 0.0, 4.0, 5.0]);

    let pattern = "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 2\n2 1\n2 3\n";
    let m = read_matrix(&dir.write("p.mtx", pattern)).unwrap();
    assert_eq!(m.data, [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]);

    let sym_pattern = "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n";
    let m = read_matrix(&dir.write("sp.mtx", sym_pattern)).unwrap();
    assert_eq!(m.data, [1.0, 1.0, 1.0, 0.0]);

    let skew = "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3\n3 2 -1.5\n";
    let m = read_matrix(&dir.write("k.mtx", skew)).unwrap();
    assert_eq!(m.data, [0.0, -3.0, 0.0, 3.0, 0.0, 1.5, 0.0, -1.5, 0.0]);

    let integer = "%%MatrixMarket matrix coordinate integer general\r\n2 2 1\r\n2 2 -7\r\n";
    let m = read_matrix(&dir.write("i.mtx", integer)).unwrap();
    assert_eq!(m.data, [0.0, 0.0, 0.0, -7.0]);
    // An `integer` field holds whole numbers: a fraction there is a malformed file, named.
    for (name, text) in [
        (
            "ic.mtx",
            "%%MatrixMarket matrix coordinate integer general\n2 2 1\n2 2 3.5\n",
        ),
        (
            "ia.mtx",
            "%%MatrixMarket matrix array integer general\n1 2\n4\n1e-3\n",
        ),
    ] {
        match read_matrix(&dir.write(name, text)) {
            Err(e @ Error::Format { .. }) => {
                let msg = e.to_string();
                assert!(
                    msg.contains("whole number") && msg.contains("integer"),
                    "{name}: {msg}"
                );
            }
            other => panic!("{name}: a fraction in an integer file was accepted: {other:?}"),
        }
    }

    let empty = "%%MatrixMarket matrix coordinate real general\n0 0 0\n";
    assert_eq!(
        read_matrix(&dir.write("e.mtx", empty)).unwrap().shape(),
        (0, 0)
    );
}

#[test]
fn mtx_array_files() {
    let dir = TempDir::new("mtxarray");
    // Column-major; several values per line are tolerated.
    let general = "%%MatrixMarket matrix array real general\n% c\n2 3\n1\n4\n2 5\n\n3\n6\n";
    let m = read_matrix(&dir.write("g.mtx", general)).unwrap();
    assert_eq!(
        m,
        Matrix::new(2, 3, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap()
    );

    let symmetric = "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n";
    let m = read_matrix(&dir.write("s.mtx", symmetric)).unwrap();
    assert_eq!(m.data, [1.0, 2.0, 3.0, 2.0, 4.0, 5.0, 3.0, 5.0, 6.0]);

    let skew = "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n";
    let m = read_matrix(&dir.write("k.mtx", skew)).unwrap();
    assert_eq!(m.data, [0.0, -1.0, -2.0, 1.0, 0.0, -3.0, 2.0, 3.0, 0.0]);

    let special = "%%MatrixMarket matrix array real general\n1 3\nnan\ninf\n-Infinity\n";
    let m = read_matrix(&dir.write("n.mtx", special)).unwrap();
    assert!(m.data[0].is_nan() && m.data[1] == f32::INFINITY && m.data[2] == f32::NEG_INFINITY);
}

#[test]
fn mtx_malformed_files() {
    let dir = TempDir::new("mtxbad");
    let h = "%%MatrixMarket matrix coordinate real general\n";
    let a = "%%MatrixMarket matrix array real general\n";
    let cases: Vec<(String, &[&str])> = vec![
        (String::new(), &["empty", "header"]),
        ("3 3 1\n1 1 1\n".into(), &["line 1", "header"]),
        (
            "%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n".into(),
            &["line 1", "header"],
        ),
        (
            "%%MatrixMarket vector coordinate real general\n".into(),
            &["vector"],
        ),
        (
            "%%MatrixMarket matrix sparse real general\n".into(),
            &["sparse"],
        ),
        (
            "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1 0\n".into(),
            &["complex"],
        ),
        (
            "%%MatrixMarket matrix coordinate real hermitian\n".into(),
            &["hermitian"],
        ),
        (
            "%%MatrixMarket matrix coordinate real upper\n".into(),
            &["upper"],
        ),
        (
            "%%MatrixMarket matrix array pattern general\n1 1\n".into(),
            &["pattern"],
        ),
        (h.into(), &["size line"]),
        (format!("{h}% only comments\n"), &["size line"]),
        (format!("{h}3 3\n"), &["line 2", "size line"]),
        (format!("{h}3 x 1\n"), &["line 2", "'x'"]),
        (format!("{h}3 -3 1\n"), &["line 2"]),
        (
            format!("{h}3 3 3\n1 1 1\n2 2 2\n"),
            &["ends after 2 of the 3"],
        ),
        (
            format!("{h}3 3 1\n1 1 1\n2 2 2\n"),
            &["line 4", "more entries"],
        ),
        (
            format!("{h}3 3 2\n1 1 1\n4 1 2\n"),
            &["line 4", "row index 4", "out of range"],
        ),
        (
            format!("{h}3 3 2\n1 1 1\n1 0 2\n"),
            &["line 4", "column index 0", "out of range"],
        ),
        (format!("{h}3 3 1\n-1 1 2\n"), &["line 3", "row index"]),
        (format!("{h}3 3 1\n1 1 abc\n"), &["line 3", "not a number"]),
        (format!("{h}3 3 1\n1 1\n"), &["line 3", "row col value"]),
        (format!("{h}3 3 1\n1 1 1 1\n"), &["line 3"]),
        (
            "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n".into(),
            &["line 2", "square"],
        ),
        (format!("{h}1000000 1000000 1\n1 1 1\n"), &["too large"]),
        (
            format!("{h}18446744073709551615 18446744073709551615 1\n"),
            &["too large"],
        ),
        (format!("{a}2 2\n1\n2\n3\n"), &["ends after 3 of the 4"]),
        (
            format!("{a}2 2\n1\n2\n3\n4\n5\n"),
            &["line 7", "more values"],
        ),
        (
            format!("{a}2 2\n1\n2\nx3\n4\n"),
            &["line 5", "not a number"],
        ),
        (
            format!("{a}100000 100000\n1\n"),
            &["line 2", "needs 10000000000 values"],
        ),
        (format!("{a}2\n"), &["line 2", "size line"]),
    ];
    for (text, words) in &cases {
        let p = dir.write("bad.mtx", text);
        let msg = format_err(read_matrix(&p));
        for w in *words {
            assert!(
                msg.to_lowercase().contains(&w.to_lowercase()),
                "{text:?}: {msg:?} should mention {w:?}"
            );
        }
    }
    // Invalid UTF-8 names its line.
    let p = dir.write(
        "bin.mtx",
        b"%%MatrixMarket matrix array real general\n1 1\n\xff\xfe\n",
    );
    assert_err_mentions(read_matrix(&p), &["line 3", "UTF-8"]);
}

#[test]
fn csv_files() {
    let dir = TempDir::new("csv");
    let text = "\u{feff}# a comment\n 1, 2.5 ,3\r\n\n-4,5e-3,  6  \n# another\n7,8,9";
    let m = read_matrix(&dir.write("a.csv", text)).unwrap();
    assert_eq!(
        m,
        Matrix::new(3, 3, vec![1.0, 2.5, 3.0, -4.0, 5e-3, 6.0, 7.0, 8.0, 9.0]).unwrap()
    );

    let m = read_matrix(&dir.write("one.csv", "42\n")).unwrap();
    assert_eq!((m.rows, m.cols, m.data.into_vec()), (1, 1, vec![42.0]));

    let m = read_matrix(&dir.write("nan.csv", "nan,inf,-inf,NaN\n")).unwrap();
    assert!(
        m.data[0].is_nan()
            && m.data[1] == f32::INFINITY
            && m.data[2] == f32::NEG_INFINITY
            && m.data[3].is_nan()
    );
    assert!(m.check_finite("A").is_err());

    let m = read_matrix(&dir.write("empty.csv", "# nothing\n\n")).unwrap();
    assert_eq!((m.rows, m.cols), (0, 0));
}

#[test]
fn csv_malformed_files() {
    let dir = TempDir::new("csvbad");
    let cases: [(&str, &[&str]); 7] = [
        ("1,2,3\n4,5\n", &["line 2", "2 columns", "line 1 has 3"]),
        (
            "# c\n1,2\n\n3,4,5\n",
            &["line 4", "3 columns", "line 2 has 2"],
        ),
        ("a,b,c\n1,2,3\n", &["line 1", "column 1", "not a number"]),
        ("1,2,3\n4,five,6\n", &["line 2", "column 2", "\"five\""]),
        ("1,2,\n", &["line 1", "column 3", "empty"]),
        ("1;2;3\n", &["line 1", "not a number"]),
        ("1,,3\n", &["line 1", "column 2", "empty"]),
    ];
    for (text, words) in cases {
        let p = dir.write("bad.csv", text);
        let msg = format_err(read_matrix(&p));
        for w in words {
            assert!(msg.contains(w), "{text:?}: {msg:?} should mention {w:?}");
        }
    }
    let p = dir.write("bin.csv", b"1,2\n3,\xc3\x28\n");
    assert_err_mentions(read_matrix(&p), &["line 2", "UTF-8"]);
}

#[test]
fn unknown_extensions_and_missing_files() {
    let dir = TempDir::new("ext");
    let m = Matrix::zeros(2, 2);
    for name in ["a.txt", "a", "a.npy.bak", "a.mat"] {
        let p = dir.path(name);
        assert_err_mentions(write_matrix(&p, &m), &[".npy", ".mtx", ".csv"]);
        assert!(!p.exists());
        fs::write(&p, "1,2\n3,4\n").unwrap();
        assert_err_mentions(read_matrix(&p), &[".npy", ".mtx", ".csv"]);
        assert_err_mentions(read_batch(&p), &[".npy", ".mtx", ".csv"]);
        fs::remove_file(&p).unwrap();
    }
    assert!(dir.names().is_empty(), "{:?}", dir.names());

    let missing = dir.path("missing.npy");
    match read_matrix(&missing) {
        Err(Error::Io { path, .. }) => assert_eq!(path, missing),
        other => panic!("expected an I/O error, got {other:?}"),
    }
    // Writing into a directory that does not exist is an I/O error.
    match write_matrix(&dir.path("nope/out.csv"), &m) {
        Err(Error::Io { .. }) => {}
        other => panic!("expected an I/O error, got {other:?}"),
    }
    // A matrix whose data does not match its shape is a bug in the code that built it (an internal
    // error, not the request's), refused before anything is written.
    let bad = Matrix {
        rows: 2,
        cols: 2,
        data: vec![1.0].into(),
    };
    assert!(matches!(
        write_matrix(&dir.path("bad.npy"), &bad),
        Err(Error::Internal(_))
    ));
    assert!(dir.names().is_empty(), "{:?}", dir.names());
}

#[test]
fn write_atomic_failure_leaves_nothing() {
    let dir = TempDir::new("atomic");
    let target = dir.path("out.png");

    // Failure on a fresh path: no target, no temporary file.
    let r = write_atomic(&target, |w| {
        w.write_all(b"partial data").map_err(io_err)?;
        Err(Error::Invalid("boom".into()))
    });
    assert!(
        matches!(r, Err(Error::Invalid(ref s)) if s == "boom"),
        "{r:?}"
    );
    assert!(dir.names().is_empty(), "{:?}", dir.names());

    // Failure over an existing file: the old content is untouched.
    fs::write(&target, b"old").unwrap();
    let r = write_atomic(&target, |w| {
        w.write_all(&vec![7u8; 1 << 20]).map_err(io_err)?;
        Err(Error::Invalid("boom".into()))
    });
    assert!(r.is_err());
    assert_eq!(fs::read(&target).unwrap(), b"old");
    assert_eq!(dir.names(), ["out.png"]);

    // A panic inside fill also removes the temporary file.
    let t2 = target.clone();
    let caught = std::panic::catch_unwind(move || {
        let _ = write_atomic(&t2, |w| {
            w.write_all(b"x").map_err(io_err)?;
            panic!("fill panicked");
        });
    });
    assert!(caught.is_err());
    assert_eq!(dir.names(), ["out.png"]);
    assert_eq!(fs::read(&target).unwrap(), b"old");

    // Success replaces the file, with nothing else left over.
    write_atomic(&target, |w| {
        w.write_all(b"new contents").map_err(io_err)?;
        Ok(())
    })
    .unwrap();
    assert_eq!(fs::read(&target).unwrap(), b"new contents");
    assert_eq!(dir.names(), ["out.png"]);
}

#[test]
fn write_matrix_replaces_existing_files() {
    let dir = TempDir::new("replace");
    for ext in ["npy", "mtx", "csv"] {
        let p = dir.path(&format!("m.{ext}"));
        fs::write(
            &p,
            "stale content that is much longer than what replaces it, ".repeat(100),
        )
        .unwrap();
        write_matrix(&p, &awkward_matrix(13, 5, 3)).unwrap();
        assert_eq!(read_matrix(&p).unwrap().shape(), (13, 5));
        let small = Matrix::new(1, 1, vec![2.5]).unwrap();
        write_matrix(&p, &small).unwrap();
        assert_eq!(read_matrix(&p).unwrap(), small);
    }
    assert_eq!(dir.names(), ["m.csv", "m.mtx", "m.npy"]);
}

#[test]
fn write_atomic_paths_without_directory_part() {
    // A bare file name writes into the current directory; use a unique name and clean up.
    let name = format!("rendermm-io-test-bare-{}.csv", std::process::id());
    let p = Path::new(&name);
    write_matrix(p, &Matrix::filled(2, 2, 1.0)).unwrap();
    let back = read_matrix(p);
    let _ = fs::remove_file(p);
    assert_eq!(back.unwrap(), Matrix::filled(2, 2, 1.0));
}

/// Random corruption of valid files and random garbage must give `Ok` or a format error, never a
/// panic or an I/O error.
#[test]
fn fuzzed_files_never_panic() {
    let dir = TempDir::new("fuzz");
    let mut rng = StdRng::seed_from_u64(0x5eed);
    let m = awkward_matrix(4, 3, 11);
    let mut seeds: Vec<(&str, Vec<u8>)> = Vec::new();
    for ext in ["npy", "mtx", "csv"] {
        let p = dir.path(&format!("seed.{ext}"));
        write_matrix(&p, &m).unwrap();
        seeds.push((ext, fs::read(&p).unwrap()));
    }
    seeds.push((
        "mtx",
        b"%%MatrixMarket matrix coordinate real symmetric\n4 4 3\n1 1 1\n3 2 2.5\n4 4 -1\n"
            .to_vec(),
    ));
    let f64s: Vec<u8> = (0..6).flat_map(|v| (v as f64).to_le_bytes()).collect();
    seeds.push(("npy", npy_bytes("<f8", false, "(1, 2, 3)", &f64s)));
    let alphabet = b"0123456789 ,.-+e\n%:()[]{}'\"xTF\x93\xff";

    for round in 0..3000 {
        let (ext, seed) = &seeds[round % seeds.len()];
        let mut bytes = seed.clone();
        match rng.random_range(0..4) {
            0 => {
                // Flip a few bytes.
                for _ in 0..rng.random_range(1..4) {
                    if !bytes.is_empty() {
                        let i = rng.random_range(0..bytes.len());
                        bytes[i] = if rng.random_bool(0.5) {
                            rng.random()
                        } else {
                            alphabet[rng.random_range(0..alphabet.len())]
                        };
                    }
                }
            }
            1 => {
                let cut = rng.random_range(0..=bytes.len());
                bytes.truncate(cut);
            }
            2 => {
                // Insert a run of plausible characters.
                let at = rng.random_range(0..=bytes.len());
                let run: Vec<u8> = (0..rng.random_range(1..20))
                    .map(|_| alphabet[rng.random_range(0..alphabet.len())])
                    .collect();
                bytes.splice(at..at, run);
            }
            _ => {
                bytes = (0..rng.random_range(0..200))
                    .map(|_| rng.random())
                    .collect();
                if rng.random_bool(0.5) && bytes.len() > 10 {
                    bytes[..8].copy_from_slice(b"\x93NUMPY\x01\x00");
                }
            }
        }
        let p = dir.write(&format!("f.{ext}"), &bytes);
        for r in [read_matrix(&p).map(|_| ()), read_batch(&p).map(|_| ())] {
            assert!(
                matches!(r, Ok(()) | Err(Error::Format { .. })),
                "round {round}: {r:?}"
            );
        }
    }
}

#[test]
fn npy_float64_past_f32_range_is_named_not_called_infinite() {
    let dir = TempDir::new("pastf32");
    for (v, shown) in [(1e300f64, "1e300"), (-4e38, "-4e38")] {
        let data: Vec<u8> = [1.0f64, 2.0, v, 4.0]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let p = dir.write("big.npy", npy_bytes("<f8", false, "(2, 2)", &data));
        for r in [read_matrix(&p).map(|_| ()), read_batch(&p).map(|_| ())] {
            assert_err_mentions(r, &["past f32's range", "3.4e38", "row 1, column 0", shown]);
        }
        // The caller that decides itself gets the values as stored.
        let g = rendermm::io::read_as_given(&p, false).unwrap();
        assert!(g.past_f32.is_some());
        assert_eq!(g.values.as_deref(), Some(&[vec![1.0, 2.0, v, 4.0]][..]));
        assert!(g.matrices[0].data[2].is_infinite());
    }
    // An infinity stored as such is no number past the range: it is read (and refused later,
    // without --allow-nonfinite, as non-finite).
    let data: Vec<u8> = [f64::INFINITY]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let p = dir.write("inf.npy", npy_bytes("<f8", false, "(1, 1)", &data));
    assert!(read_matrix(&p).unwrap().data[0].is_infinite());
    let g = rendermm::io::read_as_given(&p, false).unwrap();
    assert!(g.past_f32.is_none() && g.values.is_none());
}

#[test]
fn text_numbers_past_f32_range_name_line_and_column() {
    let dir = TempDir::new("pastf32text");
    let p = dir.write("m.csv", "1,2\n3,1e39\n");
    assert_err_mentions(
        read_matrix(&p),
        &["line 2", "column 2", "1e39", "past f32's range", "3.4e38"],
    );
    let p = dir.write(
        "m.mtx",
        "%%MatrixMarket matrix array real general\n1 2\n1\n-5e38\n",
    );
    assert_err_mentions(read_matrix(&p), &["line 4", "-5e38", "past f32's range"]);
    // inf written as such is still taken.
    let p = dir.write("i.csv", "1,inf\n-Infinity,nan\n");
    assert!(read_matrix(&p).unwrap().data[1].is_infinite());
}

#[test]
fn npy_of_only_the_magic_is_truncated_not_foreign() {
    let dir = TempDir::new("magiconly");
    let p = dir.write("m.npy", b"\x93NUMPY");
    let msg = format_err(read_matrix(&p));
    assert!(
        msg.contains("truncated") && msg.contains("after the"),
        "{msg}"
    );
    assert!(!msg.contains("does not start"), "{msg}");
    let p = dir.write("m.npy", b"\x93NU");
    let msg = format_err(read_matrix(&p));
    assert!(msg.contains("truncated"), "{msg}");
}

#[test]
fn npy_numpy_native_order_dtype_strings_are_read() {
    let dir = TempDir::new("nativedtype");
    let f4: Vec<u8> = [1.5f32, -2.0, 3.25]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    let f8: Vec<u8> = [1.5f64, -2.0, 3.25]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    for (descr, data) in [
        ("=f4", &f4),
        ("|f4", &f4),
        ("f4", &f4),
        ("=f8", &f8),
        ("|f8", &f8),
        ("f8", &f8),
    ] {
        let p = dir.write("n.npy", npy_bytes(descr, false, "(1, 3)", data));
        let m = read_matrix(&p).unwrap_or_else(|e| panic!("{descr}: {e}"));
        assert_eq!(m.data, [1.5, -2.0, 3.25], "{descr}");
    }
    // Big-endian stays big-endian; other types stay refused.
    let be: Vec<u8> = [1.5f32, -2.0, 3.25]
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .collect();
    let p = dir.write("be.npy", npy_bytes(">f4", false, "(1, 3)", &be));
    assert_eq!(read_matrix(&p).unwrap().data, [1.5, -2.0, 3.25]);
    let p = dir.write("i.npy", npy_bytes("=i4", false, "(1, 3)", &f4));
    assert_err_mentions(read_matrix(&p), &["int32"]);
}

/// Bytes a reader took from a FIFO fed with up to 64 MiB of zeros before it gave its error.
#[cfg(unix)]
fn bytes_taken_from_a_fifo_of_zeros(name: &str) -> (String, u64) {
    let dir = TempDir::new("fifo-in");
    let p = dir.path(name);
    let st = std::process::Command::new("mkfifo")
        .arg(&p)
        .status()
        .unwrap();
    assert!(st.success());
    let feed = p.clone();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let mut f = fs::OpenOptions::new().write(true).open(&feed).unwrap();
        let chunk = vec![0u8; 1 << 16];
        let mut sent = 0u64;
        while sent < 64 << 20 {
            match f.write(&chunk) {
                Ok(n) => sent += n as u64,
                Err(_) => break,
            }
        }
        sent
    });
    let msg = format_err(read_matrix(&p));
    let sent = writer.join().unwrap();
    (msg, sent)
}

#[cfg(unix)]
#[test]
fn readers_stop_at_a_header_that_is_not_theirs() {
    // A .npy reader checks the magic before reading on; a text reader stops at the first chunk
    // holding a NUL byte. Neither reads the 64 MiB offered (an endless /dev/zero alike).
    let (msg, sent) = bytes_taken_from_a_fifo_of_zeros("x.npy");
    assert!(msg.contains("not a .npy file"), "{msg}");
    assert!(sent < 8 << 20, "the .npy reader took {sent} bytes");
    let (msg, sent) = bytes_taken_from_a_fifo_of_zeros("x.csv");
    assert!(msg.contains("NUL"), "{msg}");
    assert!(sent < 8 << 20, "the CSV reader took {sent} bytes");
}

#[test]
fn npy_reader_reads_no_more_than_the_header_promises() {
    // A valid header followed by 3 GiB (sparse: no disk used) of data it did not declare: the
    // length is checked against the header before anything is read or allocated.
    let dir = TempDir::new("npylen");
    let p = dir.write("m.npy", npy_bytes("<f4", false, "(2, 2)", &[0u8; 16]));
    let f = fs::OpenOptions::new().write(true).open(&p).unwrap();
    f.set_len(3 << 30).unwrap();
    drop(f);
    let t = std::time::Instant::now();
    assert_err_mentions(
        read_matrix(&p),
        &["unexpected bytes after the 16 data bytes"],
    );
    assert!(t.elapsed().as_secs_f64() < 2.0, "took {:?}", t.elapsed());
}

/// What our reader should make of a .npy file, as npyz (an independent implementation) reads it:
/// the matrices of a 2-D or 3-D C-order float array (a Fortran-order array too where at most one
/// dimension exceeds 1, the same layout), or an error naming the reason otherwise.
fn check_npy_against_npyz(what: &str, ours: &[u8], reference: &[u8]) {
    let npy = npyz::NpyFile::new(reference).unwrap_or_else(|e| panic!("{what}: npyz: {e}"));
    let shape: Vec<usize> = npy.shape().iter().map(|&d| d as usize).collect();
    let fortran = npy.order() == npyz::Order::Fortran;
    let npyz::DType::Plain(ts) = npy.dtype() else {
        panic!("{what}: npyz read a structured dtype")
    };
    let want_dtype = match ts.size_field() {
        4 => rendermm::io::Dtype::F32,
        _ => rendermm::io::Dtype::F64,
    };
    let data: Vec<f32> = if want_dtype == rendermm::io::Dtype::F32 {
        npy.into_vec::<f32>().unwrap()
    } else {
        npy.into_vec::<f64>()
            .unwrap()
            .into_iter()
            .map(|v| v as f32)
            .collect()
    };
    let r = rendermm::io::parse_npy_batch(ours);
    if fortran && shape.iter().filter(|&&d| d > 1).count() > 1 {
        assert_err_mentions(r, &["Fortran"]);
        return;
    }
    let shape_text = match &shape[..] {
        [d] => format!("({d},)"),
        s => format!(
            "({})",
            s.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    match shape[..] {
        [rows, cols] => {
            let ms = r.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(ms.len(), 1, "{what}");
            assert_eq!(ms[0].shape(), (rows, cols), "{what}");
            assert_eq!(ms[0].data, data, "{what}");
        }
        [batch, rows, cols] => {
            let ms = r.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(ms.len(), batch, "{what}");
            assert!(ms.iter().all(|m| m.shape() == (rows, cols)), "{what}");
            let all: Vec<f32> = ms.iter().flat_map(|m| m.data.iter().copied()).collect();
            if rows * cols > 0 {
                assert_eq!(all, data, "{what}");
            }
        }
        _ => assert_err_mentions(r, &[&format!("{}-D", shape.len()), &shape_text]),
    }
    if shape.len() == 2 {
        let dir = TempDir::new("npyz-typed");
        let p = dir.write("t.npy", ours);
        let (_, dtype) = rendermm::io::read_matrix_typed(&p).unwrap();
        assert_eq!(dtype, Some(want_dtype), "{what}");
    }
}

/// Our .npy header parser reads every header NumPy writes (and the spellings it accepts: native
/// and not-applicable byte orders, double quotes, other key orders, any whitespace, trailing
/// commas or none) as npyz does: the same shape, dtype, order and data.

/// `vals` as a .npy file of `dtype`, `dims` and `order`, written by npyz's own writer.
fn write_with_npyz<T: npyz::Serialize + npyz::AutoSerialize>(
    buf: &mut Vec<u8>,
    dtype: npyz::DType,
    dims: &[u64],
    order: npyz::Order,
    vals: impl Iterator<Item = T>,
) {
    use npyz::WriterBuilder;
    let mut w = npyz::WriteOptions::<T>::new()
        .dtype(dtype)
        .shape(dims)
        .order(order)
        .writer(buf)
        .begin_nd()
        .unwrap();
    w.extend(vals).unwrap();
    w.finish().unwrap();
}
#[test]
fn npy_header_parser_agrees_with_npyz() {
    let native = if cfg!(target_endian = "little") {
        '<'
    } else {
        '>'
    };
    let mut rng = StdRng::seed_from_u64(0x4e50);
    let shapes: [(&str, &[usize]); 9] = [
        ("()", &[]),
        ("(0,)", &[0]),
        ("(5,)", &[5]),
        ("(5, )", &[5]),
        ("(2, 3)", &[2, 3]),
        ("(2,3,)", &[2, 3]),
        ("(2, 3, 4)", &[2, 3, 4]),
        ("(1, 1)", &[1, 1]),
        ("(1, 6)", &[1, 6]),
    ];
    let mut checked = 0;
    for descr in ["<f4", ">f4", "=f4", "|f4", "f4", "<f8", ">f8", "=f8"] {
        let big = descr.starts_with('>') || (!descr.starts_with('<') && native == '>');
        let wide = descr.ends_with('8');
        // npyz takes only explicit byte orders: its header names this machine's.
        let explicit = match descr.as_bytes()[0] {
            b'<' | b'>' => descr.to_string(),
            _ => format!("{native}{}", descr.trim_start_matches(['=', '|'])),
        };
        for (shape, dims) in shapes {
            let count: usize = dims.iter().product();
            let vals: Vec<f64> = (0..count).map(|_| rng.random_range(-1e3..1e3)).collect();
            let data: Vec<u8> = vals
                .iter()
                .flat_map(|&v| match (wide, big) {
                    (true, true) => v.to_be_bytes().to_vec(),
                    (true, false) => v.to_le_bytes().to_vec(),
                    (false, true) => (v as f32).to_be_bytes().to_vec(),
                    (false, false) => (v as f32).to_le_bytes().to_vec(),
                })
                .collect();
            for fortran in [false, true] {
                let f = if fortran { "True" } else { "False" };
                let styles = |d: &str| {
                    [
                        format!("{{'descr': '{d}', 'fortran_order': {f}, 'shape': {shape}, }}"),
                        format!(
                            "{{ \"descr\" :\t\"{d}\" ,\n  \"fortran_order\":{f},\"shape\"\n:  {shape}\n}}"
                        ),
                        format!("{{'shape': {shape}, 'fortran_order': {f}, 'descr': \"{d}\"}}"),
                    ]
                };
                // npyz reads NumPy's own spelling (its Python-literal grammar takes no newlines
                // inside the dict, which Python and so NumPy's reader do).
                let reference = npy_with_header(&styles(&explicit)[0], &data);
                for ours in styles(descr) {
                    check_npy_against_npyz(&ours, &npy_with_header(&ours, &data), &reference);
                    checked += 1;
                }
            }
        }
    }
    // Files written by npyz's own writer, in both orders and byte orders.
    for (descr, fortran) in [("<f4", false), (">f8", false), ("<f8", true), (">f4", true)] {
        for dims in [&[2u64, 3][..], &[2, 3, 4], &[1, 1], &[0, 3], &[4, 1], &[3]] {
            let count: u64 = dims.iter().product();
            let mut buf = Vec::new();
            let order = if fortran {
                npyz::Order::Fortran
            } else {
                npyz::Order::C
            };
            let dtype = npyz::DType::Plain(descr.parse().unwrap());
            let vals = (0..count).map(|i| i as f64 * 0.75 - 3.0);
            if descr.ends_with('4') {
                write_with_npyz(&mut buf, dtype, dims, order, vals.map(|v| v as f32));
            } else {
                write_with_npyz(&mut buf, dtype, dims, order, vals);
            }
            check_npy_against_npyz(&format!("npyz {descr} {dims:?} {order:?}"), &buf, &buf);
            checked += 1;
        }
    }
    assert_eq!(checked, 8 * 9 * 2 * 3 + 4 * 6);
}

/// Malformed .npy headers each give one line naming what is wrong, never a panic and never a
/// matrix: NumPy's reader refuses every one of them (a dict of exactly the keys 'descr',
/// 'fortran_order' and 'shape', the shape a tuple of non-negative integers).
#[test]
fn npy_malformed_headers_name_the_problem() {
    let ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }";
    // The well-formed header reads, so each refusal below is the header's doing.
    assert_eq!(
        rendermm::io::parse_npy(&npy_with_header(ok, &[0; 4]))
            .unwrap()
            .shape(),
        (1, 1)
    );
    let cases: &[(&str, &[&str])] = &[
        (
            "{'descr': '<f4', 'shape': (1, 1), }",
            &["no 'fortran_order' key"],
        ),
        (
            "{'fortran_order': False, 'shape': (1, 1)}",
            &["no 'descr' key"],
        ),
        (
            "{'descr': '<f4', 'fortran_order': False}",
            &["no 'shape' key"],
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), 'extra': 1, }",
            &["unexpected key 'extra'"],
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), 'shape': (1, 1), }",
            &["'shape' appears twice"],
        ),
        (
            "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1, 1)}",
            &["'descr' appears twice"],
        ),
        (
            "{'descr': \"<f4', 'fortran_order': False, 'shape': (1, 1), }",
            &["unterminated string"],
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), 'sha",
            &["unterminated string"],
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 1), }",
            &["unexpected '-'"],
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1.0, 1), }",
            &["unexpected '.'"],
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': ('1', 1), }",
            &["'shape'", "holding a string"],
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (True, 1), }",
            &["'shape'", "holding a bool"],
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': 3, }",
            &["'shape'", "is an integer, not a tuple"],
        ),
        // `(1)` is the integer 1 in Python, not a tuple.
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1), }",
            &["'shape'", "is an integer, not a tuple"],
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': ((1, 1),), }",
            &["'shape'", "holding a tuple"],
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (0x1, 1), }",
            &["'0x1'", "not a plain decimal integer"],
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (01, 1), }",
            &["'01'", "not a Python integer"],
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 1), }",
            &["99999999999999999999", "too large"],
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1 1), }",
            &["expected ',' or ')'"],
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), ",
            &["expected a quoted key or '}'", "end of the header"],
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1)} x",
            &["unexpected 'x'", "after the dict"],
        ),
        (
            "{'descr': '<f4' 'fortran_order': False, 'shape': (1, 1)}",
            &["expected ',' or '}'"],
        ),
        (
            "{'descr' '<f4', 'fortran_order': False, 'shape': (1, 1)}",
            &["expected ':' after the key 'descr'"],
        ),
        (
            "{descr: '<f4', 'fortran_order': False, 'shape': (1, 1)}",
            &["expected a quoted key"],
        ),
        (
            "{'descr': '<f4', 'fortran_order': 'False', 'shape': (1, 1)}",
            &["'fortran_order' is a string, not True or False"],
        ),
        (
            "{'descr': '<f4', 'fortran_order': false, 'shape': (1, 1)}",
            &["unexpected name 'false'"],
        ),
        (
            "{'descr': 4, 'fortran_order': False, 'shape': (1, 1)}",
            &["'descr' is an integer"],
        ),
        (
            "{'descr': 'f', 'fortran_order': False, 'shape': (1, 1)}",
            &["unsupported dtype 'f'"],
        ),
        (
            "{'descr': '<f4[s]', 'fortran_order': False, 'shape': (1, 1)}",
            &["unsupported dtype '<f4[s]'"],
        ),
        (
            "{'descr': '<m8[s]', 'fortran_order': False, 'shape': (1, 1)}",
            &["unsupported dtype timedelta64"],
        ),
        (
            "{'descr': '<M8[D]', 'fortran_order': False, 'shape': (1, 1)}",
            &["unsupported dtype datetime64"],
        ),
        (
            "{'descr': '<U10', 'fortran_order': False, 'shape': (1, 1)}",
            &["unsupported dtype str '<U10'"],
        ),
        (
            "{'descr': '|S5', 'fortran_order': False, 'shape': (1, 1)}",
            &["unsupported dtype bytes '|S5'"],
        ),
        (
            "{'descr': '|b1', 'fortran_order': False, 'shape': (1, 1)}",
            &["unsupported dtype bool"],
        ),
        (
            "{'descr': [('x', '<f4'), ('y', '<f4')], 'fortran_order': False, 'shape': (1,)}",
            &["unsupported dtype structured", "('x', '<f4')", "float32"],
        ),
        ("[('descr', '<f4')]", &["expected '{'"]),
        ("", &["expected '{'", "end of the header"]),
    ];
    for (header, words) in cases {
        let bytes = npy_with_header(header, &[0; 8]);
        for r in [
            rendermm::io::parse_npy(&bytes).map(|m| vec![m]),
            rendermm::io::parse_npy_batch(&bytes),
        ] {
            let msg = format_err(r);
            for w in *words {
                assert!(msg.contains(w), "{header}: {msg:?} should mention {w:?}");
            }
        }
    }
}
