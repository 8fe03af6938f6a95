//! The table's tests across families: unique signatures and wrappers, demangled names
//! that match rows, effects naming the original call's arguments, observed functions
//! that are never sites, and the pattern-recognised templates.

use super::observed::OBSERVED;
use super::*;
use crate::effect::{Access, Blocking, Until, When};
use crate::operator::Operator;
use Operator::*;

#[test]
fn signatures_and_wrappers_are_unique() {
    let mut sigs = std::collections::HashSet::new();
    let mut wrappers = std::collections::HashSet::new();
    for api in all() {
        assert!(sigs.insert(&api.signature), "{}", api.signature);
        // The std rows share wrappers: libstdc++ builds several classes on one pthread object.
        if !api.wrapper.starts_with("syncmut_std_") {
            assert!(wrappers.insert(&api.wrapper), "{}", api.wrapper);
        }
        // Every call can be removed except an initialisation, which can only be
        // miscounted, and a guard's destruction, which its construction's `remove` takes away.
        let initializes = matches!(api.effect, Effect::Initialize { .. });
        let guard_release =
            guard_call(&api.signature) == Some(GuardCall::Member) && api.signature.contains("::~");
        assert_eq!(
            api.operators.first() == Some(&Operator::Remove),
            !initializes && !guard_release,
            "{}",
            api.signature
        );
    }
}

#[test]
fn demangled_names_match_the_table() {
    let cases = [
        (
            "_ZN7sc_core9sc_module4waitERKNS_8sc_eventE",
            "syncmut_sc_module_wait_event",
        ),
        (
            "_ZN7sc_core9sc_module4waitEdNS_12sc_time_unitE",
            "syncmut_sc_module_wait_value",
        ),
        (
            "_ZN7sc_core4waitERKNS_7sc_timeEPNS_13sc_simcontextE",
            "syncmut_sc_wait_time",
        ),
        ("_ZN7sc_core4waitEPNS_13sc_simcontextE", "syncmut_sc_wait"),
        ("_ZN7sc_core8sc_event6notifyEv", "syncmut_sc_event_notify"),
        ("pthread_mutex_lock", "syncmut_pthread_mutex_lock"),
        (
            "_ZN7sc_core12sc_semaphoreC1Ei",
            "syncmut_sc_semaphore_construct",
        ),
        (
            "_ZN7sc_core12sc_semaphoreC1EPKci",
            "syncmut_sc_semaphore_construct_named",
        ),
        ("_ZNSt5mutex4lockEv", "syncmut_std_mutex_lock"),
        (
            "_ZNSt15recursive_mutex6unlockEv",
            "syncmut_std_mutex_unlock",
        ),
        (
            "_ZNSt10lock_guardISt5mutexEC2ERS0_",
            "syncmut_std_lock_guard",
        ),
        (
            "_ZNSt10lock_guardISt5mutexED2Ev",
            "syncmut_std_lock_guard_release",
        ),
        (
            "_ZNSt11scoped_lockIJSt5mutexEEC2ERS0_",
            "syncmut_std_lock_guard",
        ),
        (
            "_ZNSt11unique_lockISt5mutexE6unlockEv",
            "syncmut_std_unique_lock_unlock",
        ),
        (
            "_ZNSt11shared_lockISt12shared_mutexEC2ERS0_",
            "syncmut_std_shared_lock",
        ),
        (
            "_ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE",
            "syncmut_std_condition_variable_wait",
        ),
        (
            "_ZNSt18condition_variable10notify_allEv",
            "syncmut_std_condition_variable_notify_all",
        ),
        ("_ZNSt6thread4joinEv", "syncmut_std_thread_join"),
    ];
    for (mangled, wrapper) in cases {
        let sig = demangle(mangled);
        let api = lookup(&sig).unwrap_or_else(|| panic!("{mangled} → {sig} not found"));
        assert_eq!(api.wrapper, wrapper);
    }
    assert!(lookup(&demangle("_ZN7sc_core8sc_eventC2Ev")).is_none());
    // A predicate wait is a template: recognised by pattern, a trampoline per instance.
    let predicate = lookup(&demangle(
        "_ZNSt18condition_variable4waitIZ4workvE3$_0EEvRSt11unique_lockISt5mutexET_",
    ))
    .unwrap();
    assert_eq!(
        predicate.rewrite,
        Rewrite::UserTrampoline {
            gate: crate::user_gate::PTHREAD_GATE
        }
    );
    assert_eq!(
        guard_call(&demangle("_ZNSt11unique_lockISt5mutexED2Ev")),
        Some(GuardCall::Member)
    );
    assert_eq!(
        guard_call(&demangle("_ZNSt10lock_guardISt5mutexEC2ERS0_")),
        Some(GuardCall::Construct)
    );
    assert_eq!(guard_call("std::mutex::lock()"), None);
    let timed = lookup(&demangle("_ZNSt18condition_variable8wait_forIlSt5ratioILl1ELl1000EEEESt9cv_statusRSt11unique_lockISt5mutexERKNSt6chrono8durationIT_T0_EE")).unwrap();
    assert_eq!(
        timed.effect,
        Effect::CondWait {
            cond: 0,
            mutex: 1,
            timed: true
        }
    );
    // A timed lock is a site; its inner clocklock a scheduling point.
    let timed_lock = lookup(&demangle(
        "_ZNSt11timed_mutex12try_lock_forIlSt5ratioILl1ELl1000EEEEbRKNSt6chrono8durationIT_T0_EE",
    ))
    .unwrap();
    assert_eq!(
        timed_lock.effect,
        Effect::Lock {
            lock: 0,
            blocking: Blocking::Timed
        }
    );
    assert!(library_call("pthread_mutex_clocklock").is_some());
}

