//! Critical sections: the mutants that change a region guarded by a lock rather than one
//! call. `remove-lock-pair` deletes a lock and its matching unlock; `swap-lock-order`
//! takes two nested acquisitions in the other order; `shrink-`, `widen-` and
//! `split-critical-section` move a region's boundary or cut it in two.
//!
//! A moved boundary is a *copy* of the site's call placed elsewhere in the metamutant,
//! whose site argument names its entry in the copy table (`syncmut_runtime::tables::
//! COPY_FIELDS`), that is, its mutant: the runtime performs the copy only while that
//! mutant is active and, for the operators that move a call, then skips the original
//! call. Every mutant is still one build, and runs of other mutants see no copy
//! at all (no event, no scheduling point).
//!
//! Which lock a call takes is read from its source text (`&first->lock`, `bus`): a lock
//! and an unlock match when they are in the same function and name the same expression.
//! Copies are placed within the call's basic block, on calls the runtime's pthread
//! wrappers serve (pthread, C11 and the C++ standard library's mutexes and lock guards),
//! and only where the call's arguments can be computed at the new place (the
//! instructions that compute them are rebuilt there when nothing in between may change
//! their inputs); where that is not so, the mutant is not generated.
//!
//! A C++ lock guard is a call whose lock is not its first argument: its construction
//! takes the guard object and the mutex, its destruction the guard object. Two nested
//! guards swap by each construction taking the other's mutex (the guards then release
//! what they took, in their usual order); a guard's scope widens by its construction
//! moving up and shrinks by its destruction moving up. A guard's second construction is
//! an `invoke` (the first guard's destructor must run if it throws): its copy is placed
//! before it as a plain call, so an exception thrown by the copy itself (a failing
//! `pthread_mutex_lock`) would skip that cleanup. The runtime's guard wrappers leave the
//! guard object untouched when the call is absent (a copy of an inactive mutant, or the
//! original of a moved call), so the copy's guard state stands.

use crate::catalogue::Mutant;
use crate::effect::{Blocking, Effect, Family};
use crate::error::{MutatorError, Result};
use crate::found_site::FoundSite;
use crate::operator::Operator;
use crate::{interleave, ir};
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::values::{
    AsValueRef, BasicMetadataValueEnum, BasicValue, BasicValueEnum, InstructionOpcode,
    InstructionValue, Operand,
};
use std::collections::{HashMap, HashSet};

/// A copy of a site's call placed elsewhere by a moving operator.
pub struct Placement<'ctx> {
    /// The site whose call is copied (its callee, wrapper and effect).
    pub call_of: usize,
    /// The mutant's site the copy's events are recorded at.
    pub site: usize,
    /// The copy goes just before this instruction.
    pub before: InstructionValue<'ctx>,
    /// The site whose lock the copy acts on (its lock argument, rebuilt at `before` if
    /// it is computed later); the other arguments are `call_of`'s.
    pub lock_of: usize,
}

/// A mutant spanning a critical section: its sites (indices into the discovered sites)
/// and the copies it needs.
pub struct RegionMutant<'ctx> {
    pub operator: Operator,
    pub sites: Vec<usize>,
    pub placements: Vec<Placement<'ctx>>,
    /// What the mutant does, for the catalogue.
    pub description: String,
}

