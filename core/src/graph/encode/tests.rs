use super::*;
use crate::error::ErrorKind;
use crate::graph::token::check_token;
use crate::graph::{Edge, Location};
use alloc::vec;

fn sym(q: &str, score: f64, d: u32) -> Symbol<&str> {
    Symbol::new(q, "function", score, "lsp", d)
}

#[test]
fn groups_ids_and_edges() {
    let p = Payload {
        tool: "t",
        token_budget: 10,
        symbols: vec![
            sym("a.A", 0.5, 1),
            sym("a.B", 0.9, 0),
            sym("a.C", 0.5, 1),
            sym("a.D", 0.1, 2),
            sym("a.E", 1.0, 7),
        ],
        edges: vec![
            Edge::new("a.D", "a.B", "calls"),
            Edge::new("a.A", "a.B", "uses"),
            Edge::new("a.A", "a.B", "calls"),
            Edge::new("a.X", "a.B", "calls"),
            Edge {
                source: "a.B",
                target: "a.B",
                edge_type: "self",
                status: "added",
            },
            Edge {
                source: "a.C",
                target: "a.B",
                edge_type: "x",
                status: "unchanged",
            },
        ],
        ..Payload::default()
    };
    let out = encode(&p).unwrap();
    assert_eq!(
        out,
        "GCF profile=graph tool=t budget=10 symbols=5 edges=5\n## targets\n@0 fn a.B 0.90 lsp\n\
         ## related\n@1 fn a.A 0.50 lsp\n@2 fn a.C 0.50 lsp\n## extended\n@3 fn a.D 0.10 lsp\n\
         ## distance_7\n@4 fn a.E 1.00 lsp\n## edges [5]\n@0<@0 self added\n@0<@1 calls\n@0<@1 uses\n\
         @0<@2 x\n@0<@3 calls\n"
    );
}

#[test]
fn edges_section_kept_when_all_edges_unknown() {
    let p = Payload {
        symbols: vec![sym("a", 0.5, 0)],
        edges: vec![Edge::new("x", "y", "z")],
        ..Payload::default()
    };
    assert_eq!(
        encode(&p).unwrap(),
        "GCF profile=graph tool= symbols=1\n## targets\n@0 fn a 0.50 lsp\n## edges [0]\n"
    );
}

#[test]
fn locations_and_pack_root() {
    let p = Payload {
        pack_root: "sha256:ab",
        symbols: vec![sym("a.A", 0.5, 0), sym("a.B", 0.6, 0)],
        locations: vec![
            Location {
                qualified_name: "a.A",
                file: "src/a.go",
                line: 3,
                column: 1,
                end: Some((9, 2)),
            },
            Location {
                qualified_name: "a.B",
                file: "my dir/b.go",
                line: 1,
                column: 5,
                end: None,
            },
            Location {
                qualified_name: "nope",
                file: "x",
                line: 1,
                column: 1,
                end: None,
            },
        ],
        ..Payload::default()
    };
    assert_eq!(
        encode(&p).unwrap(),
        "GCF profile=graph tool= symbols=2 pack_root=sha256:ab\n## targets\n@0 fn a.B 0.60 lsp\n@1 fn a.A 0.50 lsp\n\
         ## loc [2]\n@0 \"my dir/b.go\" 1 5\n@1 src/a.go 3 1 9 2\n"
    );
}

#[test]
fn rejects_unencodable_input() {
    let bad = |p: Payload<&str>| encode(&p).unwrap_err().kind();
    assert_eq!(
        bad(Payload {
            symbols: vec![sym("a b", 0.5, 0)],
            ..Payload::default()
        }),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        bad(Payload {
            symbols: vec![sym("", 0.5, 0)],
            ..Payload::default()
        }),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        bad(Payload {
            symbols: vec![sym("a", f64::NAN, 0)],
            ..Payload::default()
        }),
        ErrorKind::InvalidScore
    );
    assert_eq!(
        bad(Payload {
            tool: "a b",
            ..Payload::default()
        }),
        ErrorKind::InvalidInput
    );
    let p = Payload {
        symbols: vec![sym("a", 0.5, 0)],
        locations: vec![Location {
            qualified_name: "a",
            file: "f",
            line: 0,
            column: 1,
            end: None,
        }],
        ..Payload::default()
    };
    assert_eq!(bad(p), ErrorKind::InvalidInput);
    let limits = Limits {
        max_container_len: 1,
        ..Limits::default()
    };
    let p = Payload {
        symbols: vec![sym("a", 0.5, 0), sym("b", 0.5, 0)],
        ..Payload::default()
    };
    assert_eq!(
        Encoder::new().limits(limits).encode(&p).unwrap_err().kind(),
        ErrorKind::LimitExceeded
    );
}

