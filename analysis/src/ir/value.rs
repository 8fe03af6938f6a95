//! Values: instructions, arguments, constants and globals, with what the analysis reads
//! of each (opcode, operands, callee, branch and switch targets, phi incomings,
//! initializers, debug locations), and the SMT form of an integer comparison.

use super::{cstr, value_name, Block, Func, IntPredicate, Opcode, Type, TypeShape, Value};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode};
use std::ffi::CStr;
use std::path::Path;

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
    pub(super) fn is_inline_asm_call(self) -> bool {
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