/// The region mutants of the discovered sites, ordered by first site then operator.
pub fn find<'ctx>(found: &[FoundSite<'ctx>]) -> Vec<RegionMutant<'ctx>> {
    let sites: HashSet<LLVMValueRef> = found.iter().map(|f| f.inst.as_value_ref()).collect();
    let mut mutants = Vec::new();
    for (l, lock) in found.iter().enumerate() {
        if !acquires(lock) {
            continue;
        }
        let unlock = matching_unlock(found, l);
        if let Some(u) = unlock {
            mutants.push(RegionMutant {
                operator: Operator::RemoveLockPair,
                sites: vec![l, u],
                placements: Vec::new(),
                description: format!(
                    "remove {} and {} (line {})",
                    lock.site.call, found[u].site.call, found[u].site.line
                ),
            });
        }
        if !movable(lock) {
            continue;
        }
        if let Some(m) = swap_with_next(found, &sites, l) {
            mutants.push(m);
        }
        if let Some(before) = above_previous_statement(lock.inst, &sites) {
            if arguments_rebuildable(lock.inst, before) {
                mutants.push(RegionMutant {
                    operator: Operator::WidenCriticalSection,
                    sites: vec![l],
                    placements: vec![Placement {
                        call_of: l,
                        site: l,
                        before,
                        lock_of: l,
                    }],
                    description: format!(
                        "{} moved up above line {}",
                        lock.site.call,
                        line_of(before)
                    ),
                });
            }
        }
        if let Some(u) = unlock.filter(|u| movable(&found[*u])) {
            if let Some(before) = split_point(lock.inst, &sites) {
                mutants.push(RegionMutant {
                    operator: Operator::SplitCriticalSection,
                    sites: vec![l],
                    placements: vec![
                        Placement {
                            call_of: u,
                            site: l,
                            before,
                            lock_of: l,
                        },
                        Placement {
                            call_of: l,
                            site: l,
                            before,
                            lock_of: l,
                        },
                    ],
                    description: format!(
                        "{}'s critical section split by an unlock and a lock before line {}",
                        lock.site.call,
                        line_of(before)
                    ),
                });
            }
        }
    }
    for (u, unlock) in found.iter().enumerate() {
        if !matches!(unlock.api.effect, Effect::Unlock { .. })
            || !movable(unlock)
            || released_before_scope_end(found, u)
        {
            continue;
        }
        if let Some(before) = above_previous_statement(unlock.inst, &sites) {
            if arguments_rebuildable(unlock.inst, before) {
                let what = match guard_of(found, u).filter(|_| guard_release(unlock)) {
                    Some(g) => format!("the end of {}'s scope", found[g].site.call),
                    None => unlock.site.call.clone(),
                };
                mutants.push(RegionMutant {
                    operator: Operator::ShrinkCriticalSection,
                    sites: vec![u],
                    placements: vec![Placement {
                        call_of: u,
                        site: u,
                        before,
                        lock_of: u,
                    }],
                    description: format!("{what} moved up above line {}", line_of(before)),
                });
            }
        }
    }
    mutants.sort_by_key(|m| (m.sites[0], m.operator));
    mutants
}

/// The catalogue entries of region mutants: id `<first site's key>:<operator>`.
pub fn catalogue_mutants(found: &[FoundSite<'_>], mutants: &[RegionMutant<'_>]) -> Vec<Mutant> {
    mutants
        .iter()
        .map(|m| {
            let first = &found[m.sites[0]].site;
            Mutant {
                id: format!("{}:{}", first.key, m.operator.slug()),
                operator: m.operator,
                description: m.description.clone(),
                sites: m.sites.iter().map(|s| found[*s].site.index).collect(),
                function: first.function.clone(),
                file: first.file.clone(),
                line: first.line,
                col: first.col,
                call: first.call.clone(),
                programs: Vec::new(),
            }
        })
        .collect()
}

/// A placed copy, still a call of the original function, for the rewrite.
pub struct Copy<'ctx> {
    pub call: InstructionValue<'ctx>,
    /// The site whose call it copies.
    pub call_of: usize,
    /// The mutant it belongs to: its operator and sites, the one the copy's events are
    /// recorded at first (the same twice for a one-site mutant).
    pub operator: Operator,
    pub sites: [usize; 2],
}

