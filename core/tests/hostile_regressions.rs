//! Regression tests for the defect classes coverage-guided fuzzing found
//! (issue 21): hand-written vectors with the spec's error category, line and
//! column, and the properties each class broke (what one side accepts the
//! other accepts too).

use gcf_core::generic;
use gcf_core::graph::{self, Payload, Symbol};
use gcf_core::{ErrorKind, Limits};

/// The error a decode gives: kind, line, column.
fn err_of<T: std::fmt::Debug>(r: Result<T, gcf_core::Error>) -> (ErrorKind, usize, usize) {
    let e = r.expect_err("expected an error");
    (e.kind(), e.line().unwrap_or(0), e.column().unwrap_or(0))
}

// --- 1. graph `distance_` section names (spec §4 `"distance_" 1*DIGIT`) ---

#[test]
fn distance_sections_read_every_digit_string() {
    for (name, distance) in [
        ("distance_01", 1),
        ("distance_007", 7),
        ("distance_00", 0),
        ("distance_4294967295", u32::MAX),
        ("distance_0004294967295", u32::MAX),
    ] {
        let text = format!("GCF profile=graph symbols=1\n## {name}\n@0 fn a 0.50 x\n");
        let p = graph::decode(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(p.symbols.len(), 1, "{name}: the symbol must not be skipped");
        assert_eq!(p.symbols[0].distance, distance, "{name}");
        // Shared and borrowed decoders read it the same way.
        assert_eq!(
            graph::decode_shared(&text).unwrap().symbols[0].distance,
            distance
        );
        assert_eq!(
            graph::decode_borrowed(&text).unwrap().symbols[0].distance,
            distance
        );
    }
}

#[test]
fn distance_sections_beyond_u32_are_limit_errors() {
    for name in [
        "distance_4294967296",
        "distance_99999999999999999999",
        "distance_18446744073709551616",
        "distance_999999999999999999999999999999999999999",
    ] {
        let text = format!("GCF profile=graph symbols=1\n## {name}\n@0 fn a 0.50 x\n");
        assert_eq!(
            err_of(graph::decode(&text)),
            (ErrorKind::LimitExceeded, 2, 4),
            "{name}"
        );
        assert_eq!(
            err_of(graph::decode_borrowed(&text)),
            (ErrorKind::LimitExceeded, 2, 4)
        );
    }
    // Not digits: a bare-key section, skipped as unknown (§4 `group-name`).
    for name in ["distance_", "distance_x", "distance_1x", "distance_-1"] {
        let text = format!("GCF profile=graph symbols=0\n## {name}\n@0 fn a 0.50 x\n");
        assert_eq!(graph::decode(&text).unwrap().symbols.len(), 0, "{name}");
    }
}

#[test]
fn delta_added_distance_is_any_digit_string() {
    let ok = "GCF profile=graph delta=true base_root=a new_root=b\n## added\n@0 fn a 0.50 x 007\n";
    assert_eq!(graph::decode_delta(ok).unwrap().added[0].distance, 7);
    let big = "GCF profile=graph delta=true base_root=a new_root=b\n## added\n@0 fn a 0.50 x 99999999999999999999\n";
    assert_eq!(err_of(graph::decode_delta(big)).0, ErrorKind::LimitExceeded);
}

// --- 2. graph scores of 2^113 and more ---

#[test]
fn every_finite_score_that_decodes_encodes_and_round_trips() {
    let mut scores = vec![
        1.038_459_371_706_965_5e34,
        2f64.powi(113),
        2f64.powi(113) - 2f64.powi(60),
        f64::MAX,
        -f64::MAX,
        1e300,
        -1e200,
        2f64.powi(56),
        2f64.powi(120) + 2f64.powi(68),
    ];
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..2000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let v = f64::from_bits(x);
        if v.is_finite() {
            scores.push(v);
        }
    }
    for score in scores {
        let payload = Payload {
            tool: "t",
            symbols: vec![Symbol::new("a", "function", score, "x", 0)],
            ..Payload::default()
        };
        let text = graph::encode(&payload).unwrap_or_else(|e| panic!("{score:e}: {e}"));
        let back = graph::decode(&text).unwrap();
        // Two decimals, rounded half to even (§5): what the crate's `{:.2}` gives.
        let expected = format!("{score:.2}");
        assert!(
            text.contains(&format!(" {expected} x\n")),
            "{score:e}: {text}"
        );
        let again = graph::decode(&graph::encode(&back).unwrap()).unwrap();
        assert_eq!(again, back, "{score:e}");
        if score.abs() >= 1e-2 {
            assert_eq!(
                back.symbols[0].score,
                format!("{score:.2}").parse::<f64>().unwrap()
            );
        }
        // The streaming writer writes the same line.
        let options = graph::StreamOptions {
            tool: "t",
            ..Default::default()
        };
        let mut w = graph::StreamWriter::new(Vec::new(), options).unwrap();
        w.write_symbol(&payload.symbols[0]).unwrap();
        let streamed = String::from_utf8(w.finish().unwrap()).unwrap();
        assert!(streamed.contains(&format!(" {expected} x\n")), "{score:e}");
    }
}

