//! The search on hand-built programs: a small model of the runtime's scheduler runs
//! threads of reads, writes, locks and unlocks, semaphore posts and waits, writes the
//! schedule file the runtime would (choices, `# step` lines, `b<k>` edges, `:w`) and the
//! search drives it by prefixes, as `Explorer::dfs` drives a real program.

use super::levels::Levels;
use super::*;
use std::collections::BTreeSet;
use syncmut_runtime::schedule;

#[derive(Debug, Clone, Copy)]
enum Op {
    Read(u32),
    Write(u32),
    Lock(u32),
    Unlock(u32),
    /// Waits for the end of the thread at this index (`pthread_join`).
    Join(usize),
    /// `sem_post` and `sem_wait` of a semaphore that starts at 0.
    Post(u32),
    Wait(u32),
}
use Op::*;

/// What a run shows: the values each thread read (the writer's thread id and op
/// index, 0 = initial), in its order, and the final memory.
type Observation = (Vec<Vec<u32>>, Vec<(u32, u32)>);

/// Runs `threads` under `prefix`, then as the runtime's `default` (the running thread
/// goes on while it can, else the lowest id). The threads are numbered from `first`:
/// from 1, thread 0 (`main`) takes no step; from 0, the first is `main`, whose last step
/// returns from `main`. Returns the schedule file and what the run showed.
fn run(threads: &[Vec<Op>], prefix: &[u32], first: u32) -> (String, Observation) {
    let n = threads.len();
    let mut pc = vec![0usize; n];
    let mut holder: std::collections::HashMap<u32, usize> = Default::default();
    let mut count: std::collections::HashMap<u32, u32> = Default::default();
    let mut memory: std::collections::BTreeMap<u32, u32> = Default::default();
    let mut seen = vec![Vec::new(); n];
    let mut readied: Vec<Option<usize>> = vec![None; n];
    let mut current: Option<usize> = None;
    let mut text = String::from("# syncmut-schedule 1 model\n");
    let (mut choices, mut step) = (0usize, 0usize);
    let object = |op: &Op| match op {
        Read(o) => format!("r{o}"),
        Write(o) => format!("o{o}"),
        Lock(l) | Unlock(l) => format!("o{}", 100 + l),
        Post(s) | Wait(s) => format!("o{}", 200 + s),
        Join(t) => format!("j{}", *t as u32 + first),
    };
    // As the runtime: a lock attempt is a step; when the lock is held the thread blocks
    // (no longer an option) until the unlock wakes it, and retries.
    let mut blocked = vec![false; n];
    loop {
        let enabled: Vec<usize> = (0..n)
            .filter(|&t| !blocked[t] && pc[t] < threads[t].len())
            .collect();
        if enabled.is_empty() {
            break;
        }
        let default = current
            .filter(|c| enabled.contains(c))
            .unwrap_or(enabled[0]);
        let chosen = if enabled.len() > 1 {
            let want = prefix.get(choices).map(|id| (*id - first) as usize);
            choices += 1;
            want.filter(|w| enabled.contains(w)).unwrap_or(default)
        } else {
            default
        };
        let options: Vec<String> = enabled
            .iter()
            .map(|&t| {
                let b = readied[t].map(|k| format!(":b{k}")).unwrap_or_default();
                // As the runtime marks a step that would only block: a lock another
                // thread holds, a wait on a semaphore at 0, a join of a running thread.
                let waits = match threads[t][pc[t]] {
                    Lock(l) => holder.get(&l).is_some_and(|h| *h != t),
                    Join(j) => pc[j] < threads[j].len(),
                    Wait(s) => count.get(&s).copied().unwrap_or(0) == 0,
                    _ => false,
                };
                let w = if waits { ":w" } else { "" };
                format!(
                    "{}:-:{}{b}{w}",
                    t as u32 + first,
                    object(&threads[t][pc[t]])
                )
            })
            .collect();
        let cur = current
            .map(|c| (c as u32 + first).to_string())
            .unwrap_or("-".into());
        let line = format!(
            "{} run {cur} {} e0\n",
            chosen as u32 + first,
            options.join(",")
        );
        text.push_str(&if enabled.len() > 1 {
            line
        } else {
            format!("# step {line}")
        });
        readied[chosen] = None;
        let op = threads[chosen][pc[chosen]];
        let value = (chosen as u32 + 1) * 100 + pc[chosen] as u32 + 1;
        let mut advance = true;
        match op {
            Read(o) => seen[chosen].push(memory.get(&o).copied().unwrap_or(0)),
            Write(o) => {
                memory.insert(o, value);
            }
            Lock(l) => {
                if let std::collections::hash_map::Entry::Vacant(free) = holder.entry(l) {
                    free.insert(chosen);
                } else {
                    blocked[chosen] = true;
                    advance = false;
                }
            }
            Join(t) => {
                if pc[t] < threads[t].len() {
                    blocked[chosen] = true;
                    advance = false;
                }
            }
            Wait(s) => match count.get_mut(&s).filter(|c| **c > 0) {
                Some(c) => *c -= 1,
                None => {
                    blocked[chosen] = true;
                    advance = false;
                }
            },
            Post(s) => {
                *count.entry(s).or_default() += 1;
                for t in 0..n {
                    if blocked[t] && matches!(threads[t][pc[t]], Wait(w) if w == s) {
                        blocked[t] = false;
                        readied[t] = Some(step);
                    }
                }
            }
            Unlock(l) => {
                holder.remove(&l);
                for t in 0..n {
                    if blocked[t] && matches!(threads[t][pc[t]], Lock(m) if m == l) {
                        blocked[t] = false;
                        readied[t] = Some(step);
                    }
                }
            }
        }
        if advance {
            pc[chosen] += 1;
            if pc[chosen] == threads[chosen].len() {
                // Its end wakes its joiners, who retry.
                for t in 0..n {
                    if blocked[t] && matches!(threads[t][pc[t]], Join(j) if j == chosen) {
                        blocked[t] = false;
                        readied[t] = Some(step);
                    }
                }
            }
        }
        current = Some(chosen);
        step += 1;
    }
    text.push_str(&format!("# end exit steps {step}\n"));
    (text, (seen, memory.into_iter().collect()))
}

