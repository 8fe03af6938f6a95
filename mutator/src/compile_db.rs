//! A project's own build as a design: a compile database (`compile_commands.json`, as
//! CMake, Bear or Meson write it) gives each translation unit with its own flags and
//! working directory. A database has no link line, so which units make up the
//! executable is decided here:
//!
//! - **CMake build directory**: an object under `CMakeFiles/<target>.dir/` belongs to
//!   `<target>`. `--target NAME` picks one; without it the database's only executable
//!   target is taken (an executable is a target whose `link.txt` links with `-o` and
//!   without `-shared`), and several are an error naming them. The target's `link.txt`
//!   gives its libraries: `-l`/`-L`/`-Wl,` flags and library files go to the link, and a
//!   library of another target of the database (`lib<name>.a`/`.so`) brings that
//!   target's units.
//! - **Any other database** (Bear over make, Meson…): every unit is linked into one
//!   executable; `--target` is refused, since nothing says which units form which
//!   program.

use crate::design::{absolute, common_root, default_jobs, utf8, Design, Input, InputKind};
use crate::error::{MutatorError, Result};
use serde::Deserialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One entry as the database holds it.
#[derive(Deserialize)]
struct Entry {
    directory: PathBuf,
    file: PathBuf,
    #[serde(default)]
    arguments: Option<Vec<String>>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    output: Option<PathBuf>,
}

/// One translation unit of the database.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Unit {
    source: PathBuf,
    directory: PathBuf,
    flags: Vec<String>,
    /// The CMake target its object belongs to, if the database is CMake's.
    target: Option<String>,
}

/// What the database describes for one executable: its units (as design inputs, each
/// with its flags and directory), the link flags, and the project root (the deepest
/// directory holding the database and every unit's source).
#[derive(Debug, Clone)]
pub struct Program {
    pub(crate) inputs: Vec<Input>,
    /// `-l`, `-L`, `-Wl,` flags and library files of the executable's link.
    pub link_flags: Vec<String>,
    pub(crate) root: PathBuf,
    /// Flags the allowlist dropped ([`crate::flags`]), one warning each.
    pub(crate) notes: Vec<String>,
}

