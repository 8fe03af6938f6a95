//! Tests: the inputs a design runs on. A test file (`--tests FILE`, documented in
//! docs/tests-format.md) is JSON:
//!
//! ```json
//! { "tests": [ { "name": "deadlock", "args": ["t", "f"] }, { "args": ["f", "f"] } ] }
//! ```
//! `args` is the argv after the program name; `name` defaults to the arguments joined
//! by `_` (or `test<N>` without arguments). Unknown keys are rejected so a typo is not
//! silently ignored.

use crate::error::OracleError;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One test: the program arguments to run the design with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestCase {
    pub name: String,
    #[serde(default)]
    pub args: Vec<String>,
}

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
}

/// Reads a test file; names must be unique and usable as file names.
pub fn load(path: &Path) -> Result<Vec<TestCase>, OracleError> {
    let text = std::fs::read_to_string(path).map_err(|source| OracleError::Read { path: path.to_path_buf(), source })?;
    parse(&text).map_err(|message| OracleError::BadTestFile { path: path.to_path_buf(), message })
}

/// Parses the JSON text of a test file.
pub fn parse(text: &str) -> Result<Vec<TestCase>, String> {
    let file: TestFile = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if file.tests.is_empty() {
        return Err("the file lists no tests".to_string());
    }
    let mut tests = Vec::new();
    for (i, raw) in file.tests.into_iter().enumerate() {
        let name = raw.name.unwrap_or_else(|| {
            if raw.args.is_empty() { format!("test{}", i + 1) } else { raw.args.join("_") }
        });
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')) {
            return Err(format!("test name {name:?}: use letters, digits, '_', '-' and '.' only"));
        }
        if tests.iter().any(|t: &TestCase| t.name == name) {
            return Err(format!("two tests are named {name:?}"));
        }
        tests.push(TestCase { name, args: raw.args });
    }
    Ok(tests)
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
    fn malformed_files_are_rejected_with_a_reason() {
        assert!(parse("{").is_err());
        assert!(parse(r#"{"tests":[]}"#).unwrap_err().contains("no tests"));
        assert!(parse(r#"{"tests":[{"argz":["x"]}]}"#).unwrap_err().contains("unknown field"));
        assert!(parse(r#"{"tests":[{"args":["a"]},{"args":["a"]}]}"#).unwrap_err().contains("two tests"));
        assert!(parse(r#"{"tests":[{"name":"../x"}]}"#).unwrap_err().contains("letters"));
    }
}
