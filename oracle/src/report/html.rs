//! One self-contained HTML page (inline CSS, no script, no network): the score and the
//! counts per verdict, each mutated file's source with a mark on every line that holds
//! mutants (coloured by the worst verdict there: survived, error, not reached, killed),
//! and per mutant its id, operator, description, verdict, killing test, reason and,
//! when the run directory is given, the first lines of the trace diff from
//! `diff/<mutant>.diff` with a link to the whole file (relative, as the page sits in the
//! run directory).
//!
//! Everything taken from the run (ids, paths, source, reasons, diffs) is escaped, and
//! nothing depends on the clock, so the same results give the same bytes.

use crate::outcome::{MutantOutcome, Outcomes};
use crate::outdir;
use crate::verdict::Verdict;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;
use syncmut_mutator::Catalogue;

/// Every verdict, in the order the header lists them.
const VERDICTS: [Verdict; 12] = [
    Verdict::KilledByOutput,
    Verdict::KilledByAssertion,
    Verdict::KilledByDeadlock,
    Verdict::KilledByCrash,
    Verdict::KilledByLivelock,
    Verdict::KilledByTimeout,
    Verdict::KilledByTrace,
    Verdict::KilledByRace,
    Verdict::Survived,
    Verdict::EquivalentExhaustive,
    Verdict::NotReached,
    Verdict::Error,
];

/// The CSS class of a verdict (its colour), and how bad it is for a line's mark.
fn class(verdict: Verdict) -> (&'static str, u8) {
    match verdict {
        Verdict::Survived => ("survived", 3),
        Verdict::Error => ("error", 2),
        Verdict::NotReached | Verdict::EquivalentExhaustive => ("not-reached", 1),
        _ => ("killed", 0),
    }
}