/// Inserts every placement's copy as a call of the original function.
pub fn place_copies<'ctx>(
    context: &'ctx Context,
    found: &[FoundSite<'ctx>],
    mutants: &[RegionMutant<'ctx>],
) -> Result<Vec<Copy<'ctx>>> {
    let builder = context.create_builder();
    let mut copies = Vec::new();
    for (mutant, placement) in mutants
        .iter()
        .flat_map(|m| m.placements.iter().map(move |p| (m, p)))
    {
        let copied = &found[placement.call_of];
        let lock_at = lock_index(copied);
        let mut done = HashMap::new();
        let args: Vec<BasicMetadataValueEnum> = ir::call_arguments(copied.inst)
            .into_iter()
            .enumerate()
            .map(|(k, own)| {
                let value = if k == lock_at {
                    lock_argument(&found[placement.lock_of])
                } else {
                    own
                };
                rebuild(&builder, value, placement.before, &mut done).into()
            })
            .collect();
        let callee = ir::called_function(copied.inst).expect("sites are direct calls");
        builder.position_before(&placement.before);
        let call = builder
            .build_call(callee, &args, "")
            .map_err(|e| MutatorError::Verify(format!("placing a copy of a lock call: {e}")))?;
        // SAFETY: a call site value is an instruction.
        let call = unsafe { InstructionValue::new(call.as_value_ref()) };
        ir::copy_debug_location(placement.before, call);
        let other = mutant
            .sites
            .iter()
            .copied()
            .find(|s| *s != placement.site)
            .unwrap_or(placement.site);
        copies.push(Copy {
            call,
            call_of: placement.call_of,
            operator: mutant.operator,
            sites: [placement.site, other],
        });
    }
    Ok(copies)
}

/// A blocking acquisition of a lock: a lock call with a matching unlock call, or a lock
/// guard's construction or `lock()` (its release is the guard's).
fn acquires(f: &FoundSite<'_>) -> bool {
    library_call(f)
        && matches!(
            f.api.effect,
            Effect::Lock {
                blocking: Blocking::Waits,
                ..
            }
        )
        && (unlock_of(&f.api.signature).is_some() || one_mutex_guard(f))
}

/// A call on a C++ lock guard over one mutex, served by the runtime's guard wrappers (a
/// `std::scoped_lock` of several mutexes is not: its locks are not one argument).
fn one_mutex_guard(f: &FoundSite<'_>) -> bool {
    crate::api::guard_call(&f.api.signature).is_some()
        && matches!(f.api.rewrite, crate::api::Rewrite::Wrapper)
        && ir::call_arguments(f.inst).len() <= 2
}

/// A guard's destruction: it releases, and `remove` on the guard's construction covers
/// it, so it has no operators of its own, but its scope's end can move.
fn guard_release(f: &FoundSite<'_>) -> bool {
    one_mutex_guard(f)
        && matches!(f.api.effect, Effect::Unlock { .. })
        && f.api.signature.contains("::~")
}

