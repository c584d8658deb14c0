//! The WGSL shaders compiled into the crate, as the GPU gets them: each file of `shaders/`
//! copied into `OUT_DIR/shaders/` without its `//` comments, each line kept in its place so that
//! a compiler's line numbers still point into the file in `shaders/`. The comments are the
//! shaders' prose for readers of the repository (what each pass computes, the paper's section);
//! the page's download and the binary carry the code alone. Methods include them with
//! `include_str!(concat!(env!("OUT_DIR"), "/shaders/NAME.wgsl"))`.

use std::fs;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=shaders");
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("shaders");
    fs::create_dir_all(&out).expect("OUT_DIR is writable");
    let mut entries: Vec<_> = fs::read_dir("shaders")
        .expect("shaders/ is beside Cargo.toml")
        .map(|e| e.expect("a readable entry of shaders/").path())
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    entries.sort();
    for path in entries {
        println!("cargo:rerun-if-changed={}", path.display());
        let text = fs::read_to_string(&path).expect("a WGSL file is UTF-8 text");
        // WGSL has no string literals: `//` always starts a comment.
        let code: String = text
            .lines()
            .map(|line| line.split("//").next().unwrap_or("").trim_end())
            .flat_map(|line| [line, "\n"])
            .collect();
        let name = path.file_name().expect("a file name");
        fs::write(out.join(name), code).expect("OUT_DIR is writable");
    }
}
