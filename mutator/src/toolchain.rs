//! clang-16 and llvm-link-16 invocations: sources → one bitcode module → executables.
//!
//! Designs are compiled at -O0 with full debug info (sites map to `file:line:col`, and
//! later stages read variable names), without `optnone` so the analysis may optimise a
//! copy. SystemC sources are C++17 because Debian's libsystemc exports only the C++17
//! API-version symbol.
//!
//! Each translation unit's bitcode and each executable is kept in a content-addressed cache
//! (DESIGN.md, "Build cache"): a SystemC unit costs seconds of clang, almost all of it
//! in the library's headers, and the same design is built again by every run.

use crate::build_cache::{self, Cache, Fetched, Kind};
use crate::design::{Design, Input, InputKind};
use crate::effect::Family;
use crate::error::{MutatorError, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

const LLVM_BIN: &str = "/usr/lib/llvm-16/bin";

/// Flags every design compile gets.
const COMPILE_FLAGS: &[&str] = &[
    "-c",
    "-emit-llvm",
    "-O0",
    "-g",
    "-Xclang",
    "-disable-O0-optnone",
    "-fno-discard-value-names",
];

/// Locates a tool: `name-16` on PATH, else LLVM 16's own bin directory.
fn tool(versioned: &str, plain: &str) -> Result<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(versioned))
                .find(|c| c.is_file())
        })
        .unwrap_or(None);
    on_path
        .or_else(|| Some(Path::new(LLVM_BIN).join(plain)).filter(|c| c.is_file()))
        .ok_or_else(|| MutatorError::ToolMissing {
            tool: versioned.to_string(),
            package: "clang-16 llvm-16".to_string(),
        })
}

/// Runs a compiler or linker to completion. It dies with syncmut (`PR_SET_PDEATHSIG`):
/// a syncmut killed mid-build must not leave clang writing into the run directory that
/// a `--resume` is about to rebuild. The signal follows the thread that started the
/// tool, which waits here until the tool ends, so it never fires early.
pub(crate) fn run(cmd: &mut Command) -> std::io::Result<std::process::Output> {
    use std::os::unix::process::CommandExt;
    // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.env("LC_ALL", "C").output()
}

/// Compiles every source of the design and links all modules into `out` (one module,
/// so `linkonce_odr` bodies shared by several files are instrumented once).
/// Returns what the user must know (a damaged compile-cache entry replaced).
pub fn build_bitcode(design: &Design, workdir: &Path, out: &Path) -> Result<Vec<String>> {
    let objdir = workdir.join("obj");
    std::fs::create_dir_all(&objdir).map_err(|source| MutatorError::Write {
        path: objdir.clone(),
        source,
    })?;
    let cache = Cache::from_env();
    let include = runtime_include(cache.as_ref(), &workdir.join("include"))?;
    // Absolute, since a compile database's units are compiled in their own directories.
    let (objdir, include) = (
        crate::design::absolute(&objdir),
        crate::design::absolute(&include),
    );
    let modules: Vec<PathBuf> = design
        .inputs
        .iter()
        .enumerate()
        .map(|(i, input)| match input.kind {
            InputKind::Llvm => input.path.clone(),
            InputKind::C | InputKind::Cxx => {
                let stem = input.path.file_stem().unwrap_or_default().to_string_lossy();
                objdir.join(format!("{i:03}-{stem}.bc"))
            }
        })
        .collect();
    // Units are compiled `design.jobs` at a time; the first failure in input order is
    // reported, so the message does not depend on which compile finished first.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<Result<Compiled>>>> = design
        .inputs
        .iter()
        .map(|_| std::sync::Mutex::new(None))
        .collect();
    std::thread::scope(|scope| {
        for _ in 0..design.jobs.clamp(1, design.inputs.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(input) = design.inputs.get(i) else {
                    break;
                };
                if input.kind != InputKind::Llvm {
                    let result = compile(design, input, &include, &modules[i], cache.as_ref());
                    *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
                }
            });
        }
    });
    let mut notes = Vec::new();
    for result in results {
        let compiled = result
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .transpose()?;
        notes.extend(compiled.and_then(Compiled::note));
    }
    let llvm_link = tool("llvm-link-16", "llvm-link")?;
    let output =
        run(Command::new(&llvm_link).args(&modules).arg("-o").arg(out)).map_err(|source| {
            MutatorError::InputUnreadable {
                path: llvm_link.clone(),
                source,
            }
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_string();
        // Two units defining one symbol (two `main`s) are not one program: say so rather
        // than blame the bitcode.
        if stderr.contains("multiply defined") {
            return Err(MutatorError::MultiplyDefined { message: stderr });
        }
        let file = modules.first().cloned().unwrap_or_default();
        return Err(MutatorError::BadBitcode {
            file,
            message: stderr,
        });
    }
    Ok(notes)
}

