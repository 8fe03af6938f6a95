//! One run of a design binary (the metamutant or the uninstrumented original) the way the
//! runtime protocol asks for it: program and arguments, then everything the runtime reads
//! from the environment (the active mutant, where to write the trace and the schedule, the
//! schedule to follow, the step bound, the test's input values) and the run's limits.
//! Every place that runs a design builds one [`Invocation`], so the environment is spelled
//! in one place.
//!
//! **Where it runs.** Every run gets a fresh private working directory
//! ([`crate::workdir`]) made from its test's `files`, under [`Invocation::work_root`]
//! (the run directory's `work/` for `syncmut run`) or the system's temporary directory;
//! paths handed to the runtime are made absolute first, since the design does not run
//! in syncmut's directory. A test's `cmd` runs in place of the program, which it finds
//! as `$SYNCMUT_BIN`.
//!
//! **Timeouts.** A run that has a reference time (the original's baseline time on the
//! test for a mutant, the judged run's time for a replay) gets [`timeout_after`]: the
//! reference × 5 + 2 s. The factor absorbs a mutant that legitimately does more work and a
//! loaded machine; the margin keeps runs of a few milliseconds from timing out on
//! start-up noise. Runs without a reference use fixed limits set by their caller (the
//! baseline's 20 s, a confirming run's or an exploration run's 10 s).

use crate::exec::{self, Execution, Limits};
use crate::fork_server::ForkServer;
use crate::test_case::{Setting, TestCase};
use crate::workdir::Workdir;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use syncmut_runtime::env;
use syncmut_runtime::schedule::ScheduleKind;

/// How many times its reference time a run may take ([`timeout_after`]).
pub const TIMEOUT_FACTOR: u32 = 5;
/// Added to every derived timeout ([`timeout_after`]).
pub const TIMEOUT_MARGIN: Duration = Duration::from_secs(2);

/// The timeout of a run whose comparable run took `reference`: `reference × 5 + 2 s`.
pub fn timeout_after(reference: Duration) -> Duration {
    reference * TIMEOUT_FACTOR + TIMEOUT_MARGIN
}

/// One run of a design binary and the environment the runtime reads. `None` leaves a
/// variable unset (the runtime's default), which is not always the same as empty: an
/// unset `SYNCMUT_SCHEDULE` runs threads natively, an unset trace records nothing.
#[derive(Debug, Clone)]
pub struct Invocation {
    /// The executable.
    pub program: PathBuf,
    /// argv after the program name.
    pub args: Vec<String>,
    /// `SYNCMUT_ACTIVE`: the mutant's activation (`""`: none).
    pub active: Option<String>,
    /// `SYNCMUT_TRACE`: where the runtime writes the trace.
    pub trace: Option<PathBuf>,
    /// `SYNCMUT_SCHEDULE`: the scheduler's strategy (pthread designs).
    pub schedule: Option<String>,
    /// `SYNCMUT_SCHEDULE_OUT`: where the scheduler records its choices.
    pub schedule_out: Option<PathBuf>,
    /// `SYNCMUT_RECORD_STEPS`: whether the schedule file has the run points with one
    /// option (`# step` lines; `None`: it has them). Only the partial-order reduction
    /// reads them.
    pub record_steps: Option<bool>,
    /// `SYNCMUT_RECORD_DETAIL`: whether the schedule file gives each option's site,
    /// objects and flags (`None`: it does) or its thread alone, which is all that
    /// following a run and comparing two runs' choices read.
    pub record_detail: Option<bool>,
    /// `SYNCMUT_RACES_OUT`: where the scheduler's race detector writes the races it
    /// found ([`syncmut_runtime::races`]); needs a metamutant built with its accesses instrumented.
    pub races_out: Option<PathBuf>,
    /// `SYNCMUT_MAX_STEPS`: the scheduler's livelock bound.
    pub max_steps: Option<u64>,
    /// `SYNCMUT_THREAD_BOUND`: threads the run may create (main not counted).
    pub thread_bound: Option<u32>,
    /// `SYNCMUT_REPEAT_WINDOW`: points past the step budget in which a repeated state
    /// is looked for before the run is called a livelock.
    pub repeat_window: Option<u64>,
    /// `SYNCMUT_INPUT_LOG`: where the runtime logs the input values it hands out.
    pub input_log: Option<PathBuf>,
    /// `SYNCMUT_NONDET`: `__VERIFIER_nondet_*()` values in call order (unset when empty).
    pub nondet: Vec<i128>,
    /// `SYNCMUT_NONDET_SEED`: draw the values of nondet calls past `nondet`, and of named
    /// inputs not in `inputs`, from this seeded stream (unset: 0 for both).
    pub nondet_seed: Option<u64>,
    /// `SYNCMUT_INPUTS`: named input values (unset when empty).
    pub inputs: BTreeMap<String, i64>,
    /// `SYNCMUT_ENTROPY`: another virtual world (clock start, random stream); unset
    /// inherits syncmut's own environment (the default world, 0).
    pub entropy: Option<u32>,
    /// `SYNCMUT_SIM_PROBE`: SystemC, cut the simulation after this many wall ms and
    /// print the simulated time reached (see [`syncmut_runtime::env::SIM_PROBE`]).
    pub sim_probe_ms: Option<u64>,
    /// Time, memory and output bounds.
    pub limits: Limits,
    /// The test's stdin, files, environment, command and outputs.
    pub setting: Setting,
    /// Where the run's private working directory is made (`None`: the system's
    /// temporary directory).
    pub work_root: Option<PathBuf>,
}

