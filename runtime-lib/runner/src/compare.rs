//! How a test's outputs are compared (`compare` and `mask` in tests.json), applied to
//! every execution of the test as it ends, so the original and every mutant are seen
//! through the same rules and nothing downstream needs to know them.
//!
//! - `"exact"` (the default): every byte of stdout, stderr and the `outputs` files.
//! - `"sorted-lines"`: stdout and stderr as the sorted list of their lines: a design
//!   that prints results in completion order compares by what it printed, not when.
//! - `"exit-only"`: stdout, stderr (but the runtime's own lines) and `outputs` are not
//!   compared; the exit status, the end state and the synchronization events still are.
//! - `mask`: regular expressions; in each line of stdout and stderr every match is
//!   replaced by `…` before comparing (time stamps, addresses, durations).
//!
//! Reasons quote the lines as compared (sorted, masked).

use crate::output::Output;
use serde::{Deserialize, Serialize};

/// `compare` of a test.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Compare {
    /// Every byte of stdout, stderr and `outputs`.
    #[default]
    Exact,
    /// stdout and stderr as the sorted list of their lines.
    SortedLines,
    /// The exit status and the synchronization trace only.
    ExitOnly,
}

/// What replaces a match of a `mask` expression.
pub const MASKED: &str = "…";

/// The runtime's own stderr lines, kept under `exit-only`: the oracle reads them.
const RUNTIME_LINE: &[u8] = b"syncmut runtime:";

/// Largest `mask` expression, compiled (the regex crate's own limit is 10 MB; a test
/// file may come from an untrusted change).
const MASK_SIZE_LIMIT: usize = 1 << 20;

/// The rules of one test.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    compare: Compare,
    masks: Vec<regex::bytes::Regex>,
}

impl Rules {
    /// The rules for `compare` and the `mask` expressions; an expression that does not
    /// compile is an error naming it.
    pub fn new(compare: Compare, masks: &[String]) -> Result<Rules, String> {
        let masks = masks
            .iter()
            .map(|m| {
                regex::bytes::RegexBuilder::new(m)
                    .size_limit(MASK_SIZE_LIMIT)
                    .build()
                    .map_err(|e| format!("mask {m:?}: not a regular expression: {e}"))
            })
            .collect::<Result<_, _>>()?;
        Ok(Rules { compare, masks })
    }

    /// Every byte is compared: nothing to apply.
    pub fn is_exact(&self) -> bool {
        self.compare == Compare::Exact && self.masks.is_empty()
    }

    /// Whether the test's `outputs` files are compared.
    pub fn compares_files(&self) -> bool {
        self.compare != Compare::ExitOnly
    }

    /// A stream as the test compares it (`stderr`: the runtime's own lines are kept under
    /// `exit-only`).
    pub fn stream(&self, output: &Output, stderr: bool) -> Output {
        if self.is_exact() {
            return output.clone();
        }
        let mut lines: Vec<Vec<u8>> = Vec::new();
        for line in output.lines() {
            let mut bytes = line.bytes;
            if !bytes.ends_with(b"\n") {
                bytes.push(b'\n'); // sorting must not glue the last line to another
            }
            if self.compare == Compare::ExitOnly && !(stderr && bytes.starts_with(RUNTIME_LINE)) {
                continue;
            }
            for mask in &self.masks {
                bytes = mask.replace_all(&bytes, MASKED.as_bytes()).into_owned();
            }
            lines.push(bytes);
        }
        if self.compare == Compare::SortedLines {
            lines.sort();
        }
        Output::from_bytes(&lines.concat())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(rules: &Rules, stream: &str, stderr: bool) -> String {
        let output = rules.stream(&Output::from_bytes(stream.as_bytes()), stderr);
        String::from_utf8(output.head().to_vec()).unwrap()
    }

    #[test]
    fn each_rule_compares_what_it_says() {
        let exact = Rules::new(Compare::Exact, &[]).unwrap();
        assert_eq!(text(&exact, "b\na", false), "b\na");
        assert!(exact.compares_files());

        let sorted = Rules::new(Compare::SortedLines, &[]).unwrap();
        assert_eq!(text(&sorted, "task 2\ntask 1", false), "task 1\ntask 2\n");
        assert_eq!(text(&sorted, "task 1\ntask 2\n", false), "task 1\ntask 2\n");

        let masked = Rules::new(Compare::Exact, &[r"took \d+ ms".to_string()]).unwrap();
        assert_eq!(text(&masked, "took 12 ms\nok\n", false), "…\nok\n");
        assert_eq!(text(&masked, "took 9 ms\nok\n", false), "…\nok\n");

        let exit = Rules::new(Compare::ExitOnly, &[]).unwrap();
        assert_eq!(text(&exit, "anything\n", false), "");
        assert_eq!(
            text(&exit, "noise\nsyncmut runtime: deadlock\n", true),
            "syncmut runtime: deadlock\n"
        );
        assert!(!exit.compares_files());

        assert!(Rules::new(Compare::Exact, &["(".to_string()])
            .unwrap_err()
            .starts_with("mask \"(\": not a regular expression"));
    }
}
