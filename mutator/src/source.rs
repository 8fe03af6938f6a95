//! Source-level facts about a site: whether it is user code, and how the call reads.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// Directories whose code is never the user's (C/C++ standard library, SystemC,
/// clang's own headers). Paths are normalised first: clang records libstdc++ headers
/// as `/usr/bin/../lib/gcc/...`.
const SYSTEM_DIRS: &[&str] = &[
    "/usr/include/",
    "/usr/lib/",
    "/usr/local/include/",
    "/usr/share/",
];

/// Resolves `.` and `..` lexically (the file need not exist).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// How reports name `file` (an absolute, normalised path): relative to the project
/// `root` when it lies under it, else as is, so nothing is ever named ambiguously.
pub fn relative_to(root: &Path, file: &str) -> String {
    match Path::new(file).strip_prefix(root) {
        Ok(rel) if !rel.as_os_str().is_empty() && !root.as_os_str().is_empty() => {
            rel.to_string_lossy().into_owned()
        }
        _ => file.to_string(),
    }
}

/// True when a debug location points into a system header.
pub fn is_system_path(path: &Path) -> bool {
    let normalized = normalize(path);
    let text = normalized.to_string_lossy();
    SYSTEM_DIRS.iter().any(|dir| text.starts_with(dir))
}

/// Reads source lines on demand, once per file.
#[derive(Default)]
pub(crate) struct SourceCache {
    files: HashMap<PathBuf, Option<Vec<String>>>,
}

impl SourceCache {
    /// The call written at `line:col` (1-based), e.g. `e.notify()`, or a placeholder when
    /// the source is not available (bitcode given without its sources).
    pub(crate) fn call_text(&mut self, path: &Path, line: u32, col: u32, fallback: &str) -> String {
        // Read lossily: a comment in another encoding (Windows-1252 quotes in the
        // Accellera TLM examples) must not hide every call of the file.
        let lines = self.files.entry(path.to_path_buf()).or_insert_with(|| {
            std::fs::read(path).ok().map(|bytes| {
                String::from_utf8_lossy(&bytes)
                    .lines()
                    .map(String::from)
                    .collect()
            })
        });
        lines
            .as_ref()
            .and_then(|lines| lines.get(line.checked_sub(1)? as usize))
            .and_then(|text| extract_call(text, col))
            .unwrap_or_else(|| format!("{fallback}(…)"))
    }
}

/// Extracts the call expression around column `col` (1-based, pointing at the callee
/// name as clang records it): the object path before it (`fifo.`, `m->`, `sc_core::`)
/// and the balanced argument list after it.
fn extract_call(line: &str, col: u32) -> Option<String> {
    let chars: Vec<char> = line.chars().collect();
    let at = (col as usize).checked_sub(1)?;
    if at >= chars.len() {
        return None;
    }
    let is_path_char =
        |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | ':' | '>' | '-' | ']' | '[');
    let mut start = at;
    while start > 0 && is_path_char(chars[start - 1]) {
        start -= 1;
        // An index (`forks[(i + 1) % N].lock()`) is part of the object's path, spaces
        // and parentheses included.
        if chars[start] == ']' {
            let mut depth = 0;
            while start > 0 {
                match chars[start] {
                    ']' => depth += 1,
                    '[' => depth -= 1,
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
                start -= 1;
            }
        }
    }
    let open = (at..chars.len()).find(|&i| chars[i] == '(')?;
    let mut depth = 0;
    let mut end = None;
    for (i, &c) in chars.iter().enumerate().skip(open) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    end = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    // An argument list spanning lines is shown up to the line's end.
    let end = end.unwrap_or(chars.len() - 1);
    let text: String = chars[start..=end].iter().collect();
    let text = text.trim_start_matches(['-', '>', '.', ':']).to_string();
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_not_in_utf8_still_gives_its_calls() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("latin.cpp");
        std::fs::write(&file, b"// the \x93gp\x94 field\n  out->write (p);\n").unwrap();
        let mut cache = SourceCache::default();
        assert_eq!(
            cache.call_text(&file, 2, 8, "virtual call"),
            "out->write (p)"
        );
    }

    #[test]
    fn system_paths_are_recognised_after_normalisation() {
        assert!(is_system_path(Path::new(
            "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/iostream"
        )));
        assert!(is_system_path(Path::new(
            "/usr/include/sysc/kernel/sc_module.h"
        )));
        assert!(!is_system_path(Path::new("/work/design/top.cpp")));
        assert!(!is_system_path(Path::new("/home/u/usr/include/x.h")));
    }

    #[test]
    fn files_under_the_root_are_named_relative_to_it() {
        let root = Path::new("/p/app");
        assert_eq!(relative_to(root, "/p/app/src/a.c"), "src/a.c");
        assert_eq!(
            relative_to(root, "/p/application/a.c"),
            "/p/application/a.c"
        );
        assert_eq!(relative_to(root, "/elsewhere/b.h"), "/elsewhere/b.h");
        assert_eq!(relative_to(Path::new(""), "/p/app/a.c"), "/p/app/a.c");
    }

    #[test]
    fn call_text_covers_object_and_arguments() {
        assert_eq!(
            extract_call("      wait(e);", 7).as_deref(),
            Some("wait(e)")
        );
        assert_eq!(
            extract_call("    e1.notify(7, SC_NS);", 8).as_deref(),
            Some("e1.notify(7, SC_NS)")
        );
        assert_eq!(
            extract_call("  pthread_mutex_lock(&b->lock);", 3).as_deref(),
            Some("pthread_mutex_lock(&b->lock)")
        );
        assert_eq!(
            extract_call("  if (x) m->lock(); ", 14).as_deref(),
            Some("m->lock()")
        );
        assert_eq!(
            extract_call("    sc_core::wait(9, SC_NS);", 14).as_deref(),
            Some("sc_core::wait(9, SC_NS)")
        );
        assert_eq!(
            extract_call("    forks[(id + 1) % N].unlock();", 24).as_deref(),
            Some("forks[(id + 1) % N].unlock()")
        );
        assert_eq!(
            extract_call("  t.grid[a[i]][0].lock();", 19).as_deref(),
            Some("t.grid[a[i]][0].lock()")
        );
        assert_eq!(extract_call("short", 40), None);
    }
}
