//! A found bug as a developer reads it: the interleaving with each thread in its own
//! column, the memory steps chosen at choice points among the events, which lock a call
//! through a pointer took, the inputs, the data races and who was left waiting where.

use super::findings::Found;
use syncmut_mutator::Catalogue;
use syncmut_runtime::schedule::{self, Schedule};
use syncmut_runtime::trace::Trace;

/// What the choice points of a run tell about its trace: where the memory steps
/// (`--interleave memory`: accesses are not trace events) go among the events, and which
/// synchronization object (numbered per run) each event's call acted on.
struct ChoiceFacts {
    /// Per memory step chosen, in schedule order: the trace events recorded before it
    /// (`None`: the schedule file does not say; printed after every event), its thread
    /// (`T<k>`) and its line.
    memory: Vec<(Option<u64>, String, String)>,
    /// Per event (index into the trace's events): the objects of the call, when a choice
    /// point chose it.
    objects: Vec<Option<Vec<u32>>>,
}

/// Reads the choices against the trace: a choice point records how many events came
/// before it, so the step it chooses comes right after them. A thread waiting at a site
/// there makes its call at or after that point, on the objects the point shows for it:
/// its first event from then on, if that is at the site. A thread blocked inside a call
/// also waits at its site, its event already recorded; when its previous event is at
/// the same site, which of the two the point means is unclear, and no object is taken.
///
/// Each option looks its thread's events up by binary search ([`EventsByThread`]): a run
/// can have a million choice points, and scanning the trace from its start for each
/// took minutes.
fn choice_facts(catalogue: &Catalogue, schedule: &Schedule, trace: &Trace) -> ChoiceFacts {
    let events = &trace.events;
    let by_thread = EventsByThread::new(events);
    let mut objects = vec![None; events.len()];
    let mut memory = Vec::new();
    for choice in &schedule.choices {
        let Some(i) = choice
            .options
            .iter()
            .position(|(id, _)| *id == choice.chosen)
        else {
            continue;
        };
        if let Some(step) = memory_step(catalogue, choice, i) {
            memory.push(step);
            continue;
        }
        let Some(next) = choice.events else { continue };
        for (option, (id, site)) in choice.options.iter().enumerate() {
            let Some(site) = site else { continue };
            let Some((e, previous)) = by_thread.first_from(&format!("T{id}"), next) else {
                continue;
            };
            let previous_here = previous.is_some_and(|p| events[p].site == *site);
            if events[e].site == *site && !previous_here && objects[e].is_none() {
                objects[e] = choice.touches.get(option).cloned().flatten();
            }
        }
    }
    ChoiceFacts { memory, objects }
}

/// The line of a memory step, when the option `i` chosen at `choice` is one: (the
/// events before it, thread, what it does and where).
fn memory_step(
    catalogue: &Catalogue,
    choice: &schedule::Choice,
    i: usize,
) -> Option<(Option<u64>, String, String)> {
    let access = choice
        .accesses
        .get(i)
        .copied()
        .flatten()
        .and_then(|k| catalogue.accesses.get(k as usize))?;
    let verb = if access.write { "writes" } else { "reads " };
    let preempts = if choice.preempts(choice.chosen) {
        format!("  (preempts T{})", choice.current.unwrap_or(0))
    } else {
        String::new()
    };
    Some((
        choice.events,
        format!("T{}", choice.chosen),
        format!(
            "{verb} shared memory in {}{preempts} @ {}:{}",
            access.function, access.file, access.line
        ),
    ))
}

/// Per thread (`T<k>`), the indices of its events in the trace, ascending. The runtime
/// numbers events in the order it records them and the trace keeps that order, so along
/// each list the seqs ascend too.
struct EventsByThread<'t> {
    events: &'t [syncmut_runtime::trace::Event],
    indices: std::collections::HashMap<&'t str, Vec<usize>>,
}

