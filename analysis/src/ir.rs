//! Read-only view of an LLVM module: the analysis's only file that calls the LLVM C
//! API (raw `llvm-sys`, re-exported by inkwell), so every `unsafe` LLVM call of the
//! analysis is here, each block with its SAFETY note.
//!
//! Handles ([`Func`], [`Block`], [`Value`], [`Type`]) are thin `Copy` wrappers of raw
//! LLVM references that borrow the [`Module`] they came from (`Value<'m>` and so on):
//! the compiler rejects a handle used after its module, which owns the LLVM context,
//! is dropped. The module is never mutated, so a handle stays valid for that borrow.

use crate::error::AnalysisError;
use inkwell::llvm_sys::bit_reader::LLVMParseBitcodeInContext2;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::target::*;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMTypeKind};
use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::marker::PhantomData;
use std::path::Path;

pub use inkwell::llvm_sys::LLVMIntPredicate as IntPredicate;
pub use inkwell::llvm_sys::LLVMOpcode as Opcode;

/// A loaded bitcode module (owns its LLVM context).
pub struct Module {
    ctx: LLVMContextRef,
    module: LLVMModuleRef,
    layout: LLVMTargetDataRef,
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: created in `load`, disposed once.
        unsafe {
            LLVMDisposeTargetData(self.layout);
            LLVMDisposeModule(self.module);
            LLVMContextDispose(self.ctx);
        }
    }
}

fn cstr(p: *const LibcChar, len: usize) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: LLVM returns `len` valid bytes.
    let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, len) };
    String::from_utf8_lossy(bytes).into_owned()
}
type LibcChar = std::os::raw::c_char;

impl Module {
    /// The id of the metadata kind `name` in this module's context.
    pub fn metadata_kind(&self, name: &str) -> u32 {
        // SAFETY: the context is alive; LLVM copies the name.
        unsafe {
            LLVMGetMDKindIDInContext(
                self.ctx,
                name.as_ptr() as *const LibcChar,
                name.len() as u32,
            )
        }
    }

    /// Reads a bitcode file.
    pub fn load(path: &Path) -> Result<Module, AnalysisError> {
        let bad = |why: String| AnalysisError::Bitcode {
            path: path.to_path_buf(),
            why,
        };
        let cpath =
            CString::new(path.to_string_lossy().as_bytes()).map_err(|e| bad(e.to_string()))?;
        // SAFETY: standard C API sequence; every out-pointer is checked.
        unsafe {
            let mut buf: LLVMMemoryBufferRef = std::ptr::null_mut();
            let mut msg: *mut LibcChar = std::ptr::null_mut();
            if LLVMCreateMemoryBufferWithContentsOfFile(cpath.as_ptr(), &mut buf, &mut msg) != 0 {
                let why = CStr::from_ptr(msg).to_string_lossy().into_owned();
                LLVMDisposeMessage(msg);
                return Err(bad(why));
            }
            let ctx = LLVMContextCreate();
            let mut module: LLVMModuleRef = std::ptr::null_mut();
            let failed = LLVMParseBitcodeInContext2(ctx, buf, &mut module) != 0;
            LLVMDisposeMemoryBuffer(buf);
            if failed {
                LLVMContextDispose(ctx);
                return Err(bad("not valid LLVM 16 bitcode".into()));
            }
            let layout = LLVMCreateTargetData(LLVMGetDataLayoutStr(module));
            Ok(Module {
                ctx,
                module,
                layout,
            })
        }
    }

