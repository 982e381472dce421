//! The decode direction of the differential interop test: every generated
//! value is encoded by the `gcf` 3.1.0 crate and by gcf-python 2.8.0 (their
//! default encoders, which factor constant columns, spec §7.4.7, and, for
//! record sets with a unique key, their grouped encoders, spec §7.4.8), and
//! this workspace's decoder must read each text back to the same value.
//!
//! "The same value" is [`same`] against the input (for a grouped encoding,
//! the input's records in group order); where a reference's own output does
//! not round-trip through its own decoder (a lossy reference encoding), our
//! decode must equal what that reference decodes instead, and the case is
//! counted. One documented difference class is allowed and counted: a
//! flattened nested object whose leaves are all null, which we read as null
//! (spec §7.4.6.2 rule 5) and the references as the object. A text our
//! decoder rejects is always a failure.
//!
//! `GCF_INTEROP_VALUES` sets the number of values (default 100,000, split
//! between the two tests, which run in parallel with one Python oracle
//! each); `GCF_INTEROP_SEED` offsets the seeds.

use std::collections::BTreeMap;

use gcf_interop::{gen, group_order, ours, reference, same, same_but_all_null_objects, Python};
use serde_json::{json, Value as Json};

/// Outcome counters, printed at the end (`--nocapture`).
#[derive(Default)]
struct Stats {
    counts: BTreeMap<String, u64>,
    failures: Vec<String>,
}

impl Stats {
    fn count(&mut self, what: String) {
        *self.counts.entry(what).or_default() += 1;
    }

    fn fail(&mut self, seed: u64, source: &str, text: &str, detail: String) {
        self.count(format!("{source}: FAILED"));
        if self.failures.len() < 8 {
            self.failures
                .push(format!("seed {seed}, {source}:\n{text}\n{detail}"));
        }
    }
}

/// Our decode of `text`, which `source` wrote for `expected`; `theirs`
/// decodes it with the writer's own decoder, asked only on a mismatch.
fn check(
    stats: &mut Stats,
    seed: u64,
    source: &str,
    text: &str,
    expected: &Json,
    theirs: &mut dyn FnMut(&str) -> Result<Json, String>,
) {
    let got = match ours::decode(text) {
        Ok(got) => got,
        Err(e) => {
            let detail = format!("our decoder rejects it: {e:?}");
            return stats.fail(seed, source, text, detail);
        }
    };
    if has_constant_column(text) {
        stats.count(format!("{source}: texts with a constant column"));
    }
    if same(&got, expected) {
        return stats.count(format!("{source}: same value"));
    }
    match theirs(text) {
        Ok(back) if same(&got, &back) => {
            if std::env::var_os("GCF_INTEROP_VERBOSE").is_some() {
                eprintln!("seed {seed}, {source} does not round-trip:\n{text}input: {expected}\nboth:  {got}\n");
            }
            stats.count(format!(
                "{source}: reference does not round-trip; same as its decode"
            ))
        }
        _ if same_but_all_null_objects(&got, expected) => stats.count(format!(
            "{source}: known difference: all-null nested object read as null (§7.4.6.2 rule 5)"
        )),
        // Both at once: the reference's text loses something of the input
        // (a record's key order), and we read an all-null object in it as
        // null where the reference's decoder keeps the object.
        Ok(back) if same_but_all_null_objects(&got, &back) => stats.count(format!(
            "{source}: reference does not round-trip, and the known all-null difference"
        )),
        back => stats.fail(
            seed,
            source,
            text,
            format!("input: {expected}\nours:  {got}\ntheirs: {back:?}"),
        ),
    }
}

/// One value through every reference encoder and our decoder.
fn run_case(stats: &mut Stats, python: &mut Python, seed: u64) {
    let case = gen::case(seed);
    let v = &case.value;
    stats.count(String::from(if case.realistic {
        "values: realistic record sets"
    } else {
        "values: general"
    }));

    let crate_text = reference::encode(v);
    match &crate_text {
        Ok(text) => {
            check(stats, seed, "crate", text, v, &mut reference::decode);
            if seed.is_multiple_of(4) {
                mutations(stats, seed, text);
            }
        }
        Err(e) => stats.count(format!("crate: encode refused ({})", first_word(e))),
    }
    let python_text = python.encode(v, &json!({}));
    match &python_text {
        Ok(text) => check(stats, seed, "python", text, v, &mut |t| python_decode(t)),
        Err(e) => stats.count(format!("python: encode refused ({})", first_word(e))),
    }
    compare_texts(stats, "default", &crate_text, &python_text);

    if let Some((key, group)) = &case.grouping {
        let expected = group_order(v, group);
        let crate_text = reference::encode_grouped(v, key, group);
        match &crate_text {
            Ok(text) => {
                let decode = &mut reference::decode;
                check(stats, seed, "crate grouped", text, &expected, decode);
                mutations(stats, seed, text);
            }
            Err(e) => stats.count(format!("crate grouped: refused ({})", first_word(e))),
        }
        let python_text = python.encode_grouped(v, key, group);
        match &python_text {
            Ok(text) => check(stats, seed, "python grouped", text, &expected, &mut |t| {
                python_decode(t)
            }),
            Err(e) => stats.count(format!("python grouped: refused ({})", first_word(e))),
        }
        compare_texts(stats, "grouped", &crate_text, &python_text);
    }
    // The encode direction (our bytes equal theirs where both are canonical,
    // and they decode ours) is `tests/encode_interop.rs`.
}

