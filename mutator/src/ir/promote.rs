//! Guarded devirtualization (indirect-call promotion) of a virtual call, through the C
//! API for `crate::promote`: the call `%fp(this, args…)` becomes
//!
//! ```text
//!   if (%fp == @cand1) target1(this + delta1, args…)   ; the call's own !dbg
//!   else if (%fp == @cand2) target2(this + delta2, args…)
//!   else %fp(this, args…)                               ; the original call
//! ```
//!
//! so each direct call is a call of an API function at the user's line (a site), and
//! any other implementation still runs through the original indirect call. A `call` has
//! the rest of its block moved to a join block; an `invoke` gets a join block as its
//! normal destination and each direct call is an `invoke` to the same landing pad. The
//! successors' phis are rebuilt for their new predecessors.

use super::virtual_calls::VirtualCall;
use inkwell::llvm_sys::core as llvm;
use inkwell::llvm_sys::debuginfo;
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMBuilderRef, LLVMValueRef};
use inkwell::llvm_sys::LLVMIntPredicate;
use inkwell::module::Module;
use inkwell::values::AsValueRef;

/// One implementation the call may reach: when the loaded callee is the function
/// `pointer` (a vtable entry, possibly a thunk), the call goes to `target` with `this`
/// moved by `delta` bytes (what the thunk would do).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub pointer: String,
    pub target: String,
    pub delta: i64,
}

/// Rewrites `call` into the guarded chain over `candidates` (in order), the original
/// indirect call last.
pub fn promote<'ctx>(module: &Module<'ctx>, call: &VirtualCall<'ctx>, candidates: &[Candidate]) {
    if candidates.is_empty() {
        return;
    }
    // SAFETY: `call.inst` is a live call/invoke of `module` with its callee and `this`
    // as the virtual-call shape guarantees; blocks are created in its function,
    // instructions are moved between blocks of that function before anything refers to
    // their new place, and a phi is erased only after its uses moved to its rebuild.
    unsafe {
        let ci = call.inst.as_value_ref();
        let context = llvm::LLVMGetModuleContext(module.as_mut_ptr());
        let fn_type = llvm::LLVMGetCalledFunctionType(ci);
        let fp = llvm::LLVMGetCalledValue(ci);
        let block = llvm::LLVMGetInstructionParent(ci);
        let function = llvm::LLVMGetBasicBlockParent(block);
        let invoke = !llvm::LLVMIsAInvokeInst(ci).is_null();
        let args: Vec<LLVMValueRef> = (0..llvm::LLVMGetNumArgOperands(ci))
            .map(|i| llvm::LLVMGetOperand(ci, i))
            .collect();
        let builder = llvm::LLVMCreateBuilderInContext(context);
        let new_block = |after: LLVMBasicBlockRef, name: &std::ffi::CStr| {
            let b = llvm::LLVMAppendBasicBlockInContext(context, function, name.as_ptr());
            llvm::LLVMMoveBasicBlockAfter(b, after);
            b
        };

        // The join block: what followed the call, or the invoke's normal path.
        let join = new_block(block, c"promoted.join");
        let (unwind, successors_of_join) = if invoke {
            let normal = llvm::LLVMGetNormalDest(ci);
            let unwind = llvm::LLVMGetUnwindDest(ci);
            llvm::LLVMPositionBuilderAtEnd(builder, join);
            llvm::LLVMBuildBr(builder, normal);
            llvm::LLVMSetNormalDest(ci, join);
            (Some(unwind), vec![normal])
        } else {
            let mut moved = Vec::new();
            let mut next = llvm::LLVMGetNextInstruction(ci);
            while !next.is_null() {
                moved.push(next);
                next = llvm::LLVMGetNextInstruction(next);
            }
            llvm::LLVMPositionBuilderAtEnd(builder, join);
            for inst in moved {
                llvm::LLVMInstructionRemoveFromParent(inst);
                llvm::LLVMInsertIntoBuilder(builder, inst);
            }
            let terminator = llvm::LLVMGetBasicBlockTerminator(join);
            let successors = if terminator.is_null() {
                Vec::new()
            } else {
                (0..llvm::LLVMGetNumSuccessors(terminator))
                    .map(|i| llvm::LLVMGetSuccessor(terminator, i))
                    .collect()
            };
            (None, successors)
        };
        let mut seen = Vec::new();
        for successor in successors_of_join {
            if !seen.contains(&successor) {
                seen.push(successor);
                rebuild_phis(builder, successor, block, &[join]);
            }
        }

        // The tests and direct calls, then the original call as the fall-through.
        let mut test_block = block;
        let mut results: Vec<(LLVMValueRef, LLVMBasicBlockRef)> = Vec::new();
        let mut callers = Vec::new();
        let debug = debuginfo::LLVMInstructionGetDebugLoc(ci);
        for candidate in candidates {
            let direct = new_block(test_block, c"promoted.direct");
            let otherwise = new_block(direct, c"promoted.next");
            llvm::LLVMPositionBuilderAtEnd(builder, test_block);
            let pointer = function_named(module, &candidate.pointer, fn_type);
            let same = llvm::LLVMBuildICmp(
                builder,
                LLVMIntPredicate::LLVMIntEQ,
                fp,
                pointer,
                c"promoted.same".as_ptr(),
            );
            llvm::LLVMBuildCondBr(builder, same, direct, otherwise);

            llvm::LLVMPositionBuilderAtEnd(builder, direct);
            let mut direct_args = args.clone();
            if candidate.delta != 0 {
                let i8_type = llvm::LLVMInt8TypeInContext(context);
                let mut offset = [llvm::LLVMConstInt(
                    llvm::LLVMInt64TypeInContext(context),
                    candidate.delta as u64,
                    1,
                )];
                direct_args[0] = llvm::LLVMBuildInBoundsGEP2(
                    builder,
                    i8_type,
                    args[0],
                    offset.as_mut_ptr(),
                    1,
                    c"promoted.this".as_ptr(),
                );
            }
            let target = function_named(module, &candidate.target, fn_type);
            let new_call = match unwind {
                Some(unwind) => llvm::LLVMBuildInvoke2(
                    builder,
                    fn_type,
                    target,
                    direct_args.as_mut_ptr(),
                    direct_args.len() as u32,
                    join,
                    unwind,
                    c"".as_ptr(),
                ),
                None => {
                    let call = llvm::LLVMBuildCall2(
                        builder,
                        fn_type,
                        target,
                        direct_args.as_mut_ptr(),
                        direct_args.len() as u32,
                        c"".as_ptr(),
                    );
                    llvm::LLVMBuildBr(builder, join);
                    call
                }
            };
            debuginfo::LLVMInstructionSetDebugLoc(new_call, debug);
            llvm::LLVMSetInstructionCallConv(new_call, llvm::LLVMGetInstructionCallConv(ci));
            results.push((new_call, direct));
            callers.push(direct);
            test_block = otherwise;
        }
        llvm::LLVMInstructionRemoveFromParent(ci);
        llvm::LLVMPositionBuilderAtEnd(builder, test_block);
        llvm::LLVMInsertIntoBuilder(builder, ci);
        if !invoke {
            llvm::LLVMBuildBr(builder, join);
        }
        callers.push(test_block);
        if let Some(unwind) = unwind {
            rebuild_phis(builder, unwind, block, &callers);
        }

        // The call's value, from whichever call ran.
        let returns = llvm::LLVMGetReturnType(fn_type);
        if llvm::LLVMGetTypeKind(returns) != inkwell::llvm_sys::LLVMTypeKind::LLVMVoidTypeKind
            && !llvm::LLVMGetFirstUse(ci).is_null()
        {
            let first = llvm::LLVMGetFirstInstruction(join);
            llvm::LLVMPositionBuilderBefore(builder, first);
            let phi = llvm::LLVMBuildPhi(builder, returns, c"promoted.value".as_ptr());
            llvm::LLVMReplaceAllUsesWith(ci, phi);
            results.push((ci, test_block));
            for (value, from) in results {
                let (mut v, mut b) = ([value], [from]);
                llvm::LLVMAddIncoming(phi, v.as_mut_ptr(), b.as_mut_ptr(), 1);
            }
        }
        llvm::LLVMDisposeBuilder(builder);
    }
}

