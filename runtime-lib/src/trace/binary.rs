//! The runtime's binary trace (`trace.c` beside this file, format in runtime-lib/README.md):
//! a preamble (magic, version, `active`, the operator slugs, the state schema, the
//! interned strings), then tagged records: events (seq implicit, see `TAG_SEQ`), the cap
//! marker, the end record.
//!
//! The runtime writes the file in one go at the end of the run, so a file that stops
//! before its end record was cut by a kill: whatever was read whole is kept and the trace
//! is marked truncated, never an error. Bytes that cannot be a trace (a wrong version, an
//! unknown tag, a number out of range) are an error naming the byte offset.

use super::{End, Event, Pending, Trace};
use crate::tables::kind;
use serde_json::Value;
use std::collections::BTreeMap;

// The constants of `syncmut_protocol.h` (`SYNCMUT_TRACE_*`, `SYNCMUT_EVENT_LOST`); the
// crate's `protocol_header` test checks them against it.
pub(crate) const MAGIC: &[u8; 8] = b"\x89syncmut";
pub(crate) const VERSION: u32 = 2;
/// The first version, still read: fixed-width numbers and every snapshot value in every
/// event (the repository's own trace fixtures are in it).
const VERSION_FIXED: u32 = 1;
pub(crate) const TAG_PTHREAD: u8 = b'P';
pub(crate) const TAG_SYSTEMC: u8 = b'S';
/// A pthread event of a thread that can read only some globals: the mask of those, then
/// only their values (the others are absent from its snapshot).
pub(crate) const TAG_PTHREAD_READS: u8 = b'R';
/// Sets the next event's seq (the runtime skipped a slot a signal interrupted).
pub(crate) const TAG_SEQ: u8 = b'Q';
pub(crate) const TAG_TRUNCATED: u8 = b'T';
pub(crate) const TAG_END: u8 = b'Z';
pub(crate) const LOST: u8 = 1;

/// Whether `bytes` are (the start of) a binary trace.
pub fn is_binary(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && bytes[..bytes.len().min(MAGIC.len())] == MAGIC[..bytes.len().min(MAGIC.len())]
}

/// Why reading stopped: the bytes ran out (a cut file), or they cannot be a trace.
enum Stop {
    Cut,
    Bad(String),
}

type Read<T> = Result<T, Stop>;

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Read<&[u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or(Stop::Cut)?;
        let part = &self.bytes[self.at..end];
        self.at = end;
        Ok(part)
    }
    fn u8(&mut self) -> Read<u8> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Read<u16> {
        Ok(u16::from_le_bytes(
            self.take(2)?.try_into().expect("2 bytes"),
        ))
    }
    fn u32(&mut self) -> Read<u32> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    fn u64(&mut self) -> Read<u64> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
    /// An unsigned LEB128 number (`put_varint` in trace.c).
    fn varint(&mut self) -> Read<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.u8()?;
            if shift == 63 && byte > 1 {
                return self.bad("a varint past 64 bits");
            }
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        self.bad("a varint past 64 bits")
    }
    fn var32(&mut self) -> Read<u32> {
        let v = self.varint()?;
        u32::try_from(v).or_else(|_| self.bad(format!("{v} does not fit 32 bits")))
    }
    /// A length-prefixed string. The runtime copies C strings as they are: bytes that are
    /// not UTF-8 read as their Latin-1 characters, as the JSON writer escaped them.
    fn text(&mut self) -> Read<String> {
        let len = self.u32()? as usize;
        Ok(latin1_fallback(self.take(len)?))
    }
    /// A count of items of at least `min_size` bytes each: more than the bytes left is a
    /// cut file, so a spoiled count never makes the reader allocate for it.
    fn count(&mut self, min_size: usize) -> Read<usize> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_size) > self.bytes.len() - self.at {
            return Err(Stop::Cut);
        }
        Ok(n)
    }
    fn bad<T>(&self, what: impl std::fmt::Display) -> Read<T> {
        Err(Stop::Bad(format!("byte {}: {what}", self.at)))
    }
}