impl<'t> EventsByThread<'t> {
    fn new(events: &'t [syncmut_runtime::trace::Event]) -> EventsByThread<'t> {
        let mut indices: std::collections::HashMap<&str, Vec<usize>> =
            std::collections::HashMap::new();
        for (i, event) in events.iter().enumerate() {
            indices.entry(event.thread.as_str()).or_default().push(i);
        }
        EventsByThread { events, indices }
    }

    /// The index of `thread`'s first event with a seq of at least `seq`, and of its
    /// event before that one, if any.
    fn first_from(&self, thread: &str, seq: u64) -> Option<(usize, Option<usize>)> {
        let mine = self.indices.get(thread)?;
        let k = mine.partition_point(|&i| self.events[i].seq < seq);
        let first = *mine.get(k)?;
        Some((first, k.checked_sub(1).map(|p| mine[p])))
    }
}

/// The lock expressions the trace can tell apart: object number → the `&name` a call
/// at a site written `f(&name…)` acted on.
fn object_names(
    catalogue: &Catalogue,
    trace: &Trace,
    objects: &[Option<Vec<u32>>],
) -> std::collections::BTreeMap<u32, String> {
    let mut names = std::collections::BTreeMap::new();
    for (event, objs) in trace.events.iter().zip(objects) {
        let (Some(site), Some([object])) =
            (catalogue.sites.get(event.site as usize), objs.as_deref())
        else {
            continue;
        };
        if let Some(arg) =
            first_argument(&site.call).filter(|a| a.starts_with('&') && is_identifier(&a[1..]))
        {
            names.entry(*object).or_insert_with(|| arg.to_string());
        }
    }
    names
}

/// The first argument of a call as written (`pthread_mutex_lock(&a)` → `&a`).
fn first_argument(call: &str) -> Option<&str> {
    let inside = call.split_once('(')?.1.strip_suffix(')')?;
    let first = inside.split(',').next()?.trim();
    (!first.is_empty()).then_some(first)
}

fn is_identifier(text: &str) -> bool {
    !text.is_empty()
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !text.starts_with(|c: char| c.is_ascii_digit())
}

/// The input values the run was given, one line (empty when it read none).
fn render_inputs(found: &Found) -> String {
    let given = &found.given;
    if given.is_empty() {
        return String::new();
    }
    let mut parts: Vec<String> = Vec::new();
    if !given.nondet.is_empty() {
        let values: Vec<String> = given.nondet.iter().map(|v| v.to_string()).collect();
        parts.push(format!(
            "__VERIFIER_nondet_* returned {} in call order",
            values.join(", ")
        ));
    }
    if !given.inputs.is_empty() {
        let named: Vec<String> = given
            .inputs
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        parts.push(format!("named inputs {}", named.join(", ")));
    }
    let source = match found.input_seed {
        Some(seed) => format!("drawn with SYNCMUT_NONDET_SEED={seed}"),
        None => "every value 0".to_string(),
    };
    format!("inputs ({source}): {}\n", parts.join("; "))
}

/// The run's data races (`--races`), both accesses of each.
fn race_lines(catalogue: &Catalogue, found: &Found) -> String {
    let mut text = String::new();
    let races = crate::races::all_in_source(catalogue, &found.races);
    if !races.is_empty() {
        text.push_str(&format!(
            "\ndata races ({}; each pair of source accesses once):\n",
            races.len()
        ));
        for race in &races {
            text.push_str(&format!(
                "  {}\n  {}\n    {}\n",
                race.first, race.second, race.unordered
            ));
        }
    }
    if let Some(limits) = &found.race_limits {
        text.push_str(&format!("\nrace detection: {limits}\n"));
    }
    text
}

/// A readable counterexample: the interleaving, one line per event with the thread in
/// its own column, the site as `file:line` and the call; then where each unfinished
/// thread stopped.
pub fn render_counterexample(catalogue: &Catalogue, found: &Found) -> String {
    let site = |s: u32| match catalogue.sites.get(s as usize) {
        Some(site) => (format!("{}:{}", site.file, site.line), site.call.clone()),
        None => (format!("site {s}"), String::new()),
    };
    let facts = choice_facts(catalogue, &found.schedule, &found.trace);
    let mut threads: Vec<&str> = found
        .trace
        .events
        .iter()
        .map(|e| e.thread.as_str())
        .collect();
    threads.extend(facts.memory.iter().map(|(_, thread, _)| thread.as_str()));
    if let Some(end) = &found.trace.end {
        threads.extend(end.pending.iter().map(|p| p.thread.as_str()));
    }
    let mut order: Vec<&str> = Vec::new();
    for t in threads {
        if !order.contains(&t) {
            order.push(t);
        }
    }
    order.sort_by_key(|t| t.trim_start_matches('T').parse::<u64>().unwrap_or(u64::MAX));
    let column = |t: &str| order.iter().position(|o| *o == t).unwrap_or(0);
    let mut text = format!("{}: {}\n", found.kind, found.message);
    text.push_str(&format!(
        "found by run {} (SYNCMUT_SCHEDULE={}), {} choice points\n",
        found.run,
        found.schedule_value,
        found.schedule.choices.len()
    ));
    text.push_str(&render_inputs(found));
    text.push_str("\ninterleaving (each thread in its own column):\n");
    let header: Vec<String> = order.iter().map(|t| format!("{t:<4}")).collect();
    text.push_str(&format!("  {:>4}  {}\n", "seq", header.join("")));
    let names = object_names(catalogue, &found.trace, &facts.objects);
    let mut memory = facts.memory.iter().peekable();
    let memory_line = |thread: &str, line: &str| {
        format!(
            "  {:>4}  {}{thread:<4}{line}\n",
            "mem",
            "    ".repeat(column(thread))
        )
    };
    for (event, objs) in found.trace.events.iter().zip(&facts.objects) {
        while let Some((_, thread, line)) =
            memory.next_if(|(before, _, _)| before.is_some_and(|n| n <= event.seq))
        {
            text.push_str(&memory_line(thread, line));
        }
        let (location, call) = site(event.site);
        let indent = "    ".repeat(column(&event.thread));
        let action = if event.action == "original" {
            String::new()
        } else {
            format!(" [{}]", event.action)
        };
        // A lock reached through a pointer: which one, when another call named it.
        let points_to = match (first_argument(&call), objs.as_deref()) {
            (Some(arg), Some([object])) if is_identifier(arg) => names
                .get(object)
                .map(|name| format!("  ({arg} is {name})"))
                .unwrap_or_default(),
            _ => String::new(),
        };
        text.push_str(&format!(
            "  {:>4}  {indent}{:<4}{call}{action}{points_to}  @ {location}\n",
            event.seq, event.thread
        ));
    }
    for (_, thread, line) in memory {
        text.push_str(&memory_line(thread, line));
    }
    if found.trace.truncated {
        text.push_str("  … (trace truncated)\n");
    }
    if !facts.memory.is_empty() {
        text.push_str("\n`mem` lines: the memory steps chosen at choice points (--interleave memory), in order among the events; accesses are not trace events\n");
    }
    text.push_str(&race_lines(catalogue, found));
    if let Some(end) = &found.trace.end {
        if !end.pending.is_empty() {
            text.push_str("\nthreads that did not finish:\n");
            for p in &end.pending {
                match p.site {
                    // A wait in a library's inline code (a C++20 semaphore's, latch's or
                    // barrier's futex wait): its user's call is the thread's last event.
                    Some(syncmut_runtime::tables::SITE_INNER) => {
                        text.push_str(&format!("  {:<4} waiting inside the C++ standard library (in the call of its last event above)\n", p.thread))
                    }
                    Some(s) => {
                        let (location, call) = site(s);
                        text.push_str(&format!("  {:<4} at {call} @ {location}\n", p.thread));
                    }
                    None => text.push_str(&format!("  {:<4} outside any synchronization call\n", p.thread)),
                }
            }
        }
    }
    let stderr = found.execution.stderr.text();
    let stderr: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(5)
        .collect();
    if !stderr.is_empty() {
        text.push_str("\nstderr:\n");
        for line in stderr {
            text.push_str(&format!("  {line}\n"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use syncmut_mutator::api::Family;
    use syncmut_mutator::interleave::MemoryAccess;
    use syncmut_runtime::trace::Event;

    /// [`choice_facts`] as it was first written, scanning the trace from its start for
    /// every option of every point: the reference the indexed lookup must agree with
    /// (the memory steps are [`memory_step`]'s in both).
    fn choice_facts_by_scanning(
        catalogue: &Catalogue,
        schedule: &Schedule,
        trace: &Trace,
    ) -> ChoiceFacts {
        let events = &trace.events;
        let mut objects = vec![None; events.len()];
        let mut memory = Vec::new();
        for choice in &schedule.choices {
            let Some(i) = choice
                .options
                .iter()
                .position(|(id, _)| *id == choice.chosen)
            else {
                continue;
            };
            if let Some(step) = memory_step(catalogue, choice, i) {
                memory.push(step);
                continue;
            }
            let Some(next) = choice.events else { continue };
            for (option, (id, site)) in choice.options.iter().enumerate() {
                let Some(site) = site else { continue };
                let thread = format!("T{id}");
                let mine = |e: &&Event| e.thread == thread;
                let Some(e) = events
                    .iter()
                    .position(|e| e.seq >= next && e.thread == thread)
                else {
                    continue;
                };
                let previous_here = events[..e]
                    .iter()
                    .rev()
                    .find(mine)
                    .is_some_and(|p| p.site == *site);
                if events[e].site == *site && !previous_here && objects[e].is_none() {
                    objects[e] = choice.touches.get(option).cloned().flatten();
                }
            }
        }
        ChoiceFacts { memory, objects }
    }

    fn catalogue() -> Catalogue {
        let mut catalogue = Catalogue::from_sites(Family::Pthread, Vec::new());
        let access = |index: u32, write: bool| MemoryAccess {
            index,
            function: format!("f{index}"),
            file: "p.c".into(),
            line: 10 + index,
            col: 1,
            write,
            atomic: false,
        };
        catalogue.accesses = vec![access(0, true), access(1, false)];
        catalogue
    }

    fn trace(events: &[(u64, &str, u32)]) -> Trace {
        let event = |&(seq, thread, site): &(u64, &str, u32)| Event {
            seq,
            site,
            action: "original".into(),
            thread: thread.into(),
            time: None,
            delta: None,
            lost: false,
            state: Default::default(),
        };
        Trace {
            events: events.iter().map(event).collect(),
            ..Trace::default()
        }
    }

    fn same(catalogue: &Catalogue, schedule: &Schedule, trace: &Trace) -> ChoiceFacts {
        let (fast, slow) = (
            choice_facts(catalogue, schedule, trace),
            choice_facts_by_scanning(catalogue, schedule, trace),
        );
        assert_eq!(
            (&fast.memory, &fast.objects),
            (&slow.memory, &slow.objects),
            "{schedule:?}\n{:?}",
            trace.events
        );
        fast
    }

    #[test]
    fn choice_facts_place_objects_and_memory_steps_as_the_scan_did() {
        // T1 locks (site 1, object 1) and is preempted by T2's memory step; T2 then
        // blocks in lock (site 1, object 1): its event 2 is recorded, and the point after
        // it, where T2 still waits at site 1, is unclear (its previous event is there).
        // T3 unlocks (site 2) after a gap in the seqs.
        let catalogue = catalogue();
        let trace = trace(&[
            (0, "T0", 0),
            (1, "T1", 1),
            (2, "T2", 1),
            (4, "T3", 2),
            (5, "T2", 1),
            (6, "T1", 2),
        ]);
        let schedule = schedule::parse(
            "1 run 0 0:0:o3,1:1:o1 e1\n\
             2 run 1 1:2:o1,2:m0:o2 e2\n\
             2 run 2 2:1:o1,3:2:o4 e2\n\
             3 run 2 2:1:o1,3:2:o4 e3\n\
             1 run 3 1:2:o1,2:1:o1 e5\n\
             1 run 1 0:m1:r2,1:2:o1 e6\n",
        )
        .unwrap();
        let facts = same(&catalogue, &schedule, &trace);
        assert_eq!(
            facts.objects,
            [
                None,
                Some(vec![1]),
                Some(vec![1]),
                Some(vec![4]),
                None,
                Some(vec![1])
            ]
        );
        assert_eq!(
            facts.memory,
            [(
                Some(2),
                "T2".to_string(),
                "writes shared memory in f0  (preempts T1) @ p.c:10".to_string()
            )]
        );
        // T0's memory step offered at e6 was not chosen: no memory line for it.
    }

    #[test]
    fn choice_facts_agree_with_the_scan_on_generated_runs() {
        // A fixed seed: the same 400 runs every time.
        let mut rng = fastrand::Rng::with_seed(0x5eed);
        let mut next = |n: u64| rng.u64(0..n);
        let catalogue = catalogue();
        let threads = ["T0", "T1", "T2", "T3"];
        let (mut objects_set, mut memory_lines) = (0, 0);
        for _ in 0..400 {
            let mut seq = 0;
            let mut events = Vec::new();
            for _ in 0..next(40) {
                events.push((seq, threads[next(4) as usize], next(3) as u32));
                seq += 1 + next(3) / 2; // now and then a slot left out
            }
            let trace = trace(&events);
            let mut text = String::new();
            let mut before = 0;
            for _ in 0..next(16) {
                before += next(4);
                let n = 1 + next(4);
                let first = next(5); // thread 4 has no events
                let ids: Vec<u64> = (0..n).map(|k| (first + k) % 5).collect();
                let options: Vec<String> = ids
                    .iter()
                    .map(|id| {
                        let site = match next(6) {
                            0 => "-".to_string(),
                            1 => format!("m{}", next(3)), // m2: not in the catalogue
                            _ => next(3).to_string(),
                        };
                        let objects = match next(4) {
                            0 => "-".to_string(),
                            1 => "*".to_string(),
                            _ => format!("o{}", 1 + next(3)),
                        };
                        format!("{id}:{site}:{objects}")
                    })
                    .collect();
                let chosen = if next(10) == 0 {
                    7
                } else {
                    ids[next(n) as usize]
                };
                let events = if next(8) == 0 {
                    String::new()
                } else {
                    format!(" e{before}")
                };
                text.push_str(&format!(
                    "{chosen} run {} {}{events}\n",
                    ids[0],
                    options.join(",")
                ));
            }
            let schedule = schedule::parse(&text).unwrap();
            let facts = same(&catalogue, &schedule, &trace);
            objects_set += facts.objects.iter().filter(|o| o.is_some()).count();
            memory_lines += facts.memory.len();
        }
        // The generated runs reach both kinds of facts, often.
        assert!(
            objects_set > 200 && memory_lines > 100,
            "{objects_set} objects, {memory_lines} memory lines"
        );
    }
}
