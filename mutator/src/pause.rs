//! x86's spin-wait hint, `_mm_pause()` (`llvm.x86.sse2.pause`), becomes a call of
//! `sched_yield`, which the runtime makes a scheduling point (runtime-lib/src/waiting.c).
//!
//! Lock-free code waits with a loop of atomic loads and `pause`: at sync level neither is
//! a scheduling point, so under the controlled scheduler the spinning thread keeps the
//! baton, the thread it waits for never runs, and the run hangs until its timeout before
//! explore goes to memory level. Natively `pause` only slows the loop down; yielding there
//! lets the other threads run, as the hint intends, in every build syncmut schedules.

use crate::error::{MutatorError, Result};
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::values::{BasicValue, InstructionValue, ValueKind};

const PAUSE: &str = "llvm.x86.sse2.pause";

/// Whether the call sits in a system header: the standard library's own spins (libstdc++'s
/// atomic waits relax with `pause` before they block) belong to primitives the runtime
/// models as a whole; a yield inside them would let the waiter spin until the value it
/// waits for arrives and hide the blocked wait a missing notify leaves.
fn in_system_header(inst: InstructionValue<'_>) -> bool {
    crate::ir::debug_location(inst).is_some_and(|at| crate::source::is_system_path(&at.path))
}

/// Replaces every call of the pause intrinsic in the user's code with one of
/// `sched_yield`; returns how many.
pub(crate) fn yield_at_pause<'ctx>(context: &'ctx Context, module: &Module<'ctx>) -> Result<usize> {
    let Some(pause) = module.get_function(PAUSE) else {
        return Ok(0);
    };
    let calls: Vec<InstructionValue<'ctx>> = module
        .get_functions()
        .flat_map(|function| crate::ir::direct_calls(&function).collect::<Vec<_>>())
        .filter(|(call, callee)| *callee == pause && !in_system_header(*call))
        .map(|(call, _)| call)
        .collect();
    let sched_yield = module.get_function("sched_yield").unwrap_or_else(|| {
        module.add_function(
            "sched_yield",
            context.i32_type().fn_type(&[], false),
            Some(Linkage::External),
        )
    });
    let builder = context.create_builder();
    for call in &calls {
        builder.position_before(call);
        let yielded = builder
            .build_call(sched_yield, &[], "")
            .map_err(|e| MutatorError::Verify(format!("pause: {e}")))?;
        let new = match yielded.try_as_basic_value() {
            ValueKind::Basic(value) => value.as_instruction_value(),
            ValueKind::Instruction(inst) => Some(inst),
        };
        if let Some(new) = new {
            crate::ir::copy_debug_location(*call, new);
        }
        call.erase_from_basic_block();
    }
    Ok(calls.len())
}
