//! Each site's reachability, decided within the generation's budget: its formula
//! built by the WP transformer, saved under `formulas/`, solved, and asked again with
//! the loops summarised or the indirect calls followed when the first answer is unsat
//! only because of what it left out.
//!
//! The loop over sites never stops at one site: a site whose budget runs out, whose
//! formula is too large or that the solver fails on is `unknown` with its reason, and
//! the next site goes on. When the whole generation's time is spent, the sites not yet
//! tried say so.

use crate::budget::{Budget, Meter};
use crate::error::{AnalysisError, Result};
use crate::{ir, sharing, smt, wp, Options};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Whether a site is reachable, as the analysis concluded: a test that reaches it, no
/// input reaches it, or undecided. In `sites.json` it is the `verdict` tag, a name the
/// file format keeps; it is unrelated to the oracle's `Verdict` on a mutant.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "verdict")]
pub enum Reachability {
    /// The solver found inputs; `args` is argv[1..], `nondet` the values of
    /// `__VERIFIER_nondet_*` calls in call order, `inputs` the named inputs.
    TestFound {
        /// argv[1..].
        args: Vec<String>,
        /// Values of the `__VERIFIER_nondet_*` calls, in call order.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        nondet: Vec<i128>,
        /// Values of the named inputs.
        #[serde(skip_serializing_if = "BTreeMap::is_empty")]
        inputs: BTreeMap<String, i64>,
    },
    /// Reached by a test the user gave (`run`), run before the analysis: generation
    /// needs no test for it.
    ReachedByGiven {
        /// The given test's name.
        test: String,
    },
    /// Unsat with every path modelled.
    Unreachable {
        /// Why no input reaches the site.
        reason: String,
    },
    /// Not decided, with the reason.
    Unknown {
        /// Why it was not decided.
        reason: String,
    },
}

impl std::fmt::Display for Reachability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reachability::TestFound {
                args,
                nondet,
                inputs,
            } => {
                if args.is_empty() {
                    write!(f, "test found: (no arguments)")?;
                } else {
                    write!(f, "test found: {}", args.join(" "))?;
                }
                if !nondet.is_empty() {
                    let values: Vec<String> = nondet.iter().map(|v| v.to_string()).collect();
                    write!(f, "; nondet {}", values.join(","))?;
                }
                for (k, v) in inputs {
                    write!(f, "; {k}={v}")?;
                }
                Ok(())
            }
            Reachability::ReachedByGiven { test } => {
                write!(f, "reached by the given test {test:?}")
            }
            Reachability::Unreachable { reason } => write!(f, "unreachable: {reason}"),
            Reachability::Unknown { reason } => write!(f, "unknown: {reason}"),
        }
    }
}

/// The result for one site.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SiteResult {
    /// The site's number in the catalogue.
    pub index: u32,
    /// Whether it is reachable.
    pub verdict: Reachability,
    /// Over-approximations the formula made and other remarks for the user.
    pub notes: Vec<String>,
    /// What the formula assumes about the schedule.
    pub schedule: Vec<String>,
    /// Formula build + solve time in milliseconds (fractional: most sites take less
    /// than one).
    pub millis: f64,
    pub(crate) formula: Option<PathBuf>,
    /// The model behind a `TestFound` verdict, for refinement.
    #[serde(skip)]
    pub(crate) found: Option<Found>,
}

impl SiteResult {
    /// Whether the site was left undecided because a budget ran out.
    pub fn out_of_budget(&self) -> bool {
        spent(&self.verdict)
    }

    /// Why the site is undecided, in a few words for a summary; None when decided.
    pub fn unknown_cause(&self) -> Option<&'static str> {
        let Reachability::Unknown { reason } = &self.verdict else {
            return None;
        };
        Some(if spent(&self.verdict) {
            "budget"
        } else if smt::is_solver_failure(reason) {
            "solver failure"
        } else if reason.starts_with("loop bound") {
            "loop bound"
        } else if reason.contains("the solver answered unknown") {
            "solver unknown"
        } else {
            "not modelled"
        })
    }
}

/// The solver model a candidate test came from: which of the site's calls, whether its
/// loops were summarised, and every input symbol's value.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    call: usize,
    summarised: bool,
    model: BTreeMap<String, String>,
}

