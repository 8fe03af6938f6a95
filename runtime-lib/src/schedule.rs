//! The schedule files of the pthread scheduler (`schedule_record.c` beside this file; format in
//! runtime-lib/README.md): what a run records under `SYNCMUT_SCHEDULE_OUT` (its choice
//! points, how it ended, how many scheduling points it took) and what `replay:<path>`
//! reads back, plus the `SYNCMUT_SCHEDULE` values syncmut composes.

/// What a choice point decides (the second word of its line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChoiceKind {
    /// `run`: which thread runs next.
    Run,
    /// `wake`: which condition-variable waiter a signal wakes.
    Wake,
    /// `timeout`: which timed wait expires when nothing else can run.
    Timeout,
}

impl std::str::FromStr for ChoiceKind {
    type Err = String;

    fn from_str(word: &str) -> Result<ChoiceKind, String> {
        match word {
            "run" => Ok(ChoiceKind::Run),
            "wake" => Ok(ChoiceKind::Wake),
            "timeout" => Ok(ChoiceKind::Timeout),
            other => Err(format!("unknown choice kind {other:?}")),
        }
    }
}

/// One choice point of a recorded schedule (a line of a `SYNCMUT_SCHEDULE_OUT` file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The thread id (creation order, 0 = main) chosen.
    pub chosen: u32,
    /// What was chosen.
    pub kind: ChoiceKind,
    /// `run`: the thread that was running at the point.
    pub current: Option<u32>,
    /// The options: thread id and the site of the wrapped call it was at, if any.
    pub options: Vec<(u32, Option<u32>)>,
    /// Per option, the synchronization objects (numbered per run) its pending step
    /// acts on; `None`: unknown, counts as touching everything.
    pub touches: Vec<Option<Vec<u32>>>,
    /// Per option, whether its pending step only reads its objects (a memory load under
    /// `--interleave memory`, `r<k>` in the file); two reads of one object commute.
    /// May be shorter than `options` (missing: not read-only).
    pub reads: Vec<bool>,
    /// Per option, the memory access (its number in the catalogue's `accesses`) the
    /// pending step is, under `--interleave memory` (`m<k>` in the site field). May be
    /// shorter than `options` (missing: none).
    pub accesses: Vec<Option<u32>>,
    /// Trace events recorded before the point (`e<n>`): the chosen step comes after the
    /// events with a smaller seq. `None` in files that do not say.
    pub events: Option<u64>,
    /// Per option, the run step (index into [`Schedule::run_steps`]) during which
    /// another thread created or woke it, if it has not run since (`b<k>`): a causal edge
    /// its objects need not show. May be shorter than `options` (missing: none).
    pub readied: Vec<Option<u32>>,
}

impl Choice {
    /// The pending step of option `thread` here: its objects (`None`: every object),
    /// whether it only reads them, and the run step that readied it.
    pub fn step_of(&self, thread: u32) -> Option<Step> {
        let i = self.options.iter().position(|(id, _)| *id == thread)?;
        Some(Step {
            thread,
            objects: self.touches.get(i).cloned().flatten(),
            reads: self.reads.get(i).copied().unwrap_or(false),
            readied: self.readied.get(i).copied().flatten(),
        })
    }

    /// The steps of threads `a` and `b` at this point commute: they act on disjoint
    /// synchronization objects (design code between scheduling points is assumed free
    /// of data races). The main thread's steps never commute: returning from `main`
    /// ends every thread.
    pub fn independent(&self, a: u32, b: u32) -> bool {
        let index = |t: u32| self.options.iter().position(|(id, _)| *id == t);
        let touches = |t: u32| index(t).and_then(|i| self.touches.get(i).cloned().flatten());
        let reads = |t: u32| {
            index(t)
                .and_then(|i| self.reads.get(i).copied())
                .unwrap_or(false)
        };
        match (touches(a), touches(b)) {
            // A join of the other thread waits for its end, which may be this step.
            (Some(x), _) if x.contains(&exit_object(b)) => false,
            (_, Some(y)) if y.contains(&exit_object(a)) => false,
            (Some(x), Some(y)) => {
                a != 0
                    && b != 0
                    && a != b
                    && (!x.iter().any(|o| y.contains(o)) || (reads(a) && reads(b)))
            }
            _ => false,
        }
    }

    /// Choosing `option` here preempts the running thread.
    pub fn preempts(&self, option: u32) -> bool {
        self.kind == ChoiceKind::Run
            && self
                .current
                .is_some_and(|c| c != option && self.options.iter().any(|(id, _)| *id == c))
    }
}

/// Object numbers from here on stand for threads' ends ([`exit_object`]); the runtime
/// numbers real objects from 1 up to 65536.
const EXIT_OBJECTS: u32 = 1 << 31;

