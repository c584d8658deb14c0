//! Bounded property tests of the file readers, the stable-Rust companion of the cargo-fuzz targets
//! in `fuzz/` (docs/reliability.md): arbitrary bytes and mutated valid files go through the .npy,
//! Matrix Market, CSV and edge-list readers, which must return a well-formed result or an
//! `Error::Format` / `Io` / `Invalid`, and never panic.

use proptest::prelude::*;
use proptest::test_runner::Config;
use rendermm::reach::graph::{self, ReadOptions};
use rendermm::{Error, Matrix, io};
use std::path::Path;

/// Files every mutation starts from: each reader's formats and variants, written by rendermm
/// itself, by NumPy (tests/data) and by hand.
fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    let dir = std::env::temp_dir().join(format!("rendermm-prop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let m = Matrix::new(3, 4, (0..12).map(|i| i as f32 * 0.5 - 2.0).collect()).unwrap();
    let mut out = vec![];
    for ext in ["npy", "mtx", "csv"] {
        let p = dir.join(format!("m.{ext}"));
        io::write_matrix(&p, &m).unwrap();
        let ext: &'static str = match ext {
            "npy" => "npy",
            "mtx" => "mtx",
            _ => "csv",
        };
        out.push((ext, std::fs::read(&p).unwrap()));
    }
    let p = dir.join("batch.npy");
    io::write_batch(&p, &[m.clone(), m.clone()]).unwrap();
    out.push(("npy", std::fs::read(&p).unwrap()));
    let _ = std::fs::remove_dir_all(&dir);
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    for f in [
        "numpy_a_f32.npy",
        "numpy_b_f64.npy",
        "numpy_3d.npy",
        "numpy_fortran.npy",
        "numpy_int64.npy",
    ] {
        out.push(("npy", std::fs::read(data.join(f)).unwrap()));
    }
    for text in [
        "%%MatrixMarket matrix coordinate real general\n% c\n3 3 4\n1 1 1.5\n2 3 -2\n3 1 4e2\n1 1 1\n",
        "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n1 2\n2 3\n4 4\n",
        "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 5\n3 2 -1\n",
        "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n",
        "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n",
    ] {
        out.push(("mtx", text.as_bytes().to_vec()));
    }
    out.push(("csv", b"# comment\n1, 2,3\n\n-4.5,5e-3,inf\n".to_vec()));
    for text in [
        "# path\n0 1\n1,2\n2\t3 % trailing\n",
        "1 2\n2 3\n3 1\n5 5\n",
    ] {
        out.push(("txt", text.as_bytes().to_vec()));
    }
    out
}

/// Byte strings that tend to sit on the edges of what a reader accepts.
const TOKENS: &[&str] = &[
    "0",
    "1",
    "-1",
    "+7",
    "2147483648",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "32768",
    "32769",
    "65535",
    "1e39",
    "-1e-46",
    "nan",
    "inf",
    "-inf",
    "1.5",
    ",",
    " ",
    "\n",
    "%",
    "#",
    "(",
    ")",
    "'shape': (",
    "'descr': '>f8'",
    "'fortran_order': True",
    "\\",
    "\u{feff}",
    "\u{00e9}",
    "\r\n",
    "%%MatrixMarket",
    "coordinate",
    "array",
    "pattern",
    "symmetric",
    "skew-symmetric",
    "complex",
];

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Token(usize, usize),
    Truncate(usize),
    Duplicate(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Mutation::Flip(p, b)),
        (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(p, b)| Mutation::Insert(p, b)),
        (any::<usize>(), 1usize..16).prop_map(|(p, n)| Mutation::Delete(p, n)),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(p, t)| Mutation::Token(p, t)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 1usize..64).prop_map(|(p, n)| Mutation::Duplicate(p, n)),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let at = |p: usize, len: usize| if len == 0 { 0 } else { p % (len + 1) };
    match m {
        Mutation::Flip(p, b) if !bytes.is_empty() => {
            let i = p % bytes.len();
            bytes[i] ^= b | 1;
        }
        Mutation::Flip(..) => {}
        Mutation::Insert(p, b) => {
            let i = at(*p, bytes.len());
            bytes.splice(i..i, b.iter().copied());
        }
        Mutation::Delete(p, n) => {
            let i = at(*p, bytes.len());
            let end = (i + n).min(bytes.len());
            bytes.drain(i..end);
        }
        Mutation::Token(p, t) => {
            // Replace the run of digits (or the byte) at p by the token.
            let i = at(*p, bytes.len());
            let mut end = i;
            while end < bytes.len() && bytes[end].is_ascii_alphanumeric() {
                end += 1;
            }
            bytes.splice(
                i..end.max(i + usize::from(i < bytes.len() && end == i)),
                TOKENS[*t].bytes(),
            );
        }
        Mutation::Truncate(p) => {
            let i = at(*p, bytes.len());
            bytes.truncate(i);
        }
        Mutation::Duplicate(p, n) => {
            let i = at(*p, bytes.len());
            let end = (i + n).min(bytes.len());
            let chunk: Vec<u8> = bytes[i..end].to_vec();
            bytes.splice(end..end, chunk);
        }
    }
}

fn well_formed(m: &Matrix) {
    assert_eq!(
        Some(m.data.len()),
        m.rows.checked_mul(m.cols),
        "{}x{} with {} values",
        m.rows,
        m.cols,
        m.data.len()
    );
}

