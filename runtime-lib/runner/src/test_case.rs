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
//!
//! A test also says what surrounds the program (its [`Setting`]): `stdin`, `files`
//! copied into its private working directory, `env`, a `cmd` that runs the program
//! (`$SYNCMUT_BIN`), the exit status it `expect`s and the `outputs` files whose contents
//! are compared, and, for SystemC, the `sim_time` no `sc_start` runs past. Paths in a test file are relative to the file; [`load`] makes them
//! absolute, so the tests saved in a run directory still find their files.

use crate::compare::{Compare, Rules};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One test: the program arguments and input values to run the design with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestCase {
    /// Unique in its file: names its traces and its rows in every report.
    pub name: String,
    /// The program's arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Values of `__VERIFIER_nondet_*()` calls in call order (0 past the end).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nondet: Vec<i128>,
    /// Named inputs by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub inputs: BTreeMap<String, i64>,
    /// The program the test is for, by its executable's file name, when a run tests
    /// several programs (`syncmut run prog1 prog2`); `None`: every program runs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    /// What surrounds the program: stdin, files, environment, command, expectations.
    #[serde(flatten)]
    pub setting: Setting,
}

/// What a test puts around the program, beyond its arguments and input values.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setting {
    /// What the program reads on its standard input (default: nothing, `/dev/null`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<Stdin>,
    /// Copied into the run's working directory before it starts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileCopy>,
    /// Variables added to the program's environment.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// A command line that runs the program (`$SYNCMUT_BIN`) in place of running it
    /// directly; its exit status is the run's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cmd: Vec<String>,
    /// The exit status the original must end with for the test to be usable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<i32>,
    /// Files of the working directory whose contents are compared after the run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outputs: Vec<String>,
    /// SystemC: the simulated time no `sc_start` runs past (`SYNCMUT_SIM_UNTIL`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sim_time: Option<SimTime>,
    /// How outputs are compared ([`crate::compare`]).
    #[serde(default, skip_serializing_if = "is_exact")]
    pub compare: Compare,
    /// Regular expressions whose matches in stdout and stderr are not compared.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mask: Vec<String>,
}

fn is_exact(compare: &Compare) -> bool {
    *compare == Compare::Exact
}

impl Setting {
    /// The comparison rules of the test (checked when the test file was read).
    pub fn rules(&self) -> Rules {
        Rules::new(self.compare, &self.mask).unwrap_or_default()
    }
}

/// A simulated time, in ns: a test's `sim_time`, written `"10 us"`, `"500 ns"`, `"2 ms"`
/// (a whole number or a decimal and one of `fs`, `ps`, `ns`, `us`, `ms`, `s`; the
/// space is optional). Kept as ns, the runtime's unit: a time below 1 ns is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct SimTime {
    /// Nanoseconds of simulated time.
    pub ns: u64,
}

impl SimTime {
    /// Reads `"10 us"`; the error says what is wrong and what is expected.
    pub fn parse(text: &str) -> Result<SimTime, String> {
        let expected = "a number and a unit, e.g. \"10 us\", \"500 ns\", \"2 ms\" (units: fs, ps, ns, us, ms, s)";
        let trimmed = text.trim();
        let split = trimmed
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(trimmed.len());
        let (number, unit) = trimmed.split_at(split);
        let per_ns: f64 = match unit.trim() {
            "fs" => 1e-6,
            "ps" => 1e-3,
            "ns" => 1.0,
            "us" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            _ => return Err(format!("sim_time {text:?}: not {expected}")),
        };
        let value: f64 = match number.parse() {
            Ok(v) if !number.is_empty() && !number.starts_with('.') => v,
            _ => return Err(format!("sim_time {text:?}: not {expected}")),
        };
        let ns = (value * per_ns).round();
        if !(1.0..=(1u64 << 53) as f64).contains(&ns) {
            return Err(format!(
                "sim_time {text:?}: must be between 1 ns and {} s",
                (1u64 << 53) / 1_000_000_000
            ));
        }
        Ok(SimTime { ns: ns as u64 })
    }
}