/// Searches `threads` to exhaustion: the runs made and the observations seen.
fn search(threads: &[Vec<Op>], por: Por, bound: u32) -> (usize, BTreeSet<Observation>) {
    search_from(threads, por, bound, 1)
}

/// [`search`], the threads numbered from `first` (see [`run`]).
fn search_from(
    threads: &[Vec<Op>],
    por: Por,
    bound: u32,
    first: u32,
) -> (usize, BTreeSet<Observation>) {
    let mut tree = Tree::new(por, bound);
    let mut prefix = Vec::new();
    let mut seen = BTreeSet::new();
    for runs in 1.. {
        assert!(runs < 100_000, "the search does not end");
        let (text, observation) = run(threads, &prefix, first);
        seen.insert(observation);
        let schedule = schedule::parse(&text).unwrap();
        tree.extend(schedule, prefix.len());
        match tree.next_prefix() {
            Some(p) => prefix = p,
            None => return (runs, seen),
        }
    }
    unreachable!()
}

const UNBOUNDED: u32 = u32::MAX;

#[test]
fn two_independent_threads_need_one_schedule() {
    // T1 writes x twice, T2 writes y twice: C(4,2) = 6 interleavings, one trace.
    let p = [vec![Write(1), Write(1)], vec![Write(2), Write(2)]];
    assert_eq!(search(&p, Por::None, UNBOUNDED).0, 6);
    assert_eq!(search(&p, Por::Dpor, UNBOUNDED).0, 1);
}

#[test]
fn two_writers_of_one_location_need_two() {
    let p = [vec![Write(1)], vec![Write(1)]];
    let (runs, seen) = search(&p, Por::Dpor, UNBOUNDED);
    assert_eq!((runs, seen.len()), (2, 2));
}

#[test]
fn one_writer_two_readers() {
    // The writer-readers example of source-DPOR: p: x = 1; q: read x; r: read x.
    // 3! = 6 interleavings; the reads commute, so 4 traces (the write before, between
    // or after the reads, the order of the two reads not mattering when both precede).
    let p = [vec![Write(1)], vec![Read(1)], vec![Read(1)]];
    let (none_runs, none_seen) = search(&p, Por::None, UNBOUNDED);
    let (runs, seen) = search(&p, Por::Dpor, UNBOUNDED);
    assert_eq!(none_runs, 6);
    assert_eq!(seen, none_seen);
    assert_eq!(seen.len(), 4);
    assert!(runs <= 5, "{runs} runs");
}