/// The object that stands for the end of `thread`: a join of it (`j<k>` in the file) acts
/// on this object only, and so does, besides its own objects, the thread's last step
/// (the one after which it ends). The partial-order reduction adds the latter.
pub fn exit_object(thread: u32) -> u32 {
    EXIT_OBJECTS + thread
}

/// One thread's step at a scheduling point: what it acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub thread: u32,
    /// `None`: unknown, every object.
    pub objects: Option<Vec<u32>>,
    /// Only reads its objects (a memory load): two reads of one object commute.
    pub reads: bool,
    /// The run step during which another thread created or woke this one.
    pub readied: Option<u32>,
}

/// A run point of a recorded schedule: a choice, or a step with one option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunPoint {
    /// Index into [`Schedule::choices`] (a `run` choice).
    Choice(usize),
    /// Index into [`Schedule::singles`].
    Single(usize),
}

/// A recorded schedule.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Schedule {
    pub choices: Vec<Choice>,
    /// The run points with one option (`# step` lines), each with the number of choices
    /// recorded before it. Empty in files written before they were recorded.
    pub singles: Vec<(usize, Choice)>,
    /// How the run ended (`exit`, `signal`, `deadlock`, `livelock`), if recorded.
    pub end: Option<String>,
    /// Scheduling points of the whole run.
    pub steps: Option<u64>,
    /// Choice point where a replayed file stopped fitting the run.
    pub diverged: Option<usize>,
    pub truncated: bool,
}

