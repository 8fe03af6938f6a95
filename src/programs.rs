//! `syncmut run prog1 prog2 …`: one library tested by several programs, each an
//! executable linked through `syncmut cc`. Each program is run as `run` runs one (its
//! own metamutant, tests and baseline) into `programs/<name>/` of the run directory,
//! which stays a run directory of its own (`--resume` continues each where it stopped);
//! after each program, their results are combined into the run directory's catalogue,
//! outcomes, score and reports (`program_union`).

use crate::design_args::DesignArgs;
use crate::failure::{oracle_failure, Failure};
use crate::linked_programs::{is_program, some_test, tests_for};
use crate::program_union::{self, ProgramRun};
use crate::run::{run_command, Ran, TestSources};
use crate::run_dir::open_run_directory;
use crate::selection::SelectArgs;
use crate::{exit, table};
use std::path::{Path, PathBuf};
use syncmut_mutator::interleave::Interleave;
use syncmut_mutator::{design, metamutant, wrapped};
use syncmut_oracle::{lab, outdir};

/// One program of the run: an executable linked through `syncmut cc`.
pub struct Program {
    /// Its file name: how tests (`"program"`), reports and `programs/<name>/` name it.
    pub name: String,
    pub path: PathBuf,
}

fn usage(error: anyhow::Error) -> Failure {
    Failure {
        code: exit::USAGE,
        error,
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The programs a run tests, sorted by name, when several executables linked through
/// `syncmut cc` are named; `None` for anything else (one program, sources, a module),
/// which `run` builds as one design. Executables mixed with sources, or with files that
/// were not linked through the wrapper, are refused saying what to do.
pub fn several(paths: &[PathBuf]) -> Result<Option<Vec<Program>>, Failure> {
    if paths.len() < 2 {
        return Ok(None);
    }
    let mut programs = Vec::new();
    let mut others = Vec::new();
    for path in paths {
        match is_program(path)? {
            true => programs.push(Program {
                name: file_name(path),
                path: path.clone(),
            }),
            false => others.push(path),
        }
    }
    let Some(first) = programs.first() else {
        return Ok(None);
    };
    if let Some(other) = others.first() {
        let not_linked = other.is_file() && design::kind_of(other).is_none();
        return Err(usage(match not_linked {
            true => anyhow::anyhow!(
                "{}: not linked through `syncmut cc` (no {} beside it): build it with CC=\"syncmut cc\" (docs/usage.md, \"Your project's build\") and name it again",
                other.display(),
                wrapped::beside(other, "").display()
            ),
            false => anyhow::anyhow!(
                "{}: sources and executables together ({} is a program linked through `syncmut cc`): name the sources of one program, or the executables of one or more programs (docs/usage.md, \"Several programs\")",
                other.display(),
                first.path.display()
            ),
        }));
    }
    programs.sort_by(|a, b| a.name.cmp(&b.name));
    if let Some(pair) = programs.windows(2).find(|w| w[0].name == w[1].name) {
        return Err(usage(anyhow::anyhow!(
            "two programs are named {} ({} and {}): tests, reports and the run directory name a program by its file name; name each program once, under distinct names",
            pair[0].name,
            pair[0].path.display(),
            pair[1].path.display()
        )));
    }
    Ok(Some(programs))
}

/// The name a run of one design gives its program: the executable's file name when the
/// design is one executable linked through `syncmut cc`.
pub fn single(paths: &[PathBuf]) -> Result<Option<String>, Failure> {
    Ok(match paths {
        [path] if is_program(path)? => Some(file_name(path)),
        _ => None,
    })
}

/// What the run of each program shares: everything `run` was given but the design.
pub struct Shared<'a> {
    pub tests: TestSources,
    pub plan: &'a crate::gen::Generation,
    pub output: &'a Path,
    pub config: &'a lab::RunSettings,
    pub resume: bool,
    pub interleave: Option<Interleave>,
    /// Race detection as asked (`None`: the default, on).
    pub races: Option<bool>,
    pub select: &'a SelectArgs,
}

/// Runs every program into its own run directory and combines their results.
pub fn run_programs(
    args: &DesignArgs,
    programs: &[Program],
    shared: Shared<'_>,
) -> Result<Ran, Failure> {
    // Held over the whole run, so no other syncmut works in it meanwhile.
    let out = open_run_directory(shared.output)?;
    if !shared.resume {
        // Results of an earlier run here must not pass for this one's while it works.
        for stale in [metamutant::layout::CATALOGUE, outdir::OUTCOMES] {
            let _ = std::fs::remove_file(out.path(stale));
        }
    }
    let paths: Vec<PathBuf> = programs.iter().map(|p| p.path.clone()).collect();
    // One root for every program, so a library's files are named alike in each.
    let mut project = args.project.clone();
    if project.root.is_none() {
        let (flags, _) = crate::design_args::allowed_flags(&args.flags, args.flags_from.as_deref());
        project.root = Some(args.project.design(&paths, &flags)?.root);
    }
    let tests_file = shared
        .tests
        .file
        .clone()
        .or_else(|| project.tests_file(&paths));
    let names: Vec<String> = programs.iter().map(|p| p.name.clone()).collect();
    if let Some(file) = &tests_file {
        let all = syncmut_runner::test_case::load(file).map_err(|e| oracle_failure(e.into()))?;
        // Refused before any program is built, not after the first ones ran.
        for program in programs {
            let mine = tests_for(file, all.clone(), &names, Some(&program.name))?;
            let command = shared.tests.command.is_some();
            some_test(file, &mine, Some(&program.name), shared.plan, command)?;
        }
    }
    let mut finished: Vec<ProgramRun> = Vec::new();
    let mut any_site = false;
    for program in programs {
        println!("program {} ({}):", program.name, program.path.display());
        let design = DesignArgs {
            design: vec![program.path.clone()],
            project: project.clone(),
            flags: args.flags.clone(),
            sync: args.sync.clone(),
            flags_from: args.flags_from.clone(),
        };
        let tests = TestSources {
            file: tests_file.clone(),
            command: shared.tests.command.clone(),
            sim_time: shared.tests.sim_time,
            programs: names.clone(),
            program: Some(program.name.clone()),
        };
        let dir = out.path(outdir::PROGRAMS).join(&program.name);
        match run_command(
            &design,
            tests,
            shared.plan,
            &dir,
            shared.config,
            shared.resume,
            shared.interleave,
            shared.races,
            shared.select,
        )? {
            Ran::NoSites => {
                eprintln!(
                    "syncmut: note: {}: no synchronization site; it adds no mutant",
                    program.name
                );
                continue;
            }
            Ran::NothingSelected => {
                any_site = true;
                continue;
            }
            Ran::Score { .. } | Ran::NoneReached => any_site = true,
        }
        finished.push(ProgramRun::read(&program.name, &dir).map_err(|e| Failure {
            code: exit::INTERNAL,
            error: e,
        })?);
        // Written after each program, so an interruption keeps what is finished; not
        // complete until every program has run.
        program_union::write(&out, &finished, false)?;
    }
    if finished.is_empty() {
        return Ok(if any_site {
            Ran::NothingSelected
        } else {
            Ran::NoSites
        });
    }
    // Programs without a site or a selected mutant add nothing: the union is complete.
    let outcomes = program_union::write(&out, &finished, true)?;
    println!("all {} programs:", programs.len());
    print!("{}", table::outcomes(&outcomes));
    println!(
        "{} programs ({}), one catalogue: results in {}",
        programs.len(),
        names.join(", "),
        out.root().display()
    );
    if table::none_ran(&outcomes) {
        return Ok(Ran::NoneReached);
    }
    Ok(Ran::Score {
        percent: outcomes.score.percent,
        killed: outcomes.score.killed,
    })
}
