//! Bad input gives a clear message naming the file and a documented exit code
//! (docs/exit-codes.md).

mod util;

use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;
use std::path::PathBuf;
use util::syncmut;

/// The mutator's own fixtures of bad input.
fn fixture(name: &str) -> PathBuf {
    util::root().join("mutator/tests/fixtures").join(name)
}

#[test]
fn missing_file() {
    syncmut()
        .args(["list", "no/such/design.c"])
        .assert()
        .code(3)
        .stderr(contains("no/such/design.c: no such file"));
}

#[test]
fn not_c_cpp_or_bitcode() {
    syncmut()
        .arg("list")
        .arg(fixture("not_a_design.txt"))
        .assert()
        .code(3)
        .stderr(contains("not_a_design.txt: not a C/C++ source"));
}

#[test]
fn compile_error_shows_clang_diagnostics() {
    syncmut()
        .arg("list")
        .arg(fixture("compile_error.c"))
        .assert()
        .code(3)
        .stderr(contains("compile_error.c: compilation failed"))
        .stderr(contains("undeclared_variable"));
}

/// OpenMP is refused by name before anything links: its threads and locks are the OpenMP
/// runtime's. It used to end in the linker's undefined `__kmpc_*` symbols (no libomp
/// installed) with a hint to add a library, which would only have led to unscheduled threads.
#[test]
fn openmp_is_refused_in_words() {
    syncmut()
        .arg("list")
        .arg(fixture("openmp.c"))
        .args(["--", "-fopenmp"])
        .assert()
        .code(3)
        .stderr(contains(
            "openmp.c: uses OpenMP (it calls `__kmpc_fork_call`)",
        ))
        .stderr(contains("linking failed").not());
}

#[test]
fn bitcode_from_a_newer_llvm() {
    syncmut()
        .arg("list")
        .arg(fixture("newer_llvm.bc"))
        .assert()
        .code(3)
        .stderr(contains("newer_llvm.bc"))
        .stderr(contains("rebuild it with clang-16"));
}

#[test]
fn garbage_bitcode() {
    let dir = tempfile::tempdir().unwrap();
    let bc = dir.path().join("garbage.bc");
    std::fs::write(&bc, b"BC\xc0\xdegarbage").unwrap();
    syncmut()
        .arg("list")
        .arg(&bc)
        .assert()
        .code(3)
        .stderr(contains("garbage.bc"));
}

#[test]
fn design_without_sync_sites() {
    syncmut()
        .arg("list")
        .arg(fixture("no_sync.c"))
        .assert()
        .code(4)
        .stderr(contains("no_sync.c: no synchronization calls found"));
}

#[test]
fn empty_directory() {
    let dir = tempfile::tempdir().unwrap();
    syncmut()
        .arg("list")
        .arg(dir.path())
        .assert()
        .code(3)
        .stderr(contains("no C/C++ sources in this directory"));
}

#[test]
fn systemc_design_without_the_library_fails_at_link_with_the_output_named() {
    // A SystemC source compiled and linked as a plain C++ program (no sc_main, so syncmut
    // does not add -lsystemc) misses the kernel's symbols.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("no_main.cpp");
    std::fs::write(&src, "#include <systemc.h>\nvoid f(sc_core::sc_event &e) { e.notify(); }\nint main() { return 0; }\n").unwrap();
    let out = dir.path().join("out");
    syncmut()
        .arg("mutate")
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(3)
        .stderr(contains("linking failed"));
}

#[test]
fn numbers_out_of_range_are_refused_before_any_work() {
    let design = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verdicts/crash");
    for (flag, value, says) in [
        ("-j", "4294967296", "jobs (-j) must be between 1 and 256"),
        ("-j", "0", "jobs (-j) must be between 1 and 256"),
        (
            "--schedules",
            "1000000000000",
            "schedules must be at most 1000000",
        ),
        ("--fail-under", "NaN", "between 0 and 100"),
        ("--fail-under=-5", "", "between 0 and 100"),
        ("--fail-under", "101", "between 0 and 100"),
    ] {
        let out = tempfile::tempdir().unwrap();
        let args: Vec<&str> = [flag, value]
            .into_iter()
            .filter(|a| !a.is_empty())
            .collect();
        syncmut()
            .arg("run")
            .arg(&design)
            .arg("-o")
            .arg(out.path())
            .args(args)
            .assert()
            .code(2)
            .stderr(contains(says));
        assert_eq!(
            std::fs::read_dir(out.path()).unwrap().count(),
            0,
            "{flag} {value}: wrote into the output directory"
        );
    }
}

#[test]
fn paths_that_are_not_utf8_are_refused_naming_them() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let odd = std::ffi::OsStr::from_bytes(b"caf\xe9");
    let source = dir.path().join(odd).with_extension("c");
    std::fs::copy(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verdicts/crash/crash.c"),
        &source,
    )
    .unwrap();
    syncmut()
        .arg("list")
        .arg(&source)
        .assert()
        .code(3)
        .stderr(contains("caf").and(contains("not valid UTF-8")));

    let good = dir.path().join("good.c");
    std::fs::copy(&source, &good).unwrap();
    syncmut()
        .arg("mutate")
        .arg(&good)
        .arg("-o")
        .arg(dir.path().join(odd))
        .assert()
        .code(2)
        .stderr(contains("not valid UTF-8"));
}

#[test]
fn tests_that_cannot_be_run_are_refused_naming_the_file() {
    let design = util::fixture("verdicts/crash");
    for (tests, says) in [
        (r#"{"tests":[{"name":".."}]}"#, "not \".\" or \"..\""),
        (r#"{"tests":[{"args":["a\u0000b"]}]}"#, "NUL"),
        (
            &format!(r#"{{"tests":[{{"name":"{}"}}]}}"#, "n".repeat(300)),
            "at most 100",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tests.json");
        std::fs::write(&file, tests).unwrap();
        syncmut()
            .arg("run")
            .arg(&design)
            .arg("--tests")
            .arg(&file)
            .args(["--gen", "none", "-o"])
            .arg(dir.path().join("out"))
            .assert()
            .code(2)
            .stderr(contains("tests.json").and(contains(says)));
    }
}

#[test]
fn a_test_file_with_a_byte_order_mark_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tests.json");
    std::fs::write(&file, "\u{feff}{\"tests\":[{\"name\":\"bom\"}]}").unwrap();
    syncmut()
        .arg("run")
        .arg(util::fixture("verdicts/crash"))
        .arg("--tests")
        .arg(&file)
        .args(["--gen", "none", "-o"])
        .arg(dir.path().join("out"))
        .assert()
        .success();
}
