//! Property tests of every reader of user-supplied or saved files: the test file
//! (`syncmut_runner::test_case`), `syncmut.toml`, compile databases
//! (`syncmut_mutator::compile_db`), the records `syncmut cc` leaves
//! (`syncmut_mutator::wrapped`), schedule, race and input-log files of the runtime,
//! traces (`syncmut_runtime::trace`), the compiler-flag allowlist
//! (`syncmut_mutator::flags`), and the saved results `report`/`explain`/`merge` read
//! back (`mutants.json`, `outcomes.json`, `baseline.json`, `shard.json`). Inputs are
//! valid documents spoiled by random edits (deletions, insertions of JSON/TOML tokens
//! and bytes that are not UTF-8, truncation) and arbitrary bytes. The properties: never
//! a panic, never a hang (library readers run under a watchdog), and a rejection always
//! names the file. Seeds are fixed, so a run is reproducible; `PROPTEST_CASES=N` runs N
//! cases per property instead of the suite's small budget (docs/reliability.md).

mod util;

use assert_cmd::cargo::cargo_bin;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, RngSeed};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// One spoiling edit of a document.
#[derive(Debug, Clone)]
enum Edit {
    Delete(Index, usize),
    Insert(Index, &'static [u8]),
    Truncate(Index),
}

const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b",",
    b":",
    b"=",
    b"\n",
    b"null",
    b"true",
    b"-1",
    b"1e999",
    b"18446744073709551616",
    b"\"x\"",
    b"\"\\u0000\"",
    b"\xff\xfe",
    "é".as_bytes(),
    b"[[",
    b"#",
    b"'",
    b"{\"end\":\"exit\"}\n",
];

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<Index>(), 1usize..40).prop_map(|(at, n)| Edit::Delete(at, n)),
        (any::<Index>(), prop::sample::select(TOKENS)).prop_map(|(at, t)| Edit::Insert(at, t)),
        any::<Index>().prop_map(Edit::Truncate),
    ]
}

fn spoil(doc: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut bytes = doc.to_vec();
    for e in edits {
        let len = bytes.len();
        match e {
            Edit::Delete(at, n) if len > 0 => {
                let start = at.index(len);
                bytes.drain(start..(start + n).min(len));
            }
            Edit::Insert(at, token) => {
                let at = at.index(len + 1);
                bytes.splice(at..at, token.iter().copied());
            }
            Edit::Truncate(at) if len > 0 => bytes.truncate(at.index(len)),
            _ => {}
        }
    }
    bytes
}

