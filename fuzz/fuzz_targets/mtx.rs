//! The Matrix Market reader on arbitrary bytes: a dense matrix whose data matches its shape, or
//! an error, never a panic. Small results also go through the graph reader's adjacency path.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rendermm::Error;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    match rendermm::io::parse_mtx(data) {
        // Only the length is checked: a `coordinate` file may declare a large, mostly empty
        // matrix, whose untouched zero pages should stay untouched.
        Ok(m) => {
            assert_eq!(Some(m.data.len()), m.rows.checked_mul(m.cols));
            if m.data.len() <= 1 << 16 {
                let g = rendermm::reach::graph::from_matrix(Path::new("g.mtx"), &m, false);
                if let Ok(g) = g {
                    assert!(g.edges.iter().all(|&(u, v)| u < g.nodes && v < g.nodes));
                }
            }
        }
        Err(e) => assert!(matches!(e, Error::Format { .. }), "{e:?}"),
    }
});
