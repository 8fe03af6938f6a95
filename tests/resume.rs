//! Interruption: syncmut killed with SIGKILL, or stopped with SIGTERM, at 5 points of a
//! run on each of two examples (SIGKILL at three, SIGTERM at the two between them), then `--resume`, ends with exactly the verdicts of an
//! uninterrupted run, with no process of the run left behind and no temporary file in
//! the run directory; the lock is an advisory lock that dies with its holder.

mod util;

use assert_cmd::cargo::cargo_bin;
use std::os::fd::AsRawFd;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn syncmut(design: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(cargo_bin("syncmut"));
    // The examples' own tests: generation is tested elsewhere, and the points of
    // interruption are then spread over the build and the runs.
    cmd.arg("run")
        .arg(design)
        .arg("-o")
        .arg(out)
        // Controlled schedules alone, whose verdicts repeat exactly (runs with real
        // threads do not).
        .args(["-j", "1", "--gen", "none", "--native", "0"])
        .args(extra);
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    cmd
}

fn verdicts(out: &Path) -> Vec<(String, String)> {
    util::outcomes(out)["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["mutant"].as_str().unwrap().to_string(),
                m["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Processes whose command line names something inside `dir` (the design's executables,
/// clang writing its bitcode), waiting up to 2 s for dying ones to go.
fn processes_in(dir: &Path) -> Vec<String> {
    let needle = dir.to_str().unwrap().as_bytes().to_vec();
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let found: Vec<String> = std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_str()
                    .is_some_and(|n| n.parse::<u32>().is_ok())
            })
            .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
            .filter(|cmdline| {
                cmdline
                    .windows(needle.len())
                    .any(|w| w == needle.as_slice())
            })
            .map(|cmdline| String::from_utf8_lossy(&cmdline).replace('\0', " "))
            .collect();
        if found.is_empty() || Instant::now() > deadline {
            return found;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn temporaries_in(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            if entry.file_type().unwrap().is_dir() {
                todo.push(entry.path());
            } else if entry.file_name().to_string_lossy().starts_with(".tmp") {
                found.push(entry.path());
            }
        }
    }
    found
}

/// No lock and no temporary file left in the run directory `out`.
fn assert_tidy(out: &Path, what: &str) {
    assert!(
        !out.join("syncmut.lock").exists(),
        "{what}: lock left behind"
    );
    assert_eq!(
        temporaries_in(out),
        Vec::<PathBuf>::new(),
        "{what}: temporary files left"
    );
}

/// The fixed points of the run (fractions of an uninterrupted run's duration, with a
/// fixed jitter so they do not fall on round numbers), the same in every suite run:
/// SIGKILL's from the build to the end, SIGTERM's between them.
const KILL_POINTS: [f64; 3] = [0.05, 0.41, 0.89];
const TERM_POINTS: [f64; 2] = [0.23, 0.67];

/// Interrupts runs of `name` with `signal` at each of `points`; `code` is the exit code
/// a handled signal gives (None: SIGKILL, which no handler sees). One test per signal
/// and example, so the test runner runs them side by side.
fn interrupt_and_resume(name: &str, signal: i32, code: Option<i32>, points: &[f64]) {
    let design = util::example(name);
    let reference = tempfile::tempdir().unwrap();
    let started = Instant::now();
    assert!(syncmut(&design, reference.path(), &[])
        .status()
        .unwrap()
        .success());
    let full = started.elapsed();
    let expected = verdicts(reference.path());

    for &fraction in points {
        let at = full.mul_f64(fraction);
        let out = tempfile::tempdir().unwrap();
        let mut child = syncmut(&design, out.path(), &[]).spawn().unwrap();
        std::thread::sleep(at);
        // SAFETY: a signal to our own child, not yet reaped.
        unsafe { libc::kill(child.id() as libc::pid_t, signal) };
        let status = child.wait().unwrap();
        let what = format!("{name}: signal {signal} at {at:?}");
        // A run that finished before the signal arrived exits 0; one signalled while
        // the program was still being loaded, before syncmut's handler existed, dies
        // of the signal having started nothing.
        let before_start = status.signal() == Some(signal)
            && std::fs::read_dir(out.path()).unwrap().next().is_none();
        if let Some(code) = code.filter(|_| status.code() != Some(0) && !before_start) {
            assert_eq!(status.code(), Some(code), "{what}");
            assert_tidy(out.path(), &what);
        }
        assert_eq!(
            processes_in(out.path()),
            Vec::<String>::new(),
            "{what}: processes left running"
        );

        let resumed = syncmut(&design, out.path(), &["--resume"])
            .status()
            .unwrap();
        assert!(
            resumed.success(),
            "{what}: the first --resume failed with {resumed}"
        );
        assert_eq!(verdicts(out.path()), expected, "{what}");
        assert_tidy(out.path(), &format!("{what}, after resume"));
    }
}

#[test]
fn a_pthread_run_killed_anywhere_resumes_to_the_same_verdicts() {
    interrupt_and_resume("pthread/barrier_phases", libc::SIGKILL, None, &KILL_POINTS);
}

#[test]
fn a_pthread_run_terminated_anywhere_resumes_to_the_same_verdicts() {
    interrupt_and_resume(
        "pthread/barrier_phases",
        libc::SIGTERM,
        Some(143),
        &TERM_POINTS,
    );
}

#[test]
fn a_systemc_run_killed_anywhere_resumes_to_the_same_verdicts() {
    interrupt_and_resume("systemc/guarded_event", libc::SIGKILL, None, &KILL_POINTS);
}

#[test]
fn a_systemc_run_terminated_anywhere_resumes_to_the_same_verdicts() {
    interrupt_and_resume(
        "systemc/guarded_event",
        libc::SIGTERM,
        Some(143),
        &TERM_POINTS,
    );
}

#[test]
fn a_second_syncmut_on_a_locked_directory_is_refused_and_a_dead_holder_is_not_a_holder() {
    let out = tempfile::tempdir().unwrap();
    let design = util::example("pthread/barrier_phases");
    let lock_path = out.path().join("syncmut.lock");
    std::fs::write(&lock_path, std::process::id().to_string()).unwrap();
    let lock = std::fs::File::open(&lock_path).unwrap();
    // SAFETY: flock on a descriptor this test owns.
    assert_eq!(
        unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    for command in ["run", "mutate", "gen"] {
        let output = Command::new(cargo_bin("syncmut"))
            .arg(command)
            .arg(&design)
            .arg("-o")
            .arg(out.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(6), "{command}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("another syncmut") && stderr.contains(&std::process::id().to_string()),
            "{command}: {stderr}"
        );
        assert!(
            !out.path().join("mutants.json").exists(),
            "{command} wrote into a locked directory"
        );
    }
    drop(lock);
    // The holder is gone; the pid in the file (this live test process) does not matter.
    assert!(Command::new(cargo_bin("syncmut"))
        .arg("mutate")
        .arg(&design)
        .arg("-o")
        .arg(out.path())
        .status()
        .unwrap()
        .success());
}
