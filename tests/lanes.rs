//! Runs executed several at a time (`explore -j N`, `ExploreSettings::lanes`) give the
//! search that one at a time gives: the same runs, repeats and phases, the same bug at
//! the same run with the same schedule, input values and trace, also when the bug shows
//! on a lane other than the first, and when the budget ends inside a batch.

mod util;

use std::path::Path;
use syncmut_mutator::interleave::Interleave;
use syncmut_oracle::explore::{self, ExploreSettings, Report};
use syncmut_oracle::schedules::Strategy;
use syncmut_runner::exec::Limits;
use syncmut_runner::Invocation;

/// Explores `source` (built once) with each number of lanes, each in a work directory
/// of its own.
fn with_lanes(
    source: &Path,
    interleave: Interleave,
    settings: ExploreSettings,
    lanes: &[usize],
) -> Vec<Report> {
    let dir = tempfile::tempdir().unwrap();
    let design = syncmut_mutator::Design::from_paths(&[source.to_path_buf()], &[]).unwrap();
    let options = syncmut_mutator::metamutant::Options {
        interleave,
        races: false,
    };
    let metamutant = syncmut_mutator::metamutant::build_with(&design, dir.path(), &options)
        .unwrap()
        .metamutant;
    let program = Invocation {
        active: Some(String::new()),
        limits: Limits::default(),
        ..Invocation::new(&metamutant, &[])
    };
    lanes
        .iter()
        .map(|&n| {
            explore::explore(
                &program,
                &ExploreSettings {
                    lanes: n,
                    ..settings.clone()
                },
                &dir.path().join(format!("lanes-{n}")),
            )
            .unwrap()
        })
        .collect()
}

fn assert_same(what: &str, one: &Report, many: &Report) {
    assert_eq!(many.exec_fallback, None, "{what}: a lane went by exec");
    assert_eq!(
        (
            one.runs,
            one.distinct,
            one.repeats,
            one.saturated,
            one.exhausted,
            one.drew_inputs
        ),
        (
            many.runs,
            many.distinct,
            many.repeats,
            many.saturated,
            many.exhausted,
            many.drew_inputs
        ),
        "{what}"
    );
    assert_eq!(one.phases, many.phases, "{what}");
    match (&one.found, &many.found) {
        (None, None) => {}
        (Some(a), Some(b)) => {
            assert_eq!(
                (&a.kind, a.run, &a.message, &a.schedule_value),
                (&b.kind, b.run, &b.message, &b.schedule_value),
                "{what}"
            );
            assert_eq!(
                (&a.schedule.choices, a.input_seed, &a.given),
                (&b.schedule.choices, b.input_seed, &b.given),
                "{what}"
            );
            assert_eq!(
                (
                    &a.execution.status,
                    &a.execution.stdout,
                    &a.execution.stderr
                ),
                (
                    &b.execution.status,
                    &b.execution.stdout,
                    &b.execution.stderr
                ),
                "{what}"
            );
            assert_eq!(a.trace.events, b.trace.events, "{what}");
        }
        (a, b) => panic!(
            "{what}: one lane found {:?}, several {:?}",
            a.as_ref().map(|f| f.kind.clone()),
            b.as_ref().map(|f| f.kind.clone())
        ),
    }
}

#[test]
fn random_finds_the_same_bug_at_the_same_run_on_any_lane() {
    // Random finds peterson_bad's assertion at run 5: with 2 lanes on the first lane of
    // its batch, with 3 on the second (runs 4, 5, 6), the sixth then dropped unread.
    let source = util::root().join("tests/corpus/busywait/peterson_bad.c");
    let settings = ExploreSettings {
        strategy: Strategy::Random,
        schedules: 100,
        redraw_repeats: true,
        draw_inputs: true,
        ..ExploreSettings::default()
    };
    let reports = with_lanes(&source, Interleave::Memory, settings, &[1, 2, 3]);
    let found = reports[0]
        .found
        .as_ref()
        .expect("random finds peterson_bad's bug");
    assert!(
        found.run > 3 && found.run % 3 == 2,
        "the bug is expected on the second of three lanes, at run {}",
        found.run
    );
    assert_same("peterson_bad, 2 lanes", &reports[0], &reports[1]);
    assert_same("peterson_bad, 3 lanes", &reports[0], &reports[2]);
}

#[test]
fn the_mix_finds_the_same_bug_at_the_same_run() {
    // Found in the mix's seeded phase (holdback's first run, run 38), after the
    // round-robin phase's 36 runs went in batches.
    let source = util::root().join("tests/corpus/twins/reorder_20_bad.c");
    let settings = ExploreSettings {
        strategy: Strategy::Phased {
            deepest: syncmut_oracle::schedules::UNBOUNDED,
            por: syncmut_oracle::schedules::Por::Dpor,
        },
        schedules: 1000,
        draw_inputs: true,
        ..ExploreSettings::default()
    };
    let reports = with_lanes(&source, Interleave::Memory, settings, &[1, 3]);
    assert!(
        reports[0].found.as_ref().is_some_and(|f| f.run > 37),
        "the mix finds reorder_20_bad after its round-robin phase"
    );
    assert_same("reorder_20_bad", &reports[0], &reports[1]);
}

#[test]
fn a_budget_of_distinct_schedules_ends_inside_a_batch_as_it_would_one_by_one() {
    // No bug: 25 distinct schedules with redraws, so the last batch of 2 or 3 is cut at
    // the budget, and repeats redrawn meanwhile count the same.
    let source = util::example("pthread/bugs/lock_order_ok.c");
    let settings = ExploreSettings {
        strategy: Strategy::Random,
        schedules: 25,
        redraw_repeats: true,
        ..ExploreSettings::default()
    };
    let reports = with_lanes(&source, Interleave::Sync, settings, &[1, 2, 3]);
    assert!(
        reports[0].found.is_none() && reports[0].distinct == 25,
        "{} distinct",
        reports[0].distinct
    );
    assert_same("lock_order_ok, 2 lanes", &reports[0], &reports[1]);
    assert_same("lock_order_ok, 3 lanes", &reports[0], &reports[2]);
}
