//! The one place where the mutator talks to LLVM through its C API.
//!
//! inkwell's `CallSiteValue` only accepts `call`; sync calls inside scopes with
//! destructors are `invoke`s, so call/invoke operands, their debug locations and the
//! rebuilt instruction's attributes are handled here with small safe wrappers.

use crate::effect::{CallTag, METADATA_KIND};
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::llvm_sys::core as llvm;
use inkwell::llvm_sys::debuginfo;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::values::{
    AsValueRef, BasicMetadataValueEnum, BasicValueEnum, FunctionValue, InstructionOpcode,
    InstructionValue,
};
use std::path::PathBuf;

pub(crate) mod promote;
pub(crate) mod virtual_calls;

/// A source position taken from an instruction's `!dbg` attachment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DebugLoc {
    /// Path as recorded by the compiler (joined with the compile directory when
    /// relative), not canonicalised: the file may no longer exist.
    pub path: PathBuf,
    pub line: u32,
    pub col: u32,
}

/// True for `call` and `invoke` instructions.
pub fn is_call_like(inst: InstructionValue<'_>) -> bool {
    matches!(
        inst.get_opcode(),
        InstructionOpcode::Call | InstructionOpcode::Invoke
    )
}

/// Every instruction of `function`, block by block in layout order.
pub fn instructions<'ctx>(
    function: &FunctionValue<'ctx>,
) -> impl Iterator<Item = InstructionValue<'ctx>> {
    function.get_basic_blocks().into_iter().flat_map(|block| {
        std::iter::successors(block.get_first_instruction(), |inst| {
            inst.get_next_instruction()
        })
    })
}

/// Every `call`/`invoke` of `function` whose callee is known, with that callee.
pub fn direct_calls<'ctx>(
    function: &FunctionValue<'ctx>,
) -> impl Iterator<Item = (InstructionValue<'ctx>, FunctionValue<'ctx>)> {
    instructions(function)
        .filter(|inst| is_call_like(*inst))
        .filter_map(|inst| Some((inst, called_function(inst)?)))
}

/// The directly called function of a `call`/`invoke`, or `None` for indirect calls
/// (function pointers, virtual calls) and inline assembly.
pub fn called_function<'ctx>(inst: InstructionValue<'ctx>) -> Option<FunctionValue<'ctx>> {
    // SAFETY: `inst` is a live call or invoke instruction (checked by the caller through
    // `is_call_like`); LLVMGetCalledValue is defined for both. LLVMIsAFunction returns
    // null for anything that is not a function, which FunctionValue::new maps to None.
    unsafe {
        let callee = llvm::LLVMGetCalledValue(inst.as_value_ref());
        if callee.is_null() {
            return None;
        }
        FunctionValue::new(llvm::LLVMIsAFunction(callee))
    }
}

/// The argument operands of a `call`/`invoke` (without callee and invoke targets).
pub fn call_arguments<'ctx>(inst: InstructionValue<'ctx>) -> Vec<BasicValueEnum<'ctx>> {
    // SAFETY: call/invoke instructions have LLVMGetNumArgOperands argument operands at
    // operand indices 0..n, each a first-class value.
    unsafe {
        let raw = inst.as_value_ref();
        let n = llvm::LLVMGetNumArgOperands(raw);
        (0..n)
            .map(|i| BasicValueEnum::new(llvm::LLVMGetOperand(raw, i)))
            .collect()
    }
}

/// Normal and unwind destinations of an `invoke`.
pub fn invoke_destinations<'ctx>(
    inst: InstructionValue<'ctx>,
) -> (BasicBlock<'ctx>, BasicBlock<'ctx>) {
    debug_assert_eq!(inst.get_opcode(), InstructionOpcode::Invoke);
    // SAFETY: only called on invoke instructions, which always have both destinations.
    unsafe {
        let raw = inst.as_value_ref();
        let normal =
            BasicBlock::new(llvm::LLVMGetNormalDest(raw)).expect("invoke has a normal destination");
        let unwind = BasicBlock::new(llvm::LLVMGetUnwindDest(raw))
            .expect("invoke has an unwind destination");
        (normal, unwind)
    }
}

