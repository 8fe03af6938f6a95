//! The design's own global variables, recorded in each trace event's state snapshot.
//!
//! A global is the user's when it is defined in the module (not a declaration), is not
//! constant or thread-local, carries a `!dbg` DIGlobalVariableExpression whose file is
//! not a system header, and holds an integer (i1…i64) or a pointer. Enums are recorded
//! by enumerator name (from the debug info's enumerators, `debug_types.rs`). The
//! metamutant gets a table the runtime reads at each event (entry layout in
//! `state_table.rs`, `where` = the global's address):
//!
//! ```c
//! const uint32_t syncmut_global_count;
//! const struct syncmut_field syncmut_globals[];
//! ```

use crate::debug_types::{DebugTypes, Decoding};
use crate::{api, ir, source, state_table};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::types::AnyTypeEnum;
use inkwell::values::GlobalValue;
use inkwell::AddressSpace;
use std::collections::BTreeMap;

pub(crate) const GLOBAL_COUNT_SYMBOL: &str = "syncmut_global_count";
pub(crate) const GLOBAL_TABLE_SYMBOL: &str = "syncmut_globals";

/// At most this many globals are recorded (the runtime's snapshot has room for this many).
pub(crate) const MAX_GLOBALS: usize = syncmut_runtime::tables::MAX_GLOBALS;

/// How the runtime prints a global's value (the `kind` field of the table).
pub use crate::debug_types::ValueKind as GlobalKind;

/// One recorded global: its source name, size in bytes and kind, and for an enum its
/// enumerators (raw value, name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Global {
    /// Source name of the variable.
    pub name: String,
    /// Size in bytes.
    pub size: u32,
    /// How the runtime prints its value.
    pub kind: GlobalKind,
    pub(crate) enumerators: Vec<(u64, String)>,
}

/// The kind a debug-info type name implies for an integer global.
fn integer_kind(bits: u32, type_name: &str) -> GlobalKind {
    if bits == 1 || type_name == "bool" || type_name == "_Bool" {
        GlobalKind::Bool
    } else if type_name.contains("unsigned") {
        GlobalKind::Unsigned
    } else {
        GlobalKind::Signed
    }
}

/// The user's globals, sorted by name and capped at [`MAX_GLOBALS`], with a warning
/// when some were left out.
pub(crate) fn collect<'ctx>(
    module: &Module<'ctx>,
    types: &DebugTypes,
) -> (Vec<(Global, GlobalValue<'ctx>)>, Vec<String>) {
    let mut found: BTreeMap<String, (Global, GlobalValue<'ctx>)> = BTreeMap::new();
    for global in module.get_globals() {
        let symbol = global.get_name().to_string_lossy().into_owned();
        if global.is_declaration()
            || global.is_constant()
            || global.is_thread_local()
            || symbol.starts_with("syncmut")
            || symbol.starts_with("llvm.")
            || symbol.starts_with("__")
        {
            continue;
        }
        let Some(info) = ir::global_debug_info(global) else {
            continue;
        };
        if info.path.as_os_str().is_empty() || source::is_system_path(&info.path) {
            continue;
        }
        let (size, kind) = match global.get_value_type() {
            AnyTypeEnum::IntType(t) if matches!(t.get_bit_width(), 1 | 8 | 16 | 32 | 64) => {
                let bits = t.get_bit_width();
                (bits.div_ceil(8), integer_kind(bits, &info.type_name))
            }
            AnyTypeEnum::PointerType(_) => (8, GlobalKind::Pointer),
            _ => continue,
        };
        // An enum of the same size is printed by enumerator name.
        let (kind, enumerators) = match types.global_type(&symbol).and_then(|ty| types.decoding(ty))
        {
            Some(Decoding {
                size: s,
                kind: k @ (GlobalKind::Enum | GlobalKind::UnsignedEnum),
                enumerators,
            }) if s == size => (k, enumerators),
            _ => (kind, Vec::new()),
        };
        let demangled = api::demangle(&symbol);
        let name = if info.name.is_empty() {
            demangled.clone()
        } else {
            info.name
        };
        if name.starts_with("__") || name.is_empty() {
            continue;
        }
        // Two statics of the same source name (in different functions or files): the
        // later ones are told apart by their symbol.
        let name = if found.contains_key(&name) {
            format!("{name}@{demangled}")
        } else {
            name
        };
        found.insert(
            name.clone(),
            (
                Global {
                    name,
                    size,
                    kind,
                    enumerators,
                },
                global,
            ),
        );
    }
    let mut warnings = Vec::new();
    if found.len() > MAX_GLOBALS {
        warnings.push(format!(
            "the design has {} global variables; trace state snapshots record only the first {MAX_GLOBALS} by name",
            found.len()
        ));
    }
    (found.into_values().take(MAX_GLOBALS).collect(), warnings)
}

/// Emits the globals table (always, possibly empty, so the runtime's weak references
/// resolve to a count of 0 rather than to nothing only in hand-linked tests).
pub(crate) fn add_table<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    globals: &[(Global, GlobalValue<'ctx>)],
) {
    let i32_type = context.i32_type();
    let count = module.add_global(i32_type, Some(AddressSpace::default()), GLOBAL_COUNT_SYMBOL);
    count.set_initializer(&i32_type.const_int(globals.len() as u64, false));
    count.set_constant(true);

    let entries: Vec<_> = globals
        .iter()
        .map(|(g, value)| {
            let decoding = Decoding {
                size: g.size,
                kind: g.kind,
                enumerators: g.enumerators.clone(),
            };
            let address = value.as_pointer_value().const_to_int(context.i64_type());
            state_table::field_entry(context, module, &g.name, address, &decoding)
        })
        .collect();
    let table_value = state_table::field_type(context).const_array(&entries);
    let table = module.add_global(
        table_value.get_type(),
        Some(AddressSpace::default()),
        GLOBAL_TABLE_SYMBOL,
    );
    table.set_initializer(&table_value);
    table.set_constant(true);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_kinds_come_from_the_debug_type_name() {
        assert_eq!(integer_kind(8, "bool"), GlobalKind::Bool);
        assert_eq!(integer_kind(8, "_Bool"), GlobalKind::Bool);
        assert_eq!(integer_kind(1, ""), GlobalKind::Bool);
        assert_eq!(integer_kind(32, "unsigned int"), GlobalKind::Unsigned);
        assert_eq!(integer_kind(64, "long unsigned int"), GlobalKind::Unsigned);
        assert_eq!(integer_kind(32, "int"), GlobalKind::Signed);
        assert_eq!(integer_kind(32, "color"), GlobalKind::Signed);
    }
}
