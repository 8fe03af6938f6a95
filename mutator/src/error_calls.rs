//! SV-COMP's error functions: reaching a call of `reach_error()` (or the older
//! `__VERIFIER_error()`) is what the property `unreach-call` forbids, whatever the
//! function's body does (an `assert(0)`, `__assert_fail`, or nothing at all).
//!
//! The metamutant of a pthread design gets, before every direct call of either function,
//! a call to the runtime's `syncmut_error_call(where)` (runtime-lib/src/verifier.c), where
//! `where` names the call: `file:line:col in caller calls callee`. The runtime writes it on
//! stderr, so `explore` knows the error location was reached and where, which a violation
//! witness must name; the abort inside the body only says which function aborted.

use crate::error::{MutatorError, Result};
use crate::ir;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::values::{AsValueRef, InstructionValue};
use std::path::Path;

/// The functions whose call is the error location.
pub const ERROR_FUNCTIONS: [&str; 2] = ["reach_error", "__VERIFIER_error"];
const HOOK: &str = "syncmut_error_call";

/// Puts the hook before every direct call of an error function; returns how many calls
/// it marked. Locations are named relative to `root`.
pub fn instrument<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    root: &Path,
) -> Result<usize> {
    let mut calls: Vec<(InstructionValue<'ctx>, String)> = Vec::new();
    for function in module.get_functions() {
        let caller = function.get_name().to_string_lossy().into_owned();
        for (inst, callee) in ir::direct_calls(&function) {
            let callee = callee.get_name().to_string_lossy().into_owned();
            if !ERROR_FUNCTIONS.contains(&callee.as_str()) {
                continue;
            }
            let place = match ir::debug_location(inst) {
                Some(at) => format!(
                    "{}:{}:{}",
                    crate::source::relative_to(root, &at.path.to_string_lossy()),
                    at.line,
                    at.col
                ),
                None => "?:0:0".to_string(),
            };
            calls.push((inst, format!("{place} in {caller} calls {callee}")));
        }
    }
    if calls.is_empty() {
        return Ok(0);
    }
    let ptr = context.ptr_type(inkwell::AddressSpace::default());
    let hook_type = context.void_type().fn_type(&[ptr.into()], false);
    let hook = module
        .get_function(HOOK)
        .unwrap_or_else(|| module.add_function(HOOK, hook_type, Some(Linkage::External)));
    let builder = context.create_builder();
    for (inst, place) in &calls {
        builder.position_before(inst);
        let text = builder
            .build_global_string_ptr(place, "syncmut.error_call")
            .map_err(|e| MutatorError::Verify(format!("error call {place}: {e}")))?;
        let call = builder
            .build_call(hook, &[text.as_pointer_value().into()], "")
            .map_err(|e| MutatorError::Verify(format!("error call {place}: {e}")))?;
        // SAFETY: a call site value is an instruction.
        ir::copy_debug_location(*inst, unsafe { InstructionValue::new(call.as_value_ref()) });
    }
    Ok(calls.len())
}
