//! An input file is untrusted (in CI, tests.json comes with the pull request under
//! test): it can make syncmut refuse, never write outside its directories, hang, read
//! without bound, or report on less than it says. docs/reliability.md ("Untrusted
//! input files") lists each case with its test here.

mod util;

use std::path::Path;
use std::time::Duration;

/// `syncmut run DESIGN --tests DIR/tests.json --gen none -o DIR/out` with `tests` as the
/// test file, bounded in time: exit code, stdout and stderr together, the run directory.
fn run(dir: &Path, design: &Path, tests: &str, extra: &[&str]) -> (i32, String) {
    std::fs::write(dir.join("tests.json"), tests).unwrap();
    let out = util::syncmut()
        .current_dir(dir)
        .arg("run")
        .arg(design)
        .args(["--tests", "tests.json", "--gen", "none", "-o", "out"])
        .args(extra)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // A timeout (the hang this file guards against) has no code.
    (out.status.code().expect("syncmut ended by itself"), text)
}

fn leaves() -> std::path::PathBuf {
    util::fixture("hostile/leaves.c")
}

fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` is NUL-terminated.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

#[test]
fn files_never_write_through_a_link_out_of_the_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("lnk")).unwrap();
    std::fs::write(dir.path().join("payload"), "pwned").unwrap();
    let (code, text) = run(
        dir.path(),
        &leaves(),
        r#"{"tests":[{"name":"t","files":[{"from":"lnk","to":"d"},{"from":"payload","to":"d/pwn"}]}]}"#,
        &[],
    );
    assert!(
        !outside.path().join("pwn").exists(),
        "written outside: {text}"
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    assert!(text.contains("files[1].to \"d/pwn\""), "{code}: {text}");
    assert!(text.contains("d is not a directory"), "{text}");
}

#[test]
fn fifos_given_as_inputs_are_refused_at_once_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    mkfifo(&dir.path().join("fifo"));
    std::fs::create_dir(dir.path().join("tree")).unwrap();
    mkfifo(&dir.path().join("tree/pipe"));
    for (tests, field) in [
        (
            r#"{"tests":[{"name":"t","files":["fifo"]}]}"#,
            "files[0].from",
        ),
        (
            r#"{"tests":[{"name":"t","files":["tree"]}]}"#,
            "files[0].from",
        ),
        (
            r#"{"tests":[{"name":"t","stdin":{"file":"fifo"}}]}"#,
            "stdin.file",
        ),
    ] {
        let (code, text) = run(dir.path(), &leaves(), tests, &[]);
        assert_eq!(code, 2, "{tests}: {text}");
        assert!(
            text.contains(field) && text.contains("a FIFO"),
            "{tests}: {text}"
        );
        assert!(text.contains("test \"t\""), "{text}");
    }
    // A FIFO in the directory --test-cmd copies.
    let (code, text) = run(
        dir.path(),
        &leaves(),
        r#"{"tests":[{"name":"t"}]}"#,
        &["--test-cmd", "true"],
    );
    assert_ne!(code, 0, "{text}");
    assert!(
        text.contains("--test-cmd") && text.contains("a FIFO"),
        "{text}"
    );
}

#[test]
fn outputs_that_are_not_regular_files_are_named_never_read_or_passed() {
    let dir = tempfile::tempdir().unwrap();
    for what in ["dir", "fifo", "zero"] {
        let tests = format!(r#"{{"tests":[{{"name":"t","args":["{what}"],"outputs":["out"]}}]}}"#);
        let (code, text) = run(dir.path(), &leaves(), &tests, &[]);
        assert!(
            text.contains("outputs[0] \"out\" cannot be compared"),
            "{what}: exit {code}: {text}"
        );
        let kind = match what {
            "dir" => "a directory",
            "fifo" => "a FIFO",
            _ => "a symbolic link",
        };
        assert!(text.contains(kind), "{what}: {text}");
        assert!(!text.contains("Operation not permitted"), "{text}");
        assert_eq!(code, 7, "{what}: no usable test is left: {text}");
    }
}

#[test]
fn a_large_output_file_is_compared_without_holding_it_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let before = max_rss_of_children_kib();
    let (code, text) = run(
        dir.path(),
        &leaves(),
        r#"{"tests":[{"name":"t","args":["big","400"],"outputs":["out"]}]}"#,
        // One schedule and no runs with real threads: each run writes 400 MiB, and one
        // comparison of it is what is measured.
        &["-j", "1", "--strategy", "default", "--native", "0"],
    );
    assert_eq!(code, 0, "{text}");
    let rss = max_rss_of_children_kib();
    assert!(
        rss < 200 * 1024 || rss == before,
        "syncmut peaked at {rss} KiB reading a 400 MiB output: {text}"
    );
    let outcomes = util::outcomes(&dir.path().join("out"));
    assert!(outcomes["score"]["mutants"].as_u64().unwrap() > 0);
}

/// The largest resident set of any waited-for child so far, in KiB.
fn max_rss_of_children_kib() -> i64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid buffer for the call to fill.
    assert_eq!(
        unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) },
        0
    );
    usage.ru_maxrss
}

#[test]
fn from_follows_one_rule_in_both_forms_and_env_values_have_no_nul() {
    let parent = tempfile::tempdir().unwrap();
    std::fs::write(parent.path().join("secret"), "s").unwrap();
    let dir = parent.path().join("project");
    std::fs::create_dir(&dir).unwrap();
    std::os::unix::fs::symlink(parent.path(), dir.join("up")).unwrap();
    for (tests, says) in [
        (
            r#"{"tests":[{"name":"t","files":["../secret"]}]}"#,
            "files[0].from \"../secret\": must be a relative path without \"..\"",
        ),
        (
            r#"{"tests":[{"name":"t","files":[{"from":"../secret","to":"s"}]}]}"#,
            "files[0].from \"../secret\": must be a relative path without \"..\"",
        ),
        (
            r#"{"tests":[{"name":"t","files":[{"from":"/etc/hostname","to":"s"}]}]}"#,
            "files[0].from \"/etc/hostname\": must be a relative path",
        ),
        (
            r#"{"tests":[{"name":"t","files":[{"from":"up/secret","to":"s"}]}]}"#,
            "leads out of the test file's directory through a symbolic link",
        ),
        (
            r#"{"tests":[{"name":"t","stdin":{"file":"/etc/hostname"}}]}"#,
            "stdin.file \"/etc/hostname\": must be a relative path",
        ),
        (
            r#"{"tests":[{"name":"t","env":{"A":"x\u0000y"}}]}"#,
            "env \"A\": its value contains a NUL character",
        ),
    ] {
        let (code, text) = run(&dir, &leaves(), tests, &[]);
        assert_eq!(code, 2, "{tests}: {text}");
        assert!(text.contains(says), "{tests}: {text}");
        assert!(text.contains("test \"t\""), "{text}");
    }
}

#[test]
fn one_letter_function_names_are_not_read_as_type_codes() {
    let dir = tempfile::tempdir().unwrap();
    let out = util::syncmut()
        .arg("list")
        .arg(util::fixture("hostile/one_letter.c"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("\ns#1:") && text.contains("\nw#1:"), "{text}");
    assert!(
        !text.contains("short") && !text.contains("wchar_t"),
        "{text}"
    );
    let (code, text) = run(
        dir.path(),
        &util::fixture("hostile/one_letter.c"),
        r#"{"tests":[{"name":"t"}]}"#,
        &["--function", "^s$"],
    );
    assert_eq!(code, 0, "{text}");
    let outcomes = util::outcomes(&dir.path().join("out"));
    let ids: Vec<&str> = outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["mutant"].as_str().unwrap())
        .collect();
    assert!(
        !ids.is_empty() && ids.iter().all(|id| id.starts_with("s#")),
        "{ids:?}"
    );
}

/// A design whose locking function has a name of `length` characters.
fn long_named(dir: &Path, length: usize) -> std::path::PathBuf {
    let name = format!("f{}", "o".repeat(length - 1));
    let source = format!(
        "#include <pthread.h>\n#include <stdio.h>\nstatic pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\nstatic int n;\n\
         static void *{name}(void *a) {{ (void)a; pthread_mutex_lock(&m); n++; pthread_mutex_unlock(&m); return NULL; }}\n\
         int main(void) {{ pthread_t t; pthread_create(&t, NULL, {name}, NULL); {name}(NULL); pthread_join(t, NULL); printf(\"n %d\\n\", n); return 0; }}\n"
    );
    let path = dir.join("long.c");
    std::fs::write(&path, source).unwrap();
    path
}

#[test]
fn long_function_names_give_bounded_file_names_and_tables_that_do_not_panic() {
    let dir = tempfile::tempdir().unwrap();
    let design = long_named(dir.path(), 300);
    let (code, text) = run(dir.path(), &design, r#"{"tests":[{"name":"t"}]}"#, &[]);
    assert_eq!(code, 0, "{text}");
    let outcomes = util::outcomes(&dir.path().join("out"));
    let mutants = outcomes["mutants"].as_array().unwrap();
    assert!(mutants.len() > 1);
    for m in mutants {
        assert_ne!(m["verdict"], "error", "{m}");
    }
    // 65,535 characters: the terminal table cuts the cell instead of panicking.
    let huge = tempfile::tempdir().unwrap();
    let design = long_named(huge.path(), 65_535);
    let out = util::syncmut().arg("list").arg(&design).output().unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}: {text}", out.status.code());
    assert!(String::from_utf8_lossy(&out.stdout).contains('…'));
}
