//! Every error a decoder reports about its input carries a line and a
//! column. Every GCF text of the conformance suite goes through seeded
//! pseudo-random line and byte mutations and then through every decode entry
//! point of the crate, with the default limits and with tight ones; every
//! `Err` must have a position.
//!
//! Exceptions, each about the whole input rather than a place in it (none
//! is reachable with the inputs and limits used here, so none is filtered):
//! - `limit_exceeded` for an input over `Limits::max_input_len` (its size is
//!   the problem, known before any line is read);
//! - `limit_exceeded` when a thread's stack runs out, in the walks that have
//!   no line to hand (`stack::check`), and the serde tape's "over 4 Gi
//!   values";
//! - applying a delta already decoded (`generic::apply`,
//!   `graph::apply_decoded_delta`): it has no text to point into. Applying
//!   a delta's text (`apply_delta`) is run here, against a base each delta
//!   of the suite applies to: its `base_mismatch`, `root_mismatch` and
//!   `delta_invalid` point at the header value or the entry.

use std::collections::BTreeMap;

use gcf_core::generic::{self, ValueBuilder};
use gcf_core::graph::{self, SessionDecoder};
use gcf_core::{
    decode_any_bytes, decode_any_with, detect_profile, payload_kind, validate_utf8, Error, Limits,
};

mod support;
use support::{base64, fixture_paths, Rng};