#[test]
fn output_with_multibyte_text_everywhere_is_valid_utf8() {
    // The encoder skips re-validating its output (see `Encoder::encode`);
    // check it here in every build, with multibyte characters in every
    // string field, long and short tokens, and a quoted file path.
    let long_kind = "κ".repeat(40);
    let names: Vec<String> = (0..300).map(|i| alloc::format!("π.Ωmega{i}·ü")).collect();
    let symbols: Vec<Symbol<&str>> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let kind = if i % 3 == 0 {
                long_kind.as_str()
            } else {
                "función"
            };
            Symbol::new(
                n.as_str(),
                kind,
                (i % 97) as f64 / 7.0,
                "λsp",
                (i % 5) as u32,
            )
        })
        .collect();
    let edges: Vec<Edge<&str>> = (0..900)
        .map(|k| Edge {
            source: names[k % 300].as_str(),
            target: names[(k * 7 + 1) % 300].as_str(),
            edge_type: ["llama_a", "呼ぶ", "x"][k % 3],
            status: ["", "añadido", "unchanged"][k % 3],
        })
        .collect();
    let locations = vec![Location {
        qualified_name: names[0].as_str(),
        file: "dir with space/ファイル \"q\".go",
        line: 3,
        column: 1,
        end: Some((4, 2)),
    }];
    let p = Payload {
        tool: "t",
        symbols,
        edges,
        locations,
        ..Payload::default()
    };
    let out = encode(&p).unwrap();
    assert!(core::str::from_utf8(out.as_bytes()).is_ok());
    assert!(out.contains("呼ぶ añadido"), "{}", &out[..200]);
    let back = crate::graph::decode(&out).unwrap();
    assert_eq!(back.symbols.len(), 300);
    assert_eq!(back.locations.len(), 1);
}

#[test]
fn radix_order_equals_the_comparison_order() {
    let mut x = 0x853c_49e6_748f_ea9bu64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let sizes: &[usize] = if cfg!(miri) {
        &[0, 1, 30, 256, 300]
    } else {
        &[0, 1, 2, 23, 24, 30, 100, 255, 256, 257, 1000, 5000]
    };
    for &n in sizes {
        for shape in 0..12 {
            let base = 0.25 + (next() >> 11) as f64 / (1u64 << 55) as f64;
            let items: Vec<SortItem> = (0..n)
                .map(|i| {
                    let r = next();
                    let score = match shape {
                        // Few distinct scores: long runs of ties.
                        0 => (r % 4) as f64 / 4.0,
                        1 => f64::from_bits(r >> 2),
                        2 => -((r >> 11) as f64),
                        3 => [0.0, -0.0, 1e300, -1e300, 5e-324][(r % 5) as usize],
                        // Scores that differ only in their last bits,
                        // below any 32-bit window of the key.
                        5 => f64::from_bits(base.to_bits() + r % 64),
                        6 => f64::from_bits(base.to_bits() ^ (r & 0xff_ffff)),
                        // Subnormals, zeros of both signs, negatives.
                        7 => f64::from_bits(r % 2000) * if r >> 63 == 1 { -1.0 } else { 1.0 },
                        // Every score equal.
                        8 => 0.5,
                        // Both signs, every magnitude.
                        9 => f64::from_bits(r),
                        10 => -((r >> 11) as f64 / (1u64 << 53) as f64),
                        _ => (r >> 11) as f64 / (1u64 << 53) as f64,
                    };
                    let score = if score.is_finite() { score } else { 0.5 };
                    let distance = match shape {
                        1 => (next() >> 32) as u32,
                        2 => (next() % 5000) as u32,
                        4 | 8 => 0,
                        // At and just past the widest narrow distances.
                        5 => [0, u16::MAX as u32][(next() % 2) as usize],
                        6 => [0, 1 << 16][(next() % 2) as usize],
                        9 => [0, u32::MAX, 7][(next() % 3) as usize],
                        10 => (next() % 300) as u32,
                        _ => (next() % 4) as u32,
                    };
                    SortItem {
                        key: descending_score_key(score),
                        index: i as u32,
                        distance,
                    }
                })
                .collect();
            let max_distance = items.iter().map(|i| i.distance).max().unwrap_or(0);
            let mut expected = items.clone();
            expected.sort_by_key(|i| (i.distance, i.key, i.index));
            let expected: Vec<u32> = expected.iter().map(|i| i.index).collect();
            let mut wide = items.clone();
            sort_items(&mut wide, max_distance);
            let wide: Vec<u32> = wide.iter().map(|i| i.index).collect();
            assert_eq!(wide, expected, "wide n={n} shape={shape}");
            let distance_bits = 32 - max_distance.leading_zeros();
            if distance_bits <= NARROW_DISTANCE_BITS {
                let narrow = sort_narrow(&items, distance_bits);
                assert_eq!(narrow, expected, "narrow n={n} shape={shape}");
            }
            let mut order = Vec::new();
            sort_order(&mut items.clone(), max_distance, &mut order);
            assert_eq!(order, expected, "n={n} shape={shape}");
        }
    }
}

