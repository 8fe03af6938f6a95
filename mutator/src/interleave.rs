//! Finer interleaving on request (`--interleave memory`): every load and store of memory
//! that another thread may reach becomes a scheduling point of the controlled scheduler,
//! so data races, check-then-act on plain variables and spin-waits become explorable.
//!
//! Before each such access the mutator inserts `syncmut_mem_access(address, flags,
//! access)` (runtime-lib/src/scheduler.c; flags: store, atomic), or for race detection
//! alone (`run --races` without `--interleave memory`) `syncmut_mem_observe`, which
//! feeds the race detector without a scheduling point. Shared means: a global variable defined in the design
//! (not constant, not thread-local), or memory reached through a pointer (thread
//! arguments, heap, pointers loaded from memory). A stack slot whose address is never
//! taken beyond plain loads and stores is register-like and stays inside one step, which
//! keeps the number of scheduling points (and schedules) down.

use crate::api;
use crate::effect::{CallTag, Effect, Family};
use crate::error::{MutatorError, Result};
use crate::ir::{self, PointerRoot};
use crate::source;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::values::{AsValueRef, BasicMetadataValueEnum, InstructionValue};
use inkwell::AddressSpace;
use serde::{Deserialize, Serialize};

/// The runtime's entry point for one access: a scheduling point, then the race detector.
pub(crate) const ACCESS_HOOK: &str = "syncmut_mem_access";
/// The entry point of a metamutant built for race detection only (`run --races`): the
/// race detector sees the access, which is no scheduling point.
pub(crate) const OBSERVE_HOOK: &str = "syncmut_mem_observe";
/// Present when the shared accesses pass a hook (either).
const READS_OBSERVED: &str = "syncmut_reads_observed";
/// Bits of the hook's second argument (runtime-lib/src/races.h).
const FLAG_WRITE: u64 = 1;
const FLAG_ATOMIC: u64 = 2;

/// Which operations are scheduling points.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Interleave {
    /// Synchronization calls, thread starts and ends only (code between them runs as
    /// one step).
    #[default]
    Sync,
    /// Also every load/store of possibly shared memory.
    Memory,
}

impl Interleave {
    /// Whether this is `sync`, the default (the catalogue then omits it).
    pub fn is_sync(&self) -> bool {
        *self == Interleave::Sync
    }

    /// Parses the command-line / `syncmut.toml` spelling.
    pub fn parse(text: &str) -> std::result::Result<Interleave, String> {
        match text {
            "sync" => Ok(Interleave::Sync),
            "memory" => Ok(Interleave::Memory),
            _ => Err(format!(
                "interleave must be \"sync\" or \"memory\", not {text:?}"
            )),
        }
    }
}

impl std::fmt::Display for Interleave {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.is_sync() { "sync" } else { "memory" })
    }
}

/// One instrumented access, numbered as the runtime reports it (`m<k>` in schedule
/// files), so counterexamples can say where each memory step was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryAccess {
    /// The runtime's number of the access (`m<index>` in schedule files).
    pub index: u32,
    /// Demangled name of the function it is in.
    pub function: String,
    /// Source position (empty file and 0 when the instruction has no debug location).
    pub file: String,
    /// Source line (0 without debug location).
    pub line: u32,
    /// Source column (0 without debug location).
    pub col: u32,
    /// A store (a load otherwise).
    pub write: bool,
    /// An atomic instruction: synchronization for the race detector, never a race.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub atomic: bool,
}

/// Whether an access through `address` may touch memory another thread can reach.
pub(crate) fn may_be_shared(address: inkwell::values::BasicValueEnum<'_>) -> bool {
    match ir::pointer_root(address) {
        PointerRoot::Alloca { escapes } => escapes,
        // Declarations are libc's (`stderr`, `optind`): the design's own globals are all
        // defined in the linked module. syncmut's own tables are constant.
        PointerRoot::Global {
            name,
            constant,
            thread_local,
            declaration,
        } => {
            !constant
                && !thread_local
                && !declaration
                && !name.starts_with("syncmut")
                && !name.starts_with("llvm.")
        }
        PointerRoot::Other => true,
    }
}