/// The blocks `block`'s terminator branches to, one per edge in operand order (a
/// conditional branch whose two edges go to one block lists it twice).
pub fn successors<'ctx>(block: BasicBlock<'ctx>) -> Vec<BasicBlock<'ctx>> {
    let Some(terminator) = block.get_terminator() else {
        return Vec::new();
    };
    // SAFETY: successor indices below LLVMGetNumSuccessors of a terminator.
    unsafe {
        let raw = terminator.as_value_ref();
        (0..llvm::LLVMGetNumSuccessors(raw))
            .filter_map(|i| BasicBlock::new(llvm::LLVMGetSuccessor(raw, i)))
            .collect()
    }
}

/// Sends edge `index` of `block`'s terminator (as [`successors`] numbers them) to `to`.
pub fn set_successor<'ctx>(block: BasicBlock<'ctx>, index: u32, to: BasicBlock<'ctx>) {
    let terminator = block
        .get_terminator()
        .expect("a block with successors has a terminator");
    // SAFETY: `index` comes from `successors` of the same, unchanged terminator.
    unsafe { llvm::LLVMSetSuccessor(terminator.as_value_ref(), index, to.as_mut_ptr()) }
}

/// The instruction's source position, if it carries debug info.
pub fn debug_location(inst: InstructionValue<'_>) -> Option<DebugLoc> {
    // SAFETY: the LLVMGetDebugLoc* accessors accept any instruction and return
    // null/0 when there is no location; returned strings are owned by the module
    // and copied out immediately.
    unsafe {
        let raw = inst.as_value_ref();
        if debuginfo::LLVMInstructionGetDebugLoc(raw).is_null() {
            return None;
        }
        let file = take_str(|len| llvm::LLVMGetDebugLocFilename(raw, len));
        let dir = take_str(|len| llvm::LLVMGetDebugLocDirectory(raw, len));
        let line = llvm::LLVMGetDebugLocLine(raw);
        let col = llvm::LLVMGetDebugLocColumn(raw);
        if file.is_empty() {
            return None;
        }
        let file = PathBuf::from(file);
        let path = if file.is_absolute() || dir.is_empty() {
            file
        } else {
            PathBuf::from(dir).join(file)
        };
        Some(DebugLoc { path, line, col })
    }
}

/// Where the user's code calls what an instruction belongs to: the location the
/// instruction's inlined frames were inlined at, outermost first (its own location when
/// it was not inlined). A call inside an `always_inline` library function, which clang
/// inlines even at -O0 (libstdc++'s `std::latch::count_down`), is thus named at the
/// user's line.
pub fn inlined_at_location(inst: InstructionValue<'_>) -> Option<DebugLoc> {
    inlined_frames(inst).pop()
}

/// The instruction's location and the locations its inlined frames were inlined at,
/// innermost first: the last is in the function the instruction now belongs to, the
/// one before it in the first function that function's code called (and had inlined).
pub fn inlined_frames(inst: InstructionValue<'_>) -> Vec<DebugLoc> {
    // SAFETY: the DILocation accessors take the instruction's own location metadata
    // (checked non-null) and the locations and scopes it links to; strings are owned by
    // the module and copied out immediately.
    unsafe {
        let mut frames = Vec::new();
        let mut loc = debuginfo::LLVMInstructionGetDebugLoc(inst.as_value_ref());
        while !loc.is_null() {
            let file = debuginfo::LLVMDIScopeGetFile(debuginfo::LLVMDILocationGetScope(loc));
            if file.is_null() {
                return Vec::new();
            }
            let name = take_str(|len| debuginfo::LLVMDIFileGetFilename(file, len));
            let dir = take_str(|len| debuginfo::LLVMDIFileGetDirectory(file, len));
            let name = PathBuf::from(name);
            let path = if name.is_absolute() || dir.is_empty() {
                name
            } else {
                PathBuf::from(dir).join(name)
            };
            frames.push(DebugLoc {
                path,
                line: debuginfo::LLVMDILocationGetLine(loc),
                col: debuginfo::LLVMDILocationGetColumn(loc),
            });
            loc = debuginfo::LLVMDILocationGetInlinedAt(loc);
        }
        frames
    }
}