#[test]
fn repeated_name_resolves_to_its_last_occurrence_in_emission_order() {
    // Input order is the reverse of emission order here, so the index
    // (built in input order) must keep the larger emission position.
    let p = Payload {
        symbols: vec![sym("a", 0.5, 1), sym("a", 0.9, 0), sym("b", 0.1, 2)],
        edges: vec![
            Edge::new("b", "a", "calls"),
            Edge::new("a", "b", "uses"),
            Edge::new("a", "b", "calls"),
        ],
        ..Payload::default()
    };
    assert_eq!(
        encode(&p).unwrap(),
        "GCF profile=graph tool= symbols=3 edges=3\n## targets\n@0 fn a 0.90 lsp\n## related\n\
         @1 fn a 0.50 lsp\n## extended\n@2 fn b 0.10 lsp\n## edges [3]\n@2<@1 calls\n\
         @2<@1 uses\n@1<@2 calls\n"
    );
}

#[test]
fn address_index_agrees_with_the_name_index() {
    // Two copies of "a" at different addresses: an edge naming either
    // copy resolves to the last occurrence in emission order (@1).
    let first = alloc::string::String::from("a");
    let second = alloc::string::String::from("a");
    // Names sharing a first byte: "bc" and its prefix "b".
    let buffer = alloc::string::String::from("bc");
    let (b, bc) = (&buffer[..1], buffer.as_str());
    let p = Payload {
        symbols: vec![
            sym(first.as_str(), 0.9, 0),
            sym(second.as_str(), 0.5, 0),
            sym(b, 0.4, 0),
            sym(bc, 0.3, 0),
        ],
        edges: vec![
            Edge::new(first.as_str(), b, "x"),
            Edge::new(second.as_str(), bc, "y"),
            Edge::new(bc, "b", "z"),
        ],
        ..Payload::default()
    };
    assert_eq!(
        encode(&p).unwrap(),
        "GCF profile=graph tool= symbols=4 edges=3\n## targets\n@0 fn a 0.90 lsp\n@1 fn a 0.50 lsp\n\
         @2 fn b 0.40 lsp\n@3 fn bc 0.30 lsp\n## edges [3]\n@2<@1 x\n@3<@1 y\n@2<@3 z\n"
    );
}

#[test]
fn edge_lines_long_types_statuses_and_bad_types() {
    let long = "t".repeat(200);
    let p = Payload {
        symbols: vec![sym("a", 0.9, 0), sym("b", 0.5, 0)],
        edges: vec![
            Edge::new("a", "b", "calls"),
            Edge {
                source: "b",
                target: "a",
                edge_type: long.as_str(),
                status: "added",
            },
            Edge {
                source: "b",
                target: "b",
                edge_type: "calls",
                status: "removed",
            },
            Edge {
                source: "a",
                target: "a",
                edge_type: "calls",
                status: "unchanged",
            },
        ],
        ..Payload::default()
    };
    assert_eq!(
        encode(&p).unwrap(),
        alloc::format!(
            "GCF profile=graph tool= symbols=2 edges=4\n## targets\n@0 fn a 0.90 lsp\n@1 fn b 0.50 lsp\n\
             ## edges [4]\n@0<@0 calls\n@1<@0 calls\n@0<@1 {long} added\n@1<@1 calls removed\n"
        )
    );
    // A bad type is rejected even after good ones were checked (and
    // remembered); so is a bad status on a remembered type.
    for (edge_type, status) in [("bad type", ""), ("calls", "a b"), ("", "")] {
        let p = Payload {
            symbols: vec![sym("a", 0.9, 0)],
            edges: vec![
                Edge::new("a", "a", "calls"),
                Edge {
                    source: "a",
                    target: "a",
                    edge_type,
                    status,
                },
            ],
            ..Payload::default()
        };
        assert_eq!(
            encode(&p).unwrap_err().kind(),
            ErrorKind::InvalidInput,
            "{edge_type:?} {status:?}"
        );
    }
}

#[test]
fn equal_names_at_different_addresses_match() {
    let owned = alloc::string::String::from("pkg.A");
    let p = Payload {
        symbols: vec![sym("pkg.A", 0.5, 0)],
        edges: vec![Edge::new(owned.as_str(), "pkg.A", "self")],
        ..Payload::default()
    };
    assert!(encode(&p).unwrap().ends_with("## edges [1]\n@0<@0 self\n"));
}

#[test]
fn unicode_whitespace_and_controls_are_rejected_in_names() {
    for bad in [
        "a\u{a0}b",
        "a\u{2028}b",
        "a\u{3000}b",
        "a\u{85}b",
        "a\u{9f}b",
        "\u{2003}",
    ] {
        assert_eq!(
            check_token("qualified name", bad).unwrap_err().kind(),
            ErrorKind::InvalidInput,
            "{bad:?}"
        );
    }
    for good in ["ௗpkg.handler", "pkg.Ünïcode", "a.B", "日本.語"] {
        assert!(check_token("qualified name", good).is_ok(), "{good:?}");
    }
}

#[test]
fn negative_zero_score_ties_with_zero() {
    let p = Payload {
        symbols: vec![sym("a", -0.0, 0), sym("b", 0.0, 0)],
        ..Payload::default()
    };
    assert_eq!(
        encode(&p).unwrap(),
        "GCF profile=graph tool= symbols=2\n## targets\n@0 fn a -0.00 lsp\n@1 fn b 0.00 lsp\n"
    );
}