fn latin1_fallback(mut bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    loop {
        match std::str::from_utf8(bytes) {
            Ok(rest) => {
                out.push_str(rest);
                return out;
            }
            Err(e) => {
                let (good, bad) = bytes.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(good).expect("valid prefix"));
                out.push(char::from(bad[0]));
                bytes = &bad[1..];
            }
        }
    }
}

/// A recorded value of the state schema and how to print it (`kind`: [`kind`]).
struct Field {
    name: String,
    kind: u8,
    size: u8,
    enums: Vec<(u64, String)>,
}

impl Field {
    fn read(r: &mut Reader) -> Read<Field> {
        let name = r.text()?;
        let kind = r.u8()?;
        let size = r.u8()?;
        if !(1..=8).contains(&size) {
            return r.bad(format!("field size {size} (1 to 8)"));
        }
        let n = r.count(12)?;
        let mut enums = Vec::with_capacity(n);
        for _ in 0..n {
            enums.push((r.u64()?, r.text()?));
        }
        Ok(Field {
            name,
            kind,
            size,
            enums,
        })
    }

    /// A recorded value: `size` bytes, little-endian, zero-extended (as the runtime read it).
    fn raw(&self, r: &mut Reader) -> Read<u64> {
        let mut bytes = [0u8; 8];
        bytes[..self.size as usize].copy_from_slice(r.take(self.size as usize)?);
        Ok(u64::from_le_bytes(bytes))
    }

    /// The value as the JSON Lines form has it: bools, `"null"`/`"non-null"`, enumerator
    /// names, `"0x…"` raw bytes in memory order, else a number sign-extended from the
    /// field's width (unsigned for unsigned kinds).
    fn value(&self, v: u64) -> Value {
        match self.kind {
            kind::BOOL => return Value::Bool(v != 0),
            kind::POINTER => return Value::from(if v != 0 { "non-null" } else { "null" }),
            kind::RAW => {
                let hex: String = v.to_le_bytes()[..self.size as usize]
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                return Value::from(format!("0x{hex}"));
            }
            kind::ENUM | kind::UENUM => {
                if let Some((_, name)) = self.enums.iter().find(|(value, _)| *value == v) {
                    return Value::from(name.as_str());
                }
            }
            _ => {}
        }
        if self.kind == kind::UNSIGNED || self.kind == kind::UENUM {
            return Value::from(v);
        }
        let shift = 64 - 8 * u32::from(self.size);
        let signed = ((v << shift) as i64) >> shift;
        if signed < 0 {
            Value::from(signed)
        } else {
            Value::from(signed as u64)
        }
    }
}

/// The tables that name the records' numbers, and what reading the events needs.
struct Preamble {
    ops: Vec<String>,
    globals: Vec<Field>,
    classes: Vec<Vec<Field>>,
    strings: Vec<String>,
    /// Version 2 on: varints, and a snapshot holds only the values that changed.
    compact: bool,
    /// The value last read at each snapshot position (globals, then members): a value a
    /// compact event leaves out repeats it.
    last: Vec<u64>,
}

impl Preamble {
    /// A site, thread, time or module number: a varint in a compact trace, else a u32.
    fn number(&self, r: &mut Reader) -> Read<u32> {
        if self.compact {
            r.var32()
        } else {
            r.u32()
        }
    }

    fn string(&self, id: u32) -> String {
        // As the runtime prints an id it does not know.
        self.strings
            .get(id as usize)
            .cloned()
            .unwrap_or_else(|| "?".to_string())
    }
}

fn fields(r: &mut Reader) -> Read<Vec<Field>> {
    let n = r.count(10)?;
    (0..n).map(|_| Field::read(r)).collect()
}