    /// Functions in module order.
    pub fn functions(&self) -> Vec<Func<'_>> {
        let mut out = Vec::new();
        // SAFETY: iteration over a live module.
        unsafe {
            let mut f = LLVMGetFirstFunction(self.module);
            while !f.is_null() {
                out.push(Func::from_raw(f));
                f = LLVMGetNextFunction(f);
            }
        }
        out
    }

    /// Looks a function up by (mangled) name.
    pub fn function(&self, name: &str) -> Option<Func<'_>> {
        let c = CString::new(name).ok()?;
        // SAFETY: live module.
        let f = unsafe { LLVMGetNamedFunction(self.module, c.as_ptr()) };
        (!f.is_null()).then_some(Func::from_raw(f))
    }

    /// Byte offset of a struct element.
    pub fn offset_of_element(&self, ty: Type<'_>, index: u32) -> u64 {
        // SAFETY: struct type of this module.
        unsafe { LLVMOffsetOfElement(self.layout, ty.0, index) }
    }

    /// Allocation size of a type in bytes.
    pub fn alloc_size(&self, ty: Type<'_>) -> u64 {
        // SAFETY: sized type of this module.
        unsafe { LLVMABISizeOfType(self.layout, ty.0) }
    }

    /// Map from each function with a body whose address is taken (stored, passed, in a
    /// vtable or a table) to the indirect call/invoke instructions whose function type
    /// is its type: the calls that may reach it through a function pointer or a
    /// virtual call. An over-approximation: the targets of a call are not narrowed
    /// here (see the analysis's frames, which rule out a target when the called value
    /// is known).
    pub fn indirect_callers(&self) -> HashMap<Func<'_>, Vec<Value<'_>>> {
        let mut calls_by_type: HashMap<LLVMTypeRef, Vec<Value<'_>>> = HashMap::new();
        for f in self.functions() {
            for b in f.blocks() {
                for i in b.instructions() {
                    if i.is_call() && i.called_function().is_none() && !i.is_inline_asm_call() {
                        // SAFETY: call-like instruction.
                        calls_by_type
                            .entry(unsafe { LLVMGetCalledFunctionType(i.0) })
                            .or_default()
                            .push(i);
                    }
                }
            }
        }
        let mut map = HashMap::new();
        for f in self
            .functions()
            .into_iter()
            .filter(|f| f.has_body() && f.is_address_taken())
        {
            // SAFETY: live function; its value type is its function type.
            let ty = unsafe { LLVMGlobalGetValueType(f.0) };
            if let Some(calls) = calls_by_type.get(&ty) {
                map.insert(f, calls.clone());
            }
        }
        map
    }

    /// Map from each virtual call to the functions it may call: a call through slot N
    /// of a vtable (`load` of the object's vtable pointer, `getelementptr ptr, N`,
    /// `load` of the slot) may reach the function N entries after any address point
    /// the module's code installs (rapid type analysis: a class whose constructor is
    /// never emitted installs no address point, so its methods are no candidates),
    /// when its type is the call's. An indirect call that does not have that shape, or
    /// whose slot holds no function of its type, is not in the map (it is matched by
    /// type alone, see [`Module::indirect_callers`]).
    pub fn virtual_call_targets(&self) -> HashMap<Value<'_>, Vec<Func<'_>>> {
        // Address points: (vtable global, inner array, index) as installed by
        // constructors (directly or through a VTT).
        let mut points: Vec<(Value<'_>, u32, u64)> = Vec::new();
        let mut calls = Vec::new();
        for f in self.functions().into_iter().filter(|f| f.has_body()) {
            for b in f.blocks() {
                for i in b.instructions() {
                    for k in 0..i.operand_count() {
                        address_points(i.operand(k), &mut points, 0);
                    }
                    if i.is_call() && i.called_function().is_none() && !i.is_inline_asm_call() {
                        calls.push(i);
                    }
                }
            }
        }
        // SAFETY: iteration over the live module's globals.
        unsafe {
            let mut g = LLVMGetFirstGlobal(self.module);
            while !g.is_null() {
                let gv = Value::from_raw(g);
                if gv.name().starts_with("_ZTT") {
                    if let Some(init) = gv.initializer() {
                        address_points(init, &mut points, 0);
                    }
                }
                g = LLVMGetNextGlobal(g);
            }
        }
        points.sort();
        points.dedup();
        let mut map = HashMap::new();
        for call in calls {
            let Some(slot) = vtable_slot(call) else {
                continue;
            };
            // SAFETY: call-like instruction; functions are live.
            let ty = unsafe { LLVMGetCalledFunctionType(call.0) };
            let mut targets: Vec<Func<'_>> = Vec::new();
            for (g, array, index) in &points {
                let Some(init) = g.initializer() else {
                    continue;
                };
                let entry = init
                    .aggregate_element(*array)
                    .and_then(|a| a.aggregate_element((*index + slot) as u32));
                let Some(target) = entry.and_then(|e| e.as_function()) else {
                    continue;
                };
                // SAFETY: live function; its value type is its function type.
                if unsafe { LLVMGlobalGetValueType(target.0) } == ty && !targets.contains(&target) {
                    targets.push(target);
                }
            }
            if !targets.is_empty() {
                targets.sort();
                map.insert(call, targets);
            }
        }
        map
    }

    /// Map from each function to the direct call/invoke instructions that call it.
    pub fn callers(&self) -> HashMap<Func<'_>, Vec<Value<'_>>> {
        let mut map: HashMap<Func<'_>, Vec<Value<'_>>> = HashMap::new();
        for f in self.functions() {
            for b in f.blocks() {
                for i in b.instructions() {
                    if let Some(callee) = i.called_function() {
                        map.entry(callee).or_default().push(i);
                    }
                }
            }
        }
        map
    }
}