impl std::fmt::Display for SimTime {
    /// In the largest unit that keeps it whole: `10 us`, `1500 ns`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (value, unit) = [(1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us")]
            .into_iter()
            .find(|(per, _)| self.ns.is_multiple_of(*per))
            .map(|(per, unit)| (self.ns / per, unit))
            .unwrap_or((self.ns, "ns"));
        write!(f, "{value} {unit}")
    }
}

impl std::str::FromStr for SimTime {
    type Err = String;
    fn from_str(text: &str) -> Result<SimTime, String> {
        SimTime::parse(text)
    }
}

impl Serialize for SimTime {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for SimTime {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<SimTime, D::Error> {
        let text = String::deserialize(d)?;
        SimTime::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// A test's standard input: a text, or a file's contents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Stdin {
    /// This text.
    Text(String),
    /// This file's contents.
    File {
        /// Relative to the test file as written; absolute once loaded.
        file: PathBuf,
    },
}

/// A file or directory copied into the working directory: `from` (absolute once
/// loaded) to `to` (relative to the working directory).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileCopy {
    /// The source, beside the test file.
    pub from: PathBuf,
    /// Where it goes in the working directory.
    pub to: String,
}

/// How a test file writes a [`FileCopy`]: a relative path (copied to the same path), or
/// `{"from": …, "to": …}`.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawFile {
    Same(String),
    Copy { from: PathBuf, to: String },
}

/// Why a test file could not be used; names the file.
#[derive(Debug, thiserror::Error)]
pub enum TestFileError {
    /// The file cannot be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The test file.
        path: PathBuf,
        /// Why it could not be read.
        source: std::io::Error,
    },
    /// The file is not a valid test file.
    #[error("{}: not a valid test file: {message} (format: docs/tests-format.md)", path.display())]
    Bad {
        /// The test file.
        path: PathBuf,
        /// What is wrong, naming the test and the field.
        message: String,
    },
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
    program: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    nondet: Vec<i128>,
    #[serde(default)]
    inputs: BTreeMap<String, i64>,
    #[serde(default)]
    stdin: Option<Stdin>,
    #[serde(default)]
    files: Vec<RawFile>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    cmd: Vec<String>,
    #[serde(default)]
    expect: Option<i32>,
    #[serde(default)]
    outputs: Vec<String>,
    #[serde(default)]
    sim_time: Option<String>,
    #[serde(default)]
    compare: Compare,
    #[serde(default)]
    mask: Vec<String>,
}

/// Reads a test file; names must be unique and usable as file names. Paths of `stdin`
/// and `files` are relative to the file, stay inside its directory and must exist.
pub fn load(path: &Path) -> Result<Vec<TestCase>, TestFileError> {
    load_with(path, true)
}

/// Reads the tests a run directory saved (syncmut's own file, whose paths it made
/// absolute): the same checks, except that paths may lead anywhere.
pub fn load_saved(path: &Path) -> Result<Vec<TestCase>, TestFileError> {
    load_with(path, false)
}

fn load_with(path: &Path, contained: bool) -> Result<Vec<TestCase>, TestFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| TestFileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let bad = |message| TestFileError::Bad {
        path: path.to_path_buf(),
        message,
    };
    let mut tests = parse_with(&text, contained).map_err(bad)?;
    let base = std::path::absolute(path)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    for test in &mut tests {
        resolve(&mut test.setting, &base, contained)
            .map_err(|m| bad(format!("test {:?}: {m}", test.name)))?;
    }
    Ok(tests)
}

