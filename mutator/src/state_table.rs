//! The tables the runtime's state snapshots read, one entry per recorded value: the
//! design's globals (`globals.rs`) and the data members of SystemC module classes
//! (`members.rs`) share the entry layout (runtime-lib/src/trace.c, `struct syncmut_field`):
//!
//! ```c
//! struct syncmut_enumerator { uint64_t value; const char *name; };
//! struct syncmut_field {
//!     const char *name;
//!     uint64_t where;   /* a global's address, or a member's byte offset in its object */
//!     const struct syncmut_enumerator *enums;
//!     uint32_t size, kind, nenums;
//! };
//! ```

use crate::debug_types::Decoding;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::StructType;
use inkwell::values::{IntValue, PointerValue, StructValue};
use inkwell::AddressSpace;

/// The LLVM type of one `struct syncmut_field`.
pub(crate) fn field_type(context: &Context) -> StructType<'_> {
    let ptr = context.ptr_type(AddressSpace::default());
    let (i32_type, i64_type) = (context.i32_type(), context.i64_type());
    context.struct_type(&[ptr.into(), i64_type.into(), ptr.into(), i32_type.into(), i32_type.into(), i32_type.into()], false)
}

/// A private NUL-terminated string constant.
pub(crate) fn c_string<'ctx>(context: &'ctx Context, module: &Module<'ctx>, text: &str, symbol: &str) -> PointerValue<'ctx> {
    let bytes = context.const_string(text.as_bytes(), true);
    let global = module.add_global(bytes.get_type(), Some(AddressSpace::default()), symbol);
    global.set_initializer(&bytes);
    global.set_constant(true);
    global.set_linkage(Linkage::Private);
    global.as_pointer_value()
}

/// One `struct syncmut_field` for a value named `name` found at `location`.
pub(crate) fn field_entry<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    name: &str,
    location: IntValue<'ctx>,
    decoding: &Decoding,
) -> StructValue<'ctx> {
    let ptr = context.ptr_type(AddressSpace::default());
    let (i32_type, i64_type) = (context.i32_type(), context.i64_type());
    let enums = if decoding.enumerators.is_empty() {
        ptr.const_null()
    } else {
        let entry = context.struct_type(&[i64_type.into(), ptr.into()], false);
        let entries: Vec<_> = decoding
            .enumerators
            .iter()
            .map(|(value, name)| {
                let text = c_string(context, module, name, "syncmut.enumerator");
                entry.const_named_struct(&[i64_type.const_int(*value, false).into(), text.into()])
            })
            .collect();
        let array = entry.const_array(&entries);
        let global = module.add_global(array.get_type(), Some(AddressSpace::default()), "syncmut.enumerators");
        global.set_initializer(&array);
        global.set_constant(true);
        global.set_linkage(Linkage::Private);
        global.as_pointer_value()
    };
    field_type(context).const_named_struct(&[
        c_string(context, module, name, "syncmut.field_name").into(),
        location.into(),
        enums.into(),
        i32_type.const_int(u64::from(decoding.size), false).into(),
        i32_type.const_int(decoding.kind as u64, false).into(),
        i32_type.const_int(decoding.enumerators.len() as u64, false).into(),
    ])
}