/// Defines a handle type: a raw LLVM reference that borrows the [`Module`] it belongs
/// to, so the compiler rejects any use after the module (and its context) is disposed.
macro_rules! handle {
    ($(#[$doc:meta])* $name:ident($raw:ty) $(, $derive:ident)*) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash $(, $derive)*)]
        pub struct $name<'m>($raw, PhantomData<&'m Module>);

        impl<'m> $name<'m> {
            /// Wraps a reference obtained from a live module borrowed for `'m`; only
            /// this file's FFI calls create handles, each from a module or a handle
            /// of the same module.
            fn from_raw(raw: $raw) -> Self {
                $name(raw, PhantomData)
            }
        }

        // Printed as the raw reference alone, as before handles carried a lifetime
        // (messages about unsupported values include it).
        impl std::fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_tuple(stringify!($name)).field(&self.0).finish()
            }
        }
    };
}

handle!(
    /// A function of the module `'m`.
    Func(LLVMValueRef), PartialOrd, Ord
);
handle!(
    /// A basic block of the module `'m`.
    Block(LLVMBasicBlockRef), PartialOrd, Ord
);
handle!(
    /// Any value of the module `'m`: instruction, argument, constant, global.
    Value(LLVMValueRef), PartialOrd, Ord
);
handle!(
    /// A type of the module `'m` (owned by its context).
    Type(LLVMTypeRef)
);

fn value_name(v: LLVMValueRef) -> String {
    let mut len = 0usize;
    // SAFETY: live value.
    let p = unsafe { LLVMGetValueName2(v, &mut len) };
    cstr(p, len)
}

impl<'m> Func<'m> {
    pub fn name(self) -> String {
        value_name(self.0)
    }
    /// Has a body in this module.
    pub fn has_body(self) -> bool {
        // SAFETY: live function.
        unsafe { LLVMCountBasicBlocks(self.0) > 0 }
    }
    pub fn blocks(self) -> Vec<Block<'m>> {
        let mut out = Vec::new();
        // SAFETY: live function.
        unsafe {
            let mut b = LLVMGetFirstBasicBlock(self.0);
            while !b.is_null() {
                out.push(Block::from_raw(b));
                b = LLVMGetNextBasicBlock(b);
            }
        }
        out
    }
    pub fn entry(self) -> Option<Block<'m>> {
        self.blocks().first().copied()
    }
    pub fn param(self, i: u32) -> Option<Value<'m>> {
        // SAFETY: index checked against the count.
        unsafe { (i < LLVMCountParams(self.0)).then(|| Value::from_raw(LLVMGetParam(self.0, i))) }
    }
    pub fn param_count(self) -> u32 {
        // SAFETY: live function.
        unsafe { LLVMCountParams(self.0) }
    }
    /// Some use of the function is not as the callee of a direct call: it is stored,
    /// passed, compared, or an element of a constant (a vtable, a table of handlers).
    pub fn is_address_taken(self) -> bool {
        // SAFETY: walks the use list of a live function; users are live values.
        unsafe {
            let mut u = LLVMGetFirstUse(self.0);
            while !u.is_null() {
                let user = Value::from_raw(LLVMGetUser(u));
                let direct = user.is_call()
                    && LLVMGetCalledValue(user.0) == self.0
                    && !user.call_args().iter().any(|a| a.0 == self.0);
                if !direct {
                    return true;
                }
                u = LLVMGetNextUse(u);
            }
        }
        false
    }
    pub fn as_value(self) -> Value<'m> {
        Value::from_raw(self.0)
    }
    /// Predecessor lists of every block.
    pub fn predecessors(self) -> HashMap<Block<'m>, Vec<Block<'m>>> {
        let mut map: HashMap<Block<'m>, Vec<Block<'m>>> =
            self.blocks().into_iter().map(|b| (b, Vec::new())).collect();
        for b in self.blocks() {
            let mut seen = Vec::new();
            for s in b.successors() {
                if !seen.contains(&s) {
                    seen.push(s);
                    map.entry(s).or_default().push(b);
                }
            }
        }
        map
    }
}