/// Whether `u` ends the scope of a guard the design also unlocks with `unlock()`: the
/// destruction then usually finds the guard not owning its mutex, and moving it changes
/// nothing.
fn released_before_scope_end(found: &[FoundSite<'_>], u: usize) -> bool {
    guard_release(&found[u])
        && guard_of(found, u).is_some_and(|g| {
            found[g].site.scope.iter().any(|s| {
                found.iter().any(|f| {
                    f.site.index == *s
                        && !guard_release(f)
                        && matches!(f.api.effect, Effect::Unlock { .. })
                })
            })
        })
}

/// The construction of the guard whose destruction or member call site `u` is.
fn guard_of(found: &[FoundSite<'_>], u: usize) -> Option<usize> {
    found
        .iter()
        .position(|f| f.site.scope.contains(&found[u].site.index))
}

/// A call of a library primitive that has mutants of its own: not a call of a function
/// declared in `[[sync]]` (those get `remove` only) nor a call inside such a function
/// (no mutants: its callers' sites stand for it).
fn library_call(f: &FoundSite<'_>) -> bool {
    !f.site.operators.is_empty()
        && !matches!(f.api.rewrite, crate::api::Rewrite::UserTrampoline { .. })
}

/// The release that matches an acquisition function.
fn unlock_of(lock: &str) -> Option<&'static str> {
    Some(match lock {
        "pthread_mutex_lock" => "pthread_mutex_unlock",
        "pthread_rwlock_rdlock" | "pthread_rwlock_wrlock" => "pthread_rwlock_unlock",
        "pthread_spin_lock" => "pthread_spin_unlock",
        "mtx_lock" => "mtx_unlock",
        "sc_core::sc_mutex::lock()" => "sc_core::sc_mutex::unlock()",
        "std::mutex::lock()" => "std::mutex::unlock()",
        "std::recursive_mutex::lock()" => "std::recursive_mutex::unlock()",
        "std::timed_mutex::lock()" => "std::timed_mutex::unlock()",
        "std::shared_mutex::lock()" => "std::shared_mutex::unlock()",
        "std::shared_mutex::lock_shared()" => "std::shared_mutex::unlock_shared()",
        _ => return None,
    })
}

/// Whether copies of the call can be placed: the runtime's pthread wrappers (which the
/// C11 and C++ standard library wrappers call with their site) know copies. A copy is a
/// plain call, also of an `invoke` (see the module's comment).
fn movable(f: &FoundSite<'_>) -> bool {
    (library_call(f) || guard_release(f))
        && f.api.family == Family::Pthread
        && matches!(f.api.rewrite, crate::api::Rewrite::Wrapper)
        && matches!(
            f.inst.get_opcode(),
            InstructionOpcode::Call | InstructionOpcode::Invoke
        )
}

/// The lock a call names in its source text: `pthread_mutex_lock(&a->m)` → `&a->m`,
/// `bus.lock()` → `bus`, a guard's `lk{m}` → `m`; `None` when the text is not known.
fn lock_expression(call: &str) -> Option<&str> {
    if call.contains('…') {
        return None;
    }
    let call = call.trim_end();
    let (open_char, close_char) = match call.chars().last()? {
        '}' => ('{', '}'),
        _ => ('(', ')'),
    };
    // The argument list is the last bracketed group: the object's path may hold
    // parentheses of its own (`forks[(i + 1) % N].lock()`).
    let mut depth = 0;
    let mut open = None;
    for (i, c) in call.char_indices().rev() {
        if c == close_char {
            depth += 1;
        } else if c == open_char {
            depth -= 1;
            if depth == 0 {
                open = Some(i);
                break;
            }
        }
    }
    let open = open?;
    let head = &call[..open];
    if let Some(dot) = head.rfind('.').or_else(|| head.rfind("->")) {
        return Some(head[..dot].trim());
    }
    let args = &call[open + 1..call.rfind(close_char)?];
    let mut depth = 0;
    for (i, c) in args.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => return Some(args[..i].trim()),
            _ => {}
        }
    }
    Some(args.trim()).filter(|a| !a.is_empty())
}

