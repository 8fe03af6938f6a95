//! The metamutant rewrite: each site's callee becomes its runtime wrapper, with the
//! site number as a new first argument, and the module gets a site table the runtime
//! uses to validate `SYNCMUT_ACTIVE` and to describe itself. Each rewritten call is
//! tagged with its API's effect (`!syncmut.effect`) for the analysis.

use crate::api::{self, Rewrite};
use crate::discover::{FoundSite, InnerCall};
use crate::effect::CallTag;
use crate::error::{MutatorError, Result};
use crate::ir::replace_call;
use crate::regions::Copy;
use crate::{hooks, ir, trampoline};
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, BasicType};
use inkwell::values::{BasicValue, FunctionValue, InstructionValue};
use inkwell::AddressSpace;

/// Globals the runtime declares weak; their presence also marks a module as done.
pub const SITE_COUNT_SYMBOL: &str = "syncmut_site_count";
pub const SITE_TABLE_SYMBOL: &str = "syncmut_sites";
const COPY_COUNT_SYMBOL: &str = "syncmut_copy_count";
const COPY_TABLE_SYMBOL: &str = "syncmut_copies";

/// Rewrites every found site in place and adds the site table.
///
/// `inner`: calls in library code that become calls of their wrapper with the site
/// argument `SITE_INNER` (scheduling points without sites).
///
/// `copies`: calls placed by moving operators (`regions`); each becomes a call of the
/// copied site's wrapper whose site argument is `SITE_COPY` and its entry in the copy
/// table, which names its mutant; tagged as a call that is not a site.
pub fn rewrite<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    sites: &[FoundSite<'ctx>],
    inner: &[InnerCall<'ctx>],
    copies: &[Copy<'ctx>],
) -> Result<()> {
    let builder = context.create_builder();
    let inner_arg = context
        .i32_type()
        .const_int(u64::from(syncmut_runtime::tables::SITE_INNER), false);
    for call in inner {
        let wrapper = declare_wrapper(context, module, call.inst, &call.api, &[])?;
        let new_call = replace_call(
            &builder,
            call.inst,
            wrapper,
            &[inner_arg.as_basic_value_enum()],
        )
        .map_err(|e| {
            MutatorError::Verify(format!(
                "building the call of {} in library code: {e}",
                call.api.wrapper
            ))
        })?;
        ir::tag_call(
            context,
            new_call,
            &CallTag {
                effect: call.api.effect,
                leading: 1,
                site: false,
                family: call.api.family,
            },
        );
    }
    for (entry, copy) in copies.iter().enumerate() {
        let found = &sites[copy.call_of];
        let wrapper = declare_wrapper(
            context,
            module,
            found.inst,
            &found.api,
            &found.site.operators,
        )?;
        let number = syncmut_runtime::tables::SITE_COPY | entry as u32;
        let site_arg = context.i32_type().const_int(u64::from(number), false);
        let call = replace_call(
            &builder,
            copy.call,
            wrapper,
            &[site_arg.as_basic_value_enum()],
        )
        .map_err(|e| {
            MutatorError::Verify(format!("building a copy of site {}: {e}", found.site.key))
        })?;
        ir::tag_call(
            context,
            call,
            &CallTag {
                effect: found.api.effect,
                leading: 1,
                site: false,
                family: found.api.family,
            },
        );
    }
    for found in sites {
        let wrapper = declare_wrapper(
            context,
            module,
            found.inst,
            &found.api,
            &found.site.operators,
        )?;
        let site_arg = context
            .i32_type()
            .const_int(u64::from(found.site.index), false);
        let call = replace_call(
            &builder,
            found.inst,
            wrapper,
            &[site_arg.as_basic_value_enum()],
        )
        .map_err(|e| {
            MutatorError::Verify(format!(
                "building the call for site {}: {e}",
                found.site.key
            ))
        })?;
        ir::tag_call(
            context,
            call,
            &CallTag {
                effect: found.api.effect,
                leading: 1,
                site: true,
                family: found.api.family,
            },
        );
    }
    hooks::rewrite_thread_hooks(context, module, &builder)?;
    add_site_table(context, module, sites);
    add_copy_table(context, module, sites, copies);
    module
        .verify()
        .map_err(|e| MutatorError::Verify(e.to_string()))
}

/// Declares `wrapper(i32 site, original params...) -> original return`; for template
/// APIs also defines it (see `trampoline`).
fn declare_wrapper<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    inst: InstructionValue<'ctx>,
    api: &api::SyncApi,
    operators: &[crate::Operator],
) -> Result<FunctionValue<'ctx>> {
    let callee = ir::called_function(inst).expect("sites are direct calls");
    if let Rewrite::UserTrampoline { gate } = &api.rewrite {
        return crate::user_sync::define_trampoline(context, module, &api.wrapper, callee, gate);
    }
    if let Rewrite::StdTrampoline { changes } = &api.rewrite {
        return crate::std_trampoline::define(context, module, &api.wrapper, callee, changes);
    }
    if let Rewrite::FifoTrampoline {
        access,
        counterpart,
    } = &api.rewrite
    {
        if let Some(existing) = module.get_function(&api.wrapper) {
            return Ok(existing);
        }
        let twin = module
            .get_functions()
            .find(|f| api::demangle(&f.get_name().to_string_lossy()) == *counterpart);
        return trampoline::define(
            context,
            module,
            &api.wrapper,
            callee,
            *access,
            twin,
            operators,
        );
    }
    let original = callee.get_type();
    let mut params: Vec<BasicMetadataTypeEnum> = vec![context.i32_type().into()];
    params.extend(original.get_param_types());
    let wrapper_type = match original.get_return_type() {
        Some(ret) => ret.fn_type(&params, false),
        None => context.void_type().fn_type(&params, false),
    };
    match module.get_function(&api.wrapper) {
        Some(existing) if existing.get_type() == wrapper_type => Ok(existing),
        Some(_) => Err(MutatorError::Verify(format!(
            "wrapper {} already declared with another type",
            api.wrapper
        ))),
        None => Ok(module.add_function(&api.wrapper, wrapper_type, Some(Linkage::External))),
    }
}

