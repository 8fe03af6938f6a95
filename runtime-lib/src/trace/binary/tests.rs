//! The binary reader on hand-made bytes, for the cases a real run rarely produces, and on
//! a real trace.

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
    /// A version 3 chunk holding `records`.
    fn chunk(self, records: &[u8]) -> Self {
        let mut b = self.u8(TAG_CHUNK).u32(records.len() as u32);
        b.0.extend(records);
        b
    }
    /// A SystemC event in full (compact numbers) at site 3 of process "m.t1" at time
    /// stamp "0é", module 0, delta count 5, no class; its values follow.
    fn systemc_event(self, action: u8, flags: u8) -> Self {
        self.u8(TAG_SYSTEMC)
            .u8(3) // site
            .u8(0) // process "m.t1"
            .u8(1) // time "0é"
            .u8(0) // module
            .u8(5) // delta
            .u8(0) // cls
            .u8(action)
            .u8(flags)
    }
    /// A version 1 pthread event of thread T<thread> at site 7 with the values of
    /// `preamble`'s globals (2, 2 and 4 bytes).
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
        "../../../../tests/fixtures/traces/sc_members.bin"
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
    let bytes = preamble(VERSION_COMPACT)
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

/// Version 3: each thread's events in chunks of their own, every chunk decoding from a
/// fresh table of last values; the events come out in seq order across the chunks.
#[test]
fn chunks_merge_in_seq_order_each_with_its_own_last_values() {
    // T0: seq 0 (all three values), then seq 3 (only "small" changed).
    let t0 = Bytes(Vec::new())
        .u8(TAG_PTHREAD)
        .u8(7)
        .u8(0)
        .u8(0)
        .u8(0b111)
        .u16(0xbeef)
        .u16(0xfffe)
        .u32(1)
        .u8(TAG_SEQ)
        .u64(3)
        .u8(TAG_PTHREAD)
        .u8(8)
        .u8(0)
        .u8(0)
        .u8(0b010)
        .u16(5)
        .0;
    // T1: seq 1 and 2; its first event writes only "state": the others read as 0 in
    // this chunk, whatever T0's chunk wrote.
    let t1 = Bytes(Vec::new())
        .u8(TAG_SEQ)
        .u64(1)
        .u8(TAG_PTHREAD)
        .u8(9)
        .u8(1)
        .u8(1)
        .u8(0b100)
        .u32(1)
        .u8(TAG_PTHREAD)
        .u8(9)
        .u8(1)
        .u8(0)
        .u8(0)
        .0;
    let bytes = preamble(VERSION_SAME).chunk(&t0).chunk(&t1).plain_exit().0;
    let trace = parse(&bytes).unwrap();
    let order: Vec<(u64, &str, u32)> = trace
        .events
        .iter()
        .map(|e| (e.seq, e.thread.as_str(), e.site))
        .collect();
    assert_eq!(
        order,
        [(0, "T0", 7), (1, "T1", 9), (2, "T1", 9), (3, "T0", 8)]
    );
    let e = &trace.events;
    assert_eq!(e[1].state["small"], Value::from(0));
    assert_eq!(e[1].state["state"], Value::from("ON"));
    assert_eq!(e[2].state["state"], Value::from("ON"));
    assert_eq!(e[3].state["raw"], Value::from("0xefbe"));
    assert_eq!(e[3].state["small"], Value::from(5));
    assert_eq!(trace.end.unwrap().kind, super::super::EndKind::Exit);
}

/// A SystemC event in its chunk's context takes the time stamp, the delta count it
/// adds to, and the process's module and class from the chunk's events before it; a
/// chunk that has none to take them from is an error, and so is the tag before version 4.
#[test]
fn a_systemc_event_in_context_takes_the_rest_from_its_chunk() {
    let full = Bytes(Vec::new())
        .systemc_event(0, 0) // "original"
        .u8(0b001)
        .u16(0x1234);
    let chunk = full
        .u8(TAG_SYSTEMC_SAME)
        .u8(4) // site
        .u8(0) // process
        .u8(2) // delta 5 + 2
        .u8(0x81) // "remove", lost
        .u8(0) // no value changed
        .0;
    let trace = parse(&preamble(VERSION_SAME).chunk(&chunk).plain_exit().0).unwrap();
    let e = &trace.events[1];
    assert_eq!(
        (e.seq, e.site, e.thread.as_str(), e.action.as_str()),
        (1, 4, "m.t1", "remove")
    );
    assert_eq!(
        (e.time.as_deref(), e.delta, e.lost),
        (Some("0é"), Some(7), true)
    );
    assert_eq!(e.state["raw"], Value::from("0x3412"));

    let alone = [TAG_SYSTEMC_SAME, 4, 0, 2, 0x81, 0];
    let err = parse(&preamble(VERSION_SAME).chunk(&alone).plain_exit().0).unwrap_err();
    assert!(err.contains("before any in full"), "{err}");
    let stranger = [
        &chunk[..chunk.len() - 6],
        &[TAG_SYSTEMC_SAME, 4, 1, 2, 0x81, 0],
    ]
    .concat();
    let err = parse(&preamble(VERSION_SAME).chunk(&stranger).plain_exit().0).unwrap_err();
    assert!(err.contains("process 1, which has none in full"), "{err}");
    let err = parse(&preamble(VERSION_CHUNKED).chunk(&chunk).plain_exit().0).unwrap_err();
    assert!(err.contains("unknown record tag 0x43"), "{err}");
}

