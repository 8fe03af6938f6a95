//! Keeps the Rust side of the runtime protocol in step with its one definition, the C
//! headers `include/syncmut_protocol.h` and `include/syncmut_tables.h`: every `#define`
//! there must have its Rust constant here with the same value, and the other way round.

use crate::{env, status, tables, trace};
use std::collections::BTreeMap;

/// A `#define`d value: a number, a string or a character literal.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    Number(i64),
    Bytes(Vec<u8>),
}

/// The object-like `#define`s of a header, by name (include guards, which have no value,
/// left out).
fn defines(header: &str) -> BTreeMap<String, Value> {
    let mut found = BTreeMap::new();
    for line in header.lines() {
        let Some(rest) = line.trim().strip_prefix("#define ") else {
            continue;
        };
        let rest = rest.split("/*").next().unwrap_or_default().trim();
        let Some((name, value)) = rest.split_once(char::is_whitespace) else {
            continue;
        };
        found.insert(
            name.to_string(),
            parse_value(value.trim())
                .unwrap_or_else(|| panic!("#define {name}: cannot read {value:?}")),
        );
    }
    found
}

fn parse_value(text: &str) -> Option<Value> {
    if let Some(quoted) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        return Some(Value::Bytes(unescape(quoted)?));
    }
    if let Some(quoted) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        let bytes = unescape(quoted)?;
        return (bytes.len() == 1).then(|| Value::Number(i64::from(bytes[0])));
    }
    text.parse().ok().map(Value::Number)
}

/// C escapes as the headers use them: `\xNN` (two digits here) and `\\`.
fn unescape(text: &str) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut rest = text.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b != b'\\' {
            bytes.push(b);
            rest = tail;
            continue;
        }
        match tail.split_first()? {
            (b'x', hex) => {
                bytes.push(u8::from_str_radix(std::str::from_utf8(hex.get(..2)?).ok()?, 16).ok()?);
                rest = &hex[2..];
            }
            (b'\\', after) => {
                bytes.push(b'\\');
                rest = after;
            }
            _ => return None,
        }
    }
    Some(bytes)
}

fn number(n: impl Into<i64>) -> Value {
    Value::Number(n.into())
}

fn text(s: &str) -> Value {
    Value::Bytes(s.as_bytes().to_vec())
}

