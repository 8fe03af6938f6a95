//! Loops that change nothing: a loop that stores nothing, calls nothing and reads only
//! the function's own stack slots (ones no other thread can reach) starts each iteration
//! in the state the last one started in, so once it has gone round it never ends.
//! Mutual-exclusion protocols written for verifiers wait like that on a local copy of a
//! shared flag (`int t = turn; while (t != 0) {}`): the loop has no scheduling point,
//! so under the controlled scheduler the run spun until its timeout, and a search paid
//! the timeout for every schedule that entered the loop.
//!
//! The mutator splits each such loop's back edge with a call of the runtime's
//! `syncmut_loops_forever(where)` (runtime-lib/src/endless_loop.c), reached only when
//! the loop goes round. Under the scheduler the thread stays there for the rest of the
//! run, which is what its endless loop amounts to (it never does anything another thread
//! can see again), and the others go on; a run that then cannot go on ends as a livelock
//! that names the loop. Natively the thread waits there without using the processor.
//!
//! Why the state repeats: the loop's header has no `phi` (so no value is carried from one
//! iteration to the next in registers), nothing in the loop writes memory, and what it
//! reads no other thread can write. The values it uses from outside the loop do not
//! change while it runs. So the path from the header is the same each time.

use crate::error::{MutatorError, Result};
use crate::ir::{self, PointerRoot};
use inkwell::basic_block::BasicBlock;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::values::{AsValueRef, FunctionValue, InstructionOpcode, InstructionValue};
use std::collections::{HashMap, HashSet};
use std::path::Path;

const HOOK: &str = "syncmut_loops_forever";

/// One back edge to split: edge `index` of `latch`'s terminator goes to `header`.
struct BackEdge<'ctx> {
    latch: BasicBlock<'ctx>,
    index: u32,
    header: BasicBlock<'ctx>,
    place: String,
}

/// Marks every loop of the design's functions that cannot end once it has gone round;
/// returns how many back edges it split. Places are named relative to `root`.
pub(crate) fn mark<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    root: &Path,
) -> Result<usize> {
    let edges: Vec<BackEdge<'ctx>> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .filter(|f| !f.get_name().to_string_lossy().starts_with("syncmut"))
        .flat_map(|f| endless_back_edges(f, root))
        .collect();
    if edges.is_empty() {
        return Ok(0);
    }
    let ptr = context.ptr_type(inkwell::AddressSpace::default());
    let hook = module.get_function(HOOK).unwrap_or_else(|| {
        module.add_function(
            HOOK,
            context.void_type().fn_type(&[ptr.into()], false),
            Some(Linkage::External),
        )
    });
    let builder = context.create_builder();
    let failed = |e: inkwell::builder::BuilderError, place: &str| {
        MutatorError::Verify(format!("endless loop at {place}: {e}"))
    };
    for edge in &edges {
        let block = context.insert_basic_block_after(edge.latch, "syncmut.endless");
        builder.position_at_end(block);
        let text = builder
            .build_global_string_ptr(&edge.place, "syncmut.endless_loop")
            .map_err(|e| failed(e, &edge.place))?;
        let call = builder
            .build_call(hook, &[text.as_pointer_value().into()], "")
            .map_err(|e| failed(e, &edge.place))?;
        builder
            .build_unconditional_branch(edge.header)
            .map_err(|e| failed(e, &edge.place))?;
        if let Some(terminator) = edge.latch.get_terminator() {
            // SAFETY: a call site value is an instruction.
            ir::copy_debug_location(terminator, unsafe {
                InstructionValue::new(call.as_value_ref())
            });
        }
        ir::set_successor(edge.latch, edge.index, block);
    }
    Ok(edges.len())
}

/// The back edges of `function` whose loop changes nothing.
fn endless_back_edges<'ctx>(function: FunctionValue<'ctx>, root: &Path) -> Vec<BackEdge<'ctx>> {
    let blocks = function.get_basic_blocks();
    let number: HashMap<_, usize> = blocks
        .iter()
        .enumerate()
        .map(|(i, b)| (b.as_mut_ptr(), i))
        .collect();
    let successors: Vec<Vec<usize>> = blocks
        .iter()
        .map(|b| {
            ir::successors(*b)
                .iter()
                .map(|s| number[&s.as_mut_ptr()])
                .collect()
        })
        .collect();
    let mut predecessors = vec![Vec::new(); blocks.len()];
    for (from, tos) in successors.iter().enumerate() {
        for &to in tos {
            predecessors[to].push(from);
        }
    }
    let mut edges = Vec::new();
    for (latch, index, header) in retreating_edges(&successors) {
        let Some(body) = natural_loop(&predecessors, latch, header) else {
            continue; // the header does not dominate the latch: not a loop of this shape
        };
        if !has_no_phi(blocks[header]) || !body.iter().all(|&b| changes_nothing(blocks[b])) {
            continue;
        }
        edges.push(BackEdge {
            latch: blocks[latch],
            index: index as u32,
            header: blocks[header],
            place: place(function, blocks[header], root),
        });
    }
    edges
}

