//! Reports name files relative to the project root, never as absolute paths of the
//! machine that ran: the same run from another working directory gives the same bytes.

mod util;

use std::path::Path;

const EXAMPLE: &str = "examples/systemc/redundant_sync";

fn report(out: &Path, format: &str) -> String {
    let output = util::syncmut()
        .arg("report")
        .arg(out)
        .args(["--format", format])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn reports_do_not_depend_on_the_working_directory_and_name_no_absolute_path() {
    let scratch = tempfile::tempdir().unwrap();
    // From the repository, naming the design relatively…
    let here = scratch.path().join("here");
    let first = util::syncmut()
        .current_dir(util::root())
        .args(["run", EXAMPLE, "-o"])
        .arg(&here)
        .output()
        .unwrap();
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    // …and from elsewhere, naming it absolutely, with a relative output directory.
    let elsewhere = scratch.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let second = util::syncmut()
        .current_dir(&elsewhere)
        .arg("run")
        .arg(util::root().join(EXAMPLE))
        .args(["-o", "out"])
        .output()
        .unwrap();
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );

    let csv = std::fs::read(here.join("report.csv")).unwrap();
    assert_eq!(
        csv,
        std::fs::read(elsewhere.join("out/report.csv")).unwrap(),
        "report.csv differs between working directories"
    );
    let table = |stdout: &[u8]| {
        String::from_utf8_lossy(stdout)
            .lines()
            .filter(|l| !l.starts_with("results in"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        table(&first.stdout),
        table(&second.stdout),
        "the terminal report differs between working directories"
    );

    let machine = util::root().to_string_lossy().into_owned();
    let mut texts = vec![("terminal", String::from_utf8(first.stdout).unwrap())];
    for format in ["csv", "json", "junit", "markdown", "github", "mte", "html"] {
        texts.push((format, report(&here, format)));
    }
    let catalogue: serde_json::Value =
        serde_json::from_slice(&std::fs::read(here.join("mutants.json")).unwrap()).unwrap();
    let killed = util::outcomes(&here)["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["verdict"].as_str().unwrap().starts_with("killed"))
        .unwrap()["mutant"]
        .as_str()
        .unwrap()
        .to_string();
    let explain = util::syncmut()
        .arg("explain")
        .arg(&here)
        .arg(&killed)
        .output()
        .unwrap();
    assert!(
        explain.status.success(),
        "{}",
        String::from_utf8_lossy(&explain.stderr)
    );
    texts.push(("explain", String::from_utf8(explain.stdout).unwrap()));
    for (format, text) in &texts {
        assert!(
            !text.contains(&machine),
            "{format} names an absolute path of this machine:\n{text}"
        );
        assert!(
            text.contains("redundant_sync.cpp"),
            "{format} names no file:\n{text}"
        );
    }
    let github = report(&here, "github");
    assert!(
        github
            .lines()
            .all(|l| l.starts_with("::warning file=redundant_sync.cpp,line=")),
        "{github}"
    );
    // The catalogue keeps the root, so reports can still read the sources.
    assert_eq!(
        catalogue["root"].as_str().unwrap(),
        util::root().join(EXAMPLE).to_str().unwrap()
    );
    assert!(catalogue["sites"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["file"] == "redundant_sync.cpp"));
    assert!(
        report(&here, "html").contains("sc_module"),
        "the HTML report shows the source read through the root"
    );
}
