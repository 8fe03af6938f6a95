//! The deterministic environment (runtime-lib/src/virtual_clock.c): designs seeded from
//! the clock give the same output and the same verdicts whenever they run, two virtual
//! worlds (`SYNCMUT_ENTROPY`) differ, `SYNCMUT_REAL_TIME=1` opts out, and timed waits
//! still wait for the time they ask for. Fixtures under tests/fixtures/determinism/.

mod util;

use assert_cmd::cargo::cargo_bin;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Long enough for `time()` to change between two runs on the real clock.
const APART: Duration = Duration::from_millis(1100);

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/determinism")
        .join(name)
}

/// `syncmut mutate` of a fixture into a fresh directory.
fn mutate(name: &str) -> tempfile::TempDir {
    let out = tempfile::tempdir().unwrap();
    let status = Command::new(cargo_bin("syncmut"))
        .arg("mutate")
        .arg(fixture(name))
        .arg("-o")
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "mutate {name}: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    out
}

/// Stdout of an executable, which must exit 0.
fn stdout_of(exe: &Path, env: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(exe);
    cmd.env_remove("SYNCMUT_REAL_TIME")
        .env_remove("SYNCMUT_ENTROPY")
        .env("SC_COPYRIGHT_MESSAGE", "DISABLE");
    cmd.envs(env.iter().copied());
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{} {env:?}: {:?}\n{}",
        exe.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The original's stdout is byte-identical across runs in different seconds and equal to
/// the metamutant's; with the real clock it changes; another entropy gives other values.
fn stable_stdout(name: &str) {
    let dir = mutate(name);
    let original = dir.path().join("original");
    let metamutant = dir.path().join("metamutant");
    let first = stdout_of(&original, &[]);
    let real_first = stdout_of(&original, &[("SYNCMUT_REAL_TIME", "1")]);
    std::thread::sleep(APART);
    let second = stdout_of(&original, &[]);
    let real_second = stdout_of(&original, &[("SYNCMUT_REAL_TIME", "1")]);
    assert_eq!(
        first, second,
        "{name}: the original's output changed between two runs"
    );
    assert!(
        first.starts_with("time 946684800\n"),
        "{name}: virtual time starts in 2000:\n{first}"
    );
    assert_eq!(
        stdout_of(&metamutant, &[]),
        first,
        "{name}: metamutant without a mutant differs from the original"
    );
    assert_ne!(
        real_first, real_second,
        "{name}: with SYNCMUT_REAL_TIME=1 the output follows the real clock"
    );

    let other = stdout_of(&original, &[("SYNCMUT_ENTROPY", "1")]);
    assert_eq!(
        other,
        stdout_of(&original, &[("SYNCMUT_ENTROPY", "1")]),
        "{name}: SYNCMUT_ENTROPY=1 is reproducible"
    );
    assert_eq!(
        stdout_of(&original, &[("SYNCMUT_ENTROPY", "0")]),
        first,
        "{name}: SYNCMUT_ENTROPY=0 is the default"
    );
    // Every clock- or randomness-derived line differs in the other world.
    for (a, b) in first.lines().zip(other.lines()) {
        let key = a.split(' ').next().unwrap();
        if [
            "time",
            "gettimeofday",
            "monotonic",
            "chrono",
            "getrandom",
            "rand",
        ]
        .contains(&key)
        {
            assert_ne!(
                a, b,
                "{name}: '{key}' is the same under SYNCMUT_ENTROPY=0 and 1"
            );
        }
    }
}

#[test]
fn pthread_design_seeded_from_the_clock_prints_the_same() {
    stable_stdout("pthread_clock");
}

#[test]
fn systemc_design_seeded_from_the_clock_prints_the_same() {
    stable_stdout("sc_clock");
}

/// (mutant, verdict, reason) of `syncmut run --gen none` of a fixture, and what its
/// baseline masked as nondeterministic.
fn verdicts(name: &str) -> (Vec<(String, String, String)>, Value) {
    verdicts_in(name, &[])
}

/// [`verdicts`] with `env` added to syncmut's environment.
fn verdicts_in(name: &str, env: &[(&str, &str)]) -> (Vec<(String, String, String)>, Value) {
    let out = tempfile::tempdir().unwrap();
    let run = Command::new(cargo_bin("syncmut"))
        .envs(env.iter().copied())
        .env_remove("SYNCMUT_REAL_TIME")
        .env_remove("SYNCMUT_ENTROPY")
        // The claim is the controlled schedules': runs with real threads (on by default for
        // pthread designs) do not repeat exactly, so they are left out here.
        .args(["run", "--gen", "none", "-j", "2", "--native", "0", "-o"])
        .arg(out.path())
        .arg(fixture(name))
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "run {name}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let outcomes: Value =
        serde_json::from_slice(&std::fs::read(out.path().join("outcomes.json")).unwrap()).unwrap();
    let verdicts = util::verdicts_and_reasons(&outcomes);
    let baseline: Value =
        serde_json::from_slice(&std::fs::read(out.path().join("baseline.json")).unwrap()).unwrap();
    (verdicts, baseline[0]["nondeterministic"].clone())
}

/// Two runs in different seconds give the same verdicts and reasons, the test is usable,
/// and no mutant is killed by a clock- or random-derived value: every printed line of these
/// fixtures follows the clock or the random stream, so the baseline masks them all (its
/// repeat runs in another virtual world) and lists them, and no kill quotes stdout.
fn stable_verdicts(name: &str) {
    let (first, masked) = verdicts(name);
    std::thread::sleep(APART);
    let (second, _) = verdicts(name);
    assert_eq!(first, second, "{name}: verdicts changed between two runs");
    assert!(
        first.iter().any(|(_, v, _)| v.starts_with("killed")),
        "{name}: no mutant killed: {first:?}"
    );
    assert!(
        masked[0]
            .as_str()
            .is_some_and(|m| m.starts_with("stdout lines 1, 2, 3, 4, 5")),
        "{name}: masked {masked}"
    );
    for (mutant, verdict, reason) in &first {
        assert!(
            !reason.contains("stdout line"),
            "{name}: {mutant} is {verdict} by a random value: {reason}"
        );
    }
}

/// Variables syncmut sets per run, left in the user's shell (a schedule, a step budget,
/// a mutant and nondet values from replaying something by hand), reach no run. They
/// did once: the uninstrumented build hung under the stray schedule, the metamutant
/// ran out of the stray step budget, and the baseline set the only test aside.
#[test]
fn runtime_variables_in_the_users_environment_change_no_verdict() {
    let stray = [
        ("SYNCMUT_SCHEDULE", "random:5"),
        ("SYNCMUT_MAX_STEPS", "3"),
        ("SYNCMUT_ACTIVE", "0:remove"),
        ("SYNCMUT_NONDET", "7"),
    ];
    assert_eq!(
        verdicts("pthread_clock"),
        verdicts_in("pthread_clock", &stray)
    );
}

#[test]
fn pthread_design_seeded_from_the_clock_gets_the_same_verdicts() {
    stable_verdicts("pthread_clock");
}

#[test]
fn systemc_design_seeded_from_the_clock_gets_the_same_verdicts() {
    stable_verdicts("sc_clock");
}

/// The timed_waits fixture's lines after the first: (check, rc, real ms, virtual ms).
fn timings(out: &str) -> Vec<(String, i64, i64, i64)> {
    out.lines()
        .skip(1)
        .map(|line| {
            let mut words = line.split(' ');
            let name = words.next().unwrap().to_string();
            let mut field = |key: &str| -> i64 {
                let w = words.next().unwrap();
                w.strip_prefix(key)
                    .unwrap_or_else(|| panic!("{line}"))
                    .parse()
                    .unwrap()
            };
            (name, field("rc="), field("real_ms="), field("virtual_ms="))
        })
        .collect()
}

/// Virtual deadlines become real ones: a wait asked for 100 ms blocks ~100 ms (not at once
/// because 2000 is long past, not forever), a signalled wait wakes, and an expired wait
/// moves the virtual clock to its deadline. Sleeps of seconds pass on the virtual clock
/// and wait a few milliseconds for real. Original and metamutant (whose wrappers call
/// the same functions).
#[test]
fn timed_waits_wait_for_the_time_asked() {
    const ETIMEDOUT: i64 = 110;
    let dir = mutate("timed_waits");
    for exe in ["original", "metamutant"] {
        let out = stdout_of(&dir.path().join(exe), &[]);
        assert!(out.starts_with("start 946684800\n"), "{exe}:\n{out}");
        let lines = timings(&out);
        assert_eq!(lines.len(), 9, "{exe}:\n{out}");
        for (name, rc, real, virt) in lines {
            let context = format!("{exe}: {name} rc={rc} real_ms={real} virtual_ms={virt}\n{out}");
            match name.as_str() {
                "cond_timedwait_signalled" => {
                    assert_eq!(rc, 0, "{context}");
                    // Woken by the signal after the signaller's shortened 20 ms sleep.
                    assert!((10..2000).contains(&real), "{context}");
                }
                // Sleeps of seconds with real threads: the design's clock passes them,
                // the real wait is shortened (a bound 100 times wider than the wait).
                "long_sleeps" => {
                    assert!((2000..2100).contains(&virt), "{context}");
                    assert!(real < 1000, "{context}");
                }
                "clock_nanosleep_abstime" | "sleep_loop" => {
                    assert_eq!(rc, 0, "{context}");
                    assert!((90..2000).contains(&real), "{context}");
                    assert!((100..200).contains(&virt), "{context}");
                }
                _ => {
                    assert_eq!(rc, ETIMEDOUT, "{context}");
                    assert!((90..2000).contains(&real), "{context}");
                    assert!((100..200).contains(&virt), "{context}");
                }
            }
        }
    }
}

#[test]
fn malformed_environment_ends_the_run_with_status_120() {
    let dir = mutate("pthread_clock");
    for (name, value) in [
        ("SYNCMUT_REAL_TIME", "yes"),
        ("SYNCMUT_ENTROPY", "-1"),
        ("SYNCMUT_ENTROPY", "4294967296"),
    ] {
        let out = Command::new(dir.path().join("original"))
            .env(name, value)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(120), "{name}={value}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with(&format!("syncmut runtime: {name}='{value}'")),
            "{stderr}"
        );
        assert!(out.stdout.is_empty());
    }
}
