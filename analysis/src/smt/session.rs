//! The solver session: one solver process for all sites, spoken to through easy-smt, one
//! push/pop per query under a wall-clock limit, the model read back as input values, and
//! a solver that crashes, hangs or answers garbage turned into an `unknown` answer and a
//! restart.

use super::solver::{which, SolverConfig, SolverKind, PROGRAM_ENV};
use super::watchdog::{kill_group, Watchdog};
use crate::budget::{Budget, Meter};
use crate::error::{AnalysisError, Result};
use crate::sharing;
use crate::wp::Query;
use easy_smt::{Context, ContextBuilder, Response, SExpr, SExprData};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// After this many failed starts in a row (the solver died or answered garbage before
/// any query was sent) it is not started again: the remaining sites are `unknown` at
/// once instead of each waiting for a broken solver. A failure during a query (a
/// formula the solver rejects, a crash on one formula) only costs that query: the
/// solver is restarted and the next site goes on.
const MAX_FAILED_STARTS: u32 = 3;

/// The answer for one query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A model: every declared input symbol → its SMT literal.
    Sat(BTreeMap<String, String>),
    /// No input satisfies the formula.
    Unsat,
    /// Undecided, with the reason (the solver's own `:reason-unknown`, or what went
    /// wrong with the solver process).
    Unknown(String),
}

/// Whether an `unknown` reason is a solver failure (crash, hang, garbage, or not
/// attempted after repeated failures) rather than an answer of the solver.
pub fn is_solver_failure(reason: &str) -> bool {
    reason.starts_with(FAILURE) || reason.starts_with(NOT_ATTEMPTED)
}

const FAILURE: &str = "solver failure:";
const NOT_ATTEMPTED: &str = "not attempted:";

/// `sh -c` script that starts the solver: it writes its pid to a file (easy-smt keeps
/// the child handle private, and the watchdog must know whom to kill) and execs the
/// solver in a new session via `setsid` when available, so that killing the process
/// group also ends anything the solver started. `exec` keeps the pid. The marker in its
/// environment tells the oracle's orphan sweep that this child of syncmut living in
/// another session is no escaped design process (`syncmut_runner::exec::HELPER_MARKER`).
fn launcher() -> String {
    let (name, value) = syncmut_runner::exec::HELPER_MARKER;
    format!("echo $$ > \"$1\"; shift; export {name}={value}; if command -v setsid >/dev/null 2>&1; then exec setsid \"$@\"; fi; exec \"$@\"")
}

/// One solver for many queries, restarted after a failure.
pub struct Session {
    config: SolverConfig,
    program: PathBuf,
    builder: Context,
    running: Option<Running>,
    replay: Option<PathBuf>,
    /// The solver's own memory limit, MB (z3 only).
    memory_mb: u64,
    /// Bytes the session log may still take (shared by every solver process).
    replay_left: Arc<std::sync::atomic::AtomicU64>,
    pids: tempfile::TempDir,
    launches: u32,
    failed_starts: u32,
    last_failure: String,
}

/// A started solver process.
struct Running {
    ctx: Context,
    watchdog: Watchdog,
}

/// What went wrong with the solver process during a command.
enum Failure {
    TimedOut,
    Died(String),
    Garbage(String),
}

impl Session {
    /// Checks that the solver exists; the process itself starts at the first query.
    /// The whole conversation with the solver (all processes) is written to `replay`.
    pub(crate) fn start(
        config: SolverConfig,
        replay: Option<&Path>,
        budget: &Budget,
    ) -> Result<Session> {
        let program = match std::env::var_os(PROGRAM_ENV) {
            Some(p) => PathBuf::from(p),
            None => which(config.kind.program()).ok_or_else(|| AnalysisError::SolverMissing {
                program: config.kind.program().into(),
                hint: format!(
                    "install it with `apt-get install {}` (or run scripts/setup.sh){}",
                    config.kind.program(),
                    if config.kind == SolverKind::Cvc5 {
                        ", or use --solver z3"
                    } else {
                        ""
                    }
                ),
            })?,
        };
        if !program.is_file() {
            return Err(AnalysisError::SolverMissing {
                program: program.display().to_string(),
                hint: format!("{PROGRAM_ENV} names no file"),
            });
        }
        if let Some(p) = replay {
            std::fs::File::create(p).map_err(|source| AnalysisError::Io {
                what: format!("create {}", p.display()),
                source,
            })?;
        }
        let pids = tempfile::tempdir().map_err(|source| AnalysisError::Io {
            what: "create a temporary directory".into(),
            source,
        })?;
        Ok(Session {
            config,
            program,
            builder: ContextBuilder::new()
                .build()
                .expect("a context without a solver cannot fail to build"),
            running: None,
            replay: replay.map(Path::to_path_buf),
            replay_left: Arc::new(std::sync::atomic::AtomicU64::new(budget.formula_bytes / 4)),
            memory_mb: budget.memory_mb,
            pids,
            launches: 0,
            failed_starts: 0,
            last_failure: String::new(),
        })
    }