/// The directory holding the runtime's public header (named inputs,
/// __VERIFIER_nondet_*), so designs can `#include <syncmut.h>` without installing
/// anything. With the cache on it lives in the cache, so the `-I` path (part of the key)
/// is the same for every run; else in `fallback`.
fn runtime_include(cache: Option<&Cache>, fallback: &Path) -> Result<PathBuf> {
    let include = cache.map_or_else(|| fallback.to_path_buf(), Cache::include_dir);
    std::fs::create_dir_all(&include).map_err(|source| MutatorError::Write {
        path: include.clone(),
        source,
    })?;
    let header = include.join(syncmut_runtime::HEADER_NAME);
    if std::fs::read(&header).ok().as_deref() != Some(syncmut_runtime::HEADER) {
        syncmut_runtime::atomic::write(&header, syncmut_runtime::HEADER).map_err(|source| {
            MutatorError::Write {
                path: header.clone(),
                source,
            }
        })?;
    }
    Ok(include)
}

/// Compiles one unit to the design bitcode syncmut builds from (`syncmut cc` keeps it
/// beside the project's object), through the compile cache; what the user must know.
pub fn compile_unit(input: &Input, object: &Path) -> Result<Vec<String>> {
    let cache = Cache::from_env();
    let scratch = tempfile::tempdir().map_err(|source| MutatorError::Write {
        path: std::env::temp_dir(),
        source,
    })?;
    let include = runtime_include(cache.as_ref(), scratch.path())?;
    let design = Design {
        inputs: vec![input.clone()],
        flags: Vec::new(),
        root: PathBuf::new(),
        jobs: 1,
        notes: Vec::new(),
        sync: Vec::new(),
    };
    compile(&design, input, &include, object, cache.as_ref())
        .map(|c| c.note().into_iter().collect())
}

/// The C or C++ compiler syncmut builds with (`clang-16`, `clang++-16`).
pub fn compiler(kind: InputKind) -> Result<PathBuf> {
    match kind {
        InputKind::Cxx => tool("clang++-16", "clang++"),
        _ => tool("clang-16", "clang"),
    }
}

/// Where a translation unit's bitcode came from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Compiled {
    Cached,
    ByClang,
    /// By clang, in place of a cache entry that failed its checks (the entry, why).
    Repaired(PathBuf, String),
}

impl Compiled {
    fn note(self) -> Option<String> {
        match self {
            Compiled::Repaired(entry, why) => Some(format!(
                "compile cache entry {}: {why}; it was discarded, the unit compiled again and the entry replaced",
                entry.display()
            )),
            _ => None,
        }
    }
}

fn compile(
    design: &Design,
    input: &Input,
    include: &Path,
    object: &Path,
    cache: Option<&Cache>,
) -> Result<Compiled> {
    let (source, kind) = (input.path.as_path(), input.kind);
    let compiler = compiler(kind)?;
    let mut args: Vec<OsString> = COMPILE_FLAGS.iter().map(OsString::from).collect();
    // The unit's own flags (compile database), then the user's, which may override them.
    let user_flags: Vec<&String> = input.flags.iter().chain(design.compile_flags()).collect();
    if kind == InputKind::Cxx && !user_flags.iter().any(|f| f.starts_with("-std=")) {
        args.push("-std=c++17".into());
    }
    // The user's own -I directories come first, so a design's own syncmut.h would win.
    args.push("-pthread".into());
    args.extend(user_flags.into_iter().map(OsString::from));
    args.extend(["-I".into(), include.into(), source.into()]);
    // A unit that cannot be read for the key is left to clang, which names the problem.
    let cwd = match &input.directory {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().map_err(|source| MutatorError::InputUnreadable {
            path: PathBuf::from("."),
            source,
        })?,
    };
    let Some((cache, key)) =
        cache.and_then(|c| Some((c, unit_key(&compiler, &args, &cwd, source)?)))
    else {
        clang(&compiler, &args, &cwd, None, source, object)?;
        return Ok(Compiled::ByClang);
    };
    let damaged = match cache.fetch(Kind::Unit, &key, object) {
        Fetched::Hit => return Ok(Compiled::Cached),
        Fetched::Miss => None,
        Fetched::Damaged(why) => {
            let _ = std::fs::remove_file(cache.entry(Kind::Unit, &key));
            Some(why)
        }
    };
    let depfile = object.with_extension("d");
    clang(&compiler, &args, &cwd, Some(&depfile), source, object)?;
    // Names relative to the compile's directory are listed absolute, so a fetch from any
    // working directory checks the same files.
    if let Ok(deps) = std::fs::read_to_string(&depfile) {
        let inputs: Vec<PathBuf> = depfile_paths(&deps)
            .into_iter()
            .map(|p| cwd.join(p))
            .collect();
        cache.store(Kind::Unit, &key, &inputs, object);
    }
    let _ = std::fs::remove_file(&depfile);
    Ok(match damaged {
        Some(why) => Compiled::Repaired(cache.entry(Kind::Unit, &key), why),
        None => Compiled::ByClang,
    })
}

