//! Types as far as the analysis cares: their shape, struct names, and element types.

use super::Type;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::LLVMTypeKind;
use std::ffi::CStr;

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
