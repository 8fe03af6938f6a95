//! The events from version 3 on: each thread of the run encoded its own events as they
//! happened, into chunks of its own, and the file holds the chunks as they were in
//! memory (in the order they were claimed, not the events' order). Every chunk decodes
//! on its own: its seq count and its table of values last written start at 0, and its
//! SystemC context (version 4) and its sites' last events (version 5) empty. The events
//! come out in seq order, merged across the chunks.

use super::{event, Context, Event, Preamble, Read, Reader, Stop, Trace};
use super::{TAG_CHUNK, TAG_END, TAG_TRUNCATED};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// The records after the preamble: chunks, the cap marker, the end record. A file cut
/// inside a chunk keeps that chunk's whole events.
pub(super) fn records(
    r: &mut Reader,
    trace: &mut Trace,
    p: &Preamble,
    sink: &mut dyn FnMut(Event),
) -> Read<()> {
    let mut chunks = Vec::new();
    let outcome = chunk_list(r, trace, &mut chunks);
    let cut = merge(r.bytes, &chunks, p, sink)?;
    match outcome {
        Ok(()) if cut => Err(Stop::Cut),
        other => other,
    }
}

/// Reads the records that are not events, noting where each chunk's bytes are.
fn chunk_list(r: &mut Reader, trace: &mut Trace, chunks: &mut Vec<(usize, usize)>) -> Read<()> {
    loop {
        match r.u8()? {
            TAG_CHUNK => {
                let len = r.u32()? as usize;
                let start = r.at;
                let end = start.saturating_add(len).min(r.bytes.len());
                chunks.push((start, end));
                r.take(len)?;
            }
            TAG_TRUNCATED => trace.truncated = true,
            TAG_END => return super::end_of_file(r, trace),
            tag => {
                r.at -= 1;
                return r.bad(format!("unknown record tag 0x{tag:02x}"));
            }
        }
    }
}

/// One chunk's events, read one at a time.
struct Chunk<'a> {
    r: Reader<'a>,
    at: Context,
    seq: u64,
    /// The bytes ran out inside a record (the file was cut there).
    cut: bool,
}

impl Chunk<'_> {
    fn next(&mut self, p: &Preamble) -> Read<Option<Event>> {
        while self.r.at < self.r.bytes.len() {
            let read = self
                .r
                .u8()
                .and_then(|tag| event(tag, &mut self.r, p, &mut self.at, &mut self.seq));
            match read {
                Ok(Some(e)) => return Ok(Some(e)),
                Ok(None) => {}
                Err(Stop::Cut) => {
                    self.cut = true;
                    return Ok(None);
                }
                Err(bad) => return Err(bad),
            }
        }
        Ok(None)
    }
}

/// Hands `sink` the events of every chunk in seq order; true when a chunk was cut.
fn merge(
    bytes: &[u8],
    ranges: &[(usize, usize)],
    p: &Preamble,
    sink: &mut dyn FnMut(Event),
) -> Read<bool> {
    let mut chunks: Vec<Chunk> = ranges
        .iter()
        .map(|&(start, end)| Chunk {
            r: Reader {
                bytes: &bytes[..end],
                at: start,
            },
            at: Context::new(p),
            seq: 0,
            cut: false,
        })
        .collect();
    let mut next: Vec<Option<Event>> = Vec::with_capacity(chunks.len());
    let mut heap = BinaryHeap::new();
    for (i, chunk) in chunks.iter_mut().enumerate() {
        let e = chunk.next(p)?;
        if let Some(e) = &e {
            heap.push(Reverse((e.seq, i)));
        }
        next.push(e);
    }
    while let Some(Reverse((_, i))) = heap.pop() {
        let e = next[i].take().expect("a queued chunk has its next event");
        sink(e);
        next[i] = chunks[i].next(p)?;
        if let Some(e) = &next[i] {
            heap.push(Reverse((e.seq, i)));
        }
    }
    Ok(chunks.iter().any(|c| c.cut))
}

/// A join's event: site, thread, action, then the mask of the globals its thread loaded
/// after it and every global's value as a u64; the loaded ones are its snapshot.
pub(super) fn join_event(r: &mut Reader, p: &Preamble, seq: u64) -> Read<Event> {
    let site = r.var32()?;
    let thread = r.var32()?;
    let action = super::action(p, r.u8()?);
    let loaded = r.u64()?;
    let mut state = BTreeMap::new();
    for (i, field) in p.globals.iter().enumerate() {
        let raw = r.u64()?;
        if i < 64 && loaded >> i & 1 != 0 {
            let bits = if field.size >= 8 {
                raw
            } else {
                raw & ((1u64 << (8 * u32::from(field.size))) - 1)
            };
            state.insert(field.name.clone(), field.value(bits));
        }
    }
    Ok(super::thread_event(seq, site, action, thread, state))
}