/// A join's event holds the globals its thread loaded after it, as the loads filled
/// them in (every value a u64 in place, the mask first).
#[test]
fn a_join_event_holds_the_globals_loaded_after_it() {
    let join = Bytes(Vec::new())
        .u8(TAG_JOIN)
        .u8(4)
        .u8(0)
        .u8(0)
        .u64(0b010)
        .u64(0)
        .u64(0xfffd)
        .u64(0)
        .0;
    let bytes = preamble(VERSION).chunk(&join).plain_exit().0;
    let trace = parse(&bytes).unwrap();
    let e = &trace.events[0];
    assert_eq!((e.site, e.thread.as_str()), (4, "T0"));
    assert_eq!(e.state.keys().collect::<Vec<_>>(), ["small"]);
    assert_eq!(e.state["small"], Value::from(-3));
}

/// A file cut inside a chunk keeps that chunk's whole events and is marked truncated.
#[test]
fn a_cut_chunk_keeps_its_whole_events() {
    let records = Bytes(Vec::new())
        .u8(TAG_PTHREAD)
        .u8(7)
        .u8(0)
        .u8(0)
        .u8(0)
        .u8(TAG_PTHREAD)
        .u8(8)
        .u8(0)
        .u8(0)
        .u8(0)
        .0;
    let whole = preamble(VERSION).chunk(&records).plain_exit().0;
    let at = whole.len() - Bytes(Vec::new()).plain_exit().0.len() - 2;
    let trace = parse(&whole[..at]).unwrap();
    assert!(trace.truncated && trace.end.is_none());
    assert_eq!(trace.events.len(), 1);
    assert_eq!(trace.events[0].site, 7);
    let e = parse(&preamble(VERSION).chunk(b"Z").plain_exit().0).unwrap_err();
    assert!(e.contains("unknown record tag 0x5a"), "{e}");
}

/// From version 5 a value is written as its change (a zigzag varint of the difference in
/// the field's width), and an event that repeats its site's last event in its chunk is an
/// `'A'` with only its site (and, SystemC, its delta increase) and values. An `'A'` whose
/// site has no event before it in the chunk is an error, and so is the tag before
/// version 5.
#[test]
fn an_event_again_repeats_its_sites_last_and_values_are_changes() {
    let pthread = Bytes(Vec::new())
        .u8(TAG_PTHREAD)
        .u8(7) // site
        .u8(2) // T2
        .u8(1) // "remove"
        .u8(0b110)
        .u8(5) // small: 0 - 3 = -3
        .u8(2) // state: 0 + 1 = 1
        .u8(TAG_AGAIN)
        .u8(7)
        .u8(0b010)
        .u8(8) // small: -3 + 4 = 1
        .u8(TAG_AGAIN)
        .u8(7)
        .u8(0b010)
        .u8(3) // small: 1 - 2 = -1, in 2 bytes
        .0;
    let trace = parse(&preamble(VERSION).chunk(&pthread).plain_exit().0).unwrap();
    let e = &trace.events;
    assert_eq!(e.len(), 3);
    for (i, small) in [-3, 1, -1].into_iter().enumerate() {
        assert_eq!(
            (
                e[i].seq,
                e[i].site,
                e[i].thread.as_str(),
                e[i].action.as_str()
            ),
            (i as u64, 7, "T2", "remove")
        );
        assert_eq!(e[i].state["small"], Value::from(small));
        assert_eq!(e[i].state["state"], Value::from("ON"));
    }

    let systemc = Bytes(Vec::new())
        .systemc_event(1, LOST) // "remove"
        .u8(0)
        .u8(TAG_AGAIN)
        .u8(3)
        .u8(2) // delta 5 + 2
        .u8(0b001)
        .u8(0x7f) // raw: 0 - 64 in 2 bytes
        .0;
    let trace = parse(&preamble(VERSION).chunk(&systemc).plain_exit().0).unwrap();
    let e = &trace.events[1];
    assert_eq!(
        (e.site, e.thread.as_str(), e.action.as_str(), e.lost),
        (3, "m.t1", "remove", true)
    );
    assert_eq!((e.time.as_deref(), e.delta), (Some("0é"), Some(7)));
    assert_eq!(e.state["raw"], Value::from("0xc0ff"));

    let alone = [TAG_AGAIN, 7, 0];
    let err = parse(&preamble(VERSION).chunk(&alone).plain_exit().0).unwrap_err();
    assert!(
        err.contains("repeating site 7, which has none before it"),
        "{err}"
    );
    let err = parse(&preamble(VERSION_SAME).chunk(&pthread).plain_exit().0).unwrap_err();
    assert!(err.contains("unknown record tag 0x41"), "{err}");
}