/// Edges naming their endpoints with the symbols' own strings (found by
/// address), with copies (found by bytes), or with a mix of both, in
/// runs longer than the index's sample, prefetch distance and hashing
/// chunk, and with repeated names: the output must not depend on which
/// path resolved them.
#[test]
fn endpoint_strings_resolve_alike_by_address_and_by_bytes() {
    // Each of the name index's ways to resolve by text: one by one (up to
    // 4,096 symbols), a chunk hashed ahead with prefetches (past it), every
    // step of a lookup prefetched (40,000 symbols and up); and both ways
    // of sampling whether the endpoints are the symbols' own strings (up to
    // 16 symbols compared by address one by one, past it found by name).
    resolve_alike(15, 60);
    resolve_alike(40, 130);
    resolve_alike(700, 2500);
    if !cfg!(miri) {
        resolve_alike(5000, 12_000);
        resolve_alike(41_000, 45_000);
    }
}

/// A payload of `n` symbols (a few names repeated) and `edges` edges whose
/// endpoints are the symbols' own strings, copies, or a mix: the same text.
fn resolve_alike(n: usize, edges: usize) {
    let names: Vec<String> = (0..n)
        .map(|i| alloc::format!("m.S{}", i % (n - n / 14)))
        .collect();
    let types = ["calls", "uses", "implements"];
    let symbols: Vec<Symbol<&str>> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let score = (i * 37 % 101) as f64 / 100.0;
            Symbol::new(n.as_str(), "function", score, "lsp", (i % 4) as u32)
        })
        .collect();
    let pairs: Vec<(usize, usize, usize)> = (0..edges)
        .map(|k| (k * 7 % n, (k * 13 + 5) % n, k % 3))
        .collect();
    let copies: Vec<(String, String)> = pairs
        .iter()
        .map(|&(s, t, _)| (names[s].clone(), names[t].clone()))
        .collect();
    let payload_with = |use_copy: &dyn Fn(usize) -> bool| Payload {
        symbols: symbols.clone(),
        edges: pairs
            .iter()
            .zip(&copies)
            .enumerate()
            .map(|(k, (&(s, t, ty), (cs, ct)))| {
                if use_copy(k) {
                    Edge::new(cs.as_str(), ct.as_str(), types[ty])
                } else {
                    Edge::new(names[s].as_str(), names[t].as_str(), types[ty])
                }
            })
            .collect(),
        ..Payload::default()
    };
    let own = encode(&payload_with(&|_| false)).unwrap();
    assert!(
        own.contains(&alloc::format!("edges={edges}")),
        "{}",
        &own[..200]
    );
    for (what, use_copy) in [
        ("copies", &(|_| true) as &dyn Fn(usize) -> bool),
        ("copies first", &|k| k < edges * 2 / 5),
        ("own first", &|k| k >= 20),
        ("alternating", &|k| k % 2 == 0),
    ] {
        assert_eq!(encode(&payload_with(use_copy)).unwrap(), own, "{what}");
    }
    // Owned strings throughout (a payload decoded from JSON).
    let owned = payload_with(&|_| true).to_owned_payload();
    assert_eq!(encode(&owned).unwrap(), own);
    // Decoding gives back every edge between the last occurrences.
    let back = crate::graph::decode(&own).unwrap();
    assert_eq!(back.edges.len(), edges);
}

/// A small deterministic generator for the table-driven tests below.
fn lcg(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *state >> 33
}

#[test]
fn short_runs_sort_stably_by_target_and_rank() {
    let mut state = 7;
    let rounds = if cfg!(miri) { 40 } else { 20_000 };
    for round in 0..rounds {
        let len = round % 17;
        // Few targets and ranks, so that equal keys are common; labels
        // tell equal keys apart, so stability shows.
        let run: Vec<u64> = (0..len)
            .map(|k| {
                let target = (lcg(&mut state) % 4) as u32;
                let rank = (lcg(&mut state) % 3) as u32;
                RunEdge::pack(target, rank, k as u32)
            })
            .collect();
        let mut ours = run.clone();
        RunEdge::sort_short(&mut ours);
        let mut expected = run;
        expected.sort_by_key(|&e| RunEdge::key(e));
        assert_eq!(ours, expected, "round {round}");
    }
    let edge = RunEdge::pack(u32::MAX, 0xffff, 0xfffe);
    assert_eq!(RunEdge::target(edge), u32::MAX);
    assert_eq!(RunEdge::label(edge), 0xfffe);
}

