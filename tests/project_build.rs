//! A multi-file C project used through its own build: `make CC="syncmut cc"` and a
//! CMake-generated `compile_commands.json` give the same catalogue as naming the
//! sources, and the programs they describe link and run.

mod util;

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh copy of tests/fixtures/project (builds write into the tree).
fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("project");
    let status = Command::new("cp")
        .arg("-r")
        .arg(util::fixture("project"))
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    (dir, copy)
}

fn syncmut_path() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_syncmut"))
}

fn catalogue(args: &[&std::ffi::OsStr]) -> serde_json::Value {
    let output = util::syncmut()
        .arg("list")
        .arg("--json")
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "syncmut list {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn tool(name: &str) -> Command {
    let found = Command::new(name)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(found, "`{name}` is missing: run scripts/setup.sh");
    Command::new(name)
}

/// Builds the metamutant of `design` and runs it and the original without a mutant.
fn runs_as_built(design: &[&std::ffi::OsStr], out: &Path) {
    let mutate = util::syncmut()
        .arg("mutate")
        .args(design)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        mutate.status.success(),
        "{}",
        String::from_utf8_lossy(&mutate.stderr)
    );
    for exe in ["original", "metamutant"] {
        let run = Command::new(out.join(exe)).output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&run.stdout),
            "total 91, root 9.539, items 6\n",
            "{exe}"
        );
    }
}

#[test]
fn make_through_the_wrapper_gives_the_catalogue_of_the_sources() {
    let (_keep, project) = project();
    let direct = catalogue(&[project.as_os_str()]);
    assert_eq!(direct["mutants"].as_array().unwrap().len(), 28, "{direct}");

    let cc = format!("CC={} cc", syncmut_path().display());
    let make = tool("make")
        .arg("-C")
        .arg(&project)
        .arg(&cc)
        .output()
        .unwrap();
    assert!(
        make.status.success(),
        "{}",
        String::from_utf8_lossy(&make.stderr)
    );
    // The project's own build is unchanged: its program runs as before.
    let built = Command::new(project.join("workpool")).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&built.stdout),
        "total 91, root 9.539, items 6\n"
    );
    assert!(
        project.join("src/queue.o.syncmut.bc").is_file()
            && project.join("workpool.syncmut").is_file()
    );

    let executable = project.join("workpool");
    assert_eq!(
        catalogue(&[executable.as_os_str()]),
        direct,
        "the executable's catalogue differs from the sources'"
    );
    // `-lm` came from the link line the wrapper saw.
    runs_as_built(&[executable.as_os_str()], &project.join("out"));

    // An object rebuilt without the wrapper is stale: the link says so and records nothing.
    std::fs::remove_file(project.join("workpool.syncmut")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let plain = Command::new("clang-16")
        .current_dir(&project)
        .args(["-Iinclude", "-c", "-o", "src/stats.o", "src/stats.c"])
        .status()
        .unwrap();
    assert!(plain.success());
    let relink = Command::new(syncmut_path())
        .current_dir(&project)
        .args([
            "cc",
            "-o",
            "workpool",
            "src/main.o",
            "src/queue.o",
            "src/stats.o",
            "src/worker.o",
            "-lm",
        ])
        .output()
        .unwrap();
    assert!(relink.status.success());
    let warning = String::from_utf8_lossy(&relink.stderr);
    assert!(
        warning.contains("src/stats.o: not compiled through `syncmut cc`"),
        "{warning}"
    );
    assert!(!project.join("workpool.syncmut").exists());
    let refused = util::syncmut()
        .arg("list")
        .arg(&executable)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&refused.stderr)
        .contains("an executable linked through `syncmut cc`"));
}