/// What generation tells the user as it goes (the CLI draws it); every method has a
/// default that says nothing.
pub trait Progress: Sync {
    /// Site `index` of `total` is being analysed; `at` is its call and `file:line`.
    fn site_started(&self, _index: u32, _total: u32, _at: &str) {}
    /// Its result, with the time it took.
    fn site_done(&self, _result: &SiteResult, _at: &str) {}
    /// The design's default invocation, run before the analysis, reached `reached` of
    /// `total` sites, or is not a usable test (`unusable` says why).
    fn default_run(&self, _reached: usize, _total: usize, _unusable: Option<&str>) {}
    /// The `tests` given tests, run before the analysis, reached `more` sites the
    /// default invocation did not.
    fn given_run(&self, _tests: usize, _more: usize) {}
    /// Candidate tests are being run to confirm that they reach their sites.
    fn confirming(&self, _candidates: usize) {}
}

/// A run made before the analysis that reached a site.
#[derive(Debug, Clone)]
pub enum PriorRun {
    /// The design's default invocation ([`crate::suite::Seed`]).
    Default,
    /// The given test of this name.
    Given(String),
}

/// The result of a site that a run made before the analysis reached: no formula was
/// needed. The default invocation is its candidate (already run); a given test's site
/// needs no generated test.
fn reached_before(index: u32, by: &PriorRun) -> SiteResult {
    let (verdict, by) = match by {
        PriorRun::Default => (
            Reachability::TestFound {
                args: vec![],
                nondet: vec![],
                inputs: BTreeMap::new(),
            },
            "the design's default invocation (no arguments, no inputs)".to_string(),
        ),
        PriorRun::Given(test) => (
            Reachability::ReachedByGiven { test: test.clone() },
            format!("the given test {test:?}"),
        ),
    };
    SiteResult {
        index,
        verdict,
        notes: vec![format!(
            "reached by {by}, run before the analysis: no formula was built"
        )],
        schedule: vec![],
        millis: 0.0,
        formula: None,
        found: None,
    }
}

/// No progress shown.
pub struct Quiet;
impl Progress for Quiet {}

/// Formula files within the generation's byte budget: past it, a file keeps its
/// comments and says how large the formula was instead of holding it.
pub(crate) struct FormulaFiles {
    left: u64,
}

impl FormulaFiles {
    pub(crate) fn new(budget: &Budget) -> Self {
        FormulaFiles {
            left: budget.formula_bytes - budget.formula_bytes / 4,
        }
    }

    /// Writes `text` to `path`, or its comment header and a line saying why not.
    pub(crate) fn write(&mut self, path: &Path, text: &str) -> Result<()> {
        let len = text.len() as u64;
        let kept = if len <= self.left {
            self.left -= len;
            text.to_string()
        } else {
            let header: String = text
                .lines()
                .take_while(|l| l.starts_with(';'))
                .map(|l| format!("{l}\n"))
                .collect();
            format!(
                "{header}; formula of {} bytes not written: the formula files of this generation reached their budget (--formula-budget MB)\n",
                len
            )
        };
        syncmut_runtime::atomic::write(path, kept.as_bytes()).map_err(|source| AnalysisError::Io {
            what: format!("write {}", path.display()),
            source,
        })
    }
}

/// Everything one generation's site loop shares.
pub(crate) struct Sites<'a, 'm> {
    module: &'m ir::Module,
    facts: &'m wp::ModuleFacts<'m>,
    session: &'a mut smt::Session,
    options: &'a Options,
    pub(crate) files: FormulaFiles,
    /// When the whole generation's analysis time is spent.
    deadline: Instant,
}

/// How a formula is asked for (the WP transformer's variants, in the order tried).
#[derive(Clone, Copy)]
enum Variant {
    Plain,
    LoopsSummarised,
    IndirectCallsFollowed,
}

impl<'a, 'm> Sites<'a, 'm> {
    /// A generation's site loop; its time budget starts now.
    pub(crate) fn new(
        module: &'m ir::Module,
        facts: &'m wp::ModuleFacts<'m>,
        session: &'a mut smt::Session,
        options: &'a Options,
    ) -> Self {
        Sites {
            module,
            facts,
            session,
            options,
            files: FormulaFiles::new(&options.budget),
            deadline: Instant::now() + options.budget.total,
        }
    }

