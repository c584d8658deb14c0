//! The edge-list reader on arbitrary bytes under every combination of its options: the first
//! byte picks directed / one-based / a `--nodes` count (from the next two bytes), the rest is the
//! file. A graph whose edges name nodes below its count, or an error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rendermm::Error;
use rendermm::reach::graph::{self, ReadOptions};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let (nodes, text) = if flags & 4 != 0 && rest.len() >= 2 {
        // 0..=MAX_NODES + 1, so the limit and one past it are both reached.
        let n = u16::from_le_bytes([rest[0], rest[1]]) as usize % (graph::MAX_NODES + 2);
        (Some(n), &rest[2..])
    } else {
        (None, rest)
    };
    let opts = ReadOptions {
        directed: flags & 1 != 0,
        one_based: flags & 2 != 0,
        nodes,
    };
    match graph::parse_edge_list_bytes(Path::new("g.txt"), text, opts) {
        Ok(g) => {
            assert!(g.nodes <= graph::MAX_NODES);
            assert!(g.edges.iter().all(|&(u, v)| u < g.nodes && v < g.nodes));
            // The CPU side the GPU results are checked against must take any graph read.
            if g.nodes <= 64 {
                let r = graph::cpu_reach(&g, Some(2));
                assert_eq!(r.data.len(), g.nodes * g.nodes);
                let c = graph::cpu_components(&g);
                assert_eq!(c.labels.len(), g.nodes);
            }
        }
        Err(e) => assert!(
            matches!(e, Error::Format { .. } | Error::Invalid(_)),
            "{e:?}"
        ),
    }
});