/// A valid document spoiled by 1–4 edits, or (one time in eight) arbitrary bytes.
fn spoiled(docs: &[&'static str]) -> impl Strategy<Value = Vec<u8>> {
    let docs = docs.to_vec();
    prop_oneof![
        7 => (prop::sample::select(docs), prop::collection::vec(edit(), 1..5)).prop_map(|(d, e)| spoil(d.as_bytes(), &e)),
        1 => prop::collection::vec(any::<u8>(), 0..200),
    ]
}

/// A binary trace spoiled likewise, one byte overwritten, or (one time in eight) the
/// binary magic followed by arbitrary bytes.
fn spoiled_binary(docs: &[&'static [u8]]) -> impl Strategy<Value = Vec<u8>> {
    let docs = docs.to_vec();
    prop_oneof![
        4 => (prop::sample::select(docs.clone()), prop::collection::vec(edit(), 1..5)).prop_map(|(d, e)| spoil(d, &e)),
        3 => (prop::sample::select(docs), any::<Index>(), any::<u8>()).prop_map(|(d, at, b)| {
            let mut bytes = d.to_vec();
            let at = at.index(bytes.len());
            bytes[at] = b;
            bytes
        }),
        1 => prop::collection::vec(any::<u8>(), 0..200).prop_map(|tail| [&b"\x89syncmut\x01\0\0\0"[..], &tail].concat()),
    ]
}

/// `cases` per property, or `PROPTEST_CASES` when set (a longer fuzzing run).
fn config(cases: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(cases);
    Config {
        cases,
        rng_seed: RngSeed::Fixed(20_260_501),
        failure_persistence: None,
        ..Config::default()
    }
}

const TEST_FILES: &[&str] = &[
    r#"{ "tests": [ { "name": "deadlock", "args": ["t", "f"] }, { "args": ["f", "f"] } ] }"#,
    r#"{"tests":[{"name":"a.b-c_1"},{}]}"#,
];

const TRACES: &[&str] = &[
    "{\"syncmut_trace\":1,\"active\":\"0:remove\"}\n{\"seq\":0,\"site\":0,\"action\":\"remove\",\"thread\":\"m.t1\",\"time\":\"0 s\",\"delta\":0}\n{\"seq\":1,\"site\":2,\"action\":\"original\",\"thread\":\"m.t2\",\"time\":\"10 ns\",\"delta\":3,\"lost\":true}\n{\"end\":\"exit\",\"deadlock\":true,\"pending\":[{\"thread\":\"m.t1\",\"site\":0}]}\n",
    "{\"syncmut_trace\":1,\"active\":\"\"}\n{\"seq\":0,\"site\":1,\"action\":\"original\",\"thread\":\"T0\",\"state\":{\"counter\":-3,\"done\":true,\"p\":\"non-null\"}}\n{\"truncated\":true}\n{\"end\":\"livelock\",\"thread\":\"T1\",\"site\":1}\n",
];

/// Traces as the runtime writes them (binary), from real runs: a SystemC design with
/// module members and enums (tests/fixtures/verdicts/sc_members), a pthread design with
/// globals of each kind (mutator/tests/fixtures/globals.c).
const BINARY_TRACES: &[&[u8]] = &[
    include_bytes!("fixtures/traces/sc_members.bin"),
    include_bytes!("fixtures/traces/globals.bin"),
];

const TOML_FILES: &[&str] = &[
    "tests = \"tests.json\"\ngen = \"wp\"\njobs = 2\nschedules = 20\nfail_under = 80.0\noutput = \"syncmut.out\"\nflags = [\"-Iinclude\", \"-DN=4\"]\n",
    "gen = \"none\"\njobs = 1\n",
];

fn write_temp(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn test_files_are_read_or_rejected_naming_the_file(bytes in spoiled(TEST_FILES)) {
        let dir = tempfile::tempdir().unwrap();
        let path = write_temp(dir.path(), "tests.json", &bytes);
        if let Err(e) = syncmut_runner::test_case::load(&path) {
            prop_assert!(e.to_string().contains(&path.display().to_string()), "{e}");
        }
    }

    #[test]
    fn traces_are_read_or_rejected_naming_the_file(bytes in spoiled(TRACES)) {
        let dir = tempfile::tempdir().unwrap();
        let path = write_temp(dir.path(), "t.jsonl", &bytes);
        if let Err(e) = syncmut_runtime::trace::read(&path) {
            prop_assert!(e.starts_with(&path.display().to_string()), "{e}");
        }
    }

    /// A run killed while its trace was being written leaves any prefix of it: that is
    /// never an error, and a prefix cut inside a line counts as truncated.
    #[test]
    fn a_trace_cut_anywhere_is_read_as_truncated(doc in prop::sample::select(TRACES), at in any::<Index>()) {
        let cut = &doc[..at.index(doc.len())];
        let trace = syncmut_runtime::trace::parse(cut).unwrap();
        prop_assert_eq!(trace.truncated, !cut.is_empty() && !cut.ends_with('\n') || doc.contains("\"truncated\"") && cut.contains("\"truncated\""));
    }

    #[test]
    fn binary_traces_are_read_or_rejected_naming_the_file(bytes in spoiled_binary(BINARY_TRACES)) {
        let dir = tempfile::tempdir().unwrap();
        let path = write_temp(dir.path(), "t.jsonl", &bytes);
        if let Err(e) = syncmut_runtime::trace::read(&path) {
            prop_assert!(e.starts_with(&path.display().to_string()), "{e}");
        }
    }

    /// The runtime writes its binary trace in one go at the end: a file cut at any byte
    /// (a kill while writing) reads, as truncated, with every whole event before the cut.
    #[test]
    fn a_binary_trace_cut_anywhere_is_read_as_truncated(doc in prop::sample::select(BINARY_TRACES), at in any::<Index>()) {
        let whole = syncmut_runtime::trace::parse_bytes(doc).unwrap();
        prop_assert!(!whole.truncated && whole.end.is_some());
        let cut = &doc[..at.index(doc.len())];
        let trace = syncmut_runtime::trace::parse_bytes(cut).unwrap();
        prop_assert_eq!(trace.truncated, !cut.is_empty());
        prop_assert!(trace.end.is_none());
        prop_assert_eq!(&whole.events[..trace.events.len()], &trace.events[..]);
    }

    /// `--resume` reads outcomes.json back: a spoiled one never stops it.
    #[test]
    fn saved_runs_survive_spoiled_outcomes(bytes in spoiled(&[saved_outcomes_doc()])) {
        let dir = tempfile::tempdir().unwrap();
        let out = syncmut_oracle::outdir::OutDir::open(dir.path()).unwrap();
        out.write(syncmut_oracle::outdir::OUTCOMES, &bytes).unwrap();
        if let Err(e) = syncmut_oracle::lab::saved_runs(&out) {
            prop_assert!(e.contains("outcomes.json"), "{}", e);
        }
    }
}

/// `syncmut run DIR` on a directory holding only `syncmut.toml`: a valid file gets as
/// far as "no C/C++ sources" (exit 3), an invalid one is refused naming it (exit 2).
fn check_toml(bytes: &[u8]) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let path = write_temp(dir.path(), "syncmut.toml", bytes);
    let out = Command::new(cargo_bin("syncmut"))
        .arg("run")
        .arg(dir.path())
        .args(["--gen", "none"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(3) => prop_assert!(stderr.contains("no C/C++ sources"), "{stderr}"),
        Some(2) => prop_assert!(stderr.contains(&path.display().to_string()), "{stderr}"),
        other => prop_assert!(false, "exit {other:?}: {stderr}"),
    }
    Ok(())
}

/// A finished run directory (mutants.json, outcomes.json, traces), made once.
fn finished_run() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let fixture = util::fixture("verdicts/crash");
        let out = tempfile::tempdir().unwrap();
        let status = Command::new(cargo_bin("syncmut"))
            .arg("run")
            .arg(fixture.join("crash.c"))
            .arg("--tests")
            .arg(fixture.join("tests.json"))
            .args(["--gen", "none", "-o"])
            .arg(out.path())
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        out
    })
    .path()
}