/// The first release, after the acquisition `l` in the same function, of the same lock.
fn matching_unlock(found: &[FoundSite<'_>], l: usize) -> Option<usize> {
    let lock = &found[l];
    let wanted = unlock_of(&lock.api.signature)?;
    let text = lock_expression(&lock.site.call)?;
    let function = lock.inst.get_parent()?.get_parent()?;
    let order = instruction_order(function);
    let at = order[&lock.inst.as_value_ref()];
    found
        .iter()
        .enumerate()
        .filter(|(_, f)| f.api.signature == wanted && lock_expression(&f.site.call) == Some(text))
        .filter_map(|(u, f)| {
            order
                .get(&f.inst.as_value_ref())
                .filter(|pos| **pos > at)
                .map(|pos| (*pos, u))
        })
        .min()
        .map(|(_, u)| u)
}

fn instruction_order(function: inkwell::values::FunctionValue<'_>) -> HashMap<LLVMValueRef, usize> {
    ir::instructions(&function)
        .enumerate()
        .map(|(n, i)| (i.as_value_ref(), n))
        .collect()
}

/// `swap-lock-order`: the acquisition `l` and the next site call of its block, when that
/// is an acquisition of another lock by the same function. The mutant takes the second
/// lock where the first was taken and the first where the second was.
fn swap_with_next<'ctx>(
    found: &[FoundSite<'ctx>],
    sites: &HashSet<LLVMValueRef>,
    l: usize,
) -> Option<RegionMutant<'ctx>> {
    let first = &found[l];
    let next = std::iter::successors(first.inst.get_next_instruction(), |i| {
        i.get_next_instruction()
    })
    .find(|i| sites.contains(&i.as_value_ref()))?;
    let n = found.iter().position(|f| f.inst == next)?;
    let second = &found[n];
    if !acquires(second) || !movable(second) || second.api.signature != first.api.signature {
        return None;
    }
    if lock_expression(&first.site.call)? == lock_expression(&second.site.call)? {
        return None;
    }
    // The second lock's address is computed before the first acquisition.
    if !rebuildable(lock_argument(second), first.inst, second.inst) {
        return None;
    }
    Some(RegionMutant {
        operator: Operator::SwapLockOrder,
        sites: vec![l, n],
        placements: vec![
            Placement {
                call_of: l,
                site: l,
                before: first.inst,
                lock_of: n,
            },
            Placement {
                call_of: n,
                site: n,
                before: second.inst,
                lock_of: l,
            },
        ],
        description: format!(
            "{} and {} (line {}) taken in the other order",
            first.site.call, second.site.call, second.site.line
        ),
    })
}

/// Which argument of a site's call is the lock it acquires or releases (a guard's
/// construction: the mutex after the guard object; its destruction: the guard).
fn lock_index(f: &FoundSite<'_>) -> usize {
    match f.api.effect {
        Effect::Lock { lock, .. } | Effect::Unlock { lock } => lock as usize,
        _ => 0,
    }
}

fn lock_argument<'ctx>(f: &FoundSite<'ctx>) -> BasicValueEnum<'ctx> {
    ir::call_arguments(f.inst)[lock_index(f)]
}

/// Whether every argument of `call` can be had at `point` (see `rebuildable`).
fn arguments_rebuildable(call: InstructionValue<'_>, point: InstructionValue<'_>) -> bool {
    ir::call_arguments(call)
        .into_iter()
        .all(|a| rebuildable(a, point, call))
}

fn line_of(inst: InstructionValue<'_>) -> u32 {
    ir::debug_location(inst).map_or(0, |l| l.line)
}

/// Whether the instruction may read or write memory other threads reach: a possibly
/// shared load or store, or a call of anything but an LLVM intrinsic (it may do either).
fn touches_shared_memory(inst: InstructionValue<'_>) -> bool {
    let accesses = ir::memory_accesses(inst);
    if !accesses.is_empty() {
        return accesses
            .iter()
            .any(|a| interleave::may_be_shared(a.address));
    }
    ir::is_call_like(inst)
        && ir::called_function(inst)
            .is_none_or(|f| !f.get_name().to_string_lossy().starts_with("llvm."))
}

/// The instructions computing `call`'s arguments within its block.
fn argument_chain(call: InstructionValue<'_>) -> HashSet<LLVMValueRef> {
    let mut chain = HashSet::new();
    let mut work = ir::call_arguments(call);
    while let Some(v) = work.pop() {
        let Some(i) = v.as_instruction_value() else {
            continue;
        };
        if i.get_parent() != call.get_parent() || !chain.insert(i.as_value_ref()) {
            continue;
        }
        work.extend(operand_values(i));
    }
    chain
}