/// Edges `(from, edge index, to)` to a block on the depth-first search's path from the
/// entry: every back edge of a loop is one.
fn retreating_edges(successors: &[Vec<usize>]) -> Vec<(usize, usize, usize)> {
    let mut found = Vec::new();
    let mut on_path = vec![false; successors.len()];
    let mut seen = vec![false; successors.len()];
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    on_path[0] = true;
    while let Some(&mut (block, ref mut next)) = stack.last_mut() {
        if let Some(&to) = successors[block].get(*next) {
            let index = *next;
            *next += 1;
            if on_path[to] {
                found.push((block, index, to));
            } else if !seen[to] {
                seen[to] = true;
                on_path[to] = true;
                stack.push((to, 0));
            }
        } else {
            on_path[block] = false;
            stack.pop();
        }
    }
    found
}

/// The blocks of the loop of back edge `latch → header`: those that reach `latch`
/// without passing `header`, and `header`. `None` when such a walk reaches the entry,
/// i.e. the loop can be entered other than through its header.
fn natural_loop(
    predecessors: &[Vec<usize>],
    latch: usize,
    header: usize,
) -> Option<HashSet<usize>> {
    let mut body = HashSet::from([header, latch]);
    let mut work = vec![latch];
    while let Some(block) = work.pop() {
        if block == header {
            continue;
        }
        if block == 0 {
            return None;
        }
        for &p in &predecessors[block] {
            if body.insert(p) {
                work.push(p);
            }
        }
    }
    Some(body)
}

/// No `phi` at the top of the header: nothing is carried from one iteration to the next.
fn has_no_phi(header: BasicBlock<'_>) -> bool {
    header
        .get_first_instruction()
        .is_none_or(|i| i.get_opcode() != InstructionOpcode::Phi)
}

/// Whether every instruction of `block` only computes: no write, no call (debug-info and
/// lifetime markers aside), no read of memory another thread may write.
fn changes_nothing(block: BasicBlock<'_>) -> bool {
    use InstructionOpcode::*;
    std::iter::successors(block.get_first_instruction(), |i| i.get_next_instruction()).all(|inst| {
        match inst.get_opcode() {
            Load => reads_private_memory(inst),
            Call => ir::called_function(inst).is_some_and(|f| {
                let name = f.get_name().to_string_lossy();
                name.starts_with("llvm.dbg.") || name.starts_with("llvm.lifetime.")
            }),
            Add | Sub | Mul | UDiv | SDiv | URem | SRem | Shl | LShr | AShr | And | Or | Xor
            | FAdd | FSub | FMul | FDiv | FRem | FNeg | ICmp | FCmp | Select | Phi
            | GetElementPtr | Trunc | ZExt | SExt | FPTrunc | FPExt | FPToUI | FPToSI | UIToFP
            | SIToFP | PtrToInt | IntToPtr | BitCast | AddrSpaceCast | ExtractValue
            | InsertValue | ExtractElement | InsertElement | ShuffleVector | Freeze | Br
            | Switch | Unreachable => true,
            _ => false,
        }
    })
}

/// A plain load from a stack slot whose address never leaves the function, or from a
/// constant.
fn reads_private_memory(load: InstructionValue<'_>) -> bool {
    if load.get_volatile().unwrap_or(true) {
        return false;
    }
    let Some(access) = ir::memory_accesses(load).into_iter().next() else {
        return false;
    };
    !access.atomic
        && match ir::pointer_root(access.address) {
            PointerRoot::Alloca { escapes } => !escapes,
            PointerRoot::Global { constant, .. } => constant,
            PointerRoot::Other => false,
        }
}

/// `file:line:col in function` of the loop's header, for the runtime's message.
fn place(function: FunctionValue<'_>, header: BasicBlock<'_>, root: &Path) -> String {
    let at = std::iter::successors(header.get_first_instruction(), |i| i.get_next_instruction())
        .find_map(ir::debug_location);
    let name = crate::api::demangle(&function.get_name().to_string_lossy());
    let name = name.split('(').next().unwrap_or_default().to_string();
    match at {
        Some(at) => format!(
            "{}:{}:{} in {name}",
            crate::source::relative_to(root, &at.path.to_string_lossy()),
            at.line,
            at.col
        ),
        None => format!("a loop in {name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loop_back_to_a_block_on_the_path_is_retreating() {
        // 0 → 1 → 2 → 1, 2 → 3
        let successors = vec![vec![1], vec![2], vec![1, 3], vec![]];
        assert_eq!(retreating_edges(&successors), vec![(2, 0, 1)]);
    }

    #[test]
    fn a_loop_entered_beside_its_header_is_no_natural_loop() {
        // 0 → 1, 0 → 2, 1 → 2, 2 → 1: the cycle 1–2 has two entries.
        let predecessors = vec![vec![], vec![0, 2], vec![0, 1]];
        assert_eq!(natural_loop(&predecessors, 2, 1), None);
        // 0 → 1 → 2 → 1: one entry.
        let predecessors = vec![vec![], vec![0, 2], vec![1]];
        assert_eq!(
            natural_loop(&predecessors, 2, 1),
            Some(HashSet::from([1, 2]))
        );
    }
}