    /// Every site in order, each within its budget; `labels` names each site for
    /// progress (the catalogue's `file:line call`), one per site.
    /// Sites in `reached` were reached by a run made before the analysis, and get no
    /// formula.
    pub(crate) fn analyse_all(
        &mut self,
        labels: &[String],
        reached: &BTreeMap<u32, PriorRun>,
        formulas: &Path,
        progress: &dyn Progress,
    ) -> Result<Vec<SiteResult>> {
        let sites = self.facts.effects.sites();
        let total = labels.len() as u32;
        let mut results = Vec::new();
        for (index, at) in (0..total).zip(labels) {
            let calls: Vec<_> = sites
                .iter()
                .filter(|(i, _)| *i == index)
                .map(|(_, c)| *c)
                .collect();
            progress.site_started(index, total, at);
            let r = if let Some(by) = reached.get(&index) {
                reached_before(index, by)
            } else {
                self.site(index, &calls, formulas)?
            };
            progress.site_done(&r, at);
            results.push(r);
        }
        Ok(results)
    }

    /// Labels for sites without a catalogue: the first call of each and its place.
    pub(crate) fn labels(&self, site_count: u32) -> Vec<String> {
        let sites = self.facts.effects.sites();
        (0..site_count)
            .map(|index| {
                sites
                    .iter()
                    .find(|(i, _)| *i == index)
                    .map(|(_, c)| describe(*c))
                    .unwrap_or_default()
            })
            .collect()
    }

    /// The meter of one site: its own time, within what is left of the whole's.
    fn meter(&self) -> Meter {
        let budget = self.options.budget;
        let own = Instant::now() + budget.site;
        if own <= self.deadline {
            Meter::new(
                own,
                format!(
                    "the site's time budget of {} ran out while building or solving its formula (--site-timeout)",
                    seconds(budget.site)
                ),
                budget.memory_mb,
            )
        } else {
            Meter::new(self.deadline, whole_spent(budget.total), budget.memory_mb)
        }
    }

