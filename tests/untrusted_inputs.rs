//! Input files that come with the change under test (compile_commands.json,
//! syncmut.toml, `syncmut cc` command lines, a shared compile cache, shard directories)
//! may make syncmut refuse, but never write outside its directories, run foreign code,
//! or report a number computed on less than it says (docs/reliability.md, "Untrusted
//! input files").

mod util;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn design() -> PathBuf {
    util::fixture("untrusted/tally.c")
}

fn stderr_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A compile database whose entry asks clang to write files at chosen absolute paths
/// (`-MJ`, `--serialize-diagnostics`, `-save-temps` in another directory) and to load
/// a plugin, and a syncmut.toml asking the same: `syncmut list` drops each flag with a
/// warning naming the file and the flag, and nothing is written there.
#[test]
fn flags_that_write_files_or_load_code_are_dropped_naming_the_file_and_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let (victim, elsewhere, project) = (
        dir.path().join("victim"),
        dir.path().join("elsewhere"),
        dir.path().join("project"),
    );
    for d in [&victim, &elsewhere, &project] {
        std::fs::create_dir(d).unwrap();
    }
    std::fs::copy(design(), project.join("tally.c")).unwrap();
    let db = project.join("compile_commands.json");
    let source = project.join("tally.c");
    let entry = serde_json::json!([{
        "directory": elsewhere,
        "file": source,
        "arguments": [
            "cc", "-c", source, "-o", "tally.o", "-DTALLY_LABEL=\"sum\"",
            "-MJ", victim.join("mj.json"),
            "--serialize-diagnostics", victim.join("diag.dia"),
            "-save-temps",
            "-fplugin=./not_a_plugin.so",
            "-Xclang", "-load", "-Xclang", "./not_a_plugin.so",
        ],
    }]);
    std::fs::write(&db, serde_json::to_vec(&entry).unwrap()).unwrap();
    let listed = util::syncmut()
        .env("SYNCMUT_CACHE", "0")
        .args(["list", "--compile-db"])
        .arg(&db)
        .output()
        .unwrap();
    let stderr = stderr_of(&listed);
    assert_eq!(listed.status.code(), Some(0), "{stderr}");
    assert!(files_in(&victim).is_empty(), "{:?}", files_in(&victim));
    assert!(
        files_in(&elsewhere).is_empty(),
        "{:?}",
        files_in(&elsewhere)
    );
    for flag in [
        format!("-MJ {}", victim.join("mj.json").display()),
        format!(
            "--serialize-diagnostics {}",
            victim.join("diag.dia").display()
        ),
        "-save-temps".to_string(),
        "-fplugin=./not_a_plugin.so".to_string(),
        "-Xclang -load".to_string(),
    ] {
        assert!(
            stderr.contains(&format!(
                "warning: {}: compiler flag `{flag}` dropped",
                db.display()
            )),
            "{flag}: {stderr}"
        );
    }
    // The unit's own flags that change the code still reach clang.
    assert!(String::from_utf8_lossy(&listed.stdout).contains("3 sites, 6 mutants"));

    // syncmut.toml's flags go through the same allowlist.
    std::fs::remove_file(&db).unwrap();
    let toml = project.join("syncmut.toml");
    std::fs::write(
        &toml,
        format!(
            "flags = [\"-MJ\", \"{}\", \"-fplugin=./not_a_plugin.so\", \"-DTALLY_LABEL=\\\"sum\\\"\"]\n",
            victim.join("toml.json").display()
        ),
    )
    .unwrap();
    let listed = util::syncmut()
        .env("SYNCMUT_CACHE", "0")
        .arg("list")
        .arg(&project)
        .output()
        .unwrap();
    let stderr = stderr_of(&listed);
    assert_eq!(listed.status.code(), Some(0), "{stderr}");
    assert!(files_in(&victim).is_empty(), "{:?}", files_in(&victim));
    assert!(
        stderr.contains(&format!(
            "warning: {}: compiler flag `-MJ {}` dropped",
            toml.display(),
            victim.join("toml.json").display()
        )),
        "{stderr}"
    );

    // A `syncmut cc` command line: the project's own compiler (here `true`, as a
    // launcher) runs it as given; syncmut's bitcode compile drops the flag.
    let object = project.join("tally.o");
    std::fs::write(&object, b"").unwrap();
    let cc = Command::new(assert_cmd::cargo::cargo_bin("syncmut"))
        .current_dir(&project)
        .env("SYNCMUT_CACHE", "0")
        .args(["cc", "/bin/true", "-c", "tally.c", "-o", "tally.o", "-MJ"])
        .arg(victim.join("cc.json"))
        .output()
        .unwrap();
    let stderr = stderr_of(&cc);
    assert_eq!(cc.status.code(), Some(0), "{stderr}");
    assert!(files_in(&victim).is_empty(), "{:?}", files_in(&victim));
    assert!(
        stderr.contains("syncmut cc: warning: the compiler command line: compiler flag `-MJ"),
        "{stderr}"
    );
    assert!(project.join("tally.o.syncmut").is_file(), "{stderr}");
}

