//! The build cache: content-addressed entries for what clang makes of a design, so the
//! same design built again (every command builds it; a test suite builds it many times)
//! skips the compiler and the linker.
//!
//! Two kinds of entry, one format. `tu/<key>` holds a translation unit's bitcode, keyed by
//! the compiler's version text and path, its command line (without output paths), the
//! working directory and the source's bytes. `link/<key>` holds an executable, keyed by
//! the linker's version text and path, its command lines (outputs replaced by
//! placeholders), the working directory, the library search variable and the bitcode's
//! bytes. The file names the key it was made for and the SHA-256 and length of what it
//! holds, lists every file the tool read (clang's depfile: headers; the linker's trace:
//! libraries, archives, start files) with the SHA-256 of its contents, then holds the
//! bytes. A fetch hits only if all those files still have those contents; an entry that
//! is unreadable, made for another key, or whose bytes are not the ones it names (cut
//! short by a full disk, replaced in a shared cache) is damaged: discarded and rebuilt.

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// `SYNCMUT_CACHE=0` turns the build cache off (so does `syncmut --no-cache`).
pub const CACHE_ENV: &str = "SYNCMUT_CACHE";
/// The cache's directory; default `$XDG_CACHE_HOME/syncmut`, else `~/.cache/syncmut`.
pub(crate) const CACHE_DIR_ENV: &str = "SYNCMUT_CACHE_DIR";

/// What an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A translation unit's bitcode.
    Unit,
    /// A linked executable.
    Executable,
}

impl Kind {
    fn dir(self) -> &'static str {
        match self {
            Kind::Unit => "tu",
            Kind::Executable => "link",
        }
    }

    /// Format tag, first line of every entry file: a changed layout must miss.
    fn tag(self) -> &'static str {
        match self {
            Kind::Unit => "syncmut-tu 2",
            Kind::Executable => "syncmut-link 1",
        }
    }

    /// The word naming the held bytes' checksum line.
    fn payload(self) -> &'static str {
        match self {
            Kind::Unit => "bitcode",
            Kind::Executable => "executable",
        }
    }
}

/// The build cache's directory (see the module's documentation).
#[derive(Debug, Clone)]
pub(crate) struct Cache {
    pub(crate) dir: PathBuf,
}

/// What a fetch from the cache found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Fetched {
    /// The bytes, written to the output.
    Hit,
    /// No entry, or one whose inputs changed since.
    Miss,
    /// An entry that fails its checks, and why.
    Damaged(String),
}

impl Cache {
    /// The cache the environment asks for, if any. A directory that cannot be created
    /// turns the cache off rather than failing the build: it is only a shortcut.
    pub(crate) fn from_env() -> Option<Cache> {
        if std::env::var_os(CACHE_ENV).is_some_and(|v| v == "0") {
            return None;
        }
        let set = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let dir = set(CACHE_DIR_ENV)
            .or_else(|| set("XDG_CACHE_HOME").map(|d| d.join("syncmut")))
            .or_else(|| set("HOME").map(|d| d.join(".cache/syncmut")))?;
        for kind in [Kind::Unit, Kind::Executable] {
            std::fs::create_dir_all(dir.join(kind.dir())).ok()?;
        }
        Some(Cache { dir })
    }

    /// The runtime header's directory, named by the header's hash so that a syncmut with
    /// another header never shares it.
    pub(crate) fn include_dir(&self) -> PathBuf {
        let digest = hex(&Sha256::digest(syncmut_runtime::HEADER));
        self.dir.join("include").join(&digest[..16])
    }

    /// The directory the runtime's archives are installed in, named by their hash: the
    /// link's command line and the files its trace names are then the same for every
    /// run directory, so one design's link is cached once (sanitized archives, of the
    /// same names, get a directory of their own).
    pub(crate) fn runtime_dir(&self) -> PathBuf {
        use syncmut_runtime as rt;
        static DIGEST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        let digest = DIGEST.get_or_init(|| {
            let (c, systemc) = if rt::sanitizers_requested() {
                (rt::C_ARCHIVE_SANITIZED, rt::SYSTEMC_ARCHIVE_SANITIZED)
            } else {
                (rt::C_ARCHIVE, rt::SYSTEMC_ARCHIVE)
            };
            let mut hash = Sha256::new();
            for part in [c, systemc, rt::HEADER] {
                hash.update((part.len() as u64).to_le_bytes());
                hash.update(part);
            }
            hex(&hash.finalize())
        });
        self.dir.join("runtime").join(&digest[..16])
    }

    pub(crate) fn entry(&self, kind: Kind, key: &str) -> PathBuf {
        self.dir.join(kind.dir()).join(key)
    }

