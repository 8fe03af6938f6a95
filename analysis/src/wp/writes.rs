//! What code running concurrently may store to: per thread or process entry (the
//! functions reachable from it) and for the roots once threads run, the globals, fields
//! and handed-over stack slots a store may land in, traced through address arithmetic and
//! pointer arguments; and the memory a load reads, as those write sets name it.

use super::entries::Creation;
use crate::effects::Effects;
use crate::ir::{Block, Func, Opcode, Type, Value};
use std::collections::{HashMap, HashSet};

/// Memory a load reads, as the write sets name it.
pub(super) enum Target<'m> {
    Global(Value<'m>),
    Field(FieldKey<'m>),
    /// A stack slot (read in place, or through a pointer a thread was given; the
    /// field the load's address names, if any).
    Slot(Value<'m>, Option<FieldKey<'m>>),
    /// None of these: any store may write it.
    Unknown,
}

/// What one thread or process (or a root once threads run) may store to.
#[derive(Default)]
pub(super) struct Written<'m> {
    pub(super) globals: HashSet<Value<'m>>,
    /// Fields written through a pointer (`this->count`), by [`field_key`]. A module
    /// member set in the constructor and only read by the processes is in none.
    pub(super) fields: HashSet<FieldKey<'m>>,
    /// Stack slots handed to a thread that are stored to in place.
    pub(super) slots: HashSet<Value<'m>>,
    /// The plain stores into those globals and fields, in module order.
    pub(super) stores: Vec<Value<'m>>,
    /// Library code stored through a pointer traced nowhere ([`record_store`]): what a
    /// thread was given a pointer to may have been written.
    pub(super) untraced: bool,
}

impl<'m> Written<'m> {
    pub(super) fn contains(&self, target: &Target<'m>) -> bool {
        match target {
            Target::Global(g) => self.globals.contains(g),
            Target::Field(key) => self.fields.contains(key),
            Target::Slot(slot, key) => {
                self.untraced
                    || self.slots.contains(slot)
                    || key.as_ref().is_some_and(|k| self.fields.contains(k))
            }
            Target::Unknown => true,
        }
    }
}

/// A field as an address names it: the GEP's source element type and its constant
/// indices. Two accesses to one field in the same form get the same key; the same
/// byte reached through differently shaped GEPs does not (a candidate built on such a
/// read is then refuted by execution).
pub(super) type FieldKey<'m> = (Type<'m>, Vec<u64>);

/// A field of a SystemC or TLM library class (`sc_signal`'s current value, a fifo's
/// buffer): the kernel changes it in its update phase, from code no process entry
/// reaches, so it counts as written concurrently.
pub(super) fn kernel_updated(ty: Type<'_>) -> bool {
    ty.struct_name().is_some_and(|n| {
        [
            "class.sc_core::",
            "struct.sc_core::",
            "class.tlm::",
            "struct.tlm::",
        ]
        .iter()
        .any(|p| n.starts_with(p))
    })
}

/// The field `p` addresses, if it is a GEP with constant indices.
pub(super) fn field_key(p: Value<'_>) -> Option<FieldKey<'_>> {
    if p.opcode()? != Opcode::LLVMGetElementPtr {
        return None;
    }
    let indices = (1..p.operand_count())
        .map(|k| p.operand(k).const_int())
        .collect::<Option<Vec<u64>>>()?;
    Some((p.gep_source_type(), indices))
}

/// The global a pointer is derived from by address arithmetic and casts, if any.
pub(super) fn underlying_global<'m>(mut p: Value<'m>) -> Option<Value<'m>> {
    for _ in 0..16 {
        if p.is_global_variable() {
            return Some(p);
        }
        match p.opcode()? {
            Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => {
                p = p.operand(0)
            }
            _ => return None,
        }
    }
    None
}