impl<'m> Block<'m> {
    pub fn name(self) -> String {
        // SAFETY: live block.
        unsafe {
            CStr::from_ptr(LLVMGetBasicBlockName(self.0))
                .to_string_lossy()
                .into_owned()
        }
    }
    pub fn instructions(self) -> Vec<Value<'m>> {
        let mut out = Vec::new();
        // SAFETY: live block.
        unsafe {
            let mut i = LLVMGetFirstInstruction(self.0);
            while !i.is_null() {
                out.push(Value::from_raw(i));
                i = LLVMGetNextInstruction(i);
            }
        }
        out
    }
    pub fn terminator(self) -> Option<Value<'m>> {
        // SAFETY: live block.
        let t = unsafe { LLVMGetBasicBlockTerminator(self.0) };
        (!t.is_null()).then_some(Value::from_raw(t))
    }
    pub fn successors(self) -> Vec<Block<'m>> {
        let Some(t) = self.terminator() else {
            return Vec::new();
        };
        // SAFETY: terminator of a live block.
        unsafe {
            (0..LLVMGetNumSuccessors(t.0))
                .map(|i| Block::from_raw(LLVMGetSuccessor(t.0, i)))
                .collect()
        }
    }
    pub fn function(self) -> Func<'m> {
        // SAFETY: live block.
        Func::from_raw(unsafe { LLVMGetBasicBlockParent(self.0) })
    }
}

