//! Synthetic pthread designs of any size, for measuring what a run costs per mutant
//! (`cargo bench --bench cost`) and for the tests that compare pruned and unpruned
//! verdicts (`tests/pruning.rs`).
//!
//! * [`Shape::OnePerTest`]: `pairs` functions, each locking and unlocking a mutex of its
//!   own only when `argv[1]` is its number, called in turn by one worker thread: every
//!   lock/unlock pair is reached by exactly one test (`2 * pairs` sites, plus the join).
//! * [`Shape::Shared`]: `threads` workers each run every one of `pairs` guarded
//!   increments of a shared counter, each taken only when bit `k % 8` of `argv[1]` is
//!   set: every thread reaches many sites, several tests reach each site, and the
//!   mutants race, deadlock or change the printed counters.

/// Which synthetic design.
#[derive(Debug, Clone, Copy)]
#[allow(dead_code)] // Each user needs one shape or both.
pub enum Shape {
    OnePerTest,
    Shared { threads: usize },
}

/// The C source of a synthetic design with `pairs` lock/unlock pairs.
pub fn design(shape: Shape, pairs: usize) -> String {
    let mut c = String::from("#include <pthread.h>\n#include <stdio.h>\n#include <stdlib.h>\n\n");
    match shape {
        Shape::OnePerTest => {
            c.push_str(&format!("pthread_mutex_t m[{pairs}];\n"));
            for k in 0..pairs {
                c.push_str(&format!(
                    "static void f{k}(int x) {{ if (x == {k}) {{ pthread_mutex_lock(&m[{k}]); pthread_mutex_unlock(&m[{k}]); }} }}\n"
                ));
            }
            c.push_str("static void *worker(void *p) {\n  int x = *(int *)p;\n");
            for k in 0..pairs {
                c.push_str(&format!("  f{k}(x);\n"));
            }
            c.push_str("  return 0;\n}\n");
            c.push_str(&format!(
                "int main(int argc, char **argv) {{\n  int x = argc > 1 ? atoi(argv[1]) : -1;\n  pthread_t t;\n  for (int i = 0; i < {pairs}; i++) pthread_mutex_init(&m[i], 0);\n  pthread_create(&t, 0, worker, &x);\n  pthread_join(t, 0);\n  return 0;\n}}\n"
            ));
        }
        Shape::Shared { threads } => {
            c.push_str(&format!(
                "pthread_mutex_t m[{pairs}];\nlong counter[{pairs}];\nstatic int x;\n"
            ));
            c.push_str("static void *worker(void *p) {\n  (void)p;\n");
            for k in 0..pairs {
                c.push_str(&format!(
                    "  if (x & {}) {{ pthread_mutex_lock(&m[{k}]); counter[{k}]++; pthread_mutex_unlock(&m[{k}]); }}\n",
                    1 << (k % 8)
                ));
            }
            c.push_str("  return 0;\n}\n");
            c.push_str(&format!(
                "int main(int argc, char **argv) {{\n  x = argc > 1 ? atoi(argv[1]) : 0;\n  pthread_t t[{threads}];\n  for (int i = 0; i < {pairs}; i++) pthread_mutex_init(&m[i], 0);\n  for (int i = 0; i < {threads}; i++) pthread_create(&t[i], 0, worker, 0);\n  for (int i = 0; i < {threads}; i++) pthread_join(t[i], 0);\n  for (int i = 0; i < {pairs}; i++) printf(\"%ld \", counter[i]);\n  printf(\"\\n\");\n  return 0;\n}}\n"
            ));
        }
    }
    c
}