#[test]
fn cpp20_members_are_recognised() {
    let api = |mangled: &str| {
        let sig = demangle(mangled);
        lookup(&sig).unwrap_or_else(|| panic!("{mangled} → {sig} not found"))
    };
    assert_eq!(
        api("_ZNSt18counting_semaphoreILl4EE7acquireEv").effect,
        Effect::SemaphoreWait {
            semaphore: 0,
            blocking: Blocking::Waits
        }
    );
    assert_eq!(
        api("_ZNSt18counting_semaphoreILl1EE7releaseEl").effect,
        Effect::SemaphorePost { semaphore: 0 }
    );
    assert_eq!(
        api("_ZNSt18counting_semaphoreILl4EE11try_acquireEv").effect,
        Effect::SemaphoreWait {
            semaphore: 0,
            blocking: Blocking::Tries
        }
    );
    assert_eq!(
        api("_ZNSt18counting_semaphoreILl4EEC2El").operators,
        vec![SemaphoreCountUp, SemaphoreCountDown]
    );
    assert_eq!(
        api("_ZNSt5latchC2El").operators,
        vec![BarrierCountUp, BarrierCountDown]
    );
    assert_eq!(
        api("_ZNSt7barrierISt18__empty_completionEC2ElS0_").operators,
        vec![BarrierCountUp, BarrierCountDown]
    );
    assert_eq!(
        api("_ZNSt7barrierISt18__empty_completionE15arrive_and_waitEv").effect,
        Effect::Barrier { barrier: 0 }
    );
    assert_eq!(
        api("_ZNSt7barrierISt18__empty_completionE6arriveEl").effect,
        Effect::Arrive { barrier: 0 }
    );
    assert_eq!(
        api("_ZNKSt7barrierISt18__empty_completionE4waitEONS1_13arrival_tokenE").effect,
        Effect::Barrier { barrier: 0 }
    );
    // libstdc++'s futex wait, wake and yield: scheduling points in library code.
    for (mangled, wrapper) in [
            ("_ZNSt8__detail15__platform_waitIiEEvPKT_i", "syncmut_std_platform_wait"),
            ("_ZNSt8__detail17__platform_notifyIiEEvPKT_b", "syncmut_std_platform_notify"),
            ("_ZNSt8__detail14__thread_yieldEv", "syncmut_std_thread_yield"),
            ("_ZNSt8__detail26__platform_wait_until_implINSt6chrono8durationIlSt5ratioILl1ELl1000000000EEEEEEbPKiiRKNS2_10time_pointINS2_3_V212steady_clockET_EE", "syncmut_std_platform_wait_until"),
            // A future's wait and wake.
            ("_ZNSt28__atomic_futex_unsigned_base19_M_futex_wait_untilEPjjbNSt6chrono8durationIlSt5ratioILl1ELl1EEEENS2_IlS3_ILl1ELl1000000000EEEE", "syncmut_std_futex_wait_until"),
            ("_ZNSt28__atomic_futex_unsigned_base26_M_futex_wait_until_steadyEPjjbNSt6chrono8durationIlSt5ratioILl1ELl1EEEENS2_IlS3_ILl1ELl1000000000EEEE", "syncmut_std_futex_wait_until_steady"),
            ("_ZNSt28__atomic_futex_unsigned_base19_M_futex_notify_allEPj", "syncmut_std_futex_notify_all"),
        ] {
            let sig = demangle(mangled);
            assert_eq!(library_call(&sig).map(|a| a.wrapper), Some(wrapper.to_string()), "{sig}");
        }
    // Inlined members are named by the header the user's call entered.
    let notify = "void std::__atomic_notify_address<int>(int const*, bool)";
    assert_eq!(
        cpp20_inlined(notify, "/usr/include/c++/12/latch", Some(true))
            .unwrap()
            .signature,
        "std::latch::count_down()"
    );
    assert_eq!(
        cpp20_inlined(
            notify,
            "/usr/include/c++/12/bits/atomic_base.h",
            Some(false)
        )
        .unwrap()
        .operators,
        vec![Remove, SignalToBroadcast]
    );
    assert_eq!(
        cpp20_inlined(notify, "/usr/include/c++/12/bits/atomic_base.h", Some(true))
            .unwrap()
            .operators,
        vec![Remove, BroadcastToSignal]
    );
    // One trampoline per callee serves a latch's and an atomic's notify alike.
    let rewrite = |header: &str| cpp20_inlined(notify, header, Some(false)).unwrap().rewrite;
    assert_eq!(
        rewrite("/usr/include/c++/12/latch"),
        rewrite("/usr/include/c++/12/bits/atomic_base.h")
    );
    // The timed acquisitions spin on the real clock: still a warning.
    assert!(std_unmodelled(&demangle("_ZNSt18counting_semaphoreILl4EE15try_acquire_forIlSt5ratioILl1ELl1000EEEEbRKNSt6chrono8durationIT_T0_EE")).is_some());
}

