//! Reading the runtime's trace files (format in runtime-lib/README.md): the binary form
//! `trace.c` writes (`binary`), and JSON Lines, the form users read, which the oracle
//! renders, capped, for the traces it keeps (`write_capped`) and still accepts (old run
//! directories, hand-written fixtures). `visit` reads either form event by event, so a
//! trace of a million events is never held whole.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

pub(crate) mod binary;

/// One synchronization event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// The event's number in the run, from 0.
    pub seq: u64,
    /// The catalogue's site the event happened at.
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
    /// SystemC process full name, or `T<k>` for a pthread thread.
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
    /// The threads or processes that had not finished.
    #[serde(default)]
    pub pending: Vec<Pending>,
    /// The signal that ended the run, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// For a livelock: the process and site that spun.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    /// For a livelock: the site it spun at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<u32>,
}

/// Events left out where a trace was kept capped ([`write_capped`]): a run of
/// consecutive events, `first_seq..=last_seq`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Omitted {
    /// How many events were left out.
    #[serde(rename = "omitted")]
    pub events: u64,
    /// The first one's seq.
    pub first_seq: u64,
    /// The last one's seq.
    pub last_seq: u64,
}

/// A whole trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    /// The run's `SYNCMUT_ACTIVE` (empty: the original).
    pub active: String,
    /// The events, in run order.
    pub events: Vec<Event>,
    /// Runs of events left out when the trace was kept capped, in order.
    pub omitted: Vec<Omitted>,
    /// The runtime stopped recording at its cap.
    pub truncated: bool,
    /// Absent when the process was killed before it could say anything.
    pub end: Option<End>,
}

/// Parses trace text; a malformed line is an error naming the line.
pub fn parse(text: &str) -> Result<Trace, String> {
    let mut events = Vec::new();
    let mut trace = parse_with(text, &mut |e| events.push(e))?;
    trace.events = events;
    Ok(trace)
}

/// Parses trace text handing each event to `sink` instead of keeping it.
fn parse_with(text: &str, sink: &mut dyn FnMut(Event)) -> Result<Trace, String> {
    let mut trace = Trace::default();
    let mut any_event = false;
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
        let Value::Object(map) = &value else {
            return Err(bad("not a JSON object"));
        };
        if map.contains_key("syncmut_trace") {
            trace.active = map
                .get("active")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            header = true;
        } else if map.contains_key("truncated") {
            trace.truncated = true;
        } else if map.contains_key("omitted") {
            trace
                .omitted
                .push(serde_json::from_value(value).map_err(|e| bad(&e.to_string()))?);
        } else if map.contains_key("end") {
            trace.end = Some(serde_json::from_value(value).map_err(|e| bad(&e.to_string()))?);
        } else {
            sink(serde_json::from_value(value).map_err(|e| bad(&e.to_string()))?);
            any_event = true;
        }
    }
    if !header && any_event {
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
        let text = std::str::from_utf8(bytes)
            .map_err(|e| format!("not UTF-8 text nor a binary trace: {e}"))?;
        parse(text)
    }
}

/// Reads a trace file; a missing or empty file (the process died before flushing; a
/// search empties its trace file before each run rather than removing it) is an empty
/// trace without an end record.
pub fn read(path: &std::path::Path) -> Result<Trace, String> {
    read_bytes(path).map(|(trace, _)| trace)
}

/// Reads a trace file in either form handing each event to `sink` in order, so a trace of
/// a million events is never held whole; the returned trace has no events. A missing or
/// empty file reads as an empty trace, as in [`read`].
pub fn visit(path: &std::path::Path, sink: &mut dyn FnMut(Event)) -> Result<Trace, String> {
    let Some(bytes) = file_bytes(path)? else {
        return Ok(Trace::default());
    };
    let result = if binary::is_binary(&bytes) {
        binary::stream(&bytes, sink)
    } else {
        std::str::from_utf8(&bytes)
            .map_err(|e| format!("not UTF-8 text nor a binary trace: {e}"))
            .and_then(|text| parse_with(text, sink))
    };
    result.map_err(|e| format!("{}: {e}", path.display()))
}

/// What a kept trace holds of a long run: the first `head` events, `window` events either
/// side of the event with seq `around` (where the run first left the original's), and the
/// last `tail` events. What is left out is said in the file, one `omitted` line per gap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keep {
    /// Events kept from the start.
    pub head: u64,
    /// The seq kept with its window around it.
    pub around: Option<u64>,
    /// Events kept on either side of `around`.
    pub window: u64,
    /// Events kept at the end.
    pub tail: usize,
}

impl Keep {
    /// A few thousand events (about half a megabyte of JSON Lines) per kept trace: enough
    /// for the diff, the explanation and a look at how the run ended, while a run
    /// directory of livelocked mutants (a million events each) stays small.
    pub const DEFAULT: Keep = Keep {
        head: 2000,
        around: None,
        window: 500,
        tail: 1000,
    };

    fn keeps(&self, index: u64, seq: u64) -> bool {
        index < self.head
            || self
                .around
                .is_some_and(|d| seq + self.window >= d && seq <= d + self.window)
    }
}