unsafe fn take_str(get: impl FnOnce(*mut u32) -> *const std::os::raw::c_char) -> String {
    let mut len = 0u32;
    let ptr = get(&mut len);
    if ptr.is_null() {
        return String::new();
    }
    let bytes = std::slice::from_raw_parts(ptr as *const u8, len as usize);
    String::from_utf8_lossy(bytes).into_owned()
}

/// Gives `to` the debug location and calling convention of `from`, so the rewritten
/// call still maps to the user's `file:line:col` and keeps its ABI.
pub fn copy_call_metadata(from: InstructionValue<'_>, to: InstructionValue<'_>) {
    // SAFETY: both are live call-like instructions of the same module.
    unsafe {
        let (from, to) = (from.as_value_ref(), to.as_value_ref());
        debuginfo::LLVMInstructionSetDebugLoc(to, debuginfo::LLVMInstructionGetDebugLoc(from));
        llvm::LLVMSetInstructionCallConv(to, llvm::LLVMGetInstructionCallConv(from));
    }
}

/// Attaches `tag` to a call as `!syncmut.effect` metadata.
pub fn tag_call<'ctx>(context: &'ctx Context, call: InstructionValue<'ctx>, tag: &CallTag) {
    let text = context.metadata_string(&tag.to_metadata());
    let node = context.metadata_node(&[text.into()]);
    call.set_metadata(node, context.get_kind_id(METADATA_KIND))
        .expect("a metadata node is valid instruction metadata");
}

/// Replaces a `call`/`invoke` by a call of `callee(leading..., original args...)`,
/// keeping its debug location, calling convention and (for invoke) its destinations;
/// returns the new call.
pub(crate) fn replace_call<'ctx>(
    builder: &Builder<'ctx>,
    old: InstructionValue<'ctx>,
    callee: FunctionValue<'ctx>,
    leading: &[BasicValueEnum<'ctx>],
) -> std::result::Result<InstructionValue<'ctx>, inkwell::builder::BuilderError> {
    let mut args = leading.to_vec();
    args.extend(call_arguments(old));
    builder.position_before(&old);
    let new_call = if old.get_opcode() == InstructionOpcode::Invoke {
        let (normal, unwind) = invoke_destinations(old);
        builder.build_invoke(callee, &args, normal, unwind, "")?
    } else {
        let args: Vec<BasicMetadataValueEnum> = args.iter().map(|a| (*a).into()).collect();
        builder.build_call(callee, &args, "")?
    };
    // SAFETY: a call site value is an instruction.
    let new_inst = unsafe { InstructionValue::new(new_call.as_value_ref()) };
    copy_call_metadata(old, new_inst);
    old.replace_all_uses_with(&new_inst);
    old.erase_from_basic_block();
    Ok(new_inst)
}

/// Whether any argument of the call is passed `byval`, `sret`, `inalloca` or
/// `preallocated`: such calls cannot get a plain extra leading argument.
pub fn has_abi_sensitive_arguments(inst: InstructionValue<'_>) -> bool {
    const KINDS: [&str; 4] = ["byval", "sret", "inalloca", "preallocated"];
    // SAFETY: attribute queries on a live call instruction; indices 1..=n name the
    // arguments (0 is the return value), per the C API.
    unsafe {
        let raw: LLVMValueRef = inst.as_value_ref();
        let n = llvm::LLVMGetNumArgOperands(raw);
        KINDS.iter().any(|kind| {
            let id = llvm::LLVMGetEnumAttributeKindForName(kind.as_ptr() as *const _, kind.len());
            // Type attributes (byval, sret…) are found by kind like enum attributes.
            id != 0 && (1..=n).any(|i| !llvm::LLVMGetCallSiteEnumAttribute(raw, i, id).is_null())
        })
    }
}

/// What the debug info says about a global variable (its `!dbg`
/// DIGlobalVariableExpression): the source name, the declaring file, and the name of
/// its type with typedefs and qualifiers stripped (`unsigned int`, `_Bool`, an enum's
/// name), empty when unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobalDebugInfo {
    pub name: String,
    pub path: PathBuf,
    pub type_name: String,
}

