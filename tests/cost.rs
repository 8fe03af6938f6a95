//! What a run keeps stays bounded whatever its mutants do: a mutant that livelocks after
//! a million events keeps a capped trace that says what it left out, its diff and the HTML
//! report stay small, survivors keep no trace unless `--keep-traces`, and lost
//! notifications are counted, not listed one by one.

mod util;

use std::path::Path;
use util::{fixture, syncmut};

/// Runs the delta-cycle spinner (`tests/fixtures/cost/delta_spin.cpp`) into `out`.
fn run_spinner(out: &Path, extra: &[&str]) {
    syncmut()
        .arg("run")
        .arg(fixture("cost/delta_spin.cpp"))
        .args(["--gen", "none", "--tests"])
        .arg(fixture("cost/tests.json"))
        .args(["-j", "2", "-o", out.to_str().unwrap()])
        .args(extra)
        .assert()
        .success();
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn a_livelocking_mutant_keeps_a_capped_trace_that_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    run_spinner(out, &[]);
    let outcomes = util::outcomes(out);
    let verdict = |id: &str| util::outcome(&outcomes, id)["verdict"].clone();
    assert_eq!(verdict("top::pinger#1:time-zero"), "killed-by-livelock");

    // The runtime recorded about a million events; the kept file holds a few thousand and
    // one line saying how many it left out, and still ends with the end record.
    let kept = lines(&out.join("traces/default/top__pinger_1_time-zero.jsonl"));
    assert!(kept.len() <= 4_100, "{} lines kept", kept.len());
    let gaps: Vec<serde_json::Value> = kept
        .iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v.get("omitted").is_some())
        .collect();
    assert_eq!(gaps.len(), 1, "one run of events left out");
    assert!(
        gaps[0]["omitted"].as_u64().unwrap() > 500_000,
        "{}",
        gaps[0]
    );
    let end: serde_json::Value = serde_json::from_str(kept.last().unwrap()).unwrap();
    assert_eq!(end["end"], "livelock");
    let trace =
        syncmut_runtime::trace::read(&out.join("traces/default/top__pinger_1_time-zero.jsonl"))
            .unwrap();
    assert_eq!(trace.omitted.len(), 1);

    // The diff says where the trace was capped only if it reaches there; it stays small,
    // and the HTML report shows the head of each diff with a link to the whole file.
    let diff = std::fs::metadata(out.join("diff/top__pinger_1_time-zero.diff"))
        .unwrap()
        .len();
    assert!(diff < 200_000, "diff of {diff} bytes");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.len() < 1_000_000,
        "report.html of {} bytes",
        html.len()
    );
    assert!(
        html.contains("more lines in <a href=\"diff/top__pinger_1_time-zero.diff\">"),
        "the report links the whole diff"
    );

    // Survivors keep no trace by default; the whole directory stays small.
    let survivor = "top::second#3:notify-immediate";
    assert_eq!(verdict(survivor), "survived");
    assert!(!out
        .join("traces/default/top__second_3_notify-immediate.jsonl")
        .exists());
    let size: u64 = walk(out)
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum();
    assert!(size < 20_000_000, "run directory of {size} bytes");

    // 300 notifications nobody waited for: counted per site, named once.
    let baseline: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("baseline.json")).unwrap()).unwrap();
    assert_eq!(baseline[0]["lost_notifications"]["total"], 300);
    assert_eq!(
        baseline[0]["lost_notifications"]["sites"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

#[test]
fn keep_traces_keeps_the_survivors_traces_capped() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    run_spinner(out, &["--keep-traces"]);
    let survivor = out.join("traces/default/top__second_3_notify-immediate.jsonl");
    assert!(
        survivor.exists(),
        "--keep-traces keeps the survivor's trace"
    );
    assert!(
        out.join("traces/default/original.2.jsonl").exists(),
        "and the baseline's repeat"
    );
    assert!(lines(&survivor).len() <= 4_100);
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}
