//! Golden tests of site discovery: small C/C++ fixtures compiled with clang-16, and the
//! exact sites (line, callee) and operators the mutator must report for them.

use std::path::{Path, PathBuf};
use syncmut_mutator::metamutant::scan;
use syncmut_mutator::{Catalogue, Design, MutatorError, Operator};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn catalogue_of(name: &str) -> Catalogue {
    let design = Design::from_paths(&[fixture(name)], &[]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    scan(&design, dir.path())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .catalogue
}

fn sites(catalogue: &Catalogue) -> Vec<(u32, String)> {
    catalogue
        .sites
        .iter()
        .map(|s| (s.line, s.callee.clone()))
        .collect()
}

fn expected(rows: &[(u32, &str)]) -> Vec<(u32, String)> {
    rows.iter().map(|(l, c)| (*l, c.to_string())).collect()
}

#[test]
fn every_systemc_api_and_overload_is_found() {
    let cat = catalogue_of("sc_all_apis.cpp");
    let m = "sc_core::sc_module::";
    let t = "sc_core::sc_time const&";
    let or = "sc_core::sc_event_or_list const&";
    let and = "sc_core::sc_event_and_list const&";
    let ev = "sc_core::sc_event const&";
    let v = "double, sc_core::sc_time_unit";
    let want: Vec<(u32, String)> = vec![
        // The member's construction sets the semaphore's initial count.
        (8, "sc_core::sc_semaphore::sc_semaphore(int)".into()),
        (20, format!("{m}wait()")),
        (21, format!("{m}wait(int)")),
        (22, format!("{m}wait({ev})")),
        (23, format!("{m}wait({or})")),
        (24, format!("{m}wait({and})")),
        (25, format!("{m}wait({t})")),
        (26, format!("{m}wait({v})")),
        (27, format!("{m}wait({t}, {ev})")),
        (28, format!("{m}wait({v}, {ev})")),
        (29, format!("{m}wait({t}, {or})")),
        (30, format!("{m}wait({v}, {or})")),
        (31, format!("{m}wait({t}, {and})")),
        (32, format!("{m}wait({v}, {and})")),
        (33, "sc_core::sc_event::notify()".into()),
        (34, format!("sc_core::sc_event::notify({t})")),
        (35, format!("sc_core::sc_event::notify({v})")),
        (36, format!("sc_core::sc_event::notify({t})")),
        (37, "sc_core::sc_event::cancel()".into()),
        (41, "sc_core::sc_mutex::lock()".into()),
        (42, "sc_core::sc_mutex::trylock()".into()),
        (43, "sc_core::sc_mutex::unlock()".into()),
        (44, "sc_core::sc_semaphore::wait()".into()),
        (45, "sc_core::sc_semaphore::trywait()".into()),
        (46, "sc_core::sc_semaphore::post()".into()),
        (47, "sc_core::sc_fifo<int>::write(int const&)".into()),
        (48, "sc_core::sc_fifo<int>::nb_write(int const&)".into()),
        (49, "sc_core::sc_fifo<int>::read()".into()),
        (50, "sc_core::sc_fifo<int>::read(int&)".into()),
        (51, "sc_core::sc_fifo<int>::nb_read(int&)".into()),
        (55, format!("{m}next_trigger({ev})")),
        (56, format!("{m}next_trigger({v})")),
        (
            60,
            "sc_core::wait(double, sc_core::sc_time_unit, sc_core::sc_simcontext*)".into(),
        ),
        (
            61,
            "sc_core::wait(sc_core::sc_event const&, sc_core::sc_simcontext*)".into(),
        ),
    ];
    assert_eq!(sites(&cat), want);
    // Site numbers follow source order; keys count per function.
    assert!(cat
        .sites
        .iter()
        .enumerate()
        .all(|(i, s)| s.index == i as u32));
    assert_eq!(cat.sites[1].key, "all_apis::waits#1");
    assert_eq!(cat.sites[1].call, "wait()");
    assert_eq!(cat.sites[3].call, "wait(e1)");
    assert_eq!(cat.sites[16].call, "e1.notify(7, SC_NS)");
    assert_eq!(cat.sites[19].key, "all_apis::channels#1");
}

#[test]
fn systemc_operators_follow_the_catalogue() {
    let cat = catalogue_of("sc_all_apis.cpp");
    let ops_at = |line: u32| -> Vec<Operator> {
        cat.mutants
            .iter()
            .filter(|m| m.line == line)
            .map(|m| m.operator)
            .collect()
    };
    use Operator::*;
    assert_eq!(ops_at(22), vec![Remove, EventToTimed, WaitToNotify]);
    assert_eq!(ops_at(23), vec![Remove, EventToTimed, OrToAnd, DropEvent]);
    assert_eq!(ops_at(24), vec![Remove, EventToTimed, AndToOr, DropEvent]);
    // A timeout with an event list: the list loses its first event, the timeout stays.
    for line in [29, 30, 31, 32] {
        assert_eq!(
            ops_at(line),
            vec![Remove, DropEvent, TimeDouble],
            "line {line}"
        );
    }
    // A timeout with one event has no list to drop from.
    assert_eq!(ops_at(27), vec![Remove, TimeDouble]);
    assert_eq!(ops_at(26), vec![Remove, TimeDouble, TimeZero]);
    assert_eq!(
        ops_at(33),
        vec![Remove, NotifyDelta, NotifyTimed, NotifyCancel]
    );
    assert_eq!(ops_at(8), vec![SemaphoreCountUp, SemaphoreCountDown]);
    // mtx.lock() at 41 and mtx.unlock() at 43 in one function: a pair.
    assert_eq!(ops_at(41), vec![Remove, LockToTrylock, RemoveLockPair]);
    assert_eq!(ops_at(44), vec![Remove, WaitToTrywait]);
    assert_eq!(ops_at(47), vec![Remove, BlockingToNonblocking]);
    assert_eq!(ops_at(51), vec![Remove, NonblockingToBlocking]);
    assert_eq!(ops_at(55), vec![Remove, EventToTimed]);
    let ids: Vec<&str> = cat.mutants.iter().map(|m| m.id.as_str()).collect();
    assert!(ids.contains(&"all_apis::waits#3:wait-to-notify"), "{ids:?}");
    let unique: std::collections::HashSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "mutant ids must be unique");
}