/// The debug info of a global variable, or `None` when it has no `!dbg` attachment.
///
/// LLVM 16's C API has no accessor for a DIVariable's name or type, so they are read
/// as node operands (DIVariable: 0 scope, 1 name, 2 file, 3 type; DIDerivedType:
/// 3 base type), which `LLVMGetMDNodeOperands` returns for any MDNode.
pub fn global_debug_info(global: inkwell::values::GlobalValue<'_>) -> Option<GlobalDebugInfo> {
    use inkwell::llvm_sys::debuginfo::LLVMMetadataKind;
    // SAFETY: `global` is a live global variable; the metadata entries array is
    // disposed after use; every metadata node is checked for kind/null before it is
    // used, and strings are copied out at once.
    unsafe {
        let raw = global.as_value_ref();
        let mut n: usize = 0;
        let entries = llvm::LLVMGlobalCopyAllMetadata(raw, &mut n);
        if entries.is_null() {
            return None;
        }
        let dbg_kind = llvm::LLVMGetMDKindID(b"dbg".as_ptr() as *const _, 3);
        let mut gve = std::ptr::null_mut();
        for i in 0..n as u32 {
            if llvm::LLVMValueMetadataEntriesGetKind(entries, i) == dbg_kind {
                gve = llvm::LLVMValueMetadataEntriesGetMetadata(entries, i);
                break;
            }
        }
        llvm::LLVMDisposeValueMetadataEntries(entries);
        if gve.is_null()
            || !matches!(
                debuginfo::LLVMGetMetadataKind(gve),
                LLVMMetadataKind::LLVMDIGlobalVariableExpressionMetadataKind
            )
        {
            return None;
        }
        let var = debuginfo::LLVMDIGlobalVariableExpressionGetVariable(gve);
        if var.is_null() {
            return None;
        }
        let file = debuginfo::LLVMDIVariableGetFile(var);
        let path = if file.is_null() {
            PathBuf::new()
        } else {
            let name = PathBuf::from(take_str(|len| debuginfo::LLVMDIFileGetFilename(file, len)));
            let dir = take_str(|len| debuginfo::LLVMDIFileGetDirectory(file, len));
            if name.is_absolute() || dir.is_empty() {
                name
            } else {
                PathBuf::from(dir).join(name)
            }
        };
        let context = llvm::LLVMGetModuleContext(llvm::LLVMGetGlobalParent(raw));
        let ops = md_operands(context, var);
        let name = match ops.get(1) {
            Some(op) if !op.is_null() && !llvm::LLVMIsAMDString(*op).is_null() => {
                take_str(|len| llvm::LLVMGetMDString(*op, len))
            }
            _ => String::new(),
        };
        let mut ty = match ops.get(3) {
            Some(op) if !op.is_null() => llvm::LLVMValueAsMetadata(*op),
            _ => std::ptr::null_mut(),
        };
        // Through typedefs and const/volatile to the underlying type (bounded: cycles
        // cannot occur in valid IR, but a bound costs nothing).
        for _ in 0..16 {
            if ty.is_null()
                || !matches!(
                    debuginfo::LLVMGetMetadataKind(ty),
                    LLVMMetadataKind::LLVMDIDerivedTypeMetadataKind
                )
            {
                break;
            }
            let mut name_len = 0usize;
            let own = debuginfo::LLVMDITypeGetName(ty, &mut name_len);
            let own = if own.is_null() {
                String::new()
            } else {
                String::from_utf8_lossy(std::slice::from_raw_parts(own as *const u8, name_len))
                    .into_owned()
            };
            // `bool` may be a typedef of an integer in C (pre-C99 code); keep that name.
            if own == "bool" {
                break;
            }
            let base = md_operands(context, ty);
            ty = match base.get(3) {
                Some(op) if !op.is_null() => llvm::LLVMValueAsMetadata(*op),
                _ => std::ptr::null_mut(),
            };
        }
        let type_name = if ty.is_null() {
            String::new()
        } else {
            let mut len = 0usize;
            let ptr = debuginfo::LLVMDITypeGetName(ty, &mut len);
            if ptr.is_null() {
                String::new()
            } else {
                String::from_utf8_lossy(std::slice::from_raw_parts(ptr as *const u8, len))
                    .into_owned()
            }
        };
        Some(GlobalDebugInfo {
            name,
            path,
            type_name,
        })
    }
}

