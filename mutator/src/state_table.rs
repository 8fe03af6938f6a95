//! The tables the runtime's state snapshots read, one entry per recorded value: the
//! design's globals (`globals.rs`) and the data members of SystemC module classes
//! (`members.rs`) share the entry layout, `struct syncmut_field` of
//! runtime-lib/include/syncmut_tables.h. The LLVM types are built from the runtime
//! crate's slot lists (`syncmut_runtime::tables`), which a test there checks against
//! that header.

use crate::debug_types::Decoding;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::StructType;
use inkwell::values::{IntValue, PointerValue, StructValue};
use inkwell::AddressSpace;
use syncmut_runtime::tables::{self, Slot};

/// The LLVM type of a table entry made of `slots`.
pub(crate) fn struct_type<'ctx>(context: &'ctx Context, slots: &[Slot]) -> StructType<'ctx> {
    let members: Vec<_> = slots
        .iter()
        .map(|slot| match slot {
            Slot::Pointer => context.ptr_type(AddressSpace::default()).into(),
            Slot::U32 => context.i32_type().into(),
            Slot::U64 => context.i64_type().into(),
        })
        .collect();
    context.struct_type(&members, false)
}

/// The LLVM type of one `struct syncmut_field`.
pub(crate) fn field_type(context: &Context) -> StructType<'_> {
    struct_type(context, tables::FIELD)
}

/// A private NUL-terminated string constant.
pub(crate) fn c_string<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    text: &str,
    symbol: &str,
) -> PointerValue<'ctx> {
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
        let entry = struct_type(context, tables::ENUMERATOR);
        let entries: Vec<_> = decoding
            .enumerators
            .iter()
            .map(|(value, name)| {
                let text = c_string(context, module, name, "syncmut.enumerator");
                entry.const_named_struct(&[i64_type.const_int(*value, false).into(), text.into()])
            })
            .collect();
        let array = entry.const_array(&entries);
        let global = module.add_global(
            array.get_type(),
            Some(AddressSpace::default()),
            "syncmut.enumerators",
        );
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
        i32_type
            .const_int(decoding.enumerators.len() as u64, false)
            .into(),
    ])
}