#[test]
fn huge_scores_match_the_reference_crate() {
    for score in [
        1.038_459_371_706_965_5e34,
        2f64.powi(113),
        f64::MAX,
        -3.5e250,
    ] {
        let ours = graph::encode(&Payload {
            tool: "t",
            symbols: vec![Symbol::new("a", "function", score, "x", 0)],
            ..Payload::default()
        })
        .unwrap();
        let theirs = gcf_oracle::encode(&gcf_oracle::types::Payload {
            tool: "t".into(),
            tokens_used: 0,
            token_budget: 0,
            pack_root: String::new(),
            symbols: vec![gcf_oracle::types::Symbol {
                qualified_name: "a".into(),
                kind: "function".into(),
                score,
                provenance: "x".into(),
                distance: 0,
                signature: String::new(),
                components: Default::default(),
            }],
            edges: vec![],
        });
        assert_eq!(ours, theirs, "{score:e}");
    }
}

// --- 7. leniencies: tab-only lines, raw controls in quoted strings, trailer counts ---

#[test]
fn lines_of_only_tabs_are_tab_indentation() {
    let cases: [(&str, (ErrorKind, usize, usize)); 6] = [
        (
            "GCF profile=generic\na=1\n\t\nb=2\n",
            (ErrorKind::TabIndentation, 3, 1),
        ),
        (
            "GCF profile=generic\na=1\n  \t\n",
            (ErrorKind::TabIndentation, 3, 3),
        ),
        (
            "GCF profile=generic\n## [1]{x}\n1\n\t\t\n",
            (ErrorKind::TabIndentation, 4, 1),
        ),
        (
            "GCF profile=graph\n## targets\n\t\n@0 fn a 0.50 x\n",
            (ErrorKind::TabIndentation, 3, 1),
        ),
        (
            "GCF profile=graph\n## targets\n@0 fn a 0.50 x\n \t \n",
            (ErrorKind::TabIndentation, 4, 2),
        ),
        (
            "GCF profile=graph delta=true base_root=a new_root=b\n## removed\n\t\nfn a\n",
            (ErrorKind::TabIndentation, 3, 1),
        ),
    ];
    for (text, want) in cases {
        let got = match gcf_core::payload_kind(text) {
            Ok(gcf_core::PayloadKind::GraphDelta) => err_of(graph::decode_delta(text)),
            Ok(gcf_core::PayloadKind::Graph) => {
                let owned = err_of(graph::decode(text));
                assert_eq!(err_of(graph::decode_borrowed(text)), owned, "{text:?}");
                assert_eq!(err_of(graph::decode_shared(text)), owned, "{text:?}");
                owned
            }
            _ => err_of(generic::decode(text)),
        };
        assert_eq!(got, want, "{text:?}");
    }
    // Lines of spaces alone stay blank lines (§4.2).
    assert!(generic::decode("GCF profile=generic\na=1\n   \nb=2\n").is_ok());
    assert!(graph::decode("GCF profile=graph\n## targets\n  \n@0 fn a 0.50 x\n").is_ok());
    // An unchanged answer with a tab line is a tab error too.
    let unchanged = "GCF profile=graph unchanged=true pack_root=sha256:00 symbols=1\n\t\n";
    assert_eq!(
        err_of(gcf_core::decode_any(unchanged)),
        (ErrorKind::TabIndentation, 2, 1)
    );
}

