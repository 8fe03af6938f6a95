//! The runtime's input log (`SYNCMUT_INPUT_LOG`): one `nondet <type> <value>` or
//! `input <name> <value>` line per value handed out, in the order they were. Read back
//! as the values that replay the run: `nondet` in call order for `SYNCMUT_NONDET`, named
//! inputs for `SYNCMUT_INPUTS`.

use std::collections::BTreeMap;
use std::path::Path;

/// The values one run was given.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Given {
    /// `__VERIFIER_nondet_*()` results, in call order.
    pub nondet: Vec<i128>,
    /// Named inputs (`syncmut_input_int`), each name once.
    pub inputs: BTreeMap<String, i64>,
}

impl Given {
    /// Whether the run was given no value at all.
    pub fn is_empty(&self) -> bool {
        self.nondet.is_empty() && self.inputs.is_empty()
    }
}

/// Reads a run's log; a missing file is a run that was given nothing. Lines that are
/// not a value (a log cut by a crash mid-line) are skipped.
pub fn read(path: &Path) -> Given {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut given = Given::default();
    for line in text.lines() {
        let mut words = line.splitn(3, ' ');
        let (Some(kind), Some(what), Some(value)) = (words.next(), words.next(), words.next())
        else {
            continue;
        };
        match kind {
            "nondet" => given.nondet.extend(value.parse::<i128>().ok()),
            "input" => {
                if let Ok(v) = value.parse::<i64>() {
                    given.inputs.insert(what.to_string(), v);
                }
            }
            _ => {}
        }
    }
    given
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_values_in_order_and_skips_a_cut_line() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("inputs.log");
        std::fs::write(&log, "nondet int 7\ninput depth 3\nnondet ulong 18446744073709551615\nnondet int -2\nnondet in").unwrap();
        let given = read(&log);
        assert_eq!(given.nondet, vec![7, 18446744073709551615, -2]);
        assert_eq!(given.inputs.get("depth"), Some(&3));
        assert!(read(&dir.path().join("none")).is_empty());
    }
}