#[test]
fn a_reused_encoder_gives_what_a_fresh_one_gives() {
    // Payloads of different sizes, label sets and forms, and a failing
    // one, one after the other through one encoder: each output must
    // equal a fresh encoder's, whatever the buffers kept from before.
    let names: Vec<String> = (0..600).map(|i| alloc::format!("p.N{i}")).collect();
    let build = |n: usize, types: &[&'static str], bad: bool| -> Payload<String> {
        Payload {
            tool: String::from("t"),
            symbols: (0..n)
                .map(|i| {
                    let name = if bad && i == n / 2 {
                        "a b"
                    } else {
                        names[i].as_str()
                    };
                    Symbol::new(
                        String::from(name),
                        String::from(["function", "type", "widget"][i % 3]),
                        (i % 7) as f64 / 7.0,
                        String::from("lsp"),
                        (i % 3) as u32,
                    )
                })
                .collect(),
            edges: (0..3 * n)
                .map(|k| {
                    Edge::new(
                        names[k / 3].clone(),
                        names[(k * 7 + 1) % (n + 1)].clone(),
                        String::from(types[k % types.len()]),
                    )
                })
                .collect(),
            locations: (0..n / 4)
                .map(|i| Location {
                    qualified_name: names[i * 3].clone(),
                    file: String::from("f.go"),
                    line: 1 + i as u32,
                    column: 1,
                    end: None,
                })
                .collect(),
            ..Payload::default()
        }
    };
    let mut reused = Encoder::new();
    let cases = [
        build(300, &["calls", "imports"], false),
        build(10, &["x"], false),
        build(40, &["calls", "refs", "embeds"], true),
        build(500, &["b", "a", "calls"], false),
        build(0, &["calls"], false),
        build(25, &["imports"], false),
    ];
    for (k, p) in cases.iter().enumerate() {
        let fresh = Encoder::new().encode(p);
        let again = reused.encode(p);
        match (fresh, again) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "case {k}"),
            (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "case {k}"),
            (a, b) => panic!("case {k}: {a:?} / {b:?}"),
        }
        let mut sink = Vec::new();
        let streamed = reused.encode_to(p, &mut sink);
        assert_eq!(
            streamed.is_ok(),
            Encoder::new().encode(p).is_ok(),
            "case {k}"
        );
        if streamed.is_ok() {
            assert_eq!(
                sink,
                Encoder::new().encode(p).unwrap().into_bytes(),
                "case {k}"
            );
        }
    }
}

#[test]
fn recycled_buffers_keep_their_allocation() {
    let mut v: Vec<TokenEntry<'static>> = Vec::with_capacity(32);
    v.push(TokenEntry {
        token: Token::new("fn"),
        text: "function",
        key: ShortKey::NONE,
        address: (0, 0),
    });
    let text = String::from("local");
    let mut local: Vec<TokenEntry<'_>> = recycle(v);
    assert!(local.is_empty());
    assert!(local.capacity() >= 32);
    local.push(TokenEntry {
        token: Token::new(&text),
        text: &text,
        key: ShortKey::NONE,
        address: (0, 0),
    });
    let back: Vec<TokenEntry<'static>> = recycle(local);
    assert!(back.is_empty() && back.capacity() >= 32);
}

#[test]
fn text_memo_finds_what_it_keeps() {
    let mut memo = TextMemo::default();
    let mut keys: Vec<u64> = Vec::new();
    // Keys crowded onto four home slots, more than their probes hold.
    let crowded: Vec<(u64, usize)> = (0..40).map(|k| (1000 + k, k as usize % 4)).collect();
    for (index, &(key, home)) in crowded.iter().enumerate() {
        assert_eq!(memo.get(home, |i| keys[i] == key), None);
        keys.push(key);
        memo.insert(home, index as u32);
        assert_eq!(memo.get(home, |i| keys[i] == key), Some(index as u32));
    }
    // Evicted keys miss; kept ones still give their own index.
    for (index, &(key, home)) in crowded.iter().enumerate() {
        let found = memo.get(home, |i| keys[i] == key);
        assert!(found.is_none() || found == Some(index as u32));
    }
    // A handful of keys never evict each other, wherever they land.
    let mut memo = TextMemo::default();
    for k in 0..MEMO_PROBES {
        memo.insert(5, k as u32);
    }
    for k in 0..MEMO_PROBES {
        assert_eq!(memo.get(5, |i| i == k), Some(k as u32));
    }
    assert_eq!(memo.get(MEMO_SLOTS - 1, |_| true), None);
}

#[test]
fn short_keys_are_equal_exactly_when_the_texts_are() {
    // Every text of up to 16 bytes over a small alphabet differs from its
    // neighbours in one byte at each position; keys must tell them apart.
    let base = "abcdefghijklmnopq";
    let mut texts: Vec<String> = Vec::new();
    for len in 0..=16 {
        let text = &base[..len];
        texts.push(String::from(text));
        for pos in 0..len {
            let mut bytes = text.as_bytes().to_vec();
            bytes[pos] = b'Z';
            texts.push(String::from_utf8(bytes).unwrap());
        }
    }
    for a in &texts {
        for b in &texts {
            assert_eq!(ShortKey::of(a) == ShortKey::of(b), a == b, "{a:?} {b:?}");
        }
        assert_ne!(ShortKey::of(a), Some(ShortKey::NONE));
    }
    assert_eq!(ShortKey::of(&base[..16]).unwrap().len, 16);
    assert_eq!(ShortKey::of("abcdefghijklmnopqr"), None);
    assert_eq!(ShortKey::of("é").unwrap(), ShortKey::of("é").unwrap());
    assert_ne!(ShortKey::of("é"), ShortKey::of("è"));
}

