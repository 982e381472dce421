//! Every official fixture through the shared dispatch, built without
//! serde_json's `arbitrary_precision` (this crate alone does not turn it on;
//! the workspace's spec-tests runner covers the build where it is on).

use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

#[test]
fn every_fixture_passes_through_the_shared_dispatch() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance");
    let mut files = Vec::new();
    collect(&dir, &mut files);
    let failures: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let verdict = gcf_bind::conformance::run(&std::fs::read(path).unwrap());
            (!verdict.passed()).then(|| format!("{}: {verdict:?}", path.display()))
        })
        .collect();
    assert!(files.len() >= 281, "{} fixtures", files.len());
    assert!(failures.is_empty(), "{failures:#?}");
}
