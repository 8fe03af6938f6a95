//! The runtime's binary trace (`trace.c` beside this file, format in runtime-lib/README.md):
//! a preamble (magic, version, `active`, the operator slugs, the state schema, the
//! interned strings), then tagged records: chunks of one thread's events each (`chunks`;
//! before version 3, the events themselves: seq implicit, see `TAG_SEQ`), the cap marker,
//! the end record.
//!
//! The runtime writes the file in one go at the end of the run, so a file that stops
//! before its end record was cut by a kill: whatever was read whole is kept and the trace
//! is marked truncated, never an error. Bytes that cannot be a trace (a wrong version, an
//! unknown tag, a number out of range) are an error naming the byte offset.

use super::{End, Event, Pending, Trace};
use crate::tables::kind;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

mod chunks;

// The constants of `syncmut_protocol.h` (`SYNCMUT_TRACE_*`, `SYNCMUT_EVENT_LOST`); the
// crate's `protocol_header` test checks them against it.
pub(crate) const MAGIC: &[u8; 8] = b"\x89syncmut";
pub(crate) const VERSION: u32 = 5;
/// Still read: values in their fields' sizes and no `TAG_AGAIN` (version 5 writes a value
/// as its change, and repeats an event at its site as `TAG_AGAIN`).
const VERSION_SAME: u32 = 4;
/// Still read: chunks, every SystemC event in full (version 4 adds `TAG_SYSTEMC_SAME`).
const VERSION_CHUNKED: u32 = 3;
/// Still read: varints and only the snapshot values that changed, in one stream of
/// events (version 3 puts each thread's in chunks of its own).
const VERSION_COMPACT: u32 = 2;
/// The first version, still read: fixed-width numbers and every snapshot value in every
/// event (the repository's own trace fixtures are in it).
const VERSION_FIXED: u32 = 1;
pub(crate) const TAG_PTHREAD: u8 = b'P';
pub(crate) const TAG_SYSTEMC: u8 = b'S';
/// A SystemC event in its chunk's context (version 4): the time stamp of the chunk's last
/// SystemC event, its delta count plus an increase, and the module and class of the
/// process's last full event in the chunk.
pub(crate) const TAG_SYSTEMC_SAME: u8 = b'C';
/// An event that repeats its chunk's last event at the same site in all but its values
/// (version 5): its thread, action and reads, or its process, action, lost flag, module
/// and class; a SystemC one in its chunk's context, as `TAG_SYSTEMC_SAME` is.
pub(crate) const TAG_AGAIN: u8 = b'A';
/// A pthread event of a thread that can read only some globals: the mask of those, then
/// only their values (the others are absent from its snapshot).
pub(crate) const TAG_PTHREAD_READS: u8 = b'R';
/// A join's event: the globals its thread loaded after it (a u64 mask, then every
/// global's value as a u64); it leaves the values last written as they were.
pub(crate) const TAG_JOIN: u8 = b'J';
/// Sets the next event's seq (before version 3: after a slot a signal interrupted; in a
/// chunk: whenever another thread's events came between).
pub(crate) const TAG_SEQ: u8 = b'Q';
/// A chunk: a u32 byte count, then one thread's records (version 3).
pub(crate) const TAG_CHUNK: u8 = b'K';
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

    /// A recorded value written as its change from `last` (version 5): a zigzag varint of
    /// the difference, taken in the field's width.
    fn changed(&self, r: &mut Reader, last: u64) -> Read<u64> {
        let zigzag = r.varint()?;
        let change = (zigzag >> 1) ^ (zigzag & 1).wrapping_neg();
        let value = last.wrapping_add(change);
        Ok(if self.size >= 8 {
            value
        } else {
            value & ((1u64 << (8 * u32::from(self.size))) - 1)
        })
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
    /// Version 3 on: events come in chunks.
    chunked: bool,
    /// Version 4 on: SystemC events may be written in their chunk's context.
    same_context: bool,
    /// Version 5 on: values are written as changes, events may repeat their site's last.
    again: bool,
    /// Snapshot positions: the globals, then the members of the widest class.
    positions: usize,
}

/// What decoding carries from one event to the next of a stream (a chunk, or the whole
/// file before version 3).
struct Context {
    /// The value last written at each snapshot position.
    last: Vec<u64>,
    /// The time stamp (its string's id) and delta count of the last SystemC event.
    systemc: Option<(u32, u64)>,
    /// Each process's module and class, as its last SystemC event in full named them.
    processes: HashMap<u32, (u32, usize)>,
    /// Each site's last event but a join's, as a `TAG_AGAIN` repeats it.
    sites: HashMap<u32, Repeated>,
}

