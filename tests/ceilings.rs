//! The ceilings run on the adapter and give finite, positive rates for every one of them.

mod common;
use common::ctx;

#[test]
fn ceilings_measure_every_rate_on_this_adapter() {
    let c = rendermm::bench::ceilings::measure(ctx(), true).unwrap();
    let names: Vec<&str> = c.ceilings.iter().map(|c| c.name.as_str()).collect();
    for want in [
        "fragment-fma",
        "compute-fma",
        "blend-r32f",
        "texture-fetch",
        "copy-d2d",
        "copy-h2d",
        "copy-d2h",
    ] {
        assert!(names.contains(&want), "missing {want} in {names:?}");
    }
    for x in &c.ceilings {
        assert!(
            x.value.is_finite() && x.value > 0.0,
            "{} = {} {}",
            x.name,
            x.value,
            x.unit
        );
    }
}