#[test]
fn kinds_and_types_beyond_any_cache_encode_alike() {
    // More distinct kinds, provenances and edge types than the address
    // memos hold: the output must not depend on whether each value is
    // one shared string or a separate copy per symbol and edge.
    let kinds: Vec<String> = crate::graph::kind::KINDS
        .iter()
        .map(|k| String::from(k.0))
        .collect();
    let provenances: Vec<String> = (0..70).map(|i| alloc::format!("prov{i}")).collect();
    let types: Vec<String> = (0..90).map(|i| alloc::format!("type{i}")).collect();
    let names: Vec<String> = (0..300).map(|i| alloc::format!("p.N{i}")).collect();
    let shared: Vec<(&str, &str, &str)> = (0..300)
        .map(|i| {
            (
                kinds[i % kinds.len()].as_str(),
                provenances[i % 70].as_str(),
                types[i % 90].as_str(),
            )
        })
        .collect();
    let copies: Vec<(String, String, String)> = shared
        .iter()
        .map(|&(k, p, t)| (String::from(k), String::from(p), String::from(t)))
        .collect();
    let separate: Vec<(&str, &str, &str)> = copies
        .iter()
        .map(|(k, p, t)| (k.as_str(), p.as_str(), t.as_str()))
        .collect();
    let build = |values: &[(&str, &str, &str)]| -> String {
        let symbols = (0..300)
            .map(|i| Symbol::new(names[i].as_str(), values[i].0, 0.5, values[i].1, 0))
            .collect();
        let edges = (0..300)
            .map(|i| {
                Edge::new(
                    names[i].as_str(),
                    names[(i * 7) % 300].as_str(),
                    values[i].2,
                )
            })
            .collect();
        encode_graph(symbols, edges)
    };
    let (shared, separate) = (build(&shared), build(&separate));
    assert!(shared.contains("\n@15 svc p.N15 0.50 prov15\n@16 fn p.N16"));
    assert!(shared == separate, "{shared}\n---\n{separate}");
}

#[test]
fn more_labels_than_a_packed_edge_names() {
    // 70,000 distinct edge types between one pair: the comparison sort
    // orders them by type, whatever order they came in.
    let count = if cfg!(miri) {
        40
    } else {
        RunEdge::MAX_LABELS + 4_464
    };
    let types: Vec<String> = (0..count)
        .map(|i| alloc::format!("t{:06}", (i * 7_919) % count))
        .collect();
    let p = Payload {
        symbols: vec![sym("a", 0.9, 0), sym("b", 0.5, 0)],
        edges: types
            .iter()
            .map(|t| Edge::new("a", "b", t.as_str()))
            .collect(),
        ..Payload::default()
    };
    let out = encode(&p).unwrap();
    let lines: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("## edges"))
        .skip(1)
        .collect();
    assert_eq!(lines.len(), count);
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(*line, alloc::format!("@1<@0 t{i:06}"));
    }
}

#[test]
fn kinds_and_provenances_kept_between_calls_encode_alike() {
    // One encoder across payloads whose kinds and provenances overlap,
    // grow past what is kept, run long, or are invalid after a valid run:
    // every output (and error) must be a one-shot encode's.
    let payload = |kinds: &[&str], provenances: &[&str]| -> Payload<String> {
        let n = kinds.len().max(provenances.len());
        Payload {
            symbols: (0..n)
                .map(|i| {
                    Symbol::new(
                        alloc::format!("p.S{i}"),
                        String::from(kinds[i % kinds.len()]),
                        0.5,
                        String::from(provenances[i % provenances.len()]),
                        0,
                    )
                })
                .collect(),
            edges: (0..n)
                .map(|i| {
                    Edge::new(
                        alloc::format!("p.S{i}"),
                        alloc::format!("p.S{}", (i + 1) % n),
                        String::from("calls"),
                    )
                })
                .collect(),
            ..Payload::default()
        }
    };
    let many: Vec<String> = (0..Seeds::LIMIT + 5)
        .map(|i| alloc::format!("kind{i}"))
        .collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let long = "a_kind_longer_than_sixteen_bytes";
    let longer = "a_kind_longer_than_thirty_two_bytes_even";
    let texts: Vec<String> = (0..super::labels::LINEAR_LIMIT + 3)
        .map(|i| alloc::format!("t{i}"))
        .collect();
    let mut past_linear_with_empty: Vec<&str> = texts.iter().map(String::as_str).collect();
    past_linear_with_empty.push("");
    let cases: Vec<Payload<String>> = vec![
        payload(&["function", "method", "widget"], &["lsp", "ast"]),
        payload(&["function", "type"], &["lsp", "text_match"]),
        payload(&["widget", "function"], &["ast"]),
        payload(&["function", "a b"], &["lsp"]),
        payload(&["function"], &["bad\tprov"]),
        payload(&["method"], &["lsp"]),
        payload(&many, &["lsp"]),
        payload(&["function", long, longer], &[long, "lsp"]),
        payload(&["fn", "function", "method"], &["lsp", "ast"]),
        payload(&["kind3", "function", "x"], &["y", "lsp"]),
        // Past the linear limit texts are found by a map; seeds (texts the
        // encoder kept from an earlier call) must not be in it as "".
        payload(&["function"], &["lsp", "ast"]),
        payload(&["function"], &past_linear_with_empty),
        payload(&["function"], &["lsp", "ast"]),
        payload(&past_linear_with_empty, &["lsp"]),
    ];
    let mut reused = Encoder::new();
    for round in 0..2 {
        for (k, p) in cases.iter().enumerate() {
            // Not the one-shot `encode`: with std it reuses an encoder too.
            let fresh = Encoder::new().encode(p);
            match (fresh, reused.encode(p)) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "round {round} case {k}"),
                (Err(a), Err(b)) => {
                    assert_eq!(a.kind(), b.kind(), "round {round} case {k}");
                    assert_eq!(
                        alloc::format!("{a}"),
                        alloc::format!("{b}"),
                        "round {round} case {k}"
                    );
                }
                (a, b) => panic!("round {round} case {k}: {a:?} / {b:?}"),
            }
        }
    }
    // The invalid kind is rejected even when every other text is known.
    assert_eq!(
        reused
            .encode(&payload(&["function", "a b"], &["lsp"]))
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput
    );
}

