//! A site as discovery hands it on: the catalogue's row with its API, still attached
//! to its instruction for rewriting (`crate::discover` finds them; `crate::regions`,
//! `crate::rewrite` and `crate::user_sync` read them).

use crate::api::SyncApi;
use crate::catalogue::Site;
use inkwell::values::InstructionValue;

/// A site found in a module, still attached to its instruction for rewriting.
pub struct FoundSite<'ctx> {
    pub site: Site,
    pub api: SyncApi,
    pub inst: InstructionValue<'ctx>,
}