/// What a `TAG_AGAIN` event takes from its site's last event.
#[derive(Clone, Copy)]
enum Repeated {
    Thread {
        thread: u32,
        action: u8,
        reads: u64,
    },
    Process {
        process: u32,
        action: u8,
        lost: bool,
        module: u32,
        cls: usize,
    },
}

impl Context {
    fn new(p: &Preamble) -> Context {
        Context {
            last: vec![0; p.positions],
            systemc: None,
            processes: HashMap::new(),
            sites: HashMap::new(),
        }
    }
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
    if ![
        VERSION,
        VERSION_SAME,
        VERSION_CHUNKED,
        VERSION_COMPACT,
        VERSION_FIXED,
    ]
    .contains(&version)
    {
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
    let positions = globals.len() + widest;
    Ok(Preamble {
        ops,
        globals,
        classes,
        strings,
        compact: version != VERSION_FIXED,
        chunked: version >= VERSION_CHUNKED,
        same_context: version >= VERSION_SAME,
        again: version >= VERSION,
        positions,
    })
}

/// The snapshot: the globals (those whose bit is set in `reads`), then the members of
/// class `cls` of `module`. In a compact trace a mask says which of them follow; the
/// others repeat the value `last` holds at their position (the last read there).
fn state(
    r: &mut Reader,
    p: &Preamble,
    last: &mut [u64],
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
        let raw = if mask[j / 8] >> (j % 8) & 1 == 0 {
            last[pos]
        } else if p.again {
            field.changed(r, last[pos])?
        } else {
            field.raw(r)?
        };
        let name = if pos < nglobals {
            field.name.clone()
        } else {
            format!("{module}.{}", field.name)
        };
        state.insert(name, field.value(raw));
        last[pos] = raw;
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
fn pthread_event(
    r: &mut Reader,
    p: &Preamble,
    at: &mut Context,
    seq: u64,
    masked: bool,
) -> Read<Event> {
    let site = p.number(r)?;
    let thread = p.number(r)?;
    let action = r.u8()?;
    let reads = match (masked, p.compact) {
        (false, _) => u64::MAX,
        (true, true) => r.varint()?,
        (true, false) => r.u64()?,
    };
    let repeated = Repeated::Thread {
        thread,
        action,
        reads,
    };
    at.sites.insert(site, repeated);
    repeat(r, p, at, seq, site, repeated, 0)
}

/// A pthread event (thread `T<thread>`): no time, delta or lost mark.
fn thread_event(
    seq: u64,
    site: u32,
    action: String,
    thread: u32,
    state: BTreeMap<String, Value>,
) -> Event {
    Event {
        seq,
        site,
        action,
        thread: format!("T{thread}"),
        time: None,
        delta: None,
        lost: false,
        state,
    }
}

fn systemc_event(r: &mut Reader, p: &Preamble, at: &mut Context, seq: u64) -> Read<Event> {
    let site = p.number(r)?;
    let process = p.number(r)?;
    let time_id = p.number(r)?;
    let module = p.number(r)?;
    let delta = if p.compact { r.varint()? } else { r.u64()? };
    let cls = if p.compact {
        let cls = r.var32()?;
        u16::try_from(cls).or_else(|_| r.bad(format!("class {cls}")))?
    } else {
        r.u16()?
    } as usize;
    let action = r.u8()?;
    let lost = r.u8()? & LOST != 0;
    at.systemc = Some((time_id, delta));
    at.processes.insert(process, (module, cls));
    let repeated = Repeated::Process {
        process,
        action,
        lost,
        module,
        cls,
    };
    at.sites.insert(site, repeated);
    repeat(r, p, at, seq, site, repeated, 0)
}

/// A SystemC event in its chunk's context (`TAG_SYSTEMC_SAME`): site, process, the delta
/// count's increase, the action with the lost flag in its high bit, values.
fn systemc_same_event(r: &mut Reader, p: &Preamble, at: &mut Context, seq: u64) -> Read<Event> {
    let site = p.number(r)?;
    let process = p.number(r)?;
    if at.systemc.is_none() {
        return r.bad("a SystemC event in context before any in full in its chunk");
    }
    let Some(&(module, cls)) = at.processes.get(&process) else {
        return r.bad(format!(
            "a SystemC event in context of process {process}, which has none in full in its chunk"
        ));
    };
    let increase = r.varint()?;
    let byte = r.u8()?;
    let repeated = Repeated::Process {
        process,
        action: byte & 0x7f,
        lost: byte & 0x80 != 0,
        module,
        cls,
    };
    at.sites.insert(site, repeated);
    repeat(r, p, at, seq, site, repeated, increase)
}

/// An event that repeats its site's last (`TAG_AGAIN`): site, then (SystemC) the delta
/// count's increase, values.
fn again_event(r: &mut Reader, p: &Preamble, at: &mut Context, seq: u64) -> Read<Event> {
    let site = p.number(r)?;
    let Some(&repeated) = at.sites.get(&site) else {
        return r.bad(format!(
            "an event repeating site {site}, which has none before it in its chunk"
        ));
    };
    let increase = match repeated {
        Repeated::Thread { .. } => 0,
        Repeated::Process { .. } => r.varint()?,
    };
    repeat(r, p, at, seq, site, repeated, increase)
}

/// The event at `site` that `repeated` describes, its values read from `r`; a SystemC
/// one in the chunk's context: its time stamp, its delta count plus `increase`.
fn repeat(
    r: &mut Reader,
    p: &Preamble,
    at: &mut Context,
    seq: u64,
    site: u32,
    repeated: Repeated,
    increase: u64,
) -> Read<Event> {
    match repeated {
        Repeated::Thread {
            thread,
            action: op,
            reads,
        } => {
            let state = state(r, p, &mut at.last, reads, 0, 0)?;
            Ok(thread_event(seq, site, action(p, op), thread, state))
        }
        Repeated::Process {
            process,
            action: op,
            lost,
            module,
            cls,
        } => {
            let Some((time_id, delta)) = at.systemc else {
                return r.bad("a SystemC event in context before any in full in its chunk");
            };
            let Some(delta) = delta.checked_add(increase) else {
                return r.bad("a delta count past 64 bits");
            };
            at.systemc = Some((time_id, delta));
            let state = state(r, p, &mut at.last, u64::MAX, cls, module)?;
            Ok(Event {
                seq,
                site,
                action: action(p, op),
                thread: p.string(process),
                time: Some(p.string(time_id)),
                delta: Some(delta),
                lost,
                state,
            })
        }
    }
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

/// The event a record tagged `tag` starts, if it is one; `seq` is its seq and moves on
/// past it (or is set, by a `TAG_SEQ`).
fn event(
    tag: u8,
    r: &mut Reader,
    p: &Preamble,
    at: &mut Context,
    seq: &mut u64,
) -> Read<Option<Event>> {
    let event = match tag {
        TAG_PTHREAD | TAG_PTHREAD_READS => pthread_event(r, p, at, *seq, tag == TAG_PTHREAD_READS)?,
        TAG_AGAIN if p.again => again_event(r, p, at, *seq)?,
        TAG_SYSTEMC => systemc_event(r, p, at, *seq)?,
        TAG_SYSTEMC_SAME if p.same_context => systemc_same_event(r, p, at, *seq)?,
        TAG_JOIN if p.chunked => chunks::join_event(r, p, *seq)?,
        TAG_SEQ => {
            *seq = r.u64()?;
            return Ok(None);
        }
        tag => {
            r.at -= 1;
            return r.bad(format!("unknown record tag 0x{tag:02x}"));
        }
    };
    *seq += 1;
    Ok(Some(event))
}

/// The end record, which must be the file's last bytes.
fn end_of_file(r: &mut Reader, trace: &mut Trace) -> Read<()> {
    trace.end = Some(end(r)?);
    if r.at == r.bytes.len() {
        Ok(())
    } else {
        r.bad("bytes after the end record")
    }
}

fn records(r: &mut Reader, trace: &mut Trace, sink: &mut dyn FnMut(Event)) -> Read<()> {
    let p = preamble(r, trace)?;
    if p.chunked {
        return chunks::records(r, trace, &p, sink);
    }
    let mut at = Context::new(&p);
    let mut seq = 0;
    loop {
        match r.u8()? {
            TAG_TRUNCATED => trace.truncated = true,
            TAG_END => return end_of_file(r, trace),
            tag => {
                if let Some(e) = event(tag, r, &p, &mut at, &mut seq)? {
                    sink(e);
                }
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
mod tests;
