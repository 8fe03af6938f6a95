//! Why the baseline sets a test aside, in words: the original fails the test's expected
//! exit status, crashes, times out or hits the thread limit (its uninstrumented build
//! behaving differently is `original_build.rs`); and, when the original failed, the data
//! files in the design's directory that the run did not get.

use std::path::Path;
use syncmut_mutator::metamutant::Build;
use syncmut_runner::exec::{Execution, Limits, Status};
use syncmut_runner::test_case::TestCase;

/// Why the test is unusable when the original does not end with the exit status the
/// test expects: the test fails on the design as it is, so no mutant can be judged by it.
/// Likewise when the original leaves one of the test's `outputs` as something other than
/// a regular file (a directory, a FIFO, a device, a link): its contents cannot be
/// compared, and a test that says it compares them must not pass as one that does.
pub(super) fn fails_expectation(test: &TestCase, execution: &Execution) -> Option<String> {
    let odd = test.setting.outputs.iter().enumerate().find_map(|(i, name)| {
        let file = execution.outputs.get(name)?.as_ref()?;
        let what = file.not_regular.as_ref()?;
        Some(format!("outputs[{i}] {name:?} cannot be compared after the original's run: {what}; leave it out of the test's \"outputs\""))
    });
    if odd.is_some() {
        return odd;
    }
    let expected = Status::Exited(test.setting.expect?);
    (execution.status != expected).then(|| {
        format!(
            "the test fails on the original: it ends with {} where the test expects {expected}",
            execution.status
        )
    })
}

/// How many of the data files [`missing_files_hint`] names.
const HINT_FILES: usize = 3;

/// When the original crashed or exited with a failure on a test, and the design's
/// directory (the project root) holds data files the test does not copy into the run's
/// private working directory: says so, naming a few, and points to `files`. The run
/// starts in an empty directory, so a design that reads `bios.img` from where it was
/// built finds nothing there.
pub(super) fn missing_files_hint(build: &Build, test: &TestCase, status: Status) -> Option<String> {
    let failed = match status {
        Status::Signaled(_) => true,
        // The runtime's own ends (livelock, deadlock, assume, thread limit, a malformed
        // setting) are not a design missing its input.
        Status::Exited(code) => code != 0 && !(120..=124).contains(&code),
        Status::TimedOut => false,
    };
    if !failed || build.catalogue.root.is_empty() {
        return None;
    }
    let files = data_files(Path::new(&build.catalogue.root), test);
    if files.is_empty() {
        return None;
    }
    let more = if files.len() > HINT_FILES { " …" } else { "" };
    Some(format!(
        "the design's directory has data files the run did not get ({}{more}): if the design reads them, list them under \"files\" in tests.json (docs/tests-format.md)",
        files[..files.len().min(HINT_FILES)].join(", ")
    ))
}

/// The regular files directly in `dir` that look like a design's input data: not
/// sources, headers, build or project files, documentation, scripts or executables,
/// not hidden, and not already copied by the test's `files`; sorted by name.
pub(crate) fn data_files(dir: &Path, test: &TestCase) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    const NOT_DATA_EXTENSIONS: &[&str] = &[
        "c", "cc", "cpp", "cxx", "c++", "cp", "h", "hh", "hpp", "hxx", "h++", "inl", "ipp", "tcc",
        "tpp", "i", "ii", "o", "obj", "a", "so", "bc", "ll", "s", "asm", "d", "mk", "cmake", "am",
        "ac", "in", "m4", "md", "rst", "adoc", "sh", "py", "pl", "toml", "yml", "yaml", "orig",
        "rej", "swp", "log",
    ];
    const NOT_DATA_NAMES: &[&str] = &[
        "makefile",
        "gnumakefile",
        "cmakelists.txt",
        "kconfig",
        "configure",
        "doxyfile",
        "tests.json",
        "compile_commands.json",
        "authors",
        "notice",
    ];
    const NOT_DATA_PREFIXES: &[&str] = &["readme", "license", "licence", "copying", "changelog"];
    let given: Vec<std::path::PathBuf> = test
        .setting
        .files
        .iter()
        .filter_map(|f| std::fs::canonicalize(&f.from).ok())
        .collect();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<String> = entries
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().to_lowercase();
            let extension = Path::new(&name)
                .extension()
                .map(|x| x.to_string_lossy().into_owned());
            !name.starts_with('.')
                && !name.ends_with('~')
                && !NOT_DATA_NAMES.contains(&name.as_str())
                && !NOT_DATA_PREFIXES.iter().any(|p| name.starts_with(p))
                && !extension.is_some_and(|x| NOT_DATA_EXTENSIONS.contains(&x.as_str()))
        })
        .filter(|e| {
            // Regular files only (following links), not executables (built programs,
            // scripts).
            std::fs::metadata(e.path())
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 == 0)
        })
        .filter(|e| std::fs::canonicalize(e.path()).map_or(true, |p| !given.contains(&p)))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    found
}

/// Why a run of the original makes its test unusable, if it does.
pub(super) fn unusable(execution: &Execution, limits: &Limits) -> Option<String> {
    match execution.status {
        Status::TimedOut => Some(format!("the original did not finish within {} ms", limits.timeout.as_millis())),
        Status::Signaled(_) => Some(format!("the original crashed ({})", execution.status)),
        Status::Exited(syncmut_runtime::status::THREAD_LIMIT) => {
            Some("the original hit the runtime's thread limit (more than 1024 threads alive or unjoined at once)".to_string())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syncmut_runner::test_case::{FileCopy, Setting};

    #[test]
    fn data_files_leave_out_sources_build_files_executables_and_what_the_test_copies() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "bios.img",
            "icache.img",
            "in_real",
            "given.bin",
            "top.cpp",
            "top.h",
            "Makefile",
            "README.md",
            "tests.json",
            "syncmut.toml",
            ".hidden",
            "run.sh",
            "a.out",
        ] {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        std::fs::set_permissions(
            dir.path().join("a.out"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        std::fs::create_dir(dir.path().join("data")).unwrap();
        let test = TestCase {
            name: "t".into(),
            setting: Setting {
                files: vec![FileCopy {
                    from: dir.path().join("given.bin"),
                    to: "given.bin".into(),
                }],
                ..Setting::default()
            },
            ..TestCase::default()
        };
        assert_eq!(
            data_files(dir.path(), &test),
            ["bios.img", "icache.img", "in_real"]
        );
    }
}