    /// The context formulas are built in (it has no solver; it survives restarts).
    pub(crate) fn builder(&self) -> &Context {
        &self.builder
    }

    /// Solves a query in its own push/pop scope. Solver failures become `Unknown`.
    /// The extra queries for a readable model stop when `meter`'s time is spent.
    pub(crate) fn solve(&mut self, q: &Query, meter: &Meter) -> Answer {
        if self.failed_starts >= MAX_FAILED_STARTS {
            return Answer::Unknown(format!(
                "{NOT_ATTEMPTED} the solver failed to start {MAX_FAILED_STARTS} times in a row (last: {})",
                self.last_failure
            ));
        }
        let running = match self.running.take() {
            Some(r) => Ok(r),
            None => self.launch().map_err(|f| (f, true)),
        };
        let outcome = running.and_then(|mut r| {
            let answer = solve_in(&self.builder, &mut r, q, self.config, meter);
            answer.map(|a| (a, r)).map_err(|f| (f, false))
        });
        match outcome {
            Ok((answer, running)) => {
                self.running = Some(running);
                self.failed_starts = 0;
                answer
            }
            Err((Failure::TimedOut, false)) if meter.out_of_time() => {
                // The site's own time ran out while the solver worked (a solver does
                // not always stop at its own timeout: z3 took 25 s over a 5 s limit on
                // a fixed-point FFT's products): killed, and restarted for the next.
                Answer::Unknown(
                    AnalysisError::Budget(format!(
                        "{}; the solver was still working on its formula and was stopped",
                        meter.why()
                    ))
                    .to_string(),
                )
            }
            Err((failure, at_start)) => {
                // The process is gone or out of step with us: drop it (killing it and
                // its process group); the next query starts a fresh one.
                let reason = match failure {
                    Failure::TimedOut => format!(
                        "{FAILURE} {} gave no answer within {} ms and was killed (per-query timeout {} ms)",
                        self.config.kind,
                        self.config.wall().as_millis(),
                        self.config.timeout_ms
                    ),
                    Failure::Died(e) => format!(
                        "{FAILURE} {} died during the query (crashed?): {e}",
                        self.config.kind
                    ),
                    Failure::Garbage(e) => format!(
                        "{FAILURE} {} answered something that is not the expected SMT-LIB: {e}",
                        self.config.kind
                    ),
                };
                if at_start {
                    self.failed_starts += 1;
                }
                self.last_failure = reason.clone();
                let next = if self.failed_starts >= MAX_FAILED_STARTS {
                    "it is not started again"
                } else {
                    "the solver is restarted for the next query"
                };
                Answer::Unknown(format!("{reason}; {next}"))
            }
        }
    }

    /// Starts a solver process through [`LAUNCHER`].
    fn launch(&mut self) -> std::result::Result<Running, Failure> {
        self.launches += 1;
        let pidfile = self
            .pids
            .path()
            .join(format!("solver{}.pid", self.launches));
        let mut args: Vec<std::ffi::OsString> = vec![
            "-c".into(),
            launcher().into(),
            "sh".into(),
            pidfile.clone().into(),
        ];
        args.push(self.program.clone().into());
        args.extend(
            self.config
                .kind
                .args(self.config.timeout_ms, self.memory_mb)
                .into_iter()
                .map(Into::into),
        );
        let mut b = ContextBuilder::new();
        b.solver("/bin/sh", args);
        if let Some(p) = &self.replay {
            use std::io::Write as _;
            if let Ok(mut f) = std::fs::OpenOptions::new().append(true).open(p) {
                if self.launches > 1 {
                    let _ = writeln!(f, "; --- solver restarted after: {}", self.last_failure);
                }
                b.replay_file(Some(Capped {
                    file: f,
                    left: self.replay_left.clone(),
                }));
            }
        }
        let watchdog = Watchdog::new(pidfile);
        watchdog.arm(self.config.wall());
        let built = b.build();
        let fired = watchdog.disarm();
        let ctx = match built {
            Ok(ctx) if !fired => ctx,
            Ok(_) => return Err(Failure::TimedOut),
            Err(e) => return Err(classify(&watchdog, fired, e)),
        };
        let mut r = Running { ctx, watchdog };
        let kind = self.config.kind;
        let timeout = self.config.timeout_ms;
        if kind == SolverKind::Z3 {
            command(&mut r, self.config.wall(), |ctx| {
                let t = ctx.numeral(timeout);
                ctx.set_option(kind.timeout_option(), t)
            })?;
        }
        command(&mut r, self.config.wall(), |ctx| ctx.set_logic("ALL"))?;
        Ok(r)
    }
}