fn preamble(r: &mut Reader, trace: &mut Trace) -> Read<Preamble> {
    if r.take(MAGIC.len())? != MAGIC {
        return r.bad("not a syncmut binary trace");
    }
    let version = r.u32()?;
    if version != VERSION && version != VERSION_FIXED {
        return r.bad(format!("binary trace version {version}, this syncmut reads version {VERSION}: rerun with the syncmut that reads it"));
    }
    trace.active = r.text()?;
    let nops = r.count(4)?;
    let ops = (0..nops).map(|_| r.text()).collect::<Read<_>>()?;
    let globals = fields(r)?;
    let nclasses = r.count(4)?;
    let classes: Vec<Vec<Field>> = (0..nclasses).map(|_| fields(r)).collect::<Read<_>>()?;
    let nstrings = r.count(4)?;
    let strings = (0..nstrings).map(|_| r.text()).collect::<Read<_>>()?;
    let widest = classes.iter().map(Vec::len).max().unwrap_or(0);
    let last = vec![0; globals.len() + widest];
    Ok(Preamble {
        ops,
        globals,
        classes,
        strings,
        compact: version != VERSION_FIXED,
        last,
    })
}

/// The snapshot: the globals (those whose bit is set in `reads`), then the members of
/// class `cls` of `module`. In a compact trace a mask says which of them follow; the
/// others repeat the last value read at their position.
fn state(
    r: &mut Reader,
    p: &mut Preamble,
    reads: u64,
    cls: usize,
    module: u32,
) -> Read<BTreeMap<String, Value>> {
    if cls > p.classes.len() {
        return r.bad(format!("class {cls} of {}", p.classes.len()));
    }
    let nglobals = p.globals.len();
    let present: Vec<usize> = (0..nglobals)
        .filter(|&i| i >= 64 || reads >> i & 1 != 0)
        .chain((0..cls.checked_sub(1).map_or(0, |c| p.classes[c].len())).map(|i| nglobals + i))
        .collect();
    let mask = if p.compact {
        r.take(present.len().div_ceil(8))?.to_vec()
    } else {
        vec![0xff; present.len().div_ceil(8)]
    };
    let module = if cls != 0 {
        p.string(module)
    } else {
        String::new()
    };
    let mut state = BTreeMap::new();
    for (j, &pos) in present.iter().enumerate() {
        let field = if pos < nglobals {
            &p.globals[pos]
        } else {
            &p.classes[cls - 1][pos - nglobals]
        };
        let raw = if mask[j / 8] >> (j % 8) & 1 != 0 {
            field.raw(r)?
        } else {
            p.last[pos]
        };
        let name = if pos < nglobals {
            field.name.clone()
        } else {
            format!("{module}.{}", field.name)
        };
        state.insert(name, field.value(raw));
        p.last[pos] = raw;
    }
    Ok(state)
}

fn action(p: &Preamble, action: u8) -> String {
    p.ops
        .get(action as usize)
        .cloned()
        .unwrap_or_else(|| "?".to_string())
}

/// A pthread event; `masked`: its record carries the mask of the globals the thread reads.
fn pthread_event(r: &mut Reader, p: &mut Preamble, seq: u64, masked: bool) -> Read<Event> {
    let site = p.number(r)?;
    let thread = p.number(r)?;
    let action = action(p, r.u8()?);
    let reads = match (masked, p.compact) {
        (false, _) => u64::MAX,
        (true, true) => r.varint()?,
        (true, false) => r.u64()?,
    };
    let state = state(r, p, reads, 0, 0)?;
    Ok(Event {
        seq,
        site,
        action,
        thread: format!("T{thread}"),
        time: None,
        delta: None,
        lost: false,
        state,
    })
}

fn systemc_event(r: &mut Reader, p: &mut Preamble, seq: u64) -> Read<Event> {
    let site = p.number(r)?;
    let thread = p.string(p.number(r)?);
    let time = Some(p.string(p.number(r)?));
    let module = p.number(r)?;
    let delta = Some(if p.compact { r.varint()? } else { r.u64()? });
    let cls = if p.compact {
        let cls = r.var32()?;
        u16::try_from(cls).or_else(|_| r.bad(format!("class {cls}")))?
    } else {
        r.u16()?
    } as usize;
    let action = action(p, r.u8()?);
    let lost = r.u8()? & LOST != 0;
    let state = state(r, p, u64::MAX, cls, module)?;
    Ok(Event {
        seq,
        site,
        action,
        thread,
        time,
        delta,
        lost,
        state,
    })
}