/// The variable a test's `cmd` finds the program in.
pub const BIN_VAR: &str = "SYNCMUT_BIN";

impl Invocation {
    /// `program args` with nothing set for the runtime and the default limits.
    pub fn new(program: &Path, args: &[String]) -> Invocation {
        Invocation {
            program: program.to_path_buf(),
            args: args.to_vec(),
            active: None,
            trace: None,
            schedule: None,
            schedule_out: None,
            record_steps: None,
            record_detail: None,
            races_out: None,
            max_steps: None,
            thread_bound: None,
            repeat_window: None,
            input_log: None,
            nondet: Vec::new(),
            nondet_seed: None,
            inputs: BTreeMap::new(),
            entropy: None,
            sim_probe_ms: None,
            limits: Limits::default(),
            setting: Setting::default(),
            work_root: None,
        }
    }

    /// `program` on a test: its arguments and its input values.
    pub fn for_test(program: &Path, test: &TestCase) -> Invocation {
        Invocation {
            nondet: test.nondet.clone(),
            inputs: test.inputs.clone(),
            ..Invocation::in_setting(program, test)
        }
    }

    /// `program` on a test's arguments and setting, without its input values.
    pub fn in_setting(program: &Path, test: &TestCase) -> Invocation {
        Invocation {
            setting: test.setting.clone(),
            ..Invocation::new(program, &test.args)
        }
    }

