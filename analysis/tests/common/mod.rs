//! Shared by the fixture tests: compile a C fixture, tag it as the mutator would,
//! prepare the analysis copy and analyse its `syncmut_probe(k)` sites (stand-ins for
//! rewritten synchronization calls: first argument = the site index).

use inkwell::values::{BasicValueEnum, InstructionOpcode};
use std::path::Path;
use syncmut_analysis::{analyse, prepare, smt, Options, SiteResult};
use syncmut_mutator::api::{self, Family};
use syncmut_mutator::effect::{CallTag, Effect, METADATA_KIND};

/// Tags `bc` in place as the mutator tags a metamutant (the analysis reads tags, not
/// names): each `syncmut_probe(k)` call as site k, with the effect of an unlock (a
/// scheduling point the analysis models no further), and each call of a function the
/// mutator observes (`pthread_create`) with its effect.
fn tag(bc: &Path) {
    let context = inkwell::context::Context::create();
    let module = inkwell::module::Module::parse_bitcode_from_path(bc, &context).unwrap();
    let kind = context.get_kind_id(METADATA_KIND);
    for f in module.get_functions() {
        for b in f.get_basic_blocks() {
            for i in b.get_instructions() {
                if i.get_opcode() != InstructionOpcode::Call {
                    continue;
                }
                // The callee is a call's last operand.
                let Some(BasicValueEnum::PointerValue(callee)) = i
                    .get_operand(i.get_num_operands() - 1)
                    .and_then(|o| o.value())
                else {
                    continue;
                };
                let name = callee.get_name().to_string_lossy().into_owned();
                let tag = if name == "syncmut_probe" {
                    CallTag {
                        effect: Effect::Unlock { lock: 0 },
                        leading: 1,
                        site: true,
                        family: Family::Pthread,
                    }
                } else if let Some(observed) = api::observed(&name) {
                    CallTag {
                        effect: observed.effect,
                        leading: 0,
                        site: false,
                        family: observed.family,
                    }
                } else {
                    continue;
                };
                let node =
                    context.metadata_node(&[context.metadata_string(&tag.to_metadata()).into()]);
                i.set_metadata(node, kind).unwrap();
            }
        }
    }
    assert!(module.write_bitcode_to_path(bc));
}

/// Compiles `prelude` + `src` as `name.c` and analyses `sites` sites.
pub fn run(
    name: &str,
    prelude: &str,
    src: &str,
    sites: u32,
) -> (tempfile::TempDir, Vec<SiteResult>) {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join(format!("{name}.c"));
    std::fs::write(&c, format!("{prelude}{src}")).unwrap();
    let bc = dir.path().join("design.bc");
    let ok = std::process::Command::new("clang-16")
        .args([
            "-c",
            "-emit-llvm",
            "-O0",
            "-Xclang",
            "-disable-O0-optnone",
            "-g",
            "-o",
        ])
        .arg(&bc)
        .arg(&c)
        .status()
        .unwrap()
        .success();
    assert!(ok, "clang-16 failed on {name}");
    tag(&bc);
    let an = dir.path().join("analysis.bc");
    prepare(&bc, &an, Options::default().bound).unwrap();
    let results = analyse(
        &an,
        sites,
        &dir.path().join("formulas"),
        &Options::default(),
    )
    .unwrap();
    for r in &results {
        eprintln!("{name} site {}: {} notes={:?}", r.index, r.verdict, r.notes);
    }
    (dir, results)
}

/// Whether site `site`'s saved formula is equivalent to `expected` (checked by z3).
#[allow(dead_code)] // not every test file checks formulas
pub fn equivalent(dir: &Path, site: u32, expected: &str) -> bool {
    smt::equivalent(&dir.join(format!("formulas/site{site}.smt2")), expected).unwrap()
}

/// argc ≥ 1 + highest argv index read, ≤ 64 (part of every formula).
#[allow(dead_code)]
pub fn argc(k: u32) -> String {
    format!("(bvuge argc (_ bv{} 32)) (bvule argc (_ bv64 32))", k + 1)
}