#[test]
fn every_pthread_api_is_found() {
    let cat = catalogue_of("pthread_all_apis.c");
    let want = expected(&[
        (16, "pthread_mutex_lock"),
        (17, "pthread_mutex_trylock"),
        (18, "pthread_mutex_timedlock"),
        (19, "pthread_cond_wait"),
        (20, "pthread_cond_timedwait"),
        (21, "pthread_cond_signal"),
        (22, "pthread_cond_broadcast"),
        (23, "pthread_mutex_unlock"),
        (24, "pthread_rwlock_rdlock"),
        (25, "pthread_rwlock_wrlock"),
        (26, "pthread_rwlock_unlock"),
        (27, "pthread_spin_lock"),
        (28, "pthread_spin_unlock"),
        (29, "sem_wait"),
        (30, "sem_trywait"),
        (31, "sem_post"),
        (32, "pthread_barrier_wait"),
        (39, "pthread_join"),
    ]);
    assert_eq!(sites(&cat), want);
    assert_eq!(cat.kind, syncmut_mutator::api::Family::Pthread);
    assert_eq!(cat.sites[0].key, "worker#1");
    assert_eq!(cat.sites[17].key, "main#1");
    assert_eq!(
        cat.mutant("worker#4:wait-to-timedwait").map(|m| m.line),
        Some(19)
    );
}

#[test]
fn overloads_get_distinct_keys_and_user_headers_count() {
    let cat = catalogue_of("overloads.cpp");
    let keys: Vec<(&str, u32)> = cat.sites.iter().map(|s| (s.key.as_str(), s.line)).collect();
    assert_eq!(
        keys,
        vec![
            ("touch(int)#1", 15),
            ("touch(int)#2", 16),
            ("touch(double)#1", 21),
            ("touch(double)#2", 22),
            ("header_lock#1", 4),
            ("header_lock#2", 5),
        ]
    );
}

#[test]
fn a_file_without_sync_calls_gives_an_empty_catalogue() {
    let cat = catalogue_of("no_sync.c");
    assert!(cat.sites.is_empty());
    assert!(cat.mutants.is_empty());
}

