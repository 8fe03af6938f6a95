//! Read-only view of an LLVM module: the analysis's only module that calls the LLVM C
//! API (raw `llvm-sys`, re-exported by inkwell), so every `unsafe` LLVM call of the
//! analysis is here, each block with its SAFETY note.
//!
//! Handles ([`Func`], [`Block`], [`Value`], [`Type`]) are thin `Copy` wrappers of raw
//! LLVM references that borrow the [`Module`] they came from (`Value<'m>` and so on):
//! the compiler rejects a handle used after its module, which owns the LLVM context,
//! is dropped. The module is never mutated, so a handle stays valid for that borrow.
//!
//! The handles and the module are defined here, so only this module's files (`module`:
//! loading and module-wide maps; `function`: functions and blocks; `value`: values and
//! instructions; `types`) reach their raw references.

mod function;
mod module;
mod types;
mod value;

pub use types::TypeShape;
pub use value::predicate_smt;

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::target::*;
use std::marker::PhantomData;

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

/// Defines a handle type: a raw LLVM reference that borrows the [`Module`] it belongs
/// to, so the compiler rejects any use after the module (and its context) is disposed.
macro_rules! handle {
    ($(#[$doc:meta])* $name:ident($raw:ty) $(, $derive:ident)*) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash $(, $derive)*)]
        pub struct $name<'m>($raw, PhantomData<&'m Module>);

        impl<'m> $name<'m> {
            /// Wraps a reference obtained from a live module borrowed for `'m`; only
            /// this module's FFI calls (`ir/`) create handles, each from a module or a handle
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
