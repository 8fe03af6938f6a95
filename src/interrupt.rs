//! SIGINT and SIGTERM: an interrupted syncmut stops everything it started, leaves its
//! run directory as a later `--resume` expects it (every finished result is already on
//! disk, written atomically), says how to go on, and exits 130 or 143 as a shell would.

use signal_hook::consts::{SIGINT, SIGTERM};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The run directory the command works in, once it holds its lock.
static RUN_DIRECTORY: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Starts the thread that waits for SIGINT and SIGTERM. Call once, before any work.
pub fn watch() -> std::io::Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    std::thread::Builder::new().name("interrupt".into()).spawn(move || {
        if let Some(signal) = signals.forever().next() {
            stop(signal);
        }
    })?;
    Ok(())
}

/// Records the run directory whose lock this command holds, so an interruption cleans
/// it up.
pub fn working_in(dir: &Path) {
    *RUN_DIRECTORY.lock().unwrap_or_else(|e| e.into_inner()) = Some(dir.to_path_buf());
}

fn stop(signal: i32) -> ! {
    let (name, code) = if signal == SIGINT { ("SIGINT", crate::exit::INTERRUPTED) } else { ("SIGTERM", crate::exit::TERMINATED) };
    let dir = RUN_DIRECTORY.lock().unwrap_or_else(|e| e.into_inner()).clone();
    match &dir {
        Some(dir) => eprintln!(
            "syncmut: interrupted ({name}); finished results are kept in {}: continue with the same command and --resume",
            dir.display()
        ),
        None => eprintln!("syncmut: interrupted ({name})"),
    }
    syncmut_runtime::exec::kill_children();
    if let Some(dir) = dir {
        syncmut_oracle::outdir::remove_temporaries(&dir);
        let _ = std::fs::remove_file(dir.join(syncmut_oracle::outdir::LOCK));
    }
    std::process::exit(code)
}
