//! The memory `explore` judges a repeated state on: the design's globals whose values
//! can decide what it does next, as a table the runtime hashes when a run passes its
//! step budget (runtime-lib/src/repeat_state.c).
//!
//! A run is a livelock only if a state comes back; a global that only counts (`retries++`
//! in a polite spin, a statistics counter) changes at every turn of a loop that never
//! ends, so hashing every global would hide every such livelock, and hashing none would
//! call a long, terminating loop over globals (a subtractive gcd) one. A global matters
//! when some value loaded from it reaches anything but a store back into globals that
//! do not matter: a branch, a comparison, a call, an address, a local variable. Its
//! address escaping (passed to a call, stored, compared) makes it matter too. Starting
//! from the globals whose loads reach such a use, the rule spreads backwards through the
//! stores until nothing changes.
//!
//! The table is complete only when every possibly shared access of the design is to a
//! global or to a stack slot (the runtime hashes the stacks of the threads stopped at
//! synchronization calls): memory reached through another pointer (the heap, a thread's
//! argument) is not in it, and then the runtime never claims a repeated state.
//!
//! ```c
//! const uint32_t syncmut_state_global_count, syncmut_state_complete;
//! const struct { const void *where; uint64_t size; } syncmut_state_globals[];
//! ```

use crate::ir::{self, PointerRoot};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::targets::TargetData;
use inkwell::types::AnyType;
use inkwell::values::{
    AnyValueEnum, AsValueRef, BasicValueEnum, GlobalValue, InstructionOpcode, InstructionValue,
};
use inkwell::AddressSpace;
use std::collections::{BTreeMap, BTreeSet};
use syncmut_runtime::tables::Slot;

pub const STATE_COUNT_SYMBOL: &str = "syncmut_state_global_count";
pub const STATE_TABLE_SYMBOL: &str = "syncmut_state_globals";
pub const STATE_COMPLETE_SYMBOL: &str = "syncmut_state_complete";

/// The globals that can decide what the design does, by name, and whether every shared
/// access of the design is to a global or a stack slot.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct StateGlobals {
    pub relevant: BTreeSet<String>,
    pub complete: bool,
}

/// The design's own writable global at the root of `pointer`, if it is one.
fn own_global(pointer: BasicValueEnum<'_>) -> Option<String> {
    match ir::pointer_root(pointer) {
        PointerRoot::Global {
            name,
            constant: false,
            thread_local: false,
            declaration: false,
        } if !name.starts_with("syncmut") && !name.starts_with("llvm.") => Some(name),
        _ => None,
    }
}