/// A sink that encodes another payload with the one-shot function each
/// time it is written to, while the thread's encoder is busy with the
/// outer `encode_to`.
#[cfg(feature = "std")]
struct EncodingSink<'p> {
    out: Vec<u8>,
    inner: &'p Payload<String>,
    inner_outputs: Vec<String>,
}

#[cfg(feature = "std")]
impl crate::sink::Sink for EncodingSink<'_> {
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), crate::sink::SinkError> {
        self.out.extend_from_slice(bytes);
        self.inner_outputs.push(super::encode(self.inner).unwrap());
        Ok(())
    }
}

#[cfg(feature = "std")]
#[test]
fn one_shot_calls_on_one_thread_encode_alike() {
    // `encode` and `encode_to` reuse this thread's encoder: payloads one
    // after the other (one large enough that the encoder lets its buffers
    // go), and a payload encoded from inside another's sink, must each
    // encode as a fresh encoder does.
    let build = |n: usize, kind: &str, provenance: &str| -> Payload<String> {
        Payload {
            symbols: (0..n)
                .map(|i| {
                    Symbol::new(
                        alloc::format!("p.S{i}"),
                        String::from(if i % 2 == 0 { kind } else { "method" }),
                        (i % 9) as f64 / 9.0,
                        String::from(provenance),
                        (i % 2) as u32,
                    )
                })
                .collect(),
            edges: (0..2 * n)
                .map(|k| {
                    Edge::new(
                        alloc::format!("p.S{}", k / 2),
                        alloc::format!("p.S{}", (k * 5 + 3) % (n + 2)),
                        String::from(["calls", "imports"][k % 2]),
                    )
                })
                .collect(),
            ..Payload::default()
        }
    };
    let large = if cfg!(miri) { 300 } else { 20_000 };
    let cases = [
        build(10, "function", "lsp"),
        build(large, "type", "ast"),
        build(30, "widget", "lsp"),
        build(5, "function", "bad prov"),
        build(12, "function", "lsp"),
    ];
    for (k, p) in cases.iter().enumerate() {
        let fresh = Encoder::one_shot().encode(p);
        match (fresh, super::encode(p)) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "case {k}"),
            (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "case {k}"),
            (a, b) => panic!("case {k}: {a:?} / {b:?}"),
        }
    }
    // A large payload's buffers are not held after its call.
    super::encode(&cases[1]).unwrap();
    THREAD_ENCODER.with(|cell| {
        assert!(cell.borrow().scratch.heap_bytes() <= THREAD_KEEP_BYTES);
    });
    super::encode(&cases[0]).unwrap();
    THREAD_ENCODER.with(|cell| assert!(cell.borrow().scratch.heap_bytes() > 0));
    let outer = &cases[0];
    let inner = &cases[2];
    let mut sink = EncodingSink {
        out: Vec::new(),
        inner,
        inner_outputs: Vec::new(),
    };
    super::encode_to(outer, &mut sink).unwrap();
    assert_eq!(sink.out, super::encode(outer).unwrap().into_bytes());
    let expected = Encoder::one_shot().encode(inner).unwrap();
    assert!(!sink.inner_outputs.is_empty());
    assert!(sink.inner_outputs.iter().all(|text| *text == expected));
}