/// A unit's cache key: the compiler's version text and path, its command line (without
/// the output paths), the working directory and the source's bytes; none when the source
/// cannot be read (clang then names the problem).
fn unit_key(compiler: &Path, args: &[OsString], cwd: &Path, source: &Path) -> Option<String> {
    let version = build_cache::tool_version(compiler)?;
    let source = std::fs::read(cwd.join(source)).ok()?;
    let mut fields: Vec<&[u8]> = vec![&version, compiler.as_os_str().as_encoded_bytes()];
    fields.extend(args.iter().map(|a| a.as_encoded_bytes()));
    fields.extend([cwd.as_os_str().as_encoded_bytes(), &source]);
    Some(build_cache::key(Kind::Unit, &fields))
}

/// Runs the compiler; `depfile` asks it to list every file it read (`-MD`).
fn clang(
    compiler: &Path,
    args: &[OsString],
    cwd: &Path,
    depfile: Option<&Path>,
    source: &Path,
    object: &Path,
) -> Result<()> {
    let mut cmd = Command::new(compiler);
    cmd.current_dir(cwd).args(args).arg("-o").arg(object);
    if let Some(depfile) = depfile {
        // A fixed target name keeps the depfile's first line free of paths to unescape.
        cmd.args(["-MD", "-MT", "unit", "-MF"]).arg(depfile);
    }
    let output = run(&mut cmd).map_err(|source| MutatorError::InputUnreadable {
        path: compiler.to_path_buf(),
        source,
    })?;
    if !output.status.success() {
        return Err(MutatorError::CompileFailed {
            file: source.to_path_buf(),
            stderr: String::from_utf8_lossy(&output.stderr)
                .trim_end()
                .to_string(),
        });
    }
    Ok(())
}

/// The prerequisites of a Make rule as clang writes it (`unit: a.c \\\n b.h`): spaces
/// and `#` in names are escaped with a backslash, `$` is doubled.
fn depfile_paths(text: &str) -> Vec<PathBuf> {
    let body = text.split_once(':').map_or("", |(_, rest)| rest);
    let mut paths = Vec::new();
    let mut current = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\n') => {}
                Some('\r') if chars.peek() == Some(&'\n') => {
                    chars.next();
                }
                Some(escaped @ (' ' | '#')) => current.push(escaped),
                Some(other) => {
                    current.push('\\');
                    current.push(other);
                }
                None => current.push('\\'),
            },
            '$' if chars.peek() == Some(&'$') => {
                chars.next();
                current.push('$');
            }
            c if c.is_whitespace() => {
                if !current.is_empty() {
                    paths.push(PathBuf::from(std::mem::take(&mut current)));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        paths.push(PathBuf::from(current));
    }
    paths
}