    /// The variables this invocation sets, in a fixed order.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let path = |p: &PathBuf| absolute(p).display().to_string();
        let mut vars = Vec::new();
        vars.extend(self.active.clone().map(|v| (env::ACTIVE, v)));
        vars.extend(self.trace.as_ref().map(|p| (env::TRACE, path(p))));
        // A schedule read from a file names it absolutely: runs start in a working
        // directory of their own, where a relative path (from `-o out`) names nothing.
        vars.extend(self.schedule.clone().map(|v| {
            let from_file = [ScheduleKind::Replay, ScheduleKind::Follow];
            match from_file.into_iter().find_map(|k| {
                let file = v.strip_prefix(k.name())?.strip_prefix(':')?;
                Some((k.name(), file))
            }) {
                Some((kind, file)) => (
                    env::SCHEDULE,
                    format!("{kind}:{}", absolute(Path::new(file)).display()),
                ),
                None => (env::SCHEDULE, v),
            }
        }));
        vars.extend(
            self.schedule_out
                .as_ref()
                .map(|p| (env::SCHEDULE_OUT, path(p))),
        );
        vars.extend(
            self.record_steps
                .map(|on| (env::RECORD_STEPS, u8::from(on).to_string())),
        );
        vars.extend(
            self.record_detail
                .map(|on| (env::RECORD_DETAIL, u8::from(on).to_string())),
        );
        vars.extend(self.races_out.as_ref().map(|p| (env::RACES_OUT, path(p))));
        vars.extend(self.max_steps.map(|n| (env::MAX_STEPS, n.to_string())));
        vars.extend(
            self.thread_bound
                .map(|n| (env::THREAD_BOUND, n.to_string())),
        );
        vars.extend(
            self.repeat_window
                .map(|n| (env::REPEAT_WINDOW, n.to_string())),
        );
        vars.extend(self.input_log.as_ref().map(|p| (env::INPUT_LOG, path(p))));
        vars.extend(self.entropy.map(|n| (env::ENTROPY, n.to_string())));
        vars.extend(self.sim_probe_ms.map(|ms| (env::SIM_PROBE, ms.to_string())));
        vars.extend(self.nondet_seed.map(|n| (env::NONDET_SEED, n.to_string())));
        vars.extend(
            self.setting
                .sim_time
                .map(|t| (env::SIM_UNTIL, t.ns.to_string())),
        );
        if !self.nondet.is_empty() {
            vars.push((
                env::NONDET,
                self.nondet
                    .iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
            ));
        }
        if !self.inputs.is_empty() {
            vars.push((
                env::INPUTS,
                self.inputs
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(","),
            ));
        }
        vars
    }

    /// Runs it, contained ([`exec::execute_in`]), in a fresh working directory that is
    /// removed afterwards.
    pub fn run(&self) -> std::io::Result<Execution> {
        self.run_keeping().map(|(execution, _)| execution)
    }

    /// Runs it and hands back its working directory, which is removed when dropped
    /// unless the caller keeps it ([`Workdir::keep`]).
    pub fn run_keeping(&self) -> std::io::Result<(Execution, Workdir)> {
        self.run_in(
            Workdir::create(self.work_root.as_deref(), &self.setting)?,
            None,
        )
    }

    /// As [`Invocation::run_keeping`], through `server` ([`crate::fork_server`]) when
    /// one is given and can serve this run (see [`Invocation::run_with`]): a fresh working
    /// directory each run, which the caller may keep.
    pub fn run_keeping_with(
        &self,
        server: Option<&mut ForkServer>,
    ) -> std::io::Result<(Execution, Workdir)> {
        self.run_in(
            Workdir::create(self.work_root.as_deref(), &self.setting)?,
            server.filter(|_| self.served()),
        )
    }

    /// Runs it through `server` ([`crate::fork_server`]) when the program itself runs
    /// (no test `cmd`); otherwise, or when the server cannot serve, by exec as
    /// [`Invocation::run`] does. Every run's `SYNCMUT_*` variables come with its request,
    /// so one server runs the controlled schedules, the runs with real threads (no
    /// schedule) and SystemC designs alike.
    ///
    /// The search's runs share one working directory while each leaves it as it was made
    /// ([`Workdir::reuse_or_create`]).
    pub fn run_with(&self, server: &mut ForkServer) -> std::io::Result<Execution> {
        let workdir = server.take_workdir(self.work_root.as_deref(), &self.setting)?;
        let (execution, workdir) = self.run_in(workdir, self.served().then_some(&mut *server))?;
        server.return_workdir(workdir);
        Ok(execution)
    }

    /// Starts `server` for this invocation on the calling thread when [`Invocation::run_with`]
    /// would run it through one ([`ForkServer::start`]): the server, and the runs it
    /// serves, end with the thread that started it.
    pub fn start_server(&self, server: &mut ForkServer) {
        if self.served() {
            let (run, args, vars) = self.command();
            server.start(&run, &args, &vars, self.limits.timeout);
        }
    }

    /// Whether [`Invocation::run_with`] can serve it: the program itself runs (a test's
    /// `cmd` may start anything, or the program more than once).
    fn served(&self) -> bool {
        self.setting.cmd.is_empty()
    }

    /// What is started: the program (or the test's `cmd`), its arguments and variables.
    fn command(&self) -> (PathBuf, Vec<String>, Vec<(&str, String)>) {
        let program = absolute(&self.program);
        let mut vars: Vec<(&str, String)> = self.env();
        // The test's own variables first: syncmut's win (the test file refuses SYNCMUT_ names).
        vars.splice(
            0..0,
            self.setting
                .env
                .iter()
                .map(|(k, v)| (k.as_str(), v.clone())),
        );
        match self.setting.cmd.split_first() {
            None => (program, self.args.clone(), vars),
            Some((command, rest)) => {
                vars.push((BIN_VAR, program.display().to_string()));
                (PathBuf::from(command), rest.to_vec(), vars)
            }
        }
    }

    fn run_in(
        &self,
        workdir: Workdir,
        server: Option<&mut ForkServer>,
    ) -> std::io::Result<(Execution, Workdir)> {
        let (run, args, vars) = self.command();
        let cwd = workdir.cwd();
        let place = exec::Place {
            cwd: Some(&cwd),
            stdin: workdir.stdin(),
        };
        let mut execution = match server {
            Some(server) => server.execute_in(&run, &args, &vars, &self.limits, place)?,
            None => exec::execute_in(&run, &args, &vars, &self.limits, place)?,
        };
        execution.outputs = workdir.read_outputs(&self.setting.outputs);
        // The test's comparison rules, applied here so every run of it is seen through them.
        let rules = self.setting.rules();
        if !rules.is_exact() {
            execution.stdout = rules.stream(&execution.stdout, false);
            execution.stderr = rules.stream(&execution.stderr, true);
            if !rules.compares_files() {
                execution.outputs.clear();
            }
        }
        Ok((execution, workdir))
    }
}