/// Adds the globals and fields a `store` may write to `written`. A store through a
/// pointer traced to none of them (nor to a stack slot) makes the analysis give up
/// (`None`), unless it is library code (a system header), which is taken to write
/// the library's own objects (a container's buffer, an event list it allocated): a
/// read of the design's globals and fields is not affected by it, a read through any
/// other address always is ([`Target::Unknown`]).
fn record_store<'m>(i: Value<'m>, scan: &Scan<'_, 'm>, written: &mut Written<'m>) -> Option<()> {
    let Some(address) = written_address(i) else {
        return Some(());
    };
    let mut dests = Vec::new();
    scan.destinations(address, 0, &mut dests);
    for d in dests {
        match d {
            Dest::Global(g) => {
                written.globals.insert(g);
                written.stores.push(i);
            }
            Dest::Field(key) => {
                written.fields.insert(key);
                written.stores.push(i);
            }
            Dest::Stack => {}
            Dest::Slot(slot) => {
                written.slots.insert(slot);
            }
            Dest::Untraced if i.in_system_header() => written.untraced = true,
            Dest::Untraced => return None,
        }
    }
    Some(())
}

/// Where a store may land.
enum Dest<'m> {
    Global(Value<'m>),
    Field(FieldKey<'m>),
    /// A stack slot private to its thread.
    Stack,
    /// A stack slot handed to another thread, stored to in place.
    Slot(Value<'m>),
    Untraced,
}

/// The address an instruction writes without a call: a `store`'s, or an atomic
/// read-modify-write's or compare-and-swap's (C11 and C++ atomics).
pub(super) fn written_address(i: Value<'_>) -> Option<Value<'_>> {
    match i.opcode()? {
        Opcode::LLVMStore => Some(i.operand(1)),
        Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg => Some(i.operand(0)),
        _ => None,
    }
}

/// What the scan of stores needs to know about the module.
struct Scan<'a, 'm> {
    callers: &'a HashMap<Func<'m>, Vec<Value<'m>>>,
    /// Functions that may be called through a pointer or started as a thread: their
    /// callers are not all known.
    called_otherwise: HashSet<Func<'m>>,
    /// Stack slots whose address is handed to a new thread.
    shared_slots: &'a HashSet<Value<'m>>,
}

/// Most levels of callers [`Scan::destinations`] follows a pointer argument through.
const MAX_ARGUMENT_DEPTH: u32 = 4;

impl<'m> Scan<'_, 'm> {
    /// Where a store through `p` may land: a global, a stack slot, a field (a constant
    /// index path), or, for a pointer parameter, what every caller passes (a library
    /// method's `this` on a temporary, e.g. an event list built for a `wait`, or on a
    /// member, e.g. `std::atomic<int>::store`).
    fn destinations(&self, p: Value<'m>, depth: u32, out: &mut Vec<Dest<'m>>) {
        if let Some(g) = underlying_global(p) {
            return out.push(Dest::Global(g));
        }
        let base = strip_address(p);
        let slot = base.opcode() == Some(Opcode::LLVMAlloca);
        if slot && !self.shared_slots.contains(&base) {
            return out.push(Dest::Stack);
        }
        if let Some(key) = field_key(p) {
            return out.push(Dest::Field(key));
        }
        if slot {
            return out.push(Dest::Slot(base));
        }
        let calls = match base.argument_of() {
            Some((func, _))
                if depth < MAX_ARGUMENT_DEPTH && !self.called_otherwise.contains(&func) =>
            {
                self.callers
                    .get(&func)
                    .map(Vec::as_slice)
                    .unwrap_or_default()
            }
            _ => &[],
        };
        if calls.is_empty() || base != p {
            return out.push(Dest::Untraced);
        }
        let k = base
            .argument_of()
            .map(|(_, k)| k as usize)
            .unwrap_or_default();
        for c in calls {
            match c.call_args().get(k) {
                Some(a) => self.destinations(*a, depth + 1, out),
                None => out.push(Dest::Untraced),
            }
        }
    }
}

/// The object a pointer is derived from by address arithmetic and casts.
fn strip_address(mut p: Value<'_>) -> Value<'_> {
    for _ in 0..16 {
        match p.opcode() {
            Some(Opcode::LLVMGetElementPtr)
            | Some(Opcode::LLVMBitCast)
            | Some(Opcode::LLVMAddrSpaceCast) => p = p.operand(0),
            _ => break,
        }
    }
    p
}

/// The stack slots whose address (or an address inside) is a thread's argument.
pub(super) fn shared_slots<'m>(
    entries: &HashMap<Func<'m>, Vec<Creation<'m>>>,
) -> HashSet<Value<'m>> {
    let mut out = HashSet::new();
    for creation in entries.values().flatten() {
        if let Creation::Pthread { arg, .. } = creation {
            let base = strip_address(*arg);
            if base.opcode() == Some(Opcode::LLVMAlloca) {
                out.insert(base);
            }
        }
    }
    out
}

/// What each entry may store to, and what the roots store to once threads run.
pub(super) fn concurrent_writes<'m>(
    entries: &HashMap<Func<'m>, Vec<Creation<'m>>>,
    roots: &[Func<'m>],
    effects: &Effects<'m>,
    indirect_callers: &HashMap<Func<'m>, Vec<Value<'m>>>,
    callers: &HashMap<Func<'m>, Vec<Value<'m>>>,
    shared_slots: &HashSet<Value<'m>>,
) -> (HashMap<Func<'m>, Option<Written<'m>>>, Option<Written<'m>>) {
    let mut indirect_targets: HashMap<Value<'m>, Vec<Func<'m>>> = HashMap::new();
    for (target, calls) in indirect_callers {
        for call in calls {
            indirect_targets.entry(*call).or_default().push(*target);
        }
    }
    let called_otherwise = indirect_callers
        .keys()
        .chain(entries.keys())
        .copied()
        .collect();
    let scan = Scan {
        callers,
        called_otherwise,
        shared_slots,
    };
    let entry_writes = entries
        .keys()
        .map(|e| (*e, entry_writes(*e, &scan, &indirect_targets)))
        .collect();
    let root_writes = root_writes(roots, effects, &scan);
    (entry_writes, root_writes)
}

/// What the functions reachable from `entry` (directly or through the indirect calls
/// that may reach a function) store to.
fn entry_writes<'m>(
    entry: Func<'m>,
    scan: &Scan<'_, 'm>,
    indirect_targets: &HashMap<Value<'m>, Vec<Func<'m>>>,
) -> Option<Written<'m>> {
    let mut written = Written::default();
    let mut todo = vec![entry];
    let mut seen: HashSet<Func<'m>> = HashSet::new();
    while let Some(f) = todo.pop() {
        if !seen.insert(f) || !f.has_body() {
            continue;
        }
        for b in f.blocks() {
            for i in b.instructions() {
                record_store(i, scan, &mut written)?;
                if let Some(c) = i.called_function() {
                    todo.push(c);
                }
                todo.extend(indirect_targets.get(&i).into_iter().flatten());
            }
        }
    }
    Some(written)
}

/// What the roots store to after their first thread creation (same block after it,
/// or any block reachable from its block).
fn root_writes<'m>(
    roots: &[Func<'m>],
    effects: &Effects<'m>,
    scan: &Scan<'_, 'm>,
) -> Option<Written<'m>> {
    let mut written = Written::default();
    for r in roots {
        let mut after: Vec<Block<'m>> = Vec::new();
        for b in r.blocks() {
            let insts = b.instructions();
            if let Some(pos) = insts.iter().position(|i| effects.starts_threads(*i)) {
                for i in &insts[pos..] {
                    record_store(*i, scan, &mut written)?;
                }
                after.extend(b.successors());
            }
        }
        let mut seen = HashSet::new();
        while let Some(b) = after.pop() {
            if !seen.insert(b) {
                continue;
            }
            for i in b.instructions() {
                record_store(i, scan, &mut written)?;
            }
            after.extend(b.successors());
        }
    }
    Some(written)
}