#[test]
fn raw_control_characters_in_quoted_strings_are_invalid_escapes() {
    for c in (0u8..0x20).filter(|&c| c != b'\n' && c != b'\r') {
        let c = c as char;
        // Value, key, cell, inline array element, field name, escaped tail.
        let cases = [
            (format!("GCF profile=generic\na=\"x{c}y\"\n"), (2, 5)),
            (format!("GCF profile=generic\n\"k{c}\"=1\n"), (2, 3)),
            (
                format!("GCF profile=generic\n## [1]{{a,b}}\n1|\"{c}\"\n"),
                (3, 4),
            ),
            (format!("GCF profile=generic\nt[2]: a,\"b{c}\"\n"), (2, 11)),
            (
                format!("GCF profile=generic\n## [1]{{\"a{c}\"}}\n1\n"),
                (2, 10),
            ),
            (format!("GCF profile=generic\na=\"\\n{c}\"\n"), (2, 6)),
        ];
        for (text, (line, column)) in cases {
            assert_eq!(
                err_of(generic::decode(&text)),
                (ErrorKind::InvalidEscape, line, column),
                "{text:?}"
            );
        }
        // A quoted graph location file.
        let text = format!(
            "GCF profile=graph\n## targets\n@0 fn a 0.50 x\n## loc [1]\n@0 \"a{c}.go\" 1 1\n"
        );
        assert_eq!(
            err_of(graph::decode(&text)).0,
            ErrorKind::InvalidEscape,
            "{text:?}"
        );
    }
    // Escaped, they are data; DEL and C1 controls are `unescaped` (§2.2).
    let v = generic::decode("GCF profile=generic\na=\"\\t\\u0000\u{7f}\u{85}\"\n").unwrap();
    assert_eq!(
        v.as_object().unwrap().get("a").unwrap().as_str(),
        Some("\t\0\u{7f}\u{85}")
    );
}

/// Spec §8.4.1 says a graph decoder "MUST NOT reject a graph trailer because
/// `counts` is labeled, is malformed, or names an unrecognized label" and
/// that graph `counts` "are not validated against section item totals
/// (Section 13.2)"; §13.2 reads as if a trailer's counts always bind. The
/// graph-specific rule wins: `counts` is informational, while `symbols=`,
/// `edges=` and `loc=` (the totals §13.2's edge `[?]` count and §8.4.1's sum
/// rule reduce to) are checked.
#[test]
fn graph_trailer_counts_are_informational_but_totals_bind() {
    let body = "GCF profile=graph\n## targets\n@0 fn a 0.90 x\n@1 fn b 0.80 x\n## edges [?]\n@0<@1 calls\n";
    for counts in [
        "counts=9,9",
        "counts=targets:7,edges:5",
        "counts=x",
        "counts=1:2:3",
        "",
    ] {
        let text = format!("{body}##! summary symbols=2 edges=1 {counts}\n");
        let p = graph::decode(&text).unwrap_or_else(|e| panic!("{counts}: {e}"));
        assert_eq!((p.symbols.len(), p.edges.len()), (2, 1));
    }
    let wrong_edges = format!("{body}##! summary symbols=2 edges=2 counts=2,2\n");
    assert_eq!(
        err_of(graph::decode(&wrong_edges)).0,
        ErrorKind::CountMismatch
    );
    let wrong_symbols = format!("{body}##! summary symbols=3 edges=1 counts=2,1\n");
    assert_eq!(
        err_of(graph::decode(&wrong_symbols)).0,
        ErrorKind::CountMismatch
    );
    // The generic profile's counts bind (§8.4, §13.2).
    let generic = "GCF profile=generic\n## r [?]{id}\n1\n2\n##! summary counts=3\n";
    assert_eq!(err_of(generic::decode(generic)).0, ErrorKind::CountMismatch);
}