fn saved_outcomes_doc() -> &'static str {
    static DOC: OnceLock<String> = OnceLock::new();
    DOC.get_or_init(|| std::fs::read_to_string(finished_run().join("outcomes.json")).unwrap())
}

fn saved_catalogue_doc() -> &'static str {
    static DOC: OnceLock<String> = OnceLock::new();
    DOC.get_or_init(|| std::fs::read_to_string(finished_run().join("mutants.json")).unwrap())
}

/// `report` and `explain` on a copy of the finished run with `name` spoiled: either it
/// still reads (exit 0), or it is refused naming the file (exit 2). Never a panic.
fn check_saved(name: &str, bytes: &[u8]) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    for file in ["mutants.json", "outcomes.json"] {
        std::fs::copy(finished_run().join(file), dir.path().join(file)).unwrap();
    }
    let path = write_temp(dir.path(), name, bytes);
    for args in [
        &["report", "--format", "json"][..],
        &["report", "--format", "html"],
        &["explain"],
    ] {
        let mut cmd = Command::new(cargo_bin("syncmut"));
        cmd.arg(args[0]).arg(dir.path()).args(&args[1..]);
        if args[0] == "explain" {
            cmd.arg("main#1:remove");
        }
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        prop_assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        match out.status.code() {
            Some(0) => {}
            Some(2) if args[0] == "explain" => {} // a mutant id or trace the spoiled files no longer have
            Some(2) => prop_assert!(
                stderr.contains(&path.display().to_string()),
                "{args:?}: {stderr}"
            ),
            other => prop_assert!(false, "{args:?}: exit {other:?}: {stderr}"),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn config_files_are_read_or_rejected_naming_the_file(bytes in spoiled(TOML_FILES)) {
        check_toml(&bytes)?;
    }

    #[test]
    fn saved_outcomes_are_read_or_rejected_naming_the_file(bytes in spoiled(&[saved_outcomes_doc()])) {
        check_saved("outcomes.json", &bytes)?;
    }

    #[test]
    fn saved_catalogues_are_read_or_rejected_naming_the_file(bytes in spoiled(&[saved_catalogue_doc()])) {
        check_saved("mutants.json", &bytes)?;
    }
}

/// Runs `read` on another thread and fails the case if it has not returned within 10 s:
/// a reader of an input file must never hang.
fn within<T: Send + 'static>(
    read: impl FnOnce() -> T + Send + 'static,
) -> Result<T, TestCaseError> {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(read());
    });
    receive
        .recv_timeout(std::time::Duration::from_secs(10))
        .map_err(|e| TestCaseError::fail(format!("the reader hung or panicked: {e}")))
}

