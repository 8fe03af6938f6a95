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
//!
//! An atomic function whose assumption fails (`__VERIFIER_assume(c)`, or `abort()`, SV-COMP's
//! way to discard a path) blocks in a model checker: `assume(m == 0); m = 1;` is the
//! benchmarks' blocking acquire. So the function's entry hook is
//! `syncmut_atomic_function_begin`; before each instruction another thread could see (a
//! store to anything but a local that does not escape, an atomic instruction or fence, a
//! call other than debug markers and nondet draws) goes a call to `syncmut_atomic_acted`;
//! and before each `abort()` and `__VERIFIER_assume(c)` (declared, not defined by the
//! program) a call to `syncmut_atomic_park_unless(c)`. When the condition fails while the
//! section has done nothing visible, the runtime parks the thread instead of ending the
//! run: the section did not happen, and the other threads go on.
//!
//! Elsewhere in a program that follows SV-COMP's conventions (it names a `__VERIFIER_*`
//! function or an error function), each `abort()` outside the atomic and error functions
//! gets a call to `syncmut_discard_point` before it: a scheduling point at which the
//! thread lets the others go first, as `__VERIFIER_assume` does when it fails.

use crate::error::{MutatorError, Result};
use crate::error_calls::ERROR_FUNCTIONS;
use crate::ir;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::values::{
    AsValueRef, BasicMetadataValueEnum, BasicValueEnum, FunctionValue, InstructionOpcode,
    InstructionValue,
};

const PREFIX: &str = "__VERIFIER_atomic_";
const BEGIN_HOOK: &str = "syncmut_atomic_section_begin";
const FUNCTION_BEGIN_HOOK: &str = "syncmut_atomic_function_begin";
const END_HOOK: &str = "syncmut_atomic_section_end";
const ACTED_HOOK: &str = "syncmut_atomic_acted";
const PARK_HOOK: &str = "syncmut_atomic_park_unless";
const DISCARD_HOOK: &str = "syncmut_discard_point";

/// What an atomic function's instruction means for parking its thread.
enum Effect<'ctx> {
    /// Nothing another thread could see.
    None,
    /// Something another thread could see: the section can no longer be undone.
    Visible,
    /// A failed assumption when this `i32` condition is 0 (`abort()`: always).
    Assumption(Option<BasicValueEnum<'ctx>>),
}