#[test]
fn bad_inputs_name_the_file() {
    let missing = Design::from_paths(&[fixture("does_not_exist.c")], &[]).unwrap_err();
    assert!(matches!(missing, MutatorError::InputNotFound(_)));
    assert!(missing.to_string().contains("does_not_exist.c"));

    let unsupported = Design::from_paths(&[fixture("not_a_design.txt")], &[]).unwrap_err();
    assert!(
        matches!(unsupported, MutatorError::UnsupportedInput(_)),
        "{unsupported}"
    );

    let design = Design::from_paths(&[fixture("compile_error.c")], &[]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let err = scan(&design, dir.path()).err().expect("compile error");
    let text = err.to_string();
    assert!(matches!(err, MutatorError::CompileFailed { .. }));
    assert!(
        text.contains("compile_error.c") && text.contains("undeclared_variable"),
        "{text}"
    );
}

/// A mutant that is the original by construction (a zero time made zero, doubled, or
/// turned into a delta notification) is never generated; the site records the operator
/// it left out. Times computed at run time are not looked into.
#[test]
fn mutants_identical_by_construction_are_not_generated() {
    let cat = catalogue_of("sc_zero_time.cpp");
    use Operator::*;
    let at = |line: u32| -> (Vec<Operator>, Vec<Operator>) {
        let site = cat
            .sites
            .iter()
            .find(|s| s.line == line)
            .unwrap_or_else(|| panic!("no site at line {line}"));
        let generated = cat
            .mutants
            .iter()
            .filter(|m| m.line == line)
            .map(|m| m.operator)
            .collect();
        (generated, site.equivalent.clone())
    };
    // notify(SC_ZERO_TIME), notify(0, SC_NS), notify(sc_time(0, SC_NS)); notify(2, SC_NS) keeps it.
    for line in [16, 17, 18] {
        assert_eq!(
            at(line),
            (
                vec![Remove, NotifyImmediate, NotifyCancel],
                vec![NotifyDelta]
            ),
            "line {line}"
        );
    }
    assert_eq!(
        at(19),
        (
            vec![Remove, NotifyDelta, NotifyImmediate, NotifyCancel],
            vec![]
        )
    );
    // wait(SC_ZERO_TIME), wait(0, SC_NS), wait(sc_time()); wait(SC_ZERO_TIME, e) has no time-zero.
    for line in [20, 21, 22] {
        assert_eq!(
            at(line),
            (vec![Remove], vec![TimeDouble, TimeZero]),
            "line {line}"
        );
    }
    assert_eq!(at(23), (vec![Remove], vec![TimeDouble]));
    assert_eq!(at(24), (vec![Remove, TimeDouble, TimeZero], vec![]));
    // A local variable and a member holding zero: not proven, generated.
    assert_eq!(at(25), (vec![Remove, TimeDouble, TimeZero], vec![]));
    assert_eq!(at(26), (vec![Remove, TimeDouble, TimeZero], vec![]));
    // next_trigger(SC_ZERO_TIME) in a method.
    assert_eq!(at(30), (vec![Remove], vec![TimeDouble, TimeZero]));
}

/// No example's catalogue holds a mutant that is the original by construction: none of
/// `notify-delta`, `time-double`, `time-zero` on a call whose time is written as zero.
#[test]
fn no_example_catalogue_holds_a_mutant_identical_by_construction() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/systemc");
    let zero_spelled = |call: &str| {
        let call = call.replace(' ', "");
        call.contains("SC_ZERO_TIME")
            || call.contains("(0,")
            || call.contains("(0.0,")
            || call.contains("sc_time()")
    };
    let mut left_out = 0;
    for entry in std::fs::read_dir(&examples).unwrap() {
        let dir = entry.unwrap().path();
        let design = Design::from_paths(std::slice::from_ref(&dir), &[]).unwrap();
        let work = tempfile::tempdir().unwrap();
        let cat = scan(&design, work.path())
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .catalogue;
        for m in &cat.mutants {
            let by_construction = matches!(
                m.operator,
                Operator::NotifyDelta | Operator::TimeDouble | Operator::TimeZero
            ) && zero_spelled(&m.call);
            assert!(
                !by_construction,
                "{}: {} is the original by construction",
                dir.display(),
                m.id
            );
        }
        left_out += cat.sites.iter().map(|s| s.equivalent.len()).sum::<usize>();
    }
    // redundant_sync's two notify(SC_ZERO_TIME) and its wait(SC_ZERO_TIME).
    assert_eq!(
        left_out, 4,
        "mutants left out as identical by construction across the examples"
    );
}

