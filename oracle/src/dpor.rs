//! The search tree of `dfs` and its partial-order reduction.
//!
//! [`Tree`] holds, per choice point of the current path, the options tried there and
//! the ones still to try; a search runs the path's prefix, [`Tree::extend`]s the tree
//! with the recorded run and asks [`Tree::next_prefix`] for the next prefix to run.
//! [`levels::Levels`] covers the same schedules as `none` below, by preemption level.
//!
//! Reductions ([`Por`]):
//! - `none`: every option of every point (within the preemption bound).
//! - `sleep`: sleep sets: an option is not tried where a schedule that takes it from an
//!   equivalent state was already explored and only independent steps happened since.
//! - `dpor`: dynamic partial-order reduction (Flanagan and Godefroid 2005, persistent
//!   sets computed from the executions; without their sleep sets, see [`Por::sleeps`]): a point's options are tried
//!   only when a recorded run shows a race that needs them. For every step of a run,
//!   and for the step each thread was left pending at the end, [`races`] finds the last
//!   earlier step of another thread it depends on (same object, not both reads; an
//!   unknown object, or `main`'s last step, which returns from `main` and so ends every
//!   thread, unless it is a join of a thread still running, which blocks; a
//!   `pthread_join` of thread k acts only on k's end, which k's last step acts on
//!   besides its own objects) that does not happen before it, and adds the
//!   step's thread to the backtrack set of that earlier step's point (every option of
//!   the point when the thread was not one of them). Happens-before is program order,
//!   the dependent steps in the run's order, and the edges the runtime records when a
//!   step creates or wakes a thread (`b<k>` in the schedule file). Under a preemption
//!   bound the naive combination misses schedules (a reversal may need more
//!   preemptions than the bound allows where the race is, and fewer earlier), so each
//!   race also adds its thread where the earlier step's thread last started running
//!   (the conservative backtracking of bounded partial-order reduction, Coons,
//!   Musuvathi and McKinley 2013).
//!
//! Under `dpor`, an option the runtime marks as one that would only block (`:w`: a lock
//! another thread holds, a wait on a semaphore at 0, a join of a thread still running)
//! is never chosen: taken, it changes nothing the program can see, and the thread's
//! retry once woken is the step that acts. A taken one (the default strategy past a
//! prefix takes them) acts on nothing; a race that asks for such a thread where it
//! would block asks for every option there that can act instead (Flanagan and
//! Godefroid's rule for a thread that is not enabled). Without this, each place a
//! failed attempt could fall inside the holder's section was an interleaving of its
//! own. `none` and `sleep` still take them: `run`'s searches use those, and there the
//! attempt's trace event, recorded before it blocks, is part of what is compared.
//!
//! `wake`/`timeout` points (which waiter a signal wakes, which timed wait expires) are
//! not steps of a thread: every option there is tried, and sleep sets are emptied.

use syncmut_runtime::schedule::{exit_object, Choice, ChoiceKind, RunPoint, Schedule, Step};

/// A preemption "bound" that bounds nothing (`--preemptions unbounded`).
pub const UNBOUNDED: u32 = u32::MAX;

/// How `dfs` prunes its tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Por {
    /// Every option of every point.
    None,
    /// Sleep sets only.
    Sleep,
    /// Dynamic partial-order reduction.
    #[default]
    Dpor,
}

impl Por {
    /// Every reduction's name, as `--por` takes it; the default first.
    pub const NAMES: [&'static str; 3] = ["dpor", "sleep", "none"];

    /// The reduction's name, as `--por` takes it.
    pub const fn name(self) -> &'static str {
        match self {
            Por::None => "none",
            Por::Sleep => "sleep",
            Por::Dpor => "dpor",
        }
    }

