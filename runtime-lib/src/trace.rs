//! Reading the runtime's trace files (format in runtime-lib/README.md): the binary form
//! `trace.c` writes (`binary`), and JSON Lines, the form users read, which the oracle
//! renders for the traces it keeps (`keep_readable`) and still accepts (old run
//! directories, hand-written fixtures).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

pub(crate) mod binary;

/// One synchronization event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    pub seq: u64,
    pub site: u32,
    /// `original` or the slug of the operator performed.
    pub action: String,
    /// SystemC process full name, or `T<k>` for a pthread thread.
    pub thread: String,
    /// SystemC simulation time (`10 ns`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// SystemC delta count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<u64>,
    /// A notification while no process waited on the event.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lost: bool,
    /// The design's global variables when the event was recorded: integers as numbers,
    /// bools as booleans, pointers as `"null"`/`"non-null"`. Empty for designs without
    /// globals and for traces written before snapshots existed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub state: BTreeMap<String, Value>,
}

/// The state snapshot compactly: `{cs1=1 cs2=0 p=non-null}`; empty for no state.
pub fn state_text(state: &BTreeMap<String, Value>) -> String {
    if state.is_empty() {
        return String::new();
    }
    let fields: Vec<String> = state
        .iter()
        .map(|(name, value)| match value {
            Value::String(s) => format!("{name}={s}"),
            other => format!("{name}={other}"),
        })
        .collect();
    format!("{{{}}}", fields.join(" "))
}

/// A thread or process that had not finished when the run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    pub thread: String,
    /// The site it was blocked in, if it was inside a wrapped call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<u32>,
}

/// How a traced run ended: the `end` key of the end record, written as its text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum EndKind {
    /// The process exited (`exit`).
    #[default]
    Exit,
    /// A fatal signal (`signal`).
    Signal,
    /// A livelock bound ended the run (`livelock`).
    Livelock,
    /// The scheduler found a deadlock (`deadlock`).
    Deadlock,
    /// Another ending the runtime names in words (the scheduler's thread limit).
    Other(String),
}

impl EndKind {
    /// The text the runtime writes.
    pub fn as_str(&self) -> &str {
        match self {
            EndKind::Exit => "exit",
            EndKind::Signal => "signal",
            EndKind::Livelock => "livelock",
            EndKind::Deadlock => "deadlock",
            EndKind::Other(text) => text,
        }
    }
}

impl From<String> for EndKind {
    fn from(text: String) -> EndKind {
        match text.as_str() {
            "exit" => EndKind::Exit,
            "signal" => EndKind::Signal,
            "livelock" => EndKind::Livelock,
            "deadlock" => EndKind::Deadlock,
            _ => EndKind::Other(text),
        }
    }
}

impl From<EndKind> for String {
    fn from(kind: EndKind) -> String {
        kind.as_str().to_string()
    }
}

impl std::fmt::Display for EndKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How the traced run ended, as the runtime saw it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct End {
    /// The `end` key of the record.
    #[serde(rename = "end")]
    pub kind: EndKind,
    /// No thread could make progress while some had not finished.
    #[serde(default)]
    pub deadlock: bool,
    #[serde(default)]
    pub pending: Vec<Pending>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// For a livelock: the process and site that spun.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<u32>,
}

/// A whole trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    pub active: String,
    pub events: Vec<Event>,
    /// The runtime stopped recording at its cap.
    pub truncated: bool,
    /// Absent when the process was killed before it could say anything.
    pub end: Option<End>,
}

/// Parses trace text; a malformed line is an error naming the line.
pub fn parse(text: &str) -> Result<Trace, String> {
    let mut trace = Trace::default();
    let mut header = false;
    // A process killed while flushing leaves a last line without its newline: that line
    // is dropped and the trace counts as truncated, anything else malformed is an error.
    let (text, cut) = match text.rfind('\n') {
        Some(end) if end + 1 < text.len() => (&text[..=end], true),
        None if !text.is_empty() => ("", true),
        _ => (text, false),
    };
    trace.truncated = cut;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |what: &str| format!("line {}: {what}", i + 1);
        let value: Value = serde_json::from_str(line).map_err(|e| bad(&e.to_string()))?;
        let Value::Object(map) = &value else { return Err(bad("not a JSON object")) };
        if map.contains_key("syncmut_trace") {
            trace.active = map.get("active").and_then(Value::as_str).unwrap_or_default().to_string();
            header = true;
        } else if map.contains_key("truncated") {
            trace.truncated = true;
        } else if map.contains_key("end") {
            trace.end = Some(serde_json::from_value(value).map_err(|e| bad(&e.to_string()))?);
        } else {
            trace.events.push(serde_json::from_value(value).map_err(|e| bad(&e.to_string()))?);
        }
    }
    if !header && !trace.events.is_empty() {
        return Err("missing header line {\"syncmut_trace\":1,…}".to_string());
    }
    Ok(trace)
}

/// The extension of a file the runtime writes its trace to and that stays binary
/// (`candidate3.bin`, explore's `run.bin`): `.jsonl` names only JSON Lines, the form the
/// oracle renders for users. Readers take either form whatever the name.
pub const BINARY_EXTENSION: &str = "bin";

