//! The method table's own checks: order, names, loop counts, which methods draw.

use super::*;

/// The render-pass methods, those the page offers on WebGL2, are the five that draw.
#[test]
fn the_render_pass_methods_are_the_ones_that_draw() {
    let drawn: Vec<Method> = Method::ALL
        .iter()
        .copied()
        .filter(|m| m.is_render_pass())
        .collect();
    assert_eq!(
        drawn,
        [
            Method::Lm,
            Method::HallBlocked,
            Method::HallPacked,
            Method::FragMrt,
            Method::FragMrtF16
        ]
    );
}

#[test]
fn every_gpu_method_says_how_its_loops_grow_with_k() {
    let limits = wgpu::Limits::default();
    for &m in Method::ALL {
        let Some(loops) = m.loops() else {
            assert!(!m.uses_wgpu(), "{m}: a wgpu method without its loop count");
            continue;
        };
        assert!(m.uses_wgpu(), "{m}: only wgpu's shader loops are counted");
        // Never fewer iterations for a deeper product, and at least one per pass of a loop.
        let mut last = 0;
        for k in [1, 2, 7, 16, 17, 1000, 65_535, 65_536, 1 << 21] {
            let it = (loops.iterations)(&limits, 3, k, 2);
            assert!(it >= last && it >= 1, "{m} at k = {k}: {it} after {last}");
            last = it;
        }
    }
    // The counts the numbers follow from (lavapipe unrolls some of these loops).
    assert_eq!(cs_naive::loop_iterations(65_535), 65_536);
    assert_eq!(cs_tiled::loop_iterations(16, 16 * 65_535), 18 * 65_535 + 1);
    assert_eq!(kk73::outer_product::loop_iterations(16), 295 + 35);
    assert_eq!(k_steps(17, 16, 18, 1), 37);
}

#[test]
fn every_row_sits_at_its_variants_index_and_names_are_unique() {
    for (i, info) in TABLE.iter().enumerate() {
        assert_eq!(info.method as usize, i, "{} is out of order", info.name);
    }
    let mut names: Vec<&str> = TABLE.iter().map(|i| i.name).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), TABLE.len());
}
