//! Trampolines for template synchronization APIs (`sc_fifo<T>` and its ports).
//!
//! A precompiled runtime wrapper cannot take every `T`, so for each template callee the
//! mutator defines, inside the design's module:
//!
//! ```text
//! ret @"syncmut.fifo.<mangled>"(i32 site, this, args...) {
//!   switch (syncmut_gate(site, "remove,blocking-to-nonblocking"))
//!     0: original call        1: removed (no call)        2: the twin call
//! }
//! ```
//! The runtime's generic gate validates the operator, records the trace event and
//! answers with the operator's position in the list (0 = run the original).

use crate::api::FifoAccess;
use crate::error::{MutatorError, Result};
use crate::operator::Operator;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue, ValueKind};
use inkwell::AddressSpace;

/// The runtime's generic decision point for generated trampolines.
pub const GATE_SYMBOL: &str = "syncmut_gate";

/// Defines the trampoline `name` around `original`; `twin` is the blocking/non-blocking
/// counterpart (absent when the design never instantiated it; then only `remove` is
/// offered and the gate never answers 2).
pub fn define<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    name: &str,
    original: FunctionValue<'ctx>,
    access: FifoAccess,
    twin: Option<FunctionValue<'ctx>>,
    operators: &[Operator],
) -> Result<FunctionValue<'ctx>> {
    let err = |what: &str| MutatorError::Verify(format!("trampoline {name}: {what}"));
    let i32_type = context.i32_type();
    let (function, gate) = declare(context, module, name, original, GATE_SYMBOL);
    let return_type = original.get_type().get_return_type();

    let builder = context.create_builder();
    let entry = context.append_basic_block(function, "entry");
    let original_bb = context.append_basic_block(function, "original");
    let removed_bb = context.append_basic_block(function, "removed");
    let twin_bb = context.append_basic_block(function, "twin");
    let args: Vec<BasicValueEnum> = function.get_param_iter().skip(1).collect();
    let call_args: Vec<BasicMetadataValueEnum> = args.iter().map(|a| (*a).into()).collect();

    builder.position_at_end(entry);
    let decision = ask_gate(&builder, gate, function, operators).map_err(|e| err(&e))?;
    // The answer is the operator's 1-based position; map it to the blocks by operator.
    let position =
        |wanted: fn(&Operator) -> bool| operators.iter().position(wanted).map(|i| i as u64 + 1);
    let mut cases = Vec::new();
    if let Some(p) = position(|op| *op == Operator::Remove) {
        cases.push((i32_type.const_int(p, false), removed_bb));
    }
    if let Some(p) = position(|op| {
        matches!(
            op,
            Operator::BlockingToNonblocking | Operator::NonblockingToBlocking
        )
    }) {
        cases.push((i32_type.const_int(p, false), twin_bb));
    }
    builder
        .build_switch(decision, original_bb, &cases)
        .map_err(|e| err(&e.to_string()))?;

    // Original call.
    builder.position_at_end(original_bb);
    return_call(&builder, original, &args).map_err(|e| err(&e))?;

    // Removed: nothing happens; a non-blocking access reports success, a value read
    // yields the zero value.
    builder.position_at_end(removed_bb);
    build_fixed_return(&builder, return_type, access).map_err(|e| err(&e))?;

    // Twin: the blocking/non-blocking counterpart.
    builder.position_at_end(twin_bb);
    match twin {
        None => {
            builder
                .build_unreachable()
                .map_err(|e| err(&e.to_string()))?;
        }
        Some(twin) if access == FifoAccess::ReadValue => {
            // `T read()` → `nb_read(tmp)`; a failed read leaves tmp zeroed.
            let value_type = return_type.ok_or_else(|| err("read() without a return value"))?;
            let tmp = builder
                .build_alloca(value_type, "tmp")
                .map_err(|e| err(&e.to_string()))?;
            builder
                .build_store(tmp, value_type.const_zero())
                .map_err(|e| err(&e.to_string()))?;
            builder
                .build_call(twin, &[args[0].into(), tmp.into()], "")
                .map_err(|e| err(&e.to_string()))?;
            let value = builder
                .build_load(value_type, tmp, "value")
                .map_err(|e| err(&e.to_string()))?;
            builder
                .build_return(Some(&value))
                .map_err(|e| err(&e.to_string()))?;
        }
        Some(twin) => {
            builder
                .build_call(twin, &call_args, "")
                .map_err(|e| err(&e.to_string()))?;
            build_fixed_return(&builder, return_type, access).map_err(|e| err(&e))?;
        }
    }
    Ok(function)
}

