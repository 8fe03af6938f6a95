//! The integer constants the design compares values with (`x == 48611`, `n < 100`,
//! `switch` cases), harvested from its LLVM module at build time and emitted into the
//! metamutant as a table the runtime draws nondet values from (runtime-lib/src/inputs.c):
//! a guard on one specific constant is then reached in a few dozen drawn runs instead of
//! by a one-in-four-billion chance. The table is part of the executable, so the draws of
//! a seed stay the same from run to run.

use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::values::{BasicValueEnum, InstructionOpcode, Operand};
use inkwell::AddressSpace;
use std::collections::BTreeSet;

/// The table's symbols, read by the runtime through weak references (absent in the
/// original build: no constants, no change to its draws).
pub const TABLE_SYMBOL: &str = "syncmut_nondet_constants";
pub const COUNT_SYMBOL: &str = "syncmut_nondet_constant_count";

/// At most this many constants are kept (the smallest in absolute value first): a
/// program with more compares mostly table indices and sizes, and the draw gives each
/// kept one a share.
pub const MAX_CONSTANTS: usize = 256;

/// The distinct constants operands of integer comparisons and `switch` cases in the
/// module's defined functions, sign-extended to 64 bits; 0, 1 and -1 (drawn anyway as
/// boundary values) and booleans are left out.
pub fn harvest(module: &Module<'_>) -> Vec<i64> {
    let mut found = BTreeSet::new();
    for function in module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
    {
        for block in function.get_basic_blocks() {
            let mut next = block.get_first_instruction();
            while let Some(instruction) = next {
                next = instruction.get_next_instruction();
                let operands = match instruction.get_opcode() {
                    InstructionOpcode::ICmp => 0..2,
                    // switch: condition, default, then (value, destination) pairs.
                    InstructionOpcode::Switch => 2..instruction.get_num_operands(),
                    _ => continue,
                };
                for i in operands {
                    if let Some(Operand::Value(BasicValueEnum::IntValue(v))) =
                        instruction.get_operand(i)
                    {
                        if v.is_const()
                            && v.get_type().get_bit_width() > 1
                            && v.get_type().get_bit_width() <= 64
                        {
                            found.extend(
                                v.get_sign_extended_constant()
                                    .filter(|c| !(-1..=1).contains(c)),
                            );
                        }
                    }
                }
            }
        }
    }
    let mut constants: Vec<i64> = found.into_iter().collect();
    if constants.len() > MAX_CONSTANTS {
        constants.sort_by_key(|c| (c.unsigned_abs(), *c));
        constants.truncate(MAX_CONSTANTS);
        constants.sort_unstable();
    }
    constants
}

/// Emits the table (always, possibly empty).
pub fn add_table<'ctx>(context: &'ctx Context, module: &Module<'ctx>, constants: &[i64]) {
    let i64_type = context.i64_type();
    let count = module.add_global(i64_type, Some(AddressSpace::default()), COUNT_SYMBOL);
    count.set_initializer(&i64_type.const_int(constants.len() as u64, false));
    count.set_constant(true);
    count.set_linkage(Linkage::External);
    let values: Vec<_> = constants
        .iter()
        .map(|c| i64_type.const_int(*c as u64, true))
        .collect();
    let array = i64_type.const_array(&values);
    let table = module.add_global(
        array.get_type(),
        Some(AddressSpace::default()),
        TABLE_SYMBOL,
    );
    table.set_initializer(&array);
    table.set_constant(true);
    table.set_linkage(Linkage::External);
}
