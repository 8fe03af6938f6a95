//! The mutator stage end to end: design → `design.bc` → `metamutant.bc` +
//! `mutants.json` → the linked `original` and `metamutant` executables.

use crate::catalogue::Catalogue;
use crate::debug_types::DebugTypes;
use crate::design::Design;
use crate::discover::{self, Discovery};
use crate::effect::Family;
use crate::error::{MutatorError, Result};
use crate::globals::{self, Global};
use crate::interleave::{self, Interleave};
use crate::members;
use crate::{rewrite, source, toolchain};
use inkwell::context::Context;
use inkwell::module::Module;
use std::path::{Path, PathBuf};

/// File names inside a mutate output directory (documented in DESIGN.md).
pub mod layout {
    pub(crate) const DESIGN_BC: &str = "design.bc";
    /// The rewritten design's bitcode.
    pub const METAMUTANT_BC: &str = "metamutant.bc";
    /// The catalogue of sites and mutants.
    pub const CATALOGUE: &str = "mutants.json";
    /// The uninstrumented design, linked as is.
    pub const ORIGINAL_EXE: &str = "original";
    /// The metamutant, linked with the runtime library.
    pub const METAMUTANT_EXE: &str = "metamutant";
    pub(crate) const BUILD_DIR: &str = "build";
}

/// What `build` produced.
#[derive(Debug, Clone)]
pub struct Build {
    /// The sites and mutants of the build.
    pub catalogue: Catalogue,
    /// Notes on what was not instrumented and why, for the user.
    pub warnings: Vec<String>,
    /// The uninstrumented design, linked as is.
    pub original: PathBuf,
    /// The design with every site rewritten, linked with the runtime library.
    pub metamutant: PathBuf,
    /// `--interleave memory`: how many loads/stores became scheduling points.
    pub shared_accesses: usize,
    /// The design calls an input function (`__VERIFIER_nondet_*`, `syncmut_input_*`):
    /// its runs differ by their drawn values even with one thread.
    pub reads_inputs: bool,
}

/// The catalogue of a design without building executables (`syncmut list`).
pub struct Scan {
    /// The sites and mutants the build would have.
    pub catalogue: Catalogue,
    /// Notes on what would not be instrumented and why, for the user.
    pub warnings: Vec<String>,
    /// The global variables a trace's state snapshots would record.
    pub globals: Vec<Global>,
    /// Functions that look like the project's own synchronization wrappers.
    pub suggestions: Vec<crate::user_sync::Suggestion>,
}

/// Compiles the design and lists its sites and mutants.
pub fn scan(design: &Design, workdir: &Path) -> Result<Scan> {
    crate::design::utf8(workdir)?;
    let bitcode = workdir.join(layout::DESIGN_BC);
    let cache_notes = toolchain::build_bitcode(design, workdir, &bitcode)?;
    let context = Context::create();
    let module = load(&context, &bitcode, design)?;
    let devirtualized = crate::devirtualize::devirtualize(&module, design);
    let mut found = discover::discover(&module, &design.sync);
    found.warnings.extend(cache_notes);
    found.warnings.extend(devirtualized);
    let types = DebugTypes::parse(&module.print_to_string().to_string());
    let (globals, notes) = globals::collect(&module, &types);
    found.warnings.extend(notes);
    let globals = globals.into_iter().map(|(g, _)| g).collect();
    let suggestions = crate::user_sync::suggest(&found.sites);
    Ok(Scan {
        catalogue: catalogue_of(&mut found, design),
        warnings: found.warnings,
        globals,
        suggestions,
    })
}

/// How to build a metamutant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Which operations are scheduling points (pthread designs).
    pub interleave: Interleave,
    /// Shared loads and stores reach the runtime's race detector (pthread designs): with
    /// `Interleave::Memory` they do anyway; with `Interleave::Sync` they are instrumented
    /// without becoming scheduling points.
    pub races: bool,
}

/// The warning for race detection asked of a design that is not pthread (`run` leaves it
/// out when detection is only on by default).
pub const RACES_NOT_PTHREAD: &str = "race detection applies to pthread designs only; SystemC processes are coroutines of one thread and never race";

/// Builds the metamutant and the original executable into `out`, with default options.
pub fn build(design: &Design, out: &Path) -> Result<Build> {
    build_with(design, out, &Options::default())
}

