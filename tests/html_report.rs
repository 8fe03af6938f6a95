//! The self-contained HTML report of a real run, loaded in Debian's headless Chromium:
//! it loads without console messages and with no network, and shows the score, the
//! marked source and a trace diff. Chromium comes from scripts/setup.sh; without it
//! this test fails (it does not skip).

mod util;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};
use syncmut_oracle::report::{self, Format};
use util::root;

fn chromium() -> PathBuf {
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join("chromium"))
        .find(|p| p.is_file());
    found.unwrap_or_else(|| {
        panic!("chromium is not installed; the HTML report browser test needs Debian's chromium: run scripts/setup.sh (as root)")
    })
}

/// Loads `page` headless and returns (serialised DOM, stderr).
fn load(page: &Path, profile: &Path) -> (String, String) {
    let mut child = std::process::Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chromium");
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut out, &mut s).unwrap();
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut err, &mut s).unwrap();
        s
    });
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            child.kill().unwrap();
            panic!("chromium did not finish loading the report in 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    (out.join().unwrap(), err.join().unwrap())
}

#[test]
fn the_html_report_loads_in_chromium_and_shows_the_score_and_a_diff() {
    let chromium = chromium(); // fail first, before the run, when it is missing
    assert!(chromium.is_file());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    util::syncmut()
        .arg("run")
        .arg(root().join("examples/systemc/redundant_sync"))
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let catalogue: syncmut_mutator::Catalogue =
        serde_json::from_slice(&std::fs::read(out.join("mutants.json")).unwrap()).unwrap();
    let outcomes: syncmut_oracle::Outcomes =
        serde_json::from_slice(&std::fs::read(out.join("outcomes.json")).unwrap()).unwrap();
    assert!(
        std::fs::read_dir(out.join("diff")).unwrap().count() > 0,
        "the run wrote no diff"
    );

    let html = report::render_in(Some(&out), Format::Html, &catalogue, &outcomes);
    // Deterministic: the same results give the same bytes.
    assert_eq!(
        html,
        report::render_in(Some(&out), Format::Html, &catalogue, &outcomes)
    );
    let text = String::from_utf8(html.clone()).unwrap();
    // Self-contained: nothing to fetch.
    for needle in ["http://", "https://", "src=", "<link", "@import"] {
        assert!(
            !text.contains(needle),
            "the report refers to something outside itself: {needle}"
        );
    }
    // Without the run directory the same report renders, just without diffs; that is
    // what `syncmut report DIR --format html` gives while it passes no directory.
    let cli = util::syncmut()
        .arg("report")
        .arg(&out)
        .args(["--format", "html"])
        .output()
        .unwrap();
    assert!(
        cli.status.success(),
        "{}",
        String::from_utf8_lossy(&cli.stderr)
    );
    assert!(String::from_utf8(cli.stdout)
        .unwrap()
        .contains("id=\"score\""));

    let page = dir.path().join("report.html");
    std::fs::write(&page, &html).unwrap();
    let (dom, stderr) = load(&page, &dir.path().join("profile"));
    let console: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught"))
        .collect();
    assert!(
        console.is_empty(),
        "console messages while loading the report:\n{}",
        console.join("\n")
    );
    assert!(
        dom.contains("</html>"),
        "chromium returned no DOM; stderr:\n{stderr}"
    );

    let score = format!("Mutation score {:.1}%", outcomes.score.percent);
    assert!(
        dom.contains(&format!("<p id=\"score\">{score}</p>")),
        "score {score:?} not shown"
    );
    assert!(dom.contains(&format!(
        "{} of {} synchronization mutants killed",
        outcomes.score.killed, outcomes.score.mutants
    )));
    // Every mutant has a section, and every killed one its trace diff with changed lines.
    for (i, m) in outcomes.mutants.iter().enumerate() {
        assert!(
            dom.contains(&format!("id=\"m{i}\"")),
            "no section for {}",
            m.mutant
        );
    }
    let diffs = dom.matches("<pre class=\"diff\">").count();
    assert_eq!(diffs, std::fs::read_dir(out.join("diff")).unwrap().count());
    assert!(
        dom.contains("<span class=\"add\">+") && dom.contains("<span class=\"del\">-"),
        "no diff lines shown"
    );
    // The source is shown with its mutated lines marked.
    assert!(
        dom.contains("<a class=\"mark survived\""),
        "no survived mark"
    );
    assert!(dom.contains("<a class=\"mark killed\""), "no killed mark");
}