#[test]
fn the_rust_constants_match_the_protocol_header() {
    let expected: BTreeMap<String, Value> = [
        ("SYNCMUT_STATUS_CONFIG_ERROR", number(status::CONFIG_ERROR)),
        ("SYNCMUT_STATUS_LIVELOCK", number(status::LIVELOCK)),
        ("SYNCMUT_STATUS_DEADLOCK", number(status::DEADLOCK)),
        ("SYNCMUT_STATUS_ASSUME", number(status::ASSUME)),
        ("SYNCMUT_STATUS_THREAD_LIMIT", number(status::THREAD_LIMIT)),
        ("SYNCMUT_STATUS_THREAD_BOUND", number(status::THREAD_BOUND)),
        ("SYNCMUT_STATUS_STEP_BUDGET", number(status::STEP_BUDGET)),
        ("SYNCMUT_SITE_COPY", number(tables::SITE_COPY)),
        ("SYNCMUT_SITE_INNER", number(tables::SITE_INNER)),
        ("SYNCMUT_ENV_ACTIVE", text(env::ACTIVE)),
        ("SYNCMUT_ENV_TRACE", text(env::TRACE)),
        ("SYNCMUT_ENV_SCHEDULE", text(env::SCHEDULE)),
        ("SYNCMUT_ENV_SCHEDULE_OUT", text(env::SCHEDULE_OUT)),
        ("SYNCMUT_ENV_RECORD_STEPS", text(env::RECORD_STEPS)),
        ("SYNCMUT_ENV_RECORD_DETAIL", text(env::RECORD_DETAIL)),
        ("SYNCMUT_ENV_RACES_OUT", text(env::RACES_OUT)),
        ("SYNCMUT_ENV_MAX_STEPS", text(env::MAX_STEPS)),
        ("SYNCMUT_ENV_THREAD_BOUND", text(env::THREAD_BOUND)),
        ("SYNCMUT_ENV_REPEAT_WINDOW", text(env::REPEAT_WINDOW)),
        ("SYNCMUT_ENV_PCT_STEPS", text(env::PCT_STEPS)),
        ("SYNCMUT_ENV_NONDET", text(env::NONDET)),
        ("SYNCMUT_ENV_NONDET_SEED", text(env::NONDET_SEED)),
        ("SYNCMUT_ENV_INPUTS", text(env::INPUTS)),
        ("SYNCMUT_ENV_INPUT_LOG", text(env::INPUT_LOG)),
        ("SYNCMUT_ENV_DELTA_BOUND", text(env::DELTA_BOUND)),
        ("SYNCMUT_ENV_SPIN_BOUND", text(env::SPIN_BOUND)),
        ("SYNCMUT_ENV_SIM_UNTIL", text(env::SIM_UNTIL)),
        ("SYNCMUT_ENV_SIM_PROBE", text(env::SIM_PROBE)),
        ("SYNCMUT_SIM_PROBE_REPORT", text(env::SIM_PROBE_REPORT)),
        ("SYNCMUT_ENV_REAL_TIME", text(env::REAL_TIME)),
        ("SYNCMUT_ENV_ENTROPY", text(env::ENTROPY)),
        ("SYNCMUT_ENV_FORK_SERVER", text(env::FORK_SERVER)),
        (
            "SYNCMUT_TRACE_MAGIC",
            Value::Bytes(trace::binary::MAGIC.to_vec()),
        ),
        ("SYNCMUT_TRACE_VERSION", number(trace::binary::VERSION)),
        (
            "SYNCMUT_TRACE_TAG_PTHREAD",
            number(trace::binary::TAG_PTHREAD),
        ),
        (
            "SYNCMUT_TRACE_TAG_PTHREAD_READS",
            number(trace::binary::TAG_PTHREAD_READS),
        ),
        (
            "SYNCMUT_TRACE_TAG_SYSTEMC",
            number(trace::binary::TAG_SYSTEMC),
        ),
        (
            "SYNCMUT_TRACE_TAG_SYSTEMC_SAME",
            number(trace::binary::TAG_SYSTEMC_SAME),
        ),
        ("SYNCMUT_TRACE_TAG_SEQ", number(trace::binary::TAG_SEQ)),
        ("SYNCMUT_TRACE_TAG_JOIN", number(trace::binary::TAG_JOIN)),
        ("SYNCMUT_TRACE_TAG_AGAIN", number(trace::binary::TAG_AGAIN)),
        ("SYNCMUT_TRACE_TAG_CHUNK", number(trace::binary::TAG_CHUNK)),
        (
            "SYNCMUT_TRACE_TAG_TRUNCATED",
            number(trace::binary::TAG_TRUNCATED),
        ),
        ("SYNCMUT_TRACE_TAG_END", number(trace::binary::TAG_END)),
        ("SYNCMUT_EVENT_LOST", number(trace::binary::LOST)),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_string(), value))
    .collect();
    assert_eq!(
        defines(include_str!("../include/syncmut_protocol.h")),
        expected
    );
}

#[test]
fn the_rust_constants_match_the_tables_header() {
    let expected: BTreeMap<String, Value> = [
        ("SYNCMUT_MAX_GLOBALS", number(tables::MAX_GLOBALS as i64)),
        ("SYNCMUT_COPY_FIELDS", number(tables::COPY_FIELDS as i64)),
        ("SYNCMUT_MAX_MEMBERS", number(tables::MAX_MEMBERS as i64)),
        ("SYNCMUT_FIELD_SIGNED", number(tables::kind::SIGNED)),
        ("SYNCMUT_FIELD_UNSIGNED", number(tables::kind::UNSIGNED)),
        ("SYNCMUT_FIELD_BOOL", number(tables::kind::BOOL)),
        ("SYNCMUT_FIELD_POINTER", number(tables::kind::POINTER)),
        ("SYNCMUT_FIELD_ENUM", number(tables::kind::ENUM)),
        ("SYNCMUT_FIELD_UENUM", number(tables::kind::UENUM)),
        ("SYNCMUT_FIELD_RAW", number(tables::kind::RAW)),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_string(), value))
    .collect();
    assert_eq!(
        defines(include_str!("../include/syncmut_tables.h")),
        expected
    );
}

#[test]
fn the_header_reader_reads_what_the_headers_use() {
    let found =
        defines("#define A 120\n#define B \"\\x89ab\" /* c */\n#define C 'P'\n#define GUARD\n");
    assert_eq!(found["A"], Value::Number(120));
    assert_eq!(found["B"], Value::Bytes(b"\x89ab".to_vec()));
    assert_eq!(found["C"], Value::Number(80));
    assert!(!found.contains_key("GUARD"));
}
