//! `syncmut cc` / `syncmut c++`: a compiler wrapper for a project's own build
//! (`make CC="syncmut cc"`, CMake's `CC`/`CMAKE_C_COMPILER_LAUNCHER`). Every command is
//! first run by the real compiler, so the project builds exactly as before; then
//!
//! - a compile of one source (`-c`) also compiles the design bitcode syncmut builds
//!   from (the unit's own flags, syncmut's -O0/-g set, through the compile cache) into
//!   `<object>.syncmut.bc`, recorded in `<object>.syncmut`;
//! - a link records, beside the executable, every object's unit and the link's
//!   libraries (`<executable>.syncmut`), so `syncmut run <executable>` builds the
//!   metamutant of that program.
//!
//! Response files (`@args.rsp`, as CMake and Ninja write them) are read as the compiler
//! reads them. A command whose output is not a regular file (`-o /dev/null`, `-o -`, a
//! pipe, a link to a device) leaves no record, and says so. The flags kept for the
//! design's bitcode go through syncmut's allowlist (`syncmut_mutator::flags`), each
//! dropped one told on stderr.
//!
//! As a launcher (`syncmut cc /usr/bin/gcc -c …`) the named compiler does the real
//! compile; otherwise clang-16 (clang++-16 for `c++`) does. What the wrapper cannot
//! follow it says on stderr, prefixed `syncmut cc:`, and the build goes on: objects that
//! reach the link only through a static archive, and units the bitcode compile fails on.

use std::path::{Path, PathBuf};
use std::process::Command;
use syncmut_mutator::compile_db;
use syncmut_mutator::design::{absolute, is_library_file, Input, InputKind};
use syncmut_mutator::wrapped::{self, Program, Unit};

/// Flags whose value is the next argument (so it is not taken for an input file).
const WITH_VALUE: &[&str] = &[
    "-o",
    "-MF",
    "-MT",
    "-MQ",
    "-I",
    "-D",
    "-U",
    "-include",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-x",
    "-Xlinker",
    "-L",
    "-target",
    "--target",
    "-arch",
];

