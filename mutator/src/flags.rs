//! The one allowlist of compiler and linker flags syncmut takes from its inputs: a
//! compile database's units and CMake `link.txt`, `syncmut.toml`'s `flags`, the flags
//! after `--`, and `syncmut cc` command lines. In CI these come with the change under
//! test, and clang runs them while syncmut only lists mutants, so a flag passes only if
//! it changes what the design's code means (macros, include paths, language standard,
//! code generation, warnings) and neither writes a file of its own (`-MJ`,
//! `--serialize-diagnostics`, `-save-temps`, `-ftime-trace`…) nor loads or runs code in
//! the compiler or linker (`-fplugin`, `-fpass-plugin`, `-Xclang -load`, `-B`,
//! `--gcc-toolchain`, `-Wl,--plugin`…). Anything else is dropped, each with one warning
//! naming where it came from (docs/configuration.md, "Compiler flags").

/// Flags that take the next argument as their value when not joined to it.
const SEPARATE_VALUE: &[&str] = &[
    "-I",
    "-D",
    "-U",
    "-include",
    "-imacros",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-x",
    "-L",
    "-l",
    "-target",
];

/// Kept flags given exactly.
const EXACT: &[&str] = &[
    "-pthread",
    "-pedantic",
    "-pedantic-errors",
    "-ansi",
    "-w",
    "-nostdinc",
    "-nostdinc++",
    "-trigraphs",
    "-rdynamic",
];

/// Kept flags given by their prefix (the value joined): `-DN=4`, `-std=c11`, `-O2`,
/// `-march=native`, `-Wno-unused`, `-fno-strict-aliasing`.
const PREFIXES: &[&str] = &[
    "-I",
    "-D",
    "-U",
    "-std=",
    "--std=",
    "-stdlib=",
    "-isystem",
    "-iquote",
    "-idirafter",
    "--target=",
    "-O",
    "-g",
    "-m",
    "-W",
    "-f",
    "-l",
    "-L",
    "-x",
];

/// Among the kept prefixes, the flags that write files, load code, or change where the
/// toolchain's programs come from.
const REFUSED_PREFIXES: &[&str] = &[
    "-mllvm",
    "-Wa,",
    "-Wp,",
    "-Wl,",
    "-gsplit-dwarf",
    "-gmodules",
    "-gen-",
    "-module",
    "-fplugin",
    "-fpass-plugin",
    "-fprofile",
    "-fcs-profile",
    "-fcoverage",
    "-ftest-coverage",
    "-fsanitize",
    "-fno-sanitize",
    "-flto",
    "-ftime-trace",
    "-fsave-optimization-record",
    "-foptimization-record",
    "-fproc-stat-report",
    "-fcrash-diagnostics",
    "-fmodule",
    "-fimplicit-module",
    "-fprebuilt-module",
    "-fbuild-session",
    "-fstack-usage",
    "-fxray",
    "-fmemory-profile",
    "-forder-file",
    "-fembed-offload",
    "-fuse-ld",
    "-fembed-bitcode",
    "-fsyntax-only",
    "-fdriver-only",
    "-fintegrated-cc1",
    "-fno-integrated-cc1",
];

/// Dropped flags known to take the next argument: the value goes with them.
const DROPPED_WITH_VALUE: &[&str] = &[
    "-o",
    "-MF",
    "-MT",
    "-MQ",
    "-MJ",
    "--serialize-diagnostics",
    "-Xclang",
    "-Xlinker",
    "-Xassembler",
    "-Xpreprocessor",
    "-mllvm",
    "-B",
    "--gcc-toolchain",
    "--sysroot",
    "-isysroot",
    "-ivfsoverlay",
    "--config",
    "-include-pch",
    "-dependency-file",
    "-dependency-dot",
    "-arch",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-z",
    "-T",
];

/// Linker options `-Wl,` may carry: none writes a file or loads code.
const LINKER_OPTIONS: &[&str] = &[
    "--as-needed",
    "--no-as-needed",
    "--start-group",
    "--end-group",
    "-(",
    "-)",
    "-Bstatic",
    "-Bdynamic",
    "-Bsymbolic",
    "--whole-archive",
    "--no-whole-archive",
    "--export-dynamic",
    "-E",
    "--gc-sections",
    "--no-gc-sections",
    "--no-undefined",
    "-O1",
    "-O2",
    "--disable-new-dtags",
    "--enable-new-dtags",
    "--build-id",
    "--eh-frame-hdr",
    "--allow-multiple-definition",
    "--push-state",
    "--pop-state",
    "--copy-dt-needed-entries",
    "--no-copy-dt-needed-entries",
];

/// Linker options followed by a value (`-Wl,-z,now`, `-Wl,-rpath,/opt/lib`).
const LINKER_WITH_VALUE: &[&str] = &["-z", "-rpath", "-rpath-link", "--wrap", "--defsym", "-u"];

/// Linker options with a joined value (`-Wl,-rpath=/opt/lib`, `-Wl,-lz`).
const LINKER_JOINED: &[&str] = &[
    "-rpath=",
    "--rpath=",
    "-rpath-link=",
    "--wrap=",
    "--defsym=",
    "--undefined=",
    "--hash-style=",
    "--build-id=",
    "-l",
    "-L",
    "-z",
];

