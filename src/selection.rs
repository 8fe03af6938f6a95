//! Which mutants a run tests: by file (glob), function and mutant id (regular
//! expressions), by the lines a change touched (`--in-diff`), and one shard of them
//! (`--shard k/n`) so CI machines can split a run. Filters narrow the catalogue before
//! anything runs; what is left is the run's catalogue, saved as its `mutants.json`, so
//! reports, the score and `merge` see only the selected mutants.

use anyhow::Context as _;
use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use syncmut_mutator::{Catalogue, Mutant};

/// The selection flags of `list` and `run` (also the `syncmut.toml` keys of the same
/// names, with `_` for `-`).
#[derive(clap::Args, Debug, Default, Clone)]
pub struct SelectArgs {
    /// Only mutants in source files matching this glob (`src/*.c`, `**/queue.*`),
    /// matched against the whole path or its last components; repeatable.
    #[arg(long = "file", value_name = "GLOB")]
    pub file: Vec<String>,
    /// Leave out mutants in files matching this glob; repeatable.
    #[arg(long = "exclude-file", value_name = "GLOB")]
    pub exclude_file: Vec<String>,
    /// Only mutants in functions whose name matches this regular expression; repeatable.
    #[arg(long = "function", value_name = "RE")]
    pub function: Vec<String>,
    /// Only mutants whose id matches this regular expression; repeatable.
    #[arg(long = "mutant", value_name = "RE")]
    pub mutant: Vec<String>,
    /// Leave out mutants whose id matches this regular expression; repeatable.
    #[arg(long = "exclude", value_name = "RE")]
    pub exclude: Vec<String>,
    /// Only mutants on lines this unified diff adds or changes (`git diff > change.diff`).
    #[arg(long = "in-diff", value_name = "FILE")]
    pub in_diff: Option<std::path::PathBuf>,
    /// Only the k-th of n shards of the selected mutants (`1/3`): mutant i, in catalogue
    /// order, goes to shard i mod n + 1. Combine the shards' run directories with
    /// `syncmut merge`.
    #[arg(long = "shard", value_name = "K/N", value_parser = Shard::parse)]
    pub shard: Option<Shard>,
}

/// One of n shards, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub k: usize,
    pub n: usize,
}

impl Shard {
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("shard {text:?}: write K/N with 1 ≤ K ≤ N, e.g. 2/4");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (k, n): (usize, usize) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

impl SelectArgs {
    /// The flags, with each list the command line leaves empty taken from
    /// `syncmut.toml`.
    pub fn or_file(mut self, file: &SelectArgs) -> SelectArgs {
        for (mine, theirs) in [
            (&mut self.file, &file.file),
            (&mut self.exclude_file, &file.exclude_file),
            (&mut self.function, &file.function),
            (&mut self.mutant, &file.mutant),
            (&mut self.exclude, &file.exclude),
        ] {
            if mine.is_empty() {
                mine.clone_from(theirs);
            }
        }
        self.in_diff = self.in_diff.or(file.in_diff.clone());
        self.shard = self.shard.or(file.shard);
        self
    }

    /// Whether any filter is set.
    pub fn is_empty(&self) -> bool {
        self.file.is_empty()
            && self.exclude_file.is_empty()
            && self.function.is_empty()
            && self.mutant.is_empty()
            && self.exclude.is_empty()
            && self.in_diff.is_none()
            && self.shard.is_none()
    }

