//! `gcf-conformance [DIR]`: runs the conformance fixtures and prints one line
//! per failure and pending fixture, then `N passed, N failed`.

fn main() {
    let dir = std::env::args_os()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(gcf_spec_tests::conformance_dir);
    let report = gcf_spec_tests::run(&dir);
    for line in &report.failures {
        println!("FAIL {line}");
    }
    for line in &report.pending {
        println!("PENDING {line}");
    }
    println!("{}", report.summary());
    std::process::exit(if report.failures.is_empty() { 0 } else { 1 });
}