    fn site(&mut self, index: u32, calls: &[ir::Value<'m>], formulas: &Path) -> Result<SiteResult> {
        let started = Instant::now();
        let mut r = SiteResult {
            index,
            verdict: Reachability::Unknown {
                reason: String::new(),
            },
            notes: vec![],
            schedule: vec![],
            millis: 0.0,
            formula: None,
            found: None,
        };
        if calls.is_empty() {
            r.verdict = Reachability::Unreachable {
                reason: "dead code: the call was removed when the analysis copy was optimised"
                    .into(),
            };
        } else if started >= self.deadline {
            r.verdict = Reachability::Unknown {
                reason: AnalysisError::Budget(format!(
                    "{} before this site was tried",
                    whole_spent(self.options.budget.total)
                ))
                .to_string(),
            };
        }
        let meter = self.meter();
        for (k, call) in calls.iter().enumerate() {
            if started >= self.deadline {
                break;
            }
            let path = formulas.join(if calls.len() == 1 {
                format!("site{index}.smt2")
            } else {
                format!("site{index}.{k}.smt2")
            });
            r.verdict = self.call(&mut r, k, *call, &path, &meter)?;
            if matches!(r.verdict, Reachability::TestFound { .. }) {
                break;
            }
        }
        r.millis = started.elapsed().as_secs_f64() * 1000.0;
        Ok(r)
    }

    /// One of the site's calls (a site has several when the analysis copy duplicated
    /// its block): the plain formula, then the variants its unsat answer calls for.
    fn call(
        &mut self,
        r: &mut SiteResult,
        k: usize,
        call: ir::Value<'m>,
        path: &Path,
        meter: &Meter,
    ) -> Result<Reachability> {
        let bound = self.options.bound;
        let title = format!(
            "site {}: {} at {}",
            r.index,
            call.called_function().map(|f| f.name()).unwrap_or_default(),
            call.where_()
        );
        let (mut q, mut answer) = match self.ask(Variant::Plain, call, path, &title, meter)? {
            Ok(asked) => asked,
            Err(unknown) => return Ok(unknown),
        };
        r.formula = Some(path.to_path_buf());
        r.notes = q.notes.clone();
        r.schedule = q.schedule.clone();
        // Unsat only because paths were cut at loops: ask again with those loops
        // summarised. Only then, so a formula the cuts leave satisfiable keeps the
        // exact models of the unrolled iterations. The summary takes everything the
        // loops may write as any value, so its unsat answer is a proof as well.
        let mut summarised = false;
        if matches!(answer, smt::Answer::Unsat) && !q.cut.is_empty() {
            let title = format!("{title} (loops summarised)");
            let asked = self.ask(Variant::LoopsSummarised, call, path, &title, meter)?;
            if let Err(unknown) = &asked {
                if spent(unknown) {
                    return Ok(unknown.clone());
                }
            }
            if let Ok((s, a)) = asked {
                r.notes = s.notes.iter().chain(&s.summarised).cloned().collect();
                r.schedule = s.schedule.clone();
                if let smt::Answer::Sat(model) = a {
                    let t = s.inputs.to_test(&model);
                    r.found = Some(Found {
                        call: k,
                        summarised: true,
                        model,
                    });
                    return Ok(Reachability::TestFound {
                        args: t.args,
                        nondet: t.nondet,
                        inputs: t.inputs,
                    });
                }
                summarised = true;
                (q, answer) = (s, a);
            }
        }
        // Unsat along direct calls only: ask again following the indirect calls
        // that may also reach a function on the way. Built with the loops cut, as a
        // summarised formula following every indirect call of a type grows too large
        // (tlm_lt's socket calls went past 20 GB): the answer is then a proof only if
        // no loop was cut.
        if matches!(answer, smt::Answer::Unsat) && !q.unfollowed.is_empty() {
            summarised = false;
            let title = format!("{title} (indirect calls followed)");
            let variant = Variant::IndirectCallsFollowed;
            let asked = self.ask(variant, call, path, &title, meter)?;
            if let Err(unknown) = &asked {
                if spent(unknown) {
                    return Ok(unknown.clone());
                }
            }
            if let Ok((s, a)) = asked {
                r.notes = s.notes.iter().chain(&s.summarised).cloned().collect();
                r.schedule = s.schedule.clone();
                (q, answer) = (s, a);
            }
        }
        let loops = if summarised {
            " with the loops beyond the unroll bound summarised (all they may write taken as any value)"
        } else {
            ""
        };
        Ok(match answer {
            smt::Answer::Sat(model) => {
                let t = q.inputs.to_test(&model);
                r.found = Some(Found {
                    call: k,
                    summarised,
                    model,
                });
                Reachability::TestFound {
                    args: t.args,
                    nondet: t.nondet,
                    inputs: t.inputs,
                }
            }
            smt::Answer::Unsat if !q.cut.is_empty() => Reachability::Unknown {
                reason: AnalysisError::LoopBoundExceeded {
                    bound,
                    detail: q.cut.join("; "),
                }
                .to_string(),
            },
            smt::Answer::Unsat if !q.unfollowed.is_empty() => Reachability::Unknown {
                reason: format!(
                    "no direct call chain reaches the site, and indirect calls were not followed: {}",
                    q.unfollowed.join("; ")
                ),
            },
            smt::Answer::Unsat if !q.blocking.is_empty() => Reachability::Unreachable {
                reason: format!(
                    "the reachability formula{loops} is unsatisfiable: dead code, or blocked at a wait nobody notifies in time ({}) under the fixed process order",
                    q.blocking.join(", ")
                ),
            },
            smt::Answer::Unsat => Reachability::Unreachable {
                reason: format!(
                    "the reachability formula{loops} is unsatisfiable (dead code under the modelled schedule)"
                ),
            },
            smt::Answer::Unknown(reason) => Reachability::Unknown { reason },
        })
    }

    /// Builds the formula of `call` in `variant` within `meter`, writes it to `path` and
    /// solves it. The inner `Err` is the site's verdict when the formula could not be
    /// built or is over the size budget.
    fn ask(
        &mut self,
        variant: Variant,
        call: ir::Value<'m>,
        path: &Path,
        title: &str,
        meter: &Meter,
    ) -> Result<std::result::Result<(wp::Query, smt::Answer), Reachability>> {
        let mut wp = wp::Wp::new(
            self.module,
            self.facts,
            self.session.builder(),
            self.options.bound,
        )
        .within(meter.clone());
        wp = match variant {
            Variant::Plain => wp,
            Variant::LoopsSummarised => wp.summarising_loops(),
            Variant::IndirectCallsFollowed => wp.following_indirect_calls(),
        };
        let q = match wp.site(call) {
            Ok(q) => q,
            Err(e) => {
                return Ok(Err(Reachability::Unknown {
                    reason: e.to_string(),
                }))
            }
        };
        if let Some(reason) = too_large(self.session.builder(), &q, self.options.budget.max_terms) {
            return Ok(Err(Reachability::Unknown { reason }));
        }
        let script = smt::script(self.session.builder(), &q, title, self.options.solver);
        self.files.write(path, &script)?;
        let answer = self.session.solve(&q, meter);
        Ok(Ok((q, answer)))
    }

    /// Another candidate for a site whose candidate `r` did not reach it when run: the
    /// site's formula with every model tried so far for it (`blocked`, to which `r`'s
    /// is added) excluded, solved again. None when the solver finds no other input, the
    /// formula cannot be built, or the generation's time is spent.
    pub(crate) fn refine(
        &mut self,
        r: &SiteResult,
        blocked: &mut HashMap<u32, Vec<BTreeMap<String, String>>>,
    ) -> Option<SiteResult> {
        let found = r.found.as_ref()?;
        if Instant::now() >= self.deadline {
            return None;
        }
        let tried = blocked.entry(r.index).or_default();
        tried.push(found.model.clone());
        let call = self
            .facts
            .effects
            .sites()
            .into_iter()
            .filter(|(i, _)| *i == r.index)
            .map(|(_, c)| c)
            .nth(found.call)?;
        let meter = self.meter();
        let mut wp = wp::Wp::new(
            self.module,
            self.facts,
            self.session.builder(),
            self.options.bound,
        )
        .within(meter.clone());
        if found.summarised {
            wp = wp.summarising_loops();
        }
        let mut q = wp.site(call).ok()?;
        let ctx = self.session.builder();
        let declared: HashSet<String> = q
            .inputs
            .declarations()
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        for model in tried.iter() {
            // argc only says how many arguments there are: a model differing in it
            // alone is the same test.
            let same: Vec<_> = model
                .iter()
                .filter(|(n, _)| *n != "argc" && declared.contains(*n))
                .map(|(n, v)| ctx.eq(ctx.atom(n), ctx.atom(v)))
                .collect();
            let expr = ctx.not(same.into_iter().fold(ctx.true_(), |acc, e| ctx.and(acc, e)));
            q.conjuncts.push(wp::Conjunct {
                comment: "inputs differ from a candidate that did not reach the site when run"
                    .into(),
                expr,
            });
        }
        match self.session.solve(&q, &meter) {
            smt::Answer::Sat(model) => {
                let t = q.inputs.to_test(&model);
                let verdict = Reachability::TestFound {
                    args: t.args,
                    nondet: t.nondet,
                    inputs: t.inputs,
                };
                Some(SiteResult {
                    verdict,
                    found: Some(Found {
                        call: found.call,
                        summarised: found.summarised,
                        model,
                    }),
                    ..r.clone()
                })
            }
            _ => None,
        }
    }
}

/// Whether a variant's verdict is a spent budget: it is then the site's answer (the
/// earlier variant's unsat is no proof, and "loop bound" would name the wrong cause).
fn spent(unknown: &Reachability) -> bool {
    matches!(unknown, Reachability::Unknown { reason } if reason.starts_with("budget:"))
}

/// The reason a formula is not solved when it has more distinct terms than `max`.
fn too_large(ctx: &easy_smt::Context, q: &wp::Query, max: usize) -> Option<String> {
    let roots: Vec<_> = q
        .definitions
        .iter()
        .map(|d| d.expr)
        .chain(q.conjuncts.iter().map(|c| c.expr))
        .collect();
    let terms = sharing::dag_size(ctx, &roots);
    (terms > max).then(|| {
        AnalysisError::Budget(format!(
            "the reachability formula has {terms} distinct terms, over the budget of {max} (--formula-terms)"
        ))
        .to_string()
    })
}

/// The call and its `file:line`, as progress shows it.
fn describe(call: ir::Value<'_>) -> String {
    let name = call
        .called_function()
        .map(|f| crate::wp::demangle_hint(&f.name()))
        .unwrap_or_default();
    format!("{name} at {}", call.where_())
}

fn whole_spent(total: Duration) -> String {
    format!(
        "generation's time budget of {} ran out (--gen-timeout)",
        seconds(total)
    )
}

fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}
