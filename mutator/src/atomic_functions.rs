//! SV-COMP's atomic functions: by the benchmarks' convention a function whose name
//! starts with `__VERIFIER_atomic_` runs as one indivisible step, and a program may
//! define `__VERIFIER_atomic_begin`/`__VERIFIER_atomic_end` itself (often with an empty
//! body, for other tools) and still mean an atomic section between the two calls.
//!
//! The metamutant of a pthread design gets, in every such function with a body, a call
//! to the runtime's `syncmut_atomic_section_begin` at entry and one to
//! `syncmut_atomic_section_end` before each return (runtime-lib/src/verifier.c); in a
//! program's own `__VERIFIER_atomic_begin`/`_end`, only the one the name says. The
//! controlled scheduler then never switches threads inside, also under
//! `--interleave memory`, where the function's loads and stores are scheduling points.

use crate::error::{MutatorError, Result};
use crate::ir;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::values::{AsValueRef, FunctionValue, InstructionOpcode, InstructionValue};

const PREFIX: &str = "__VERIFIER_atomic_";
const BEGIN_HOOK: &str = "syncmut_atomic_section_begin";
const END_HOOK: &str = "syncmut_atomic_section_end";

/// Makes every atomic function of the design atomic under the scheduler; returns the
/// names of the functions changed.
pub fn instrument<'ctx>(context: &'ctx Context, module: &Module<'ctx>) -> Result<Vec<String>> {
    let functions: Vec<FunctionValue<'ctx>> = module
        .get_functions()
        .filter(|f| {
            f.count_basic_blocks() > 0 && f.get_name().to_string_lossy().starts_with(PREFIX)
        })
        .collect();
    if functions.is_empty() {
        return Ok(Vec::new());
    }
    let hook_type = context.void_type().fn_type(&[], false);
    let hook = |name: &str| {
        module
            .get_function(name)
            .unwrap_or_else(|| module.add_function(name, hook_type, Some(Linkage::External)))
    };
    let (begin, end) = (hook(BEGIN_HOOK), hook(END_HOOK));
    let builder = context.create_builder();
    let mut changed = Vec::new();
    for function in functions {
        let name = function.get_name().to_string_lossy().into_owned();
        let Some(first) = function
            .get_first_basic_block()
            .and_then(|b| b.get_first_instruction())
        else {
            continue;
        };
        let insert = |at: InstructionValue<'ctx>, hook: FunctionValue<'ctx>| -> Result<()> {
            builder.position_before(&at);
            let call = builder
                .build_call(hook, &[], "")
                .map_err(|e| MutatorError::Verify(format!("atomic function {name}: {e}")))?;
            // SAFETY: a call site value is an instruction.
            ir::copy_debug_location(at, unsafe { InstructionValue::new(call.as_value_ref()) });
            Ok(())
        };
        match name.strip_prefix(PREFIX) {
            Some("begin") => insert(first, begin)?,
            Some("end") => insert(first, end)?,
            _ => {
                let returns: Vec<InstructionValue<'ctx>> = function
                    .get_basic_blocks()
                    .into_iter()
                    .filter_map(|b| b.get_terminator())
                    .filter(|t| t.get_opcode() == InstructionOpcode::Return)
                    .collect();
                insert(first, begin)?;
                for ret in returns {
                    insert(ret, end)?;
                }
            }
        }
        changed.push(name);
    }
    Ok(changed)
}
