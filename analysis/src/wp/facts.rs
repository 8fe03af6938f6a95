//! Facts about the whole module computed once and shared by every site's analysis:
//! call graph, thread/process entries and their order, predecessor maps, loop back
//! edges, and which globals and nondet calls code running concurrently may touch.

use super::calls::nondet_type;
use crate::effects::Effects;
use crate::ir::{Block, Func, Module, Opcode, Type, Value};
use std::collections::{HashMap, HashSet};

/// Facts about the module shared by every site's analysis.
pub struct ModuleFacts<'m> {
    pub callers: HashMap<Func<'m>, Vec<Value<'m>>>,
    /// Address-taken functions and the indirect calls of their type that may reach them
    /// (function pointers, virtual calls, `sc_port` interface calls): followed only
    /// for a function no direct call chain reaches. A virtual call is listed only
    /// under the functions its vtable slot may hold (`virtual_targets`).
    pub(super) indirect_callers: HashMap<Func<'m>, Vec<Value<'m>>>,
    /// The functions each virtual call may reach, by vtable slot over the classes the
    /// module constructs (`Module::virtual_call_targets`).
    pub(super) virtual_targets: HashMap<Value<'m>, Vec<Func<'m>>>,
    /// Functions that bind a SystemC port to an interface (`ports.rs`).
    pub(super) port_binders: HashSet<Func<'m>>,
    /// Thread/process entries: (entry, creation call or constructor, argument, kind label).
    pub entries: HashMap<Func<'m>, Vec<Creation<'m>>>,
    pub roots: Vec<Func<'m>>,
    pub(super) preds: HashMap<Func<'m>, HashMap<Block<'m>, Vec<Block<'m>>>>,
    pub(super) back: HashMap<Func<'m>, HashSet<(Block<'m>, Block<'m>)>>,
    /// Globals and fields each thread/process entry may store to (the functions
    /// reachable from it). `None`: some store goes through a pointer traced neither to
    /// a global, a field nor a stack slot, so every object may be written.
    pub(super) entry_writes: HashMap<Func<'m>, Option<Written<'m>>>,
    /// What the roots store to after their first thread creation (`sc_start`,
    /// `pthread_create`), while threads and processes run; `None` as above.
    pub(super) root_writes: Option<Written<'m>>,
    /// Entries that run as one thread or process only: created once, from a root
    /// through calls made once (no loop, one caller each). Another entry's writes are
    /// interference; an entry's own writes are too when it may run several times at
    /// once (the same start routine created in a loop).
    pub(super) single_instance: HashSet<Func<'m>>,
    /// Stack slots whose address is handed to a new thread (`pthread_create`'s argument).
    pub(super) shared_slots: HashSet<Value<'m>>,
    /// Functions that call `__VERIFIER_nondet_*`, directly or through callees.
    pub(super) nondet_callers: HashSet<Func<'m>>,
    /// Code running concurrently (threads/processes, or a root after its first thread
    /// start) may call `__VERIFIER_nondet_*`: the call counter is then unknown after a
    /// synchronization point and at a thread's entry.
    pub(super) concurrent_nondet: bool,
    /// SystemC method processes (`SC_METHOD`): each runs again on every trigger, so the
    /// module state at its start is whatever the last activations left.
    pub(super) methods: HashSet<Func<'m>>,
    /// SystemC processes: (registering constructor, position in its registration
    /// order), which is the kernel's order of first activation within a module.
    pub(super) process_order: HashMap<Func<'m>, (Func<'m>, usize)>,
    /// Every rewritten `sc_event::notify*` call.
    pub(super) notifies: Vec<Value<'m>>,
    /// What each tagged call does.
    pub(crate) effects: Effects<'m>,
}

