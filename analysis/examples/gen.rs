//! Development driver: `cargo run -p syncmut-analysis --example gen -- OUT DESIGN…`.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = std::path::PathBuf::from(&args[0]);
    let paths: Vec<std::path::PathBuf> = args[1..].iter().map(Into::into).collect();
    let design = syncmut_mutator::Design::from_paths(&paths, &[]).expect("design");
    let g = syncmut_analysis::generate(&design, &out, &Default::default()).expect("generate");
    for s in &g.sites {
        println!("site {}: {} ({} ms)", s.index, s.verdict, s.millis);
    }
    for t in &g.suite.tests {
        println!("test {:?} reaches {:?}", t.args, t.reached);
    }
    println!("reach rate {:.0}%", 100.0 * g.suite.reach_rate());
}