/// The session log, cut when its budget is spent: it is for reading what was sent, and
/// must never fail a solver command or fill the disk.
struct Capped {
    file: std::fs::File,
    left: Arc<std::sync::atomic::AtomicU64>,
}

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        use std::sync::atomic::Ordering;
        let len = buf.len() as u64;
        let left = self.left.load(Ordering::Relaxed);
        if len <= left {
            self.left.store(left - len, Ordering::Relaxed);
            let _ = self.file.write_all(buf);
        } else if left > 0 {
            self.left.store(0, Ordering::Relaxed);
            let _ = self.file.write_all(
                b"\n; --- the session log stops here: it reached the formula budget (--formula-budget MB)\n",
            );
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let _ = self.file.flush();
        Ok(())
    }
}

/// Time a solver command may run past the site's deadline, so that a solver which
/// answers at its deadline is heard rather than killed.
const GRACE: Duration = Duration::from_millis(500);

/// Runs one solver command under the watchdog and classifies a failure.
fn command<T>(
    r: &mut Running,
    wall: Duration,
    f: impl FnOnce(&mut Context) -> std::io::Result<T>,
) -> std::result::Result<T, Failure> {
    r.watchdog.arm(wall);
    let result = f(&mut r.ctx);
    let fired = r.watchdog.disarm();
    match result {
        Ok(_) if fired => Err(Failure::TimedOut),
        Ok(v) => Ok(v),
        Err(e) => Err(classify(&r.watchdog, fired, e)),
    }
}

fn classify(w: &Watchdog, fired: bool, e: std::io::Error) -> Failure {
    if fired {
        Failure::TimedOut
    } else if w.exited() {
        Failure::Died(e.to_string())
    } else {
        Failure::Garbage(e.to_string())
    }
}

/// Every integer input within [-SMALL, SMALL] (signed), as one formula. Inputs narrower
/// than 8 bits are small already.
fn small_values(ctx: &Context, values: &[(String, u32)]) -> SExpr {
    const SMALL: u32 = 64;
    let bv = |n: u32, w: u32| {
        ctx.list(vec![
            ctx.atom("_"),
            ctx.atom(format!("bv{n}")),
            ctx.numeral(w),
        ])
    };
    let bounds: Vec<SExpr> = values
        .iter()
        .filter(|(_, w)| *w >= 8)
        .flat_map(|(name, w)| {
            let x = ctx.atom(name.clone());
            [
                ctx.bvsle(ctx.bvneg(bv(SMALL, *w)), x),
                ctx.bvsle(x, bv(SMALL, *w)),
            ]
        })
        .collect();
    if bounds.is_empty() {
        ctx.true_()
    } else {
        ctx.and_many(bounds)
    }
}

fn sort(ctx: &Context, text: &str) -> SExpr {
    match text
        .strip_prefix("(_ BitVec ")
        .and_then(|r| r.strip_suffix(')'))
    {
        Some(w) => ctx.bit_vec_sort(ctx.numeral(w.parse::<u32>().unwrap_or(1))),
        None => ctx.bool_sort(),
    }
}

/// Copies `e` from the builder's arena into the solver's, every shared subterm bound
/// once by a `let`, so what is sent stays linear in the formula's size.
pub(super) fn import(from: &Context, to: &Context, e: SExpr) -> SExpr {
    sharing::let_form(from, to, e)
}

/// Most "nobody else wrote this" and "a traced store wrote this" preferences tried per
/// query ([`Query::quiet`], [`Query::known_writes`]), one check each (a few ms on
/// these formulas).
const MAX_QUIET: usize = 64;

fn solve_in(
    builder: &Context,
    r: &mut Running,
    q: &Query,
    config: SolverConfig,
    meter: &Meter,
) -> std::result::Result<Answer, Failure> {
    let wall = config.wall().min(meter.remaining() + GRACE);
    command(r, wall, |ctx| ctx.push())?;
    let answer = solve_inner(builder, r, q, config, meter)?;
    command(r, wall, |ctx| ctx.pop())?;
    Ok(answer)
}