    /// What is left out, in words (for the search's summary and the verdicts).
    pub fn equivalence(self) -> &'static str {
        match self {
            Por::None => "",
            Por::Sleep => ", up to sleep-set equivalence",
            Por::Dpor => ", up to the order of independent steps",
        }
    }

    /// Sleep sets are used: by `sleep` only. Not by `dpor`: under a bound a schedule a
    /// sleep set skips may be the only one of its class within it (the equivalent one
    /// explored may need more preemptions), and without one they lost an observation
    /// (the model test `sleep_sets_do_not_hide_an_order_from_dpor`): a run goes on
    /// past its prefix by the default strategy, which takes sleeping threads, and the
    /// races found there cannot put back the order a sleeping thread hid.
    fn sleeps(self) -> bool {
        self == Por::Sleep
    }
}

impl std::str::FromStr for Por {
    type Err = String;

    fn from_str(word: &str) -> Result<Por, String> {
        match word {
            "dpor" => Ok(Por::Dpor),
            "sleep" => Ok(Por::Sleep),
            "none" => Ok(Por::None),
            other => Err(format!("unknown reduction {other:?} (dpor, sleep or none)")),
        }
    }
}

/// The threads each choice point must also try, from one recorded run: (index into
/// `schedule.choices`, threads), in the order found. A file without the single-option
/// steps (older runtimes) would give a wrong happens-before: [`Tree`] then tries every
/// option instead.
pub fn races(schedule: &Schedule, bounded: bool) -> Vec<(usize, Vec<u32>)> {
    let points = schedule.run_points();
    let steps: Vec<Step> = points
        .iter()
        .map(|p| {
            let c = schedule.point(*p);
            let mut step = c.step_of(c.chosen).unwrap_or(Step {
                thread: c.chosen,
                objects: None,
                reads: false,
                readied: None,
            });
            if c.waits(c.chosen) {
                // It blocked and changed nothing: its retry, readied by the release or
                // the end it waited for (`b<k>`), is the step that acts.
                step.objects = Some(Vec::new());
            }
            step
        })
        .collect();
    // `main`'s last step returns from `main` (or is where the run ended), which ends
    // every thread: it depends on every step. Its other steps act on their objects.
    let main_last = steps.iter().rposition(|s| s.thread == 0);
    let mut steps = steps;
    if let Some(last) = main_last {
        steps[last].objects = None;
    }
    // Each thread's last step is the one it ends after: it also acts on the thread's
    // end, the one object a join of the thread acts on (`j<k>`). A join attempt commutes
    // with the thread's other steps (it blocks before and after them alike).
    let mut last_of: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
    for (k, s) in steps.iter().enumerate() {
        last_of.insert(s.thread, k);
    }
    for (thread, k) in &last_of {
        if let Some(objects) = steps[*k].objects.as_mut() {
            objects.push(exit_object(*thread));
        }
    }
    // The pending step of option `id` at point k: the step it takes next, if it does.
    let mut of_thread: std::collections::HashMap<u32, Vec<usize>> =
        std::collections::HashMap::new();
    for (k, s) in steps.iter().enumerate() {
        of_thread.entry(s.thread).or_default().push(k);
    }
    let pending_at = |k: usize, c: &Choice, id: u32| -> Step {
        let mut step = c.step_of(id).expect("an option");
        if id != c.chosen && c.opens(id) {
            // The start of an atomic section, not taken here: what the section touches
            // is unknown until it runs, and its races are found where it is taken. As a
            // step on every object it would race with every step of every thread.
            step.objects = Some(Vec::new());
        }
        let next = of_thread
            .get(&id)
            .and_then(|ks| ks.get(ks.partition_point(|i| *i < k)).copied());
        if id == 0 && (next.is_none() || next == main_last) {
            // Where `main` may return. Not at a join of a thread that has not ended by
            // k: taken there, the join blocks, acting only on that thread's end.
            let joins_running = |t: u32| last_of.get(&t).is_none_or(|l| *l >= k);
            let blocks = matches!(step.objects.as_deref(),
                Some([o]) if *o > exit_object(0) && joins_running(*o - exit_object(0)));
            if !blocks {
                step.objects = None;
            }
        } else if next.is_none() || next == last_of.get(&id).copied() {
            // Its last step in this run, or one the run never took (which may be the
            // one it ends after).
            if let Some(objects) = step.objects.as_mut() {
                objects.push(exit_object(id));
            }
        }
        step
    };
    let mut found = Vec::new();
    let mut add = |i: usize, thread: u32| {
        let mut at = vec![i];
        if bounded {
            // Where the thread of step i last started running: a switch to `thread`
            // there may cost one preemption less than one at i.
            let mut j = i;
            while j > 0 && steps[j - 1].thread == steps[i].thread {
                j -= 1;
            }
            at.push(j);
        }
        for k in at {
            if let RunPoint::Choice(c) = points[k] {
                let choice = &schedule.choices[c];
                let is_option = choice.options.iter().any(|(id, _)| *id == thread);
                // A thread that would only block there cannot take its step first:
                // every option that can act is tried instead (Flanagan and Godefroid's
                // rule for a thread not enabled).
                let threads = if is_option && !choice.waits(thread) {
                    vec![thread]
                } else {
                    choice
                        .options
                        .iter()
                        .map(|(id, _)| *id)
                        .filter(|id| !choice.waits(*id))
                        .collect()
                };
                found.push((c, threads));
            }
        }
    };
    // At each point, the pending step of every option (the chosen one's is the step
    // taken) against the steps so far; at the end, the step each thread was left
    // pending at (its latest point as an option after its last step) against them all.
    let mut analysis = Analysis::default();
    for (k, step) in steps.iter().enumerate() {
        let c = schedule.point(points[k]);
        for (id, _) in &c.options {
            let pending = pending_at(k, c, *id);
            if let Some(i) = analysis.last_race(&pending) {
                add(i, *id);
            }
        }
        analysis.push(step.clone());
    }
    let mut pending: std::collections::BTreeMap<u32, Step> = std::collections::BTreeMap::new();
    for (k, p) in points.iter().enumerate() {
        let c = schedule.point(*p);
        for (id, _) in &c.options {
            let ran_since = analysis
                .last
                .get(*id as usize)
                .copied()
                .flatten()
                .is_some_and(|last| last >= k);
            if !ran_since {
                pending.insert(*id, pending_at(k, c, *id));
            }
        }
    }
    for step in pending.values() {
        if let Some(i) = analysis.last_race(step) {
            add(i, step.thread);
        }
    }
    found
}