impl<'m> Value<'m> {
    pub fn name(self) -> String {
        value_name(self.0)
    }
    /// Instruction opcode, or the opcode of a constant expression.
    pub fn opcode(self) -> Option<Opcode> {
        // SAFETY: type queries on a live value.
        unsafe {
            if !LLVMIsAInstruction(self.0).is_null() {
                Some(LLVMGetInstructionOpcode(self.0))
            } else if !LLVMIsAConstantExpr(self.0).is_null() {
                Some(LLVMGetConstOpcode(self.0))
            } else {
                None
            }
        }
    }
    pub fn is_instruction(self) -> bool {
        // SAFETY: live value.
        unsafe { !LLVMIsAInstruction(self.0).is_null() }
    }
    pub fn is_argument(self) -> bool {
        // SAFETY: live value.
        unsafe { !LLVMIsAArgument(self.0).is_null() }
    }
    /// The function of an argument.
    pub fn argument_of(self) -> Option<(Func<'m>, u32)> {
        if !self.is_argument() {
            return None;
        }
        // SAFETY: argument of a live function.
        unsafe {
            let f = LLVMGetParamParent(self.0);
            (0..LLVMCountParams(f))
                .find(|&i| LLVMGetParam(f, i) == self.0)
                .map(|i| (Func::from_raw(f), i))
        }
    }
    pub fn is_global_variable(self) -> bool {
        // SAFETY: live value.
        unsafe { !LLVMIsAGlobalVariable(self.0).is_null() }
    }
    /// The function this value is, looking through global aliases: clang emits a
    /// constructor defined outside its class as the base-object constructor (C2)
    /// with the complete-object one (C1, which callers call) an alias of it.
    pub fn as_function(self) -> Option<Func<'m>> {
        // SAFETY: live value; an alias's aliasee is a live constant of the module.
        unsafe {
            if !LLVMIsAGlobalAlias(self.0).is_null() {
                return Value::from_raw(LLVMAliasGetAliasee(self.0)).as_function();
            }
            (!LLVMIsAFunction(self.0).is_null()).then_some(Func::from_raw(self.0))
        }
    }
    pub fn is_null_pointer(self) -> bool {
        // SAFETY: live value.
        unsafe { !LLVMIsAConstantPointerNull(self.0).is_null() }
    }
    pub fn is_undef(self) -> bool {
        // SAFETY: live value.
        unsafe { !LLVMIsAUndefValue(self.0).is_null() || !LLVMIsAPoisonValue(self.0).is_null() }
    }
    /// The value of an integer constant (sign-extended to 64 bits is not done: raw bits).
    pub fn const_int(self) -> Option<u64> {
        // SAFETY: checked to be a ConstantInt first.
        unsafe { (!LLVMIsAConstantInt(self.0).is_null()).then(|| LLVMConstIntGetZExtValue(self.0)) }
    }
    pub fn const_int_signed(self) -> Option<i64> {
        // SAFETY: checked to be a ConstantInt first.
        unsafe { (!LLVMIsAConstantInt(self.0).is_null()).then(|| LLVMConstIntGetSExtValue(self.0)) }
    }
    pub fn operand_count(self) -> u32 {
        // SAFETY: live user.
        unsafe { LLVMGetNumOperands(self.0).max(0) as u32 }
    }
    pub fn operand(self, i: u32) -> Value<'m> {
        // SAFETY: callers stay below operand_count.
        Value::from_raw(unsafe { LLVMGetOperand(self.0, i) })
    }
    pub fn ty(self) -> Type<'m> {
        // SAFETY: live value.
        Type::from_raw(unsafe { LLVMTypeOf(self.0) })
    }
    pub fn block(self) -> Block<'m> {
        // SAFETY: instruction in a live block.
        Block::from_raw(unsafe { LLVMGetInstructionParent(self.0) })
    }
    /// A call or invoke instruction.
    pub fn is_call(self) -> bool {
        matches!(
            self.opcode(),
            Some(LLVMOpcode::LLVMCall) | Some(LLVMOpcode::LLVMInvoke)
        )
    }
    /// The values that use this one (instructions and constants).
    pub fn users(self) -> Vec<Value<'m>> {
        let mut out = Vec::new();
        // SAFETY: walks the use list of a live value; users are live values.
        unsafe {
            let mut u = LLVMGetFirstUse(self.0);
            while !u.is_null() {
                out.push(Value::from_raw(LLVMGetUser(u)));
                u = LLVMGetNextUse(u);
            }
        }
        out
    }
    /// A load of an object's vtable pointer: its result is the base of a vtable slot
    /// (see [`Module::virtual_call_targets`]) whose loaded function is called.
    pub fn is_vtable_pointer_load(self) -> bool {
        let called = |slot: Value<'m>| {
            slot.users().into_iter().any(|l| {
                l.opcode() == Some(LLVMOpcode::LLVMLoad)
                    && l.users()
                        .into_iter()
                        .any(|c| c.is_call() && c.called_value() == l)
            })
        };
        self.opcode() == Some(LLVMOpcode::LLVMLoad)
            && self.users().into_iter().any(|u| match u.opcode() {
                Some(LLVMOpcode::LLVMLoad) => called(self),
                Some(LLVMOpcode::LLVMGetElementPtr) => {
                    u.operand(0) == self
                        && u.gep_source_type().shape() == TypeShape::Pointer
                        && called(u)
                }
                _ => false,
            })
    }
    /// A call of inline assembly (no function is called).
    fn is_inline_asm_call(self) -> bool {
        // SAFETY: call-like instruction; its called value is live.
        unsafe { !LLVMIsAInlineAsm(LLVMGetCalledValue(self.0)).is_null() }
    }
    /// The called value of a call or invoke: a function, or the pointer an indirect
    /// call goes through.
    pub fn called_value(self) -> Value<'m> {
        // SAFETY: callers check the instruction is call-like.
        Value::from_raw(unsafe { LLVMGetCalledValue(self.0) })
    }
    /// The directly called function of a call or invoke.
    pub fn called_function(self) -> Option<Func<'m>> {
        match self.opcode()? {
            LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke => {
                // SAFETY: call-like instruction.
                let callee = unsafe { LLVMGetCalledValue(self.0) };
                Value::from_raw(callee).as_function()
            }
            _ => None,
        }
    }
    /// The string that is the first operand of the instruction's metadata of kind
    /// `kind` (see [`Module::metadata_kind`]), if it has such an attachment.
    pub fn metadata_string(self, kind: u32) -> Option<String> {
        if !self.is_instruction() {
            return None;
        }
        // SAFETY: an instruction; the node's operands are read into a buffer of their
        // count; LLVMGetMDString returns null for an operand that is not a string.
        unsafe {
            let node = LLVMGetMetadata(self.0, kind);
            if node.is_null() || LLVMGetMDNodeNumOperands(node) == 0 {
                return None;
            }
            let mut operands = vec![std::ptr::null_mut(); LLVMGetMDNodeNumOperands(node) as usize];
            LLVMGetMDNodeOperands(node, operands.as_mut_ptr());
            let mut len = 0u32;
            let text = LLVMGetMDString(operands[0], &mut len);
            (!text.is_null()).then(|| cstr(text, len as usize))
        }
    }
    /// Arguments of a call or invoke.
    pub fn call_args(self) -> Vec<Value<'m>> {
        // SAFETY: call-like instruction.
        let n = unsafe { LLVMGetNumArgOperands(self.0) };
        (0..n).map(|i| self.operand(i)).collect()
    }
    pub fn int_predicate(self) -> IntPredicate {
        // SAFETY: callers check the opcode is icmp.
        unsafe { LLVMGetICmpPredicate(self.0) }
    }
    /// Condition of a conditional branch / switch.
    pub fn condition(self) -> Value<'m> {
        self.operand(0)
    }
    pub fn is_conditional_branch(self) -> bool {
        // SAFETY: branch instruction.
        self.opcode() == Some(LLVMOpcode::LLVMBr) && unsafe { LLVMIsConditional(self.0) != 0 }
    }
    pub fn successor(self, i: u32) -> Block<'m> {
        // SAFETY: terminator with at least i+1 successors.
        Block::from_raw(unsafe { LLVMGetSuccessor(self.0, i) })
    }
    /// Switch cases: (case value, destination).
    pub fn switch_cases(self) -> Vec<(Value<'m>, Block<'m>)> {
        let n = self.operand_count() / 2;
        // SAFETY: operands 2k are case values, 2k+1 destination blocks.
        (1..n)
            .map(|k| {
                (
                    self.operand(2 * k),
                    Block::from_raw(unsafe { LLVMValueAsBasicBlock(self.operand(2 * k + 1).0) }),
                )
            })
            .collect()
    }
    /// Phi incoming (value, block).
    pub fn incoming(self) -> Vec<(Value<'m>, Block<'m>)> {
        // SAFETY: phi instruction.
        unsafe {
            (0..LLVMCountIncoming(self.0))
                .map(|i| {
                    (
                        Value::from_raw(LLVMGetIncomingValue(self.0, i)),
                        Block::from_raw(LLVMGetIncomingBlock(self.0, i)),
                    )
                })
                .collect()
        }
    }
    pub fn gep_source_type(self) -> Type<'m> {
        // SAFETY: GEP instruction or constant expression.
        Type::from_raw(unsafe { LLVMGetGEPSourceElementType(self.0) })
    }
    /// The type of a global variable's value.
    pub fn global_value_type(self) -> Type<'m> {
        // SAFETY: global variable (callers check `is_global_variable`).
        Type::from_raw(unsafe { LLVMGlobalGetValueType(self.0) })
    }
    pub fn allocated_type(self) -> Type<'m> {
        // SAFETY: alloca.
        Type::from_raw(unsafe { LLVMGetAllocatedType(self.0) })
    }
    /// Initializer of a global variable.
    pub fn initializer(self) -> Option<Value<'m>> {
        // SAFETY: global variable.
        let i = unsafe { LLVMGetInitializer(self.0) };
        (!i.is_null()).then_some(Value::from_raw(i))
    }
    pub fn is_constant_global(self) -> bool {
        // SAFETY: global variable.
        unsafe { LLVMIsGlobalConstant(self.0) != 0 }
    }
    /// A constant C string (the initializer of a global like `@.str`), without the NUL.
    pub fn c_string(self) -> Option<String> {
        let init = if self.is_global_variable() {
            self.initializer()?
        } else {
            self
        };
        // `""` is a zero-initialised `[1 x i8]`.
        if init.is_zero_initializer()
            && matches!(init.ty().shape(), TypeShape::Array)
            && init.ty().array_element().shape() == TypeShape::Int(8)
        {
            return Some(String::new());
        }
        // SAFETY: checked to be a constant data sequence of i8.
        unsafe {
            if LLVMIsAConstantDataSequential(init.0).is_null() || LLVMIsConstantString(init.0) == 0
            {
                return None;
            }
            let mut len = 0usize;
            let p = LLVMGetAsString(init.0, &mut len);
            let s = cstr(p, len);
            Some(s.trim_end_matches('\0').to_string())
        }
    }
    /// Element of an aggregate constant (struct/array initializer), if any.
    pub fn aggregate_element(self, i: u32) -> Option<Value<'m>> {
        // SAFETY: LLVMGetAggregateElement returns null when out of range.
        let e = unsafe { LLVMGetAggregateElement(self.0, i) };
        (!e.is_null()).then_some(Value::from_raw(e))
    }
    pub fn is_zero_initializer(self) -> bool {
        // SAFETY: live value.
        unsafe { !LLVMIsAConstantAggregateZero(self.0).is_null() }
    }
    /// `file:line` of the instruction's debug location, if it has one.
    pub fn location(self) -> Option<(String, u32)> {
        if !self.is_instruction() {
            return None;
        }
        // SAFETY: instruction; LLVM returns (ptr,len) or null.
        unsafe {
            let line = LLVMGetDebugLocLine(self.0);
            let mut len = 0u32;
            let p = LLVMGetDebugLocFilename(self.0, &mut len);
            if line == 0 || p.is_null() {
                return None;
            }
            Some((cstr(p, len as usize), line))
        }
    }
    /// Whether the instruction's debug location lies in a system header (the C/C++
    /// standard library, SystemC): library code, not the design's.
    pub fn in_system_header(self) -> bool {
        let Some((file, _)) = self.location() else {
            return false;
        };
        let path = Path::new(&file);
        if path.is_absolute() {
            return syncmut_mutator::source::is_system_path(path);
        }
        // SAFETY: instruction with a location (checked above); LLVM returns (ptr,len) or null.
        let dir = unsafe {
            let mut len = 0u32;
            let p = LLVMGetDebugLocDirectory(self.0, &mut len);
            if p.is_null() {
                return false;
            }
            cstr(p, len as usize)
        };
        syncmut_mutator::source::is_system_path(&Path::new(&dir).join(path))
    }
    /// `file:line` text, or `?` (file name only, not the directory).
    pub fn where_(self) -> String {
        match self.location() {
            Some((f, l)) => format!(
                "{}:{l}",
                Path::new(&f)
                    .file_name()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or(f)
            ),
            None => "?".into(),
        }
    }
    /// Printed IR of the value (for messages), without its metadata attachments
    /// (`, !dbg !61`): the message gives the source location in words.
    pub fn print(self) -> String {
        // SAFETY: LLVMPrintValueToString returns an owned message.
        let s = unsafe {
            let p = LLVMPrintValueToString(self.0);
            let s = CStr::from_ptr(p).to_string_lossy().into_owned();
            LLVMDisposeMessage(p);
            s
        };
        let s = s.trim();
        s.find(", !").map_or(s, |cut| &s[..cut]).to_string()
    }
}