/// Inserts a call of `hook` ([`ACCESS_HOOK`] or [`OBSERVE_HOOK`]) before every possibly
/// shared access in user code; returns them, numbered. Runs before the site rewrite, so
/// hooks are never taken for sites.
pub(crate) fn instrument<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    hook: &str,
) -> Result<Vec<MemoryAccess>> {
    let mut points: Vec<(
        InstructionValue<'ctx>,
        inkwell::values::BasicValueEnum<'ctx>,
        bool,
        bool,
    )> = Vec::new();
    for function in module.get_functions() {
        if function.get_name().to_string_lossy().starts_with("syncmut") {
            continue;
        }
        for block in function.get_basic_blocks() {
            let mut next = block.get_first_instruction();
            while let Some(inst) = next {
                next = inst.get_next_instruction();
                let accesses = ir::memory_accesses(inst);
                if accesses.is_empty() {
                    continue;
                }
                // Library code inlined from system headers is not the design's.
                if ir::debug_location(inst).is_some_and(|loc| source::is_system_path(&loc.path)) {
                    continue;
                }
                for access in accesses {
                    if may_be_shared(access.address) {
                        points.push((inst, access.address, access.write, access.atomic));
                    }
                }
            }
        }
    }
    if points.is_empty() {
        return Ok(Vec::new());
    }
    let ptr_type = context.ptr_type(AddressSpace::default());
    let i32_type = context.i32_type();
    let hook = module.get_function(hook).unwrap_or_else(|| {
        module.add_function(
            hook,
            context
                .void_type()
                .fn_type(&[ptr_type.into(), i32_type.into(), i32_type.into()], false),
            Some(Linkage::External),
        )
    });
    let builder = context.create_builder();
    let mut accesses = Vec::with_capacity(points.len());
    for (index, (inst, address, write, atomic)) in points.iter().enumerate() {
        let loc = ir::debug_location(*inst);
        let function = inst
            .get_parent()
            .and_then(|b| b.get_parent())
            .map(|f| api::demangle(&f.get_name().to_string_lossy()))
            .unwrap_or_default();
        accesses.push(MemoryAccess {
            index: index as u32,
            function: function.split('(').next().unwrap_or_default().to_string(),
            file: loc
                .as_ref()
                .map(|l| source::normalize(&l.path).to_string_lossy().into_owned())
                .unwrap_or_default(),
            line: loc.as_ref().map_or(0, |l| l.line),
            col: loc.as_ref().map_or(0, |l| l.col),
            write: *write,
            atomic: *atomic,
        });
        builder.position_before(inst);
        let args: [BasicMetadataValueEnum; 3] = [
            (*address).into(),
            i32_type
                .const_int(
                    if *write { FLAG_WRITE } else { 0 } | if *atomic { FLAG_ATOMIC } else { 0 },
                    false,
                )
                .into(),
            i32_type.const_int(index as u64, false).into(),
        ];
        let call = builder
            .build_call(hook, &args, "")
            .map_err(|e| MutatorError::Verify(format!("interleave: {e}")))?;
        // SAFETY: a call site value is an instruction.
        let call = unsafe { InstructionValue::new(call.as_value_ref()) };
        ir::copy_debug_location(*inst, call);
        ir::tag_call(
            context,
            call,
            &CallTag {
                effect: Effect::SharedAccess,
                leading: 0,
                site: false,
                family: Family::Pthread,
            },
        );
    }
    // Tells the runtime that every load of a recorded global passes a hook, so a
    // thread's snapshots can hold what it loads (runtime-lib/src/trace_reads.c).
    let marker = module.add_global(i32_type, Some(AddressSpace::default()), READS_OBSERVED);
    marker.set_initializer(&i32_type.const_int(1, false));
    marker.set_constant(true);
    Ok(accesses)
}