/// Happens-before over the steps of one run, with vector clocks (per thread, how many of
/// its steps happen before).
#[derive(Default)]
struct Analysis {
    steps: Vec<Step>,
    /// Per step: its index among its thread's steps, and its clock.
    local: Vec<u32>,
    clocks: Vec<Vec<u32>>,
    /// Per thread: its last step.
    last: Vec<Option<usize>>,
    /// The last step on an unknown object (they are ordered with each other, every such
    /// step being dependent on every step).
    last_universal: Option<usize>,
    /// Per object: the last write and the reads since.
    objects: std::collections::HashMap<u32, (Option<usize>, Vec<usize>)>,
}

impl Analysis {
    fn universal(step: &Step) -> bool {
        step.objects.is_none()
    }

    /// The clock of `step`'s thread before it: its previous step's and that of the step
    /// that created or woke it.
    fn before(&self, step: &Step) -> Vec<u32> {
        let mut clock = self
            .last
            .get(step.thread as usize)
            .copied()
            .flatten()
            .map(|i| self.clocks[i].clone())
            .unwrap_or_default();
        if let Some(r) = step
            .readied
            .map(|r| r as usize)
            .filter(|r| *r < self.clocks.len())
        {
            join(&mut clock, &self.clocks[r]);
        }
        clock
    }

    fn happens_before(&self, i: usize, clock: &[u32]) -> bool {
        clock
            .get(self.steps[i].thread as usize)
            .is_some_and(|n| *n > self.local[i])
    }