/// The effect of `inst`, an instruction of an atomic function.
fn effect(inst: InstructionValue<'_>) -> Effect<'_> {
    let accesses = ir::memory_accesses(inst);
    if !accesses.is_empty() {
        let visible = accesses.iter().any(|a| {
            a.atomic
                || (a.write
                    && !matches!(
                        ir::pointer_root(a.address),
                        ir::PointerRoot::Alloca { escapes: false }
                    ))
        });
        return if visible {
            Effect::Visible
        } else {
            Effect::None
        };
    }
    if inst.get_opcode() == InstructionOpcode::Fence {
        return Effect::Visible;
    }
    if !ir::is_call_like(inst) {
        return Effect::None;
    }
    let Some(callee) = ir::called_function(inst) else {
        return Effect::Visible;
    };
    let name = callee.get_name().to_string_lossy();
    let defined = callee.count_basic_blocks() > 0;
    if name.starts_with("llvm.dbg.")
        || name.starts_with("llvm.lifetime.")
        || name.starts_with("__VERIFIER_nondet_")
    {
        return Effect::None;
    }
    match (name.as_ref(), defined) {
        ("abort", false) => Effect::Assumption(None),
        ("__VERIFIER_assume", false) => match ir::call_arguments(inst).first() {
            Some(c @ BasicValueEnum::IntValue(v)) if v.get_type().get_bit_width() == 32 => {
                Effect::Assumption(Some(*c))
            }
            _ => Effect::Visible,
        },
        _ => Effect::Visible,
    }
}

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
    let (function_begin, acted) = (hook(FUNCTION_BEGIN_HOOK), hook(ACTED_HOOK));
    let park = module.get_function(PARK_HOOK).unwrap_or_else(|| {
        let park_type = context
            .void_type()
            .fn_type(&[context.i32_type().into()], false);
        module.add_function(PARK_HOOK, park_type, Some(Linkage::External))
    });
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
        let insert = |at: InstructionValue<'ctx>,
                      hook: FunctionValue<'ctx>,
                      args: &[BasicMetadataValueEnum<'ctx>]|
         -> Result<()> {
            builder.position_before(&at);
            let call = builder
                .build_call(hook, args, "")
                .map_err(|e| MutatorError::Verify(format!("atomic function {name}: {e}")))?;
            // SAFETY: a call site value is an instruction.
            ir::copy_debug_location(at, unsafe { InstructionValue::new(call.as_value_ref()) });
            Ok(())
        };
        match name.strip_prefix(PREFIX) {
            Some("begin") => insert(first, begin, &[])?,
            Some("end") => insert(first, end, &[])?,
            _ => {
                let returns: Vec<InstructionValue<'ctx>> = function
                    .get_basic_blocks()
                    .into_iter()
                    .filter_map(|b| b.get_terminator())
                    .filter(|t| t.get_opcode() == InstructionOpcode::Return)
                    .collect();
                let effects: Vec<(InstructionValue<'ctx>, Effect<'ctx>)> =
                    ir::instructions(&function)
                        .map(|inst| (inst, effect(inst)))
                        .collect();
                for (inst, effect) in effects {
                    match effect {
                        Effect::None => {}
                        Effect::Visible => insert(inst, acted, &[])?,
                        Effect::Assumption(condition) => {
                            let condition =
                                condition.unwrap_or_else(|| context.i32_type().const_zero().into());
                            insert(inst, park, &[condition.into()])?;
                        }
                    }
                }
                insert(first, function_begin, &[])?;
                for ret in returns {
                    insert(ret, end, &[])?;
                }
            }
        }
        changed.push(name);
    }
    Ok(changed)
}

/// Puts a discard point before every `abort()` outside the atomic and error functions of
/// a program that follows SV-COMP's conventions.
pub fn discard_points<'ctx>(context: &'ctx Context, module: &Module<'ctx>) -> Result<()> {
    let conventions = module.get_functions().any(|f| {
        let name = f.get_name().to_string_lossy();
        name.starts_with("__VERIFIER_") || ERROR_FUNCTIONS.contains(&name.as_ref())
    });
    if !conventions {
        return Ok(());
    }
    let aborts: Vec<InstructionValue<'ctx>> = module
        .get_functions()
        .filter(|f| {
            let name = f.get_name().to_string_lossy();
            f.count_basic_blocks() > 0
                && !name.starts_with(PREFIX)
                && !ERROR_FUNCTIONS.contains(&name.as_ref())
        })
        .flat_map(|f| ir::direct_calls(&f).collect::<Vec<_>>())
        .filter(|(_, callee)| {
            callee.get_name().to_bytes() == b"abort" && callee.count_basic_blocks() == 0
        })
        .map(|(call, _)| call)
        .collect();
    if aborts.is_empty() {
        return Ok(());
    }
    let hook = module.get_function(DISCARD_HOOK).unwrap_or_else(|| {
        let hook_type = context.void_type().fn_type(&[], false);
        module.add_function(DISCARD_HOOK, hook_type, Some(Linkage::External))
    });
    let builder = context.create_builder();
    for at in &aborts {
        builder.position_before(at);
        let call = builder
            .build_call(hook, &[], "")
            .map_err(|e| MutatorError::Verify(format!("discard point: {e}")))?;
        // SAFETY: a call site value is an instruction.
        ir::copy_debug_location(*at, unsafe { InstructionValue::new(call.as_value_ref()) });
    }
    Ok(())
}
