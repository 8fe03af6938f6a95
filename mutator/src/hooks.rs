//! Thread hooks and effect tags for calls that are never mutated but matter to later
//! stages: the functions of `api::observed`, found wherever they are called (user code
//! or not).
//!
//! - A function with a runtime hook (`pthread_create`, `pthread_exit`) has every call
//!   rewritten to the hook, so the runtime's controlled scheduler sees every thread
//!   start and end; a thread it did not know about would run uncontrolled. The hook
//!   takes the original arguments, after the start routine's demangled name for a
//!   thread creation (or `?` for a function pointer computed at run time), so traces can
//!   name threads by what they run.
//! - Every such call, hooked or not (`sc_start`, SystemC process registration), is
//!   tagged with its effect (`!syncmut.effect`) for the analysis.

use crate::api::{self, ObservedApi};
use crate::effect::{CallTag, Effect};
use crate::error::{MutatorError, Result};
use crate::ir::{self, replace_call};
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::BasicMetadataTypeEnum;
use inkwell::values::{BasicValue, BasicValueEnum, FunctionValue, InstructionValue};
use inkwell::AddressSpace;
use std::collections::HashMap;

/// Rewrites every direct call of a hooked function and tags every observed call;
/// returns how many calls were rewritten or tagged.
pub fn rewrite_thread_hooks<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    builder: &Builder<'ctx>,
) -> Result<usize> {
    // Demangle each callee once, not once per call.
    let mut observed: HashMap<FunctionValue<'ctx>, Option<&'static ObservedApi>> = HashMap::new();
    let mut calls: Vec<(
        InstructionValue<'ctx>,
        FunctionValue<'ctx>,
        &'static ObservedApi,
    )> = Vec::new();
    for function in module.get_functions() {
        for (inst, callee) in ir::direct_calls(&function) {
            let api = *observed.entry(callee).or_insert_with(|| {
                api::observed(&api::demangle(&callee.get_name().to_string_lossy()))
            });
            if let Some(api) = api {
                calls.push((inst, callee, api));
            }
        }
    }
    for (inst, callee, api) in &calls {
        let family = api.family;
        let Some(hook_name) = api.hook else {
            ir::tag_call(
                context,
                *inst,
                &CallTag {
                    effect: api.effect,
                    leading: 0,
                    site: false,
                    family,
                },
            );
            continue;
        };
        let leading: Vec<BasicValueEnum<'ctx>> = match api.effect {
            Effect::CreateThread { routine, .. } => {
                let start = ir::call_arguments(*inst).get(routine as usize).copied();
                let name = start
                    .and_then(|v| v.is_pointer_value().then(|| v.into_pointer_value()))
                    .and_then(|p| {
                        module
                            .get_functions()
                            .find(|f| f.as_global_value().as_pointer_value() == p)
                    })
                    .map(|f| api::demangle(&f.get_name().to_string_lossy()))
                    .unwrap_or_else(|| "?".to_string());
                vec![builder_string(context, module, &name)]
            }
            _ => Vec::new(),
        };
        let hook = module.get_function(hook_name).unwrap_or_else(|| {
            let original = callee.get_type();
            let mut params: Vec<BasicMetadataTypeEnum> =
                vec![context.ptr_type(AddressSpace::default()).into(); leading.len()];
            params.extend(original.get_param_types());
            let fn_type = match original.get_return_type() {
                Some(ret) => inkwell::types::BasicType::fn_type(&ret, &params, false),
                None => context.void_type().fn_type(&params, false),
            };
            module.add_function(hook_name, fn_type, Some(Linkage::External))
        });
        let call = replace_call(builder, *inst, hook, &leading)
            .map_err(|e| MutatorError::Verify(format!("thread hook: {e}")))?;
        ir::tag_call(
            context,
            call,
            &CallTag {
                effect: api.effect,
                leading: leading.len() as u32,
                site: false,
                family,
            },
        );
    }
    Ok(calls.len())
}

/// A private constant C string in the module.
fn builder_string<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    text: &str,
) -> BasicValueEnum<'ctx> {
    let bytes = context.const_string(text.as_bytes(), true);
    let global = module.add_global(
        bytes.get_type(),
        Some(AddressSpace::default()),
        "syncmut.thread",
    );
    global.set_initializer(&bytes);
    global.set_constant(true);
    global.set_linkage(Linkage::Private);
    global.as_pointer_value().as_basic_value_enum()
}
