//! Facts about the whole module computed once and shared by every site's analysis:
//! call graph, thread/process entries and their order, predecessor maps, loop back
//! edges, and which globals and nondet calls code running concurrently may touch.
//!
//! How the entries are found and whether each runs once is `entries.rs`; what each may
//! write, `writes.rs`.

use super::calls::nondet_type;
use super::entries::{
    collect_functions, single_creation, spawned_processes, std_threads, Creation,
};
use super::start_routines::{start_routines, Routines};
use super::writes::{
    concurrent_writes, field_key, kernel_updated, shared_slots, underlying_global, written_address,
    FieldKey, Target, Written,
};
use crate::effects::Effects;
use crate::ir::{Block, Func, Module, Opcode, Value};
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
    /// Functions that bind a SystemC port, each with whether it binds it to an
    /// interface rather than to another port (`ports.rs`).
    pub(super) port_binders: HashMap<Func<'m>, bool>,
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
    /// SystemC processes whose first activation may come after other processes ran
    /// for a while: `SC_CTHREAD`s (they wait for their clock edge) and the processes of
    /// a constructor that calls `dont_initialize`.
    pub(super) late_starts: HashSet<Func<'m>>,
    /// Every rewritten `sc_event::notify*` call.
    pub(super) notifies: Vec<Value<'m>>,
    /// What each tagged call does.
    pub(crate) effects: Effects<'m>,
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
        let mut late_starts = HashSet::new();
        for f in m.functions() {
            let name = f.name();
            if (name == "main" || name == "sc_main") && f.has_body() {
                roots.push(f);
            }
            if !f.has_body() {
                continue;
            }
            let mut registers_process = false;
            let mut defers = false;
            let mut referenced = Vec::new();
            for b in f.blocks() {
                for i in b.instructions() {
                    if let Some((fi, ai)) = effects.thread_creation(i) {
                        let args = i.call_args();
                        if let (Some(start), Some(arg)) = (args.get(fi), args.get(ai)) {
                            let routines = match start.as_function() {
                                Some(f) => Routines {
                                    funcs: vec![f],
                                    guessed: false,
                                },
                                None => start_routines(m, *start, &callers),
                            };
                            for f in routines.funcs {
                                entries.entry(f).or_default().push(Creation::Pthread {
                                    call: i,
                                    arg: *arg,
                                    guessed: routines.guessed,
                                });
                            }
                        }
                    }
                    let callee = i.called_function().map(|c| c.name()).unwrap_or_default();
                    defers |= callee.contains("dont_initialize");
                    if effects.registers_process(i) {
                        registers_process = true;
                        let mut entries = Vec::new();
                        for a in i.call_args() {
                            collect_functions(a, &mut entries, 0);
                        }
                        if callee.contains("create_method_process") {
                            methods.extend(entries);
                        } else if callee.contains("create_cthread_process") {
                            late_starts.extend(entries);
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
                    if defers {
                        late_starts.insert(e);
                    }
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
            late_starts,
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

    /// Whether process `writer` first runs after process `reader` has started: the
    /// kernel runs every method, then every thread, in registration order, before
    /// the simulation's first wait; a late starter (`late_starts`) runs after that.
    /// Between modules the order is not modelled.
    pub(super) fn starts_after(&self, writer: Func<'m>, reader: Func<'m>) -> bool {
        let (Some((wc, wi)), Some((rc, ri))) = (
            self.process_order.get(&writer),
            self.process_order.get(&reader),
        ) else {
            return false;
        };
        if self.late_starts.contains(&reader) {
            return false;
        }
        let (wm, rm) = (
            self.methods.contains(&writer),
            self.methods.contains(&reader),
        );
        self.late_starts.contains(&writer) || (rm && !wm) || (wm == rm && wc == rc && wi > ri)
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
                let known = matches!(target, Target::Global(_) | Target::Field(_));
                if known
                    && Self::stores_to(*s, target)
                    && s.opcode() == Some(Opcode::LLVMStore)
                    && !out.contains(s)
                {
                    out.push(*s);
                }
            }
        }
        out
    }

    /// Whether store (or atomic update) `s` of a write set may write `target`: it
    /// names that global or field; any of them may be a stack slot's or unknown memory.
    pub(super) fn stores_to(s: Value<'m>, target: &Target<'m>) -> bool {
        let Some(address) = written_address(s) else {
            return false;
        };
        match target {
            Target::Global(g) => underlying_global(address) == Some(*g),
            Target::Field(key) => field_key(address).as_ref() == Some(key),
            Target::Slot(..) | Target::Unknown => true,
        }
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
