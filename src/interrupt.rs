//! SIGINT and SIGTERM: an interrupted syncmut stops everything it started, leaves its
//! run directory as a later `--resume` expects it (every finished result is already on
//! disk, written atomically), says how to go on, and exits 130 or 143 as a shell would.

use signal_hook::consts::{SIGINT, SIGTERM};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set when a signal arrived: the watcher thread ends the process.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Starts the thread that waits for SIGINT and SIGTERM. Call once, before any work.
pub fn watch() -> std::io::Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    std::thread::Builder::new()
        .name("interrupt".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                stop(signal);
            }
        })?;
    Ok(())
}

/// Called by the main thread before it reports and exits: while an interruption is
/// being handled, the failures it caused (a compiler killed under a build) are not the
/// outcome, so the main thread leaves the exit to the watcher.
pub fn defer_to_watcher() {
    while STOPPING.load(Ordering::SeqCst) {
        std::thread::park();
    }
}

fn stop(signal: i32) -> ! {
    STOPPING.store(true, Ordering::SeqCst);
    let (name, code) = if signal == SIGINT {
        ("SIGINT", crate::exit::INTERRUPTED)
    } else {
        ("SIGTERM", crate::exit::TERMINATED)
    };
    let dir = syncmut_oracle::outdir::hold_for_exit();
    match &dir {
        Some(dir) => eprintln!(
            "syncmut: interrupted ({name}); finished results are kept in {}: continue with the same command and --resume",
            dir.display()
        ),
        None => eprintln!("syncmut: interrupted ({name})"),
    }
    // Writes stop before the kills: a run this handler kills ends in a status (a crash,
    // say) that a worker could otherwise judge and save as a verdict in between, which
    // `--resume` would then keep. Writes in flight finish first; later ones never start.
    syncmut_runtime::atomic::stop_writes();
    syncmut_runner::exec::kill_children();
    if let Some(dir) = dir {
        syncmut_oracle::outdir::remove_temporaries(&dir);
        let _ = std::fs::remove_file(dir.join(syncmut_oracle::outdir::LOCK));
    }
    std::process::exit(code)
}