/// Collects the vtable address points `v` names: constant `getelementptr ({…}, @_ZTV…
/// or @_ZTC…, 0, i, j)` expressions, looked for through nested constants.
fn address_points<'m>(v: Value<'m>, out: &mut Vec<(Value<'m>, u32, u64)>, depth: u32) {
    // Only constants have constant operands to look through (a block or metadata
    // operand has none; a global's operand is its initializer).
    // SAFETY: type query on a live value.
    let constant = unsafe { !LLVMIsAConstant(v.0).is_null() };
    if depth > 4 || !constant || v.is_global_variable() || v.as_function().is_some() {
        return;
    }
    if v.opcode() == Some(LLVMOpcode::LLVMGetElementPtr) && v.operand_count() == 4 {
        let g = v.operand(0);
        let name = if g.is_global_variable() {
            g.name()
        } else {
            String::new()
        };
        if name.starts_with("_ZTV") || name.starts_with("_ZTC") {
            if let (Some(0), Some(i), Some(j)) = (
                v.operand(1).const_int(),
                v.operand(2).const_int(),
                v.operand(3).const_int(),
            ) {
                out.push((g, i as u32, j));
                return;
            }
        }
    }
    for k in 0..v.operand_count() {
        address_points(v.operand(k), out, depth + 1);
    }
}