/// Reads `db` and picks the units of one executable (`target`, or the only one).
pub fn program(db: &Path, target: Option<&str>) -> Result<Program> {
    let fail = |message: String| MutatorError::CompileDatabase {
        file: db.to_path_buf(),
        message,
    };
    let text = std::fs::read_to_string(db).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => MutatorError::InputNotFound(db.to_path_buf()),
        _ => MutatorError::InputUnreadable {
            path: db.to_path_buf(),
            source,
        },
    })?;
    let entries: Vec<Entry> = serde_json::from_str(&text).map_err(|e| fail(format!("{e} (expected a JSON array of {{\"directory\", \"file\", \"arguments\" or \"command\"}} entries)")))?;
    let mut units: Vec<Unit> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    for entry in entries {
        let unit = unit(entry, db, &mut notes).map_err(fail)?;
        // A unit listed twice (two configurations of one target) is compiled once.
        if !units
            .iter()
            .any(|u| u.source == unit.source && u.target == unit.target)
        {
            units.push(unit);
        }
    }
    let units: Vec<Unit> = units
        .into_iter()
        .filter(|u| kind_of(&u.source).is_some())
        .collect();
    if units.is_empty() {
        return Err(fail("it lists no C/C++ translation unit".to_string()));
    }
    let db_dir = absolute(db.parent().unwrap_or(Path::new(".")));
    let targets: BTreeSet<String> = units.iter().filter_map(|u| u.target.clone()).collect();
    let (chosen, link_flags, libraries) = if targets.is_empty() {
        if let Some(name) = target {
            return Err(fail(format!(
                "--target {name}: this database is not a CMake build directory's (no object under CMakeFiles/<target>.dir/), so nothing says which units form which program; without --target every unit is linked into one executable"
            )));
        }
        (None, Vec::new(), Vec::new())
    } else {
        let links: Vec<(String, Option<Link>)> = targets
            .iter()
            .map(|t| (t.clone(), link_of(&units, t, &mut notes)))
            .collect();
        let executables: Vec<String> = links
            .iter()
            .filter(|(_, l)| l.as_ref().is_some_and(|l| l.executable))
            .map(|(t, _)| t.clone())
            .collect();
        let name = match target {
            Some(name) if targets.contains(name) => name.to_string(),
            Some(name) => {
                return Err(fail(format!(
                    "no target {name:?} in it; its targets: {}",
                    targets.iter().cloned().collect::<Vec<_>>().join(", ")
                )))
            }
            None if targets.len() == 1 => targets.iter().next().cloned().unwrap_or_default(),
            None if executables.len() == 1 => executables[0].clone(),
            None => {
                let listed: Vec<String> = if executables.is_empty() {
                    targets.iter().cloned().collect()
                } else {
                    executables
                };
                return Err(fail(format!(
                    "it describes several programs ({}): name one with --target",
                    listed.join(", ")
                )));
            }
        };
        let link = links
            .into_iter()
            .find(|(t, _)| *t == name)
            .and_then(|(_, l)| l);
        if link.as_ref().is_some_and(|l| !l.executable) {
            let named = if executables.is_empty() {
                String::new()
            } else {
                format!("; its programs: {}", executables.join(", "))
            };
            return Err(fail(format!("target {name:?} is a library (its link.txt builds an archive or a shared library), not a program{named}")));
        }
        let link = link.unwrap_or_default();
        (Some(name), link.flags, link.libraries)
    };
    // The chosen target's units, then those of the project libraries it links.
    let mut wanted: Vec<&str> = chosen.iter().map(String::as_str).collect();
    for lib in &libraries {
        if targets.contains(lib) && !wanted.contains(&lib.as_str()) {
            wanted.push(lib);
        }
    }
    let mut link_flags = link_flags;
    link_flags.extend(
        libraries
            .iter()
            .filter(|l| !targets.contains(*l))
            .map(|l| format!("-l{l}")),
    );
    let selected: Vec<&Unit> = match &chosen {
        None => units.iter().collect(),
        Some(_) => wanted
            .iter()
            .flat_map(|t| {
                units
                    .iter()
                    .filter(move |u| u.target.as_deref() == Some(*t))
            })
            .collect(),
    };
    let mut inputs: Vec<Input> = selected
        .iter()
        .map(|u| Input {
            path: u.source.clone(),
            kind: kind_of(&u.source).unwrap_or(InputKind::C),
            flags: u.flags.clone(),
            directory: Some(u.directory.clone()),
        })
        .collect();
    inputs.sort_by(|a, b| a.path.cmp(&b.path));
    inputs.dedup_by(|a, b| a.path == b.path);
    let root = common_root(
        std::iter::once(db_dir).chain(
            inputs
                .iter()
                .filter_map(|i| i.path.parent().map(Path::to_path_buf)),
        ),
    );
    Ok(Program {
        inputs,
        link_flags,
        root,
        notes,
    })
}

impl Design {
    /// The program a compile database describes (`--compile-db`, see
    /// [`crate::compile_db`]): its units with their own flags, its libraries; `flags`
    /// are added to every unit (and `-l`/`-L`/`-Wl,` to the link).
    pub fn from_compile_db(db: &Path, target: Option<&str>, flags: &[String]) -> Result<Design> {
        let program = program(db, target)?;
        for input in &program.inputs {
            utf8(&input.path)?;
        }
        let mut all = flags.to_vec();
        all.extend(program.link_flags);
        Ok(Design {
            inputs: program.inputs,
            flags: all,
            root: program.root,
            jobs: default_jobs(),
            notes: program.notes,
            sync: Vec::new(),
        })
    }
}

/// The language of a C/C++ source by its extension (`None` for anything else).
pub fn kind_of(path: &Path) -> Option<InputKind> {
    crate::design::kind_of(path).filter(|k| *k != InputKind::Llvm)
}

