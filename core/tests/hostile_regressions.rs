//! Regression tests for the defect classes coverage-guided fuzzing found
//! (issue 21): hand-written vectors with the spec's error category, line and
//! column, and the properties each class broke (what one side accepts the
//! other accepts too).

use gcf_core::generic;
use gcf_core::graph::{self, Payload, Symbol};
use gcf_core::ErrorKind;

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
