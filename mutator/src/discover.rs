//! Site discovery: every direct `call`/`invoke` of a recognised synchronization API
//! whose debug location is in user code, and of the project's own declared
//! synchronization functions (`crate::user_sync`), whose inner calls then get no
//! operators.

use crate::api::{self, Rewrite, SyncApi};
use crate::catalogue::Site;
use crate::effect::{Effect, Family};
use crate::ir;
use crate::operator::Operator;
use crate::source::{self, SourceCache};
use crate::user_sync::{self, UserSync};
use inkwell::module::Module;
use inkwell::values::BasicValueEnum;
use inkwell::values::{AsValueRef, FunctionValue, InstructionValue};
use std::collections::HashMap;

pub use crate::found_site::FoundSite;

/// A call inside a library's inline code (a `std::mutex::lock` body's
/// `pthread_mutex_lock`) rewritten to its wrapper only to be a scheduling point: not a
/// site, never mutated (`syncmut_runtime::tables::SITE_INNER`).
pub struct InnerCall<'ctx> {
    pub api: SyncApi,
    pub inst: InstructionValue<'ctx>,
}

/// The sites of a module plus what the user should know about what was skipped.
pub struct Discovery<'ctx> {
    pub kind: Family,
    pub sites: Vec<FoundSite<'ctx>>,
    /// Synchronization calls in system headers' code (pthread designs only).
    pub inner_calls: Vec<InnerCall<'ctx>>,
    /// The mutants spanning a critical section (indices into `sites`).
    pub regions: Vec<crate::regions::RegionMutant<'ctx>>,
    /// Plain-language notes (e.g. sync calls without debug info), for the CLI to print.
    pub warnings: Vec<String>,
}

