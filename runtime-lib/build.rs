//! Builds the runtime's two static archives into OUT_DIR; `lib.rs` embeds them.
//!
//! - `libsyncmut_rt.a` (C): activation, trace buffer, pthread wrappers. Needs only libc,
//!   so pthread designs link without libstdc++ or SystemC (`std_future.c` calls into
//!   libstdc++, but only C++ designs that wait on a future pull its object in).
//! - `libsyncmut_rt_sc.a` (C++17): SystemC wrappers; calls into the C archive, so link
//!   it first: `libsyncmut_rt_sc.a libsyncmut_rt.a -lsystemc`.
//!
//! - `libsyncmut_rt_asan.a`, `libsyncmut_rt_sc_asan.a`: the same, built by clang-16 with
//!   `-fsanitize=address,undefined` for `SYNCMUT_SANITIZE=1` (the sanitizers' runtime is
//!   clang's, so the objects must come from clang too). Without clang-16 they are left
//!   empty and syncmut says so when they are asked for.
//!
//! Nothing is linked into the Rust crate itself (`cargo_metadata(false)`).
//!
//! It also generates the Rust side of `include/syncmut_schedules.def`,
//! `$OUT_DIR/schedule_kinds.rs`: one `schedule_kinds! { … }` invocation that
//! `src/schedule.rs` includes, so the parser of `SYNCMUT_SCHEDULE` and the values syncmut
//! composes come from one list (as the mutator's build script does for the operators).

use std::path::{Path, PathBuf};

mod xmacro;

const SCHEDULES: &str = "include/syncmut_schedules.def";

/// `$OUT_DIR/schedule_kinds.rs` from the list of schedule kinds; panics naming the line
/// that breaks the list's rules.
fn schedule_kinds(out: &Path) {
    let text = std::fs::read_to_string(SCHEDULES).unwrap_or_else(|e| panic!("{SCHEDULES}: {e}"));
    let lines = xmacro::lines(SCHEDULES, &text, "SYNCMUT_SCHEDULE");
    let mut generated = format!("schedule_kinds! {{\n    count: {};\n", lines.len());
    let mut seen = std::collections::HashSet::new();
    for (number, args) in lines {
        let fail = |why: String| -> ! { panic!("{SCHEDULES}:{number}: {why}") };
        let [variant, c_name, name, syntax]: [String; 4] =
            args.try_into().unwrap_or_else(|a: Vec<String>| {
                fail(format!("expected 4 arguments, found {}", a.len()))
            });
        let (camel, upper) = xmacro::spellings(&name).unwrap_or_else(|why| fail(why));
        if variant != camel || c_name != upper {
            fail(format!(
                "{name:?} must be named {camel} in Rust and {upper} in C"
            ));
        }
        if !seen.insert(name.clone()) {
            fail(format!("{name:?} appears twice"));
        }
        if !syntax.starts_with(&name) {
            fail(format!("the syntax of {name:?} must start with its name"));
        }
        generated.push_str(&format!("    {variant}, {name:?}, {syntax:?};\n"));
    }
    generated.push_str("}\n");
    let dest = out.join("schedule_kinds.rs");
    std::fs::write(&dest, generated).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}

fn sources(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

/// Flags of the sanitized archives: every check that helps, with frames kept so
/// reports name the runtime's functions and lines. No fake stacks for
/// use-after-return: SystemC threads are coroutines on their own stacks, switched
/// without telling ASan, and a wrapper's locals live across that switch (a `wait`), so
/// ASan would recycle their fake frame under them.
const SANITIZE_FLAGS: &[&str] = &[
    "-fsanitize=address,undefined",
    "-fsanitize-address-use-after-return=never",
    "-fno-omit-frame-pointer",
    "-g",
    "-fno-sanitize-recover=undefined",
];

fn base(src: &Path, compiler: Option<&Path>) -> cc::Build {
    let mut build = cc::Build::new();
    if let Some(compiler) = compiler {
        build.compiler(compiler);
        for flag in SANITIZE_FLAGS {
            build.flag(flag);
        }
    }
    // Every file first binds the runtime's libc calls to libc (libc_names.h says why).
    let pinned = src.join("libc_names.h");
    build
        .cargo_metadata(false)
        .flag("-include")
        .flag(pinned.to_str().expect("a UTF-8 source path"))
        .include(src)
        .include("include")
        // Position-independent code for executables only (the runtime is linked into
        // the design's executable, never into a shared object): calls between the
        // runtime's own functions are direct and may be inlined, and its thread-local
        // state is one %fs-relative access. -fPIC made every exported function
        // interposable (perf: 5% of a traced SystemC run in calls that -fPIE inlines).
        .pic(false)
        .flag("-fPIE")
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
    println!("cargo:rerun-if-changed=xmacro.rs");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    schedule_kinds(&out);
    // The C and C++ files one by one, not the whole `src` directory: the crate's Rust
    // modules live there too, and editing them must not rebuild the four archives. (A new
    // C file is picked up at the next change of this file or of `include`.)
    println!("cargo:rerun-if-changed=include");
    let c_files = sources(src, "c");
    let cpp_files = sources(src, "cpp");
    for file in sources(src, "h").iter().chain(&c_files).chain(&cpp_files) {
        println!("cargo:rerun-if-changed={}", file.display());
    }

    // The sanitized archives need clang's C and C++ compilers.
    let clang = find_tool("clang-16", "clang").zip(find_tool("clang++-16", "clang++"));
    if clang.is_none() {
        println!("cargo:warning=clang-16 not found: SYNCMUT_SANITIZE=1 will not be available");
    }
    let variants = [(None, ""), (clang.as_ref(), "_asan")];
    for (compilers, suffix) in variants {
        if suffix == "_asan" && compilers.is_none() {
            for name in ["libsyncmut_rt_asan.a", "libsyncmut_rt_sc_asan.a"] {
                std::fs::write(out.join(name), b"").expect("write an empty archive");
            }
            continue;
        }
        base(src, compilers.map(|(c, _)| c.as_path()))
            .files(&c_files)
            .std("c11")
            // Unwind tables, so C++ exceptions and pthread cancellation can cross the wrappers.
            .flag("-fexceptions")
            .compile(&format!("syncmut_rt{suffix}"));

        base(src, compilers.map(|(_, cxx)| cxx.as_path()))
            .cpp(true)
            .files(&cpp_files)
            // Debian's libsystemc exports only the C++17 API-version symbol.
            .std("c++17")
            .compile(&format!("syncmut_rt_sc{suffix}"));
    }
}

/// `versioned` on PATH, else `plain` in LLVM 16's own bin directory.
fn find_tool(versioned: &str, plain: &str) -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(versioned))
            .find(|c| c.is_file())
    });
    on_path.or_else(|| Some(Path::new("/usr/lib/llvm-16/bin").join(plain)).filter(|c| c.is_file()))
}
