//! The conformance suite as a cargo test: fails if any fixture fails.

#[test]
fn every_conformance_fixture() {
    let report = gcf_spec_tests::run(&gcf_spec_tests::conformance_dir());
    for line in &report.failures {
        println!("FAIL {line}");
    }
    for line in &report.pending {
        println!("PENDING {line}");
    }
    println!("{}", report.summary());
    assert!(
        report.failures.is_empty(),
        "{} conformance fixtures failed",
        report.failures.len()
    );
    assert!(
        report.pending.is_empty(),
        "{} conformance fixtures are pending",
        report.pending.len()
    );
    assert!(report.passed >= 281, "only {} fixtures ran", report.passed);
}