fn solve_inner(
    builder: &Context,
    r: &mut Running,
    q: &Query,
    config: SolverConfig,
    meter: &Meter,
) -> std::result::Result<Answer, Failure> {
    let wall = config.wall().min(meter.remaining() + GRACE);
    let mut decls = q.inputs.declarations();
    decls.extend(q.fresh.iter().cloned());
    for (name, s) in &decls {
        command(r, wall, |ctx| {
            let s = sort(ctx, s);
            ctx.declare_const(name.clone(), s)
        })?;
    }
    for d in &q.definitions {
        let e = import(builder, &r.ctx, d.expr);
        command(r, wall, |ctx| {
            let s = sort(ctx, &d.sort);
            ctx.define_const(d.name.clone(), s, e)
        })?;
    }
    for c in &q.conjuncts {
        let e = import(builder, &r.ctx, c.expr);
        command(r, wall, |ctx| ctx.assert(e))?;
    }
    let mut response = command(r, wall, |ctx| ctx.check())?;
    if response == Response::Sat {
        // A reachable site: ask for a test a person reads and runs easily. Prefer the
        // fewest arguments (argc = 1 + the highest argv index read), then small integer
        // values (a loop count of 2, not 262144). Each preference is only an assumption
        // (`check-sat-assuming`, standard SMT-LIB): when none holds, the plain model stands.
        // First, before those: a value read after another thread or process may have
        // run is one the formula traces (the reader's own, or a traced store's) rather
        // than any value, for all such reads at once if possible, else each in the
        // order read; then the reader's own last value wherever the formula still
        // allows, so the test does not rest on a write the run may never make.
        let known: Vec<SExpr> = q
            .known_writes
            .iter()
            .map(|e| import(builder, &r.ctx, *e))
            .collect();
        let all_known = !known.is_empty()
            && command(r, wall, |ctx| ctx.check_assuming(known.clone()))? == Response::Sat;
        let mut quiet = if all_known { known.clone() } else { Vec::new() };
        let one_by_one = if all_known { &[][..] } else { &known[..] };
        let own: Vec<SExpr> = q
            .quiet
            .iter()
            .map(|e| import(builder, &r.ctx, *e))
            .collect();
        for e in one_by_one.iter().chain(&own).take(MAX_QUIET) {
            if meter.out_of_time() {
                break;
            }
            let with: Vec<SExpr> = quiet.iter().copied().chain([*e]).collect();
            if command(r, wall, |ctx| ctx.check_assuming(with))? == Response::Sat {
                quiet.push(*e);
            }
        }
        let lo = q.inputs.max_index() + 1;
        let small = small_values(&r.ctx, &q.inputs.integer_values());
        let argc = |ctx: &Context, n: u32| {
            ctx.eq(
                ctx.atom("argc"),
                ctx.list(vec![
                    ctx.atom("_"),
                    ctx.atom(format!("bv{n}")),
                    ctx.numeral(32),
                ]),
            )
        };
        let mut preferences: Vec<Vec<SExpr>> =
            (lo..lo + 4).map(|n| vec![argc(&r.ctx, n), small]).collect();
        preferences.extend((lo..lo + 4).map(|n| vec![argc(&r.ctx, n)]));
        preferences.push(vec![small]);
        let mut preferred = false;
        for assumptions in preferences {
            if meter.out_of_time() {
                break;
            }
            let assumptions: Vec<SExpr> = quiet.iter().copied().chain(assumptions).collect();
            if command(r, wall, |ctx| ctx.check_assuming(assumptions))? == Response::Sat {
                preferred = true;
                break;
            }
        }
        if !preferred {
            let quiet = quiet.clone();
            response = command(r, wall, |ctx| {
                if quiet.is_empty() {
                    ctx.check()
                } else {
                    ctx.check_assuming(quiet)
                }
            })?;
        }
    }
    match response {
        Response::Unsat => Ok(Answer::Unsat),
        Response::Unknown => {
            // `(get-info :reason-unknown)` is standard SMT-LIB: both solvers say why.
            let why = command(r, wall, |ctx| {
                let cmd = ctx.list(vec![ctx.atom("get-info"), ctx.atom(":reason-unknown")]);
                ctx.raw_send(cmd)?;
                let reply = ctx.raw_recv()?;
                let text = match ctx.get(reply) {
                    SExprData::List([_, why]) => ctx.display(*why).to_string(),
                    _ => ctx.display(reply).to_string(),
                };
                Ok(text.trim_matches('"').to_string())
            })?;
            Ok(Answer::Unknown(format!(
                "the solver answered unknown ({why}; per-query timeout {} ms)",
                config.timeout_ms
            )))
        }
        Response::Sat => {
            let names: Vec<String> = q
                .inputs
                .declarations()
                .into_iter()
                .map(|(n, _)| n)
                .collect();
            let values = command(r, wall, |ctx| {
                let atoms: Vec<_> = names.iter().map(|n| ctx.atom(n.clone())).collect();
                let vals = ctx.get_value(atoms)?;
                Ok(vals
                    .into_iter()
                    .map(|(_, v)| ctx.display(v).to_string())
                    .collect::<Vec<_>>())
            })?;
            Ok(Answer::Sat(names.into_iter().zip(values).collect()))
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Before easy-smt kills and reaps the process itself: also end anything the
        // solver started (its own process group), so nothing is left behind.
        kill_group(&self.watchdog.pidfile);
    }
}
