//! A project's own synchronization functions (`[[sync]]` in `syncmut.toml`): a threading
//! layer such as `possess(lock)`, `release(lock)`, `wait_for(lock, …)` whose bodies call
//! pthread. Declared, a call of such a function is a site at the caller's line, so a
//! mutant changes one call of the program and `explain` names the caller; the calls
//! inside the function's body stay sites (the scheduler needs them as scheduling
//! points, the trace records them) but get no mutants.
//!
//! A declared call is rewritten to a trampoline defined in the design's module:
//!
//! ```text
//! ret @"syncmut.user.<mangled>"(i32 site, args...) {
//!   if (gate(site, "remove") == 1) return 0;   // removed: nothing happens
//!   return original(args...);
//! }
//! ```
//! The gate (`syncmut_user_gate` for pthread designs, the SystemC runtime's
//! `syncmut_gate`) records the caller's event and answers which operator is active.
//! Only `remove` applies: the primitive's other operators (lock to trylock, signal to
//! broadcast, …) change the primitive itself, which the caller's call does not reach.

use crate::effect::{Blocking, Effect, When};
use crate::error::{MutatorError, Result};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::values::{AsValueRef, BasicValueEnum, FunctionValue};
use serde::{Deserialize, Serialize};

pub(crate) use crate::user_gate::{OPERATORS, PTHREAD_GATE};

/// The SystemC runtime's gate (systemc_wrappers.cpp), shared with fifo trampolines.
pub(crate) const SYSTEMC_GATE: &str = crate::trampoline::GATE_SYMBOL;

/// One declared function: `[[sync]] function = "possess", acts_as = "lock", argument = 0`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserSync {
    /// The function's name (C) or qualified name without parameters (C++).
    pub function: String,
    /// The primitive it acts as.
    pub acts_as: ActsAs,
    /// Which of its arguments is the synchronization object (0-based).
    #[serde(default)]
    pub argument: u32,
}

/// The primitives a declared function may act as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ActsAs {
    /// Takes the object as a lock.
    Lock,
    /// Releases the object as a lock.
    Unlock,
    /// Waits on the object as a condition (its mutex hidden by the wrapper).
    Wait,
    /// Wakes one waiter of the object.
    Signal,
    /// Wakes every waiter of the object.
    Broadcast,
    /// Waits for the thread the object names to end.
    Join,
    /// Notifies the object as a SystemC event, at once.
    Notify,
}

impl ActsAs {
    /// What a call does, its object being argument `argument` (a wait's mutex is taken
    /// to be the same object: a wrapper hides it).
    pub(crate) fn effect(self, argument: u32) -> Effect {
        match self {
            ActsAs::Lock => Effect::Lock {
                lock: argument,
                blocking: Blocking::Waits,
            },
            ActsAs::Unlock => Effect::Unlock { lock: argument },
            ActsAs::Wait => Effect::CondWait {
                cond: argument,
                mutex: argument,
                timed: false,
            },
            ActsAs::Signal => Effect::CondSignal {
                cond: argument,
                all: false,
            },
            ActsAs::Broadcast => Effect::CondSignal {
                cond: argument,
                all: true,
            },
            ActsAs::Join => Effect::Join { thread: argument },
            ActsAs::Notify => Effect::Notify {
                event: argument,
                when: When::Immediate,
            },
        }
    }

    /// The primitive a recognised call's effect stands for, for `list --suggest`.
    pub(crate) fn of(effect: &Effect) -> Option<(ActsAs, u32)> {
        Some(match *effect {
            Effect::Lock { lock, .. } => (ActsAs::Lock, lock),
            Effect::Unlock { lock } => (ActsAs::Unlock, lock),
            Effect::CondWait { cond, .. } => (ActsAs::Wait, cond),
            Effect::CondSignal { cond, all: false } => (ActsAs::Signal, cond),
            Effect::CondSignal { cond, all: true } => (ActsAs::Broadcast, cond),
            Effect::Join { thread } => (ActsAs::Join, thread),
            Effect::Notify { event, .. } => (ActsAs::Notify, event),
            _ => return None,
        })
    }

    /// The `acts_as` spelling of `syncmut.toml` (`lock`, `wait`, …).
    pub fn name(self) -> &'static str {
        match self {
            ActsAs::Lock => "lock",
            ActsAs::Unlock => "unlock",
            ActsAs::Wait => "wait",
            ActsAs::Signal => "signal",
            ActsAs::Broadcast => "broadcast",
            ActsAs::Join => "join",
            ActsAs::Notify => "notify",
        }
    }
}

/// Whether a function (its demangled name) is the declared one: the same name, or the
/// same once the parameter list is dropped.
pub(crate) fn declared<'a>(
    declarations: &'a [UserSync],
    demangled: &str,
    without_parameters: &str,
) -> Option<&'a UserSync> {
    declarations
        .iter()
        .find(|d| d.function == demangled || d.function == without_parameters)
}