/// A site as i64, -1 for none.
fn site(r: &mut Reader) -> Read<Option<u32>> {
    let site = r.u64()? as i64;
    match site {
        -1 => Ok(None),
        s => u32::try_from(s)
            .map(Some)
            .or_else(|_| r.bad(format!("site {s}"))),
    }
}

fn end(r: &mut Reader) -> Read<End> {
    let kind = r.text()?;
    let has_signal = r.u8()? != 0;
    let signal = r.u32()? as i32;
    let has_thread = r.u8()? != 0;
    let thread = r.text()?;
    let culprit_site = site(r)?;
    let deadlock = r.u8()? != 0;
    let n = r.count(12)?;
    let mut pending = Vec::with_capacity(n);
    for _ in 0..n {
        pending.push(Pending {
            thread: r.text()?,
            site: site(r)?,
        });
    }
    Ok(End {
        kind: kind.into(),
        deadlock,
        pending,
        signal: has_signal.then_some(signal),
        thread: has_thread.then_some(thread),
        site: culprit_site,
    })
}

fn records(r: &mut Reader, trace: &mut Trace, sink: &mut dyn FnMut(Event)) -> Read<()> {
    let mut p = preamble(r, trace)?;
    let mut seq = 0;
    loop {
        match r.u8()? {
            tag @ (TAG_PTHREAD | TAG_PTHREAD_READS) => {
                sink(pthread_event(r, &mut p, seq, tag == TAG_PTHREAD_READS)?);
                seq += 1;
            }
            TAG_SYSTEMC => {
                sink(systemc_event(r, &mut p, seq)?);
                seq += 1;
            }
            TAG_SEQ => seq = r.u64()?,
            TAG_TRUNCATED => trace.truncated = true,
            TAG_END => {
                trace.end = Some(end(r)?);
                return if r.at == r.bytes.len() {
                    Ok(())
                } else {
                    r.bad("bytes after the end record")
                };
            }
            tag => {
                r.at -= 1;
                return r.bad(format!("unknown record tag 0x{tag:02x}"));
            }
        }
    }
}

/// Parses a binary trace; see the module's comment for cut and spoiled files.
pub fn parse(bytes: &[u8]) -> Result<Trace, String> {
    let mut events = Vec::new();
    let mut trace = stream(bytes, &mut |e| events.push(e))?;
    trace.events = events;
    Ok(trace)
}