fn expected_error(e: &Error) {
    assert!(
        matches!(
            e,
            Error::Format { .. } | Error::Io { .. } | Error::Invalid(_)
        ),
        "unexpected error kind: {e:?}"
    );
    let msg = e.to_string();
    assert!(
        !msg.is_empty() && !msg.contains('\n'),
        "errors are one line: {msg:?}"
    );
}

/// Every reader on `bytes`, under the name `ext` and the others too.
fn feed(bytes: &[u8], opts: ReadOptions) {
    let mut graph_names = vec!["g.txt", "g.csv"];
    for (r, name) in [
        (io::parse_npy(bytes), "g.npy"),
        (io::parse_mtx(bytes), "g.mtx"),
        (io::parse_csv(bytes), ""),
    ] {
        match r {
            // A mutated size line can declare a large, empty coordinate matrix; the graph reader
            // would then scan every entry of it, which is slow in a debug build but not a bug.
            Ok(m) => {
                well_formed(&m);
                if m.data.len() <= 1 << 16 && !name.is_empty() {
                    graph_names.push(name);
                }
            }
            Err(e) => {
                expected_error(&e);
                if !name.is_empty() {
                    graph_names.push(name);
                }
            }
        }
    }
    match io::parse_npy_batch(bytes) {
        Ok(ms) => ms.iter().for_each(well_formed),
        Err(e) => expected_error(&e),
    }
    for name in graph_names {
        let o = if name.ends_with(".txt") || name.ends_with(".csv") {
            opts
        } else {
            ReadOptions {
                directed: opts.directed,
                ..Default::default()
            }
        };
        match graph::parse_graph(Path::new(name), bytes, o) {
            Ok(g) => {
                assert!(g.nodes <= graph::MAX_NODES);
                assert!(g.edges.iter().all(|&(u, v)| u < g.nodes && v < g.nodes));
            }
            Err(e) => expected_error(&e),
        }
    }
}

fn read_options() -> impl Strategy<Value = ReadOptions> {
    (
        any::<bool>(),
        any::<bool>(),
        proptest::option::of(0usize..graph::MAX_NODES + 2),
    )
        .prop_map(|(directed, one_based, nodes)| ReadOptions {
            directed,
            one_based,
            nodes,
        })
}

/// `cases` per property, or `PROPTEST_CASES` for a longer run.
fn config(cases: u32) -> Config {
    Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(cases),
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// Arbitrary bytes, and arbitrary bytes behind each format's magic or header.
    #[test]
    fn arbitrary_bytes_never_panic(
        body in proptest::collection::vec(any::<u8>(), 0..512),
        prefix in 0usize..5,
        opts in read_options(),
    ) {
        let head: &[u8] = match prefix {
            0 => b"",
            1 => b"\x93NUMPY\x01\x00",
            2 => b"%%MatrixMarket matrix coordinate real general\n",
            3 => b"%%MatrixMarket matrix array real general\n",
            _ => b"0 1\n",
        };
        let bytes = [head, &body].concat();
        feed(&bytes, opts);
    }
}

proptest! {
    #![proptest_config(config(512))]

    /// Valid files of every format, mutated a few times over.
    #[test]
    fn mutated_valid_files_never_panic(
        seed in any::<prop::sample::Index>(),
        mutations in proptest::collection::vec(mutation(), 1..6),
        opts in read_options(),
    ) {
        let seeds = seeds_cached();
        let (_, original) = &seeds[seed.index(seeds.len())];
        let mut bytes = original.clone();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        feed(&bytes, opts);
    }
}

fn seeds_cached() -> &'static [(&'static str, Vec<u8>)] {
    static SEEDS: std::sync::OnceLock<Vec<(&'static str, Vec<u8>)>> = std::sync::OnceLock::new();
    SEEDS.get_or_init(seeds)
}

/// The unmutated seeds read back as what they hold (so the mutations start from valid files).
#[test]
fn seeds_are_valid_files() {
    for (ext, bytes) in seeds_cached() {
        let name = format!("seed.{ext}");
        match *ext {
            "txt" => {
                graph::parse_graph(Path::new(&name), bytes, ReadOptions::default()).unwrap();
            }
            _ if name == "seed.npy" && io::parse_batch(Path::new(&name), bytes).is_ok() => {}
            _ => {
                // numpy_fortran and numpy_int64 are refused by design: with a Format error.
                if let Err(e) = io::parse_matrix(Path::new(&name), bytes) {
                    assert!(matches!(e, Error::Format { .. }), "{name}: {e}");
                }
            }
        }
    }
}

/// Regressions the property tests and fuzzers found, kept as plain cases.
#[test]
fn found_cases_stay_fixed() {
    // `--nodes 0` with any edge: computing the accepted id range underflowed (a debug panic).
    let e = graph::parse_edge_list(
        Path::new("g.txt"),
        "0 1\n",
        ReadOptions {
            nodes: Some(0),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("--nodes 0 allows no nodes"), "{e}");
    // A coordinate file declaring a large, empty matrix is read without writing all of it.
    let m =
        io::parse_mtx(b"%%MatrixMarket matrix coordinate real general\n20000 20000 1\n3 4 1.5\n")
            .unwrap();
    assert_eq!((m.rows, m.cols, m.data[2 * 20000 + 3]), (20000, 20000, 1.5));
}