const COMPILE_DBS: &[&str] = &[
    r#"[{"directory": "/p/build", "file": "/p/src/a.c", "command": "cc -DN=4 -I/p/include -O2 -MD -MF a.d -o CMakeFiles/app.dir/src/a.c.o -c /p/src/a.c"},
{"directory": "/p/build", "file": "../src/b.cpp", "arguments": ["c++", "-std=c++17", "-MJ", "/tmp/x.json", "-c", "../src/b.cpp", "-o", "CMakeFiles/core.dir/b.o"], "output": "CMakeFiles/core.dir/b.o"}]"#,
    r#"[{"directory": ".", "file": "main.c", "command": "gcc -c 'main.c' -o \"main.o\" -Xclang -load -Xclang ./p.so"}]"#,
];

const RECORDS: &[&str] = &[
    r#"{"format_version": 1, "units": [{"source": "/p/src/a.c", "bitcode": "/p/a.o.syncmut.bc"}], "link_flags": ["-lm", "-Wl,--as-needed", "/usr/lib/libz.so"]}"#,
    r#"{"source": "/p/src/a.c", "bitcode": "/p/a.o.syncmut.bc"}"#,
];

const SCHEDULES: &[&str] = &[
    "# syncmut-schedule 1 random:3\n# comment\n1 run 0 0:-,1:4\n2 wake - 1:-,2:-\n# step 1 run 0 0:-\n# diverged 1\n# end deadlock steps 17\n",
    "1 run 1 1:3:o1,2:-:o2+o3,3:5:*,4:-:-,5:-:o1,6:m0:r1,7:m4:r1,8:-:r2 e12\n",
];

const RACE_FILES: &[&str] = &[
    "# syncmut-races 1\n# comment\nrace 1:5:w:- 2:4:r:3@1+-@2\n# untracked 7\n# stopped more than 4096 threads\n# end\n",
];

const INPUT_LOGS: &[&str] = &["nondet int -3\nnondet ulong 18446744073709551615\ninput depth 12\n"];

/// Flags as input files give them: the ones syncmut passes, the ones it must drop, and
/// arbitrary words.
fn flag_words() -> impl Strategy<Value = Vec<String>> {
    const WORDS: &[&str] = &[
        "-I",
        "-Iinclude",
        "-D",
        "-DN=4",
        "-std=c11",
        "-O2",
        "-g",
        "-march=native",
        "-Wall",
        "-fno-strict-aliasing",
        "-lm",
        "-L",
        "-Wl,--as-needed",
        "-Wl,-rpath,/opt",
        "-MJ",
        "/tmp/x",
        "--serialize-diagnostics",
        "-save-temps",
        "-fplugin=./x.so",
        "-fpass-plugin=./p.so",
        "-Xclang",
        "-load",
        "-B/tmp",
        "-B",
        "--gcc-toolchain=/tmp",
        "@args.rsp",
        "-o",
        "-mllvm",
        "-Wl,--plugin=/p.so",
        "-Wl,-Map=/tmp/m",
        "-Wl,",
        "-Wl,-z",
        "-Wp,-MD,/tmp/d",
        "-ftime-trace",
        "-gsplit-dwarf",
        "-include",
        "-x",
        "",
    ];
    prop::collection::vec(
        prop_oneof![
            4 => prop::sample::select(WORDS).prop_map(String::from),
            1 => any::<String>(),
        ],
        0..12,
    )
}