/// How a thread/process entry is started.
#[derive(Debug, Clone)]
pub enum Creation<'m> {
    /// `pthread_create` (or the runtime hook) call, with the start routine's argument.
    Pthread { call: Value<'m>, arg: Value<'m> },
    /// `SC_THREAD`/`SC_METHOD` registered in a module constructor; `this` is its first
    /// parameter; the process starts at `sc_start`.
    Systemc { constructor: Func<'m> },
    /// `sc_spawn(f)`: the spawn object's `semantics()` runs `f` as a new process; the
    /// call is where it is created.
    Spawn { call: Value<'m> },
    /// `std::thread t(f, args…)` (also inside `std::jthread`): libstdc++ starts the
    /// thread in `std::thread::_State_impl<…>::_M_run()`, which calls `f`; the call is
    /// the construction of the `std::thread`.
    StdThread { call: Value<'m> },
}

impl<'m> ModuleFacts<'m> {
    /// Scans the module: call graph, thread entries, predecessor maps and back edges.
    pub fn new(m: &'m Module) -> ModuleFacts<'m> {
        let callers = m.callers();
        let virtual_targets = m.virtual_call_targets();
        let mut indirect_callers = m.indirect_callers();
        for (target, calls) in indirect_callers.iter_mut() {
            calls.retain(|c| virtual_targets.get(c).is_none_or(|t| t.contains(target)));
        }
        indirect_callers.retain(|_, calls| !calls.is_empty());
        let effects = Effects::of(m);
        let mut entries: HashMap<Func<'m>, Vec<Creation<'m>>> = HashMap::new();
        let mut roots = Vec::new();
        let mut process_order: HashMap<Func<'m>, (Func<'m>, usize)> = HashMap::new();
        let mut notifies = Vec::new();
        let mut methods = HashSet::new();
        for f in m.functions() {
            let name = f.name();
            if (name == "main" || name == "sc_main") && f.has_body() {
                roots.push(f);
            }
            if !f.has_body() {
                continue;
            }
            let mut registers_process = false;
            let mut referenced = Vec::new();
            for b in f.blocks() {
                for i in b.instructions() {
                    if let Some((fi, ai)) = effects.thread_creation(i) {
                        let args = i.call_args();
                        if let (Some(start), Some(arg)) =
                            (args.get(fi).and_then(|v| v.as_function()), args.get(ai))
                        {
                            entries
                                .entry(start)
                                .or_default()
                                .push(Creation::Pthread { call: i, arg: *arg });
                        }
                    }
                    if effects.registers_process(i) {
                        registers_process = true;
                        if i.called_function()
                            .is_some_and(|c| c.name().contains("create_method_process"))
                        {
                            let mut entries = Vec::new();
                            for a in i.call_args() {
                                collect_functions(a, &mut entries, 0);
                            }
                            methods.extend(entries);
                        }
                    }
                    if i.opcode() == Some(Opcode::LLVMCall)
                        || i.opcode() == Some(Opcode::LLVMInvoke)
                    {
                        for a in i.call_args() {
                            collect_functions(a, &mut referenced, 0);
                        }
                    } else {
                        for k in 0..i.operand_count() {
                            collect_functions(i.operand(k), &mut referenced, 0);
                        }
                    }
                }
            }
            if registers_process {
                for e in referenced
                    .into_iter()
                    .filter(|e| e.has_body() && e.param_count() == 1)
                {
                    entries
                        .entry(e)
                        .or_default()
                        .push(Creation::Systemc { constructor: f });
                    let next = process_order.values().filter(|(c, _)| *c == f).count();
                    process_order.entry(e).or_insert((f, next));
                }
            }
            for b in f.blocks() {
                for i in b.instructions() {
                    if effects.notified_event(i).is_some() {
                        notifies.push(i);
                    }
                }
            }
        }
        for (entry, call) in spawned_processes(m, &callers) {
            entries
                .entry(entry)
                .or_default()
                .push(Creation::Spawn { call });
        }
        for (entry, call) in std_threads(m, &callers) {
            entries
                .entry(entry)
                .or_default()
                .push(Creation::StdThread { call });
        }
        let mut preds = HashMap::new();
        let mut back = HashMap::new();
        for f in m.functions().into_iter().filter(|f| f.has_body()) {
            preds.insert(f, f.predecessors());
            back.insert(f, back_edges(f));
        }
        let shared_slots = shared_slots(&entries);
        let (entry_writes, root_writes) = concurrent_writes(
            &entries,
            &roots,
            &effects,
            &indirect_callers,
            &callers,
            &shared_slots,
        );
        let single_instance = entries
            .iter()
            .filter(|(_, c)| single_creation(c, &roots, &callers, &indirect_callers, &back))
            .map(|(e, _)| *e)
            .collect();
        let nondet_callers = nondet_callers(m, &callers);
        let concurrent_nondet = concurrent_nondet(&entries, &roots, &nondet_callers, &effects);
        ModuleFacts {
            callers,
            indirect_callers,
            virtual_targets,
            port_binders: super::ports::port_binders(m),
            entries,
            roots,
            preds,
            back,
            entry_writes,
            root_writes,
            single_instance,
            shared_slots,
            nondet_callers,
            concurrent_nondet,
            methods,
            process_order,
            notifies,
            effects,
        }
    }

    /// Whether code running while `reader` runs (another entry, an instance of the
    /// same entry when it may run several times at once, or a root after its first
    /// thread creation; `reader` `None` is a root) may store to `target`.
    pub(super) fn written_by_others(&self, reader: Option<Func<'m>>, target: &Target<'m>) -> bool {
        if let Target::Field(key) = target {
            if kernel_updated(key.0) {
                return true;
            }
        }
        let writes = |w: &Option<Written<'m>>| w.as_ref().is_none_or(|w| w.contains(target));
        let others = self
            .entry_writes
            .iter()
            .filter(|(e, _)| Some(**e) != reader || !self.single_instance.contains(*e));
        let mut others = others.map(|(_, w)| w);
        others.any(writes) || (reader.is_some() && writes(&self.root_writes))
    }

    /// Whether `reader`'s own code (its entry's functions; a root's after its first
    /// thread creation, for `None`) may store to `target`.
    pub(super) fn written_by_self(&self, reader: Option<Func<'m>>, target: &Target<'m>) -> bool {
        let own = match reader {
            Some(e) => self.entry_writes.get(&e),
            None => Some(&self.root_writes),
        };
        own.is_none_or(|w| w.as_ref().is_none_or(|w| w.contains(target)))
    }

    /// The plain stores of the writers [`written_by_others`](Self::written_by_others)
    /// counts that may write `target` (a global or a field), each once.
    pub(super) fn stores_by_others(
        &self,
        reader: Option<Func<'m>>,
        target: &Target<'m>,
    ) -> Vec<Value<'m>> {
        let mut out: Vec<Value<'m>> = Vec::new();
        // By entry name: the formula (and its symbols' numbering) is the same each run.
        let mut writers: Vec<_> = self.entry_writes.iter().collect();
        writers.sort_by_key(|(e, _)| e.name());
        for (entry, w) in writers {
            if Some(*entry) == reader && self.single_instance.contains(entry) {
                continue;
            }
            for s in w.iter().flat_map(|w| &w.stores) {
                let hit = match target {
                    Target::Global(g) => underlying_global(s.operand(1)) == Some(*g),
                    Target::Field(key) => field_key(s.operand(1)).as_ref() == Some(key),
                    Target::Slot(..) | Target::Unknown => false,
                };
                if hit && s.opcode() == Some(Opcode::LLVMStore) && !out.contains(s) {
                    out.push(*s);
                }
            }
        }
        out
    }

    /// Whether any thread or process (this one included), or a root once threads run,
    /// may store to `target`.
    pub(super) fn written_by_any(&self, target: &Target<'m>) -> bool {
        let writes = |w: &Option<Written<'m>>| w.as_ref().is_none_or(|w| w.contains(target));
        matches!(target, Target::Field(key) if kernel_updated(key.0))
            || self.entry_writes.values().any(writes)
            || writes(&self.root_writes)
    }

    /// Whether a load through `address` reads a field of a SystemC or TLM library
    /// class, which the kernel updates.
    pub(super) fn kernel_field(address: Value<'m>) -> bool {
        field_key(address).is_some_and(|key| kernel_updated(key.0))
    }

    /// The field `address` names (a GEP with constant indices), if any.
    pub(super) fn field_key_of(address: Value<'m>) -> Option<FieldKey<'m>> {
        field_key(address)
    }

    /// What a load through `address` reads, for [`written_by_others`](Self::written_by_others):
    /// a field with constant indices, else any memory; `None` for a SystemC interface
    /// member, which is bound once before `sc_start` and never written by processes.
    pub(super) fn field_target(address: Value<'m>) -> Option<Target<'m>> {
        if super::ports::is_interface_member(address) {
            return None;
        }
        Some(field_key(address).map_or(Target::Unknown, Target::Field))
    }
}

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
    fn contains(&self, target: &Target<'m>) -> bool {
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
fn kernel_updated(ty: Type<'_>) -> bool {
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
fn field_key(p: Value<'_>) -> Option<FieldKey<'_>> {
    if p.opcode()? != Opcode::LLVMGetElementPtr {
        return None;
    }
    let indices = (1..p.operand_count())
        .map(|k| p.operand(k).const_int())
        .collect::<Option<Vec<u64>>>()?;
    Some((p.gep_source_type(), indices))
}

/// Functions that call a nondet function, directly or transitively.
fn nondet_callers<'m>(
    m: &'m Module,
    callers: &HashMap<Func<'m>, Vec<Value<'m>>>,
) -> HashSet<Func<'m>> {
    let mut out = HashSet::new();
    let mut todo: Vec<Func<'m>> = m
        .functions()
        .into_iter()
        .filter(|f| nondet_type(*f).is_some())
        .collect();
    while let Some(f) = todo.pop() {
        for call in callers.get(&f).into_iter().flatten() {
            let caller = call.block().function();
            if out.insert(caller) {
                todo.push(caller);
            }
        }
    }
    out
}

fn concurrent_nondet<'m>(
    entries: &HashMap<Func<'m>, Vec<Creation<'m>>>,
    roots: &[Func<'m>],
    nondet_callers: &HashSet<Func<'m>>,
    effects: &Effects<'m>,
) -> bool {
    if entries.keys().any(|e| nondet_callers.contains(e)) {
        return true;
    }
    let calls_nondet = |i: &Value<'m>| {
        i.called_function()
            .map(|c| nondet_type(c).is_some() || nondet_callers.contains(&c))
            .unwrap_or(false)
    };
    for r in roots {
        let mut after: Vec<Block<'m>> = Vec::new();
        for b in r.blocks() {
            let insts = b.instructions();
            if let Some(pos) = insts.iter().position(|i| effects.starts_threads(*i)) {
                if insts[pos..].iter().any(calls_nondet) {
                    return true;
                }
                after.extend(b.successors());
            }
        }
        let mut seen = HashSet::new();
        while let Some(b) = after.pop() {
            if !seen.insert(b) {
                continue;
            }
            if b.instructions().iter().any(calls_nondet) {
                return true;
            }
            after.extend(b.successors());
        }
    }
    false
}

/// The global a pointer is derived from by address arithmetic and casts, if any.
fn underlying_global<'m>(mut p: Value<'m>) -> Option<Value<'m>> {
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
fn shared_slots<'m>(entries: &HashMap<Func<'m>, Vec<Creation<'m>>>) -> HashSet<Value<'m>> {
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
fn concurrent_writes<'m>(
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

/// Whether an entry's creations start it once: one creation, made through calls that
/// each run once (see [`runs_once`]).
fn single_creation<'m>(
    creations: &[Creation<'m>],
    roots: &[Func<'m>],
    callers: &HashMap<Func<'m>, Vec<Value<'m>>>,
    indirect_callers: &HashMap<Func<'m>, Vec<Value<'m>>>,
    back: &HashMap<Func<'m>, HashSet<(Block<'m>, Block<'m>)>>,
) -> bool {
    let [creation] = creations else { return false };
    let once = |f: Func<'m>| runs_once(f, roots, callers, indirect_callers, back, 0);
    match creation {
        Creation::Pthread { call, .. }
        | Creation::Spawn { call }
        | Creation::StdThread { call } => !in_cycle(*call, back) && once(call.block().function()),
        Creation::Systemc { constructor } => once(*constructor),
    }
}

/// Whether function `f` runs at most once: a root, or a function with one direct
/// caller (and no call through a pointer) whose call is in no loop of a function that
/// runs once.
fn runs_once<'m>(
    f: Func<'m>,
    roots: &[Func<'m>],
    callers: &HashMap<Func<'m>, Vec<Value<'m>>>,
    indirect_callers: &HashMap<Func<'m>, Vec<Value<'m>>>,
    back: &HashMap<Func<'m>, HashSet<(Block<'m>, Block<'m>)>>,
    depth: u32,
) -> bool {
    if roots.contains(&f) {
        return true;
    }
    if depth >= 16 || indirect_callers.contains_key(&f) {
        return false;
    }
    match callers.get(&f).map(Vec::as_slice) {
        Some([call]) => {
            !in_cycle(*call, back)
                && runs_once(
                    call.block().function(),
                    roots,
                    callers,
                    indirect_callers,
                    back,
                    depth + 1,
                )
        }
        _ => false,
    }
}

/// Whether instruction `i`'s block lies on a cycle of its function's control flow.
fn in_cycle<'m>(i: Value<'m>, back: &HashMap<Func<'m>, HashSet<(Block<'m>, Block<'m>)>>) -> bool {
    let b = i.block();
    if back.get(&b.function()).is_none_or(|edges| edges.is_empty()) {
        return false;
    }
    let mut todo = b.successors();
    let mut seen = HashSet::new();
    while let Some(s) = todo.pop() {
        if s == b {
            return true;
        }
        if seen.insert(s) {
            todo.extend(s.successors());
        }
    }
    false
}

/// Processes started with `sc_spawn`: each `sc_core::sc_spawn_object<T>::semantics()`
/// (`sc_spawn_object_v` for a spawn with a result) paired with every direct call of the
/// `sc_core::sc_spawn<T>` instantiation that creates it, matched on the template
/// arguments of their demangled names.
fn spawned_processes<'m>(
    m: &'m Module,
    callers: &HashMap<Func<'m>, Vec<Value<'m>>>,
) -> Vec<(Func<'m>, Value<'m>)> {
    let functions: Vec<(Func<'m>, String)> = m
        .functions()
        .into_iter()
        .filter_map(|f| demangled(&f.name()).map(|d| (f, d)))
        .collect();
    let spawns: Vec<(Func<'m>, &str)> = functions
        .iter()
        .filter_map(|(f, d)| template_arguments(d, "sc_core::sc_spawn<").map(|t| (*f, t)))
        .collect();
    let mut out = Vec::new();
    for (entry, name) in functions
        .iter()
        .filter(|(f, d)| f.has_body() && d.ends_with(">::semantics()"))
    {
        let object = template_arguments(name, "sc_core::sc_spawn_object<")
            .or_else(|| template_arguments(name, "sc_core::sc_spawn_object_v<"));
        let Some(object) = object else { continue };
        for (spawn, args) in &spawns {
            if *args == object {
                out.extend(
                    callers
                        .get(spawn)
                        .into_iter()
                        .flatten()
                        .map(|call| (*entry, *call)),
                );
            }
        }
    }
    out
}

/// The `std::thread` entries (`_State_impl<X>::_M_run()`, reached from libstdc++ through
/// the state object's vtable) with the constructions that start them: the calls of the
/// `std::thread` constructors that build a `_State_impl<X>` of the same `X`.
fn std_threads<'m>(
    m: &'m Module,
    callers: &HashMap<Func<'m>, Vec<Value<'m>>>,
) -> Vec<(Func<'m>, Value<'m>)> {
    const STATE: &str = "std::thread::_State_impl<";
    let functions: Vec<(Func<'m>, String)> = m
        .functions()
        .into_iter()
        .filter_map(|f| demangled(&f.name()).map(|d| (f, d)))
        .collect();
    let mut out = Vec::new();
    for (entry, name) in functions
        .iter()
        .filter(|(f, d)| f.has_body() && d.starts_with(STATE) && d.ends_with(">::_M_run()"))
    {
        let Some(state) = template_arguments(name, STATE) else {
            continue;
        };
        let constructor = format!("{STATE}{state}>::_State_impl<");
        for (built, _) in functions
            .iter()
            .filter(|(_, d)| d.starts_with(&constructor))
        {
            // The functions that build the state: the std::thread constructors, whose
            // callers start the thread.
            for making in callers.get(built).into_iter().flatten() {
                let thread_constructor = making.block().function();
                out.extend(
                    callers
                        .get(&thread_constructor)
                        .into_iter()
                        .flatten()
                        .map(|call| (*entry, *call)),
                );
            }
        }
    }
    out
}

/// The demangled form of a C++ symbol.
pub(super) fn demangled(symbol: &str) -> Option<String> {
    let parsed = cpp_demangle::Symbol::new(symbol).ok()?;
    parsed
        .demangle(&cpp_demangle::DemangleOptions::default())
        .ok()
}

/// The text between the angle brackets that follow `template` in `name` (balanced).
fn template_arguments<'a>(name: &'a str, template: &str) -> Option<&'a str> {
    let start = name.find(template)? + template.len();
    let mut depth = 1;
    for (i, c) in name[start..].char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&name[start..start + i]);
                }
            }
            _ => {}
        }
    }
    None
}

