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
    /// Globals and fields that code running concurrently may store to (functions
    /// reachable from a thread/process entry, and the roots after the first thread
    /// creation). `None`: some concurrent store goes through a pointer traced neither
    /// to a global nor to a field, so every object may be written.
    pub(super) concurrent_writes: Option<Written<'m>>,
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
                        if let (Some(start), Some(arg)) = (args.get(fi).and_then(|v| v.as_function()), args.get(ai)) {
                            entries.entry(start).or_default().push(Creation::Pthread { call: i, arg: *arg });
                        }
                    }
                    if effects.registers_process(i) {
                        registers_process = true;
                        if i.called_function().is_some_and(|c| c.name().contains("create_method_process")) {
                            let mut entries = Vec::new();
                            for a in i.call_args() {
                                collect_functions(a, &mut entries, 0);
                            }
                            methods.extend(entries);
                        }
                    }
                    if i.opcode() == Some(Opcode::LLVMCall) || i.opcode() == Some(Opcode::LLVMInvoke) {
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
                for e in referenced.into_iter().filter(|e| e.has_body() && e.param_count() == 1) {
                    entries.entry(e).or_default().push(Creation::Systemc { constructor: f });
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
            entries.entry(entry).or_default().push(Creation::Spawn { call });
        }
        for (entry, call) in std_threads(m, &callers) {
            entries.entry(entry).or_default().push(Creation::StdThread { call });
        }
        let mut preds = HashMap::new();
        let mut back = HashMap::new();
        for f in m.functions().into_iter().filter(|f| f.has_body()) {
            preds.insert(f, f.predecessors());
            back.insert(f, back_edges(f));
        }
        let concurrent_writes = concurrent_writes(&entries, &roots, &effects, &indirect_callers);
        let nondet_callers = nondet_callers(m, &callers);
        let concurrent_nondet = concurrent_nondet(&entries, &roots, &nondet_callers, &effects);
        ModuleFacts { callers, indirect_callers, virtual_targets, port_binders: super::ports::port_binders(m), entries, roots, preds, back, concurrent_writes, nondet_callers, concurrent_nondet, methods, process_order, notifies, effects }
    }

    /// Whether code running concurrently may store to global `g`.
    pub(super) fn concurrently_written(&self, g: Value<'m>) -> bool {
        self.concurrent_writes.as_ref().map(|w| w.globals.contains(&g)).unwrap_or(true)
    }

    /// Whether code running concurrently may store to the field that `address` (a
    /// load's pointer operand) names; an address that is not a field with constant
    /// indices may be written.
    pub(super) fn field_concurrently_written(&self, address: Value<'m>) -> bool {
        if super::ports::is_interface_member(address) {
            return false;
        }
        match (&self.concurrent_writes, field_key(address)) {
            (Some(w), Some(key)) => w.fields.contains(&key) || kernel_updated(key.0),
            _ => true,
        }
    }
}

/// What code running concurrently may store to.
pub(super) struct Written<'m> {
    pub(super) globals: HashSet<Value<'m>>,
    /// Fields written through a pointer (`this->count`), by [`field_key`]. A module
    /// member set in the constructor and only read by the processes is in none.
    pub(super) fields: HashSet<FieldKey<'m>>,
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
    ty.struct_name().is_some_and(|n| ["class.sc_core::", "struct.sc_core::", "class.tlm::", "struct.tlm::"].iter().any(|p| n.starts_with(p)))
}

/// The field `p` addresses, if it is a GEP with constant indices.
fn field_key(p: Value<'_>) -> Option<FieldKey<'_>> {
    if p.opcode()? != Opcode::LLVMGetElementPtr {
        return None;
    }
    let indices = (1..p.operand_count()).map(|k| p.operand(k).const_int()).collect::<Option<Vec<u64>>>()?;
    Some((p.gep_source_type(), indices))
}

/// Functions that call a nondet function, directly or transitively.
fn nondet_callers<'m>(m: &'m Module, callers: &HashMap<Func<'m>, Vec<Value<'m>>>) -> HashSet<Func<'m>> {
    let mut out = HashSet::new();
    let mut todo: Vec<Func<'m>> = m.functions().into_iter().filter(|f| nondet_type(*f).is_some()).collect();
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

fn concurrent_nondet<'m>(entries: &HashMap<Func<'m>, Vec<Creation<'m>>>, roots: &[Func<'m>], nondet_callers: &HashSet<Func<'m>>, effects: &Effects<'m>) -> bool {
    if entries.keys().any(|e| nondet_callers.contains(e)) {
        return true;
    }
    let calls_nondet = |i: &Value<'m>| i.called_function().map(|c| nondet_type(c).is_some() || nondet_callers.contains(&c)).unwrap_or(false);
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
            Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => p = p.operand(0),
            _ => return None,
        }
    }
    None
}

/// Adds the global or field a `store` writes to `written`; a store into memory that is
/// neither a global, a field nor the function's own stack frame makes the analysis
/// give up (`None`).
fn record_store<'m>(i: Value<'m>, written: &mut Written<'m>) -> Option<()> {
    if let Some(address) = written_address(i) {
        match underlying_global(address) {
            Some(g) => {
                written.globals.insert(g);
            }
            None if is_local_slot(address) => {}
            None => {
                written.fields.insert(field_key(address)?);
            }
        }
    }
    Some(())
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