/// Spec §4 limits `qname`, `provenance` and `edge-type` to `%x21-7E`, but the
/// official fixture `graph-decode/004_grapheme_extending_scalar_fields` (and
/// the §1 rule that delimiters are matched by code point, written for exactly
/// such fields) requires a decoder to read `ௗpkg.handler` and `ௗast`. The
/// fixture binds: the decoder accepts non-ASCII tokens without whitespace or
/// controls, and so the encoder writes them, keeping the two symmetric
/// (what one side accepts the other does too; re-encoding a decoded fixture
/// never fails). Whitespace and controls, ASCII or not, are refused by both.
#[test]
fn non_ascii_graph_tokens_are_symmetric() {
    let text = "GCF profile=graph tool=t symbols=2 edges=1\n## targets\n@0 fn ௗpkg.é 0.95 lsp\n\
                @1 ƒn pkg.b 0.80 ௗast\n## edges [1]\n@0<@1 rüft\n";
    let p = graph::decode(text).unwrap();
    assert_eq!(graph::encode(&p).unwrap(), text);
    for bad in [
        "a\u{a0}b",
        "a\u{2028}b",
        "a\u{85}b",
        "a b",
        "a\tb",
        "a\u{3000}",
    ] {
        let line = format!("GCF profile=graph\n## targets\n@0 fn {bad} 0.50 x\n");
        assert_eq!(
            err_of(graph::decode(&line)),
            (ErrorKind::InvalidNodeLine, 3, 1),
            "{bad:?}"
        );
        let payload = Payload {
            symbols: vec![Symbol::new(bad, "function", 0.5, "x", 0)],
            ..Payload::default()
        };
        assert_eq!(
            graph::encode(&payload).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
    }
}

// --- 6. deltas: what `diff` accepts encodes; abbreviated kinds match ---

fn keyed_row(fields: &[&str], values: &[generic::Value]) -> generic::Map {
    let mut m = generic::Map::new();
    for (f, v) in fields.iter().zip(values) {
        m.push_unique(*f, v.clone());
    }
    m
}

#[test]
fn generic_diff_refuses_what_no_payload_carries() {
    use generic::{KeyedSet, Value};
    let fields = ["id", "a>b"];
    let set = |v: i64| KeyedSet {
        name: "t".into(),
        key: "id".into(),
        fields: fields.iter().map(|f| f.to_string()).collect(),
        rows: vec![keyed_row(&fields, &[Value::Int(1), Value::Int(v)])],
    };
    assert_eq!(
        generic::diff(&set(1), &set(2)).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        generic::encode_full(&set(2), "t").unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
}

/// Random keyed sets, `>` and duplicate fields, nested values, absent and
/// undeclared members included: whenever `diff` gives a delta, the delta,
/// the full payload and `respond` all encode, and the delta applies to the
/// new set's root.
#[test]
fn generic_diff_success_implies_every_encoding_succeeds() {
    use generic::{KeyedSet, Value};
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let names = ["id", "a", "b>c", "a>b", "d", "a"];
    let mut diffs = 0;
    for _ in 0..3000 {
        let width = 1 + next(4) as usize;
        let mut fields = vec!["id"];
        for _ in 1..width {
            fields.push(names[1 + next(5) as usize]);
        }
        let make = |next: &mut dyn FnMut(u64) -> u64| KeyedSet {
            name: "t".into(),
            key: "id".into(),
            fields: fields.iter().map(|f| f.to_string()).collect(),
            rows: (0..next(4))
                .map(|_| {
                    let mut m = generic::Map::new();
                    for f in &fields {
                        if m.contains_key(f) || next(10) == 0 {
                            continue;
                        }
                        let v = match next(8) {
                            0 => Value::Null,
                            1 => Value::Array(vec![]),
                            2 => Value::from("s"),
                            _ => Value::Int(next(3) as i64),
                        };
                        m.push_unique(*f, v);
                    }
                    if next(20) == 0 {
                        m.push_unique("extra", Value::Int(1));
                    }
                    m
                })
                .collect(),
        };
        let base = make(&mut next);
        let new = make(&mut next);
        if let Ok(Some(delta)) = generic::diff(&base, &new) {
            diffs += 1;
            let wire = generic::encode_delta(&delta).expect("diff succeeded, so the delta encodes");
            generic::encode_full(&new, "t").expect("diff succeeded, so the full payload encodes");
            generic::respond(Some(&base), &new, "t").expect("diff succeeded, so respond answers");
            let applied = generic::apply_delta(&base, &wire).expect("the delta applies");
            assert_eq!(
                generic::pack_root(&applied).unwrap(),
                generic::pack_root(&new).unwrap()
            );
        }
    }
    assert!(
        diffs > 100,
        "only {diffs} diffs succeeded: the generator is too strict"
    );
}

#[test]
fn graph_delta_removals_match_abbreviated_kinds_in_the_base() {
    use graph::{Snapshot, Symbol as S};
    for kind in ["fn", "function", "iface", "widget"] {
        let base: Snapshot = Snapshot {
            symbols: vec![S::new("pkg.A".into(), kind.into(), 0.5, "x".into(), 0)],
            edges: vec![],
        };
        let empty: Snapshot = Snapshot::default();
        let wire = format!(
            "GCF profile=graph delta=true base_root={} new_root={}\n## removed\n{} pkg.A\n",
            base.pack_root().unwrap(),
            empty.pack_root().unwrap(),
            gcf_core::graph::abbreviate_kind(kind)
        );
        let applied = graph::apply_delta(&base, &wire).unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert!(applied.symbols.is_empty(), "{kind}");
        // And `diff` sees `fn` and `function` as one symbol.
        let full: Snapshot = Snapshot {
            symbols: vec![S::new(
                "pkg.A".into(),
                gcf_core::graph::expand_kind(kind).into(),
                0.5,
                "x".into(),
                0,
            )],
            edges: vec![],
        };
        let d = graph::diff(&base, &full, "t").unwrap();
        assert!(d.added.is_empty() && d.removed.is_empty(), "{kind}");
    }
}

// --- 3. depth: the decoder accepts exactly the values the encoder accepts ---

fn depth_of(v: &generic::Value) -> usize {
    match v {
        generic::Value::Object(m) => 1 + m.values().map(depth_of).max().unwrap_or(0),
        generic::Value::Array(a) => 1 + a.iter().map(depth_of).max().unwrap_or(0),
        _ => 0,
    }
}

/// Sections, tables, path columns (flattened nested objects), traditional
/// and inline attachments at the end of a path: for every depth limit, both
/// the decoder and the encoder accept a value exactly when its container
/// depth is within the limit.
#[test]
fn decoder_and_encoder_agree_on_depth() {
    use generic::{Decoder, Encoder, Map, Value};
    let obj = |k: &str, v: Value| {
        let mut m = Map::new();
        m.push_unique(k, v);
        Value::Object(m)
    };
    let mut shapes = 0;
    for sections in 0..3 {
        for path in 1..5 {
            for leaf in 0..4 {
                for keyed in [false, true] {
                    let end = match leaf {
                        0 => Value::Int(1),
                        1 => obj("x", Value::Int(1)),
                        2 => Value::Array(vec![obj("x", Value::Int(1)), obj("y", Value::Int(2))]),
                        _ => Value::Array(vec![Value::Int(1), Value::Int(2)]),
                    };
                    let row = |i: i64| {
                        let mut v = end.clone();
                        for _ in 1..path {
                            v = obj("a", v);
                        }
                        let mut m = Map::new();
                        m.push_unique("id", Value::Int(i));
                        m.push_unique("a", v);
                        Value::Object(m)
                    };
                    let mut v = if keyed {
                        let mut m = Map::new();
                        m.push_unique("r0", row(0));
                        m.push_unique("r1", row(1));
                        Value::Object(m)
                    } else {
                        Value::Array(vec![row(0), row(1)])
                    };
                    for _ in 0..sections {
                        v = obj("s", v);
                    }
                    let text = generic::encode(&v).unwrap();
                    let depth = depth_of(&v);
                    for max_depth in 1..=depth + 1 {
                        let limits = Limits {
                            max_depth,
                            ..Limits::default()
                        };
                        let decoded = Decoder::new().limits(limits).decode(&text);
                        let encoded = Encoder::new().limits(limits).encode(&v);
                        let fits = depth <= max_depth;
                        assert_eq!(
                            decoded.is_ok(),
                            fits,
                            "decode, depth {depth}, limit {max_depth}:\n{text}"
                        );
                        assert_eq!(
                            encoded.is_ok(),
                            fits,
                            "encode, depth {depth}, limit {max_depth}:\n{text}"
                        );
                        if let Err(e) = decoded {
                            assert_eq!(e.kind(), ErrorKind::LimitExceeded);
                        }
                    }
                    shapes += 1;
                }
            }
        }
    }
    assert_eq!(shapes, 96);
}

/// The issue's own input: a 128-segment path column is 129 containers deep
/// under the default limit of 128, so the decoder refuses it at its header.
#[test]
fn long_path_columns_count_toward_depth() {
    let path = vec!["a"; 128].join(">");
    let text = format!("GCF profile=generic\n## [1]{{\"{path}\"}}\n1\n");
    assert_eq!(
        err_of(generic::decode(&text)),
        (ErrorKind::LimitExceeded, 2, 4)
    );
    let ok = format!(
        "GCF profile=generic\n## [1]{{\"{}\"}}\n1\n",
        vec!["a"; 127].join(">")
    );
    let v = generic::decode(&ok).unwrap();
    assert_eq!(depth_of(&v), 128);
    assert!(generic::encode(&v).is_ok());
}

// --- 4. the generic stream writer enforces what its decoder enforces ---

/// Drives the writer with nested sections, a table or keyed map, inline
/// arrays and rows under every small limit: each call either succeeds or
/// fails with no output, and whatever was written decodes under the same
/// limits.
#[test]
fn generic_stream_writer_never_writes_what_its_decoder_refuses() {
    use generic::{Cell, StreamOptions, StreamWriter, Value};
    let mut refused = 0;
    for max_depth in 1..6 {
        for max_fields in 1..4 {
            for max_container_len in 1..4 {
                for sections in 0..7 {
                    for keyed in [false, true] {
                        let limits = Limits {
                            max_depth,
                            max_fields,
                            max_container_len,
                            ..Limits::default()
                        };
                        let mut w = StreamWriter::new(String::new(), StreamOptions::new())
                            .unwrap()
                            .limits(limits);
                        let mut open = 0;
                        for i in 0..sections {
                            if w.begin_section(&format!("s{i}")).is_ok() {
                                open += 1;
                            } else {
                                refused += 1;
                            }
                        }
                        let _ = w.inline_array("a", &[Value::Int(1), Value::Int(2)]);
                        let fields = ["x", "y"];
                        let opened = if keyed {
                            w.begin_keyed_map(Some("t"), &fields)
                        } else {
                            w.begin_table(Some("t"), &fields)
                        };
                        if opened.is_ok() {
                            for r in 0..4 {
                                let cells = [Cell::Int(r), Cell::Null];
                                let _ = if keyed {
                                    w.keyed_row(&format!("k{r}"), &cells)
                                } else {
                                    w.row(&cells)
                                };
                            }
                            w.end_table().unwrap();
                        }
                        for _ in 0..open {
                            w.end_section().unwrap();
                        }
                        let text = w.finish().unwrap();
                        let decoded = generic::Decoder::new().limits(limits).decode(&text);
                        assert!(decoded.is_ok(), "{limits:?}: {:?}\n{text}", decoded.err());
                    }
                }
            }
        }
    }
    assert!(refused > 100);
    // The input: 1,000 nested sections under the default limits.
    let mut w = StreamWriter::new(String::new(), StreamOptions::new()).unwrap();
    let accepted = (0..1000)
        .take_while(|i| w.begin_section(&format!("s{i}")).is_ok())
        .count();
    assert_eq!(
        accepted, 127,
        "the root object is depth 1, so 127 sections reach 128"
    );
    assert_eq!(
        w.begin_section("x").unwrap_err().kind(),
        ErrorKind::LimitExceeded
    );
    let text = w.finish().unwrap();
    assert!(generic::decode(&text).is_ok());
}

/// Found by the `deltas` fuzz target: a payload with two `## edges`
/// sections repeats an edge, and the delta `diff` made from it failed to
/// apply. A snapshot that repeats a symbol or an edge now has no delta
/// (`diff` refuses it, `respond` answers in full).
#[test]
fn graph_diff_refuses_multisets_and_respond_sends_full() {
    let text = "GCF profile=graph\n## targets\n@0 fn a 0.95 lsp\n@1 fn b 0.90 lsp\n## edges [?]\n@0<@1 calls\n\
                ## edges [?]\n@0<@1 calls\n";
    let p = graph::decode(text).unwrap();
    assert_eq!(p.edges.len(), 2);
    let base = graph::Snapshot {
        symbols: p.symbols.clone(),
        edges: p.edges.clone(),
    };
    let empty = graph::Snapshot::default();
    assert_eq!(
        graph::diff(&base, &empty, "t").unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        graph::diff(&empty, &base, "t").unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    let root = base.pack_root().unwrap();
    let current = graph::Payload {
        tool: "t".to_string(),
        ..graph::Payload::default()
    };
    let outcome = graph::respond(Some(&root), Some(&base), &current).unwrap();
    assert!(matches!(outcome, graph::Outcome::Full(_)));
    // Without repeats the delta applies and verifies.
    let set = graph::Snapshot {
        symbols: p.symbols.clone(),
        edges: p.edges[..1].to_vec(),
    };
    let d = graph::diff(&set, &empty, "t").unwrap();
    let applied = graph::apply_delta(&set, &graph::encode_delta(&d).unwrap()).unwrap();
    assert_eq!(applied.pack_root().unwrap(), empty.pack_root().unwrap());
}

/// Found by the `stream_writers` fuzz target: eight `key=value` lines under
/// `max_container_len: 1` were written, then refused by the decoder. Object
/// members count toward the limit in the writer too.
#[test]
fn generic_stream_writer_counts_object_members() {
    use generic::{Cell, StreamOptions, StreamWriter, Value};
    let limits = Limits {
        max_container_len: 2,
        ..Limits::default()
    };
    let mut w = StreamWriter::new(String::new(), StreamOptions::new())
        .unwrap()
        .limits(limits);
    w.field("a", Cell::Null).unwrap();
    w.begin_section("s").unwrap();
    w.field("x", Cell::Int(1)).unwrap();
    w.inline_array("y", &[Value::Int(1)]).unwrap();
    assert_eq!(
        w.field("z", Cell::Null).unwrap_err().kind(),
        ErrorKind::LimitExceeded
    );
    w.end_section().unwrap();
    assert_eq!(
        w.field("b", Cell::Null).unwrap_err().kind(),
        ErrorKind::LimitExceeded
    );
    assert_eq!(
        w.begin_table(Some("t"), &["c"]).unwrap_err().kind(),
        ErrorKind::LimitExceeded
    );
    let text = w.finish().unwrap();
    assert!(
        generic::Decoder::new().limits(limits).decode(&text).is_ok(),
        "{text}"
    );
}

/// Found by the `deltas` fuzz target: a full payload may hold a symbol of
/// kind `##` (any token is a kind on decode), and its `## removed` line
/// `## name` read back as a section header. A kind or edge source that would
/// start a delta line as `#` (a comment) or `##` (a section) has no delta:
/// `diff` refuses it, `encode_delta` refuses it, `respond` sends it in full.
#[test]
fn graph_delta_lines_never_start_as_comments_or_sections() {
    let text = "GCF profile=graph\n## targets\n@0 fn a 0.95 lsp\n@1 ## targetsonfig 0.55 ast\n@2 fn # 0.50 x\n\
                ## edges [1]\n@0<@2 calls\n";
    let p = graph::decode(text).unwrap();
    assert_eq!(p.symbols[1].kind, "##");
    let base = graph::Snapshot {
        symbols: p.symbols.clone(),
        edges: p.edges.clone(),
    };
    let empty = graph::Snapshot::default();
    assert_eq!(
        graph::diff(&base, &empty, "t").unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    let root = base.pack_root().unwrap();
    let current = graph::Payload {
        tool: "t".to_string(),
        ..graph::Payload::default()
    };
    assert!(matches!(
        graph::respond(Some(&root), Some(&base), &current).unwrap(),
        graph::Outcome::Full(_)
    ));
    // Each case alone: the `##` kind, and the `#` edge source.
    let only_kind = graph::Snapshot {
        symbols: p.symbols[..2].to_vec(),
        edges: vec![],
    };
    assert!(graph::diff(&only_kind, &empty, "t").is_err());
    let only_edge = graph::Snapshot {
        symbols: vec![p.symbols[0].clone(), p.symbols[2].clone()],
        edges: p.edges.clone(),
    };
    let with_source_hash = graph::Snapshot {
        symbols: only_edge.symbols.clone(),
        edges: vec![],
    };
    assert!(graph::diff(&with_source_hash, &only_edge, "t").is_err());
    // Without them the delta encodes, applies and verifies.
    let plain = graph::Snapshot {
        symbols: vec![p.symbols[0].clone()],
        edges: vec![],
    };
    let d = graph::diff(&plain, &empty, "t").unwrap();
    graph::apply_delta(&plain, &graph::encode_delta(&d).unwrap()).unwrap();
}

/// Found by the generic_decode fuzz target: an inline array of strings where
/// a bare `^{a` is followed by cells that close a `^{...}` declaration. The
/// encoder writes `^{a` bare (it is no complete marker on its own), so the
/// decoder must end it at the comma, as the references do, and the whole
/// array must round trip.
#[test]
fn caret_brace_strings_in_inline_arrays_round_trip() {
    let text =
        "GCF profile=generic\nvas[8]: hello,42e,fal{e,,^{a,## edges_added_2oot3{id,name},\"-\"\n";
    let value = generic::decode(text).unwrap();
    let encoded = generic::encode(&value).unwrap();
    assert_eq!(
        encoded,
        "GCF profile=generic\nvas[8]: hello,42e,fal{e,\"\",^{a,\"## edges_added_2oot3{id\",name},\"-\"\n"
    );
    assert_eq!(generic::decode(&encoded).unwrap(), value);
    for items in [
        vec!["^{a", "x{id", "name}"],
        vec!["^{a", "\"b\"", "c}"],
        vec!["^{", "}"],
    ] {
        let value = generic::Value::Array(items.iter().map(|&s| generic::Value::from(s)).collect());
        let encoded = generic::encode(&value).unwrap();
        assert_eq!(generic::decode(&encoded).unwrap(), value, "{encoded}");
    }
}