#[test]
fn critical_sections_are_ordered_two_ways() {
    // Two threads each lock l, write x, unlock l: the order of the sections is all that
    // matters (2 traces), every other interleaving being excluded by the lock.
    let section = vec![Lock(1), Write(1), Unlock(1)];
    let p = [section.clone(), section];
    let (runs, seen) = search(&p, Por::Dpor, UNBOUNDED);
    assert_eq!(seen.len(), 2);
    // As in the runtime, an attempt on a held lock is a step of its own (it blocks, and
    // the retry is another), but the file marks it (`:w`) as one that changes nothing:
    // one run per order of the sections (4 when each order also came with the other
    // thread's failed attempt inside it).
    assert_eq!(runs, 2);
}

#[test]
fn flanagan_godefroid_lock_example() {
    // Figure 3 of Flanagan and Godefroid (2005), shape: two threads update a shared
    // variable under a lock, a third reads another variable unprotected. The third
    // thread is independent of both: as many traces as with two threads.
    let section = vec![Lock(1), Read(1), Write(1), Unlock(1)];
    let p = [section.clone(), section, vec![Read(2), Write(2)]];
    let (none_runs, none_seen) = search(&p, Por::None, UNBOUNDED);
    let (runs, seen) = search(&p, Por::Dpor, UNBOUNDED);
    assert_eq!(seen, none_seen);
    // 4 runs against 420 interleavings.
    assert_eq!((runs, none_runs), (4, 420));
}

#[test]
fn joins_keep_every_observation_with_fewer_runs() {
    // T3 joins T1, then reads x, which T1 and T2 write: what T3 reads depends on where
    // T2's write falls; T1's first steps (on y) commute with the join attempt. Every
    // observation of the full search is kept under every bound, with fewer runs unbounded.
    // In this model the wake edge of a blocked join (`b<k>`) already orders the joiner
    // after the joined thread's end: without the `j<k>` object on the thread's last step
    // the runs and observations here are the same, so this checks joins, not that rule.
    let p = [
        vec![Write(2), Write(2), Write(1)],
        vec![Write(1)],
        vec![Join(0), Read(1)],
    ];
    for bound in [UNBOUNDED, 0, 1, 2] {
        let (none_runs, none_seen) = search(&p, Por::None, bound);
        let (runs, seen) = search(&p, Por::Dpor, bound);
        assert!(
            none_seen.is_subset(&seen),
            "bound {bound}: lost {:?}",
            none_seen.difference(&seen).collect::<Vec<_>>()
        );
        if bound == UNBOUNDED {
            assert_eq!(seen.len(), 3, "{seen:?}");
            assert!(
                runs < none_runs,
                "{runs} runs, {none_runs} without reduction"
            );
        }
    }
    // Two joiners of one thread, and a thread joining one that joins another.
    for p in [
        vec![
            vec![Write(1)],
            vec![Join(0), Read(1)],
            vec![Join(0), Write(1)],
        ],
        vec![
            vec![Write(1), Write(2)],
            vec![Join(0), Read(2), Write(1)],
            vec![Join(1), Read(1)],
        ],
    ] {
        for bound in [UNBOUNDED, 0, 1, 2] {
            let (_, none_seen) = search(&p, Por::None, bound);
            let (_, seen) = search(&p, Por::Dpor, bound);
            assert!(
                none_seen.is_subset(&seen),
                "{p:?} bound {bound}: lost {:?}",
                none_seen.difference(&seen).collect::<Vec<_>>()
            );
        }
    }
}

/// Draws from a fixed seed (xorshift): `next(m)` is in `0..m`.
fn draws(mut state: u64) -> impl FnMut(u64) -> u64 {
    move |m| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % m
    }
}

