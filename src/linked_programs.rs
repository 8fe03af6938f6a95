//! Executables linked through `syncmut cc`, and the tests of a shared tests file each
//! one runs: `run` reads them for its design, and each program of a run of several does
//! the same.

use crate::exit;
use crate::failure::Failure;
use std::path::Path;
use syncmut_mutator::{design, wrapped};
use syncmut_runner::test_case::TestCase;

fn usage(error: anyhow::Error) -> Failure {
    Failure {
        code: exit::USAGE,
        error,
    }
}

/// Whether `path` is an executable linked through `syncmut cc` (its record beside it).
pub fn is_program(path: &Path) -> Result<bool, Failure> {
    Ok(path.is_file() && design::kind_of(path).is_none() && wrapped::program_of(path)?.is_some())
}

/// The tests of `file` that `program` runs: those naming it and those naming none. A
/// test may name a program this run does not test when that program is an executable
/// linked through `syncmut cc` beside the tests file (one tests file serves runs of any
/// of the programs); a test naming any other program is refused, naming the file.
pub fn tests_for(
    file: &Path,
    tests: Vec<TestCase>,
    programs: &[String],
    program: Option<&str>,
) -> Result<Vec<TestCase>, Failure> {
    let beside = file.parent().unwrap_or(Path::new("."));
    for test in &tests {
        let Some(named) = test.program.as_deref() else {
            continue;
        };
        if programs.iter().any(|p| p == named) || is_program(&beside.join(named))? {
            continue;
        }
        let run = match programs.is_empty() {
            true => {
                "this run's design is not an executable linked through `syncmut cc`".to_string()
            }
            false => format!("this run's programs are {}", programs.join(", ")),
        };
        return Err(usage(anyhow::anyhow!(
            "{}: test {:?} names program {named:?}, which is not a program of this run ({run}) nor an executable linked through `syncmut cc` beside the tests file; name that program on the command line, or correct the test's \"program\" (docs/tests-format.md)",
            file.display(),
            test.name
        )));
    }
    Ok(tests
        .into_iter()
        .filter(|t| t.program.is_none() || t.program.as_deref() == program)
        .collect())
}

/// Without generated tests or a test driver, a program needs a test of the file.
pub fn some_test(
    file: &Path,
    mine: &[TestCase],
    program: Option<&str>,
    plan: &crate::gen::Generation,
    command: bool,
) -> Result<(), Failure> {
    if !mine.is_empty() || command || !matches!(plan, crate::gen::Generation::None) {
        return Ok(());
    }
    Err(usage(anyhow::anyhow!(
        "{}: no test for {} (every test names another \"program\"); add one, or drop --gen none",
        file.display(),
        program.map_or("this design".to_string(), |p| format!("program {p}"))
    )))
}