/// Renders the trace at `source` (either form) as JSON Lines at `dest`, atomically, keeping
/// only what `keep` says, and returns what was written. Streams: at most the kept events
/// are in memory at once.
pub fn write_capped(
    source: &std::path::Path,
    dest: &std::path::Path,
    keep: &Keep,
) -> Result<Trace, String> {
    let mut kept: Vec<Event> = Vec::new();
    let mut recent: std::collections::VecDeque<Event> = std::collections::VecDeque::new();
    let mut omitted: Vec<Omitted> = Vec::new();
    let mut gap: Option<Omitted> = None;
    let mut index = 0u64;
    let mut trace = visit(source, &mut |event| {
        let leave_out = |gap: &mut Option<Omitted>, out: Event| match gap {
            Some(g) => {
                g.events += 1;
                g.last_seq = out.seq;
            }
            None => {
                *gap = Some(Omitted {
                    events: 1,
                    first_seq: out.seq,
                    last_seq: out.seq,
                })
            }
        };
        if keep.keeps(index, event.seq) {
            // What came since the last kept event is neither head nor window: left out.
            for out in recent.drain(..) {
                leave_out(&mut gap, out);
            }
            omitted.extend(gap.take());
            kept.push(event);
        } else {
            recent.push_back(event);
            if recent.len() > keep.tail {
                leave_out(&mut gap, recent.pop_front().expect("longer than the tail"));
            }
        }
        index += 1;
    })?;
    omitted.extend(gap);
    kept.extend(recent);
    trace.events = kept;
    trace.omitted = omitted;
    crate::atomic::write(dest, &to_jsonl(&trace))
        .map_err(|e| format!("{}: {e}", dest.display()))?;
    Ok(trace)
}

/// The trace and whether the file was binary.
fn read_bytes(path: &std::path::Path) -> Result<(Trace, bool), String> {
    let Some(bytes) = file_bytes(path)? else {
        return Ok((Trace::default(), false));
    };
    let trace = parse_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((trace, binary::is_binary(&bytes)))
}

/// A trace file's bytes; `None` when it is missing or empty (no run wrote it).
fn file_bytes(path: &std::path::Path) -> Result<Option<Vec<u8>>, String> {
    match std::fs::read(path) {
        Ok(bytes) if bytes.is_empty() => Ok(None),
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// The JSON Lines form of a trace: header, events with a line for each run of events
/// left out (`{"omitted":N,"first_seq":a,"last_seq":b}`), the cap marker, the end record.
/// Reading it back gives the same `Trace`.
pub fn to_jsonl(trace: &Trace) -> Vec<u8> {
    let mut out = format!(
        "{{\"syncmut_trace\":1,\"active\":{}}}\n",
        Value::from(trace.active.as_str())
    );
    let mut gaps = trace.omitted.iter().peekable();
    let gap_line = |out: &mut String, gap: &Omitted| {
        out.push_str(&serde_json::to_string(gap).expect("a gap serializes"));
        out.push('\n');
    };
    for event in &trace.events {
        while let Some(gap) = gaps.next_if(|g| g.last_seq < event.seq) {
            gap_line(&mut out, gap);
        }
        out.push_str(&serde_json::to_string(event).expect("an event serializes"));
        out.push('\n');
    }
    for gap in gaps {
        gap_line(&mut out, gap);
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
        assert_eq!(
            end.pending,
            vec![Pending {
                thread: "m.t1".into(),
                site: Some(0)
            }]
        );
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
        assert_eq!(
            state_text(state),
            "{counter=-3 done=true hits=18446744073709551615 p=non-null}"
        );
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
    fn a_capped_trace_keeps_head_divergence_and_tail_and_says_what_it_left_out() {
        let mut text = String::from("{\"syncmut_trace\":1,\"active\":\"0:remove\"}\n");
        for seq in 0..100 {
            text.push_str(&format!(
                "{{\"seq\":{seq},\"site\":{},\"action\":\"original\",\"thread\":\"T0\"}}\n",
                seq % 3
            ));
        }
        text.push_str(
            "{\"truncated\":true}\n{\"end\":\"livelock\",\"thread\":\"T0\",\"site\":1}\n",
        );
        let dir = tempfile::tempdir().unwrap();
        let (source, dest) = (dir.path().join("raw"), dir.path().join("kept.jsonl"));
        std::fs::write(&source, &text).unwrap();
        let keep = Keep {
            head: 10,
            around: Some(50),
            window: 2,
            tail: 5,
        };
        let kept = write_capped(&source, &dest, &keep).unwrap();
        let seqs: Vec<u64> = kept.events.iter().map(|e| e.seq).collect();
        assert_eq!(
            seqs,
            [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 48, 49, 50, 51, 52, 95, 96, 97, 98, 99]
        );
        assert_eq!(
            kept.omitted,
            [
                Omitted {
                    events: 38,
                    first_seq: 10,
                    last_seq: 47
                },
                Omitted {
                    events: 42,
                    first_seq: 53,
                    last_seq: 94
                }
            ]
        );
        // The file says so, reads back as what was kept, and keeps the end record.
        let written = std::fs::read_to_string(&dest).unwrap();
        assert!(
            written.contains("{\"omitted\":38,\"first_seq\":10,\"last_seq\":47}\n{\"seq\":48"),
            "{written}"
        );
        let back = read(&dest).unwrap();
        assert_eq!(back, kept);
        assert!(back.truncated);
        assert_eq!(back.end.unwrap().kind, EndKind::Livelock);
        // A short trace is kept whole.
        let whole = write_capped(&source, &dest, &Keep::DEFAULT).unwrap();
        assert_eq!((whole.events.len(), whole.omitted.len()), (100, 0));
    }

    #[test]
    fn malformed_lines_are_rejected_with_their_number() {
        assert!(parse("{\"syncmut_trace\":1}\nnot json\n")
            .unwrap_err()
            .starts_with("line 2"));
        assert!(parse("{\"syncmut_trace\":1}\n{\"seq\":0}\n")
            .unwrap_err()
            .starts_with("line 2"));
        assert!(
            parse("{\"seq\":0,\"site\":0,\"action\":\"original\",\"thread\":\"T0\"}\n")
                .unwrap_err()
                .contains("header")
        );
    }
}