    /// The catalogue narrowed to the selected mutants (sites unchanged: they are the
    /// metamutant's), and a line saying what was selected.
    pub fn apply(&self, catalogue: &Catalogue) -> anyhow::Result<(Catalogue, String)> {
        let globs = |list: &[String]| {
            list.iter()
                .map(|g| glob_regex(g))
                .collect::<anyhow::Result<Vec<_>>>()
        };
        let regexes = |list: &[String], what: &str| {
            list.iter()
                .map(|r| {
                    Regex::new(r).with_context(|| format!("{what} {r:?}: not a regular expression"))
                })
                .collect::<anyhow::Result<Vec<_>>>()
        };
        let (files, not_files) = (globs(&self.file)?, globs(&self.exclude_file)?);
        let (functions, ids, not_ids) = (
            regexes(&self.function, "--function")?,
            regexes(&self.mutant, "--mutant")?,
            regexes(&self.exclude, "--exclude")?,
        );
        let changed = self.in_diff.as_deref().map(changed_lines).transpose()?;
        let locations = |m: &Mutant| -> Vec<(String, u32)> {
            let at: Vec<(String, u32)> = m
                .sites
                .iter()
                .filter_map(|&i| catalogue.sites.iter().find(|s| s.index == i))
                .map(|s| (s.file.clone(), s.line))
                .collect();
            if at.is_empty() {
                vec![(m.file.clone(), m.line)]
            } else {
                at
            }
        };
        let file_matches =
            |globs: &[Regex], m: &Mutant| globs.iter().any(|g| path_matches(g, &m.file));
        let selected: Vec<Mutant> = catalogue
            .mutants
            .iter()
            .filter(|m| files.is_empty() || file_matches(&files, m))
            .filter(|m| !file_matches(&not_files, m))
            .filter(|m| functions.is_empty() || functions.iter().any(|r| r.is_match(&m.function)))
            .filter(|m| ids.is_empty() || ids.iter().any(|r| r.is_match(&m.id)))
            .filter(|m| !not_ids.iter().any(|r| r.is_match(&m.id)))
            .filter(|m| {
                changed.as_ref().is_none_or(|c| {
                    locations(m)
                        .iter()
                        .any(|(file, line)| c.contains(file, *line))
                })
            })
            .cloned()
            .collect();
        let filtered = selected.len();
        let selected: Vec<Mutant> = match self.shard {
            None => selected,
            Some(Shard { k, n }) => selected
                .into_iter()
                .enumerate()
                .filter(|(i, _)| i % n == k - 1)
                .map(|(_, m)| m)
                .collect(),
        };
        let mut summary = format!(
            "{} of {} mutants selected",
            selected.len(),
            catalogue.mutants.len()
        );
        if let Some(Shard { k, n }) = self.shard {
            summary.push_str(&format!(" (shard {k}/{n} of {filtered})"));
        }
        Ok((
            Catalogue {
                mutants: selected,
                ..catalogue.clone()
            },
            summary,
        ))
    }
}

/// A glob as an anchored regular expression: `**` any path, `*` any part of one
/// component, `?` one character of one.
fn glob_regex(glob: &str) -> anyhow::Result<Regex> {
    let mut re = String::from("^");
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                if chars.peek() == Some(&'/') {
                    chars.next();
                    re.push_str("(?:.*/)?");
                } else {
                    re.push_str(".*");
                }
            }
            '*' => re.push_str("[^/]*"),
            '?' => re.push_str("[^/]"),
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    Regex::new(&re).with_context(|| format!("glob {glob:?}: cannot be matched"))
}

/// A glob matches a path when it matches the whole path or its last components
/// (`src/*.c` matches `/home/me/project/src/queue.c`).
fn path_matches(glob: &Regex, path: &str) -> bool {
    let path = path.trim_start_matches("./");
    glob.is_match(path)
        || path
            .match_indices('/')
            .any(|(i, _)| glob.is_match(&path[i + 1..]))
}

/// The lines a unified diff adds or changes, per file of its new side.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ChangedLines(BTreeMap<String, BTreeSet<u32>>);

impl ChangedLines {
    /// Whether `line` of `file` (a path as debug info records it: absolute or relative)
    /// is changed: the diff's path must be the whole path or its last components.
    fn contains(&self, file: &str, line: u32) -> bool {
        let file = file.trim_start_matches("./");
        self.0.iter().any(|(path, lines)| {
            lines.contains(&line) && (file == path || file.ends_with(&format!("/{path}")))
        })
    }
}

/// Reads a unified diff (`git diff`, `diff -u`): the new side's line numbers of added
/// lines, per file; paths lose git's `b/` prefix.
fn changed_lines(path: &Path) -> anyhow::Result<ChangedLines> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read the diff", path.display()))?;
    parse_diff(&text).map_err(|e| {
        anyhow::anyhow!(
            "{}: not a unified diff: {e} (make one with `git diff` or `diff -u`)",
            path.display()
        )
    })
}