/// `syncmut cc` writes its records beside the compiler's output only when that output
/// is a regular file: not beside a link to a device (the default `<stem>.o`), not as
/// `./-.syncmut` for standard output, and it finds `--output=` as the compiler does.
#[test]
fn syncmut_cc_records_nothing_beside_a_device_or_standard_output_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    std::fs::copy(design(), project.join("tally.c")).unwrap();
    let cc = |args: &[&str]| {
        let output = Command::new(assert_cmd::cargo::cargo_bin("syncmut"))
            .current_dir(project)
            .env("SYNCMUT_CACHE", "0")
            .arg("cc")
            .args(args)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
        stderr_of(&output)
    };
    std::os::unix::fs::symlink("/dev/null", project.join("tally.o")).unwrap();
    let said = cc(&["-c", "tally.c"]);
    assert!(said.contains("recorded nothing"), "{said}");
    assert!(!project.join("tally.o.syncmut").exists());
    assert!(!project.join("tally.o.syncmut.bc").exists());
    std::fs::remove_file(project.join("tally.o")).unwrap();

    // A regular file named `-` does not make standard output one.
    std::fs::write(project.join("-"), b"").unwrap();
    let said = cc(&["-c", "tally.c", "-o", "-"]);
    assert!(said.contains("recorded nothing"), "{said}");
    assert!(!project.join("-.syncmut").exists());

    cc(&["-c", "tally.c", "--output=named.o"]);
    assert!(project.join("named.o.syncmut").is_file());
    assert!(!project.join("tally.o.syncmut").exists());
}