/// A flag the allowlist must never let through, whatever surrounds it.
fn writes_or_loads(flag: &str) -> bool {
    [
        "-MJ",
        "--serialize-diagnostics",
        "-save-temps",
        "-fplugin",
        "-fpass-plugin",
        "-Xclang",
        "-B",
        "--gcc-toolchain",
        "@",
        "-o",
        "-mllvm",
        "-Wl,--plugin",
        "-Wl,-Map",
        "-Wp,",
        "-ftime-trace",
        "-gsplit-dwarf",
    ]
    .iter()
    .any(|p| flag.starts_with(p))
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn compile_databases_are_read_or_rejected_naming_the_file(bytes in spoiled(COMPILE_DBS)) {
        let dir = tempfile::tempdir().unwrap();
        let path = write_temp(dir.path(), "compile_commands.json", &bytes);
        let db = path.clone();
        let read = within(move || syncmut_mutator::compile_db::program(&db, None).map(drop).map_err(|e| e.to_string()))?;
        if let Err(e) = read {
            prop_assert!(e.contains(&path.display().to_string()), "{}", e);
        }
    }

    #[test]
    fn the_flag_allowlist_never_passes_a_flag_that_writes_files_or_loads_code(flags in flag_words()) {
        let (kept, warnings) = syncmut_mutator::flags::allow(&flags, "f.json");
        prop_assert!(kept.len() + warnings.len() <= flags.len() + 1);
        let mut previous: Option<&String> = None;
        for flag in &kept {
            // A kept value (`-I /tmp/x`) is not a flag.
            let value = previous.is_some_and(|p| ["-I", "-D", "-U", "-include", "-isystem", "-iquote", "-idirafter", "-imacros", "-x", "-target"].contains(&p.as_str()));
            prop_assert!(value || !writes_or_loads(flag), "{:?} kept from {:?}", flag, flags);
            previous = Some(flag);
        }
        prop_assert!(warnings.iter().all(|w| w.starts_with("f.json: ")));
    }

    #[test]
    fn syncmut_cc_records_are_read_or_rejected_naming_the_file(bytes in spoiled(RECORDS)) {
        let dir = tempfile::tempdir().unwrap();
        let program = write_temp(dir.path(), "prog", b"");
        let record = write_temp(dir.path(), "prog.syncmut", &bytes);
        let object = write_temp(dir.path(), "a.o", b"");
        write_temp(dir.path(), "a.o.syncmut", &bytes);
        let read = within(move || {
            let unit = syncmut_mutator::wrapped::unit_of(&object);
            (syncmut_mutator::wrapped::program_of(&program).map(drop).map_err(|e| e.to_string()), unit)
        })?;
        if let Err(e) = read.0 {
            prop_assert!(e.contains(&record.display().to_string()), "{}", e);
        }
    }

    #[test]
    fn schedule_race_and_input_files_are_read_or_rejected(
        schedule in spoiled(SCHEDULES),
        races in spoiled(RACE_FILES),
        log in spoiled(INPUT_LOGS),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let log = write_temp(dir.path(), "inputs.log", &log);
        within(move || {
            let _ = syncmut_runtime::schedule::parse(&String::from_utf8_lossy(&schedule));
            let _ = syncmut_runtime::races::parse(&String::from_utf8_lossy(&races));
            syncmut_runner::input_log::read(&log)
        })?;
    }
}

/// A finished shard (`run --shard 1/1`): a run directory `merge` takes on its own.
fn finished_shard() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let fixture = util::fixture("untrusted");
        let out = tempfile::tempdir().unwrap();
        let status = Command::new(cargo_bin("syncmut"))
            .arg("run")
            .arg(fixture.join("tally.c"))
            .arg("--tests")
            .arg(fixture.join("tests.json"))
            .args(["--gen", "none", "--shard", "1/1", "-o"])
            .arg(out.path())
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        out
    })
    .path()
}

fn shard_file(name: &'static str) -> &'static str {
    static DOCS: OnceLock<std::collections::BTreeMap<&'static str, String>> = OnceLock::new();
    DOCS.get_or_init(|| {
        [
            "shard.json",
            "baseline.json",
            "tests.json",
            "outcomes.json",
            "mutants.json",
        ]
        .into_iter()
        .map(|n| {
            (
                n,
                std::fs::read_to_string(finished_shard().join(n)).unwrap(),
            )
        })
        .collect()
    })[name]
        .as_str()
}

/// `merge` of the finished shard with `name` spoiled: merged (exit 0), or refused
/// naming the file or the shard (exit 2). Never a panic.
fn check_merge(name: &'static str, bytes: &[u8]) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let shard = dir.path().join("s1");
    std::fs::create_dir(&shard).unwrap();
    for file in [
        "shard.json",
        "baseline.json",
        "tests.json",
        "outcomes.json",
        "mutants.json",
    ] {
        std::fs::copy(finished_shard().join(file), shard.join(file)).unwrap();
    }
    let path = write_temp(&shard, name, bytes);
    let out = Command::new(cargo_bin("syncmut"))
        .current_dir(dir.path())
        .args(["merge", "s1", "-o", "merged"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    prop_assert!(!stderr.contains("panicked"), "{stderr}");
    match out.status.code() {
        Some(0) => {}
        Some(2) => prop_assert!(
            stderr.contains(&path.display().to_string())
                || stderr.contains("s1")
                || stderr.contains("shard"),
            "{stderr}"
        ),
        other => prop_assert!(false, "exit {other:?}: {stderr}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(24))]

    #[test]
    fn merged_shards_are_read_or_rejected(
        name in prop::sample::select(&["shard.json", "baseline.json", "tests.json", "outcomes.json", "mutants.json"][..]),
        edits in prop::collection::vec(edit(), 1..5),
    ) {
        let bytes = spoil(shard_file(name).as_bytes(), &edits);
        check_merge(name, &bytes)?;
    }
}