/// Emits `const uint32_t syncmut_site_count` and `const char *const syncmut_sites[]`,
/// one `"file:line:col wrapper"` string per site.
fn add_site_table<'ctx>(context: &'ctx Context, module: &Module<'ctx>, sites: &[FoundSite<'ctx>]) {
    let i32_type = context.i32_type();
    let count = module.add_global(i32_type, Some(AddressSpace::default()), SITE_COUNT_SYMBOL);
    count.set_initializer(&i32_type.const_int(sites.len() as u64, false));
    count.set_constant(true);

    let ptr_type = context.ptr_type(AddressSpace::default());
    let entries: Vec<_> = sites
        .iter()
        .map(|f| {
            let text = format!(
                "{}:{}:{} {}",
                f.site.file, f.site.line, f.site.col, f.site.wrapper
            );
            let bytes = context.const_string(text.as_bytes(), true);
            let global = module.add_global(
                bytes.get_type(),
                Some(AddressSpace::default()),
                "syncmut.site",
            );
            global.set_initializer(&bytes);
            global.set_constant(true);
            global.set_linkage(Linkage::Private);
            global.as_pointer_value()
        })
        .collect();
    let table_value = ptr_type.const_array(&entries);
    let table = module.add_global(
        table_value.get_type(),
        Some(AddressSpace::default()),
        SITE_TABLE_SYMBOL,
    );
    table.set_initializer(&table_value);
    table.set_constant(true);
}

/// Emits `const uint32_t syncmut_copy_count` and `const uint32_t syncmut_copies[]`: per
/// copy, its mutant's operator number and sites (`syncmut_runtime::tables::COPY_FIELDS`).
fn add_copy_table<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    sites: &[FoundSite<'ctx>],
    copies: &[Copy<'ctx>],
) {
    let i32_type = context.i32_type();
    let count = module.add_global(i32_type, Some(AddressSpace::default()), COPY_COUNT_SYMBOL);
    count.set_initializer(&i32_type.const_int(copies.len() as u64, false));
    count.set_constant(true);
    let values: Vec<_> = copies
        .iter()
        .flat_map(|c| {
            [
                c.operator.number(),
                sites[c.sites[0]].site.index,
                sites[c.sites[1]].site.index,
            ]
        })
        .map(|v| i32_type.const_int(u64::from(v), false))
        .collect();
    debug_assert_eq!(
        values.len(),
        copies.len() * syncmut_runtime::tables::COPY_FIELDS
    );
    let table_value = i32_type.const_array(&values);
    let table = module.add_global(
        table_value.get_type(),
        Some(AddressSpace::default()),
        COPY_TABLE_SYMBOL,
    );
    table.set_initializer(&table_value);
    table.set_constant(true);
}

/// Whether a module already carries a site table (it is a metamutant already).
pub fn is_instrumented(module: &Module<'_>) -> bool {
    module.get_global(SITE_COUNT_SYMBOL).is_some()
}