/// A shared compile cache whose entries were cut short: the next build notices,
/// compiles again, replaces the entries and says so, instead of failing on the design
/// ("cannot read this LLVM module") for good.
#[test]
fn a_damaged_compile_cache_entry_is_compiled_again_and_replaced_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let list = || {
        util::syncmut()
            .env("SYNCMUT_CACHE_DIR", &cache)
            .arg("list")
            .arg(design())
            .output()
            .unwrap()
    };
    let first = list();
    assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
    let entries: Vec<PathBuf> = std::fs::read_dir(cache.join("tu"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(!entries.is_empty());
    for entry in &entries {
        let bytes = std::fs::read(entry).unwrap();
        std::fs::write(entry, &bytes[..bytes.len() - 200]).unwrap();
    }
    let second = list();
    let stderr = stderr_of(&second);
    assert_eq!(second.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("compile cache entry") && stderr.contains("compiled again"),
        "{stderr}"
    );
    assert_eq!(second.stdout, first.stdout);
    let third = list();
    assert!(
        !stderr_of(&third).contains("compile cache entry"),
        "the entry was replaced: {}",
        stderr_of(&third)
    );
}

/// The same for a linked executable: an entry cut short is linked again, replaced and
/// said, and the executables still run.
#[test]
fn a_damaged_link_cache_entry_is_linked_again_and_replaced_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let mutate = |out: &str| {
        util::syncmut()
            .env("SYNCMUT_CACHE_DIR", &cache)
            .arg("mutate")
            .arg(design())
            .arg("-o")
            .arg(dir.path().join(out))
            .output()
            .unwrap()
    };
    let first = mutate("first");
    assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
    let entries: Vec<PathBuf> = std::fs::read_dir(cache.join("link"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(
        entries.len(),
        2,
        "the original and the metamutant: {entries:?}"
    );
    for entry in &entries {
        let bytes = std::fs::read(entry).unwrap();
        std::fs::write(entry, &bytes[..bytes.len() - 200]).unwrap();
    }
    let second = mutate("second");
    let stderr = stderr_of(&second);
    assert_eq!(second.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stderr.matches("link cache entry for").count(),
        2,
        "{stderr}"
    );
    assert!(stderr.contains("the executable linked again"), "{stderr}");
    let ran = std::process::Command::new(dir.path().join("second/original"))
        .output()
        .unwrap();
    assert!(ran.status.success(), "{}", stderr_of(&ran));
    let third = mutate("third");
    assert!(
        !stderr_of(&third).contains("link cache entry"),
        "the entries were replaced: {}",
        stderr_of(&third)
    );
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Shards are merged only as the whole split of one build: a missing shard, a shard
/// given twice, or a shard of another version of the source (same sites, other output)
/// is refused; `--allow-partial` merges what is there marked incomplete; the output is
/// never a shard; and `report -o` never replaces a shard's results.
#[test]
fn merge_takes_only_a_whole_split_of_one_build_and_never_writes_over_a_shard() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let other = root.join("v2");
    std::fs::create_dir(&other).unwrap();
    let text = std::fs::read_to_string(design()).unwrap();
    std::fs::write(
        other.join("tally.c"),
        text.replace(
            "#define TALLY_LABEL \"tally\"",
            "#define TALLY_LABEL \"total\"",
        ),
    )
    .unwrap();
    let tests = util::fixture("untrusted/tests.json");
    let run = |source: &Path, out: &str, shard: &str| {
        let output = util::syncmut()
            .arg("run")
            .arg(source)
            .arg("--tests")
            .arg(&tests)
            .args(["--gen", "none", "--shard", shard, "-o"])
            .arg(root.join(out))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    };
    for k in 1..=3 {
        run(&design(), &format!("s{k}"), &format!("{k}/3"));
    }
    run(&other.join("tally.c"), "v2s3", "3/3");
    let record = json(&root.join("s2/shard.json"));
    assert_eq!(
        (record["k"].as_u64(), record["n"].as_u64()),
        (Some(2), Some(3))
    );
    let merge = |args: &[&str]| {
        util::syncmut()
            .current_dir(root)
            .arg("merge")
            .args(args)
            .output()
            .unwrap()
    };
    let refused = |args: &[&str], why: &str| {
        let output = merge(args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr_of(&output)
        );
        assert!(
            stderr_of(&output).contains(why),
            "{args:?}: {}",
            stderr_of(&output)
        );
    };
    refused(&["s1", "s2", "-o", "m"], "shard is 3/3 missing");
    refused(
        &["s1", "s2", "s2", "s3", "-o", "m"],
        "shard 2/3 given twice",
    );
    refused(
        &["s1", "s2", "v2s3", "-o", "m"],
        "the original showed something else",
    );
    assert!(!root.join("m").exists());

    let kept = std::fs::read(root.join("s1/outcomes.json")).unwrap();
    refused(&["s1", "s2", "s3", "-o", "s1"], "is the shard s1");
    refused(
        &["s1", "s2", "s3", "-o", "s1/merged"],
        "is inside the shard s1",
    );
    refused(&["s1", "s2", "s3", "-o", "."], "holds the shard s1");
    assert_eq!(std::fs::read(root.join("s1/outcomes.json")).unwrap(), kept);
    let report = util::syncmut()
        .arg("report")
        .arg(root.join("s1"))
        .args(["--format", "csv", "-o"])
        .arg(root.join("s1/shard.json"))
        .output()
        .unwrap();
    assert_eq!(report.status.code(), Some(2), "{}", stderr_of(&report));

    let partial = merge(&["s1", "s2", "--allow-partial", "-o", "partial"]);
    assert_eq!(partial.status.code(), Some(0), "{}", stderr_of(&partial));
    assert!(
        stderr_of(&partial).contains("shard 3/3 missing"),
        "{}",
        stderr_of(&partial)
    );
    assert_eq!(json(&root.join("partial/outcomes.json"))["complete"], false);

    let whole = merge(&["s1", "s2", "s3", "-o", "whole"]);
    assert_eq!(whole.status.code(), Some(0), "{}", stderr_of(&whole));
    assert_eq!(json(&root.join("whole/outcomes.json"))["complete"], true);
}

/// Every path under `dir`, with each file's contents, sorted: what a command must leave
/// unchanged.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            let contents = match entry.file_type().unwrap().is_dir() {
                true => {
                    todo.push(path.clone());
                    Vec::new()
                }
                false => std::fs::read(&path).unwrap_or_default(),
            };
            found.push((path, contents));
        }
    }
    found.sort();
    found
}

