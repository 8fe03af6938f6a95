//! Thread and process entries: how each is started ([`Creation`]), the ones found by
//! name (`sc_spawn` processes, `std::thread` entries, from demangled template arguments)
//! or by the functions a process registration names, and whether an entry runs as one
//! thread or process only.

use crate::ir::{Block, Func, Module, Value};
use std::collections::{HashMap, HashSet};

/// How a thread/process entry is started.
#[derive(Debug, Clone)]
pub enum Creation<'m> {
    /// `pthread_create` or `thrd_create` (the runtime hook the mutator rewrites them
    /// into) call, with the start routine's argument. The start routine may be a value
    /// (a table's element, a local): `guessed` when it was not followed to its
    /// functions, and every function shaped like a start routine is listed under it
    /// (`start_routines.rs`).
    Pthread {
        call: Value<'m>,
        arg: Value<'m>,
        guessed: bool,
    },
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

/// Whether an entry's creations start it once: one creation, made through calls that
/// each run once (see [`runs_once`]).
pub(super) fn single_creation<'m>(
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
pub(super) fn spawned_processes<'m>(
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
pub(super) fn std_threads<'m>(
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

pub(super) fn collect_functions<'m>(v: Value<'m>, out: &mut Vec<Func<'m>>, depth: u32) {
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