/// The function `name`, declared with `fn_type` when the module lacks it (a library's
/// member, `sc_core::sc_mutex::lock`).
unsafe fn function_named(
    module: &Module<'_>,
    name: &str,
    fn_type: inkwell::llvm_sys::prelude::LLVMTypeRef,
) -> LLVMValueRef {
    match module.get_function(name) {
        Some(f) => f.as_value_ref(),
        None => {
            let name = std::ffi::CString::new(name).expect("a symbol has no NUL");
            llvm::LLVMAddFunction(module.as_mut_ptr(), name.as_ptr(), fn_type)
        }
    }
}

/// Rebuilds the phis of `block` so that an incoming edge from `old` comes from each of
/// `new` instead, with the same value.
unsafe fn rebuild_phis(
    builder: LLVMBuilderRef,
    block: LLVMBasicBlockRef,
    old: LLVMBasicBlockRef,
    new: &[LLVMBasicBlockRef],
) {
    let mut inst = llvm::LLVMGetFirstInstruction(block);
    while !inst.is_null() && !llvm::LLVMIsAPHINode(inst).is_null() {
        let next = llvm::LLVMGetNextInstruction(inst);
        let mut values = Vec::new();
        let mut blocks = Vec::new();
        let mut touched = false;
        for i in 0..llvm::LLVMCountIncoming(inst) {
            let (value, from) = (
                llvm::LLVMGetIncomingValue(inst, i),
                llvm::LLVMGetIncomingBlock(inst, i),
            );
            if from == old {
                touched = true;
                for b in new {
                    values.push(value);
                    blocks.push(*b);
                }
            } else {
                values.push(value);
                blocks.push(from);
            }
        }
        if touched {
            llvm::LLVMPositionBuilderBefore(builder, inst);
            let mut len = 0usize;
            let name = llvm::LLVMGetValueName2(inst, &mut len);
            let name = std::ffi::CStr::from_ptr(name).to_owned();
            let phi = llvm::LLVMBuildPhi(builder, llvm::LLVMTypeOf(inst), c"".as_ptr());
            llvm::LLVMAddIncoming(
                phi,
                values.as_mut_ptr(),
                blocks.as_mut_ptr(),
                values.len() as u32,
            );
            llvm::LLVMReplaceAllUsesWith(inst, phi);
            llvm::LLVMInstructionEraseFromParent(inst);
            llvm::LLVMSetValueName2(phi, name.as_ptr(), len);
        }
        inst = next;
    }
}