/// The vtable slot an indirect call goes through, if its callee is `load (gep ptr,
/// (load obj), N)` or `load (load obj)` (slot 0).
fn vtable_slot(call: Value<'_>) -> Option<u64> {
    let callee = call.called_value();
    if callee.opcode()? != LLVMOpcode::LLVMLoad {
        return None;
    }
    let slot = callee.operand(0);
    match slot.opcode()? {
        LLVMOpcode::LLVMLoad => Some(0),
        LLVMOpcode::LLVMGetElementPtr
            if slot.operand_count() == 2
                && slot.gep_source_type().shape() == TypeShape::Pointer =>
        {
            (slot.operand(0).opcode()? == LLVMOpcode::LLVMLoad).then_some(())?;
            slot.operand(1).const_int()
        }
        _ => None,
    }
}

/// Shape of a type, as far as the analysis cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeShape {
    Int(u32),
    Pointer,
    Struct,
    Array,
    Other,
}

impl<'m> Type<'m> {
    /// The name of a named struct type (`class.sc_core::sc_signal<int>`), if it is one.
    pub fn struct_name(self) -> Option<String> {
        if self.shape() != TypeShape::Struct {
            return None;
        }
        // SAFETY: a struct type of this module; the name, when set, is a C string it owns.
        unsafe {
            let p = LLVMGetStructName(self.0);
            (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
        }
    }
    pub fn shape(self) -> TypeShape {
        // SAFETY: live type.
        unsafe {
            match LLVMGetTypeKind(self.0) {
                LLVMTypeKind::LLVMIntegerTypeKind => TypeShape::Int(LLVMGetIntTypeWidth(self.0)),
                LLVMTypeKind::LLVMPointerTypeKind => TypeShape::Pointer,
                LLVMTypeKind::LLVMStructTypeKind => TypeShape::Struct,
                LLVMTypeKind::LLVMArrayTypeKind => TypeShape::Array,
                _ => TypeShape::Other,
            }
        }
    }
    /// Type<'m> of struct element `i`.
    pub fn struct_element(self, i: u32) -> Type<'m> {
        // SAFETY: struct type, index from a GEP the verifier accepted.
        Type::from_raw(unsafe { LLVMStructGetTypeAtIndex(self.0, i) })
    }
    /// Element type of an array.
    pub fn array_element(self) -> Type<'m> {
        // SAFETY: array type.
        Type::from_raw(unsafe { LLVMGetElementType(self.0) })
    }
}

/// Whether an icmp predicate is signed.
pub fn predicate_smt(p: IntPredicate) -> (&'static str, bool) {
    use LLVMIntPredicate::*;
    match p {
        LLVMIntEQ => ("=", false),
        LLVMIntNE => ("distinct", false),
        LLVMIntUGT => ("bvugt", false),
        LLVMIntUGE => ("bvuge", false),
        LLVMIntULT => ("bvult", false),
        LLVMIntULE => ("bvule", false),
        LLVMIntSGT => ("bvsgt", true),
        LLVMIntSGE => ("bvsge", true),
        LLVMIntSLT => ("bvslt", true),
        LLVMIntSLE => ("bvsle", true),
    }
}
