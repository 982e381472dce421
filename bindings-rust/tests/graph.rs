//! The graph API against the reference crate (`gcf_oracle`, the `gcf` 3.1.0
//! crate itself): seeded random payloads, deltas and sessions, the same
//! bytes and the same decoded values.

use gcf_compat as gcf;
use gcf_interop::gen::Rng;

mod common;
use common::{to, KINDS};

const PAYLOADS: u64 = 3000;

const PROVENANCES: &[&str] = &["lsp_resolved", "ast_inferred", "text_match", "rwr"];
const EDGE_TYPES: &[&str] = &["calls", "implements", "references", "imports", "embeds"];
const STATUSES: &[&str] = &["", "", "", "added", "removed", "unchanged", "changed"];

fn pick<'a>(rng: &mut Rng, from: &[&'a str]) -> &'a str {
    from[rng.below(from.len())]
}

/// A score as a payload holds it: up to four decimals, sometimes a whole
/// number or an exact two-decimal value.
fn score(rng: &mut Rng) -> f64 {
    match rng.below(4) {
        0 => rng.below(3) as f64,
        1 => rng.below(101) as f64 / 100.0,
        _ => rng.below(10_001) as f64 / 10_000.0,
    }
}

fn symbol(rng: &mut Rng, i: usize) -> gcf::Symbol {
    let name = match rng.below(5) {
        0 => format!("pkg.F{i}"),
        1 => format!(
            "github.com/acme/svc/internal/api{}.Handler{i}.Serve",
            rng.below(9)
        ),
        2 => format!("src/app/{}.ts:render{i}", rng.below(20)),
        3 => format!("x{i}_é"),
        _ => format!("crate::module::item_{i}"),
    };
    gcf::Symbol {
        qualified_name: name,
        kind: pick(rng, KINDS).to_string(),
        score: score(rng),
        provenance: pick(rng, PROVENANCES).to_string(),
        distance: rng.below(5) as i32,
        signature: if rng.chance(10) {
            "fn()".into()
        } else {
            String::new()
        },
        components: Default::default(),
    }
}

/// A payload with unique names (see `a_repeated_name_is_declared_once_per_occurrence`
/// for the other kind).
fn payload(rng: &mut Rng) -> gcf::Payload {
    payload_with(rng, false)
}

fn payload_with(rng: &mut Rng, repeat_a_name: bool) -> gcf::Payload {
    let n = match rng.below(4) {
        0 => rng.below(3),
        1 | 2 => rng.below(20),
        _ => rng.below(120),
    };
    let mut symbols: Vec<gcf::Symbol> = (0..n).map(|i| symbol(rng, i)).collect();
    if n > 1 && repeat_a_name {
        // A repeated name: the last occurrence in emission order is the one
        // edges resolve to.
        let copy = symbols[0].qualified_name.clone();
        symbols[n - 1].qualified_name = copy;
    }
    let mut edges = Vec::new();
    if n > 0 {
        for _ in 0..rng.below(3 * n + 1) {
            let name = |rng: &mut Rng, symbols: &[gcf::Symbol]| {
                if rng.chance(3) {
                    "not.a.symbol".to_string()
                } else {
                    symbols[rng.below(symbols.len())].qualified_name.clone()
                }
            };
            edges.push(gcf::Edge {
                source: name(rng, &symbols),
                target: name(rng, &symbols),
                edge_type: pick(rng, EDGE_TYPES).to_string(),
                status: pick(rng, STATUSES).to_string(),
            });
        }
    }
    gcf::Payload {
        tool: if rng.chance(90) {
            "context_for_task".into()
        } else {
            String::new()
        },
        tokens_used: if rng.chance(50) {
            rng.below(5000) as i64
        } else {
            0
        },
        token_budget: if rng.chance(50) {
            rng.below(9000) as i64
        } else {
            0
        },
        pack_root: if rng.chance(20) {
            "sha256:0123456789abcdef".into()
        } else {
            String::new()
        },
        symbols,
        edges,
    }
}