/// Builds the metamutant and the original executable into `out`. A C design that fails
/// to link because it relies on GNU89 `inline` semantics, or to compile because clang 16
/// rejects its pre-C99 code, is built again with the flags that accept it (each at most
/// once), and the build's warnings say so.
pub fn build_with(design: &Design, out: &Path, options: &Options) -> Result<Build> {
    let mut design = design.clone();
    let mut notes = Vec::new();
    loop {
        let again = match build_once(&design, out, options) {
            Ok(mut build) => {
                notes.append(&mut build.warnings);
                build.warnings = notes;
                return Ok(build);
            }
            Err(MutatorError::LinkFailed { output, stderr }) => {
                crate::gnu_inline::retry(&design, &stderr)
                    .ok_or(MutatorError::LinkFailed { output, stderr })?
            }
            Err(MutatorError::CompileFailed { file, stderr }) => {
                crate::old_c::retry(&design, &file, &stderr)
                    .ok_or(MutatorError::CompileFailed { file, stderr })?
            }
            Err(other) => return Err(other),
        };
        design = again.0;
        notes.push(again.1);
    }
}

fn build_once(design: &Design, out: &Path, options: &Options) -> Result<Build> {
    crate::design::utf8(out)?;
    let workdir = out.join(layout::BUILD_DIR);
    std::fs::create_dir_all(&workdir).map_err(|source| MutatorError::Write {
        path: workdir.clone(),
        source,
    })?;
    let design_bc = out.join(layout::DESIGN_BC);
    let cache_notes = toolchain::build_bitcode(design, &workdir, &design_bc)?;

    let context = Context::create();
    let module = load(&context, &design_bc, design)?;
    let devirtualized = crate::devirtualize::devirtualize(&module, design);
    let mut found = discover::discover(&module, &design.sync);
    found.warnings.extend(cache_notes);
    found.warnings.extend(devirtualized);
    let mut catalogue = catalogue_of(&mut found, design);
    catalogue.interleave = options.interleave;
    // Copies of moved calls go in first, so `--interleave memory` sees them as the calls
    // they are and instruments the accesses around them.
    let copies = crate::regions::place_copies(&context, &found.sites, &found.regions)?;
    // Debug-info types for the state snapshots, read before the module is rewritten.
    let types = DebugTypes::parse(&module.print_to_string().to_string());
    let (user_globals, notes) = globals::collect(&module, &types);
    found.warnings.extend(notes);
    // Before the globals table takes their addresses, which would count as escaping.
    let recorded: Vec<_> = user_globals.iter().map(|(_, g)| *g).collect();
    let thread_reads = crate::thread_reads::compute(&module, &recorded);
    globals::add_table(&context, &module, &user_globals);
    crate::thread_reads::add_table(&context, &module, &thread_reads);
    // Before any hook takes a global's address, which would make every global matter.
    if catalogue.kind == Family::Pthread {
        crate::state_globals::add_table(&context, &module);
    }
    if catalogue.kind == Family::Systemc {
        let (classes, notes) = members::collect(&types);
        found.warnings.extend(notes);
        members::add_table(&context, &module, &classes);
    }
    if catalogue.kind == Family::Pthread {
        crate::atomic_functions::instrument(&context, &module)?;
        crate::atomic_functions::discard_points(&context, &module)?;
        crate::pause::yield_at_pause(&context, &module)?;
        crate::endless_loops::mark(&context, &module, &design.root)?;
    }
    // Read before the rewrite and the memory hooks add comparisons of their own.
    let nondet_constants = crate::nondet_constants::harvest(&module);
    crate::nondet_constants::add_table(&context, &module, &nondet_constants);
    catalogue.nondet_constants = nondet_constants;
    let hook = match options.interleave {
        Interleave::Memory if catalogue.kind == Family::Pthread => Some(interleave::ACCESS_HOOK),
        Interleave::Memory => {
            found.warnings.push("--interleave memory applies to pthread designs only; SystemC processes are interleaved at the kernel's scheduling points".to_string());
            None
        }
        Interleave::Sync if options.races && catalogue.kind == Family::Pthread => {
            Some(interleave::OBSERVE_HOOK)
        }
        Interleave::Sync => None,
    };
    if options.races && catalogue.kind != Family::Pthread {
        found.warnings.push(RACES_NOT_PTHREAD.to_string());
    }
    catalogue.races = options.races && catalogue.kind == Family::Pthread;
    if let Some(hook) = hook {
        catalogue.accesses = interleave::instrument(&context, &module, hook)?;
        for access in &mut catalogue.accesses {
            access.file = source::relative_to(&design.root, &access.file);
        }
    }
    let shared_accesses = catalogue.accesses.len();
    // clang declares only the functions a module refers to.
    let reads_inputs = module.get_functions().any(|f| {
        let name = f.get_name().to_string_lossy();
        name.starts_with("__VERIFIER_nondet_") || name.starts_with("syncmut_input_")
    });
    if catalogue.kind == Family::Pthread {
        crate::error_calls::instrument(&context, &module, &design.root)?;
    }
    rewrite::rewrite(&context, &module, &found.sites, &found.inner_calls, &copies)?;
    let metamutant_bc = out.join(layout::METAMUTANT_BC);
    write(&metamutant_bc, module.write_bitcode_to_memory().as_slice())?;
    let json = serde_json::to_vec_pretty(&catalogue).expect("catalogue serialises");
    write(&out.join(layout::CATALOGUE), &json)?;

    let runtime_dir = crate::build_cache::Cache::from_env()
        .map_or_else(|| workdir.join("runtime"), |cache| cache.runtime_dir());
    let runtime = syncmut_runtime::install(&runtime_dir).map_err(|source| MutatorError::Write {
        path: runtime_dir.clone(),
        source,
    })?;
    let mut archives = Vec::new();
    if catalogue.kind == Family::Systemc {
        archives.push(runtime.systemc_archive.clone());
    }
    archives.push(runtime.c_archive.clone());

    let original = out.join(layout::ORIGINAL_EXE);
    let metamutant = out.join(layout::METAMUTANT_EXE);
    // The C archive gives the original only what it asks for (the linker takes only
    // members that define an undefined symbol): the SV-COMP functions
    // (`__VERIFIER_assume`…, runtime-lib/src/verifier.c) and the test inputs
    // (`__VERIFIER_nondet_*`, `syncmut_input_*`, runtime-lib/src/inputs.c), both
    // self-contained, if the design calls them. A SystemC original also gets the SystemC
    // archive's interposed `sc_start` (runtime-lib/src/sim_until.cpp, self-contained),
    // which applies a test's `sim_time`, and nothing else of that archive.
    let original_archives = match catalogue.kind {
        Family::Systemc => archives.clone(),
        Family::Pthread => vec![runtime.c_archive.clone()],
    };
    let link_notes = [
        toolchain::link_executable(
            design,
            catalogue.kind,
            &design_bc,
            &original_archives,
            &original,
        )?,
        toolchain::link_executable(
            design,
            catalogue.kind,
            &metamutant_bc,
            &archives,
            &metamutant,
        )?,
    ];
    found.warnings.extend(link_notes.into_iter().flatten());
    Ok(Build {
        catalogue,
        warnings: found.warnings,
        original,
        metamutant,
        shared_accesses,
        reads_inputs,
    })
}