/// Every GCF text anywhere in a fixture (decode inputs, expected encodings,
/// delta wires, session emissions), and the raw bytes of `inputBase64`.
fn fixture_texts() -> Vec<Vec<u8>> {
    fn walk(v: &serde_json::Value, out: &mut Vec<Vec<u8>>) {
        match v {
            serde_json::Value::String(s) if s.starts_with("GCF") => out.push(s.clone().into()),
            serde_json::Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            serde_json::Value::Object(members) => members.values().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let paths = fixture_paths();
    let mut out = Vec::new();
    for path in &paths {
        let fixture: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        walk(&fixture, &mut out);
        if let Some(b64) = fixture["inputBase64"].as_str() {
            out.push(base64(b64));
        }
    }
    out.extend(EXTRA_SEEDS.iter().map(|s| s.as_bytes().to_vec()));
    out
}

/// Forms the suite's texts (spec 3.5.3) lack or hold only once: a graph
/// `## loc` section (3.6.0), session references, every delta section,
/// `unchanged=true` answers, keyed maps, value groups, inline schemas with
/// constants, deferred counts, full keyed payloads.
const EXTRA_SEEDS: &[&str] = &[
    "GCF profile=graph tool=t symbols=3 edges=2\n## targets [1]\n@0 fn a.A 0.90 lsp\n## related [?]\n@1 fn b.B 0.50 lsp\n## distance_3\n@2 method c.C -0.25 rwr\n## edges [2]\n@0<@1 calls\n@1<@2 imports weak\n## loc [2]\n@0 a.go 1 2\n@2 \"b c.go\" 3 4 5 6\n##! summary symbols=3 edges=2 loc=2\n",
    "GCF profile=graph session=true symbols=3\n## targets\n@0 fn a.A 0.90 lsp\n@1  # previously transmitted\n## related\n@2  # previously transmitted\n## edges\n@0<@1 calls\n",
    "GCF profile=graph tool=t delta=true base_root=sha256:aa new_root=sha256:bb tokens=30 savings=50%\n## removed\nfn a.A\n## added\n@0 fn b.B 0.50 lsp 1\n## edges_removed\na.A -> b.B calls\n## edges_added\nb.B -> c.C calls\n## loc\n@0 x.go 1 1\n",
    "GCF profile=graph unchanged=true pack_root=sha256:00 symbols=3\n# held\n",
    "GCF profile=generic unchanged=true pack_root=sha256:00 count=2\n",
    "GCF profile=generic\n## m [2:]{key,a,b}\nx|1|2\ny|3|~\n## s [?]{id,tags}\n1|^\n  .tags [2]: x,y\n##! summary counts=1\n",
    "GCF profile=generic\n## [3]{@id,dept,x=1,y} group=dept\ndept=Sales [2]\nu1|a\nu3|~\ndept=\"R&D, Labs\" [1]\nu2|c\n",
    "GCF profile=generic\n## [2]{id,u,\"a>b\",\"a>c\"}\n1|^{name,kind=user,age}|1|2\n  Ann|30\n2|^|3|4\n  Bob|41\n",
    "GCF profile=generic pack_root=sha256:00 key=id tool=t\n## users [2]{@id,name}\n1|a\n2|b\n",
    "GCF profile=generic delta=true base_root=sha256:aa new_root=sha256:bb key=id\n## added [1]{@id,v}\n3|x\n## changed [?]{@id,v}\n1|y\n## removed [1]{@id}\n2\n##! summary counts=1\n",
];

/// What the session seed's references name.
const SESSION_START: &str = "GCF profile=graph session=true symbols=3\n## targets\n@0 fn a.A 0.90 lsp\n@1 fn b.B 0.50 lsp\n@2 fn c.C 0.50 lsp\n";

/// Characters the byte mutations write: the format's delimiters and markers,
/// blanks, digits, and bytes that break UTF-8.
const PIECES: &[&[u8]] = &[
    b"|",
    b"\"",
    b"@",
    b"#",
    b"## ",
    b" ",
    b"  ",
    b"0",
    b"7",
    b"-1",
    b"^",
    b"~",
    b"=",
    b",",
    b":",
    b">",
    b"[",
    b"]",
    b"{",
    b"}",
    b"[?]",
    b"[99]",
    b"\\",
    b"\\u",
    b"\t",
    b"\r",
    b"\n",
    b".",
    b"<",
    b"\xff",
    b"\xed\xa0\x80",
    b"\xc3",
];

fn lines(text: &[u8]) -> Vec<&[u8]> {
    text.split_inclusive(|&b| b == b'\n').collect()
}

/// One seeded mutation of `text`.
fn mutate(rng: &mut Rng, text: &[u8]) -> Vec<u8> {
    let at = |rng: &mut Rng, len: usize| rng.below(len as u64 + 1) as usize;
    let mut out = text.to_vec();
    match rng.below(10) {
        0 => out.truncate(at(rng, text.len())),
        1..=3 => {
            let mut ls = lines(text);
            if ls.is_empty() {
                return out;
            }
            let i = rng.below(ls.len() as u64) as usize;
            match rng.below(4) {
                0 => {
                    ls.remove(i);
                }
                1 => ls.insert(i, ls[i]),
                2 => {
                    let j = rng.below(ls.len() as u64) as usize;
                    ls.swap(i, j);
                }
                _ => {
                    // A line re-indented by one level either way.
                    let mut l = ls[i].to_vec();
                    if l.starts_with(b"  ") && rng.chance(50) {
                        l.drain(..2);
                    } else {
                        l.splice(0..0, *b"  ");
                    }
                    let mut joined: Vec<u8> = ls[..i].concat();
                    joined.extend_from_slice(&l);
                    joined.extend_from_slice(&ls[i + 1..].concat());
                    return joined;
                }
            }
            out = ls.concat();
        }
        4 | 5 => {
            // A byte replaced.
            if !out.is_empty() {
                let i = rng.below(out.len() as u64) as usize;
                let piece = rng.pick(PIECES);
                out.splice(i..i + 1, piece.iter().copied());
            }
        }
        6 | 7 => {
            let i = at(rng, out.len());
            let piece = rng.pick(PIECES);
            out.splice(i..i, piece.iter().copied());
        }
        8 => {
            if !out.is_empty() {
                let i = rng.below(out.len() as u64) as usize;
                out.remove(i);
            }
        }
        _ => {
            // A very long token: a name, a number past int64, a quoted run.
            let i = at(rng, out.len());
            let long: Vec<u8> = match rng.below(3) {
                0 => b"x".repeat(300),
                1 => b"9".repeat(40),
                _ => [&b"\""[..], &b"q".repeat(200), b"\""].concat(),
            };
            out.splice(i..i, long);
        }
    }
    out
}

/// Limits that every fixture text runs into: few elements, fields and
/// levels, short lines, a small expansion budget.
const TIGHT: Limits = Limits {
    max_depth: 2,
    max_container_len: 2,
    max_line_len: 40,
    max_fields: 2,
    max_input_len: usize::MAX,
    max_expansion: 16,
    max_expansion_ratio: 0,
};

/// Runs `bytes` through every decode entry point, with `limits`, and
/// gives each error to `report` with the entry point's name.
fn decode_everywhere(
    bytes: &[u8],
    limits: &Limits,
    primed: &SessionDecoder,
    report: &mut dyn FnMut(&'static str, Error),
) {
    let graph = graph::Decoder::new().limits(*limits);
    let generic = generic::Decoder::new().limits(*limits);
    let mut run = |name: &'static str, result: Result<(), Error>| {
        if let Err(e) = result {
            report(name, e);
        }
    };
    // The entry points for bytes, on text that may not be UTF-8 (the last
    // two with the default limits, their only ones).
    run("graph::decode_bytes", graph.decode_bytes(bytes).map(drop));
    run(
        "generic::decode_bytes",
        generic.decode_bytes(bytes).map(drop),
    );
    run("decode_any_bytes", decode_any_bytes(bytes).map(drop));
    run(
        "generic::from_slice",
        generic::from_slice::<serde_json::Value>(bytes).map(drop),
    );
    let Ok(text) = validate_utf8(bytes) else {
        return;
    };
    run("detect_profile", detect_profile(text).map(drop));
    run("payload_kind", payload_kind(text).map(drop));
    run("decode_any", decode_any_with(text, limits).map(drop));
    run("graph::decode", graph.decode(text).map(drop));
    run(
        "graph::decode_borrowed",
        graph.decode_borrowed(text).map(drop),
    );
    run("graph::decode_shared", graph.decode_shared(text).map(drop));
    run(
        "graph::decode_indexed",
        graph.decode_indexed(text).map(drop),
    );
    run(
        "graph::Decoder::refuse_references",
        graph.clone().refuse_references(true).decode(text).map(drop),
    );
    run(
        "graph::decode_delta",
        graph::decode_delta_with(text, limits).map(drop),
    );
    let mut session = primed.clone().limits(*limits);
    run("SessionDecoder::decode", session.decode(text).map(drop));
    let mut session = primed.clone().limits(*limits);
    run(
        "SessionDecoder::decode_indexed_with",
        session.decode_indexed_with(text, |_| ()),
    );
    run("generic::decode", generic.decode(text).map(drop));
    run(
        "generic::Decoder::allow_identity_fields",
        generic
            .clone()
            .allow_identity_fields(true)
            .decode_with_header(text)
            .map(drop),
    );
    run(
        "generic::Decoder::decode_into",
        generic.decode_into(text, &mut ValueBuilder).map(drop),
    );
    run(
        "generic::Decoder::deserialize",
        generic.deserialize::<serde_json::Value>(text).map(drop),
    );
    run(
        "generic::decode_delta",
        generic::decode_delta_with(text, limits).map(drop),
    );
    run(
        "generic::decode_full",
        generic::decode_full_with(text, limits).map(drop),
    );
}

/// What failed, once per entry point, kind and message start, with the
/// first input that showed it.
type Failures = BTreeMap<(String, String, String), (String, Error)>;

fn check(bytes: &[u8], limits: &Limits, primed: &SessionDecoder, failures: &mut Failures) {
    decode_everywhere(bytes, limits, primed, &mut |entry, e| {
        if e.line().is_some() && e.column().is_some() {
            return;
        }
        // The message without the input it quotes (between backticks).
        let gist: String = e
            .message()
            .split('`')
            .step_by(2)
            .collect::<Vec<_>>()
            .join("_")
            .chars()
            .take(40)
            .collect();
        failures
            .entry((entry.to_string(), e.kind().name().to_string(), gist))
            .or_insert_with(|| (String::from_utf8_lossy(bytes).into_owned(), e));
    });
}

fn report(failures: &Failures) {
    if failures.is_empty() {
        return;
    }
    let mut listing = String::new();
    for ((entry, kind, _), (input, e)) in failures {
        listing.push_str(&format!(
            "{entry}: {kind} without a position: {e:?}\n  in {input:?}\n"
        ));
    }
    panic!("{} positionless errors:\n{listing}", failures.len());
}

/// A session decoder that has read every graph session payload of the
/// suite, so bare references resolve and mutations reach past them.
fn primed_session(texts: &[Vec<u8>]) -> SessionDecoder {
    let mut primed = SessionDecoder::new();
    primed.decode(SESSION_START).unwrap();
    for text in texts {
        if let Ok(text) = std::str::from_utf8(text) {
            if text.contains("session=true") {
                let _ = primed.decode(text);
            }
        }
    }
    primed
}

#[test]
fn every_decode_error_of_a_mutated_fixture_has_a_position() {
    let texts = fixture_texts();
    assert!(texts.len() > 250, "{} texts", texts.len());
    let primed = primed_session(&texts);
    let mut failures = Failures::new();
    for (i, text) in texts.iter().enumerate() {
        let mut rng = Rng::new(i as u64 + 1);
        check(text, &Limits::default(), &primed, &mut failures);
        for _ in 0..support::cases(120) {
            let mut bytes = mutate(&mut rng, text);
            if rng.chance(25) {
                bytes = mutate(&mut rng, &bytes);
            }
            check(&bytes, &Limits::default(), &primed, &mut failures);
        }
    }
    report(&failures);
}

#[test]
fn every_limit_error_has_a_position() {
    let texts = fixture_texts();
    let primed = primed_session(&texts);
    let mut failures = Failures::new();
    for (i, text) in texts.iter().enumerate() {
        let mut rng = Rng::new(i as u64 + 10_001);
        check(text, &TIGHT, &primed, &mut failures);
        for _ in 0..support::cases(24) {
            let bytes = mutate(&mut rng, text);
            check(&bytes, &TIGHT, &primed, &mut failures);
        }
    }
    report(&failures);
}

/// The extra seeds are valid, so that their mutations start from text the
/// decoders accept.
#[test]
fn extra_seeds_decode() {
    let primed = primed_session(&[]);
    for seed in EXTRA_SEEDS {
        let result = if seed.contains("session=true") {
            primed.clone().decode(seed).map(drop)
        } else if seed.contains("key=id") && !seed.contains("delta=true") {
            generic::decode_full(seed).map(drop)
        } else {
            decode_any_with(seed, &Limits::default()).map(drop)
        };
        result.unwrap_or_else(|e| panic!("{seed:?}: {e}"));
    }
}

/// A base that `delta` applies to as far as its removals and changes go
/// (its promised root is another matter), and `text` with its `base_root`
/// rewritten to that base's: mutations of it reach the checks against a
/// held snapshot or set, not only the root comparison.
enum Held {
    Graph(graph::Snapshot),
    Generic(generic::KeyedSet),
}

fn held_base(text: &str) -> Option<(Held, String)> {
    let (held, root, old) = if let Ok(d) = graph::decode_delta(text) {
        let base = graph::Snapshot {
            symbols: d
                .removed
                .iter()
                .map(|r| {
                    graph::Symbol::new(r.qualified_name.clone(), r.kind.clone(), 0.5, "x".into(), 0)
                })
                .collect(),
            edges: d.removed_edges.clone(),
        };
        let root = base.pack_root().ok()?;
        (Held::Graph(base), root, d.base_root)
    } else if let Ok(d) = generic::decode_delta(text) {
        let mut fields = d.fields.clone();
        if fields.is_empty() {
            fields.push(d.key.clone());
        }
        let mut rows: Vec<generic::Map> = d.changed.clone();
        for id in &d.removed {
            let mut row = generic::Map::new();
            row.insert(d.key.as_str(), id.clone());
            rows.push(row);
        }
        let base = generic::KeyedSet {
            name: "t".into(),
            key: d.key.clone(),
            fields,
            rows,
        };
        let root = generic::pack_root(&base).ok()?;
        (Held::Generic(base), root, d.base_root)
    } else {
        return None;
    };
    let text = text.replacen(
        &format!(" base_root={old}"),
        &format!(" base_root={root}"),
        1,
    );
    Some((held, text))
}

/// Applying a delta compares it with what the caller holds; its errors
/// point into the delta's text too: an operation the base contradicts at
/// its entry, a root at its value in the header.
#[test]
fn every_apply_error_of_a_mutated_delta_has_a_position() {
    let mut failures = Failures::new();
    let mut kinds: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut deltas = 0;
    for (i, text) in fixture_texts().iter().enumerate() {
        let Some((held, text)) = std::str::from_utf8(text).ok().and_then(held_base) else {
            continue;
        };
        deltas += 1;
        let mut rng = Rng::new(i as u64 + 20_001);
        for case in 0..=support::cases(200) {
            let bytes = if case == 0 {
                text.clone().into_bytes()
            } else {
                mutate(&mut rng, text.as_bytes())
            };
            let Ok(mutated) = std::str::from_utf8(&bytes) else {
                continue;
            };
            let (entry, result) = match &held {
                Held::Graph(base) => (
                    "graph::apply_delta",
                    graph::apply_delta_with(base, mutated, &Limits::default()).map(drop),
                ),
                Held::Generic(base) => (
                    "generic::apply_delta",
                    generic::apply_delta_with(base, mutated, &Limits::default()).map(drop),
                ),
            };
            let Err(e) = result else { continue };
            *kinds.entry(e.kind().name()).or_default() += 1;
            if e.line().is_none() || e.column().is_none() {
                failures
                    .entry((
                        entry.to_string(),
                        e.kind().name().to_string(),
                        String::new(),
                    ))
                    .or_insert_with(|| (mutated.to_string(), e));
            }
        }
    }
    report(&failures);
    // The test reaches what it is about: deltas from the suite, and each of
    // the three errors of applying one.
    assert!(deltas >= 10, "{deltas} deltas");
    for kind in ["delta_invalid", "root_mismatch", "base_mismatch"] {
        assert!(
            kinds.get(kind).copied().unwrap_or(0) > 0,
            "no {kind} in {kinds:?}"
        );
    }
}