/// One entry as a unit; the flags the allowlist drops are told in `notes`, once each.
fn unit(entry: Entry, db: &Path, notes: &mut Vec<String>) -> std::result::Result<Unit, String> {
    let directory = absolute(&entry.directory);
    let args = match (entry.arguments, entry.command) {
        (Some(args), _) => args,
        (None, Some(command)) => shlex::split(&command).ok_or_else(|| {
            format!(
                "cannot split the command of {}: {command}",
                entry.file.display()
            )
        })?,
        (None, None) => {
            return Err(format!(
                "the entry of {} has neither \"arguments\" nor \"command\"",
                entry.file.display()
            ))
        }
    };
    let source = crate::source::normalize(&directory.join(&entry.file));
    let object = entry
        .output
        .or_else(|| output_of(&args))
        .map(|o| directory.join(o));
    let target = object.as_deref().and_then(cmake_target);
    let (flags, dropped) = crate::flags::allow(
        &compile_flags(&args, &entry.file, &directory),
        &db.display().to_string(),
    );
    for note in dropped {
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    Ok(Unit {
        flags,
        source,
        directory,
        target,
    })
}

/// The `-o` argument of a command line.
fn output_of(args: &[String]) -> Option<PathBuf> {
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == "-o" {
            return it.next().map(PathBuf::from);
        }
        if let Some(rest) = arg.strip_prefix("-o").filter(|r| !r.is_empty()) {
            return Some(PathBuf::from(rest));
        }
    }
    None
}

/// `<build>/…/CMakeFiles/<target>.dir/…` → `<target>`.
fn cmake_target(object: &Path) -> Option<String> {
    let parts: Vec<&str> = object.iter().filter_map(|c| c.to_str()).collect();
    parts
        .windows(2)
        .rev()
        .find(|w| w[0] == "CMakeFiles" && w[1].ends_with(".dir"))
        .map(|w| w[1].trim_end_matches(".dir").to_string())
}

/// A unit's own flags (`args[0]` is the compiler): what it is compiled with, less what
/// syncmut sets itself (the compiler, `-c`, the output and dependency files,
/// optimisation and debug levels) and what would make other code than the design's
/// (sanitizers, LTO, profiling). Every build passes these, so they go without a word;
/// the rest still goes through the allowlist ([`crate::flags::allow`]).
pub fn compile_flags(args: &[String], file: &Path, directory: &Path) -> Vec<String> {
    const WITH_VALUE: &[&str] = &["-o", "-MF", "-MT", "-MQ"];
    const DROPPED: &[&str] = &[
        "-c",
        "-S",
        "-E",
        "-M",
        "-MM",
        "-MD",
        "-MMD",
        "-MP",
        "-pipe",
        "-emit-llvm",
        "--",
    ];
    const DROPPED_PREFIXES: &[&str] = &[
        "-O",
        "-g",
        "-flto",
        "-fsanitize",
        "-fprofile",
        "-fcoverage",
        "-ftest-coverage",
        "-fno-sanitize",
    ];
    let source = directory.join(file);
    let mut flags = Vec::new();
    let mut it = args.iter().skip(1);
    while let Some(arg) = it.next() {
        if WITH_VALUE.contains(&arg.as_str()) {
            it.next();
        } else if DROPPED.contains(&arg.as_str())
            || DROPPED_PREFIXES.iter().any(|p| arg.starts_with(p))
            || (arg.starts_with("-o") && arg.len() > 2)
            || directory.join(arg) == source
        {
        } else {
            flags.push(arg.clone());
        }
    }
    flags
}

/// What a CMake target's `link.txt` says.
#[derive(Debug, Default)]
struct Link {
    /// It links a program (not an archive or a shared library).
    executable: bool,
    /// `-l`, `-L`, `-Wl,` flags and library files of the system (absolute paths).
    flags: Vec<String>,
    /// Libraries named by file (`…/lib<name>.a`, `.so`): `<name>`, a target of the
    /// database or a library to pass as `-l<name>`.
    libraries: Vec<String>,
}