#[test]
fn a_cmake_compile_database_gives_the_catalogue_of_the_sources() {
    let (_keep, project) = project();
    let direct = catalogue(&[project.as_os_str()]);
    let build = project.join("build");
    let configure = tool("cmake")
        .arg("-S")
        .arg(&project)
        .arg("-B")
        .arg(&build)
        .arg("-DCMAKE_C_COMPILER=clang-16")
        .output()
        .unwrap();
    assert!(
        configure.status.success(),
        "{}",
        String::from_utf8_lossy(&configure.stderr)
    );
    let db = build.join("compile_commands.json");
    // The program target `workpool` is the only executable; its static library `workq`
    // (the queue and the worker) comes with it from link.txt.
    assert_eq!(
        catalogue(&["--compile-db".as_ref(), db.as_os_str()]),
        direct
    );
    assert_eq!(
        catalogue(&[
            "--compile-db".as_ref(),
            db.as_os_str(),
            "--target".as_ref(),
            "workpool".as_ref()
        ]),
        direct
    );
    runs_as_built(
        &["--compile-db".as_ref(), db.as_os_str()],
        &project.join("out"),
    );

    let library = util::syncmut()
        .args(["list", "--target", "workq", "--compile-db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(library.status.code(), Some(3));
    let message = String::from_utf8_lossy(&library.stderr);
    assert!(
        message.contains("compile_commands.json")
            && message.contains("\"workq\" is a library")
            && message.contains("its programs: workpool"),
        "{message}"
    );
    let missing = util::syncmut()
        .args(["list", "--compile-db"])
        .arg(build.join("nope.json"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&missing.stderr).contains("nope.json: no such file"));
}

#[test]
fn the_settings_file_is_found_beside_the_sources_or_named() {
    let (_keep, project) = project();
    // Beside a named source: syncmut.toml's -Iinclude (relative to the file) and -lm apply.
    let one = util::syncmut()
        .current_dir(std::env::temp_dir())
        .arg("list")
        .arg(project.join("src/queue.c"))
        .output()
        .unwrap();
    assert!(
        !one.status.success(),
        "src/ has no syncmut.toml, and queue.c needs -Iinclude"
    );
    let named = util::syncmut()
        .current_dir(std::env::temp_dir())
        .arg("list")
        .arg("--config")
        .arg(project.join("syncmut.toml"))
        .arg(project.join("src/queue.c"))
        .output()
        .unwrap();
    assert!(
        named.status.success(),
        "{}",
        String::from_utf8_lossy(&named.stderr)
    );
    assert!(String::from_utf8_lossy(&named.stdout).contains("8 sites, 16 mutants"));
    let bad = util::syncmut()
        .args(["list", "--config", "no-such.toml"])
        .arg(&project)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no-such.toml: no such settings file"));
}

#[test]
fn a_database_from_another_build_is_one_program_of_all_its_units() {
    let (_keep, project) = project();
    let direct = catalogue(&[project.as_os_str()]);
    // As Bear writes it over a plain build: "arguments", paths relative to "directory".
    let entry = |file: &str| serde_json::json!({ "directory": project, "file": file, "arguments": ["cc", "-Iinclude", "-O2", "-c", "-o", format!("{file}.o"), file] });
    let units = ["src/main.c", "src/queue.c", "src/stats.c", "src/worker.c"];
    let db = project.join("compile_commands.json");
    std::fs::write(&db, serde_json::to_vec(&units.map(entry)).unwrap()).unwrap();
    let from_db = catalogue(&["--compile-db".as_ref(), db.as_os_str()]);
    assert_eq!(from_db, direct);
    let refused = util::syncmut()
        .args(["list", "--target", "workpool", "--compile-db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("not a CMake build directory's"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );

    // A second program in the same database: its two mains are named, not blamed on bitcode.
    std::fs::write(project.join("src/tool.c"), "int main(void) { return 0; }\n").unwrap();
    let with_tool: Vec<_> = units
        .iter()
        .chain(&["src/tool.c"])
        .map(|f| entry(f))
        .collect();
    std::fs::write(&db, serde_json::to_vec(&with_tool).unwrap()).unwrap();
    let two = util::syncmut()
        .args(["list", "--compile-db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(two.status.code(), Some(3));
    assert!(
        String::from_utf8_lossy(&two.stderr).contains("not one program"),
        "{}",
        String::from_utf8_lossy(&two.stderr)
    );
}

/// Builds as small projects and build tools write them: every source compiled and linked
/// in one `syncmut cc` command, the same from a response file (`@args.rsp`, as CMake and
/// Ninja write them), each giving the catalogue of the named sources and a program that
/// runs; and a compile to a device or to standard output leaves no record beside it.
#[test]
fn one_command_builds_and_response_files_are_recorded() {
    let (_dir, project) = project();
    let sources = ["src/main.c", "src/queue.c", "src/stats.c", "src/worker.c"];
    let cc = |args: &[&str]| {
        let output = Command::new(syncmut_path())
            .arg("cc")
            .args(args)
            .current_dir(&project)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "syncmut cc {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let mut one_step = vec!["-Iinclude", "-O2", "-o", "prog"];
    one_step.extend(sources);
    one_step.extend(["-lm", "-lpthread"]);
    cc(&one_step);
    std::fs::write(
        project.join("args.rsp"),
        format!(
            "-Iinclude \"-O2\"\n-o prog2 {}\n-lm -lpthread\n",
            sources.join(" ")
        ),
    )
    .unwrap();
    cc(&["@args.rsp"]);
    let expected = catalogue(&[project.as_os_str()])["mutants"].clone();
    for program in ["prog", "prog2"] {
        let exe = project.join(program);
        assert_eq!(
            catalogue(&[exe.as_os_str()])["mutants"],
            expected,
            "{program}"
        );
        runs_as_built(&[exe.as_os_str()], &project.join(format!("{program}.out")));
    }
    cc(&["-Iinclude", "-c", "src/queue.c", "-o", "-"]);
    assert!(!project.join("-.syncmut").exists());
    let fifo = project.join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // The compiler writes the object into the pipe: someone has to read it.
    let reader = std::thread::spawn({
        let fifo = fifo.clone();
        move || std::fs::read(fifo).unwrap()
    });
    cc(&["-Iinclude", "-c", "src/queue.c", "-o", "fifo"]);
    reader.join().unwrap();
    assert!(!project.join("fifo.syncmut").exists());
    assert!(!project.join("fifo.syncmut.bc").exists());
}
