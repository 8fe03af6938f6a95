//! Mutants that are the original by construction, and so are never generated.
//!
//! Such a mutant can only survive: it lowers the score and its report row teaches the user
//! nothing. The rules (docs/operators.md, "Mutants never generated") look at the call's
//! time argument as the IR passes it, which for the common spellings is a constant at the
//! call site:
//!
//! - `notify-delta` on `notify(t)` / `notify(v, unit)` with a zero time: a zero-time
//!   notification already is a delta notification;
//! - `time-double` on a wait or `next_trigger` with a zero time: twice zero is zero;
//! - `time-zero` on a wait or `next_trigger` with a zero time: it already is
//!   `SC_ZERO_TIME`.
//!
//! A time is zero when it is the constant `0.0` (`wait(0, SC_NS)`), the library's
//! `sc_core::SC_ZERO_TIME`, or a temporary built right there by `sc_time()` or
//! `sc_time(0.0, unit)` and used by nothing else. A time computed at run time (a variable,
//! a member) is not looked into: those mutants are generated, and a test decides.

use crate::api::{self, SyncApi};
use crate::effect::{Effect, Until};
use crate::ir;
use crate::operator::Operator;
use inkwell::values::{
    AnyValueEnum, AsValueRef, BasicValue, BasicValueEnum, InstructionOpcode, InstructionValue,
};

/// The operators of `api` that would leave this call as it is, each with why.
pub fn identical_operators(
    api: &SyncApi,
    inst: InstructionValue<'_>,
) -> Vec<(Operator, &'static str)> {
    let Some(position) = time_argument(api) else {
        return Vec::new();
    };
    let Some(argument) = ir::call_arguments(inst).get(position).copied() else {
        return Vec::new();
    };
    if !is_zero_time(argument, inst) {
        return Vec::new();
    }
    let mut identical = Vec::new();
    for op in &api.operators {
        let why = match (op, api.effect) {
            (Operator::NotifyDelta, Effect::Notify { .. }) => {
                "a zero-time notification already is a delta notification"
            }
            (Operator::TimeDouble, Effect::Wait { .. } | Effect::NextTrigger { .. }) => {
                "twice a zero time is zero"
            }
            (Operator::TimeZero, Effect::Wait { .. } | Effect::NextTrigger { .. }) => {
                "the time already is SC_ZERO_TIME"
            }
            _ => continue,
        };
        identical.push((*op, why));
    }
    identical
}

/// The IR argument position of the call's time, for the APIs that take one as their
/// first parameter: `notify(t)`, `notify(v, unit)`, and the timed `wait`/`next_trigger`
/// overloads (member forms after the object).
fn time_argument(api: &SyncApi) -> Option<usize> {
    let timed = match api.effect {
        Effect::Notify { .. } => api.signature.starts_with("sc_core::sc_event::notify("),
        Effect::Wait { until } | Effect::NextTrigger { until } => {
            matches!(until, Until::Time | Until::TimeOrEvents { .. })
        }
        _ => false,
    };
    let params = api.signature.split_once('(')?.1;
    if !timed || !(params.starts_with("sc_core::sc_time const&") || params.starts_with("double")) {
        return None;
    }
    let free_function = api.signature.starts_with("sc_core::wait(")
        || api.signature.starts_with("sc_core::next_trigger(");
    Some(if free_function { 0 } else { 1 })
}

/// Whether the time argument `value` of `call` is zero, by the rules in the module's
/// comment.
fn is_zero_time(value: BasicValueEnum<'_>, call: InstructionValue<'_>) -> bool {
    match value {
        BasicValueEnum::FloatValue(v) => v.get_constant().is_some_and(|(x, _)| x == 0.0),
        BasicValueEnum::PointerValue(p) => {
            match p.as_instruction_value() {
                Some(slot) => zero_temporary(slot, call),
                // A global (or another constant): the library's zero time, by name.
                None => api::demangle(&p.get_name().to_string_lossy()) == "sc_core::SC_ZERO_TIME",
            }
        }
        _ => false,
    }
}

/// A stack slot whose every use is one zero `sc_time` constructor, `call` itself, or a
/// lifetime marker: a temporary `sc_time()` / `sc_time(0.0, unit)`.
fn zero_temporary(slot: InstructionValue<'_>, call: InstructionValue<'_>) -> bool {
    if slot.get_opcode() != InstructionOpcode::Alloca {
        return false;
    }
    let mut zero_constructors = 0;
    let mut next = slot.get_first_use();
    while let Some(u) = next {
        next = u.get_next_use();
        let AnyValueEnum::InstructionValue(user) = u.get_user() else {
            return false;
        };
        if user == call {
            continue;
        }
        if !ir::is_call_like(user) {
            return false;
        }
        let Some(callee) = ir::called_function(user) else {
            return false;
        };
        let name = api::demangle(&callee.get_name().to_string_lossy());
        let arguments = ir::call_arguments(user);
        if name.starts_with("llvm.lifetime.") {
            continue;
        }
        let is_this = arguments
            .first()
            .is_some_and(|a| a.as_value_ref() == slot.as_value_ref());
        let zero = match name.as_str() {
            "sc_core::sc_time::sc_time()" => true,
            "sc_core::sc_time::sc_time(double, sc_core::sc_time_unit)" => {
                matches!(arguments.get(1), Some(BasicValueEnum::FloatValue(v)) if v.get_constant().is_some_and(|(x, _)| x == 0.0))
            }
            _ => false,
        };
        if !(is_this && zero) {
            return false;
        }
        zero_constructors += 1;
    }
    zero_constructors == 1
}