    /// Copies the cached bytes to `out` if the entry exists, passes its checks, and every
    /// file it was built from is unchanged.
    pub(crate) fn fetch(&self, kind: Kind, key: &str, out: &Path) -> Fetched {
        let entry = match std::fs::read(self.entry(kind, key)) {
            Ok(entry) => entry,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Fetched::Miss,
            Err(e) => return Fetched::Damaged(format!("cannot be read: {e}")),
        };
        let (deps, bytes) = match check_entry(kind, &entry, key) {
            Ok(parts) => parts,
            Err(why) => return Fetched::Damaged(why),
        };
        let unchanged = deps
            .iter()
            .all(|(digest, path)| file_digest(Path::new(path)).is_some_and(|d| d == *digest));
        if unchanged && syncmut_runtime::atomic::write(out, bytes).is_ok() {
            Fetched::Hit
        } else {
            Fetched::Miss
        }
    }

    /// Records `made` with the files it was made from (absolute names). Failing to store
    /// costs only a later build, so errors are dropped.
    pub(crate) fn store(&self, kind: Kind, key: &str, inputs: &[PathBuf], made: &Path) {
        let Ok(bytes) = std::fs::read(made) else {
            return;
        };
        let mut entry = format!(
            "{}\nkey {key}\n{} {} {}\n",
            kind.tag(),
            kind.payload(),
            hex(&Sha256::digest(&bytes)),
            bytes.len()
        );
        let mut listed = std::collections::BTreeSet::new();
        for path in inputs {
            if !listed.insert(path) {
                continue;
            }
            // A name that is not UTF-8 or holds a line break cannot be listed, nor can a
            // file that is gone: such a build is not cached.
            let Some(name) = path.to_str().filter(|p| !p.contains('\n')) else {
                return;
            };
            let Some(digest) = file_digest(path) else {
                return;
            };
            entry.push_str(&format!("{digest} {name}\n"));
        }
        entry.push('\n');
        let mut whole = entry.into_bytes();
        whole.extend_from_slice(&bytes);
        let _ = syncmut_runtime::atomic::write(&self.entry(kind, key), &whole);
    }
}

/// A key: the SHA-256 of the kind's tag and `fields`, each prefixed by its length so no
/// two lists of fields run together into the same bytes.
pub(crate) fn key(kind: Kind, fields: &[&[u8]]) -> String {
    let mut hash = Sha256::new();
    for field in std::iter::once(kind.tag().as_bytes()).chain(fields.iter().copied()) {
        hash.update((field.len() as u64).to_le_bytes());
        hash.update(field);
    }
    hex(&hash.finalize())
}

/// A tool's `--version` text, asked once per tool and process (every unit and link of a
/// build needs it for its key).
pub(crate) fn tool_version(tool: &Path) -> Option<Vec<u8>> {
    static VERSIONS: Mutex<Option<HashMap<PathBuf, Vec<u8>>>> = Mutex::new(None);
    let mut versions = VERSIONS.lock().unwrap_or_else(|e| e.into_inner());
    let versions = versions.get_or_insert_with(HashMap::new);
    if let Some(version) = versions.get(tool) {
        return Some(version.clone());
    }
    let output = crate::toolchain::run(std::process::Command::new(tool).arg("--version")).ok()?;
    if !output.status.success() {
        return None;
    }
    versions.insert(tool.to_path_buf(), output.stdout.clone());
    Some(output.stdout)
}

/// The files an entry was built from, each as (SHA-256, path).
type Dependencies<'a> = Vec<(&'a str, &'a str)>;

/// An entry's dependencies and held bytes, if it is whole and was made for `key`; else
/// why not.
fn check_entry<'a>(
    kind: Kind,
    entry: &'a [u8],
    key: &str,
) -> std::result::Result<(Dependencies<'a>, &'a [u8]), String> {
    let end = entry
        .windows(2)
        .position(|w| w == b"\n\n")
        .ok_or("its header is cut short")?;
    let head = std::str::from_utf8(&entry[..end]).map_err(|_| "its header is not text")?;
    let bytes = &entry[end + 2..];
    let mut lines = head.lines();
    if lines.next() != Some(kind.tag()) {
        return Err(format!("it does not start with {:?}", kind.tag()));
    }
    if lines.next().and_then(|l| l.strip_prefix("key ")) != Some(key) {
        return Err("it was made for another command line or source".to_string());
    }
    let payload = kind.payload();
    let named = lines
        .next()
        .and_then(|l| l.strip_prefix(payload)?.strip_prefix(' '))
        .and_then(|l| l.split_once(' '))
        .ok_or(format!("it names no {payload} checksum"))?;
    if named.1 != bytes.len().to_string() {
        return Err(format!(
            "its {payload} has {} bytes, not the {} it names (cut short?)",
            bytes.len(),
            named.1
        ));
    }
    if hex(&Sha256::digest(bytes)) != named.0 {
        return Err(format!(
            "its {payload} is not the one its checksum names (replaced?)"
        ));
    }
    let deps = lines
        .map(|line| {
            line.split_once(' ')
                .ok_or("a dependency line without a digest")
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok((deps, bytes))
}

/// The SHA-256 of a regular file (a pipe or device named in a shared cache's entry is
/// never opened: it could block or never end).
pub(crate) fn file_digest(path: &Path) -> Option<String> {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    std::fs::read(path)
        .ok()
        .map(|bytes| hex(&Sha256::digest(bytes)))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
