//! Every WGSL file in `shaders/` parses and validates with naga (the compiler wgpu uses), so a
//! broken shader fails here with its file name rather than inside a method.

use wgpu::naga;

#[test]
fn every_shader_validates_with_naga() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut checked = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.extension().and_then(|e| e.to_str()) != Some("wgsl") {
            continue;
        }
        let mut src = std::fs::read_to_string(&path).unwrap();
        // A file the host compiles with another appended says so ("The host appends X.wgsl");
        // validate it as compiled.
        let appended = src
            .split("The host appends ")
            .nth(1)
            .map(|rest| rest.split_whitespace().next().unwrap().to_string());
        if let Some(name) = appended {
            src.push('\n');
            src.push_str(&std::fs::read_to_string(dir.join(name)).unwrap());
        }
        let module = naga::front::wgsl::parse_str(&src)
            .unwrap_or_else(|e| panic!("{}: {}", path.display(), e.emit_to_string(&src)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{}: {}", path.display(), e.emit_to_string(&src)));
        checked += 1;
    }
    assert!(checked >= 1, "no shaders found in {}", dir.display());
}

#[test]
fn a_broken_shader_is_an_error_not_a_panic() {
    let ctx = rendermm::gpu::GpuContext::new().expect("a GPU adapter (lavapipe is fine)");
    let err = ctx
        .shader(
            "broken.wgsl",
            "@fragment fn fs_main() -> @location(0) vec4f { return 1.0; }",
        )
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("broken.wgsl") && msg.contains("validation"),
        "{msg}"
    );
}