/// `path` made absolute against syncmut's working directory (unchanged if it cannot be).
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_names_only_what_is_set() {
        let test = crate::test_case::parse(r#"{"tests":[{"name":"n","nondet":[5,-3,18446744073709551615],"inputs":{"depth":3,"mode":-1}}]}"#).unwrap();
        let run = Invocation::for_test(Path::new("/bin/true"), &test[0]);
        assert_eq!(
            run.env(),
            [
                ("SYNCMUT_NONDET", "5,-3,18446744073709551615".to_string()),
                ("SYNCMUT_INPUTS", "depth=3,mode=-1".to_string())
            ]
        );
        let run = Invocation {
            active: Some(String::new()),
            trace: Some("t.bin".into()),
            schedule: Some("random:3".into()),
            max_steps: Some(7),
            record_steps: Some(false),
            record_detail: Some(false),
            ..Invocation::new(Path::new("/bin/true"), &[])
        };
        assert_eq!(
            run.env(),
            [
                ("SYNCMUT_ACTIVE", String::new()),
                // Absolute: the design runs in a directory of its own.
                (
                    "SYNCMUT_TRACE",
                    std::env::current_dir()
                        .unwrap()
                        .join("t.bin")
                        .display()
                        .to_string()
                ),
                ("SYNCMUT_SCHEDULE", "random:3".to_string()),
                ("SYNCMUT_RECORD_STEPS", "0".to_string()),
                ("SYNCMUT_RECORD_DETAIL", "0".to_string()),
                ("SYNCMUT_MAX_STEPS", "7".to_string())
            ]
        );
    }

    #[test]
    fn a_tests_sim_time_is_the_simulated_time_bound_in_ns() {
        let test =
            crate::test_case::parse(r#"{"tests":[{"name":"n","sim_time":"10 us"}]}"#).unwrap();
        let run = Invocation::for_test(Path::new("/bin/true"), &test[0]);
        assert_eq!(run.env(), [("SYNCMUT_SIM_UNTIL", "10000".to_string())]);
    }

    /// A schedule file named relatively (an output directory given as `-o out`) is named
    /// absolutely in the run's environment, for `replay:` and `follow:` alike: the run
    /// starts elsewhere. A relative `follow:` once made every follow of the original fail,
    /// and each such failure counted as a difference from the mutant: false kills.
    #[test]
    fn schedule_files_are_named_absolutely() {
        let here = std::env::current_dir().unwrap();
        for prefix in ["replay:", "follow:"] {
            let run = Invocation {
                schedule: Some(format!("{prefix}out/run.schedule")),
                ..Invocation::new(Path::new("/bin/true"), &[])
            };
            assert_eq!(
                run.env(),
                [(
                    "SYNCMUT_SCHEDULE",
                    format!("{prefix}{}", here.join("out/run.schedule").display())
                )]
            );
        }
    }

    #[test]
    fn the_timeout_is_five_times_the_reference_plus_two_seconds() {
        assert_eq!(
            timeout_after(Duration::from_millis(300)),
            Duration::from_millis(3500)
        );
        assert_eq!(timeout_after(Duration::ZERO), Duration::from_secs(2));
    }

    #[test]
    fn it_runs_the_program_with_its_environment() {
        let run = Invocation {
            active: Some("0:remove".into()),
            ..Invocation::new(
                Path::new("/bin/sh"),
                &["-c".to_string(), "echo $SYNCMUT_ACTIVE".to_string()],
            )
        };
        assert_eq!(run.run().unwrap().stdout.text(), "0:remove\n");
    }

    #[test]
    fn a_test_runs_its_command_in_a_private_directory_with_its_stdin_files_and_environment() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("data.txt"), "from a file\n").unwrap();
        std::fs::write(
            dir.path().join("tests.json"),
            r#"{"tests":[{"name":"t","stdin":"typed\n","files":["data.txt"],"env":{"GREETING":"hi"},
                "cmd":["sh","-c","$SYNCMUT_BIN -c 'cat; cat data.txt; echo $GREETING; pwd' > out.txt; cat out.txt"],
                "outputs":["out.txt","absent"]}]}"#,
        )
        .unwrap();
        let test = crate::test_case::load(&dir.path().join("tests.json"))
            .unwrap()
            .remove(0);
        let work = dir.path().join("work");
        let run = Invocation {
            work_root: Some(work.clone()),
            ..Invocation::for_test(Path::new("/bin/sh"), &test)
        };
        let execution = run.run().unwrap();
        let text = execution.stdout.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[..3],
            ["typed", "from a file", "hi"],
            "{}",
            execution.stderr.text()
        );
        assert!(
            lines[3].starts_with(work.to_str().unwrap()),
            "ran in {}",
            lines[3]
        );
        assert_eq!(
            execution.outputs["out.txt"].as_ref().unwrap().bytes,
            execution.stdout.len
        );
        assert_eq!(execution.outputs["absent"], None);
        // Nothing is left behind, and the test file's directory is untouched.
        assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0);
        assert!(!dir.path().join("out.txt").exists());
    }
}
