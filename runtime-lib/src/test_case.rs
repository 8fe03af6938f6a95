//! Tests: the inputs a design runs on. A test file (`--tests FILE`, documented in
//! docs/tests-format.md) is JSON:
//!
//! ```json
//! { "tests": [ { "name": "deadlock", "args": ["t", "f"] }, { "args": ["f", "f"] } ] }
//! ```
//! `args` is the argv after the program name; `name` defaults to the arguments joined
//! by `_` (or `test<N>` without arguments). `nondet` lists the values the design's
//! `__VERIFIER_nondet_<type>()` calls return, in call order; `inputs` the values of
//! named inputs (`syncmut_input_int("depth", lo, hi)`); see docs/inputs.md. Unknown
//! keys are rejected so a typo is not silently ignored. The runtime hands the values out
//! (`inputs.c`); [`crate::Invocation::for_test`] passes them.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One test: the program arguments and input values to run the design with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestCase {
    pub name: String,
    #[serde(default)]
    pub args: Vec<String>,
    /// Values of `__VERIFIER_nondet_*()` calls in call order (0 past the end).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nondet: Vec<i128>,
    /// Named inputs by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub inputs: BTreeMap<String, i64>,
}

/// Why a test file could not be used; names the file.
#[derive(Debug, thiserror::Error)]
pub enum TestFileError {
    /// The file cannot be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    /// The file is not a valid test file.
    #[error("{}: not a valid test file: {message} (format: docs/tests-format.md)", path.display())]
    Bad { path: PathBuf, message: String },
}

/// Smallest and largest value a `nondet` entry may have (any C integer type up to 64 bits).
const NONDET_RANGE: (i128, i128) = (i64::MIN as i128, u64::MAX as i128);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TestFile {
    tests: Vec<RawTest>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTest {
    name: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    nondet: Vec<i128>,
    #[serde(default)]
    inputs: BTreeMap<String, i64>,
}

/// Reads a test file; names must be unique and usable as file names.
pub fn load(path: &Path) -> Result<Vec<TestCase>, TestFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| TestFileError::Read { path: path.to_path_buf(), source })?;
    parse(&text).map_err(|message| TestFileError::Bad { path: path.to_path_buf(), message })
}

/// Longest test name: it names files and directories of the run directory.
pub const MAX_NAME: usize = 100;
/// Longest single argument the kernel passes to a program (`MAX_ARG_STRLEN`, with the
/// terminating NUL).
const MAX_ARG_BYTES: usize = 128 * 1024 - 1;
/// Longest argument list, all arguments together: far below the kernel's own limit,
/// which depends on the stack size.
const MAX_ARGS_BYTES: usize = 1024 * 1024;

/// Parses the JSON text of a test file (a UTF-8 byte order mark is allowed, as editors
/// on some systems write one).
pub fn parse(text: &str) -> Result<Vec<TestCase>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let file: TestFile = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if file.tests.is_empty() {
        return Err("the file lists no tests".to_string());
    }
    let mut tests = Vec::new();
    for (i, raw) in file.tests.into_iter().enumerate() {
        let name = match raw.name {
            Some(name) => check_name(name)?,
            // Named after its arguments when they make a usable name.
            None if raw.args.is_empty() => format!("test{}", i + 1),
            None => check_name(raw.args.join("_")).unwrap_or_else(|_| format!("test{}", i + 1)),
        };
        if tests.iter().any(|t: &TestCase| t.name == name) {
            return Err(format!("two tests are named {name:?}"));
        }
        check_args(&name, &raw.args)?;
        if let Some(v) = raw.nondet.iter().find(|v| **v < NONDET_RANGE.0 || **v > NONDET_RANGE.1) {
            return Err(format!("test {name:?}: nondet value {v} does not fit a 64-bit integer"));
        }
        if let Some(k) = raw.inputs.keys().find(|k| !is_plain_name(k)) {
            return Err(format!("test {name:?}: input name {k:?}: use letters, digits, '_', '-' and '.' only"));
        }
        tests.push(TestCase { name, args: raw.args, nondet: raw.nondet, inputs: raw.inputs });
    }
    Ok(tests)
}

fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// A test's name becomes a directory of the run directory: plain characters, not `.`
/// or `..`, at most [`MAX_NAME`] characters.
fn check_name(name: String) -> Result<String, String> {
    if !is_plain_name(&name) || name == "." || name == ".." {
        return Err(format!("test name {name:?}: use letters, digits, '_', '-' and '.' only, and not \".\" or \"..\""));
    }
    if name.len() > MAX_NAME {
        return Err(format!("test name {:?}…: {} characters, at most {MAX_NAME}", &name[..40], name.len()));
    }
    Ok(name)
}

/// Arguments the kernel can pass: no NUL byte (it would end the argument), none longer
/// than the kernel takes, not too many bytes together.
fn check_args(name: &str, args: &[String]) -> Result<(), String> {
    if let Some(i) = args.iter().position(|a| a.contains('\0')) {
        return Err(format!("test {name:?}: argument {} contains a NUL character, which no program can receive", i + 1));
    }
    if let Some(i) = args.iter().position(|a| a.len() > MAX_ARG_BYTES) {
        return Err(format!("test {name:?}: argument {} has {} bytes; a program receives at most {MAX_ARG_BYTES} in one argument", i + 1, args[i].len()));
    }
    let total: usize = args.iter().map(|a| a.len() + 1).sum();
    if total > MAX_ARGS_BYTES {
        return Err(format!("test {name:?}: its arguments have {total} bytes together; at most {MAX_ARGS_BYTES}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_default_from_arguments() {
        let tests = parse(r#"{"tests":[{"args":["t","f"]},{"name":"empty"},{}]}"#).unwrap();
        let names: Vec<&str> = tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["t_f", "empty", "test3"]);
    }

    #[test]
    fn input_values_are_read_and_checked() {
        let tests = parse(r#"{"tests":[{"name":"n","nondet":[5,-3,18446744073709551615],"inputs":{"depth":3,"mode":-1}}]}"#).unwrap();
        assert_eq!(tests[0].nondet, [5, -3, u64::MAX as i128]);
        assert_eq!(tests[0].inputs, BTreeMap::from([("depth".to_string(), 3), ("mode".to_string(), -1)]));
        let back = serde_json::to_string(&tests[0]).unwrap();
        assert!(back.contains(r#""nondet":[5,-3,18446744073709551615]"#), "{back}");
        assert!(parse(r#"{"tests":[{"nondet":[18446744073709551616]}]}"#).unwrap_err().contains("64-bit"));
        assert!(parse(r#"{"tests":[{"inputs":{"a=b":1}}]}"#).unwrap_err().contains("input name"));
    }

    #[test]
    fn malformed_files_are_rejected_with_a_reason() {
        assert!(parse("{").is_err());
        assert!(parse(r#"{"tests":[]}"#).unwrap_err().contains("no tests"));
        assert!(parse(r#"{"tests":[{"argz":["x"]}]}"#).unwrap_err().contains("unknown field"));
        assert!(parse(r#"{"tests":[{"args":["a"]},{"args":["a"]}]}"#).unwrap_err().contains("two tests"));
        assert!(parse(r#"{"tests":[{"name":"../x"}]}"#).unwrap_err().contains("letters"));
    }

    #[test]
    fn names_and_arguments_that_cannot_be_run_are_refused_with_the_reason() {
        assert!(parse(r#"{"tests":[{"name":".."}]}"#).unwrap_err().contains("not \".\""));
        assert!(parse(r#"{"tests":[{"name":"."}]}"#).unwrap_err().contains("not \".\""));
        let long = format!(r#"{{"tests":[{{"name":"{}"}}]}}"#, "n".repeat(300));
        assert!(parse(&long).unwrap_err().contains("300 characters, at most 100"));
        assert!(parse(r#"{"tests":[{"args":["a\u0000b"]}]}"#).unwrap_err().contains("NUL"));
        let huge = format!(r#"{{"tests":[{{"args":["{}"]}}]}}"#, "x".repeat(1 << 20));
        assert!(parse(&huge).unwrap_err().contains("argument 1 has 1048576 bytes"));
        let many = format!(r#"{{"tests":[{{"args":[{}]}}]}}"#, vec![format!("\"{}\"", "y".repeat(100_000)); 12].join(","));
        assert!(parse(&many).unwrap_err().contains("together"));
        // A name derived from arguments that cannot name a file falls back to the position.
        assert_eq!(parse(r#"{"tests":[{"args":["a/b"]}]}"#).unwrap()[0].name, "test1");
        // A byte order mark is not an error.
        assert_eq!(parse("\u{feff}{\"tests\":[{\"name\":\"bom\"}]}").unwrap()[0].name, "bom");
    }
}
