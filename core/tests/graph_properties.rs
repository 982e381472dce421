//! Property tests for the graph profile: generated payloads survive
//! encode -> decode, sessions and deltas reconstruct what was sent.

mod support;

use std::collections::HashMap;

use gcf_core::graph::{self, Payload, Session, SessionDecoder, Snapshot, Symbol};
use support::{cases, graph_payload, Rng};

/// What a decoder must give back for `p`: symbols in canonical order, only
/// edges whose endpoints exist, in canonical order; locations by symbol.
fn canonical(p: &Payload) -> Payload {
    let mut order: Vec<usize> = (0..p.symbols.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&p.symbols[a], &p.symbols[b]);
        x.distance
            .cmp(&y.distance)
            .then(y.score.partial_cmp(&x.score).unwrap())
            .then(a.cmp(&b))
    });
    let symbols: Vec<Symbol> = order.iter().map(|&i| p.symbols[i].clone()).collect();
    let id: HashMap<&str, usize> = symbols
        .iter()
        .enumerate()
        .map(|(i, s)| (s.qualified_name.as_str(), i))
        .collect();
    let mut edges: Vec<_> = p
        .edges
        .iter()
        .enumerate()
        .filter(|(_, e)| id.contains_key(e.source.as_str()) && id.contains_key(e.target.as_str()))
        .collect();
    edges.sort_by(|(i, a), (j, b)| {
        (
            id[a.source.as_str()],
            id[a.target.as_str()],
            &a.edge_type,
            i,
        )
            .cmp(&(
                id[b.source.as_str()],
                id[b.target.as_str()],
                &b.edge_type,
                j,
            ))
    });
    let mut locations: Vec<_> = p
        .locations
        .iter()
        .enumerate()
        .filter(|(_, l)| id.contains_key(l.qualified_name.as_str()))
        .collect();
    locations.sort_by_key(|(i, l)| (id[l.qualified_name.as_str()], *i));
    Payload {
        tool: p.tool.clone(),
        token_budget: p.token_budget,
        tokens_used: p.tokens_used,
        symbols,
        edges: edges.into_iter().map(|(_, e)| e.clone()).collect(),
        locations: locations.into_iter().map(|(_, l)| l.clone()).collect(),
        ..Payload::default()
    }
}