/// The operands of a metadata node, as values (null for absent operands).
unsafe fn md_operands(
    context: inkwell::llvm_sys::prelude::LLVMContextRef,
    node: inkwell::llvm_sys::prelude::LLVMMetadataRef,
) -> Vec<LLVMValueRef> {
    let value = llvm::LLVMMetadataAsValue(context, node);
    if llvm::LLVMIsAMDNode(value).is_null() {
        return Vec::new();
    }
    let n = llvm::LLVMGetMDNodeNumOperands(value) as usize;
    let mut ops = vec![std::ptr::null_mut(); n];
    llvm::LLVMGetMDNodeOperands(value, ops.as_mut_ptr());
    ops
}

/// One memory access an instruction makes (for `--interleave memory`): its address
/// operand and whether it writes.
pub struct Access<'ctx> {
    pub address: BasicValueEnum<'ctx>,
    pub write: bool,
    /// An atomic instruction (C11 `_Atomic`, `__atomic_*`, `__sync_*`): synchronization,
    /// never a data race.
    pub atomic: bool,
}

/// The memory accesses of a `load`, `store`, `atomicrmw`, `cmpxchg` or memory
/// intrinsic (`llvm.memcpy/memmove`: destination written, source read; `llvm.memset`);
/// empty for anything else.
pub fn memory_accesses<'ctx>(inst: InstructionValue<'ctx>) -> Vec<Access<'ctx>> {
    // SAFETY: operands are read by the index the instruction kind defines (load: 0 the
    // address; store: 0 the value, 1 the address; atomicrmw/cmpxchg: 0 the address; a
    // memory intrinsic call: 0 the destination, 1 the source of a transfer), after the
    // LLVMIsA* check that the instruction is of that kind.
    unsafe {
        let raw = inst.as_value_ref();
        let operand = |i: u32| BasicValueEnum::new(llvm::LLVMGetOperand(raw, i));
        let atomic = || {
            llvm::LLVMGetOrdering(raw)
                != inkwell::llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic
        };
        if !llvm::LLVMIsALoadInst(raw).is_null() {
            vec![Access {
                address: operand(0),
                write: false,
                atomic: atomic(),
            }]
        } else if !llvm::LLVMIsAStoreInst(raw).is_null() {
            vec![Access {
                address: operand(1),
                write: true,
                atomic: atomic(),
            }]
        } else if !llvm::LLVMIsAAtomicRMWInst(raw).is_null()
            || !llvm::LLVMIsAAtomicCmpXchgInst(raw).is_null()
        {
            vec![Access {
                address: operand(0),
                write: true,
                atomic: true,
            }]
        } else if !llvm::LLVMIsAMemIntrinsic(raw).is_null() {
            let mut accesses = vec![Access {
                address: operand(0),
                write: true,
                atomic: false,
            }];
            if !llvm::LLVMIsAMemCpyInst(raw).is_null() || !llvm::LLVMIsAMemMoveInst(raw).is_null() {
                accesses.push(Access {
                    address: operand(1),
                    write: false,
                    atomic: false,
                });
            }
            accesses
        } else {
            Vec::new()
        }
    }
}

/// What a pointer is based on, through `getelementptr`, `bitcast` and `addrspacecast`
/// (instructions or constant expressions).
pub enum PointerRoot {
    /// A stack slot of the function; `escapes` when its address is used other than as
    /// the address of a load, store or memory intrinsic (stored somewhere, passed to a
    /// call, compared, converted to an integer...), so another thread may reach it.
    Alloca { escapes: bool },
    /// A global variable.
    Global {
        name: String,
        constant: bool,
        thread_local: bool,
        declaration: bool,
    },
    /// Anything else: an argument, a loaded pointer, a call's result, a `phi`/`select`.
    Other,
}