fn concurrent_writes<'m>(
    entries: &HashMap<Func<'m>, Vec<Creation<'m>>>,
    roots: &[Func<'m>],
    effects: &Effects<'m>,
    indirect_callers: &HashMap<Func<'m>, Vec<Value<'m>>>,
) -> Option<Written<'m>> {
    let mut written = Written { globals: HashSet::new(), fields: HashSet::new() };
    let mut indirect_targets: HashMap<Value<'m>, Vec<Func<'m>>> = HashMap::new();
    for (target, calls) in indirect_callers {
        for call in calls {
            indirect_targets.entry(*call).or_default().push(*target);
        }
    }
    // Functions reachable from thread entries.
    let mut todo: Vec<Func<'m>> = entries.keys().copied().collect();
    let mut seen: HashSet<Func<'m>> = HashSet::new();
    while let Some(f) = todo.pop() {
        if !seen.insert(f) || !f.has_body() {
            continue;
        }
        for b in f.blocks() {
            for i in b.instructions() {
                record_store(i, &mut written)?;
                if let Some(c) = i.called_function() {
                    todo.push(c);
                }
                todo.extend(indirect_targets.get(&i).into_iter().flatten());
            }
        }
    }
    // Roots after the first thread creation (same block after it, or any block
    // reachable from its block).
    for r in roots {
        let mut after: Vec<Block<'m>> = Vec::new();
        for b in r.blocks() {
            let insts = b.instructions();
            if let Some(pos) = insts.iter().position(|i| effects.starts_threads(*i)) {
                for i in &insts[pos..] {
                    record_store(*i, &mut written)?;
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
                record_store(i, &mut written)?;
            }
            after.extend(b.successors());
        }
    }
    Some(written)
}

/// A pointer into the function's own stack frame (not shared with other threads
/// unless its address escapes, which the region map handles by base identity).
fn is_local_slot(mut p: Value<'_>) -> bool {
    for _ in 0..16 {
        match p.opcode() {
            Some(Opcode::LLVMAlloca) => return true,
            Some(Opcode::LLVMGetElementPtr) | Some(Opcode::LLVMBitCast) => p = p.operand(0),
            _ => return false,
        }
    }
    false
}

/// Processes started with `sc_spawn`: each `sc_core::sc_spawn_object<T>::semantics()`
/// (`sc_spawn_object_v` for a spawn with a result) paired with every direct call of the
/// `sc_core::sc_spawn<T>` instantiation that creates it, matched on the template
/// arguments of their demangled names.
fn spawned_processes<'m>(m: &'m Module, callers: &HashMap<Func<'m>, Vec<Value<'m>>>) -> Vec<(Func<'m>, Value<'m>)> {
    let functions: Vec<(Func<'m>, String)> = m.functions().into_iter().filter_map(|f| demangled(&f.name()).map(|d| (f, d))).collect();
    let spawns: Vec<(Func<'m>, &str)> =
        functions.iter().filter_map(|(f, d)| template_arguments(d, "sc_core::sc_spawn<").map(|t| (*f, t))).collect();
    let mut out = Vec::new();
    for (entry, name) in functions.iter().filter(|(f, d)| f.has_body() && d.ends_with(">::semantics()")) {
        let object = template_arguments(name, "sc_core::sc_spawn_object<").or_else(|| template_arguments(name, "sc_core::sc_spawn_object_v<"));
        let Some(object) = object else { continue };
        for (spawn, args) in &spawns {
            if *args == object {
                out.extend(callers.get(spawn).into_iter().flatten().map(|call| (*entry, *call)));
            }
        }
    }
    out
}

/// The `std::thread` entries (`_State_impl<X>::_M_run()`, reached from libstdc++ through
/// the state object's vtable) with the constructions that start them: the calls of the
/// `std::thread` constructors that build a `_State_impl<X>` of the same `X`.
fn std_threads<'m>(m: &'m Module, callers: &HashMap<Func<'m>, Vec<Value<'m>>>) -> Vec<(Func<'m>, Value<'m>)> {
    const STATE: &str = "std::thread::_State_impl<";
    let functions: Vec<(Func<'m>, String)> = m.functions().into_iter().filter_map(|f| demangled(&f.name()).map(|d| (f, d))).collect();
    let mut out = Vec::new();
    for (entry, name) in functions.iter().filter(|(f, d)| f.has_body() && d.starts_with(STATE) && d.ends_with(">::_M_run()")) {
        let Some(state) = template_arguments(name, STATE) else { continue };
        let constructor = format!("{STATE}{state}>::_State_impl<");
        for (built, _) in functions.iter().filter(|(_, d)| d.starts_with(&constructor)) {
            // The functions that build the state: the std::thread constructors, whose
            // callers start the thread.
            for making in callers.get(built).into_iter().flatten() {
                let thread_constructor = making.block().function();
                out.extend(callers.get(&thread_constructor).into_iter().flatten().map(|call| (*entry, *call)));
            }
        }
    }
    out
}

/// The demangled form of a C++ symbol.
pub(super) fn demangled(symbol: &str) -> Option<String> {
    let parsed = cpp_demangle::Symbol::new(symbol).ok()?;
    parsed.demangle(&cpp_demangle::DemangleOptions::default()).ok()
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