/// One hostile project: a tests.json that writes through a link to a canary directory
/// and reads a FIFO, a syncmut.toml and a compile database whose flags write there and
/// load code, then `list`, `run` (whole and in shards), `report` and `merge` aimed at
/// the run's own results. Each command ends within its limit, refusing or working, and
/// the canary directory is exactly as it was.
#[test]
fn a_hostile_project_changes_nothing_outside_and_hangs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (canary, project) = (dir.path().join("canary"), dir.path().join("project"));
    std::fs::create_dir(&canary).unwrap();
    std::fs::create_dir(&project).unwrap();
    std::fs::write(canary.join("keep.txt"), "untouched").unwrap();
    std::fs::copy(design(), project.join("tally.c")).unwrap();
    std::fs::write(project.join("payload"), "pwned").unwrap();
    std::os::unix::fs::symlink(&canary, project.join("lnk")).unwrap();
    let fifo = project.join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: `c` is NUL-terminated.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let hostile_tests = r#"{"tests": [
        {"name": "through_link", "files": ["lnk", {"from": "payload", "to": "lnk/pwn"}]},
        {"name": "reads_fifo", "stdin": {"file": "fifo"}}
    ]}"#;
    std::fs::write(project.join("tests.json"), hostile_tests).unwrap();
    std::fs::write(
        project.join("syncmut.toml"),
        format!(
            "flags = [\"-MJ\", \"{}\", \"-fplugin=./x.so\", \"-save-temps\"]\n",
            canary.join("toml.json").display()
        ),
    )
    .unwrap();
    let source = project.join("tally.c");
    let db = project.join("compile_commands.json");
    let entry = serde_json::json!([{
        "directory": canary,
        "file": source,
        "arguments": ["cc", "-c", source, "-save-temps",
            "--serialize-diagnostics", canary.join("d.dia"), "-MJ", canary.join("mj.json")],
    }]);
    std::fs::write(&db, serde_json::to_vec(&entry).unwrap()).unwrap();
    let before = snapshot(&canary);
    let limit = std::time::Duration::from_secs(120);
    let syncmut = |args: &[&std::ffi::OsStr]| {
        let output = util::syncmut()
            .env("SYNCMUT_CACHE", "0")
            .args(args)
            .timeout(limit)
            .output()
            .unwrap();
        assert!(
            output.status.code().is_some(),
            "{args:?} did not end within {limit:?}: {}",
            stderr_of(&output)
        );
        assert_eq!(
            snapshot(&canary),
            before,
            "{args:?}: {}",
            stderr_of(&output)
        );
        output
    };
    let os = |s: &str| std::ffi::OsString::from(s);
    let runs = dir.path().join("runs");
    let (whole, s1, s2) = (runs.join("whole"), runs.join("s1"), runs.join("s2"));
    syncmut(&[&os("list"), &os("--compile-db"), db.as_os_str()]);
    // The hostile tests.json is refused as it is read, before anything runs.
    let refused = syncmut(&[
        &os("run"),
        project.as_os_str(),
        &os("--gen"),
        &os("none"),
        &os("-o"),
        whole.as_os_str(),
    ]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr_of(&refused));
    // With a plain test, the hostile flags still reach no file; shards, report, merge.
    std::fs::write(
        project.join("tests.json"),
        r#"{"tests": [{"name": "once"}]}"#,
    )
    .unwrap();
    for (out, shard) in [(&s1, "1/2"), (&s2, "2/2")] {
        let ran = syncmut(&[
            &os("run"),
            project.as_os_str(),
            &os("--gen"),
            &os("none"),
            &os("--shard"),
            &os(shard),
            &os("-o"),
            out.as_os_str(),
        ]);
        assert_eq!(ran.status.code(), Some(0), "{}", stderr_of(&ran));
    }
    let results = s1.join("outcomes.json");
    let kept = std::fs::read(&results).unwrap();
    let report = syncmut(&[
        &os("report"),
        s1.as_os_str(),
        &os("--format"),
        &os("csv"),
        &os("-o"),
        results.as_os_str(),
    ]);
    assert_ne!(
        report.status.code(),
        Some(0),
        "report wrote over its own results"
    );
    let merge = syncmut(&[
        &os("merge"),
        s1.as_os_str(),
        s2.as_os_str(),
        &os("-o"),
        s1.as_os_str(),
    ]);
    assert_ne!(merge.status.code(), Some(0), "merge wrote into a shard");
    assert_eq!(std::fs::read(&results).unwrap(), kept);
    let merged = syncmut(&[
        &os("merge"),
        s1.as_os_str(),
        s2.as_os_str(),
        &os("-o"),
        runs.join("merged").as_os_str(),
    ]);
    assert_eq!(merged.status.code(), Some(0), "{}", stderr_of(&merged));
}