/// Links a bitcode module (plus runtime archives, if any) into an executable, through
/// the build cache when it is on and the design's link flags are ones whose inputs the
/// linker's trace names (libraries and their directories). Returns what the user must
/// know (a damaged link-cache entry replaced).
pub fn link_executable(
    design: &Design,
    kind: Family,
    bitcode: &Path,
    archives: &[PathBuf],
    out: &Path,
) -> Result<Option<String>> {
    // SYNCMUT_SANITIZE=1: the runtime archives are the sanitized ones; the driver adds
    // the sanitizers' runtime (and instruments the bitcode it compiles). Both
    // executables get it, so the baseline's comparison of the metamutant with the
    // original still compares like with like.
    let sanitizers: Vec<OsString> = syncmut_runtime::sanitizer_link_flags()
        .iter()
        .map(OsString::from)
        .collect();
    let mut codegen: Vec<OsString> = vec!["-c".into(), "-O0".into()];
    codegen.extend(sanitizers.iter().cloned());
    let mut link: Vec<OsString> = Vec::new();
    if !archives.is_empty() {
        // The deterministic environment (virtual clock) in every executable that gets
        // the runtime, so both executables of a design see the same virtual time.
        link.push(syncmut_runtime::VIRTUAL_CLOCK_LINK_FLAG.into());
        link.push(match kind {
            Family::Pthread => syncmut_runtime::STD_THREAD_LINK_FLAG.into(),
            Family::Systemc => syncmut_runtime::SIM_UNTIL_LINK_FLAG.into(),
        });
    }
    link.extend(archives.iter().map(OsString::from));
    link.extend(design.link_flags().map(OsString::from));
    link.extend(sanitizers);
    if kind == Family::Systemc {
        link.push("-lsystemc".into());
    }
    link.push("-pthread".into());
    let cache = Cache::from_env().filter(|_| design.link_flags().all(|f| traced_link_flag(f)));
    crate::link::link(
        &tool("clang++-16", "clang++")?,
        &codegen,
        &link,
        bitcode,
        out,
        cache.as_ref(),
    )
    // A damaged entry was replaced by a fresh link: the executable is right either way,
    // but a cache that damages its entries is worth a look, as for compiled units.
    .map(|linked| match linked {
        crate::link::Linked::Repaired(why) => Some(format!(
            "link cache entry for {}: {why}; it was discarded, the executable linked again and the entry replaced",
            out.display()
        )),
        _ => None,
    })
}