/// The root of a pointer value.
pub fn pointer_root(pointer: BasicValueEnum<'_>) -> PointerRoot {
    use inkwell::llvm_sys::LLVMOpcode;
    // SAFETY: only LLVMIsA* checks, operand 0 of casts/GEPs (always present), and
    // global-variable queries after LLVMIsAGlobalVariable succeeded; the name string is
    // copied out at once.
    unsafe {
        let mut v = pointer.as_value_ref();
        for _ in 0..64 {
            let through_inst = !llvm::LLVMIsAGetElementPtrInst(v).is_null()
                || !llvm::LLVMIsABitCastInst(v).is_null()
                || !llvm::LLVMIsAAddrSpaceCastInst(v).is_null();
            let through_const = !llvm::LLVMIsAConstantExpr(v).is_null()
                && matches!(
                    llvm::LLVMGetConstOpcode(v),
                    LLVMOpcode::LLVMGetElementPtr
                        | LLVMOpcode::LLVMBitCast
                        | LLVMOpcode::LLVMAddrSpaceCast
                );
            if !(through_inst || through_const) {
                break;
            }
            v = llvm::LLVMGetOperand(v, 0);
        }
        if !llvm::LLVMIsAAllocaInst(v).is_null() {
            return PointerRoot::Alloca {
                escapes: address_escapes(v),
            };
        }
        if !llvm::LLVMIsAGlobalVariable(v).is_null() {
            return PointerRoot::Global {
                name: take_str(|len| {
                    let mut n = 0usize;
                    let p = llvm::LLVMGetValueName2(v, &mut n);
                    *len = n as u32;
                    p
                }),
                constant: llvm::LLVMIsGlobalConstant(v) != 0,
                thread_local: llvm::LLVMIsThreadLocal(v) != 0,
                declaration: llvm::LLVMIsDeclaration(v) != 0,
            };
        }
        PointerRoot::Other
    }
}

/// Whether the address `v` (an alloca, or a GEP/cast of one) is used other than as the
/// address operand of a load, store or memory intrinsic, or by debug intrinsics and
/// lifetime markers.
unsafe fn address_escapes(v: LLVMValueRef) -> bool {
    let mut work = vec![v];
    while let Some(p) = work.pop() {
        let mut u = llvm::LLVMGetFirstUse(p);
        while !u.is_null() {
            let user = llvm::LLVMGetUser(u);
            u = llvm::LLVMGetNextUse(u);
            if !llvm::LLVMIsALoadInst(user).is_null()
                || !llvm::LLVMIsADbgInfoIntrinsic(user).is_null()
            {
                continue;
            }
            if !llvm::LLVMIsAStoreInst(user).is_null() {
                if llvm::LLVMGetOperand(user, 0) == p {
                    return true; // the address itself is stored
                }
                continue;
            }
            if !llvm::LLVMIsAGetElementPtrInst(user).is_null()
                || !llvm::LLVMIsABitCastInst(user).is_null()
            {
                if llvm::LLVMGetOperand(user, 0) == p {
                    work.push(user);
                    continue;
                }
                return true;
            }
            if !llvm::LLVMIsAMemIntrinsic(user).is_null() {
                continue;
            }
            if !llvm::LLVMIsAIntrinsicInst(user).is_null() {
                let callee = llvm::LLVMGetCalledValue(user);
                let mut n = 0usize;
                let name = llvm::LLVMGetValueName2(callee, &mut n);
                let name = std::slice::from_raw_parts(name as *const u8, n);
                if name.starts_with(b"llvm.lifetime.") {
                    continue;
                }
            }
            return true;
        }
    }
    false
}

/// Gives `to` the debug location of `from` (an instrumentation call inherits the
/// location of the access it precedes).
pub fn copy_debug_location(from: InstructionValue<'_>, to: InstructionValue<'_>) {
    // SAFETY: both are live instructions of the same module.
    unsafe {
        debuginfo::LLVMInstructionSetDebugLoc(
            to.as_value_ref(),
            debuginfo::LLVMInstructionGetDebugLoc(from.as_value_ref()),
        )
    }
}