/// Parses a binary trace handing each event to `sink` in order instead of keeping it:
/// the returned trace has no events.
pub fn stream(bytes: &[u8], sink: &mut dyn FnMut(Event)) -> Result<Trace, String> {
    let mut trace = Trace::default();
    let mut r = Reader { bytes, at: 0 };
    match records(&mut r, &mut trace, sink) {
        Ok(()) => Ok(trace),
        Err(Stop::Cut) => {
            trace.truncated = true;
            trace.end = None;
            Ok(trace)
        }
        Err(Stop::Bad(e)) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes in the runtime's layout, for the cases a real run rarely produces.
    struct Bytes(Vec<u8>);

    impl Bytes {
        fn u8(mut self, v: u8) -> Self {
            self.0.push(v);
            self
        }
        fn u16(mut self, v: u16) -> Self {
            self.0.extend(v.to_le_bytes());
            self
        }
        fn u32(mut self, v: u32) -> Self {
            self.0.extend(v.to_le_bytes());
            self
        }
        fn u64(mut self, v: u64) -> Self {
            self.0.extend(v.to_le_bytes());
            self
        }
        fn text(self, t: &[u8]) -> Self {
            let mut b = self.u32(t.len() as u32);
            b.0.extend(t);
            b
        }
        fn field(self, name: &str, kind: u8, size: u8, enums: &[(u64, &str)]) -> Self {
            let mut b = self
                .text(name.as_bytes())
                .u8(kind)
                .u8(size)
                .u32(enums.len() as u32);
            for (v, n) in enums {
                b = b.u64(*v).text(n.as_bytes());
            }
            b
        }
        /// A pthread event of thread T<thread> with the values of `preamble`'s globals
        /// (2, 2 and 4 bytes).
        /// The end record of a run that exited with status 0, no thread pending.
        fn plain_exit(self) -> Self {
            self.u8(TAG_END)
                .text(b"exit")
                .u8(0)
                .u32(0)
                .u8(0)
                .text(b"")
                .u64(u64::MAX)
                .u8(0)
                .u32(0)
        }
        fn pthread_event(self, thread: u32, values: &[u64; 3]) -> Self {
            self.u8(TAG_PTHREAD)
                .u32(7)
                .u32(thread)
                .u8(1)
                .u16(values[0] as u16)
                .u16(values[1] as u16)
                .u32(values[2] as u32)
        }
    }

    /// Header with `version`, ops ["original","remove"], globals of kinds raw (2 bytes),
    /// signed (2 bytes), unsigned enum, and strings ["m.t1", "0\xe9"].
    fn preamble(version: u32) -> Bytes {
        Bytes(MAGIC.to_vec())
            .u32(version)
            .text(b"0:remove")
            .u32(2)
            .text(b"original")
            .text(b"remove")
            .u32(3)
            .field("raw", kind::RAW, 2, &[])
            .field("small", 0, 2, &[])
            .field("state", kind::UENUM, 4, &[(1, "ON")])
            .u32(0)
            .u32(2)
            .text(b"m.t1")
            .text(b"0\xe9")
    }

    #[test]
    fn decodes_values_markers_and_end_like_the_json_form() {
        let bytes = preamble(VERSION_FIXED)
            .pthread_event(2, &[0xbeef, 0xfffe, 1])
            .u8(TAG_SEQ)
            .u64(5)
            .pthread_event(0, &[0x0102, 5, 9])
            .u8(TAG_TRUNCATED)
            .u8(TAG_END)
            .text(b"signal")
            .u8(1)
            .u32(15)
            .u8(0)
            .text(b"")
            .u64(u64::MAX)
            .u8(0)
            .u32(2)
            .text(b"T1")
            .u64(4)
            .text(b"T2")
            .u64(u64::MAX)
            .0;
        let trace = parse(&bytes).unwrap();
        assert_eq!(trace.active, "0:remove");
        assert!(trace.truncated);
        let e = &trace.events[0];
        assert_eq!(
            (
                e.thread.as_str(),
                e.action.as_str(),
                e.site,
                e.time.as_deref()
            ),
            ("T2", "remove", 7, None)
        );
        assert_eq!(e.state["raw"], Value::from("0xefbe"));
        assert_eq!(e.state["small"], Value::from(-2));
        assert_eq!(e.state["state"], Value::from("ON"));
        assert_eq!(trace.events[1].state["state"], Value::from(9u64));
        assert_eq!((trace.events[0].seq, trace.events[1].seq), (0, 5));
        let end = trace.end.clone().unwrap();
        assert_eq!(
            (
                end.kind.as_str(),
                end.signal,
                end.thread,
                end.site,
                end.deadlock
            ),
            ("signal", Some(15), None, None, false)
        );
        assert_eq!(
            end.pending,
            vec![
                Pending {
                    thread: "T1".into(),
                    site: Some(4)
                },
                Pending {
                    thread: "T2".into(),
                    site: None
                }
            ]
        );
        // The JSON Lines rendering reads back as the same trace.
        let text = String::from_utf8(super::super::to_jsonl(&trace)).unwrap();
        assert_eq!(super::super::parse(&text).unwrap(), trace);
        assert!(text.ends_with("{\"truncated\":true}\n{\"end\":\"signal\",\"deadlock\":false,\"pending\":[{\"thread\":\"T1\",\"site\":4},{\"thread\":\"T2\"}],\"signal\":15}\n"), "{text}");
    }

    /// A thread that reads only some globals has only those in its snapshot; the values
    /// of the others are not in its record.
    #[test]
    fn a_masked_pthread_event_holds_only_the_globals_its_thread_reads() {
        let bytes = preamble(VERSION_FIXED)
            .u8(TAG_PTHREAD_READS)
            .u32(7)
            .u32(1)
            .u8(0)
            .u64(0b100)
            .u32(1)
            .pthread_event(0, &[1, 2, 1])
            .plain_exit()
            .0;
        let trace = parse(&bytes).unwrap();
        let keys = |e: &Event| e.state.keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&trace.events[0]), ["state"]);
        assert_eq!(trace.events[0].state["state"], Value::from("ON"));
        assert_eq!(keys(&trace.events[1]), ["raw", "small", "state"]);
    }

    #[test]
    fn decodes_a_real_systemc_trace_with_module_members() {
        let trace = parse(include_bytes!(
            "../../../tests/fixtures/traces/sc_members.bin"
        ))
        .unwrap();
        let e = &trace.events[4];
        assert_eq!(
            (e.thread.as_str(), e.time.as_deref(), e.delta),
            ("top.p.b", Some("0 s"), Some(1))
        );
        assert_eq!(
            super::super::state_text(&e.state),
            "{mode=MODE_ON top.p.count=2 top.p.phase=DONE top.p.seen=true}"
        );
        assert_eq!(trace.end.unwrap().kind, super::super::EndKind::Exit);
    }

    /// The compact form: varint numbers, and a snapshot holding only the values that
    /// changed since the last event; the reader fills in the others.
    #[test]
    fn a_compact_event_repeats_the_values_it_leaves_out() {
        let bytes = preamble(VERSION)
            .u8(TAG_PTHREAD)
            .u8(0xc8) // site 200: two varint bytes
            .u8(0x01)
            .u8(2)
            .u8(1)
            .u8(0b111)
            .u16(0xbeef)
            .u16(0xfffe)
            .u32(1)
            .u8(TAG_PTHREAD)
            .u8(7)
            .u8(0)
            .u8(0)
            .u8(0b010) // only "small" changed
            .u16(5)
            .plain_exit()
            .0;
        let trace = parse(&bytes).unwrap();
        let (a, b) = (&trace.events[0], &trace.events[1]);
        assert_eq!(
            (a.site, a.thread.as_str(), a.action.as_str()),
            (200, "T2", "remove")
        );
        assert_eq!(
            (b.site, b.thread.as_str(), b.action.as_str()),
            (7, "T0", "original")
        );
        assert_eq!(b.state["raw"], Value::from("0xefbe"));
        assert_eq!(b.state["small"], Value::from(5));
        assert_eq!(b.state["state"], Value::from("ON"));
        assert_eq!(a.state["small"], Value::from(-2));
    }

    #[test]
    fn strings_that_are_not_utf8_read_as_latin1() {
        assert_eq!(latin1_fallback(b"0\xe9 \xc3\xa9"), "0\u{e9} \u{e9}");
    }

    #[test]
    fn spoiled_files_are_errors_naming_the_byte() {
        let e = parse(&preamble(VERSION + 1).0).unwrap_err();
        assert!(e.contains(&format!("version {}", VERSION + 1)), "{e}");
        let e = parse(&preamble(VERSION_FIXED).u8(b'?').0).unwrap_err();
        assert!(e.contains("unknown record tag 0x3f"), "{e}");
        assert!(
            e.starts_with(&format!("byte {}", preamble(VERSION_FIXED).0.len())),
            "{e}"
        );
        let whole = preamble(VERSION_FIXED).pthread_event(0, &[1, 2, 3]).0;
        let cut = parse(&whole[..whole.len() - 1]).unwrap();
        assert!(cut.truncated && cut.events.is_empty() && cut.end.is_none());
    }
}