/// Adds the trampoline `name`: `original`'s type with the site number first, internal
/// to the module; and the gate it asks (declared if the module lacks it).
pub(crate) fn declare<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    name: &str,
    original: FunctionValue<'ctx>,
    gate_symbol: &str,
) -> (FunctionValue<'ctx>, FunctionValue<'ctx>) {
    let i32_type = context.i32_type();
    let ptr_type = context.ptr_type(AddressSpace::default());
    let original_type = original.get_type();
    let mut params: Vec<BasicMetadataTypeEnum> = vec![i32_type.into()];
    params.extend(original_type.get_param_types());
    let fn_type = match original_type.get_return_type() {
        Some(ret) => ret.fn_type(&params, false),
        None => context.void_type().fn_type(&params, false),
    };
    let function = module.add_function(name, fn_type, Some(Linkage::Internal));
    let gate = module.get_function(gate_symbol).unwrap_or_else(|| {
        module.add_function(
            gate_symbol,
            i32_type.fn_type(&[i32_type.into(), ptr_type.into()], false),
            Some(Linkage::External),
        )
    });
    (function, gate)
}

/// Calls `gate(site, "op,op…")` at the builder's position: the active operator's
/// 1-based position among `operators`, 0 for the original call.
pub(crate) fn ask_gate<'ctx>(
    builder: &inkwell::builder::Builder<'ctx>,
    gate: FunctionValue<'ctx>,
    trampoline: FunctionValue<'ctx>,
    operators: &[Operator],
) -> std::result::Result<inkwell::values::IntValue<'ctx>, String> {
    let slugs: Vec<&str> = operators.iter().map(|op| op.slug()).collect();
    let ops_text = builder
        .build_global_string_ptr(&slugs.join(","), "syncmut.ops")
        .map_err(|e| e.to_string())?;
    let site = trampoline.get_first_param().expect("site parameter");
    let decision = builder
        .build_call(
            gate,
            &[site.into(), ops_text.as_pointer_value().into()],
            "decision",
        )
        .map_err(|e| e.to_string())?;
    match decision.try_as_basic_value() {
        ValueKind::Basic(decision) => Ok(decision.into_int_value()),
        ValueKind::Instruction(_) => Err("gate returns no value".to_string()),
    }
}

/// Calls `callee` with `args` at the builder's position and returns what it returns: a
/// trampoline's way of running the original call.
pub(crate) fn return_call<'ctx>(
    builder: &inkwell::builder::Builder<'ctx>,
    callee: FunctionValue<'ctx>,
    args: &[BasicValueEnum<'ctx>],
) -> std::result::Result<(), String> {
    let call_args: Vec<BasicMetadataValueEnum> = args.iter().map(|a| (*a).into()).collect();
    let result = builder
        .build_call(callee, &call_args, "")
        .map_err(|e| e.to_string())?;
    match result.try_as_basic_value() {
        ValueKind::Basic(value) => builder.build_return(Some(&value)),
        ValueKind::Instruction(_) => builder.build_return(None),
    }
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// `ret void`, `ret i1 true` for the non-blocking accesses, or the zero value.
fn build_fixed_return<'ctx>(
    builder: &inkwell::builder::Builder<'ctx>,
    return_type: Option<BasicTypeEnum<'ctx>>,
    access: FifoAccess,
) -> std::result::Result<(), String> {
    let result = match (return_type, access) {
        (None, _) => builder.build_return(None),
        (Some(BasicTypeEnum::IntType(t)), FifoAccess::NbRead | FifoAccess::NbWrite) => {
            builder.build_return(Some(&t.const_int(1, false)))
        }
        (Some(t), _) => builder.build_return(Some(&t.const_zero())),
    };
    result.map(|_| ()).map_err(|e| e.to_string())
}