/// A design link flag whose every input shows in the linker's trace: a library, a
/// library directory, threads. Any other (a linker script, `-Wl,…`) turns the cache off
/// for the build.
fn traced_link_flag(flag: &str) -> bool {
    flag == "-pthread" || flag.starts_with("-l") || flag.starts_with("-L")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_header_invalidates_the_cached_unit() {
        let work = tempfile::tempdir().unwrap();
        let header = work.path().join("depth.h");
        std::fs::write(&header, "#define DEPTH 1\n").unwrap();
        let source = work.path().join("unit.c");
        std::fs::write(
            &source,
            "#include \"depth.h\"\nint depth(void) { return DEPTH; }\n",
        )
        .unwrap();
        let design = Design::from_paths(std::slice::from_ref(&source), &[]).unwrap();
        let cache = Cache {
            dir: work.path().join("cache"),
        };
        std::fs::create_dir_all(cache.dir.join("tu")).unwrap();
        let object = work.path().join("unit.bc");
        let build = || {
            compile(
                &design,
                &design.inputs[0],
                &cache.include_dir(),
                &object,
                Some(&cache),
            )
            .unwrap()
        };

        assert_eq!(build(), Compiled::ByClang);
        let first = std::fs::read(&object).unwrap();
        assert_eq!(build(), Compiled::Cached);
        assert_eq!(
            std::fs::read(&object).unwrap(),
            first,
            "a hit gives the bitcode clang made"
        );

        std::fs::write(&header, "#define DEPTH 2\n").unwrap();
        assert_eq!(build(), Compiled::ByClang, "a changed header must miss");
        assert_ne!(std::fs::read(&object).unwrap(), first);
        assert_eq!(
            build(),
            Compiled::Cached,
            "the entry was replaced by the new build"
        );
    }

    /// Units and a cache in a scratch directory; `build(i)` compiles unit `i`.
    struct Scratch {
        work: tempfile::TempDir,
        design: Design,
        cache: Cache,
    }

    impl Scratch {
        fn new(sources: &[&str]) -> Scratch {
            let work = tempfile::tempdir().unwrap();
            let paths: Vec<PathBuf> = sources
                .iter()
                .enumerate()
                .map(|(i, text)| {
                    let path = work.path().join(format!("unit{i}.c"));
                    std::fs::write(&path, text).unwrap();
                    path
                })
                .collect();
            let design = Design::from_paths(&paths, &[]).unwrap();
            let cache = Cache {
                dir: work.path().join("cache"),
            };
            std::fs::create_dir_all(cache.dir.join("tu")).unwrap();
            Scratch {
                work,
                design,
                cache,
            }
        }

        fn object(&self, i: usize) -> PathBuf {
            self.work.path().join(format!("unit{i}.bc"))
        }

        fn build(&self, i: usize) -> Compiled {
            let include = self.cache.include_dir();
            std::fs::create_dir_all(&include).unwrap();
            compile(
                &self.design,
                &self.design.inputs[i],
                &include,
                &self.object(i),
                Some(&self.cache),
            )
            .unwrap()
        }

        fn entries(&self) -> std::collections::BTreeSet<PathBuf> {
            std::fs::read_dir(self.cache.dir.join("tu"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect()
        }
    }

    /// A shared cache's entry whose bitcode was replaced by another valid module, cut
    /// short, filed under another unit's key, or garbage is never served: the unit is
    /// compiled again (the note says why) and the entry replaced.
    #[test]
    fn a_damaged_or_foreign_entry_is_compiled_again_and_replaced() {
        let scratch = Scratch::new(&[
            "int one(void) { return 1; }\n",
            "int two(void) { return 2; }\n",
        ]);
        assert_eq!(scratch.build(0), Compiled::ByClang);
        let good = std::fs::read(scratch.object(0)).unwrap();
        let mine = scratch.entries().into_iter().next().unwrap();
        assert_eq!(scratch.build(1), Compiled::ByClang);
        let theirs = scratch.entries().into_iter().find(|e| *e != mine).unwrap();
        let whole = std::fs::read(&mine).unwrap();
        let split = whole.windows(2).position(|w| w == b"\n\n").unwrap() + 2;
        let other_module = std::fs::read(scratch.object(1)).unwrap();
        let spoiled: [(&str, Vec<u8>); 4] = [
            ("not the one its checksum names", {
                // Same length, so only the checksum can tell.
                let mut bytes = whole[..split].to_vec();
                let mut module = other_module.clone();
                module.resize(whole.len() - split, 0);
                bytes.extend(module);
                bytes
            }),
            ("cut short", whole[..whole.len() - 100].to_vec()),
            ("made for another", std::fs::read(&theirs).unwrap()),
            ("does not start with", b"\x00\x01garbage\n\nBC".to_vec()),
        ];
        for (why, bytes) in spoiled {
            std::fs::write(&mine, &bytes).unwrap();
            match scratch.build(0) {
                Compiled::Repaired(entry, reason) => {
                    assert_eq!(entry, mine);
                    assert!(reason.contains(why), "{why}: {reason}");
                }
                other => panic!("{why}: {other:?}"),
            }
            assert_eq!(std::fs::read(scratch.object(0)).unwrap(), good, "{why}");
            assert_eq!(scratch.build(0), Compiled::Cached, "{why}: replaced");
        }
    }

    /// Two builds filling one cache at once (two CI jobs sharing it) both get the
    /// unit's bitcode, and leave one whole entry that later builds are served from.
    #[test]
    fn two_builds_filling_the_cache_at_once_stay_correct() {
        let scratch = Scratch::new(&["int one(void) { return 1; }\n"]);
        let include = scratch.cache.include_dir();
        std::fs::create_dir_all(&include).unwrap();
        let objects: Vec<Vec<u8>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..2)
                .map(|n| {
                    let (scratch, include) = (&scratch, &include);
                    scope.spawn(move || {
                        let object = scratch.work.path().join(format!("racer{n}.bc"));
                        compile(
                            &scratch.design,
                            &scratch.design.inputs[0],
                            include,
                            &object,
                            Some(&scratch.cache),
                        )
                        .unwrap();
                        std::fs::read(object).unwrap()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(objects[0], objects[1]);
        assert_eq!(scratch.entries().len(), 1);
        assert_eq!(scratch.build(0), Compiled::Cached);
        assert_eq!(std::fs::read(scratch.object(0)).unwrap(), objects[0]);
    }

    #[test]
    fn depfile_names_are_unescaped() {
        let text = "unit: /a/b\\ c.h \\\n  /d/e$$f.h /g/\\#h.h\n";
        assert_eq!(
            depfile_paths(text),
            [
                PathBuf::from("/a/b c.h"),
                PathBuf::from("/d/e$f.h"),
                PathBuf::from("/g/#h.h")
            ]
        );
    }
}