/// Counts whether the two references wrote the same bytes (information for
/// the encode direction; no requirement of this test).
fn compare_texts(
    stats: &mut Stats,
    what: &str,
    crate_text: &Result<String, String>,
    python_text: &Result<String, String>,
) {
    if let (Ok(a), Ok(b)) = (crate_text, python_text) {
        let verdict = if a == b {
            "same bytes"
        } else {
            "different bytes"
        };
        if a != b && std::env::var_os("GCF_INTEROP_VERBOSE").is_some() {
            eprintln!("references differ ({what}):\ncrate:\n{a}python:\n{b}");
        }
        stats.count(format!("references, {what} encode: {verdict}"));
    }
}

/// Hostile input from realistic text: a few random byte edits of a
/// reference's output must decode or fail with a positioned error, never
/// panic (a panic fails the test).
fn mutations(stats: &mut Stats, seed: u64, text: &str) {
    const BYTES: &[u8] = b"|,\"\\^~-@.#[]{}:=> \t\n?0a";
    let mut rng = gen::Rng::new(seed.wrapping_mul(31).wrapping_add(7));
    for _ in 0..4 {
        let mut bytes = text.as_bytes().to_vec();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(bytes.len().max(1));
            match rng.below(3) {
                0 if at < bytes.len() => bytes[at] = *rng.pick(BYTES),
                1 if at < bytes.len() => {
                    bytes.remove(at);
                }
                _ => bytes.insert(at.min(bytes.len()), *rng.pick(BYTES)),
            }
        }
        match gcf_core::generic::decode_bytes(&bytes) {
            Ok(_) => stats.count(String::from("mutated texts: decoded")),
            Err(e) if e.line().is_some() && e.column().is_some() => {
                stats.count(String::from("mutated texts: positioned error"))
            }
            Err(e) if e.kind() == gcf_core::ErrorKind::LimitExceeded => {
                stats.count(String::from("mutated texts: limit"))
            }
            Err(e) => stats.fail(
                seed,
                "mutation",
                &String::from_utf8_lossy(&bytes),
                format!("error without a position: {e:?}"),
            ),
        }
    }
}

/// A separate oracle for the rare re-decode, so the checking closure does
/// not borrow the one the loop uses.
fn python_decode(text: &str) -> Result<Json, String> {
    thread_local! {
        static ORACLE: std::cell::RefCell<Option<Python>> = const { std::cell::RefCell::new(None) };
    }
    ORACLE.with(|o| {
        let mut o = o.borrow_mut();
        if o.is_none() {
            *o = Some(Python::start()?);
        }
        o.as_mut()
            .map_or(Err(String::from("no oracle")), |p| p.decode(text))
    })
}

/// Whether a header line declares a constant column (`name=value` inside
/// its braces), by a look that is enough for counting.
fn has_constant_column(text: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim_start();
        (line.starts_with("## ") || line.starts_with('.') || line.starts_with('@'))
            && line.find("]{").is_some_and(|open| {
                let decl = &line[open..];
                decl.find('=')
                    .is_some_and(|eq| decl.find('}').is_some_and(|close| eq < close))
            })
    })
}

fn first_word(error: &str) -> &str {
    error
        .split([':', ' '])
        .next()
        .filter(|w| !w.is_empty())
        .unwrap_or("error")
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs half `part` (0 or 1) of the seeds.
fn run_part(part: u64) {
    let total = env_u64("GCF_INTEROP_VALUES", 100_000);
    let offset = env_u64("GCF_INTEROP_SEED", 0);
    let mut python = Python::start().unwrap_or_else(|e| panic!("gcf-python oracle: {e}"));
    let mut stats = Stats::default();
    let start = std::time::Instant::now();
    let half = total.div_ceil(2);
    for seed in (part * half)..total.min((part + 1) * half) {
        run_case(&mut stats, &mut python, offset + seed);
    }
    let mut report = format!("part {part}: {:.1?}\n", start.elapsed());
    for (what, n) in &stats.counts {
        report.push_str(&format!("  {n:>8}  {what}\n"));
    }
    eprintln!("{report}");
    assert!(
        stats.failures.is_empty(),
        "{report}\nfirst failures:\n\n{}",
        stats.failures.join("\n\n")
    );
    // The run must have exercised what it claims to.
    let n = |k: &str| stats.counts.get(k).copied().unwrap_or(0);
    let values = n("values: general") + n("values: realistic record sets");
    assert!(n("values: realistic record sets") * 3 >= values, "{report}");
    for source in ["crate", "python", "crate grouped", "python grouped"] {
        assert!(
            n(&format!("{source}: same value")) > 0,
            "{source} never ran\n{report}"
        );
    }
}

#[test]
fn reference_encodings_decode_here_part_0() {
    run_part(0);
}

#[test]
fn reference_encodings_decode_here_part_1() {
    run_part(1);
}