fn collect_functions<'m>(v: Value<'m>, out: &mut Vec<Func<'m>>, depth: u32) {
    if depth > 3 {
        return;
    }
    if let Some(f) = v.as_function() {
        if !out.contains(&f) {
            out.push(f);
        }
        return;
    }
    if v.opcode().is_some() && !v.is_instruction() {
        for k in 0..v.operand_count() {
            collect_functions(v.operand(k), out, depth + 1);
        }
    }
}

/// Edges (u, v) where v is on the DFS stack when u→v is explored.
fn back_edges<'m>(f: Func<'m>) -> HashSet<(Block<'m>, Block<'m>)> {
    let mut out = HashSet::new();
    let Some(entry) = f.entry() else { return out };
    let mut state: HashMap<Block<'m>, u8> = HashMap::new(); // 1 on stack, 2 done
    let mut stack = vec![(entry, 0usize)];
    state.insert(entry, 1);
    while let Some((b, i)) = stack.pop() {
        let succ = b.successors();
        if i < succ.len() {
            stack.push((b, i + 1));
            let s = succ[i];
            match state.get(&s) {
                Some(1) => {
                    out.insert((b, s));
                }
                Some(_) => {}
                None => {
                    state.insert(s, 1);
                    stack.push((s, 0));
                }
            }
        } else {
            state.insert(b, 2);
        }
    }
    out
}