/// `<stem>.bin`: the name of a binary trace file.
pub fn binary_name(stem: &str) -> String {
    format!("{stem}.{BINARY_EXTENSION}")
}

/// Parses a trace in either form: binary when it starts like the binary magic (a cut
/// one may be shorter), else JSON Lines.
pub fn parse_bytes(bytes: &[u8]) -> Result<Trace, String> {
    if binary::is_binary(bytes) {
        binary::parse(bytes)
    } else {
        let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8 text nor a binary trace: {e}"))?;
        parse(text)
    }
}

/// Reads a trace file; a missing file (the process died before flushing) is an empty
/// trace without an end record.
pub fn read(path: &std::path::Path) -> Result<Trace, String> {
    read_bytes(path).map(|(trace, _)| trace)
}

/// The trace and whether the file was binary.
fn read_bytes(path: &std::path::Path) -> Result<(Trace, bool), String> {
    match std::fs::read(path) {
        Ok(bytes) => {
            let trace = parse_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok((trace, binary::is_binary(&bytes)))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((Trace::default(), false)),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// Reads a trace the oracle keeps for users and, if the runtime wrote it in binary,
/// replaces the file (atomically) with its JSON Lines rendering, so what users open
/// stays readable; the JSON is formatted here rather than in the design's process.
pub fn keep_readable(path: &std::path::Path) -> Result<Trace, String> {
    let (trace, was_binary) = read_bytes(path)?;
    if was_binary {
        crate::atomic::write(path, &to_jsonl(&trace)).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(trace)
}

/// The JSON Lines form of a trace: header, events, the cap marker, the end record.
/// Reading it back gives the same `Trace`.
pub fn to_jsonl(trace: &Trace) -> Vec<u8> {
    let mut out = format!("{{\"syncmut_trace\":1,\"active\":{}}}\n", Value::from(trace.active.as_str()));
    for event in &trace.events {
        out.push_str(&serde_json::to_string(event).expect("an event serializes"));
        out.push('\n');
    }
    if trace.truncated {
        out.push_str("{\"truncated\":true}\n");
    }
    if let Some(end) = &trace.end {
        out.push_str(&serde_json::to_string(end).expect("an end record serializes"));
        out.push('\n');
    }
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_header_events_and_end() {
        let text = r#"{"syncmut_trace":1,"active":"0:remove"}
{"seq":0,"site":0,"action":"remove","thread":"m.t1","time":"0 s","delta":0}
{"seq":1,"site":2,"action":"original","thread":"m.t2","time":"0 s","delta":0,"lost":true}
{"end":"exit","deadlock":true,"pending":[{"thread":"m.t1","site":0}]}
"#;
        let trace = parse(text).unwrap();
        assert_eq!(trace.active, "0:remove");
        assert_eq!(trace.events.len(), 2);
        assert!(trace.events[1].lost);
        let end = trace.end.unwrap();
        assert_eq!(end.kind, EndKind::Exit);
        assert!(end.deadlock);
        assert_eq!(end.pending, vec![Pending { thread: "m.t1".into(), site: Some(0) }]);
    }

    #[test]
    fn parses_state_snapshots() {
        let text = r#"{"syncmut_trace":1,"active":""}
{"seq":0,"site":1,"action":"original","thread":"T0","state":{"counter":-3,"done":true,"hits":18446744073709551615,"p":"non-null"}}
{"seq":1,"site":1,"action":"original","thread":"T0"}
"#;
        let trace = parse(text).unwrap();
        let state = &trace.events[0].state;
        assert_eq!(state["counter"], Value::from(-3));
        assert_eq!(state["done"], Value::Bool(true));
        assert_eq!(state["hits"], Value::from(u64::MAX));
        assert_eq!(state["p"], Value::from("non-null"));
        assert_eq!(state_text(state), "{counter=-3 done=true hits=18446744073709551615 p=non-null}");
        assert!(trace.events[1].state.is_empty());
        assert_eq!(state_text(&trace.events[1].state), "");
    }

    #[test]
    fn a_line_cut_by_a_kill_marks_the_trace_truncated() {
        let text = "{\"syncmut_trace\":1,\"active\":\"\"}\n{\"seq\":0,\"site\":1,\"action\":\"original\",\"thread\":\"T0\"}\n{\"seq\":1,\"si";
        let trace = parse(text).unwrap();
        assert!(trace.truncated);
        assert_eq!(trace.events.len(), 1);
    }

    #[test]
    fn malformed_lines_are_rejected_with_their_number() {
        assert!(parse("{\"syncmut_trace\":1}\nnot json\n").unwrap_err().starts_with("line 2"));
        assert!(parse("{\"syncmut_trace\":1}\n{\"seq\":0}\n").unwrap_err().starts_with("line 2"));
        assert!(parse("{\"seq\":0,\"site\":0,\"action\":\"original\",\"thread\":\"T0\"}\n").unwrap_err().contains("header"));
    }
}