#[test]
fn labels_by_text_keep_every_status() {
    // Once a few labels have been found by text rather than by address
    // (copies, or more labels than the address memo keeps), edges are
    // labelled by text alone, one without a status by its type's key only.
    // Every status form (none, `unchanged`, written ones, one past 16
    // bytes) with every type (one past 16 bytes too) must be written as
    // given, whether each label is one shared string or a copy per edge.
    let types = [
        "calls",
        "implements",
        "a_type_longer_than_16",
        "x",
        "references",
    ];
    let statuses = [
        "",
        "unchanged",
        "added",
        "removed",
        "a_status_longer_than_16",
    ];
    let names: Vec<String> = (0..40).map(|i| alloc::format!("p.N{i}")).collect();
    let shared: Vec<(&str, &str)> = (0..400)
        .map(|k| (types[k % 5], statuses[(k / 5) % 5]))
        .collect();
    let copies: Vec<(String, String)> = shared
        .iter()
        .map(|&(t, s)| (String::from(t), String::from(s)))
        .collect();
    let separate: Vec<(&str, &str)> = copies
        .iter()
        .map(|(t, s)| (t.as_str(), s.as_str()))
        .collect();
    let build = |labels: &[(&str, &str)]| -> String {
        let symbols = (0..40)
            .map(|i| Symbol::new(names[i].as_str(), "fn", 0.5, "lsp", 0))
            .collect();
        let edges = labels
            .iter()
            .enumerate()
            .map(|(k, &(t, s))| Edge {
                source: names[k % 40].as_str(),
                target: names[(k * 11 + 3) % 40].as_str(),
                edge_type: t,
                status: s,
            })
            .collect();
        encode_graph(symbols, edges)
    };
    let (expected, shared, separate) = (labels_of(&shared), build(&shared), build(&separate));
    assert!(shared == separate, "{shared}\n---\n{separate}");
    assert_eq!(written_labels(&shared), expected);
    assert!(!shared.contains("unchanged"));
}

/// The text of a payload of just `symbols` and `edges`.
fn encode_graph(symbols: Vec<Symbol<&str>>, edges: Vec<Edge<&str>>) -> String {
    encode(&Payload {
        symbols,
        edges,
        ..Payload::default()
    })
    .unwrap()
}

/// Each `(edge type, status)` of `labels` with its count, `unchanged` as no
/// status (it is not written).
fn labels_of(labels: &[(&str, &str)]) -> alloc::collections::BTreeMap<(String, String), usize> {
    let mut counts = alloc::collections::BTreeMap::new();
    for &(t, s) in labels {
        let s = if s == "unchanged" { "" } else { s };
        *counts
            .entry((String::from(t), String::from(s)))
            .or_insert(0) += 1;
    }
    counts
}

/// [`labels_of`] the edges of an encoded payload.
fn written_labels(text: &str) -> alloc::collections::BTreeMap<(String, String), usize> {
    let back = crate::graph::decode(text).unwrap();
    let labels: Vec<(&str, &str)> = back
        .edges
        .iter()
        .map(|e| (e.edge_type.as_str(), e.status.as_str()))
        .collect();
    labels_of(&labels)
}

#[test]
fn labels_past_the_linear_limit_round_trip() {
    // More distinct labels than the linear scan visits: from then on they
    // are found by a map, made at that point. Each label appears on several
    // edges, as copies (an owned payload) and as one shared string, with
    // and without a written status.
    let n = super::labels::LINEAR_LIMIT + 9;
    let names: Vec<String> = (0..n).map(|i| alloc::format!("p.S{i}")).collect();
    let types: Vec<String> = (0..n).map(|i| alloc::format!("type_{i}")).collect();
    let symbols: Vec<Symbol<&str>> = names.iter().map(|q| sym(q, 0.5, 0)).collect();
    let mut edges = Vec::new();
    for round in 0..3 {
        for (i, t) in types.iter().enumerate() {
            let status = if (i + round) % 4 == 0 { "added" } else { "" };
            edges.push(Edge {
                source: names[i].as_str(),
                target: names[(i + round + 1) % n].as_str(),
                edge_type: t.as_str(),
                status,
            });
        }
    }
    let copies: Vec<(String, String)> = edges
        .iter()
        .map(|e| (String::from(e.edge_type), String::from(e.status)))
        .collect();
    let owned_edges: Vec<Edge<&str>> = edges
        .iter()
        .zip(&copies)
        .map(|(e, (t, s))| Edge {
            source: e.source,
            target: e.target,
            edge_type: t.as_str(),
            status: s.as_str(),
        })
        .collect();
    let mut expected: Vec<(String, String, String, String)> = edges
        .iter()
        .map(|e| {
            (
                String::from(e.source),
                String::from(e.target),
                String::from(e.edge_type),
                String::from(e.status),
            )
        })
        .collect();
    expected.sort();
    let mut reused = Encoder::new();
    for edges in [edges.clone(), owned_edges] {
        let p = Payload {
            tool: "t",
            symbols: symbols.clone(),
            edges,
            ..Payload::default()
        };
        let text = Encoder::new().encode(&p).unwrap();
        assert_eq!(reused.encode(&p).unwrap(), text);
        let back = crate::graph::decode(&text).unwrap();
        let mut got: Vec<(String, String, String, String)> = back
            .edges
            .into_iter()
            .map(|e| (e.source, e.target, e.edge_type, e.status))
            .collect();
        got.sort();
        assert_eq!(got, expected);
    }
}