/// Reads `CMakeFiles/<target>.dir/link.txt` beside one of the target's objects; its
/// flags go through the allowlist, the dropped ones told in `notes`.
fn link_of(units: &[Unit], target: &str, notes: &mut Vec<String>) -> Option<Link> {
    let unit = units.iter().find(|u| u.target.as_deref() == Some(target))?;
    let dir = find_up(
        &unit.directory,
        &format!("CMakeFiles/{target}.dir/link.txt"),
    )?;
    let text = std::fs::read_to_string(&dir).ok()?;
    let words: Vec<String> = text.lines().filter_map(shlex::split).flatten().collect();
    let first = words.first()?;
    let mut link = Link {
        executable: !first.ends_with("ar")
            && !words.iter().any(|w| w == "-shared")
            && words.iter().any(|w| w == "-o"),
        ..Link::default()
    };
    let mut flags = Vec::new();
    for word in &words {
        if word.starts_with("-l") || word.starts_with("-L") || word.starts_with("-Wl,") {
            flags.push(word.clone());
        } else if let Some(name) = library_name(word) {
            link.libraries.push(name);
        }
    }
    let (kept, dropped) = crate::flags::allow(&flags, &dir.display().to_string());
    link.flags = kept;
    for note in dropped {
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    Some(link)
}

/// `dir/rel` or the same in one of `dir`'s ancestors (a unit's directory is the build
/// subdirectory of its CMakeLists.txt).
fn find_up(dir: &Path, rel: &str) -> Option<PathBuf> {
    dir.ancestors().map(|d| d.join(rel)).find(|p| p.is_file())
}

/// `path/libz.so` → `z`; `libcore.a` → `core`.
fn library_name(word: &str) -> Option<String> {
    let name = Path::new(word).file_name()?.to_str()?;
    let stem = name.strip_prefix("lib")?;
    let stem = stem
        .strip_suffix(".a")
        .or_else(|| stem.split_once(".so").map(|(s, _)| s))?;
    (!stem.is_empty()).then(|| stem.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_units_flags_keep_what_changes_its_meaning_and_drop_the_build_mechanics() {
        let args: Vec<String> = "/usr/bin/cc -DN=4 -I/p/include -O2 -g -std=c11 -MD -MT x -MF x.d -o CMakeFiles/app.dir/src/a.c.o -c /p/src/a.c -fsanitize=address"
            .split(' ')
            .map(String::from)
            .collect();
        assert_eq!(
            compile_flags(&args, Path::new("/p/src/a.c"), Path::new("/p/build")),
            ["-DN=4", "-I/p/include", "-std=c11"]
        );
        assert_eq!(
            output_of(&args),
            Some(PathBuf::from("CMakeFiles/app.dir/src/a.c.o"))
        );
        assert_eq!(
            cmake_target(Path::new("/p/build/sub/CMakeFiles/core.dir/x.c.o")).as_deref(),
            Some("core")
        );
        assert_eq!(cmake_target(Path::new("/p/build/a.o")), None);
    }

    #[test]
    fn libraries_are_named_by_their_files() {
        assert_eq!(
            library_name("/usr/lib/x86_64-linux-gnu/libz.so").as_deref(),
            Some("z")
        );
        assert_eq!(library_name("libcore.a").as_deref(), Some("core"));
        assert_eq!(library_name("libm.so.6").as_deref(), Some("m"));
        assert_eq!(library_name("main.o"), None);
    }

    #[test]
    fn several_programs_without_a_target_are_refused_naming_them() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("compile_commands.json");
        let entry = |t: &str, f: &str| {
            format!(
                r#"{{"directory": "{0}", "file": "{0}/{f}", "command": "cc -c {0}/{f} -o CMakeFiles/{t}.dir/{f}.o"}}"#,
                dir.path().display()
            )
        };
        std::fs::write(
            &db,
            format!("[{}, {}]", entry("one", "a.c"), entry("two", "b.c")),
        )
        .unwrap();
        let err = program(&db, None).unwrap_err().to_string();
        assert!(
            err.contains("several programs (one, two): name one with --target"),
            "{err}"
        );
        let two = program(&db, Some("two")).unwrap();
        assert_eq!(two.inputs.len(), 1);
        assert!(two.inputs[0].path.ends_with("b.c"));
        assert!(program(&db, Some("three"))
            .unwrap_err()
            .to_string()
            .contains("no target \"three\""));
    }
}