/// Finds every synchronization site in user code, numbered in source order; calls of
/// the `declared` functions are sites too.
pub fn discover<'ctx>(module: &Module<'ctx>, declared: &[UserSync]) -> Discovery<'ctx> {
    let mut sources = SourceCache::default();
    let mut found = Vec::new();
    let mut without_debug_info = 0usize;
    let mut abi_sensitive = Vec::new();
    let mut missing_counterparts = Vec::new();
    let mut unmodelled = std::collections::BTreeSet::new();
    let mut inner_calls = Vec::new();
    let defined: std::collections::HashSet<String> = module
        .get_functions()
        .map(|f| api::demangle(&f.get_name().to_string_lossy()))
        .collect();
    let kind = if module
        .get_function("sc_main")
        .is_some_and(|f| f.count_basic_blocks() > 0)
    {
        Family::Systemc
    } else {
        Family::Pthread
    };
    let mut used = std::collections::BTreeSet::new();
    // Which defined functions each function calls, for what a declared function reaches.
    let mut calls: HashMap<String, Vec<String>> = HashMap::new();
    for function in module.get_functions() {
        let mut ordinal = 0u32;
        let display = function_display_name(&function);
        let demangled = api::demangle(&function.get_name().to_string_lossy());
        // The body of a declared function: its calls stay sites without mutants.
        let inside_declared = user_sync::declared(declared, &demangled, &display).is_some();
        for inst in ir::instructions(&function) {
            if !ir::is_call_like(inst) {
                continue;
            }
            let Some(callee) = ir::called_function(inst) else {
                continue;
            };
            let mangled = callee.get_name().to_string_lossy().into_owned();
            if callee.count_basic_blocks() > 0 {
                calls
                    .entry(function.get_name().to_string_lossy().into_owned())
                    .or_default()
                    .push(mangled.clone());
            }
            let callee_name = api::demangle(&mangled);
            let declaration =
                user_sync::declared(declared, &callee_name, strip_parameters(&callee_name));
            if let Some(d) = declaration {
                used.insert(d.function.clone());
            }
            let user = declaration.map(|d| user_api(d, &callee_name, &mangled, kind));
            // A C++20 member clang inlined (`std::latch::wait`, `std::atomic<T>::notify_one`)
            // is named at the user's line, where the library's wait or notify it called stays.
            let inlined = if user.is_none() {
                cpp20_inlined(inst, &callee_name)
            } else {
                None
            };
            let at_user_line = inlined.as_ref().map(|(_, loc)| loc.clone());
            let inlined = inlined.map(|(api, _)| api);
            let Some(mut api) = user
                .or(inlined)
                .or_else(|| api::lookup(&callee_name))
                .or_else(|| api::library_call(&callee_name))
            else {
                if let Some(what) = api::std_unmodelled(&callee_name) {
                    if let Some(loc) =
                        ir::inlined_at_location(inst).filter(|l| !source::is_system_path(&l.path))
                    {
                        unmodelled.insert(format!(
                            "{}:{} {} ({what})",
                            source::normalize(&loc.path).display(),
                            loc.line,
                            callee_name
                        ));
                    }
                }
                continue;
            };
            match api.rewrite {
                // One trampoline per template instance and overload.
                Rewrite::FifoTrampoline { .. } => api.wrapper = format!("syncmut.fifo.{mangled}"),
                Rewrite::UserTrampoline { .. } if api.wrapper.is_empty() => {
                    api.wrapper = format!("syncmut.user.{mangled}")
                }
                Rewrite::StdTrampoline { .. } => api.wrapper = format!("syncmut.std.{mangled}"),
                _ => {}
            }
            let Some(loc) = at_user_line.or_else(|| ir::debug_location(inst)) else {
                without_debug_info += 1;
                continue;
            };
            if source::is_system_path(&loc.path) {
                // The C++ library's inline bodies (std::mutex::lock calling
                // pthread_mutex_lock, a predicate wait calling the plain wait): their
                // calls are scheduling points, not sites.
                if kind == Family::Pthread
                    && api.family == Family::Pthread
                    && api.rewrite == Rewrite::Wrapper
                {
                    inner_calls.push(InnerCall { api, inst });
                }
                continue;
            }
            if api::library_call(&callee_name).is_some() {
                continue; // the design's own call stays as written (not a site yet)
            }
            ordinal += 1;
            if ir::has_abi_sensitive_arguments(inst) {
                abi_sensitive.push(format!("{}:{}", loc.path.display(), loc.line));
                continue;
            }
            let mut operators = if inside_declared {
                Vec::new()
            } else {
                api.operators.clone()
            };
            if let Rewrite::FifoTrampoline { counterpart, .. } = &api.rewrite {
                if !defined.contains(counterpart) {
                    // The twin is a template member nobody instantiated; the swap
                    // operator cannot be offered at this site.
                    operators.retain(|op| *op == crate::Operator::Remove);
                    missing_counterparts.push(format!(
                        "{}:{} ({counterpart})",
                        loc.path.display(),
                        loc.line
                    ));
                }
            }
            drop_invalid_count_changes(inst, &api, &mut operators);
            // A mutant that is the original by construction could only survive.
            let equivalent: Vec<Operator> = crate::equivalent::identical_operators(&api, inst)
                .into_iter()
                .map(|(op, _)| op)
                .collect();
            operators.retain(|op| !equivalent.contains(op));
            // `std::counting_semaphore<(long)2>::acquire()`: the demangler's cast in a
            // template argument is no parameter list.
            let short_callee = if api.signature.contains("<(") {
                strip_parameters(&api.signature)
            } else {
                api.signature.split('(').next().unwrap_or(&api.signature)
            };
            let short_callee = short_callee.rsplit("::").next().unwrap_or(short_callee);
            let site = Site {
                index: 0, // assigned below, once all sites are known
                key: format!("{display}#{ordinal}"),
                function: display.clone(),
                callee: api.signature.clone(),
                wrapper: api.wrapper.clone(),
                family: api.family,
                file: source::normalize(&loc.path).to_string_lossy().into_owned(),
                line: loc.line,
                col: loc.col,
                call: sources.call_text(&loc.path, loc.line, loc.col, short_callee),
                operators,
                equivalent,
                effect: Some(api.effect),
                inner: Vec::new(),
                scope: Vec::new(),
            };
            found.push(FoundSite { site, api, inst });
        }
    }
    found.sort_by(|a, b| {
        let key = |s: &Site| (s.file.clone(), s.line, s.col, s.key.clone());
        key(&a.site).cmp(&key(&b.site))
    });
    for (index, f) in found.iter_mut().enumerate() {
        f.site.index = index as u32;
    }
    link_inner_sites(&mut found, &calls);
    link_guard_scopes(&mut found);
    disambiguate_overloads(&mut found);

    let mut warnings = Vec::new();
    if without_debug_info > 0 {
        warnings.push(format!(
            "{without_debug_info} synchronization call(s) have no debug location and were not instrumented; compile with -g (syncmut does this when given sources)"
        ));
    }
    if !abi_sensitive.is_empty() {
        warnings.push(format!(
            "synchronization call(s) passing arguments by value in memory (byval/sret) are not supported yet and were skipped: {}",
            abi_sensitive.join(", ")
        ));
    }
    let equivalent: Vec<String> = found
        .iter()
        .flat_map(|f| {
            f.site
                .equivalent
                .iter()
                .map(move |op| format!("{}:{} ({})", f.site.key, op.slug(), f.site.call))
        })
        .collect();
    if !equivalent.is_empty() {
        warnings.push(format!(
            "{} mutant(s) not generated because they are the original by construction (zero time arguments, docs/operators.md): {}",
            equivalent.len(),
            equivalent.join(", ")
        ));
    }
    if !missing_counterparts.is_empty() {
        warnings.push(format!(
            "blocking/non-blocking swap not offered where the twin function is not instantiated in the design: {}",
            missing_counterparts.join(", ")
        ));
    }
    if !unmodelled.is_empty() {
        warnings.push(format!(
            "C++ synchronization that syncmut does not model (no sites; under the controlled scheduler a thread blocked in it is not seen, and the run may hang until its timeout): {}",
            unmodelled.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    for d in declared.iter().filter(|d| !used.contains(&d.function)) {
        warnings.push(format!("[[sync]] function {:?} is never called in user code: no sites for it (is the name right?)", d.function));
    }
    let regions = crate::regions::find(&found);
    Discovery {
        kind,
        sites: found,
        inner_calls,
        regions,
        warnings,
    }
}

/// A call of libstdc++'s wait or notify on an atomic left in user code by an inlined
/// C++20 member: its API row and the user's line.
fn cpp20_inlined(inst: InstructionValue<'_>, callee: &str) -> Option<(SyncApi, ir::DebugLoc)> {
    if !callee.starts_with("void std::__atomic_") {
        return None;
    }
    let mut frames = ir::inlined_frames(inst);
    let user = frames
        .pop()
        .filter(|loc| !source::is_system_path(&loc.path))?;
    let entered = frames.pop()?; // the library function the user's code called
    let constant_all = match ir::call_arguments(inst).get(1) {
        Some(BasicValueEnum::IntValue(v)) => v.get_zero_extended_constant().map(|v| v != 0),
        _ => None,
    };
    let api = api::cpp20_inlined(callee, &entered.path.to_string_lossy(), constant_all)?;
    Some((api, user))
}

/// A count given as a constant at or below its floor (a barrier of one party, a semaphore
/// without tokens) cannot be lowered: the mutant would be an initialisation the library
/// rejects, not a design with a different count. Counts computed at run time are lowered
/// as they come.
fn drop_invalid_count_changes(
    inst: InstructionValue<'_>,
    api: &SyncApi,
    operators: &mut Vec<Operator>,
) {
    let Effect::Initialize { count, .. } = api.effect else {
        return;
    };
    let Some(BasicValueEnum::IntValue(value)) =
        ir::call_arguments(inst).get(count as usize).copied()
    else {
        return;
    };
    let Some(given) = value.get_sign_extended_constant() else {
        return;
    };
    let floor = if operators.contains(&Operator::BarrierCountDown) {
        1
    } else {
        0
    };
    if given <= floor {
        operators.retain(|op| {
            !matches!(
                op,
                Operator::BarrierCountDown | Operator::SemaphoreCountDown
            )
        });
    }
}

/// The API row of a call of a declared function.
fn user_api(declared: &UserSync, signature: &str, mangled: &str, kind: Family) -> SyncApi {
    SyncApi {
        signature: signature.to_string(),
        wrapper: format!("syncmut.user.{mangled}"),
        family: kind,
        effect: declared.acts_as.effect(declared.argument),
        operators: user_sync::OPERATORS.to_vec(),
        rewrite: Rewrite::UserTrampoline {
            gate: if kind == Family::Systemc {
                user_sync::SYSTEMC_GATE
            } else {
                user_sync::PTHREAD_GATE
            },
        },
    }
}

/// Gives each call of a declared function the sites its call raises events at: those in
/// its body and in every function it reaches through direct calls (a helper that takes
/// the lock, another declared function), so that removing the call hides them all.
fn link_inner_sites(found: &mut [FoundSite<'_>], calls: &HashMap<String, Vec<String>>) {
    let function_of = |f: &FoundSite<'_>| {
        f.inst
            .get_parent()
            .and_then(|b| b.get_parent())
            .map(|p| p.get_name().to_string_lossy().into_owned())
    };
    let mut inside: HashMap<String, Vec<u32>> = HashMap::new();
    for f in found.iter() {
        if let Some(name) = function_of(f) {
            inside.entry(name).or_default().push(f.site.index);
        }
    }
    for f in found.iter_mut() {
        if let Rewrite::UserTrampoline { .. } = f.api.rewrite {
            let callee = ir::called_function(f.inst)
                .map(|c| c.get_name().to_string_lossy().into_owned())
                .unwrap_or_default();
            let mut reached = vec![callee];
            let mut seen: std::collections::HashSet<String> = reached.iter().cloned().collect();
            let mut inner = Vec::new();
            while let Some(function) = reached.pop() {
                inner.extend(inside.get(&function).into_iter().flatten());
                for next in calls.get(&function).into_iter().flatten() {
                    if seen.insert(next.clone()) {
                        reached.push(next.clone());
                    }
                }
            }
            inner.sort_unstable();
            inner.dedup();
            f.site.inner = inner;
        }
    }
}

/// Gives each C++ lock guard's construction the other calls on the same guard object in
/// the same function (its destructions on every path out of the scope, its `lock()` and
/// `unlock()`): the guard is the construction's first argument, the object's address.
fn link_guard_scopes(found: &mut [FoundSite<'_>]) {
    fn object(
        f: &FoundSite<'_>,
    ) -> Option<(
        inkwell::llvm_sys::prelude::LLVMValueRef,
        inkwell::llvm_sys::prelude::LLVMValueRef,
    )> {
        let function = f.inst.get_parent().and_then(|b| b.get_parent())?;
        let guard = ir::call_arguments(f.inst).first()?.as_value_ref();
        Some((function.as_value_ref(), guard))
    }
    let members: Vec<(u32, _)> = found
        .iter()
        .filter(|f| api::guard_call(&f.api.signature) == Some(api::GuardCall::Member))
        .filter_map(|f| object(f).map(|o| (f.site.index, o)))
        .collect();
    for f in found.iter_mut() {
        if api::guard_call(&f.api.signature) != Some(api::GuardCall::Construct) {
            continue;
        }
        let Some(constructed) = object(f) else {
            continue;
        };
        f.site.scope = members
            .iter()
            .filter(|(_, o)| *o == constructed)
            .map(|(index, _)| *index)
            .collect();
    }
}

/// `top::t1()` → `top::t1`: parameter lists are dropped for readability and put back
/// only where two overloads of one function both hold sites (see
/// `disambiguate_overloads`).
fn function_display_name(function: &FunctionValue<'_>) -> String {
    let demangled = api::demangle(&function.get_name().to_string_lossy());
    strip_parameters(&demangled).to_string()
}

fn strip_parameters(demangled: &str) -> &str {
    // The parameter list is the last top-level parenthesised group; templates and
    // operator names may contain parentheses, so scan from the end.
    let trimmed = demangled.trim_end_matches(" const");
    if !trimmed.ends_with(')') {
        return demangled;
    }
    let mut depth = 0;
    for (i, c) in trimmed.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    return &trimmed[..i];
                }
            }
            _ => {}
        }
    }
    demangled
}