const STYLE: &str = "
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:0 auto;max-width:78rem;padding:1rem 2rem;color:#1f2328;background:#fff}
h1{font-size:1.6rem;margin:.2rem 0}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #d0d7de}h3{font-size:1rem;margin:.2rem 0}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}
#score{font-size:2.2rem;font-weight:bold;margin:.3rem 0}
.incomplete{color:#9a6700;font-weight:bold}
table.counts{border-collapse:collapse;margin:.5rem 0}table.counts td,table.counts th{border:1px solid #d0d7de;padding:.2rem .6rem;text-align:left}
.src{border:1px solid #d0d7de;border-radius:6px;overflow-x:auto;padding:.3rem 0;line-height:1.35}
.ln{display:flex;white-space:pre}.ln .no{color:#6e7781;min-width:3.5rem;text-align:right;padding-right:.6rem;user-select:none}
.ln .marks{min-width:4rem;padding-right:.4rem}.ln code{white-space:pre}
.ln.killed{background:#dafbe1}.ln.survived{background:#ffebe9}.ln.error{background:#fff1cc}.ln.not-reached{background:#eaeef2}
a.mark{display:inline-block;min-width:1.1rem;text-align:center;border-radius:3px;margin-right:2px;color:#fff;text-decoration:none;font-size:.75rem}
.killed .badge,a.mark.killed,.badge.killed{background:#1a7f37}.badge.survived,a.mark.survived{background:#cf222e}
.badge.error,a.mark.error{background:#bf8700}.badge.not-reached,a.mark.not-reached{background:#6e7781}
.badge{color:#fff;border-radius:1rem;padding:.05rem .55rem;font-size:.8rem;white-space:nowrap}
section.mutant{border:1px solid #d0d7de;border-left-width:6px;border-radius:6px;padding:.5rem .8rem;margin:.8rem 0}
section.mutant.killed{border-left-color:#1a7f37}section.mutant.survived{border-left-color:#cf222e}
section.mutant.error{border-left-color:#bf8700}section.mutant.not-reached{border-left-color:#6e7781}
dl{display:grid;grid-template-columns:max-content auto;gap:.15rem .8rem;margin:.4rem 0}dt{color:#57606a}dd{margin:0}
pre.diff{background:#f6f8fa;border-radius:6px;padding:.5rem;overflow-x:auto}
.diff .add{color:#116329;background:#dafbe1}.diff .del{color:#82071e;background:#ffebe9}
.diff .hunk{color:#0550ae}.diff .note{color:#57606a}
";

pub(crate) fn render(run_dir: Option<&Path>, catalogue: &Catalogue, outcomes: &Outcomes) -> String {
    let s = &outcomes.score;
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    h.push_str("<title>syncmut mutation report</title>\n<style>");
    h.push_str(STYLE);
    h.push_str("</style>\n</head>\n<body>\n<header>\n<h1>syncmut mutation report</h1>\n");
    let _ = writeln!(h, "<p id=\"score\">Mutation score {:.1}%</p>", s.percent);
    let _ = writeln!(h, "<p id=\"summary\">{}</p>", super::summary_sentence(s));
    if !outcomes.complete {
        h.push_str("<p class=\"incomplete\">This run is incomplete: some mutants were not run on every test yet.</p>\n");
    }
    h.push_str(
        "<table class=\"counts\" id=\"counts\">\n<tr><th>verdict</th><th>mutants</th></tr>\n",
    );
    for v in VERDICTS {
        let n = outcomes.mutants.iter().filter(|m| m.verdict == v).count();
        if n > 0 {
            let _ = writeln!(
                h,
                "<tr><td><span class=\"badge {}\">{}</span></td><td>{n}</td></tr>",
                class(v).0,
                v.name()
            );
        }
    }
    h.push_str("</table>\n</header>\n");

    // Mutants by file and line, keeping the order files first appear in.
    let mut files: Vec<&str> = Vec::new();
    let mut by_line: BTreeMap<(&str, u32), Vec<usize>> = BTreeMap::new();
    for (i, m) in outcomes.mutants.iter().enumerate() {
        if !files.contains(&m.file.as_str()) {
            files.push(&m.file);
        }
        by_line
            .entry((m.file.as_str(), m.line))
            .or_default()
            .push(i);
    }

    h.push_str("<main>\n");
    for file in &files {
        let _ = writeln!(h, "<h2 class=\"file\">{}</h2>", escape(file));
        match std::fs::read(catalogue.source_path(file)) {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                h.push_str("<div class=\"src\">\n");
                for (n, line) in text.lines().enumerate() {
                    let n = n as u32 + 1;
                    let here = by_line
                        .get(&(*file, n))
                        .map(|v| v.as_slice())
                        .unwrap_or(&[]);
                    marked_line(&mut h, n, line, here, outcomes);
                }
                h.push_str("</div>\n");
            }
            Err(e) => {
                let _ = writeln!(h, "<p class=\"note\">The source could not be read when this report was rendered: {}</p>", escape(&e.to_string()));
            }
        }
    }

    h.push_str("<h2 id=\"mutants\">Mutants</h2>\n");
    for (i, m) in outcomes.mutants.iter().enumerate() {
        mutant(&mut h, i, m, run_dir, catalogue);
    }
    h.push_str("</main>\n</body>\n</html>\n");
    h
}

fn marked_line(h: &mut String, n: u32, line: &str, here: &[usize], outcomes: &Outcomes) {
    let worst = here
        .iter()
        .map(|&i| class(outcomes.mutants[i].verdict))
        .max_by_key(|c| c.1);
    let _ = write!(
        h,
        "<div class=\"ln{}\" id=\"L{n}\"><span class=\"no\">{n}</span><span class=\"marks\">",
        worst.map(|c| format!(" {}", c.0)).unwrap_or_default()
    );
    for &i in here {
        let m = &outcomes.mutants[i];
        let _ = write!(
            h,
            "<a class=\"mark {}\" href=\"#m{i}\" title=\"{}\">{}</a>",
            class(m.verdict).0,
            escape(&format!("{}: {} ({})", m.mutant, m.description, m.verdict)),
            i + 1
        );
    }
    let _ = writeln!(h, "</span><code>{}</code></div>", escape(line));
}

fn mutant(
    h: &mut String,
    i: usize,
    m: &MutantOutcome,
    run_dir: Option<&Path>,
    catalogue: &Catalogue,
) {
    let (cls, _) = class(m.verdict);
    let _ = writeln!(h, "<section class=\"mutant {cls}\" id=\"m{i}\">");
    let _ = writeln!(
        h,
        "<h3>{}. <code>{}</code> <span class=\"badge {cls}\">{}</span></h3>",
        i + 1,
        escape(&m.mutant),
        m.verdict.name()
    );
    h.push_str("<dl>\n");
    let col = catalogue
        .mutant(&m.mutant)
        .map(|e| format!(":{}", e.col))
        .unwrap_or_default();
    let mut row = |k: &str, v: String| {
        let _ = writeln!(h, "<dt>{k}</dt><dd>{v}</dd>");
    };
    row("operator", format!("<code>{}</code>", escape(&m.operator)));
    row("change", escape(&m.description));
    row("location", format!("{}:{}{col}", escape(&m.file), m.line));
    row("verdict", escape(m.verdict.name()));
    if let Some(k) = &m.killed_by {
        row("killing test", format!("<code>{}</code>", escape(k)));
    }
    if !m.reason.is_empty() {
        row("reason", escape(&m.reason));
    }
    if m.unclaimed > 0 {
        row(
            "not claimed",
            format!("{} run(s) differed from every run of the original tried, but only past the point where the original could no longer follow the mutant's interleaving", m.unclaimed),
        );
    }
    if !m.runs.is_empty() {
        let tests: Vec<String> = m
            .runs
            .iter()
            .map(|r| format!("{} ({})", r.test, r.verdict))
            .collect();
        row("runs", escape(&tests.join(", ")));
    }
    h.push_str("</dl>\n");
    if let Some(dir) = run_dir {
        let path = dir
            .join(outdir::DIFF_DIR)
            .join(format!("{}.diff", outdir::file_name(&m.mutant)));
        if let Ok(text) = std::fs::read_to_string(&path) {
            let file = format!("{}/{}.diff", outdir::DIFF_DIR, outdir::file_name(&m.mutant));
            h.push_str("<details class=\"trace\" open>\n<summary>trace diff, original vs mutant</summary>\n<pre class=\"diff\">");
            let total = text.lines().count();
            for line in text.lines().take(DIFF_LINES_SHOWN) {
                let cls = if line.starts_with("+++")
                    || line.starts_with("---")
                    || line.starts_with('#')
                {
                    "note"
                } else if line.starts_with("@@") {
                    "hunk"
                } else if line.starts_with('+') {
                    "add"
                } else if line.starts_with('-') {
                    "del"
                } else {
                    ""
                };
                if cls.is_empty() {
                    h.push_str(&escape(line));
                    h.push('\n');
                } else {
                    let _ = writeln!(h, "<span class=\"{cls}\">{}</span>", escape(line));
                }
            }
            if total > DIFF_LINES_SHOWN {
                let _ = writeln!(
                    h,
                    "<span class=\"note\">… {} more lines in <a href=\"{}\">{}</a></span>",
                    total - DIFF_LINES_SHOWN,
                    escape(&file),
                    escape(&file)
                );
            }
            h.push_str("</pre>\n</details>\n");
        }
    }
    h.push_str("</section>\n");
}

/// Lines of a mutant's trace diff shown in the page; the rest stays in `diff/`, linked.
/// Dozens of livelocked mutants with whole diffs made reports of tens of megabytes.
const DIFF_LINES_SHOWN: usize = 120;

/// Escapes text for HTML element content and quoted attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(
            escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn the_worst_verdict_colours_a_line() {
        assert!(class(Verdict::Survived).1 > class(Verdict::Error).1);
        assert!(class(Verdict::Error).1 > class(Verdict::NotReached).1);
        assert!(class(Verdict::NotReached).1 > class(Verdict::KilledByTrace).1);
    }
}