fn operand_values(i: InstructionValue<'_>) -> Vec<BasicValueEnum<'_>> {
    (0..i.get_num_operands())
        .filter_map(|k| match i.get_operand(k) {
            Some(Operand::Value(v)) => Some(v),
            _ => None,
        })
        .collect()
}

/// Where a call moved up over the statement before it goes: the first instruction of the
/// nearest statement above it in its block that touches shared memory (the call's own
/// argument computation aside). `None` when another site, or the block's start, comes
/// first: the region has nothing there to move over.
fn above_previous_statement<'ctx>(
    call: InstructionValue<'ctx>,
    sites: &HashSet<LLVMValueRef>,
) -> Option<InstructionValue<'ctx>> {
    let chain = argument_chain(call);
    let mut statement = None;
    for i in std::iter::successors(call.get_previous_instruction(), |i| {
        i.get_previous_instruction()
    }) {
        if sites.contains(&i.as_value_ref()) {
            return None;
        }
        if !chain.contains(&i.as_value_ref()) && touches_shared_memory(i) {
            statement = Some(i);
            break;
        }
    }
    let last = statement?;
    let line = ir::debug_location(last)?.line;
    let mut start = last;
    for i in std::iter::successors(last.get_previous_instruction(), |i| {
        i.get_previous_instruction()
    }) {
        if sites.contains(&i.as_value_ref()) || ir::debug_location(i).is_none_or(|l| l.line != line)
        {
            break;
        }
        start = i;
    }
    (!matches!(
        start.get_opcode(),
        InstructionOpcode::Phi | InstructionOpcode::LandingPad
    ))
    .then_some(start)
}

/// Where a critical section starting at `lock` is cut: before the second statement after
/// the lock, within its block, when both the first and the second touch shared memory
/// and no other site comes first.
fn split_point<'ctx>(
    lock: InstructionValue<'ctx>,
    sites: &HashSet<LLVMValueRef>,
) -> Option<InstructionValue<'ctx>> {
    let mut after =
        std::iter::successors(lock.get_next_instruction(), |i| i.get_next_instruction())
            .take_while(|i| !sites.contains(&i.as_value_ref()) && !i.is_terminator());
    let first = after.find(|i| touches_shared_memory(*i))?;
    let line = ir::debug_location(first)?.line;
    let rest: Vec<_> = after.collect();
    // The first instruction of the next statement (another line), which must itself reach
    // a shared access before the region ends.
    let cut = rest
        .iter()
        .position(|i| ir::debug_location(*i).is_some_and(|l| l.line != line))?;
    rest[cut..]
        .iter()
        .any(|i| touches_shared_memory(*i))
        .then_some(rest[cut])
}

/// Whether `inst` comes before `point` in their common block.
fn precedes(inst: InstructionValue<'_>, point: InstructionValue<'_>) -> bool {
    std::iter::successors(inst.get_next_instruction(), |i| i.get_next_instruction())
        .any(|i| i == point)
}

fn is_entry(block: Option<inkwell::basic_block::BasicBlock<'_>>) -> bool {
    block
        .and_then(|b| b.get_parent())
        .and_then(|f| f.get_first_basic_block())
        == block
}

/// Whether `value`, used by `origin`, can be had at `point` (earlier in origin's block):
/// it is a constant or argument, defined before `point` (or in the entry block), or
/// computed by loads, address arithmetic and integer operations that can be repeated at
/// `point` because nothing between `point` and `origin` may write what they load.
fn rebuildable(
    value: BasicValueEnum<'_>,
    point: InstructionValue<'_>,
    origin: InstructionValue<'_>,
) -> bool {
    fn walk(
        value: BasicValueEnum<'_>,
        point: InstructionValue<'_>,
        origin: InstructionValue<'_>,
        depth: u32,
    ) -> bool {
        let Some(i) = value.as_instruction_value() else {
            return true;
        };
        if i.get_parent() != point.get_parent() {
            return is_entry(i.get_parent()) && !is_entry(point.get_parent());
        }
        if i == point || precedes(i, point) {
            return i != point;
        }
        if depth > 12 {
            return false;
        }
        use InstructionOpcode::*;
        match i.get_opcode() {
            Load => {
                let address = operand_values(i)[0];
                walk(address, point, origin, depth + 1) && !written_between(address, point, origin)
            }
            GetElementPtr | BitCast | SExt | ZExt | Trunc | Add | Sub | Mul | SDiv | SRem
            | UDiv | URem | And | Or | Xor | Shl | LShr | AShr | ICmp | Select => operand_values(i)
                .into_iter()
                .all(|v| walk(v, point, origin, depth + 1)),
            _ => false,
        }
    }
    walk(value, point, origin, 0)
}