#[test]
fn every_std_api_is_found_at_the_users_line() {
    let design =
        Design::from_paths(&[fixture("std_all_apis.cpp")], &["-std=c++20".to_string()]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let scan = scan(&design, dir.path()).unwrap();
    let cat = scan.catalogue;
    let ul = "std::unique_lock<std::mutex>::";
    let want = expected(&[
        // A global semaphore is constructed at start-up; a global latch is constant-initialised (no call).
        (17, "std::counting_semaphore<(long)4>::counting_semaphore(long)"),
        (22, "std::mutex::lock()"),
        (23, "std::mutex::try_lock()"),
        (24, "std::mutex::unlock()"),
        (25, "std::recursive_mutex::lock()"),
        (26, "std::recursive_mutex::unlock()"),
        (27, "std::timed_mutex::lock()"),
        (28, "std::timed_mutex::unlock()"),
        (29, "std::shared_mutex::lock_shared()"),
        (30, "std::shared_mutex::unlock_shared()"),
        (31, "std::lock_guard<std::mutex>::lock_guard(std::mutex&)"),
        (31, "std::lock_guard<std::mutex>::~lock_guard()"),
        (32, "std::scoped_lock<std::mutex>::scoped_lock(std::mutex&)"),
        (32, "std::scoped_lock<std::mutex>::~scoped_lock()"),
        (33, "std::shared_lock<std::shared_mutex>::shared_lock(std::shared_mutex&)"),
        (33, "std::shared_lock<std::shared_mutex>::~shared_lock()"),
        (34, &format!("{ul}unique_lock(std::mutex&)")),
        (35, "std::condition_variable::wait(std::unique_lock<std::mutex>&)"),
        (36, "void std::condition_variable::wait<worker()::$_0>(std::unique_lock<std::mutex>&, worker()::$_0)"),
        (37, &format!("{ul}unlock()")),
        (38, &format!("{ul}lock()")),
        (39, "std::condition_variable::notify_one()"),
        (40, "std::condition_variable::notify_all()"),
        (41, "std::cv_status std::condition_variable::wait_for<…>"),
        (42, "std::counting_semaphore<(long)4>::acquire()"),
        (43, "std::latch::count_down()"),
        (44, &format!("{ul}~unique_lock()")),
        (44, &format!("{ul}~unique_lock()")),
        (48, "std::thread::join()"),
    ]);
    // Template instances print their arguments; compare the name up to them.
    let found: Vec<(u32, String)> = sites(&cat)
        .into_iter()
        .map(|(line, callee)| match callee.split_once("wait_for<") {
            Some((head, _)) => (line, format!("{head}wait_for<…>")),
            None => (line, callee),
        })
        .collect();
    assert_eq!(found, want);
    assert_eq!(cat.kind, syncmut_mutator::api::Family::Pthread);
    let ops = |key: &str| {
        cat.sites
            .iter()
            .find(|s| s.key == key)
            .unwrap_or_else(|| panic!("{key}"))
            .operators
            .clone()
    };
    assert_eq!(ops("worker#1"), [Operator::Remove, Operator::LockToTrylock]);
    assert_eq!(
        ops("worker#10"),
        [Operator::Remove, Operator::LockToTrylock],
        "a guard's construction"
    );
    assert!(
        ops("worker#11").is_empty(),
        "a guard's destruction has no mutants of its own"
    );
    assert_eq!(
        ops("worker#18"),
        [Operator::Remove],
        "a predicate wait: remove only"
    );
    assert_eq!(
        ops("worker#21"),
        [Operator::Remove, Operator::SignalToBroadcast]
    );
    // Removing a guard takes its destruction (and a unique_lock's own calls) with it.
    let guard = cat.mutant("worker#10:remove").unwrap();
    assert_eq!(guard.sites.len(), 2);
    let unique = cat.mutant("worker#16:remove").unwrap();
    let spanned: Vec<&str> = unique
        .sites
        .iter()
        .map(|s| cat.sites[*s as usize].callee.as_str())
        .collect();
    assert_eq!(spanned.len(), 5, "{spanned:?}");
    assert!(
        spanned[1..].iter().all(|c| c.starts_with(ul)),
        "{spanned:?}"
    );
    assert_eq!(
        cat.mutant("worker#10:lock-to-trylock").unwrap().sites.len(),
        1
    );
    // The lock/unlock pair of a std::mutex is a region like a pthread one.
    assert!(cat.mutant("worker#1:remove-lock-pair").is_some());
    assert!(
        scan.warnings.iter().all(|w| !w.contains("does not model")),
        "{:?}",
        scan.warnings
    );
}

#[test]
fn every_cpp20_primitive_is_found_at_the_users_line() {
    let design = Design::from_paths(
        &[fixture("cpp20_all_apis.cpp")],
        &["-std=c++20".to_string()],
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let scan = scan(&design, dir.path()).unwrap();
    let cat = scan.catalogue;
    let sem = "std::counting_semaphore<(long)4>::";
    let bar = "std::barrier<std::__empty_completion>::";
    let sl = "std::scoped_lock<std::mutex, std::timed_mutex>::";
    let want = expected(&[
        (17, &format!("{sem}acquire()")),
        (18, &format!("{sem}try_acquire()")),
        (19, &format!("{sem}release(long)")),
        (20, "std::counting_semaphore<(long)1>::release(long)"),
        (21, "std::latch::count_down()"),
        (22, "std::latch::wait()"),
        (23, &format!("{bar}arrive_and_wait()")),
        (24, &format!("{bar}wait({bar}arrival_token&&) const")),
        (24, &format!("{bar}arrive(long)")),
        (25, &format!("{bar}arrive_and_drop()")),
        (26, "std::atomic::wait()"),
        (27, "std::atomic::notify_one()"),
        (28, "std::atomic::notify_all()"),
        (30, "bool std::timed_mutex::try_lock_for<…>"),
        // (the demangler prints std::lock's empty parameter pack as a trailing `, `)
        (
            33,
            "void std::lock<std::timed_mutex, std::mutex, >(std::timed_mutex&, std::mutex&, &)",
        ),
        (
            34,
            &format!("{sl}scoped_lock(std::mutex&, std::timed_mutex&)"),
        ),
        (34, &format!("{sl}~scoped_lock()")),
        (35, "std::jthread::request_stop()"),
        (35, "std::jthread::join()"),
        (
            39,
            "std::counting_semaphore<(long)4>::counting_semaphore(long)",
        ),
        (
            40,
            "std::counting_semaphore<(long)1>::counting_semaphore(long)",
        ),
        (41, "std::latch::latch(long)"),
        (
            42,
            "std::barrier<std::__empty_completion>::barrier(long, std::__empty_completion)",
        ),
        (44, "std::thread::join()"),
    ]);
    let found: Vec<(u32, String)> = sites(&cat)
        .into_iter()
        .map(|(line, callee)| match callee.split_once("try_lock_for<") {
            Some((head, _)) => (line, format!("{head}try_lock_for<…>")),
            None => (line, callee),
        })
        .collect();
    assert_eq!(found, want);
    let ops = |line: u32, callee: &str| {
        cat.sites
            .iter()
            .find(|s| s.line == line && s.callee.contains(callee))
            .unwrap_or_else(|| panic!("{line} {callee}"))
            .operators
            .clone()
    };
    use Operator::*;
    assert_eq!(ops(17, "acquire"), [Remove]);
    assert_eq!(ops(27, "notify_one"), [Remove, SignalToBroadcast]);
    assert_eq!(ops(28, "notify_all"), [Remove, BroadcastToSignal]);
    assert_eq!(ops(30, "try_lock_for"), [Remove]);
    assert_eq!(
        ops(33, "std::lock<"),
        [Remove],
        "std::lock avoids deadlock by itself: no order to swap"
    );
    assert_eq!(ops(34, "::scoped_lock("), [Remove]);
    assert!(
        ops(34, "~scoped_lock").is_empty(),
        "a guard's destruction has no mutants of its own"
    );
    assert_eq!(
        ops(39, "counting_semaphore(long)"),
        [SemaphoreCountUp, SemaphoreCountDown]
    );
    assert_eq!(
        ops(40, "counting_semaphore(long)"),
        [SemaphoreCountUp],
        "a semaphore of 0 cannot lose a token"
    );
    assert_eq!(
        ops(41, "latch(long)"),
        [BarrierCountUp],
        "a latch of 1 is at the floor"
    );
    assert_eq!(ops(42, "barrier(long"), [BarrierCountUp]);
    // Removing a scoped_lock of two mutexes takes its destruction with it.
    let both = cat
        .mutants
        .iter()
        .find(|m| m.operator == Remove && cat.sites[m.sites[0] as usize].line == 34)
        .unwrap();
    assert_eq!(both.sites.len(), 2);
    assert!(cat.mutants.iter().all(|m| m.operator != SwapLockOrder));
    // What is still not modelled is named with its line.
    let note = scan
        .warnings
        .iter()
        .find(|w| w.contains("does not model"))
        .expect("a warning about the unmodelled calls");
    for (line, what) in [(29, "try_acquire_for"), (32, "std::condition_variable_any")] {
        assert!(
            note.contains(&format!("cpp20_all_apis.cpp:{line}")) && note.contains(what),
            "{line} {what}: {note}"
        );
    }
    assert!(
        !note.contains("cpp20_all_apis.cpp:30") && !note.contains("jthread"),
        "{note}"
    );
}
