//! The module as a whole: loading bitcode, its functions and data layout, and the maps
//! computed over every function once (direct callers, indirect callers by type, the
//! targets of virtual calls through vtable slots).

use super::{Func, LibcChar, Module, Type, TypeShape, Value};
use crate::error::AnalysisError;
use inkwell::llvm_sys::bit_reader::LLVMParseBitcodeInContext2;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::target::*;
use inkwell::llvm_sys::LLVMOpcode;
use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::path::Path;

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