/// Makes a setting's input paths absolute against `base` and checks that they exist,
/// that no link leads them out of `base` (when `contained`), and that whatever syncmut
/// will read of them is a regular file (a FIFO would block it, a device never end).
fn resolve(setting: &mut Setting, base: &Path, contained: bool) -> Result<(), String> {
    let real_base = base.canonicalize().unwrap_or_else(|_| base.to_path_buf());
    let check = |p: &Path, what: &str, follow_last: bool| {
        if std::fs::symlink_metadata(p).is_err() {
            return Err(format!(
                "{what} {}: no such file (paths are relative to the test file)",
                p.display()
            ));
        }
        // The last component of a `files` source is copied as a link when it is one.
        let real = match follow_last {
            true => p.canonicalize().ok(),
            false => p
                .parent()
                .and_then(|d| d.canonicalize().ok())
                .map(|d| d.join(p.file_name().unwrap_or_default())),
        };
        if contained && !real.is_some_and(|r| r.starts_with(&real_base)) {
            return Err(format!(
                "{what} {}: leads out of the test file's directory through a symbolic link",
                p.display()
            ));
        }
        regular_inside(p, follow_last).map_err(|e| format!("{what} {e}"))
    };
    if let Some(Stdin::File { file }) = &mut setting.stdin {
        *file = base.join(&*file);
        check(file, "stdin.file", true)?;
    }
    for (i, copy) in setting.files.iter_mut().enumerate() {
        copy.from = base.join(&copy.from);
        check(&copy.from, &format!("files[{i}].from"), false)?;
    }
    Ok(())
}

/// `path`, or every file in it when it is a directory, is a regular file, a directory
/// or a symbolic link (not followed): what syncmut copies without blocking; the error
/// names the first that is not.
pub fn copyable(path: &Path) -> Result<(), String> {
    regular_inside(path, false)
}

fn regular_inside(path: &Path, follow: bool) -> Result<(), String> {
    use std::os::unix::fs::FileTypeExt;
    let meta = match follow {
        true => std::fs::metadata(path),
        false => std::fs::symlink_metadata(path),
    }
    .map_err(|e| format!("{}: {e}", path.display()))?;
    let kind = meta.file_type();
    let what = match () {
        _ if kind.is_file() || kind.is_symlink() => return Ok(()),
        _ if kind.is_dir() && follow => "a directory",
        _ if kind.is_dir() => {
            let entries =
                std::fs::read_dir(path).map_err(|e| format!("{}: {e}", path.display()))?;
            for entry in entries {
                let entry = entry.map_err(|e| format!("{}: {e}", path.display()))?;
                regular_inside(&entry.path(), false)?;
            }
            return Ok(());
        }
        _ if kind.is_fifo() => "a FIFO",
        _ if kind.is_socket() => "a socket",
        _ if kind.is_char_device() => "a character device",
        _ if kind.is_block_device() => "a block device",
        _ => "not a file",
    };
    Err(format!(
        "{}: {what}, not a regular file (syncmut reads regular files only)",
        path.display()
    ))
}