/// Parses a schedule file (format: runtime-lib/README.md, `SYNCMUT_SCHEDULE_OUT`).
pub fn parse(text: &str) -> Result<Schedule, String> {
    let mut schedule = Schedule::default();
    for (i, line) in text.lines().enumerate() {
        let bad = |what: &str| format!("line {}: {what}", i + 1);
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(step) = line.strip_prefix("# step ") {
            let words: Vec<&str> = step.split_whitespace().collect();
            let choice = parse_choice(&words).map_err(|e| bad(&e))?;
            schedule.singles.push((schedule.choices.len(), choice));
            continue;
        }
        if let Some(comment) = line.strip_prefix('#') {
            let words: Vec<&str> = comment.split_whitespace().collect();
            match words.as_slice() {
                ["end", how, "steps", n] => {
                    schedule.end = Some(how.to_string());
                    schedule.steps = n.parse().ok();
                }
                ["diverged", k] => schedule.diverged = k.parse().ok(),
                ["truncated"] => schedule.truncated = true,
                _ => {}
            }
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        schedule
            .choices
            .push(parse_choice(&words).map_err(|e| bad(&e))?);
    }
    Ok(schedule)
}

/// One choice line's words: `<chosen> <kind> <current|-> <options> e<events>`.
fn parse_choice(words: &[&str]) -> Result<Choice, String> {
    let chosen = words
        .first()
        .and_then(|w| w.parse().ok())
        .ok_or("expected a thread id")?;
    // A replay prefix has only the thread id: a run choice.
    let kind = match words.get(1) {
        Some(word) => word.parse()?,
        None => ChoiceKind::Run,
    };
    let current = words.get(2).and_then(|w| w.parse().ok());
    let mut options = Vec::new();
    let mut touches = Vec::new();
    let mut reads = Vec::new();
    let mut accesses = Vec::new();
    let mut readied = Vec::new();
    if let Some(list) = words.get(3) {
        for option in list.split(',') {
            let mut fields = option.split(':');
            let id = fields
                .next()
                .unwrap_or_default()
                .parse()
                .map_err(|_| "bad option")?;
            let site_field = fields.next();
            accesses.push(
                site_field
                    .and_then(|f| f.strip_prefix('m'))
                    .and_then(|k| k.parse().ok()),
            );
            options.push((id, site_field.and_then(|f| f.parse().ok())));
            let objects = fields.next();
            reads.push(objects.is_some_and(|o| o.starts_with('r')));
            touches.push(match objects {
                Some("-") => Some(Vec::new()),
                Some(join) if join.starts_with('j') => {
                    join[1..].parse().ok().map(|k| vec![exit_object(k)])
                }
                Some(objects) if objects != "*" => objects
                    .split('+')
                    .map(|o| {
                        o.strip_prefix('o')
                            .or_else(|| o.strip_prefix('r'))
                            .and_then(|n| n.parse().ok())
                    })
                    .collect::<Option<Vec<u32>>>(),
                _ => None,
            });
            readied.push(
                fields
                    .next()
                    .and_then(|f| f.strip_prefix('b'))
                    .and_then(|k| k.parse().ok()),
            );
        }
    }
    let events = words
        .get(4)
        .and_then(|w| w.strip_prefix('e'))
        .and_then(|n| n.parse().ok());
    Ok(Choice {
        chosen,
        kind,
        current,
        options,
        touches,
        reads,
        accesses,
        events,
        readied,
    })
}

impl Schedule {
    /// The run points in the order they were met (`run` choices and single steps;
    /// `wake`/`timeout` choices are not steps), when the file records the single ones.
    pub fn run_points(&self) -> Vec<RunPoint> {
        let mut points = Vec::new();
        let mut singles = self.singles.iter().enumerate().peekable();
        for (c, choice) in self.choices.iter().enumerate() {
            while let Some((s, _)) = singles.next_if(|(_, (before, _))| *before <= c) {
                points.push(RunPoint::Single(s));
            }
            if choice.kind == ChoiceKind::Run {
                points.push(RunPoint::Choice(c));
            }
        }
        points.extend(singles.map(|(s, _)| RunPoint::Single(s)));
        points
    }

    /// The point a run point names.
    pub fn point(&self, point: RunPoint) -> &Choice {
        match point {
            RunPoint::Choice(c) => &self.choices[c],
            RunPoint::Single(s) => &self.singles[s].1,
        }
    }
}

/// The replay file for a list of chosen thread ids (what `replay:<path>` reads).
pub fn replay_text(chosen: &[u32]) -> String {
    let mut text = String::from("# syncmut-schedule 1 (replay prefix)\n");
    for id in chosen {
        text.push_str(&format!("{id}\n"));
    }
    text
}

/// The `SYNCMUT_SCHEDULE` value that makes a run follow the recorded schedule file at
/// `path` as far as it can (another program's interleaving: a mutant's, followed by the
/// original).
pub fn follow_value(path: &std::path::Path) -> String {
    format!("follow:{}", path.display())
}

/// The `SYNCMUT_SCHEDULE` value of the k-th PCT schedule for a run of about `steps`
/// scheduling points (self-contained, so a saved value replays without other settings).
pub fn pct_value(k: usize, depth: u32, steps: u64) -> String {
    format!("pct:{k}:{depth}:{steps}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_schedule_file() {
        let text = "# syncmut-schedule 1 random:3\n# comment\n1 run 0 0:-,1:4\n2 wake - 1:-,2:-\n# diverged 1\n# end deadlock steps 17\n";
        let objects =
            parse("1 run 1 1:3:o1,2:-:o2+o3,3:5:*,4:-:-,5:-:o1,6:m0:r1,7:m4:r1,8:-:r2\n").unwrap();
        let c = &objects.choices[0];
        assert_eq!(
            c.accesses,
            vec![None, None, None, None, None, Some(0), Some(4), None]
        );
        assert_eq!(c.options[5], (6, None));
        assert_eq!(
            c.touches,
            vec![
                Some(vec![1]),
                Some(vec![2, 3]),
                None,
                Some(vec![]),
                Some(vec![1]),
                Some(vec![1]),
                Some(vec![1]),
                Some(vec![2])
            ]
        );
        assert!(c.independent(1, 2) && c.independent(2, 4) && c.independent(1, 4));
        assert!(!c.independent(1, 5) && !c.independent(1, 3) && !c.independent(3, 4));
        // Two reads of one address commute; a read and a write of it do not.
        assert!(
            c.independent(6, 7)
                && c.independent(6, 8)
                && !c.independent(6, 1)
                && !c.independent(8, 2)
        );
        // The trace events recorded before a point, when the file says.
        assert_eq!(c.events, None);
        assert_eq!(
            parse("2 run 1 1:3:o1,2:m0:r1 e12\n").unwrap().choices[0].events,
            Some(12)
        );
        let s = parse(text).unwrap();
        assert_eq!(s.choices.len(), 2);
        assert_eq!(s.choices[0].options, vec![(0, None), (1, Some(4))]);
        assert_eq!((s.choices[0].chosen, s.choices[0].current), (1, Some(0)));
        assert!(s.choices[0].preempts(1));
        assert!(!s.choices[0].preempts(0));
        assert!(!s.choices[1].preempts(1));
        assert_eq!(s.end.as_deref(), Some("deadlock"));
        assert_eq!(s.steps, Some(17));
        assert_eq!(s.diverged, Some(1));
        assert!(parse("x run\n").is_err());
        assert!(parse("1 jump\n").unwrap_err().contains("choice kind"));
    }

    #[test]
    fn a_thread_that_finished_is_not_preempted() {
        let c = Choice {
            chosen: 2,
            kind: ChoiceKind::Run,
            current: Some(1),
            options: vec![(0, None), (2, None)],
            touches: vec![],
            reads: vec![],
            accesses: vec![],
            events: None,
            readied: vec![],
        };
        assert!(!c.preempts(2));
    }
}
