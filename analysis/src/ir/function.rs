//! Functions and their basic blocks: names, parameters, blocks, instructions,
//! terminators, successors and the predecessor map.

use super::{value_name, Block, Func, Type, TypeShape, Value};
use inkwell::llvm_sys::core::*;
use std::collections::HashMap;
use std::ffi::CStr;

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
    /// The bytes parameter `i` is declared to point to (`dereferenceable(N)`): for a
    /// C++ method's `this`, the size of its class without virtual bases.
    pub fn param_dereferenceable(self, i: u32) -> Option<u64> {
        if i >= self.param_count() {
            return None;
        }
        const NAME: &str = "dereferenceable";
        // SAFETY: live function, index checked; the name's length is passed with it;
        // attribute index 0 is the return value, parameters start at 1.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(NAME.as_ptr().cast(), NAME.len());
            let attr = LLVMGetEnumAttributeAtIndex(self.0, i + 1, kind);
            (!attr.is_null()).then(|| LLVMGetEnumAttributeValue(attr))
        }
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
    /// The shape of the function's return type.
    pub fn return_shape(self) -> TypeShape {
        // SAFETY: live function; its value type is its function type.
        Type::from_raw(unsafe { LLVMGetReturnType(LLVMGlobalGetValueType(self.0)) }).shape()
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