#[test]
fn decode_inverts_encode() {
    for seed in 0..cases(3_000) as u64 {
        let mut rng = Rng::new(seed);
        let p = graph_payload(&mut rng, 40);
        let text = graph::encode(&p).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let back = graph::decode(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(back, canonical(&p), "seed {seed}\n{text}");
        // Canonical output is a fixed point (an empty `## edges [0]`, written
        // when every edge named an unknown symbol, decodes to no edges).
        let fixed = text.strip_suffix("## edges [0]\n").unwrap_or(&text);
        assert_eq!(graph::encode(&back).unwrap(), fixed, "seed {seed}");
        // Borrowed decoding agrees with owned decoding.
        assert_eq!(
            graph::decode_borrowed(&text).unwrap().to_owned_payload(),
            back,
            "seed {seed}"
        );
    }
}

/// A kind or provenance from a pool that reaches every path of the
/// encoder's token caches: short and long texts, refused ones (empty, with
/// a space), and enough distinct ones to pass its linear scan.
fn token_text(rng: &mut Rng, many: bool) -> String {
    match rng.below(20) {
        0 => String::new(),
        1 => "a b".to_string(),
        2 => "a_text_longer_than_sixteen_bytes".to_string(),
        3..=5 if many => format!("t{}", rng.below(60)),
        _ => rng
            .pick(&["function", "method", "lsp", "ast", "x"])
            .to_string(),
    }
}

#[test]
fn a_reused_encoder_answers_every_call_as_a_fresh_one() {
    // A kept `Encoder` (and the thread's, behind `graph::encode`) carries
    // kinds and provenances from call to call; whatever came before, each
    // call's text or error must be a fresh encoder's.
    let mut reused = graph::Encoder::new();
    for seed in 0..cases(2_000) as u64 {
        let mut rng = Rng::new(seed ^ 0x5EED);
        let many = rng.chance(30);
        let mut p = graph_payload(&mut rng, if many { 60 } else { 12 });
        let refusable = rng.chance(20);
        for (i, s) in p.symbols.iter_mut().enumerate() {
            if refusable && rng.chance(10) {
                s.kind = token_text(&mut rng, many);
                s.provenance = token_text(&mut rng, many);
            } else if many {
                s.provenance = format!("p{i}");
            }
        }
        let fresh = graph::Encoder::new().encode(&p);
        let again = reused.encode(&p);
        let one_shot = graph::encode(&p);
        match (&fresh, &again, &one_shot) {
            (Ok(a), Ok(b), Ok(c)) => {
                assert_eq!(a, b, "seed {seed}");
                assert_eq!(a, c, "seed {seed}");
            }
            (Err(a), Err(b), Err(c)) => {
                assert_eq!(a.to_string(), b.to_string(), "seed {seed}");
                assert_eq!(a.to_string(), c.to_string(), "seed {seed}");
            }
            _ => panic!("seed {seed}: {fresh:?} / {again:?} / {one_shot:?}"),
        }
    }
}

#[test]
fn streamed_payloads_decode_to_what_was_written() {
    for seed in 0..cases(1_000) as u64 {
        let mut rng = Rng::new(seed ^ 0xABCD);
        let p = canonical(&graph_payload(&mut rng, 30));
        let mut w = graph::StreamWriter::new(
            Vec::new(),
            graph::StreamOptions {
                tool: &p.tool,
                index_names: true,
                ..Default::default()
            },
        )
        .unwrap();
        for s in &p.symbols {
            w.write_symbol(s).unwrap();
        }
        for e in &p.edges {
            w.write_edge_by_name(&e.source, &e.target, &e.edge_type, &e.status)
                .unwrap();
        }
        let text = String::from_utf8(w.finish().unwrap()).unwrap();
        let back = graph::decode(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(back.symbols, p.symbols, "seed {seed}");
        let want: Vec<_> = p
            .edges
            .iter()
            .map(|e| {
                (
                    e.source.clone(),
                    e.target.clone(),
                    e.edge_type.clone(),
                    if e.status == "unchanged" {
                        String::new()
                    } else {
                        e.status.clone()
                    },
                )
            })
            .collect();
        let got: Vec<_> = back
            .edges
            .iter()
            .map(|e| {
                (
                    e.source.clone(),
                    e.target.clone(),
                    e.edge_type.clone(),
                    e.status.clone(),
                )
            })
            .collect();
        assert_eq!(got, want, "seed {seed}");
    }
}

/// What `decode_indexed` promises, bare references included: every name
/// carries its symbol's index, and two labels share a number exactly when
/// they have the same field and text.
fn assert_numbered(p: &Payload<graph::Indexed<'_>>) {
    use std::collections::HashMap;
    for (i, s) in p.symbols.iter().enumerate() {
        assert_eq!(s.qualified_name.index(), Some(i), "{:?}", s.qualified_name);
    }
    for e in &p.edges {
        for end in [&e.source, &e.target] {
            let i = end.index().expect("an endpoint names its symbol");
            assert_eq!(p.symbols[i].qualified_name.as_str(), end.as_str());
        }
    }
    let labels = p
        .symbols
        .iter()
        .flat_map(|s| [(0, &s.kind), (1, &s.provenance)])
        .chain(
            p.edges
                .iter()
                .flat_map(|e| [(2, &e.edge_type), (3, &e.status)]),
        );
    let (mut by_text, mut by_number) = (HashMap::new(), HashMap::new());
    for (field, label) in labels {
        let number = label.index().expect("every label is numbered");
        let text = (field, label.as_str().to_string());
        assert_eq!(
            *by_text.entry(text.clone()).or_insert(number),
            number,
            "{text:?}"
        );
        assert_eq!(*by_number.entry(number).or_insert(text.clone()), text);
    }
}

#[test]
fn sessions_reconstruct_every_call() {
    for seed in 0..cases(300) as u64 {
        let mut rng = Rng::new(seed ^ 0x5E55);
        // A pool of symbols the calls draw from, so identities recur.
        let pool = graph_payload(&mut rng, 30);
        let mut producer = Session::new();
        let mut consumer = SessionDecoder::new();
        // The numbered form, decoding the same session in step.
        let mut indexed = SessionDecoder::new();
        for call in 0..5 {
            let mut symbols: Vec<Symbol> = Vec::new();
            for s in &pool.symbols {
                if rng.chance(60) {
                    symbols.push(Symbol {
                        distance: rng.below(3) as u32,
                        ..s.clone()
                    });
                }
            }
            let p = Payload {
                tool: "t".into(),
                symbols,
                edges: pool.edges.clone(),
                ..Payload::default()
            };
            let text = producer.encode(&p).unwrap();
            let got = consumer
                .decode(&text)
                .unwrap_or_else(|e| panic!("seed {seed} call {call}: {e}\n{text}"));
            let numbered = indexed
                .decode_indexed_with(&text, |p| {
                    assert_numbered(p);
                    p.to_owned_payload()
                })
                .unwrap_or_else(|e| panic!("seed {seed} call {call}, indexed: {e}\n{text}"));
            assert_eq!(numbered, got, "seed {seed} call {call}\n{text}");
            assert_eq!(indexed.len(), consumer.len(), "seed {seed} call {call}");
            let want = canonical(&p);
            assert_eq!(got.symbols, want.symbols, "seed {seed} call {call}\n{text}");
            // Edges are ordered by session id, which differs from position: compare as sets.
            let sorted = |edges: &[graph::Edge]| {
                let mut v: Vec<_> = edges.iter().map(|e| format!("{e:?}")).collect();
                v.sort();
                v
            };
            assert_eq!(
                sorted(&got.edges),
                sorted(&want.edges),
                "seed {seed} call {call}"
            );
        }
    }
}

#[test]
fn deltas_apply_and_verify() {
    for seed in 0..cases(500) as u64 {
        let mut rng = Rng::new(seed ^ 0xDE17A);
        let base_payload = graph_payload(&mut rng, 25);
        let base = Snapshot {
            symbols: base_payload.symbols.clone(),
            edges: base_payload
                .edges
                .iter()
                .map(|e| graph::Edge::new(e.source.clone(), e.target.clone(), e.edge_type.clone()))
                .collect(),
        };
        let mut new = base.clone();
        new.symbols.retain(|_| rng.chance(80));
        for s in new.symbols.iter_mut() {
            if rng.chance(10) {
                s.score = support::score(&mut rng);
            }
        }
        new.symbols
            .extend(graph_payload(&mut rng, 5).symbols.into_iter().map(|mut s| {
                s.qualified_name.push_str(".new");
                s
            }));
        new.edges.retain(|_| rng.chance(80));
        // Deduplicate edges: a snapshot's edges are a set for delta purposes.
        let mut seen = std::collections::HashSet::new();
        new.edges
            .retain(|e| seen.insert((e.source.clone(), e.target.clone(), e.edge_type.clone())));
        let mut base = base;
        let mut seen = std::collections::HashSet::new();
        base.edges
            .retain(|e| seen.insert((e.source.clone(), e.target.clone(), e.edge_type.clone())));

        let delta = graph::diff(&base, &new, "t").unwrap();
        let text = graph::encode_delta(&delta).unwrap();
        let applied =
            graph::apply_delta(&base, &text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(
            applied.pack_root().unwrap(),
            new.pack_root().unwrap(),
            "seed {seed}"
        );
        // Tampering with the promised root is caught.
        let tampered = text.replacen(
            &format!("new_root={}", delta.new_root),
            "new_root=sha256:00",
            1,
        );
        assert_eq!(
            graph::apply_delta(&base, &tampered).unwrap_err().kind(),
            gcf_core::ErrorKind::RootMismatch
        );
    }
}

/// Mutated and truncated payloads never panic any graph decoder; they decode
/// or fail with an error that has a category.
#[test]
fn hostile_input_never_panics() {
    const BYTES: &[u8] = b" \t\r\n@<>#!-.0123456789?[]{}:=\"\\abcxyz\xff\xc3\xa9";
    for seed in 0..cases(2_000) as u64 {
        let mut rng = Rng::new(seed ^ 0xBAD);
        let p = graph_payload(&mut rng, 12);
        let mut text = graph::encode(&p).unwrap().into_bytes();
        if rng.chance(30) {
            let mut w =
                graph::StreamWriter::new(Vec::new(), graph::StreamOptions::default()).unwrap();
            for s in &p.symbols {
                w.write_symbol(s).unwrap();
            }
            text = w.finish().unwrap();
        }
        for _ in 0..1 + rng.below(4) {
            if text.is_empty() {
                break;
            }
            let at = rng.below(text.len() as u64) as usize;
            match rng.below(4) {
                0 => {
                    text.remove(at);
                }
                1 => text.insert(at, rng.pick(BYTES)),
                2 => text[at] = rng.pick(BYTES),
                _ => text.truncate(at),
            }
        }
        let _ = graph::decode_bytes(&text);
        if let Ok(s) = std::str::from_utf8(&text) {
            let _ = graph::decode_delta(s);
            let _ = SessionDecoder::new().decode(s);
            let base = Snapshot::default();
            let _ = graph::apply_delta(&base, s);
        }
    }
    // Hostile shapes: huge declared counts, deep ids, long lines.
    for text in [
        "GCF profile=graph symbols=99999999999999999999\n",
        "GCF profile=graph\n## edges [18446744073709551616]\n",
        "GCF profile=graph\n## targets\n@99999999999999999999999 fn a 0.50 x\n",
        "GCF profile=graph\n## distance_99999999999\n",
        "GCF profile=graph\n## loc\n@0 \"\\uD800\" 1 1\n",
    ] {
        assert!(graph::decode(text).is_err(), "{text:?} must be rejected");
    }
}