#[test]
fn payloads_encode_and_decode_as_the_crate_does() {
    for seed in 0..PAYLOADS {
        let mut rng = Rng::new(seed);
        let p = payload(&mut rng);
        let theirs: gcf_oracle::Payload = to(&p);
        let text = gcf::encode(&p);
        assert_eq!(text, gcf_oracle::encode(&theirs), "seed {seed}");
        let ours = gcf::decode(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let back: gcf::Payload = to(&gcf_oracle::decode(&text).unwrap());
        assert_eq!(ours, back, "seed {seed}");
        assert_eq!(
            gcf::pack_root(&p.symbols, &p.edges),
            gcf_oracle::pack_root(&theirs.symbols, &theirs.edges),
            "seed {seed}"
        );
        assert_eq!(
            gcf::pack_root_canonical_bytes(&p.symbols, &p.edges),
            gcf_oracle::pack_root_canonical_bytes(&theirs.symbols, &theirs.edges),
            "seed {seed}"
        );
        assert_eq!(
            gcf::decode_generic::decode_generic(&text).unwrap(),
            gcf_oracle::decode_generic(&text).unwrap(),
            "seed {seed}"
        );
    }
}

#[test]
fn sessions_write_and_remember_as_the_crate_does() {
    for seed in 0..300 {
        let mut rng = Rng::new(seed ^ 0x5e55);
        let ours = gcf::Session::new();
        let theirs = gcf_oracle::Session::new();
        // Turns drawn from one pool of symbols, so later turns repeat some.
        // The crate writes a session payload's symbols in the order given
        // and gcf-core in emission order (README): the same bytes for a
        // payload given in emission order, with edges among its symbols
        // (the crate's `edges=` counts the ones it leaves out).
        let mut pool = payload(&mut rng);
        pool.symbols.sort_by(|a, b| {
            a.distance
                .cmp(&b.distance)
                .then(b.score.total_cmp(&a.score))
        });
        for turn in 0..4 {
            let mut p = pool.clone();
            p.symbols.retain(|_| rng.chance(60));
            let names: Vec<String> = p.symbols.iter().map(|s| s.qualified_name.clone()).collect();
            p.edges
                .retain(|e| names.contains(&e.source) && names.contains(&e.target));
            if rng.chance(20) {
                let fresh: Vec<gcf::Symbol> = (0..3).map(|i| symbol(&mut rng, 900 + i)).collect();
                ours.record(&fresh);
                theirs.record(&to::<_, Vec<gcf_oracle::Symbol>>(&fresh));
            }
            let text = gcf::encode_with_session(&p, &ours);
            assert_eq!(
                text,
                gcf_oracle::encode_with_session(&to(&p), &theirs),
                "seed {seed} turn {turn}"
            );
            assert_eq!(ours.size(), theirs.size(), "seed {seed} turn {turn}");
            assert_eq!(ours.next_id(), theirs.next_id(), "seed {seed} turn {turn}");
            for s in &pool.symbols {
                assert_eq!(
                    ours.get_id(&s.qualified_name),
                    theirs.get_id(&s.qualified_name),
                    "seed {seed} turn {turn} {}",
                    s.qualified_name
                );
                assert_eq!(
                    ours.transmitted(&s.qualified_name),
                    theirs.transmitted(&s.qualified_name)
                );
            }
        }
        ours.reset();
        theirs.reset();
        assert_eq!((ours.size(), ours.next_id()), (0, 0));
    }
}

#[test]
fn deltas_encode_decode_and_verify_as_the_crate_does() {
    let mut applied = 0;
    for seed in 0..1000 {
        let mut rng = Rng::new(seed ^ 0xde17a);
        let mut base = payload(&mut rng);
        // The crate's verify keys edges by source, target and type, so two
        // edges that differ only in status collapse there and its result
        // misses the root its own pack_root computed; gcf-core keeps both.
        let mut triples = std::collections::HashSet::new();
        base.edges
            .retain(|e| triples.insert((e.source.clone(), e.target.clone(), e.edge_type.clone())));
        let mut new = base.clone();
        new.symbols.retain(|_| rng.chance(80));
        new.symbols
            .extend((0..rng.below(4)).map(|i| symbol(&mut rng, 500 + i)));
        new.edges.retain(|_| rng.chance(80));
        let removed: Vec<gcf::Symbol> = base
            .symbols
            .iter()
            .filter(|s| !new.symbols.contains(s))
            .cloned()
            .collect();
        let added: Vec<gcf::Symbol> = new
            .symbols
            .iter()
            .filter(|s| !base.symbols.contains(s))
            .cloned()
            .collect();
        let removed_edges: Vec<gcf::Edge> = base
            .edges
            .iter()
            .filter(|e| !new.edges.contains(e))
            .cloned()
            .collect();
        let d = gcf::DeltaPayload {
            tool: "ctx".into(),
            base_root: gcf::pack_root(&base.symbols, &base.edges),
            new_root: gcf::pack_root(&new.symbols, &new.edges),
            removed: removed.clone(),
            added: added.clone(),
            removed_edges: removed_edges.clone(),
            added_edges: Vec::new(),
            delta_tokens: rng.below(100) as i64,
            full_tokens: rng.below(1000) as i64,
        };
        let text = gcf::encode_delta(&d);
        assert_eq!(text, gcf_oracle::encode_delta(&to(&d)), "seed {seed}");
        let mut ours = gcf::decode_delta(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let theirs: gcf::DeltaPayload = to(&gcf_oracle::decode_delta(&text).unwrap());
        // The header's `tokens=` is read here, where the crate leaves 0
        // (README: as the Python and Node packages read it).
        assert_eq!(ours.delta_tokens, d.delta_tokens, "seed {seed}");
        ours.delta_tokens = 0;
        assert_eq!(ours, theirs, "seed {seed}");

        let verified = gcf::verify_delta(
            &base.symbols,
            &base.edges,
            &removed,
            &added,
            &removed_edges,
            &[],
            &d.new_root,
        );
        let reference = gcf_oracle::verify_delta(
            &to::<_, Vec<gcf_oracle::Symbol>>(&base.symbols),
            &to::<_, Vec<gcf_oracle::Edge>>(&base.edges),
            &to::<_, Vec<gcf_oracle::Symbol>>(&removed),
            &to::<_, Vec<gcf_oracle::Symbol>>(&added),
            &to::<_, Vec<gcf_oracle::Edge>>(&removed_edges),
            &[],
            &d.new_root,
        );
        match (verified, reference) {
            (Ok((symbols, edges)), Ok(r)) => {
                applied += 1;
                let (theirs_symbols, theirs_edges): (Vec<gcf::Symbol>, Vec<gcf::Edge>) = to(&r);
                // The crate's order comes from a hash map; compare the
                // results as snapshots, by their roots.
                assert_eq!(
                    gcf::pack_root(&symbols, &edges),
                    gcf::pack_root(&theirs_symbols, &theirs_edges),
                    "seed {seed}"
                );
                assert_eq!(gcf::pack_root(&symbols, &edges), d.new_root, "seed {seed}");
                // The same items, the caller's own (signatures included), in
                // whatever order.
                let sorted = |mut s: Vec<gcf::Symbol>, mut e: Vec<gcf::Edge>| {
                    s.sort_by(|a, b| {
                        (&a.kind, &a.qualified_name).cmp(&(&b.kind, &b.qualified_name))
                    });
                    e.sort_by(|a, b| {
                        (&a.source, &a.target, &a.edge_type).cmp(&(
                            &b.source,
                            &b.target,
                            &b.edge_type,
                        ))
                    });
                    (s, e)
                };
                assert_eq!(
                    sorted(symbols, edges),
                    sorted(theirs_symbols, theirs_edges),
                    "seed {seed}"
                );
            }
            (Err(a), Err(b)) => {
                let category = |s: &str| s.split(':').next().unwrap_or("").to_string();
                assert_eq!(category(&a), category(&b), "seed {seed}: {a} / {b}");
            }
            (a, b) => panic!("seed {seed}: ours {a:?}, the crate {b:?}"),
        }
    }
    assert!(applied > 700, "{applied} of 1000 deltas applied");
}

#[test]
fn a_repeated_name_is_declared_once_per_occurrence() {
    // The crate gives every occurrence of a repeated name the id of the
    // last one, so its text declares that id twice, which no strict
    // decoder reads (invalid_symbol_id); each occurrence gets its own id
    // here, edges naming the last one in emission order, and the text
    // decodes.
    let mut seen = 0;
    for seed in 0..200 {
        let mut rng = Rng::new(seed ^ 0x2e9);
        let p = payload_with(&mut rng, true);
        if p.symbols.len() < 2 {
            continue;
        }
        seen += 1;
        let text = gcf::encode(&p);
        let back = gcf::decode(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(back.symbols.len(), p.symbols.len(), "seed {seed}");
        let theirs = gcf_oracle::encode(&to(&p));
        if theirs != text {
            assert!(gcf::decode(&theirs).is_err(), "seed {seed}: {theirs}");
        }
    }
    assert!(seen > 100);
}

#[test]
fn kinds_abbreviate_as_the_crate_does() {
    for kind in KINDS
        .iter()
        .chain(&["fn", "iface", "pkg", "svc", "route", "ext", ""])
    {
        assert_eq!(
            gcf::kind_abbrev(kind),
            gcf_oracle::kind_abbrev(kind),
            "{kind}"
        );
        assert_eq!(
            gcf::kind_expand(kind),
            gcf_oracle::kind_expand(kind),
            "{kind}"
        );
    }
}

fn one_symbol(name: &str, score: f64, distance: i32) -> gcf::Payload {
    gcf::Payload {
        tool: "t".into(),
        tokens_used: 0,
        token_budget: 0,
        pack_root: String::new(),
        symbols: vec![gcf::Symbol {
            qualified_name: name.into(),
            kind: "function".into(),
            score,
            provenance: "lsp".into(),
            distance,
            signature: String::new(),
            components: Default::default(),
        }],
        edges: vec![],
    }
}

#[test]
fn payloads_with_no_gcf_form_encode_as_nothing_not_as_invalid_text() {
    // (payload, the category encode_checked reports, whether a pack root
    // exists: a name with a space hashes, a NaN score or a negative
    // distance has no record to hash).
    for (p, category, rooted) in [
        (one_symbol("has space", 0.5, 0), "invalid_input", true),
        (one_symbol("pkg.A", f64::NAN, 0), "invalid_score", false),
        (one_symbol("pkg.A", 0.5, -1), "invalid_input", false),
    ] {
        assert_eq!(gcf::encode(&p), "");
        let e = gcf::encode::encode_checked(&p).unwrap_err();
        assert_eq!(e.kind().name(), category, "{e}");
        let session = gcf::Session::new();
        assert_eq!(gcf::encode_with_session(&p, &session), "");
        assert_eq!(session.size(), 0, "a refused payload records nothing");
        assert_eq!(
            !gcf::pack_root(&p.symbols, &p.edges).is_empty(),
            rooted,
            "{p:?}"
        );
    }
}

#[test]
fn decode_errors_keep_the_crates_variants_and_gain_positions() {
    use gcf::DecodeError;
    assert_eq!(gcf::decode(""), Err(DecodeError::EmptyInput));
    assert_eq!(
        gcf::decode("hello\n"),
        Err(DecodeError::InvalidHeader("hello".into()))
    );
    let bad_node = "GCF profile=graph tool=t symbols=1\n## targets\n@0 fn pkg.A\n";
    match gcf::decode(bad_node) {
        Err(e @ DecodeError::InvalidSymbolLine(_)) => {
            assert!(e.to_string().starts_with("invalid_node_line: "), "{e}");
            assert!(e.to_string().contains("line 3"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    let bad_edge = "GCF profile=graph tool=t symbols=1 edges=1\n## targets\n@0 fn pkg.A 0.50 lsp\n## edges [1]\n@0 calls\n";
    assert!(matches!(
        gcf::decode(bad_edge),
        Err(DecodeError::InvalidEdgeLine(_))
    ));
    let unknown = "GCF profile=graph tool=t symbols=1 edges=1\n## targets\n@0 fn pkg.A 0.50 lsp\n## edges [1]\n@0<@7 calls\n";
    assert!(matches!(
        gcf::decode(unknown),
        Err(DecodeError::UnknownEdgeId(_))
    ));
    // A bare session reference: the crate's payload has no place for it,
    // and the crate refuses the line; dropping it would lose the symbol.
    let reference = "GCF profile=graph tool=t symbols=2 session=true\n## targets\n\
                     @0  # previously transmitted\n@1 fn c 0.50 p\n";
    assert!(matches!(
        gcf_oracle::decode(reference),
        Err(gcf_oracle::DecodeError::InvalidSymbolLine(_))
    ));
    match gcf::decode(reference) {
        Err(e @ DecodeError::InvalidSymbolLine(_)) => {
            assert!(e.to_string().contains("line 3"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    // A count past the crate's `i64` is refused as the crate refuses it.
    for field in ["budget", "tokens"] {
        let big = format!("GCF profile=graph tool=t {field}=9223372036854775808 symbols=0\n");
        let theirs = gcf_oracle::decode(&big).unwrap_err().to_string();
        assert_eq!(gcf::decode(&big).unwrap_err().to_string(), theirs);
        let max = format!("GCF profile=graph tool=t {field}=9223372036854775807 symbols=0\n");
        assert_eq!(
            gcf::decode(&max),
            Ok(to(&gcf_oracle::decode(&max).unwrap()))
        );
    }
    let miscounted = "GCF profile=graph tool=t symbols=2\n## targets\n@0 fn pkg.A 0.50 lsp\n";
    match gcf::decode(miscounted) {
        Err(e @ DecodeError::InvalidField(_)) => {
            assert!(e.to_string().starts_with("gcf: count_mismatch: "), "{e}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn recorded_symbols_no_payload_could_hold_take_ids_that_later_ones_follow() {
    // `record` writes nothing, so it checks nothing: a name with a space or
    // an empty one takes its id as in the crate, and the next new symbol
    // gets the next id, not one already given.
    for odd in ["a b", ""] {
        let ours = gcf::Session::new();
        let theirs = gcf_oracle::Session::new();
        let recorded = one_symbol(odd, 0.5, 0).symbols;
        ours.record(&recorded);
        theirs.record(&to::<_, Vec<gcf_oracle::Symbol>>(&recorded));
        let next = one_symbol("n", 0.5, 0);
        assert_eq!(
            gcf::encode_with_session(&next, &ours),
            gcf_oracle::encode_with_session(&to(&next), &theirs),
            "{odd:?}"
        );
        for name in [odd, "n"] {
            assert_eq!(ours.get_id(name), theirs.get_id(name), "{odd:?} {name:?}");
        }
        assert_eq!(
            (ours.next_id(), ours.size()),
            (theirs.next_id(), theirs.size())
        );
    }
}