/// The instruction a user of a value is (`None`: a constant expression).
fn instruction(user: AnyValueEnum<'_>) -> Option<InstructionValue<'_>> {
    match user {
        AnyValueEnum::InstructionValue(i) => Some(i),
        AnyValueEnum::IntValue(v) => v.as_instruction(),
        AnyValueEnum::FloatValue(v) => v.as_instruction(),
        AnyValueEnum::PointerValue(v) => v.as_instruction(),
        _ => None,
    }
}

/// A call of `llvm.dbg.*` (its callee is the call's last operand).
fn is_debug_intrinsic(inst: InstructionValue<'_>) -> bool {
    inst.get_opcode() == InstructionOpcode::Call
        && inst
            .get_num_operands()
            .checked_sub(1)
            .and_then(|last| inst.get_operand(last))
            .and_then(|o| o.value())
            .is_some_and(|callee| {
                callee.is_pointer_value()
                    && callee
                        .into_pointer_value()
                        .get_name()
                        .to_string_lossy()
                        .starts_with("llvm.dbg.")
            })
}

/// Where a loaded value goes: the globals it is stored into, or `None` when some use of
/// it can decide anything (a branch, a call, an address, a local variable...).
fn stored_into(load: InstructionValue<'_>) -> Option<BTreeSet<String>> {
    let mut into = BTreeSet::new();
    let mut work = vec![load];
    let mut seen = Vec::new();
    while let Some(value) = work.pop() {
        if seen.contains(&value) {
            continue;
        }
        seen.push(value);
        let mut next_use = value.get_first_use();
        while let Some(u) = next_use {
            next_use = u.get_next_use();
            let user = instruction(u.get_user())?;
            match user.get_opcode() {
                // Arithmetic and conversions carry the value on.
                InstructionOpcode::Add
                | InstructionOpcode::Sub
                | InstructionOpcode::Mul
                | InstructionOpcode::And
                | InstructionOpcode::Or
                | InstructionOpcode::Xor
                | InstructionOpcode::Shl
                | InstructionOpcode::LShr
                | InstructionOpcode::AShr
                | InstructionOpcode::Trunc
                | InstructionOpcode::ZExt
                | InstructionOpcode::SExt
                | InstructionOpcode::FAdd
                | InstructionOpcode::FSub
                | InstructionOpcode::FMul => work.push(user),
                // Stored as the value (operand 0) into a global: it matters if that does.
                InstructionOpcode::Store => {
                    let stored = user.get_operand(0).and_then(|o| o.value());
                    let address = user.get_operand(1).and_then(|o| o.value())?;
                    if stored.map(|s| s.as_value_ref()) != Some(value.as_value_ref()) {
                        return None;
                    }
                    into.insert(own_global(address)?);
                }
                _ => return None,
            }
        }
    }
    Some(into)
}

/// The globals of `module` that can decide what it does, and whether the table covers
/// every shared access (see the module documentation).
pub fn analyse(module: &Module<'_>) -> StateGlobals {
    let mut complete = true;
    let mut relevant: BTreeSet<String> = BTreeSet::new();
    // Global loaded -> the globals its values are stored into (it matters if one does).
    let mut feeds: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for function in module.get_functions() {
        if function.get_name().to_string_lossy().starts_with("syncmut") {
            continue;
        }
        for inst in ir::instructions(&function) {
            let opcode = inst.get_opcode();
            if matches!(
                opcode,
                InstructionOpcode::GetElementPtr
                    | InstructionOpcode::BitCast
                    | InstructionOpcode::AddrSpaceCast
            ) {
                continue; // pointer_root looks through them at the access
            }
            for access in ir::memory_accesses(inst) {
                if matches!(ir::pointer_root(access.address), PointerRoot::Other) {
                    complete = false;
                }
            }
            let address = match opcode {
                InstructionOpcode::Load => inst.get_operand(0).and_then(|o| o.value()),
                InstructionOpcode::Store => inst.get_operand(1).and_then(|o| o.value()),
                _ => None,
            };
            if opcode == InstructionOpcode::Load {
                if let Some(global) = address.and_then(own_global) {
                    match stored_into(inst) {
                        Some(into) => feeds.entry(global).or_default().extend(into),
                        None => {
                            relevant.insert(global);
                        }
                    }
                }
            }
            // Any other use of a global's address lets it be read unseen. (A debug
            // intrinsic's operands are metadata, which have no value to look at.)
            if is_debug_intrinsic(inst) {
                continue;
            }
            for index in 0..inst.get_num_operands() {
                let Some(operand) = inst.get_operand(index).and_then(|o| o.value()) else {
                    continue;
                };
                if !operand.is_pointer_value() || Some(operand) == address {
                    continue;
                }
                if let Some(global) = own_global(operand) {
                    relevant.insert(global);
                }
            }
        }
    }
    // A global matters when a value of it is stored into one that matters.
    loop {
        let grown: Vec<String> = feeds
            .iter()
            .filter(|(g, into)| !relevant.contains(*g) && into.iter().any(|h| relevant.contains(h)))
            .map(|(g, _)| g.clone())
            .collect();
        if grown.is_empty() {
            break;
        }
        relevant.extend(grown);
    }
    StateGlobals { relevant, complete }
}

/// Emits the table of [`analyse`]'s globals with their sizes.
pub(crate) fn add_table<'ctx>(context: &'ctx Context, module: &Module<'ctx>) {
    let state = analyse(module);
    let layout = module.get_data_layout();
    let target = TargetData::create(layout.as_str().to_str().unwrap_or_default());
    let globals: Vec<GlobalValue<'ctx>> = state
        .relevant
        .iter()
        .filter_map(|name| module.get_global(name))
        .collect();
    let entry = crate::state_table::struct_type(context, &[Slot::Pointer, Slot::U64]);
    let entries: Vec<_> = globals
        .iter()
        .map(|g| {
            let size = target.get_store_size(&g.get_value_type().as_any_type_enum());
            entry.const_named_struct(&[
                g.as_pointer_value().into(),
                context.i64_type().const_int(size, false).into(),
            ])
        })
        .collect();
    let i32_type = context.i32_type();
    for (symbol, value) in [
        (STATE_COUNT_SYMBOL, entries.len() as u64),
        (STATE_COMPLETE_SYMBOL, u64::from(state.complete)),
    ] {
        let global = module.add_global(i32_type, Some(AddressSpace::default()), symbol);
        global.set_initializer(&i32_type.const_int(value, false));
        global.set_constant(true);
    }
    let array = entry.const_array(&entries);
    let table = module.add_global(
        array.get_type(),
        Some(AddressSpace::default()),
        STATE_TABLE_SYMBOL,
    );
    table.set_initializer(&array);
    table.set_constant(true);
}