fn parse_diff(text: &str) -> Result<ChangedLines, String> {
    let mut changed: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    let mut file: Option<String> = None;
    let mut line = 0u32;
    // Lines left in the current hunk on each side: `+++`/`---` inside a hunk are content.
    let (mut old_left, mut new_left) = (0u32, 0u32);
    for (number, text) in text.lines().enumerate() {
        if old_left > 0 || new_left > 0 {
            match text.chars().next() {
                Some('+') => {
                    if let Some(file) = &file {
                        changed.entry(file.clone()).or_default().insert(line);
                    }
                    line += 1;
                    new_left = new_left.saturating_sub(1);
                }
                Some('-') => old_left = old_left.saturating_sub(1),
                Some('\\') => {}
                _ => {
                    line += 1;
                    old_left = old_left.saturating_sub(1);
                    new_left = new_left.saturating_sub(1);
                }
            }
        } else if let Some(name) = text.strip_prefix("+++ ") {
            let name = name.split('\t').next().unwrap_or(name).trim();
            file =
                (name != "/dev/null").then(|| name.strip_prefix("b/").unwrap_or(name).to_string());
        } else if let Some(hunk) = text.strip_prefix("@@ ") {
            let ranges = hunk.split(" @@").next().unwrap_or("");
            let (old, new) = ranges
                .split_once(' ')
                .ok_or_else(|| format!("line {}: a hunk header without ranges", number + 1))?;
            let range = |r: &str, sign: char| -> Result<(u32, u32), String> {
                let r = r
                    .strip_prefix(sign)
                    .ok_or_else(|| format!("line {}: hunk range {r:?}", number + 1))?;
                let (start, count) = r.split_once(',').unwrap_or((r, "1"));
                Ok((
                    start
                        .parse()
                        .map_err(|_| format!("line {}: hunk range {r:?}", number + 1))?,
                    count
                        .parse()
                        .map_err(|_| format!("line {}: hunk range {r:?}", number + 1))?,
                ))
            };
            let ((_, old_count), (new_start, new_count)) = (range(old, '-')?, range(new, '+')?);
            (line, old_left, new_left) = (new_start, old_count, new_count);
        }
    }
    if changed.is_empty() && file.is_none() && !text.trim().is_empty() {
        return Err("no `+++` file header found".to_string());
    }
    Ok(ChangedLines(changed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_gives_the_new_lines_it_adds_per_file() {
        let diff = "diff --git a/src/q.c b/src/q.c\n--- a/src/q.c\n+++ b/src/q.c\n@@ -10,3 +10,4 @@ void f()\n ctx\n-old\n+new\n+added\n ctx\n@@ -40 +41 @@\n-x\n+y\n--- a/gone.c\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-bye\n";
        let changed = parse_diff(diff).unwrap();
        assert_eq!(
            changed.0,
            BTreeMap::from([("src/q.c".to_string(), BTreeSet::from([11, 12, 41]))])
        );
        assert!(changed.contains("/home/me/p/src/q.c", 12));
        assert!(changed.contains("src/q.c", 41));
        assert!(!changed.contains("/home/me/p/src/q.c", 10));
        assert!(!changed.contains("/home/me/p/xsrc/q.c", 12));
        // A `+++` line inside a hunk is content, not a file header.
        let tricky = "--- a/a.c\n+++ b/a.c\n@@ -1,0 +1,2 @@\n+++ not a header\n+x\n";
        assert_eq!(parse_diff(tricky).unwrap().0["a.c"], BTreeSet::from([1, 2]));
        assert!(parse_diff("hello\n").unwrap_err().contains("+++"));
    }

    #[test]
    fn globs_match_the_path_or_its_last_components() {
        let m = |glob: &str, path: &str| path_matches(&glob_regex(glob).unwrap(), path);
        assert!(m("src/*.c", "/home/me/p/src/q.c"));
        assert!(m("*.c", "q.c") && m("q.c", "/x/q.c"));
        assert!(!m("src/*.c", "/home/me/p/src/sub/q.c"));
        assert!(m("src/**/*.c", "/p/src/sub/deep/q.c") && m("src/**/*.c", "/p/src/q.c"));
        assert!(!m("*.cpp", "/p/q.c"));
    }

    #[test]
    fn shards_are_parsed_and_checked() {
        assert_eq!(Shard::parse("2/3").unwrap(), Shard { k: 2, n: 3 });
        for bad in ["0/3", "4/3", "1/0", "x", "1/"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }
}