/// Defines the trampoline `name` around `original` (see the module comment).
pub(crate) fn define_trampoline<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    name: &str,
    original: FunctionValue<'ctx>,
    gate_symbol: &str,
) -> Result<FunctionValue<'ctx>> {
    if let Some(existing) = module.get_function(name) {
        return Ok(existing);
    }
    let err = |what: String| MutatorError::Verify(format!("trampoline {name}: {what}"));
    if original.get_type().is_var_arg() {
        return Err(err(
            "a function with a variable argument list cannot be declared as synchronization"
                .to_string(),
        ));
    }
    let i32_type = context.i32_type();
    let return_type = original.get_type().get_return_type();
    let (function, gate) = crate::trampoline::declare(context, module, name, original, gate_symbol);
    let builder = context.create_builder();
    let entry = context.append_basic_block(function, "entry");
    let original_bb = context.append_basic_block(function, "original");
    let removed_bb = context.append_basic_block(function, "removed");
    builder.position_at_end(entry);
    let decision = crate::trampoline::ask_gate(&builder, gate, function, OPERATORS).map_err(err)?;
    let removed = i32_type.const_int(1, false);
    builder
        .build_switch(decision, original_bb, &[(removed, removed_bb)])
        .map_err(|e| err(e.to_string()))?;

    builder.position_at_end(original_bb);
    let args: Vec<BasicValueEnum> = function.get_param_iter().skip(1).collect();
    crate::trampoline::return_call(&builder, original, &args).map_err(err)?;

    // Removed: nothing happens and the call reports success (0, null or a zero value).
    builder.position_at_end(removed_bb);
    match return_type {
        None => builder.build_return(None),
        Some(t) => builder.build_return(Some(&t.const_zero())),
    }
    .map_err(|e| err(e.to_string()))?;
    Ok(function)
}

/// A proposed declaration (`list --suggest`): a small function whose body is
/// essentially one synchronization call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suggestion {
    /// Demangled name of the proposed function.
    pub function: String,
    /// The primitive its call is.
    pub acts_as: ActsAs,
    /// The function's parameter the call's object comes from (0 when it cannot be told).
    pub argument: u32,
    /// The synchronization call inside, its file and line.
    pub call: String,
    /// Source file of the call.
    pub file: String,
    /// Source line of the call.
    pub line: u32,
}

/// Most instructions (debug intrinsics aside) a function may have to be proposed: a
/// call, its argument's address computation and an error check.
const SMALL_BODY: usize = 40;

/// Proposes declarations: every function other than `main`/`sc_main` with exactly one
/// synchronization site (one with operators, so not declared already) in a body of at
/// most [`SMALL_BODY`] instructions.
pub(crate) fn suggest(found: &[crate::found_site::FoundSite<'_>]) -> Vec<Suggestion> {
    use std::collections::BTreeMap;
    let mut by_function: BTreeMap<String, Vec<&crate::found_site::FoundSite<'_>>> = BTreeMap::new();
    for f in found {
        if let Some(function) = f.inst.get_parent().and_then(|b| b.get_parent()) {
            by_function
                .entry(function.get_name().to_string_lossy().into_owned())
                .or_default()
                .push(f);
        }
    }
    let mut suggestions = Vec::new();
    for (name, sites) in by_function {
        let [site] = sites.as_slice() else { continue };
        let Some(function) = site.inst.get_parent().and_then(|b| b.get_parent()) else {
            continue;
        };
        if matches!(name.as_str(), "main" | "sc_main")
            || site.site.operators.is_empty()
            || body_size(function) > SMALL_BODY
        {
            continue;
        }
        let Some((acts_as, object)) = site.site.effect.as_ref().and_then(ActsAs::of) else {
            continue;
        };
        let argument = crate::ir::call_arguments(site.inst)
            .get(object as usize)
            .and_then(|v| crate::ir::parameter_of(function, v.as_value_ref(), 8))
            .unwrap_or(0);
        suggestions.push(Suggestion {
            function: site.site.function.clone(),
            acts_as,
            argument,
            call: site.site.call.clone(),
            file: site.site.file.clone(),
            line: site.site.line,
        });
    }
    suggestions
}

fn body_size(function: FunctionValue<'_>) -> usize {
    crate::ir::instructions(&function)
        .filter(|i| {
            !(crate::ir::is_call_like(*i)
                && crate::ir::called_function(*i)
                    .is_some_and(|f| f.get_name().to_string_lossy().starts_with("llvm.dbg.")))
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_read_from_toml_and_map_to_effects() {
        #[derive(Deserialize)]
        struct File {
            sync: Vec<UserSync>,
        }
        let file: File = toml::from_str("[[sync]]\nfunction = \"possess\"\nacts_as = \"lock\"\n[[sync]]\nfunction = \"twist\"\nacts_as = \"broadcast\"\nargument = 1\n").unwrap();
        assert_eq!(
            file.sync[0],
            UserSync {
                function: "possess".into(),
                acts_as: ActsAs::Lock,
                argument: 0
            }
        );
        assert_eq!(
            file.sync[1].acts_as.effect(file.sync[1].argument),
            Effect::CondSignal { cond: 1, all: true }
        );
        assert!(
            toml::from_str::<File>("[[sync]]\nfunction = \"f\"\nacts_as = \"spin\"\n").is_err()
        );
        for acts in [
            ActsAs::Lock,
            ActsAs::Unlock,
            ActsAs::Wait,
            ActsAs::Signal,
            ActsAs::Broadcast,
            ActsAs::Join,
            ActsAs::Notify,
        ] {
            assert_eq!(
                ActsAs::of(&acts.effect(2)),
                Some((acts, 2)),
                "{}",
                acts.name()
            );
        }
    }
}
