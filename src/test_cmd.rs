//! `run --test-cmd CMD`: the project's own test driver (`make check`, `./run-tests`)
//! as one more test. It runs as `sh -c CMD` with `SYNCMUT_BIN` naming the program under
//! test (the metamutant for the baseline and the mutants, the uninstrumented build for
//! the baseline's comparison), in a private working directory holding a copy of the
//! current directory, and is expected to exit 0: a driver that fails on the original
//! sets the test aside. A mutant is killed when the driver's exit status or output
//! differs, or when the synchronization the runtime observed differs (the trace of the
//! program's last run under the driver).

use anyhow::Context as _;
use std::path::Path;
use syncmut_runner::test_case::{FileCopy, Setting, TestCase};

/// The name of the driver's test in reports.
pub const NAME: &str = "test-cmd";

/// The test running `command` on a copy of the current directory (without `.git` and
/// without syncmut run directories, `run_dir` among them).
pub fn test(command: &str, run_dir: &Path, others: &[TestCase]) -> anyhow::Result<TestCase> {
    anyhow::ensure!(
        !command.trim().is_empty(),
        "--test-cmd: the command is empty"
    );
    anyhow::ensure!(
        !others.iter().any(|t| t.name == NAME),
        "--test-cmd: the tests file already has a test named {NAME:?}"
    );
    let cwd = std::env::current_dir().context("--test-cmd: the current directory")?;
    let run_dir = std::path::absolute(run_dir).unwrap_or_else(|_| run_dir.to_path_buf());
    let mut files = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(&cwd)
        .with_context(|| format!("{}: cannot list", cwd.display()))?
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_run_dir = path == run_dir || path.join(".syncmut").exists();
        if name == ".git" || is_run_dir {
            continue;
        }
        anyhow::ensure!(
            !run_dir.starts_with(&path),
            "--test-cmd: the run directory {} is inside {}, which the driver's copy of the current directory would include; put the run directory directly in the current directory or outside it",
            run_dir.display(),
            path.display()
        );
        // A FIFO or device would block the copy (or never end): refused here, named.
        syncmut_runner::test_case::copyable(&path)
            .map_err(|e| anyhow::anyhow!("--test-cmd: the copy of the current directory: {e}"))?;
        files.push(FileCopy {
            from: path,
            to: name,
        });
    }
    Ok(TestCase {
        name: NAME.to_string(),
        setting: Setting {
            files,
            cmd: vec!["sh".to_string(), "-c".to_string(), command.to_string()],
            expect: Some(0),
            ..Setting::default()
        },
        ..TestCase::default()
    })
}