/// Small random programs (fixed seed): the reduction sees every observation the full
/// search sees, unbounded and under preemption bounds 0 to 2.
#[test]
fn reduction_keeps_every_observation_of_random_programs() {
    let mut next = draws(0x9E37_79B9_7F4A_7C15);
    let (mut full, mut reduced, mut sleep_lost, mut programs) = (0, 0, 0, 0);
    for _ in 0..400 {
        let threads = 2 + next(2) as usize;
        let p: Vec<Vec<Op>> = (0..threads)
            .map(|_| {
                let mut ops = Vec::new();
                for _ in 0..1 + next(3) {
                    match next(4) {
                        0 => ops.push(Read(1 + next(2) as u32)),
                        1 => ops.push(Write(1 + next(2) as u32)),
                        _ => {
                            let l = 1 + next(2) as u32;
                            let o = 1 + next(2) as u32;
                            ops.extend([
                                Lock(l),
                                if next(2) == 0 { Read(o) } else { Write(o) },
                                Unlock(l),
                            ]);
                        }
                    }
                }
                ops
            })
            .collect();
        if p.iter().map(Vec::len).sum::<usize>() > 8 {
            continue; // keeps the full search small
        }
        programs += 1;
        for bound in [UNBOUNDED, 0, 1, 2] {
            let (none_runs, none_seen) = search(&p, Por::None, bound);
            let (runs, seen) = search(&p, Por::Dpor, bound);
            let (_, sleep_seen) = search(&p, Por::Sleep, bound);
            if !none_seen.is_subset(&sleep_seen) {
                sleep_lost += 1;
            }
            assert!(
                none_seen.is_subset(&seen),
                "bound {bound}: {p:?} lost {:?}",
                none_seen.difference(&seen).collect::<Vec<_>>()
            );
            if bound == UNBOUNDED {
                assert_eq!(seen, none_seen, "{p:?}");
                assert!(runs <= none_runs, "{p:?}: {runs} > {none_runs}");
                (full, reduced) = (full + none_runs, reduced + runs);
            }
        }
    }
    assert!(reduced * 2 < full, "{reduced} of {full} runs");
    assert!(programs > 100, "{programs} programs");
    eprintln!("{programs} programs: {reduced} runs with dpor, {full} without (unbounded); sleep sets under a bound lost observations on {sleep_lost} program×bound pairs");
}

#[test]
fn a_join_of_main_that_blocks_is_not_where_main_returns() {
    // `main` joins two workers that each run two critical sections. The join attempts
    // while a worker runs block: they act on that worker's end, not on every step as
    // `main`'s return does, so they are not tried between each pair of the workers'
    // steps; taken while the worker runs they change nothing at all (`:w`). Every
    // observation is kept, unbounded and bounded.
    let section = [Lock(1), Read(1), Write(1), Unlock(1)];
    let worker = [section, section].concat();
    let p = [vec![Join(1), Join(2)], worker.clone(), worker];
    let (runs, seen) = search_from(&p, Por::Dpor, UNBOUNDED, 0);
    assert_eq!(seen.len(), 6, "{seen:?}");
    // One run per order of the four sections: 612 when every join attempt of `main`
    // counted as its return, 372 when the attempts on the taken lock counted as acting.
    assert_eq!(runs, 6);
    for bound in [0, 1, 2] {
        let (_, none_seen) = search_from(&p, Por::None, bound, 0);
        let (_, seen) = search_from(&p, Por::Dpor, bound, 0);
        assert_eq!(seen, none_seen, "bound {bound}");
    }
}

/// A program of 2 or 3 threads, each of 1 to 3 pieces that `piece` draws.
fn random_program<F: FnMut(u64) -> u64>(
    next: &mut F,
    piece: impl Fn(&mut F) -> Vec<Op>,
) -> Vec<Vec<Op>> {
    let threads = 2 + next(2) as usize;
    (0..threads)
        .map(|_| (0..1 + next(3)).flat_map(|_| piece(next)).collect())
        .collect()
}