/// Two overloads `f(int)` and `f(double)` would both display as `f`; give their sites
/// the full signature so keys stay unique and stable.
fn disambiguate_overloads(found: &mut [FoundSite<'_>]) {
    let mut mangled_by_display: HashMap<String, std::collections::BTreeSet<String>> =
        HashMap::new();
    for f in found.iter() {
        let parent = f
            .inst
            .get_parent()
            .and_then(|b| b.get_parent())
            .expect("instruction in a function");
        mangled_by_display
            .entry(f.site.function.clone())
            .or_default()
            .insert(parent.get_name().to_string_lossy().into_owned());
    }
    for f in found.iter_mut() {
        if mangled_by_display[&f.site.function].len() > 1 {
            let parent = f
                .inst
                .get_parent()
                .and_then(|b| b.get_parent())
                .expect("instruction in a function");
            let full = api::demangle(&parent.get_name().to_string_lossy());
            let ordinal = f.site.key.rsplit('#').next().unwrap_or("1").to_string();
            f.site.key = format!("{full}#{ordinal}");
            f.site.function = full;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::strip_parameters;

    #[test]
    fn parameters_are_stripped_from_display_names() {
        assert_eq!(strip_parameters("top::t1()"), "top::t1");
        assert_eq!(strip_parameters("producer"), "producer");
        assert_eq!(strip_parameters("ns::f(int (*)(int))"), "ns::f");
        assert_eq!(strip_parameters("a::b() const"), "a::b");
        assert_eq!(strip_parameters("x<y(int)>::run(int)"), "x<y(int)>::run");
    }
}