    /// The last earlier step of another thread that `step` depends on and that does not
    /// happen before it.
    fn last_race(&self, step: &Step) -> Option<usize> {
        let before = self.before(step);
        let racing = |i: usize| {
            self.steps[i].thread != step.thread
                && dependent(&self.steps[i], step)
                && !self.happens_before(i, &before)
        };
        let mut best: Option<usize> = None;
        let mut consider = |i: usize| {
            if racing(i) && best.is_none_or(|b| i > b) {
                best = Some(i);
            }
        };
        if Self::universal(step) {
            // Every step is dependent: each thread's last step, if it does not happen
            // before (its earlier ones then do not matter: the last is later).
            for i in self.last.iter().flatten() {
                consider(*i);
            }
            return best;
        }
        if let Some(u) = self.last_universal {
            consider(u);
        }
        for object in step.objects.iter().flatten() {
            if let Some((write, reads)) = self.objects.get(object) {
                // Steps on the object before its last write happen before that write.
                if let Some(w) = write {
                    consider(*w);
                }
                if !step.reads {
                    for r in reads.iter().rev() {
                        consider(*r);
                    }
                }
            }
        }
        best
    }

    fn push(&mut self, step: Step) {
        let k = self.steps.len();
        let t = step.thread as usize;
        let mut clock = self.before(&step);
        if Self::universal(&step) {
            for i in self.last.iter().flatten() {
                join(&mut clock, &self.clocks[*i]);
            }
        } else {
            if let Some(u) = self.last_universal {
                join(&mut clock, &self.clocks[u]);
            }
            for object in step.objects.iter().flatten() {
                if let Some((write, reads)) = self.objects.get(object) {
                    if let Some(w) = write {
                        join(&mut clock, &self.clocks[*w]);
                    }
                    if !step.reads {
                        for r in reads {
                            join(&mut clock, &self.clocks[*r]);
                        }
                    }
                }
            }
        }
        let local = self
            .last
            .get(t)
            .copied()
            .flatten()
            .map(|i| self.local[i] + 1)
            .unwrap_or(0);
        if clock.len() <= t {
            clock.resize(t + 1, 0);
        }
        clock[t] = local + 1;
        if Self::universal(&step) {
            self.last_universal = Some(k);
            // Every later step on an object is ordered after this one through it.
        } else {
            for object in step.objects.iter().flatten() {
                let entry = self.objects.entry(*object).or_default();
                if step.reads {
                    entry.1.push(k);
                } else {
                    *entry = (Some(k), Vec::new());
                }
            }
        }
        if self.last.len() <= t {
            self.last.resize(t + 1, None);
        }
        self.last[t] = Some(k);
        self.local.push(local);
        self.clocks.push(clock);
        self.steps.push(step);
    }
}

/// Two steps of different threads do not commute: a common object (not both reads), or
/// an unknown one. (`main`'s last step has been made unknown by [`races`].)
fn dependent(a: &Step, b: &Step) -> bool {
    match (&a.objects, &b.objects) {
        (Some(x), Some(y)) => x.iter().any(|o| y.contains(o)) && !(a.reads && b.reads),
        _ => true,
    }
}

fn join(into: &mut Vec<u32>, other: &[u32]) {
    if into.len() < other.len() {
        into.resize(other.len(), 0);
    }
    for (a, b) in into.iter_mut().zip(other) {
        *a = (*a).max(*b);
    }
}

/// One choice point of the current path.
struct Node {
    choice: Choice,
    /// Options tried here (the path's own choice first).
    done: Vec<u32>,
    /// Options to try here (dpor: the ones races asked for; otherwise every option).
    backtrack: Vec<u32>,
    /// Preemptions on the path before this point.
    preemptions: u32,
    /// Threads asleep here.
    sleep: Vec<u32>,
}

/// The depth-first search tree over the choice points of the runs so far.
pub struct Tree {
    por: Por,
    bound: u32,
    stack: Vec<Node>,
    /// A run's file did not record its single-option steps: races cannot be computed,
    /// so every option is tried from then on.
    pub without_steps: bool,
}