/// A relative path without `..`, not empty: inside the working directory (`to`,
/// `outputs`) or inside the test file's directory (`from`, `stdin.file`).
fn check_inside(path: &str, what: &str) -> Result<(), String> {
    let p = Path::new(path);
    let inside = !path.is_empty()
        && p.components().all(|c| {
            matches!(
                c,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        });
    match inside {
        true => Ok(()),
        false => Err(format!(
            "{what} {path:?}: must be a relative path without \"..\""
        )),
    }
}

/// Checks and normalises what a test puts around the program.
fn setting(raw: &mut RawTest, contained: bool) -> Result<Setting, String> {
    let mut files = Vec::new();
    for file in std::mem::take(&mut raw.files) {
        let copy = match file {
            RawFile::Same(path) => FileCopy {
                from: PathBuf::from(&path),
                to: path,
            },
            RawFile::Copy { from, to } => FileCopy { from, to },
        };
        let i = files.len();
        if contained {
            check_inside(&copy.from.to_string_lossy(), &format!("files[{i}].from"))?;
        }
        check_inside(&copy.to, &format!("files[{i}].to"))?;
        files.push(copy);
    }
    if let (true, Some(Stdin::File { file })) = (contained, &raw.stdin) {
        check_inside(&file.to_string_lossy(), "stdin.file")?;
    }
    for (i, output) in raw.outputs.iter().enumerate() {
        check_inside(output, &format!("outputs[{i}]"))?;
    }
    if let Some(key) = raw
        .env
        .iter()
        .find(|(_, v)| v.contains('\0'))
        .map(|(k, _)| k)
    {
        return Err(format!(
            "env {key:?}: its value contains a NUL character, which no program can receive"
        ));
    }
    if let Some(key) = raw
        .env
        .keys()
        .find(|k| k.is_empty() || k.contains('=') || k.contains('\0'))
    {
        return Err(format!("env {key:?}: not a variable name"));
    }
    if let Some(key) = raw.env.keys().find(|k| k.starts_with("SYNCMUT_")) {
        return Err(format!("env {key:?}: SYNCMUT_ variables are syncmut's own (use nondet, inputs or args for input values)"));
    }
    if !raw.cmd.is_empty() && !raw.args.is_empty() {
        return Err("give either args or cmd: with cmd, the arguments go into the command line ($SYNCMUT_BIN …)".to_string());
    }
    if raw.cmd.first().is_some_and(|c| c.is_empty()) || raw.cmd.iter().any(|a| a.contains('\0')) {
        return Err(
            "cmd: the program is empty or an argument contains a NUL character".to_string(),
        );
    }
    let sim_time = raw.sim_time.as_deref().map(SimTime::parse).transpose()?;
    Rules::new(raw.compare, &raw.mask)?;
    Ok(Setting {
        compare: raw.compare,
        mask: std::mem::take(&mut raw.mask),
        sim_time,
        stdin: raw.stdin.take(),
        files,
        env: std::mem::take(&mut raw.env),
        cmd: std::mem::take(&mut raw.cmd),
        expect: raw.expect,
        outputs: std::mem::take(&mut raw.outputs),
    })
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
    parse_with(text, true)
}

/// [`parse`]; with `contained` false (a run directory's saved tests), `from` and
/// `stdin.file` may be absolute.
fn parse_with(text: &str, contained: bool) -> Result<Vec<TestCase>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let file: TestFile = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if file.tests.is_empty() {
        return Err("the file lists no tests".to_string());
    }
    let mut tests = Vec::new();
    for (i, mut raw) in file.tests.into_iter().enumerate() {
        let name = match raw.name.take() {
            Some(name) => check_name(name)?,
            // Named after its arguments when they make a usable name.
            None if raw.args.is_empty() => format!("test{}", i + 1),
            None => check_name(raw.args.join("_")).unwrap_or_else(|_| format!("test{}", i + 1)),
        };
        if let Some(program) = &raw.program {
            // A program is named by its executable's file name.
            if program.is_empty() || program.contains('/') || program == "." || program == ".." {
                return Err(format!(
                    "test {name:?}: program {program:?}: name the executable by its file name (\"test_pool\", not a path)"
                ));
            }
        }
        // Names are directories of one program's run: unique among the tests one
        // program runs (tests of two different programs may share a name).
        let clash = |t: &TestCase| {
            t.name == name
                && (t.program.is_none() || raw.program.is_none() || t.program == raw.program)
        };
        if tests.iter().any(clash) {
            return Err(format!("two tests are named {name:?}"));
        }
        check_args(&name, &raw.args)?;
        if let Some(v) = raw
            .nondet
            .iter()
            .find(|v| **v < NONDET_RANGE.0 || **v > NONDET_RANGE.1)
        {
            return Err(format!(
                "test {name:?}: nondet value {v} does not fit a 64-bit integer"
            ));
        }
        if let Some(k) = raw.inputs.keys().find(|k| !is_plain_name(k)) {
            return Err(format!(
                "test {name:?}: input name {k:?}: use letters, digits, '_', '-' and '.' only"
            ));
        }
        let setting = setting(&mut raw, contained).map_err(|m| format!("test {name:?}: {m}"))?;
        tests.push(TestCase {
            name,
            args: raw.args,
            nondet: raw.nondet,
            inputs: raw.inputs,
            program: raw.program,
            setting,
        });
    }
    Ok(tests)
}

fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// A test's name becomes a directory of the run directory: plain characters, not `.`
/// or `..`, at most [`MAX_NAME`] characters.
fn check_name(name: String) -> Result<String, String> {
    if !is_plain_name(&name) || name == "." || name == ".." {
        return Err(format!("test name {name:?}: use letters, digits, '_', '-' and '.' only, and not \".\" or \"..\""));
    }
    if name.len() > MAX_NAME {
        return Err(format!(
            "test name {:?}…: {} characters, at most {MAX_NAME}",
            &name[..40],
            name.len()
        ));
    }
    Ok(name)
}

/// Arguments the kernel can pass: no NUL byte (it would end the argument), none longer
/// than the kernel takes, not too many bytes together.
fn check_args(name: &str, args: &[String]) -> Result<(), String> {
    if let Some(i) = args.iter().position(|a| a.contains('\0')) {
        return Err(format!(
            "test {name:?}: argument {} contains a NUL character, which no program can receive",
            i + 1
        ));
    }
    if let Some(i) = args.iter().position(|a| a.len() > MAX_ARG_BYTES) {
        return Err(format!("test {name:?}: argument {} has {} bytes; a program receives at most {MAX_ARG_BYTES} in one argument", i + 1, args[i].len()));
    }
    let total: usize = args.iter().map(|a| a.len() + 1).sum();
    if total > MAX_ARGS_BYTES {
        return Err(format!(
            "test {name:?}: its arguments have {total} bytes together; at most {MAX_ARGS_BYTES}"
        ));
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
        assert_eq!(
            tests[0].inputs,
            BTreeMap::from([("depth".to_string(), 3), ("mode".to_string(), -1)])
        );
        let back = serde_json::to_string(&tests[0]).unwrap();
        assert!(
            back.contains(r#""nondet":[5,-3,18446744073709551615]"#),
            "{back}"
        );
        assert!(parse(r#"{"tests":[{"nondet":[18446744073709551616]}]}"#)
            .unwrap_err()
            .contains("64-bit"));
        assert!(parse(r#"{"tests":[{"inputs":{"a=b":1}}]}"#)
            .unwrap_err()
            .contains("input name"));
    }

    #[test]
    fn a_program_is_a_file_name_and_scopes_the_uniqueness_of_names() {
        let tests = parse(
            r#"{"tests":[{"name":"t","program":"a"},{"name":"t","program":"b"},{"name":"u"}]}"#,
        )
        .unwrap();
        let programs: Vec<Option<&str>> = tests.iter().map(|t| t.program.as_deref()).collect();
        assert_eq!(programs, [Some("a"), Some("b"), None]);
        // A test without a program runs with every program: its name clashes with any.
        assert!(
            parse(r#"{"tests":[{"name":"t","program":"a"},{"name":"t"}]}"#)
                .unwrap_err()
                .contains("two tests")
        );
        assert!(
            parse(r#"{"tests":[{"name":"t","program":"a"},{"name":"t","program":"a"}]}"#)
                .unwrap_err()
                .contains("two tests")
        );
        assert!(parse(r#"{"tests":[{"name":"t","program":"bin/a"}]}"#)
            .unwrap_err()
            .contains("file name"));
    }

    #[test]
    fn malformed_files_are_rejected_with_a_reason() {
        assert!(parse("{").is_err());
        assert!(parse(r#"{"tests":[]}"#).unwrap_err().contains("no tests"));
        assert!(parse(r#"{"tests":[{"argz":["x"]}]}"#)
            .unwrap_err()
            .contains("unknown field"));
        assert!(parse(r#"{"tests":[{"args":["a"]},{"args":["a"]}]}"#)
            .unwrap_err()
            .contains("two tests"));
        assert!(parse(r#"{"tests":[{"name":"../x"}]}"#)
            .unwrap_err()
            .contains("letters"));
    }

    #[test]
    fn sim_time_is_read_in_its_units_and_malformed_values_are_refused() {
        let tests = parse(r#"{"tests":[{"name":"a","sim_time":"10 us"},{"name":"b","sim_time":"500ns"},{"name":"c","sim_time":"2 ms"},{"name":"d","sim_time":"1.5 us"},{"name":"e"}]}"#).unwrap();
        let ns: Vec<Option<u64>> = tests
            .iter()
            .map(|t| t.setting.sim_time.map(|s| s.ns))
            .collect();
        assert_eq!(
            ns,
            [Some(10_000), Some(500), Some(2_000_000), Some(1_500), None]
        );
        // Saved tests read back the same.
        let back = serde_json::to_string(&tests[0]).unwrap();
        assert!(back.contains(r#""sim_time":"10 us""#), "{back}");
        assert_eq!(serde_json::from_str::<TestCase>(&back).unwrap(), tests[0]);
        assert_eq!(SimTime { ns: 1_500 }.to_string(), "1500 ns");
        for bad in [
            "10", "ten us", "10 hours", "", "0 ns", "-3 ns", "1 fs", ".5 us",
        ] {
            let err = parse(&format!(
                r#"{{"tests":[{{"name":"t","sim_time":"{bad}"}}]}}"#
            ))
            .unwrap_err();
            assert!(err.contains("test \"t\": sim_time"), "{bad}: {err}");
        }
        assert!(parse(r#"{"tests":[{"sim_time":100}]}"#)
            .unwrap_err()
            .contains("expected a string"));
        // The error names the test file.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tests.json");
        std::fs::write(&file, r#"{"tests":[{"name":"t","sim_time":"10 parsecs"}]}"#).unwrap();
        let err = load(&file).unwrap_err().to_string();
        assert!(
            err.contains("tests.json") && err.contains("sim_time \"10 parsecs\""),
            "{err}"
        );
    }

    #[test]
    fn names_and_arguments_that_cannot_be_run_are_refused_with_the_reason() {
        assert!(parse(r#"{"tests":[{"name":".."}]}"#)
            .unwrap_err()
            .contains("not \".\""));
        assert!(parse(r#"{"tests":[{"name":"."}]}"#)
            .unwrap_err()
            .contains("not \".\""));
        let long = format!(r#"{{"tests":[{{"name":"{}"}}]}}"#, "n".repeat(300));
        assert!(parse(&long)
            .unwrap_err()
            .contains("300 characters, at most 100"));
        assert!(parse(r#"{"tests":[{"args":["a\u0000b"]}]}"#)
            .unwrap_err()
            .contains("NUL"));
        let huge = format!(r#"{{"tests":[{{"args":["{}"]}}]}}"#, "x".repeat(1 << 20));
        assert!(parse(&huge)
            .unwrap_err()
            .contains("argument 1 has 1048576 bytes"));
        let many = format!(
            r#"{{"tests":[{{"args":[{}]}}]}}"#,
            vec![format!("\"{}\"", "y".repeat(100_000)); 12].join(",")
        );
        assert!(parse(&many).unwrap_err().contains("together"));
        // A name derived from arguments that cannot name a file falls back to the position.
        assert_eq!(
            parse(r#"{"tests":[{"args":["a/b"]}]}"#).unwrap()[0].name,
            "test1"
        );
        // A byte order mark is not an error.
        assert_eq!(
            parse("\u{feff}{\"tests\":[{\"name\":\"bom\"}]}").unwrap()[0].name,
            "bom"
        );
    }
}