/// Whether an instruction from `point` up to `origin` may write what `address` points to:
/// for a stack slot whose address never escapes, a store to it; for anything else, any
/// write or call.
fn written_between(
    address: BasicValueEnum<'_>,
    point: InstructionValue<'_>,
    origin: InstructionValue<'_>,
) -> bool {
    let private_slot = address
        .as_instruction_value()
        .is_some_and(|i| i.get_opcode() == InstructionOpcode::Alloca)
        && matches!(
            ir::pointer_root(address),
            ir::PointerRoot::Alloca { escapes: false }
        );
    std::iter::successors(Some(point), |i| i.get_next_instruction())
        .take_while(|i| *i != origin)
        .any(|i| {
            let writes = ir::memory_accesses(i).into_iter().filter(|a| a.write);
            if private_slot {
                writes.into_iter().any(|a| a.address == address)
            } else {
                writes.count() > 0 || touches_shared_memory(i) && ir::is_call_like(i)
            }
        })
}

/// `value` at `point`: itself if available there, else its computation repeated just
/// before `point` (see `rebuildable`).
fn rebuild<'ctx>(
    builder: &Builder<'ctx>,
    value: BasicValueEnum<'ctx>,
    point: InstructionValue<'ctx>,
    done: &mut HashMap<LLVMValueRef, BasicValueEnum<'ctx>>,
) -> BasicValueEnum<'ctx> {
    let Some(i) = value.as_instruction_value() else {
        return value;
    };
    if i.get_parent() != point.get_parent() || precedes(i, point) {
        return value;
    }
    if let Some(copy) = done.get(&i.as_value_ref()) {
        return *copy;
    }
    let copy = i.explicit_clone();
    for (k, operand) in operand_values(i).into_iter().enumerate() {
        let rebuilt = rebuild(builder, operand, point, done);
        copy.set_operand(k as u32, rebuilt);
    }
    builder.position_before(&point);
    builder.insert_instruction(&copy, None);
    // SAFETY: every rebuilt instruction produces a first-class value (loads, address and
    // integer arithmetic).
    let copy_value = unsafe { BasicValueEnum::new(copy.as_value_ref()) };
    done.insert(i.as_value_ref(), copy_value);
    copy_value
}

#[cfg(test)]
mod tests {
    use super::lock_expression;

    #[test]
    fn the_lock_is_read_from_the_call_text() {
        assert_eq!(
            lock_expression("pthread_mutex_lock(&first->lock)"),
            Some("&first->lock")
        );
        assert_eq!(
            lock_expression("pthread_mutex_lock(&forks[f(a, b)])"),
            Some("&forks[f(a, b)]")
        );
        assert_eq!(lock_expression("bus_lock.lock()"), Some("bus_lock"));
        assert_eq!(lock_expression("g2(b)"), Some("b"));
        assert_eq!(lock_expression("lk{pool->m}"), Some("pool->m"));
        assert_eq!(lock_expression("p->m.unlock()"), Some("p->m"));
        assert_eq!(
            lock_expression("forks[(id + 1) % N].lock()"),
            Some("forks[(id + 1) % N]")
        );
        assert_eq!(lock_expression("pthread_mutex_lock(…)"), None);
        assert_eq!(lock_expression("lock()"), None);
    }
}
