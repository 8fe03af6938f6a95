//! Builds the runtime's two static archives into OUT_DIR; `lib.rs` embeds them.
//!
//! - `libsyncmut_rt.a` (C): activation, trace buffer, pthread wrappers. Needs only libc,
//!   so pthread designs link without libstdc++ or SystemC.
//! - `libsyncmut_rt_sc.a` (C++17): SystemC wrappers; calls into the C archive, so link
//!   it first: `libsyncmut_rt_sc.a libsyncmut_rt.a -lsystemc`.
//!
//! Nothing is linked into the Rust crate itself (`cargo_metadata(false)`).

use std::path::{Path, PathBuf};

fn sources(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

fn base(src: &Path) -> cc::Build {
    let mut build = cc::Build::new();
    build
        .cargo_metadata(false)
        .include(src)
        .include("include")
        .pic(true)
        .warnings(true)
        .extra_warnings(true)
        // The runtime runs inside the design under test: keep its overhead, and so its
        // effect on interleavings, the same whichever profile builds syncmut.
        .opt_level(2);
    build
}

fn main() {
    let src = Path::new("src");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=include");
    let c_files = sources(src, "c");
    let cpp_files = sources(src, "cpp");
    for file in sources(src, "h").iter().chain(&c_files).chain(&cpp_files) {
        println!("cargo:rerun-if-changed={}", file.display());
    }

    base(src)
        .files(&c_files)
        .std("c11")
        // Unwind tables, so C++ exceptions and pthread cancellation can cross the wrappers.
        .flag("-fexceptions")
        .compile("syncmut_rt");

    base(src)
        .cpp(true)
        .files(&cpp_files)
        // Debian's libsystemc exports only the C++17 API-version symbol.
        .std("c++17")
        .compile("syncmut_rt_sc");
}
