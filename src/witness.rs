//! Violation witnesses in SV-COMP's witness format 2.0 (YAML): one `violation_sequence`
//! entry whose metadata name the producer, the time and the task (input files with
//! their SHA-256, the specification, data model, language), and whose content is a
//! sequence of segments, each ending in one waypoint to follow.
//!
//! The counterexample's run gives the waypoints: for each synchronization call it made,
//! in order, an `assumption` at the call's location whose constraint is the values the
//! program's integer and boolean globals had there (the runtime's state snapshot), and
//! last the `target`: the call of the error function (mutator/src/error_calls.rs). A
//! finding that is not a call of the error function (a deadlock, a data race) has no
//! target the format can name, so no witness is written for it.

use sha2::{Digest, Sha256};
use std::path::Path;
use syncmut_mutator::catalogue::Catalogue;
use syncmut_oracle::explore::{error_call, Found};

/// The witness file's name in the output directory.
pub const WITNESS_FILE: &str = "witness.yml";

/// Assumption waypoints kept at most: the last ones before the target, which are the
/// ones that lead to it; a long run would otherwise make a witness of megabytes.
const MAX_ASSUMPTIONS: usize = 200;

/// What the witness says about the task.
pub struct TaskInfo<'a> {
    /// The input files as named in waypoint locations, with the files to hash.
    pub input_files: Vec<(String, &'a Path)>,
    /// SV-COMP's specification text (`G ! call(reach_error())`).
    pub specification: &'a str,
    /// `ILP32` or `LP64`: the data model the program was built with.
    pub data_model: &'a str,
}

/// The witness of `found`, or `None` when it is not a call of the error function.
pub fn violation_witness(
    catalogue: &Catalogue,
    found: &Found,
    task: &TaskInfo,
) -> std::io::Result<Option<String>> {
    let stderr = found.execution.stderr.text();
    let Some(call) = error_call(&stderr) else {
        return Ok(None);
    };
    let Some(target) = target_location(call) else {
        return Ok(None);
    };
    let mut hashes = serde_json::Map::new();
    for (name, path) in &task.input_files {
        let bytes = std::fs::read(path)?;
        hashes.insert(name.clone(), hex(&Sha256::digest(&bytes)).into());
    }
    let names: Vec<&String> = task.input_files.iter().map(|(n, _)| n).collect();
    let mut segments: Vec<serde_json::Value> = assumptions(catalogue, found)
        .into_iter()
        .map(|waypoint| serde_json::json!({ "segment": [{ "waypoint": waypoint }] }))
        .collect();
    segments.push(serde_json::json!({ "segment": [{ "waypoint": {
        "type": "target",
        "action": "follow",
        "location": target,
    } }] }));
    let content = serde_json::Value::Array(segments);
    let uuid = uuid_of(&serde_json::to_vec(&content).expect("json"), &hashes);
    let entry = serde_json::json!([{
        "entry_type": "violation_sequence",
        "metadata": {
            "format_version": "2.0",
            "uuid": uuid,
            "creation_time": syncmut_analysis::testcomp::creation_time(),
            "producer": { "name": "syncmut", "version": env!("CARGO_PKG_VERSION") },
            "task": {
                "input_files": names,
                "input_file_hashes": hashes,
                "specification": task.specification,
                "data_model": task.data_model,
                "language": "C",
            },
        },
        "content": content,
    }]);
    Ok(Some(
        serde_yaml::to_string(&entry).expect("a witness serialises"),
    ))
}

/// The target's location from the runtime's error-call line `file:line:col in caller
/// calls callee`.
fn target_location(call: &str) -> Option<serde_json::Value> {
    let (place, rest) = call.split_once(" in ")?;
    let caller = rest.split_once(" calls ").map_or(rest, |(c, _)| c);
    let mut parts = place.rsplitn(3, ':');
    let col: u64 = parts.next()?.parse().ok()?;
    let line: u64 = parts.next()?.parse().ok()?;
    let file = parts.next()?;
    Some(serde_json::json!({
        "file_name": file,
        "line": line,
        "column": col,
        "function": caller,
    }))
}

/// One assumption waypoint per recorded synchronization call with a state snapshot:
/// the globals' values there, as a C expression over their names.
fn assumptions(catalogue: &Catalogue, found: &Found) -> Vec<serde_json::Value> {
    let mut waypoints: Vec<serde_json::Value> = found
        .trace
        .events
        .iter()
        .filter_map(|event| {
            let site = catalogue.sites.iter().find(|s| s.index == event.site)?;
            let terms: Vec<String> = event
                .state
                .iter()
                .filter(|(name, _)| is_identifier(name))
                .filter_map(|(name, value)| match value {
                    serde_json::Value::Number(n) => Some(format!("{name} == {n}")),
                    serde_json::Value::Bool(b) => Some(format!("{name} == {}", u8::from(*b))),
                    _ => None,
                })
                .collect();
            if terms.is_empty() || site.line == 0 {
                return None;
            }
            Some(serde_json::json!({
                "type": "assumption",
                "action": "follow",
                "constraint": { "value": terms.join(" && "), "format": "c_expression" },
                "location": {
                    "file_name": site.file,
                    "line": site.line,
                    "column": site.col,
                    "function": site.function,
                },
            }))
        })
        .collect();
    let extra = waypoints.len().saturating_sub(MAX_ASSUMPTIONS);
    waypoints.drain(..extra);
    waypoints
}

/// A plain C identifier (a global's name; members and elements are left out).
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A version-4-shaped UUID drawn from the witness's content and the files' hashes, so
/// the same counterexample of the same files gets the same identifier.
fn uuid_of(content: &[u8], hashes: &serde_json::Map<String, serde_json::Value>) -> String {
    let mut hash = Sha256::new();
    hash.update(content);
    hash.update(serde_json::to_vec(hashes).expect("json"));
    let mut b: [u8; 16] = hash.finalize()[..16].try_into().expect("16 bytes");
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex(&b);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_read_right() {
        let t = target_location("dir/t.c:12:5 in worker calls reach_error").unwrap();
        assert_eq!(t["file_name"], "dir/t.c");
        assert_eq!(t["line"], 12);
        assert_eq!(t["column"], 5);
        assert_eq!(t["function"], "worker");
        assert!(is_identifier("flag_1") && !is_identifier("s.x") && !is_identifier("1a"));
    }
}