#[test]
fn effects_name_the_arguments_of_the_original_call() {
    let effect = |sig: &str| {
        lookup(sig)
            .unwrap_or_else(|| panic!("{sig} not found"))
            .effect
    };
    // Member forms count the object as argument 0; the free forms do not.
    assert_eq!(
        effect("sc_core::sc_module::wait(sc_core::sc_event const&)"),
        Effect::Wait {
            until: Until::Event { event: 1 }
        }
    );
    assert_eq!(
        effect("sc_core::wait(sc_core::sc_event const&, sc_core::sc_simcontext*)"),
        Effect::Wait {
            until: Until::Event { event: 0 }
        }
    );
    assert_eq!(
            effect("sc_core::sc_prim_channel::next_trigger(double, sc_core::sc_time_unit, sc_core::sc_event_or_list const&)"),
            Effect::NextTrigger { until: Until::TimeOrEvents { events: 3 } }
        );
    assert_eq!(
        effect("sc_core::sc_event::notify_delayed()"),
        Effect::Notify {
            event: 0,
            when: When::Delta
        }
    );
    assert_eq!(
        effect("pthread_cond_timedwait"),
        Effect::CondWait {
            cond: 0,
            mutex: 1,
            timed: true
        }
    );
    assert_eq!(
        effect("sc_core::sc_fifo<int>::nb_write(int const&)"),
        Effect::Fifo {
            fifo: 0,
            access: Access::Write,
            blocking: false
        }
    );
    assert_eq!(
        effect("sc_core::sc_fifo_in<int>::read()"),
        Effect::Fifo {
            fifo: 0,
            access: Access::Read,
            blocking: true
        }
    );
}

#[test]
fn observed_functions_match_every_overload_and_are_never_sites() {
    let effect = |sig: &str| observed(sig).map(|api| api.effect);
    assert_eq!(
        effect("pthread_create"),
        Some(Effect::CreateThread {
            routine: 2,
            data: 3
        })
    );
    assert_eq!(effect("sc_core::sc_start()"), Some(Effect::StartSimulation));
    assert_eq!(
        effect("sc_core::sc_start(sc_core::sc_time const&, sc_core::sc_starvation_policy)"),
        Some(Effect::StartSimulation)
    );
    assert_eq!(
            effect("sc_core::sc_simcontext::create_method_process(char const*, bool, void (sc_core::sc_process_host::*)(), sc_core::sc_process_host*, sc_core::sc_spawn_options const*)"),
            Some(Effect::RegisterProcess)
        );
    assert_eq!(
            effect("sc_core::sc_simcontext::create_cthread_process(char const*, bool, void (sc_core::sc_process_host::*)(), sc_core::sc_process_host*, sc_core::sc_spawn_options const*)"),
            Some(Effect::RegisterProcess)
        );
    assert_eq!(effect("sc_core::sc_start_of_simulation_invoked()"), None);
    for api in OBSERVED {
        assert!(
            lookup(api.name).is_none()
                && all()
                    .iter()
                    .all(|site| !site.signature.starts_with(api.name)),
            "{} is also a site",
            api.name
        );
    }
}

#[test]
fn fifo_templates_are_recognised_with_their_counterparts() {
    let counterpart = |sig: &str| match lookup(sig).map(|a| a.rewrite) {
        Some(Rewrite::FifoTrampoline { counterpart, .. }) => counterpart,
        other => panic!("{sig}: {other:?}"),
    };
    assert_eq!(
        counterpart("sc_core::sc_fifo<int>::read()"),
        "sc_core::sc_fifo<int>::nb_read(int&)"
    );
    assert_eq!(
        counterpart("sc_core::sc_fifo<int>::read(int&)"),
        "sc_core::sc_fifo<int>::nb_read(int&)"
    );
    assert_eq!(
        counterpart("sc_core::sc_fifo<int>::nb_write(int const&)"),
        "sc_core::sc_fifo<int>::write(int const&)"
    );
    assert_eq!(
        counterpart("sc_core::sc_fifo_in<std::pair<int, int> >::read()"),
        "sc_core::sc_fifo_in<std::pair<int, int> >::nb_read(std::pair<int, int>&)"
    );
    assert!(lookup("sc_core::sc_fifo<int>::num_free() const").is_none());
    assert!(lookup("sc_core::sc_fifo<int>::update()").is_none());
    assert!(lookup("my::sc_fifo<int>::read()").is_none());
}