/// Small random programs with a semaphore (fixed seed): a wait on it at 0 would only
/// block (`:w`), and dpor, which never takes such a step, still sees every observation
/// the full search sees, unbounded and under preemption bounds 0 to 2; so do sleep sets
/// alone, unbounded.
#[test]
fn reduction_keeps_every_observation_of_random_programs_with_a_semaphore() {
    let mut next = draws(0x2545_F491_4F6C_DD1D);
    let mut programs = 0;
    for _ in 0..300 {
        let p = random_program(&mut next, |next| {
            vec![match next(5) {
                0 => Read(1),
                1 => Write(1),
                2 => Post(1),
                3 => Wait(1),
                _ => Write(2),
            }]
        });
        let ops: Vec<&Op> = p.iter().flatten().collect();
        if ops.len() > 8 || !ops.iter().any(|o| matches!(o, Wait(_))) {
            continue;
        }
        programs += 1;
        for bound in [UNBOUNDED, 0, 1, 2] {
            let (_, none_seen) = search(&p, Por::None, bound);
            let (_, seen) = search(&p, Por::Dpor, bound);
            assert!(
                none_seen.is_subset(&seen),
                "bound {bound}: {p:?} lost {:?}",
                none_seen.difference(&seen).collect::<Vec<_>>()
            );
        }
        // Sleep sets alone (`--por sleep`), unbounded, keep them too.
        let (_, none_seen) = search(&p, Por::None, UNBOUNDED);
        let (_, slept) = search(&p, Por::Sleep, UNBOUNDED);
        assert!(none_seen.is_subset(&slept), "sleep: {p:?}");
    }
    assert!(programs > 60, "{programs} programs");
}

#[test]
fn sleep_sets_do_not_hide_an_order_from_dpor() {
    // T3 reading x before T1 writes it, T2 reading it after, and T2's write of y before
    // T3's: found by the full search, lost by dpor when it used sleep sets unbounded
    // (T1, asleep where T2 had written y, stood for the orders with T1's write first,
    // which do not have T3's read before it). The two waits never return.
    let p = vec![
        vec![Read(1), Write(1)],
        vec![Write(2), Read(1), Wait(1)],
        vec![Read(1), Write(2), Wait(1)],
    ];
    let (_, none_seen) = search(&p, Por::None, UNBOUNDED);
    let (_, seen) = search(&p, Por::Dpor, UNBOUNDED);
    assert_eq!(seen, none_seen);
    // Sleep sets without dpor's races (`--por sleep`) keep it.
    let (_, slept) = search(&p, Por::Sleep, UNBOUNDED);
    assert_eq!(slept, none_seen, "sleep");
}

/// [`Levels`] covers the schedules the depth-first search covers with no reduction, the
/// same number of runs with the same observations; and at every point the runs made
/// plus the schedules it has still to run are at most the runs the whole search makes,
/// so a search that stops when they outnumber its budget never stops one that would
/// have finished (small random programs, bounds 0 to 2 and none).
#[test]
fn levels_cover_what_dfs_covers_and_never_overstate_the_runs_left() {
    let mut next = draws(0x2545_F491_4F6C_DD1D);
    let mut checked = 0;
    for _ in 0..200 {
        let p = random_program(&mut next, |next| match next(3) {
            0 => vec![Write(1 + next(2) as u32)],
            _ => {
                let l = 1 + next(2) as u32;
                vec![Lock(l), Write(1), Unlock(l)]
            }
        });
        if p.iter().map(Vec::len).sum::<usize>() > 8 {
            continue;
        }
        for bound in [0, 1, 2, UNBOUNDED] {
            let (dfs_runs, dfs_seen) = search(&p, Por::None, bound);
            let mut levels = Levels::new(bound);
            let mut prefix = Vec::new();
            let mut seen = BTreeSet::new();
            let mut claims = Vec::new();
            loop {
                let (text, observation) = run(&p, &prefix, 1);
                seen.insert(observation);
                levels.extend(&schedule::parse(&text).unwrap(), prefix.len());
                claims.push(claims.len() + 1 + levels.untried());
                match levels.next_prefix() {
                    Some(next) => prefix = next,
                    None => break,
                }
            }
            assert_eq!(
                (claims.len(), &seen),
                (dfs_runs, &dfs_seen),
                "{p:?}, bound {bound}"
            );
            for (after, claim) in claims.iter().enumerate() {
                assert!(
                    *claim <= dfs_runs,
                    "{p:?} (bound {bound}): after run {} at least {claim} runs claimed, {dfs_runs} made",
                    after + 1
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked} searches");
}
