//! The recorded globals each pthread start routine can read, so a thread's snapshots
//! hold only values it could observe (docs/verdicts.md, "What a snapshot holds").
//!
//! A snapshot at a thread's synchronization event shows every recorded global; a value
//! the thread never reads cannot tell a mutant from the original for that thread, yet at
//! synchronization granularity it may differ (another thread's write moved out of its
//! critical section lands after this thread's lock under one interleaving and before it
//! under the original's). Decided statically, from the IR before the rewrite, so the
//! original and every mutant (one metamutant) leave out the same values:
//!
//! - a global is read by a function that loads it (`load`, `atomicrmw`, `cmpxchg` at its
//!   address); a global whose address is used any other way (passed to a call, stored,
//!   converted, in a constant expression) may be read anywhere, by every thread;
//! - a routine reads what the functions it reaches by direct calls read; a routine that
//!   reaches an indirect call or a function without a body (which may call back) also
//!   reaches every function whose address is taken other than as a thread's start;
//! - a function passed as the start routine of `pthread_create`/`thrd_create` is a
//!   routine of its own, not reached by its creator; `main` is the main thread's.
//!
//! The runtime reads the table (layout `struct syncmut_thread_reads` in
//! runtime-lib/include/syncmut_tables.h) when the scheduler starts a thread:
//!
//! ```c
//! const uint32_t syncmut_thread_read_count;
//! const struct syncmut_thread_reads syncmut_thread_reads[];
//! ```

use crate::api;
use crate::effect::Effect;
use crate::ir::{self, Use};
use crate::state_table;
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue, GlobalValue};
use inkwell::AddressSpace;
use std::collections::{BTreeMap, HashMap, HashSet};
use syncmut_runtime::tables;

pub const COUNT_SYMBOL: &str = "syncmut_thread_read_count";
pub const TABLE_SYMBOL: &str = "syncmut_thread_reads";

fn name_of(function: FunctionValue<'_>) -> String {
    api::demangle(&function.get_name().to_string_lossy())
}

fn has_body(function: FunctionValue<'_>) -> bool {
    function.count_basic_blocks() > 0
}

/// Whether argument `index` of a call of `callee` is a new thread's start routine.
fn is_start_argument(callee: FunctionValue<'_>, index: u32) -> bool {
    matches!(
        api::observed(&name_of(callee)).map(|a| a.effect),
        Some(Effect::CreateThread { routine, .. }) if routine == index
    )
}

/// Per start routine (named as the thread hooks name it, `main` for the main thread),
/// the mask of `globals` (bit i: `globals[i]`, the snapshot table's order) it can read;
/// only routines that cannot read every one are listed.
pub(crate) fn compute<'ctx>(
    module: &Module<'ctx>,
    globals: &[GlobalValue<'ctx>],
) -> BTreeMap<String, u64> {
    let every = match globals.len() {
        n if n >= 64 => u64::MAX,
        n => (1u64 << n) - 1,
    };
    let mut escaped = 0u64;
    let mut direct: HashMap<FunctionValue<'ctx>, u64> = HashMap::new();
    for (i, global) in globals.iter().enumerate().take(64) {
        for u in ir::uses(global.as_value_ref()) {
            match u {
                Use::Read(f) => *direct.entry(f).or_default() |= 1 << i,
                Use::Written => {}
                _ => escaped |= 1 << i,
            }
        }
    }
    let defined: Vec<FunctionValue<'ctx>> =
        module.get_functions().filter(|f| has_body(*f)).collect();
    let mut starts: Vec<FunctionValue<'ctx>> = Vec::new();
    let mut address_taken: Vec<FunctionValue<'ctx>> = Vec::new();
    for f in &defined {
        let mut start = false;
        let mut taken = false;
        for u in ir::uses(f.as_global_value().as_value_ref()) {
            match u {
                Use::Called => {}
                Use::Argument { callee, index } if is_start_argument(callee, index) => start = true,
                _ => taken = true,
            }
        }
        if start {
            starts.push(*f);
        }
        if taken {
            address_taken.push(*f);
        }
    }
    if let Some(main) = module.get_function("main").filter(|f| has_body(*f)) {
        starts.push(main);
    }
    let mut out: BTreeMap<String, u64> = BTreeMap::new();
    for start in starts {
        let reads = escaped | reachable_reads(start, &direct, &address_taken);
        *out.entry(name_of(start)).or_default() |= reads & every;
    }
    out.retain(|_, reads| *reads != every);
    out
}

/// What `start` and every function it may reach read.
fn reachable_reads<'ctx>(
    start: FunctionValue<'ctx>,
    direct: &HashMap<FunctionValue<'ctx>, u64>,
    address_taken: &[FunctionValue<'ctx>],
) -> u64 {
    let mut seen: HashSet<FunctionValue<'ctx>> = HashSet::new();
    let mut work = vec![start];
    let mut door_opened = false;
    let mut reads = 0u64;
    while let Some(f) = work.pop() {
        if !seen.insert(f) {
            continue;
        }
        reads |= direct.get(&f).copied().unwrap_or(0);
        for inst in ir::instructions(&f).filter(|i| ir::is_call_like(*i)) {
            match ir::called_function(inst) {
                Some(callee) if has_body(callee) => work.push(callee),
                Some(callee) if callee.get_name().to_bytes().starts_with(b"llvm.") => {}
                _ if !door_opened => {
                    door_opened = true;
                    work.extend_from_slice(address_taken);
                }
                _ => {}
            }
        }
    }
    reads
}

/// Emits the table (always, possibly empty, so the runtime's weak references resolve).
pub(crate) fn add_table<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    reads: &BTreeMap<String, u64>,
) {
    let i32_type = context.i32_type();
    let count = module.add_global(i32_type, Some(AddressSpace::default()), COUNT_SYMBOL);
    count.set_initializer(&i32_type.const_int(reads.len() as u64, false));
    count.set_constant(true);
    let entry = state_table::struct_type(context, tables::THREAD_READS);
    let entries: Vec<_> = reads
        .iter()
        .map(|(routine, mask)| {
            let name = state_table::c_string(context, module, routine, "syncmut.routine");
            entry.const_named_struct(&[
                name.into(),
                context.i64_type().const_int(*mask, false).into(),
            ])
        })
        .collect();
    let value = entry.const_array(&entries);
    let table = module.add_global(
        value.get_type(),
        Some(AddressSpace::default()),
        TABLE_SYMBOL,
    );
    table.set_initializer(&value);
    table.set_constant(true);
}