fn load<'ctx>(context: &'ctx Context, bitcode: &Path, design: &Design) -> Result<Module<'ctx>> {
    let module = Module::parse_bitcode_from_path(bitcode, context).map_err(|e| {
        MutatorError::BadBitcode {
            file: design
                .inputs
                .first()
                .map(|i| i.path.clone())
                .unwrap_or_else(|| bitcode.to_path_buf()),
            message: e.to_string(),
        }
    })?;
    if rewrite::is_instrumented(&module) {
        return Err(MutatorError::AlreadyInstrumented(
            design.inputs[0].path.clone(),
        ));
    }
    if let Some(entry) = openmp_entry(&module) {
        return Err(MutatorError::OpenMp {
            file: design.inputs[0].path.clone(),
            entry,
        });
    }
    Ok(module)
}

/// The first OpenMP runtime entry (a parallel region, teams or a task) the module
/// declares, by name. Refused rather than run: the region's threads would run outside
/// the scheduler and its locks outside the rewrite, so every verdict would be a guess.
fn openmp_entry(module: &Module<'_>) -> Option<String> {
    const ENTRIES: [&str; 5] = [
        "__kmpc_fork_call",
        "__kmpc_fork_teams",
        "__kmpc_omp_task",
        "GOMP_parallel",
        "GOMP_task",
    ];
    module
        .get_functions()
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .filter(|name| ENTRIES.iter().any(|e| name.starts_with(e)))
        .min()
}

/// The catalogue of the discovered sites, their files named relative to the design's
/// root; the sites' table in the metamutant (written by the rewrite) names them so too,
/// so no path of the building machine reaches a report or a run's messages.
fn catalogue_of(found: &mut Discovery<'_>, design: &Design) -> Catalogue {
    found.warnings.extend(design.notes.iter().cloned());
    for f in &mut found.sites {
        f.site.file = source::relative_to(&design.root, &f.site.file);
    }
    let mut catalogue = Catalogue::from_sites(
        found.kind,
        found.sites.iter().map(|f| f.site.clone()).collect(),
    );
    catalogue.add_mutants(crate::regions::catalogue_mutants(
        &found.sites,
        &found.regions,
    ));
    catalogue.root = design.root.to_string_lossy().into_owned();
    catalogue
}

/// Writes an output file atomically ([`syncmut_runtime::atomic::write`]), naming it in the
/// error.
fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    syncmut_runtime::atomic::write(path, bytes).map_err(|source| MutatorError::Write {
        path: path.to_path_buf(),
        source,
    })
}