/// Runs the wrapper as `syncmut <name> ARGS…`; returns the exit code.
pub fn main(name: &str, args: Vec<String>) -> i32 {
    let kind = if name == "cc" {
        InputKind::C
    } else {
        InputKind::Cxx
    };
    let tag = format!("syncmut {name}");
    // Launcher mode: the first argument is the project's compiler itself.
    let (compiler, args) = match args.split_first() {
        Some((first, rest)) if is_compiler(first) => (PathBuf::from(first), rest.to_vec()),
        _ => match syncmut_mutator::toolchain::compiler(kind) {
            Ok(c) => (c, args),
            Err(e) => {
                eprintln!("{tag}: {e}");
                return crate::exit::TOOL_MISSING;
            }
        },
    };
    let status = match Command::new(&compiler).args(&args).status() {
        Ok(status) => status,
        Err(e) => {
            eprintln!("{tag}: cannot run {}: {e}", compiler.display());
            return crate::exit::TOOL_MISSING;
        }
    };
    if !status.success() {
        return status.code().unwrap_or(1);
    }
    let cwd = absolute(Path::new("."));
    // The compiler read `@file` arguments itself; the wrapper reads them the same way.
    let args = match expand_response_files(&args, &cwd) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("{tag}: warning: {e}; no bitcode kept for this command");
            return 0;
        }
    };
    let command = CompilerCall::parse(&args);
    if command.only_preprocesses {
        return 0;
    }
    // What the compiler wrote: the named output, else `<stem>.o` of a compile's one
    // source or `a.out` of a link.
    let output = match (
        &command.output,
        command.compile_only,
        command.sources.as_slice(),
    ) {
        (Some(output), _, _) => output.clone(),
        (None, true, [source]) => PathBuf::from(format!(
            "{}.o",
            source.file_stem().unwrap_or_default().to_string_lossy()
        )),
        (None, true, _) => return 0,
        (None, false, _) => PathBuf::from("a.out"),
    };
    // A compile to a device, a pipe or standard output (`-o /dev/null`, `-o -`) made
    // nothing syncmut can build from, and no record may go beside it (in /dev, or as
    // `./-.syncmut`).
    if !regular_output(&output, &cwd) {
        eprintln!(
            "{tag}: note: {}: not a regular file (a device, a pipe or standard output): the compile went through, and syncmut recorded nothing for it",
            output.display()
        );
        return 0;
    }
    let dropped = |warnings: Vec<String>| {
        for warning in warnings {
            eprintln!("{tag}: warning: {warning}");
        }
    };
    if command.compile_only {
        if let [source] = command.sources.as_slice() {
            match keep_bitcode(&args, source, &cwd.join(&output), &cwd) {
                Ok((_, warnings)) => dropped(warnings),
                Err(e) => eprintln!("{tag}: warning: {}: no bitcode kept, so syncmut cannot build a program holding it: {e}", source.display()),
            }
        }
        return 0;
    }
    let executable = cwd.join(output);
    let mut units = Vec::new();
    for (i, source) in command.sources.iter().enumerate() {
        // A source compiled and linked in one command: its bitcode goes beside the program.
        let object = wrapped::beside(&executable, &format!(".{i}"));
        match keep_bitcode(&args, source, &object, &cwd) {
            Ok((unit, warnings)) => {
                // Every source of the command has the same flags: told once.
                if i == 0 {
                    dropped(warnings);
                }
                units.push(unit);
            }
            Err(e) => {
                eprintln!("{tag}: warning: {}: no bitcode kept, so syncmut cannot build this program: {e}", source.display());
                return 0;
            }
        }
    }
    for object in &command.objects {
        match wrapped::unit_of(&cwd.join(object)) {
            Some(unit) => units.push(unit),
            None => {
                eprintln!(
                    "{tag}: warning: {}: not compiled through `syncmut {name}` (or rebuilt since), so syncmut cannot build {}; rebuild it through the wrapper",
                    object.display(),
                    executable.display()
                );
                return 0;
            }
        }
    }
    for archive in command.link_flags.iter().filter(|f| f.ends_with(".a")) {
        eprintln!("{tag}: warning: {archive}: objects reached through a static archive are linked as they are, not mutated; link the objects themselves, or use `syncmut run --compile-db`");
    }
    if units.is_empty() {
        return 0;
    }
    let (link_flags, warnings) = syncmut_mutator::flags::allow(&command.link_flags, COMMAND_LINE);
    dropped(warnings);
    let link_flags = link_flags
        .iter()
        .map(|f| {
            if is_library_file(f) && Path::new(f).is_relative() {
                cwd.join(f).display().to_string()
            } else {
                f.clone()
            }
        })
        .collect();
    if let Err(e) = wrapped::record_program(
        &executable,
        &Program {
            format_version: wrapped::PROGRAM_VERSION,
            units,
            link_flags,
        },
    ) {
        eprintln!("{tag}: warning: {e}");
    }
    0
}

/// What the warnings of dropped flags name as their origin.
const COMMAND_LINE: &str = "the compiler command line";

/// Compiles `source`'s design bitcode beside `object` and records it (for a compile and
/// link in one command `object` is only a name: no object file is written); the
/// warnings of the flags the allowlist dropped.
fn keep_bitcode(
    args: &[String],
    source: &Path,
    object: &Path,
    cwd: &Path,
) -> anyhow::Result<(Unit, Vec<String>)> {
    let kind = compile_db::kind_of(source).unwrap_or(InputKind::C);
    let mut all = vec![String::from("cc")];
    all.extend(args.iter().cloned());
    // The other inputs of a compile-and-link command and its link flags are not the unit's.
    let flags: Vec<String> = compile_db::compile_flags(&all, source, cwd)
        .into_iter()
        .filter(|f| {
            compile_db::kind_of(Path::new(f)).is_none()
                && !f.ends_with(".o")
                && !f.starts_with("-l")
                && !f.starts_with("-L")
                && !f.starts_with("-Wl,")
                && !is_library_file(f)
        })
        .collect();
    let (flags, dropped) = syncmut_mutator::flags::allow(&flags, COMMAND_LINE);
    let source = syncmut_mutator::source::normalize(&cwd.join(source));
    let bitcode = wrapped::beside(object, ".bc");
    let input = Input {
        path: source.clone(),
        kind,
        flags,
        directory: Some(cwd.to_path_buf()),
    };
    let mut warnings = syncmut_mutator::toolchain::compile_unit(&input, &bitcode)?;
    let unit = Unit { source, bitcode };
    wrapped::record_unit(object, &unit)?;
    warnings.extend(dropped);
    Ok((unit, warnings))
}

/// The output exists as a regular file (after the real compiler ran; a link to one
/// counts): not a device, a pipe, a directory or standard output.
fn regular_output(output: &Path, cwd: &Path) -> bool {
    output.as_os_str() != "-" && std::fs::metadata(cwd.join(output)).is_ok_and(|m| m.is_file())
}

