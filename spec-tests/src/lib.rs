//! Runs the official GCF conformance fixtures against `gcf-core`.
//!
//! Every `*.json` under the fixture folder is handed to
//! [`gcf_bind::conformance::run`], the dispatch every binding shares (see the
//! folder's README for the operations). Nothing is skipped silently: each
//! fixture ends as passed or failed (with what differed); an unknown
//! operation is a failure.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Where the fixtures are: `$GCF_CONFORMANCE_DIR`, else `../shared/conformance`
/// next to the repository.
pub fn conformance_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("GCF_CONFORMANCE_DIR") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance")
}

/// The result of a run.
#[derive(Debug, Default)]
pub struct Report {
    /// Fixtures that passed.
    pub passed: usize,
    /// `path: operation: what differed`, one per failing fixture.
    pub failures: Vec<String>,
    /// `path: operation: why`, one per pending fixture (none while the
    /// shared dispatch knows every operation).
    pub pending: Vec<String>,
}

impl Report {
    /// The closing line the CI reads: `N passed, N failed`.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "conformance: {} passed, {} failed",
            self.passed,
            self.failures.len()
        );
        if !self.pending.is_empty() {
            let _ = write!(s, ", {} pending", self.pending.len());
        }
        s
    }
}

/// Every `*.json` under `dir`, recursively, sorted: the fixtures, for a
/// runner that dispatches them itself (the `gcf` crate drop-in's tests).
pub fn fixture_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    collect(dir, &mut files);
    files.sort();
    files
}

/// Runs every fixture under `dir`.
pub fn run(dir: &Path) -> Report {
    let files = fixture_files(dir);
    let mut report = Report::default();
    if files.is_empty() {
        report
            .failures
            .push(format!("{}: no fixtures found", dir.display()));
    }
    for path in files {
        let rel = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        match std::fs::read(&path) {
            Ok(bytes) => {
                let verdict = gcf_bind::conformance::run(&bytes);
                if verdict.passed() {
                    report.passed += 1;
                } else {
                    report.failures.push(format!(
                        "{rel}: {}: {}",
                        verdict.operation,
                        verdict.detail.unwrap_or_default()
                    ));
                }
            }
            Err(e) => report.failures.push(format!("{rel}: ?: unreadable: {e}")),
        }
    }
    report
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}