/// Which parameter of `function` a value comes from: directly, through address
/// arithmetic, or (as at -O0) stored into a local and loaded back.
pub fn parameter_of(function: FunctionValue<'_>, value: LLVMValueRef, depth: u32) -> Option<u32> {
    use inkwell::llvm_sys::LLVMOpcode;
    use llvm::{LLVMGetInstructionOpcode, LLVMGetOperand, LLVMIsAInstruction};
    if depth == 0 {
        return None;
    }
    if let Some(i) = function
        .get_param_iter()
        .position(|p| p.as_value_ref() == value)
    {
        return Some(i as u32);
    }
    // SAFETY: queries on a live value of the function's module; operands are read only
    // for the opcodes that have them.
    unsafe {
        if LLVMIsAInstruction(value).is_null() {
            return None;
        }
        match LLVMGetInstructionOpcode(value) {
            LLVMOpcode::LLVMGetElementPtr
            | LLVMOpcode::LLVMBitCast
            | LLVMOpcode::LLVMAddrSpaceCast => {
                parameter_of(function, LLVMGetOperand(value, 0), depth - 1)
            }
            LLVMOpcode::LLVMLoad => {
                let slot = LLVMGetOperand(value, 0);
                let stored = instructions(&function).find(|i| {
                    i.get_opcode() == inkwell::values::InstructionOpcode::Store
                        && LLVMGetOperand(i.as_value_ref(), 1) == slot
                })?;
                parameter_of(
                    function,
                    LLVMGetOperand(stored.as_value_ref(), 0),
                    depth - 1,
                )
            }
            _ => None,
        }
    }
}

/// How one use of a global value (a variable or a function) uses it.
pub enum Use<'ctx> {
    /// Read at that address by an instruction of `function` (a load, an atomic
    /// read-modify-write or compare-exchange).
    Read(FunctionValue<'ctx>),
    /// Only stored to (the address of a store that does not also store the address).
    Written,
    /// The callee of a direct call.
    Called,
    /// Argument `index` of a direct call of `callee` (and nothing else of that call).
    Argument {
        callee: FunctionValue<'ctx>,
        index: u32,
    },
    /// Anything else (stored as a value, passed along, converted, inside a constant
    /// expression or another global's initializer): the address escapes.
    Escapes,
}

/// Every use of `value` (a global variable or a function), one entry per use.
pub fn uses<'ctx>(value: LLVMValueRef) -> Vec<Use<'ctx>> {
    let mut out = Vec::new();
    // SAFETY: `value` is a live global of the module; the use list is walked with the C
    // API's iterators while nothing is modified; operands are read by the index the
    // instruction kind defines, after the LLVMIsA* check of that kind.
    unsafe {
        let mut u = llvm::LLVMGetFirstUse(value);
        while !u.is_null() {
            let user = llvm::LLVMGetUser(u);
            out.push(classify_use(value, user));
            u = llvm::LLVMGetNextUse(u);
        }
    }
    out
}

/// # Safety
/// `user` is a live user of `value`.
unsafe fn classify_use<'ctx>(value: LLVMValueRef, user: LLVMValueRef) -> Use<'ctx> {
    if llvm::LLVMIsAInstruction(user).is_null() {
        return Use::Escapes;
    }
    let function = || {
        let block = llvm::LLVMGetInstructionParent(user);
        FunctionValue::new(llvm::LLVMGetBasicBlockParent(block))
    };
    let n = llvm::LLVMGetNumOperands(user) as u32;
    let operands: Vec<LLVMValueRef> = (0..n).map(|i| llvm::LLVMGetOperand(user, i)).collect();
    let only_at = |index: usize| {
        operands
            .iter()
            .enumerate()
            .all(|(i, op)| (*op == value) == (i == index))
    };
    if !llvm::LLVMIsALoadInst(user).is_null()
        || !llvm::LLVMIsAAtomicRMWInst(user).is_null()
        || !llvm::LLVMIsAAtomicCmpXchgInst(user).is_null()
    {
        return match (only_at(0), function()) {
            (true, Some(f)) => Use::Read(f),
            _ => Use::Escapes,
        };
    }
    if !llvm::LLVMIsAStoreInst(user).is_null() {
        return if only_at(1) {
            Use::Written
        } else {
            Use::Escapes
        };
    }
    if !llvm::LLVMIsACallInst(user).is_null() || !llvm::LLVMIsAInvokeInst(user).is_null() {
        let args = llvm::LLVMGetNumArgOperands(user) as usize;
        let callee = llvm::LLVMGetCalledValue(user);
        if callee == value && only_at(n as usize - 1) {
            return Use::Called;
        }
        let index = operands[..args].iter().position(|op| *op == value);
        let called = FunctionValue::new(llvm::LLVMIsAFunction(callee));
        if let (Some(index), Some(callee)) = (index, called) {
            if only_at(index) {
                return Use::Argument {
                    callee,
                    index: index as u32,
                };
            }
        }
    }
    Use::Escapes
}
