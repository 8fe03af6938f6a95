//! Trampolines for the C++20 primitives (`api::Rewrite::StdTrampoline`).
//!
//! libstdc++'s `std::counting_semaphore`, `std::latch`, `std::barrier` and
//! `std::atomic<T>::wait`/`notify_*` are header templates: no precompiled wrapper can
//! stand for them. Each callee gets, in the design's module:
//!
//! ```text
//! ret @"syncmut.std.<mangled>"(i32 site, args...) {
//!   switch (syncmut_user_gate(site, "remove,signal-to-broadcast,…")) {
//!     0: return original(args...);
//!     remove: return done;                         // true for a bool, else zero
//!     signal-to-broadcast: return original(this, true);   // the `bool all` argument
//!     semaphore-count-up: return original(this, count + 1);
//!     …
//!   }
//! }
//! ```
//! The library's own code then runs, and its waits are the scheduler's
//! (`api::library_call`). The gate records the site's event.

use crate::api::Change;
use crate::error::{MutatorError, Result};
use crate::operator::Operator;
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValueEnum, FunctionValue};

/// Defines the trampoline `name` around `original` for the operators in `changes`.
pub fn define<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    name: &str,
    original: FunctionValue<'ctx>,
    changes: &[(Operator, Change)],
) -> Result<FunctionValue<'ctx>> {
    if let Some(existing) = module.get_function(name) {
        return Ok(existing);
    }
    let err = |what: String| MutatorError::Verify(format!("trampoline {name}: {what}"));
    let operators: Vec<Operator> = changes.iter().map(|(op, _)| *op).collect();
    let (function, gate) = crate::trampoline::declare(
        context,
        module,
        name,
        original,
        crate::user_gate::PTHREAD_GATE,
    );
    let builder = context.create_builder();
    let entry = context.append_basic_block(function, "entry");
    let original_bb = context.append_basic_block(function, "original");
    builder.position_at_end(entry);
    let decision =
        crate::trampoline::ask_gate(&builder, gate, function, &operators).map_err(err)?;
    let blocks: Vec<_> = changes
        .iter()
        .map(|(op, _)| context.append_basic_block(function, op.slug()))
        .collect();
    let i32_type = context.i32_type();
    let cases: Vec<_> = blocks
        .iter()
        .enumerate()
        .map(|(i, bb)| (i32_type.const_int(i as u64 + 1, false), *bb))
        .collect();
    builder
        .build_switch(decision, original_bb, &cases)
        .map_err(|e| err(e.to_string()))?;

    let args: Vec<BasicValueEnum> = function.get_param_iter().skip(1).collect();
    let call_with = |args: &[BasicValueEnum<'ctx>]| -> Result<()> {
        crate::trampoline::return_call(&builder, original, args).map_err(err)
    };
    builder.position_at_end(original_bb);
    call_with(&args)?;
    for ((_, change), bb) in changes.iter().zip(&blocks) {
        builder.position_at_end(*bb);
        match *change {
            Change::Skip => {
                let done = match original.get_type().get_return_type() {
                    None => None,
                    Some(BasicTypeEnum::IntType(t)) if t.get_bit_width() == 1 => {
                        Some(t.const_int(1, false).into())
                    }
                    Some(t) => Some(t.const_zero()),
                };
                match done {
                    None => builder.build_return(None),
                    Some(value) => {
                        builder.build_return(Some(&value as &dyn inkwell::values::BasicValue))
                    }
                }
                .map_err(|e| err(e.to_string()))?;
            }
            Change::SetFlag { argument, value } => {
                let mut changed = args.clone();
                let slot = changed
                    .get_mut(argument as usize)
                    .ok_or_else(|| err(format!("no argument {argument}")))?;
                let flag = slot
                    .into_int_value()
                    .get_type()
                    .const_int(u64::from(value), false);
                *slot = flag.into();
                call_with(&changed)?;
            }
            Change::Add { argument, by } => {
                let mut changed = args.clone();
                let slot = changed
                    .get_mut(argument as usize)
                    .ok_or_else(|| err(format!("no argument {argument}")))?;
                let value = slot.into_int_value();
                let delta = value.get_type().const_int(by as u64, true);
                *slot = builder
                    .build_int_add(value, delta, "count")
                    .map_err(|e| err(e.to_string()))?
                    .into();
                call_with(&changed)?;
            }
        }
    }
    Ok(function)
}