impl Tree {
    pub fn new(por: Por, bound: u32) -> Tree {
        Tree {
            por,
            bound,
            stack: Vec::new(),
            without_steps: false,
        }
    }

    /// Adds the run of the last prefix (of `prefix_len` choices) to the tree.
    pub fn extend(&mut self, schedule: Schedule, prefix_len: usize) {
        let dpor = self.por == Por::Dpor;
        let found = if dpor {
            races(&schedule, self.bound_binds(&schedule))
        } else {
            Vec::new()
        };
        if dpor
            && schedule.singles.is_empty()
            && schedule.choices.iter().any(|c| c.kind == ChoiceKind::Run)
            && schedule
                .steps
                .is_some_and(|n| n as usize > schedule.choices.len())
        {
            self.without_steps = true;
        }
        self.stack.truncate(prefix_len);
        let mut preemptions = self
            .stack
            .last()
            .map(|n| n.preemptions + u32::from(n.choice.preempts(n.choice.chosen)))
            .unwrap_or(0);
        for choice in schedule.choices.into_iter().skip(prefix_len) {
            let next = preemptions + u32::from(choice.preempts(choice.chosen));
            let sleep = match self.stack.last() {
                Some(parent) if self.por.sleeps() => child_sleep(parent, &choice),
                _ => Vec::new(),
            };
            let full = !dpor || self.without_steps || choice.kind != ChoiceKind::Run;
            let backtrack = if full {
                choice.options.iter().map(|(id, _)| *id).collect()
            } else {
                vec![choice.chosen]
            };
            self.stack.push(Node {
                done: vec![choice.chosen],
                backtrack,
                choice,
                preemptions,
                sleep,
            });
            preemptions = next;
        }
        for (c, threads) in found {
            if let Some(node) = self.stack.get_mut(c) {
                for t in threads {
                    if !node.backtrack.contains(&t) {
                        node.backtrack.push(t);
                    }
                }
            }
        }
    }

    /// Under a bound some run could reach it: the conservative backtracking is needed.
    fn bound_binds(&self, _schedule: &Schedule) -> bool {
        self.bound != UNBOUNDED
    }

    /// The next prefix to run: the path down to the deepest point with an option still
    /// to try (within the bound, not asleep), that option last. `None`: the tree is
    /// exhausted.
    pub fn next_prefix(&mut self) -> Option<Vec<u32>> {
        let dpor = self.por == Por::Dpor;
        while let Some(node) = self.stack.last_mut() {
            let bound = self.bound;
            let untried = node.choice.options.iter().map(|(id, _)| *id).find(|id| {
                node.backtrack.contains(id)
                    && !node.done.contains(id)
                    && (!dpor || !node.choice.waits(*id))
                    && !node.sleep.contains(id)
                    && node
                        .preemptions
                        .saturating_add(u32::from(node.choice.preempts(*id)))
                        <= bound
            });
            match untried {
                Some(id) => {
                    node.done.push(id);
                    node.choice.chosen = id;
                    return Some(self.stack.iter().map(|n| n.choice.chosen).collect());
                }
                None => {
                    self.stack.pop();
                }
            }
        }
        None
    }
}

/// The sleep set after `parent` takes its current choice: the threads asleep or tried
/// at the parent whose steps are independent of the one taken. Emptied at
/// `wake`/`timeout` points.
fn child_sleep(parent: &Node, child: &Choice) -> Vec<u32> {
    let u = parent.choice.chosen;
    if parent.choice.kind != ChoiceKind::Run || child.kind != ChoiceKind::Run {
        return Vec::new();
    }
    let mut sleep: Vec<u32> = parent
        .sleep
        .iter()
        .chain(parent.done.iter())
        .copied()
        .filter(|&x| x != u && parent.choice.independent(x, u))
        .collect();
    sleep.sort_unstable();
    sleep.dedup();
    sleep
}

pub mod levels;
#[cfg(test)]
mod tests;
