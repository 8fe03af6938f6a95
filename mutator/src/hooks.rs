//! Thread hooks: `pthread_create` and `pthread_exit` are not mutated, but the runtime's
//! controlled scheduler must see every thread start and end. Their calls are rewritten
//! to runtime hooks wherever they appear (user code or not: a thread the scheduler does
//! not know about would run uncontrolled).
//!
//! - `pthread_create(t, attr, fn, arg)` → `syncmut_hook_pthread_create(name, t, attr, fn, arg)`
//!   where `name` is the start routine's demangled name (or `?` for a function pointer
//!   computed at run time), so traces can name threads by what they run.
//! - `pthread_exit(v)` → `syncmut_hook_pthread_exit(v)`.

use crate::error::{MutatorError, Result};
use crate::rewrite::replace_call;
use crate::{api, ir};
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::BasicMetadataTypeEnum;
use inkwell::values::{BasicValue, BasicValueEnum, FunctionValue, InstructionValue};
use inkwell::AddressSpace;

pub const CREATE_HOOK: &str = "syncmut_hook_pthread_create";
pub const EXIT_HOOK: &str = "syncmut_hook_pthread_exit";

/// Rewrites every direct call of `pthread_create`/`pthread_exit`; returns how many.
pub fn rewrite_thread_hooks<'ctx>(context: &'ctx Context, module: &Module<'ctx>, builder: &Builder<'ctx>) -> Result<usize> {
    let mut calls: Vec<(InstructionValue<'ctx>, FunctionValue<'ctx>)> = Vec::new();
    for function in module.get_functions() {
        for block in function.get_basic_blocks() {
            let mut next = block.get_first_instruction();
            while let Some(inst) = next {
                next = inst.get_next_instruction();
                if !ir::is_call_like(inst) {
                    continue;
                }
                if let Some(callee) = ir::called_function(inst) {
                    let name = callee.get_name().to_string_lossy();
                    if name == "pthread_create" || name == "pthread_exit" {
                        calls.push((inst, callee));
                    }
                }
            }
        }
    }
    let ptr_type = context.ptr_type(AddressSpace::default());
    for (inst, callee) in &calls {
        let is_create = callee.get_name().to_string_lossy() == "pthread_create";
        let (hook_name, leading): (&str, Vec<BasicValueEnum<'ctx>>) = if is_create {
            let start = ir::call_arguments(*inst).get(2).copied();
            let name = start
                .and_then(|v| v.is_pointer_value().then(|| v.into_pointer_value()))
                .and_then(|p| module.get_functions().find(|f| f.as_global_value().as_pointer_value() == p))
                .map(|f| api::demangle(&f.get_name().to_string_lossy()))
                .unwrap_or_else(|| "?".to_string());
            let text = builder_string(context, module, &name);
            (CREATE_HOOK, vec![text])
        } else {
            (EXIT_HOOK, Vec::new())
        };
        let hook = module.get_function(hook_name).unwrap_or_else(|| {
            let original = callee.get_type();
            let mut params: Vec<BasicMetadataTypeEnum> = Vec::new();
            if is_create {
                params.push(ptr_type.into());
            }
            params.extend(original.get_param_types());
            let fn_type = match original.get_return_type() {
                Some(ret) => inkwell::types::BasicType::fn_type(&ret, &params, false),
                None => context.void_type().fn_type(&params, false),
            };
            module.add_function(hook_name, fn_type, Some(Linkage::External))
        });
        replace_call(builder, *inst, hook, &leading).map_err(|e| MutatorError::Verify(format!("thread hook: {e}")))?;
    }
    Ok(calls.len())
}

/// A private constant C string in the module.
fn builder_string<'ctx>(context: &'ctx Context, module: &Module<'ctx>, text: &str) -> BasicValueEnum<'ctx> {
    let bytes = context.const_string(text.as_bytes(), true);
    let global = module.add_global(bytes.get_type(), Some(AddressSpace::default()), "syncmut.thread");
    global.set_initializer(&bytes);
    global.set_constant(true);
    global.set_linkage(Linkage::Private);
    global.as_pointer_value().as_basic_value_enum()
}
