//! Selecting mutants and splitting a run across CI machines: `--in-diff` selects the
//! mutants on the lines a change touched, `--shard k/n` splits the run, and `merge`
//! puts the shards back together as the unsharded run.

mod util;

use serde_json::Value;
use std::path::Path;

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The mutant ids `list --json` prints with these extra arguments.
fn listed(design: &Path, extra: &[&str]) -> Vec<(String, u64)> {
    let out = util::syncmut()
        .arg("list")
        .arg(design)
        .arg("--json")
        .args(extra)
        .assert()
        .success();
    let catalogue: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    catalogue["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["id"].as_str().unwrap().to_string(),
                m["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn in_diff_selects_exactly_the_mutants_on_changed_lines() {
    let dir = tempfile::tempdir().unwrap();
    let old = std::fs::read_to_string(util::fixture("user_tests/handoff.c")).unwrap();
    // The change: a comment on the signal's line (17) and a new line after the wait (36).
    let new = old
        .replace(
            "    pthread_cond_signal(&c);\n",
            "    pthread_cond_signal(&c); /* wake main */\n",
        )
        .replace(
            "        pthread_cond_wait(&c, &m);\n",
            "        pthread_cond_wait(&c, &m);\n    /* woken */\n",
        );
    assert_ne!(old, new);
    std::fs::write(dir.path().join("old.c"), &old).unwrap();
    let design = dir.path().join("handoff.c");
    std::fs::write(&design, &new).unwrap();
    let diff = std::process::Command::new("diff")
        .args(["-u", "--label", "a/handoff.c", "--label", "b/handoff.c"])
        .arg(dir.path().join("old.c"))
        .arg(&design)
        .output()
        .unwrap();
    std::fs::write(dir.path().join("change.diff"), &diff.stdout).unwrap();

    let all = listed(&design, &[]);
    let selected = listed(
        &design,
        &[
            "--in-diff",
            dir.path().join("change.diff").to_str().unwrap(),
        ],
    );
    let expected: Vec<(String, u64)> = all
        .iter()
        .filter(|(_, line)| [17, 36].contains(line))
        .cloned()
        .collect();
    assert!(
        !expected.is_empty() && expected.len() < all.len(),
        "{all:?}"
    );
    assert_eq!(selected, expected);
    // Other filters narrow the same way.
    let removes = listed(
        &design,
        &[
            "--mutant",
            ":remove$",
            "--function",
            "^main$",
            "--exclude",
            "#1:",
        ],
    );
    assert!(!removes.is_empty());
    assert!(
        removes.iter().all(|(id, _)| id.starts_with("main#")
            && id.ends_with(":remove")
            && !id.contains("#1:")),
        "{removes:?}"
    );
    assert!(listed(&design, &["--file", "*.cpp"]).is_empty());
}

#[test]
fn three_shards_merged_equal_the_unsharded_run() {
    let fixture = util::fixture("user_tests");
    let dir = tempfile::tempdir().unwrap();
    let run = |out: &str, shard: Option<&str>| {
        let mut cmd = util::syncmut();
        cmd.arg("run")
            .arg(fixture.join("handoff.c"))
            .arg("--tests")
            .arg(fixture.join("tests.json"));
        // Controlled schedules alone: runs with real threads do not repeat exactly.
        cmd.args(["--gen", "none", "--native", "0", "-o"])
            .arg(dir.path().join(out));
        if let Some(shard) = shard {
            cmd.args(["--shard", shard]);
        }
        cmd.timeout(std::time::Duration::from_secs(300))
            .assert()
            .success();
    };
    run("full", None);
    for k in 1..=3 {
        run(&format!("shard{k}"), Some(&format!("{k}/3")));
    }
    // Every mutant is in exactly one shard.
    let sizes: Vec<usize> = (1..=3)
        .map(|k| {
            json(&dir.path().join(format!("shard{k}/mutants.json")))["mutants"]
                .as_array()
                .unwrap()
                .len()
        })
        .collect();
    let full = json(&dir.path().join("full/outcomes.json"));
    assert_eq!(
        sizes.iter().sum::<usize>(),
        full["mutants"].as_array().unwrap().len()
    );
    assert!(sizes.iter().all(|&n| n > 0), "{sizes:?}");
    util::syncmut()
        .current_dir(dir.path())
        .args(["merge", "shard1", "shard2", "shard3", "-o", "merged"])
        .assert()
        .success();
    let merged = json(&dir.path().join("merged/outcomes.json"));
    let verdicts = |o: &Value| -> Vec<(Value, Value, Value, Value)> {
        o["mutants"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["mutant"].clone(),
                    m["verdict"].clone(),
                    m["reason"].clone(),
                    m["killed_by"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(verdicts(&merged), verdicts(&full));
    assert_eq!(merged["score"], full["score"]);
    assert_eq!(merged["complete"], true);
    assert_eq!(
        json(&dir.path().join("merged/mutants.json")),
        json(&dir.path().join("full/mutants.json"))
    );
    // The merged directory is a run directory like any other: its reports re-render.
    util::syncmut()
        .args(["report", "--format", "markdown"])
        .arg(dir.path().join("merged"))
        .assert()
        .success();
    // Shards of different splits overlap: refused, naming the mutant.
    run("other", Some("1/2"));
    let err = util::syncmut()
        .current_dir(dir.path())
        .args(["merge", "shard1", "other", "-o", "bad"])
        .assert()
        .code(2);
    assert!(
        String::from_utf8_lossy(&err.get_output().stderr).contains("merge the shards of one split")
    );
}

#[test]
fn a_bad_shard_is_refused_with_the_form_to_use() {
    let err = util::syncmut()
        .arg("list")
        .arg(util::fixture("user_tests/handoff.c"))
        .args(["--shard", "4/3"])
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&err.get_output().stderr).contains("K/N"));
}