/// `flags` with every flag the allowlist does not take dropped, and one warning per
/// dropped flag (with its value), naming `origin` (a file, or "the command line").
/// Separate values of `-L` and `-l` are joined to their flag, so the link finds them.
pub fn allow(flags: &[String], origin: &str) -> (Vec<String>, Vec<String>) {
    let mut kept = Vec::new();
    let mut dropped: Vec<String> = Vec::new();
    let mut it = flags.iter();
    while let Some(flag) = it.next() {
        let f = flag.as_str();
        if SEPARATE_VALUE.contains(&f) {
            match it.next() {
                Some(value) if f == "-L" || f == "-l" => kept.push(format!("{f}{value}")),
                Some(value) => kept.extend([flag.clone(), value.clone()]),
                None => dropped.push(flag.clone()),
            }
        } else if DROPPED_WITH_VALUE.contains(&f) {
            let value = it.next().map(|v| format!(" {v}")).unwrap_or_default();
            dropped.push(format!("{f}{value}"));
        } else if f.starts_with("-Wl,") {
            if linker_flag(f) {
                kept.push(flag.clone());
            } else {
                dropped.push(flag.clone());
            }
        } else if EXACT.contains(&f)
            || is_library_file(f) && !f.starts_with('@')
            || PREFIXES.iter().any(|p| f.starts_with(p))
                && !REFUSED_PREFIXES.iter().any(|p| f.starts_with(p))
        {
            kept.push(flag.clone());
        } else {
            dropped.push(flag.clone());
        }
    }
    let mut warnings: Vec<String> = Vec::new();
    for flag in dropped {
        let warning = format!("{origin}: compiler flag `{flag}` dropped: syncmut passes clang only flags that change the compiled code, none that writes files or loads code (docs/configuration.md, \"Compiler flags\")");
        if !warnings.contains(&warning) {
            warnings.push(warning);
        }
    }
    (kept, warnings)
}

/// Whether every option a `-Wl,` flag carries is one of [`LINKER_OPTIONS`].
fn linker_flag(flag: &str) -> bool {
    let pieces: Vec<&str> = flag["-Wl,".len()..].split(',').collect();
    let mut i = 0;
    while i < pieces.len() {
        let piece = pieces[i];
        if LINKER_WITH_VALUE.contains(&piece) {
            if i + 1 == pieces.len() {
                return false;
            }
            i += 2;
        } else if LINKER_OPTIONS.contains(&piece)
            || LINKER_JOINED
                .iter()
                .any(|p| piece.starts_with(p) && piece.len() > p.len())
        {
            i += 1;
        } else {
            return false;
        }
    }
    !pieces.is_empty()
}

/// A library named by its file (`/usr/lib/libz.so`, `libcore.a`, `libm.so.6`).
pub fn is_library_file(arg: &str) -> bool {
    !arg.starts_with('-') && (arg.ends_with(".a") || arg.ends_with(".so") || arg.contains(".so."))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(String::from).collect()
    }

    #[test]
    fn flags_that_change_the_code_pass_and_the_rest_is_dropped_with_a_warning_each() {
        let (kept, warnings) = allow(
            &words("-Iinclude -I inc -DN=4 -D M -UX -std=c11 -include pre.h -isystem /s -O2 -g -march=native -Wall -Wno-unused -fno-strict-aliasing -fopenmp -pthread -lm -L /opt/lib -Wl,--as-needed,-rpath,/opt/lib libz.a"),
            "compile_commands.json",
        );
        assert_eq!(kept, words("-Iinclude -I inc -DN=4 -D M -UX -std=c11 -include pre.h -isystem /s -O2 -g -march=native -Wall -Wno-unused -fno-strict-aliasing -fopenmp -pthread -lm -L/opt/lib -Wl,--as-needed,-rpath,/opt/lib libz.a"));
        assert!(warnings.is_empty(), "{warnings:?}");
        let hostile = words("-MJ /tmp/x.json --serialize-diagnostics /tmp/d.dia -save-temps -save-temps=obj -fplugin=./x.so -fpass-plugin=./p.so -Xclang -load -Xclang ./x.so -B/tmp/bin -B /tmp/bin --gcc-toolchain=/tmp -mllvm -info-output-file=/tmp/i @args.rsp -o /tmp/out.o -Wp,-MD,/tmp/d -Wa,-adhln=/tmp/l -Wl,--plugin=/tmp/p.so -Wl,-Map=/tmp/map -ftime-trace -gsplit-dwarf -fuse-ld=/tmp/ld other.c");
        let (kept, warnings) = allow(&hostile, "syncmut.toml");
        assert!(kept.is_empty(), "{kept:?}");
        for flag in [
            "-MJ /tmp/x.json",
            "--serialize-diagnostics /tmp/d.dia",
            "-save-temps",
            "-fplugin=./x.so",
            "-Xclang -load",
            "-Xclang ./x.so",
            "-B /tmp/bin",
            "@args.rsp",
            "-mllvm -info-output-file=/tmp/i",
            "-Wl,--plugin=/tmp/p.so",
            "other.c",
        ] {
            assert!(
                warnings
                    .iter()
                    .any(|w| w.starts_with("syncmut.toml: compiler flag `")
                        && w.contains(&format!("`{flag}`"))),
                "{flag}: {warnings:?}"
            );
        }
        let (_, twice) = allow(&words("-save-temps -save-temps"), "x");
        assert_eq!(twice.len(), 1, "one warning per flag");
    }
}