/// Deepest nesting of `@file` arguments followed (the compilers' own limit is similar).
const RESPONSE_FILE_DEPTH: usize = 8;

/// The arguments with every `@file` replaced by the file's words (split as a POSIX
/// shell would: quotes and backslashes), as gcc and clang read them; nested ones too.
/// A `@name` that is not a readable file stays as it is, as the compilers leave it.
fn expand_response_files(args: &[String], cwd: &Path) -> anyhow::Result<Vec<String>> {
    fn expand(
        args: &[String],
        cwd: &Path,
        depth: usize,
        out: &mut Vec<String>,
    ) -> anyhow::Result<()> {
        for arg in args {
            let Some(name) = arg.strip_prefix('@') else {
                out.push(arg.clone());
                continue;
            };
            let path = cwd.join(name);
            if !std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
                out.push(arg.clone());
                continue;
            }
            anyhow::ensure!(
                depth < RESPONSE_FILE_DEPTH,
                "{}: response files nested more than {RESPONSE_FILE_DEPTH} deep",
                path.display()
            );
            let text = std::fs::read_to_string(&path).map_err(|e| {
                anyhow::anyhow!("{}: cannot read the response file: {e}", path.display())
            })?;
            let words = shlex::split(&text).ok_or_else(|| {
                anyhow::anyhow!("{}: unbalanced quotes in the response file", path.display())
            })?;
            expand(&words, cwd, depth + 1, out)?;
        }
        Ok(())
    }
    let mut out = Vec::new();
    expand(args, cwd, 0, &mut out)?;
    Ok(out)
}

/// A compiler as the first argument of a launcher: an executable file that is not an
/// input (CMake passes the compiler's absolute path).
fn is_compiler(arg: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let path = Path::new(arg);
    !arg.starts_with('-')
        && compile_db::kind_of(path).is_none()
        && std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// What a compiler command line does, as far as the wrapper cares.
#[derive(Debug, Default)]
struct CompilerCall {
    compile_only: bool,
    only_preprocesses: bool,
    output: Option<PathBuf>,
    sources: Vec<PathBuf>,
    objects: Vec<PathBuf>,
    link_flags: Vec<String>,
}

impl CompilerCall {
    fn parse(args: &[String]) -> CompilerCall {
        let mut c = CompilerCall::default();
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            match arg.as_str() {
                "-c" => c.compile_only = true,
                "-E" | "-S" | "-M" | "-MM" | "-fsyntax-only" | "--version" | "-v" | "-###" => {
                    c.only_preprocesses = true
                }
                "-o" | "--output" => c.output = it.next().map(PathBuf::from),
                a if a.starts_with("--output=") => {
                    c.output = Some(PathBuf::from(&a["--output=".len()..]))
                }
                a if WITH_VALUE.contains(&a) => {
                    let value = it.next();
                    if a == "-L" {
                        c.link_flags.extend(value.map(|v| format!("-L{v}")));
                    }
                }
                a if a.starts_with("-o") => c.output = Some(PathBuf::from(&a[2..])),
                a if a.starts_with("-l")
                    || a.starts_with("-L")
                    || a.starts_with("-Wl,")
                    || is_library_file(a) =>
                {
                    c.link_flags.push(a.to_string())
                }
                a if a.starts_with('-') => {}
                a if compile_db::kind_of(Path::new(a)).is_some() => {
                    c.sources.push(PathBuf::from(a))
                }
                a if a.ends_with(".o") => c.objects.push(PathBuf::from(a)),
                _ => {}
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> CompilerCall {
        CompilerCall::parse(&line.split(' ').map(String::from).collect::<Vec<_>>())
    }

    #[test]
    fn compiles_and_links_are_told_apart() {
        let compile = parse("-Iinclude -O2 -c -o src/a.o src/a.c");
        assert!(compile.compile_only);
        assert_eq!(compile.sources, [PathBuf::from("src/a.c")]);
        assert_eq!(compile.output, Some(PathBuf::from("src/a.o")));
        let link = parse("-o app src/a.o src/b.o libcore.a -L/opt/lib -lm -lpthread");
        assert!(!link.compile_only);
        assert_eq!(link.objects.len(), 2);
        assert_eq!(
            link.link_flags,
            ["libcore.a", "-L/opt/lib", "-lm", "-lpthread"]
        );
        assert!(parse("-E -x c -").only_preprocesses);
        assert!(
            parse("-I include -c x.c").sources == [PathBuf::from("x.c")],
            "a flag's value is not an input"
        );
    }
}
