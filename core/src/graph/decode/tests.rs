use super::*;
use crate::graph::types::{Edge, Reference};

fn err(input: &str) -> (ErrorKind, Option<usize>, Option<usize>) {
    let e = decode(input).unwrap_err();
    (e.kind(), e.line(), e.column())
}

#[test]
fn declared_counts_presize_only_what_the_input_can_hold() {
    // A header claiming ~10^18 symbols and edges must not make the decoder
    // reserve for them (that would abort on allocation): the reservation is
    // capped by the input's length, and the mismatch is reported.
    let huge = "GCF profile=graph symbols=999999999999999999 edges=999999999999999999\n\
                ## targets\n@0 fn a 0.50 x\n";
    assert_eq!(decode(huge).unwrap_err().kind(), ErrorKind::CountMismatch);
    let text = "GCF profile=graph symbols=2 edges=1\n## targets\n@0 fn a 0.50 x\n\
                @1 fn b 0.40 x\n## edges [1]\n@0<@1 calls\n";
    let p = decode(text).unwrap();
    assert_eq!((p.symbols.len(), p.edges.len()), (2, 1));
    let mut state_input = SourceLines::new(text, &Limits::default()).unwrap();
    let line = state_input.next().unwrap().unwrap();
    let header = crate::header::parse_header(&line).unwrap();
    let limits = Limits::default();
    let mut state = State::<Cow<str>>::new(&line, &header, &limits).unwrap();
    state.presize(text.len());
    assert!(state.payload.symbols.capacity() >= 2);
    assert!(state.payload.edges.capacity() >= 1);
    let mut lying = State::<Cow<str>>::new(&line, &header, &limits).unwrap();
    lying.header_symbols = Some(u64::MAX);
    lying.presize(120);
    assert!(lying.payload.symbols.capacity() <= 120 / 12);
}

#[test]
fn decodes_groups_edges_and_kinds() {
    let p = decode(
        "GCF profile=graph tool=t budget=5 tokens=3 symbols=3 edges=2 pack_root=sha256:ab\r\n# c\n\n## targets\n\
         @0 fn a.A 0.78 lsp\n## distance_7\n@1 widget a.B 0.10 x\n## extended\n@2 pkg a.C -1.50 y\n## edges [2]\n\
         @0<@1 calls\n@2<@0 uses added\n",
    )
    .unwrap();
    assert_eq!(
        (
            p.tool.as_str(),
            p.token_budget,
            p.tokens_used,
            p.pack_root.as_str()
        ),
        ("t", 5, 3, "sha256:ab")
    );
    assert_eq!(
        p.symbols[0],
        Symbol::new("a.A".into(), "function".into(), 0.78, "lsp".into(), 0)
    );
    assert_eq!(p.symbols[1].kind, "widget");
    assert_eq!(p.symbols[1].distance, 7);
    assert_eq!(p.symbols[2].score, -1.5);
    assert_eq!(
        p.edges[0],
        Edge::new("a.B".into(), "a.A".into(), "calls".into())
    );
    assert_eq!(p.edges[1].status, "added");
}

#[test]
fn fields_with_whitespace_or_control_characters_are_rejected() {
    // Spec §4: `qname`, `provenance` and `edge-type` are printable and
    // never contain whitespace; the encoder refuses the same characters
    // (`check_token`), so a decoder that took them would accept payloads
    // no encoder writes.
    let nodes = |a: &str, b: &str| {
        alloc::format!(
            "GCF profile=graph symbols=2 edges=1\n## targets\n{a}\n{b}\n## edges [1]\n@0<@1 calls\n"
        )
    };
    for bad in [
        "\t", "\u{1}", "\u{7f}", "\u{85}", "\u{a0}", "\u{2028}", "\u{3000}",
    ] {
        for line in [
            alloc::format!("@0 fn a{bad}b 0.50 lsp"),
            alloc::format!("@0 f{bad}n ab 0.50 lsp"),
            alloc::format!("@0 fn ab 0.50 l{bad}sp"),
            alloc::format!("@0 fn ab 0.50 lsp{bad}"),
        ] {
            for text in [
                nodes(&line, "@1 fn b 0.40 x"),
                nodes("@1 fn b 0.40 x", &line),
            ] {
                assert_eq!(err(&text).0, ErrorKind::InvalidNodeLine, "{text:?}");
                assert!(decode_shared(&text).is_err() && decode_borrowed(&text).is_err());
            }
        }
        for edge in [
            alloc::format!("@0<@1 ca{bad}lls"),
            alloc::format!("@0<@1 calls{bad}"),
            alloc::format!("@0<@1 calls add{bad}ed"),
        ] {
            let text = alloc::format!(
                "GCF profile=graph symbols=2 edges=1\n## targets\n@0 fn a 0.50 x\n@1 fn b 0.40 x\n## edges [1]\n{edge}\n"
            );
            assert_eq!(
                err(&text),
                (ErrorKind::InvalidEdgeSyntax, Some(6), Some(1)),
                "{text:?}"
            );
        }
        let text = alloc::format!(
            "GCF profile=graph symbols=1\n## targets\n@0 fn a 0.50 x\n## loc [1]\n@0 a{bad}.go 3 1\n"
        );
        assert_eq!(err(&text).0, ErrorKind::InvalidNodeLine, "{text:?}");
    }
    // Non-ASCII text without whitespace or controls is still a field,
    // on every line shape.
    let text = "GCF profile=graph symbols=2 edges=1\n## targets\n@0 fn é.名 0.50 ünï\n\
                @1 ƒn b 0.40 x\n## edges [1]\n@0<@1 rüft neu\n## loc [1]\n@0 dätei.go 3 1\n";
    let p = decode(text).unwrap();
    assert_eq!(p.symbols[0].qualified_name, "é.名");
    assert_eq!(p.symbols[0].provenance, "ünï");
    assert_eq!(p.symbols[1].kind, "ƒn");
    assert_eq!(
        (p.edges[0].edge_type.as_str(), p.edges[0].status.as_str()),
        ("rüft", "neu")
    );
    assert_eq!(p.locations[0].file, "dätei.go");
}

#[test]
fn strict_errors_with_positions() {
    assert_eq!(
        err("GCF profile=graph\n## targets\n@0 fn a 0.9 x\n").0,
        ErrorKind::InvalidScore
    );
    assert_eq!(
        err("GCF profile=graph\n## targets\n@0 fn a 0.90\n"),
        (ErrorKind::InvalidNodeLine, Some(3), Some(1))
    );
    assert_eq!(
        err("GCF profile=graph\n## targets\n@0 fn  a 0.90 x\n").0,
        ErrorKind::InvalidNodeLine
    );
    assert_eq!(
        err("GCF profile=graph\n## targets\n@0 fn a 0.90 x y\n").0,
        ErrorKind::InvalidNodeLine
    );
    assert_eq!(
        err("GCF profile=graph\n## targets\n@x fn a 0.90 x\n"),
        (ErrorKind::InvalidSymbolId, Some(3), Some(2))
    );
    assert_eq!(
        err("GCF profile=graph\n## targets\n@0 fn a 0.90 x\n@0 fn b 0.90 x\n").0,
        ErrorKind::InvalidSymbolId
    );
    assert_eq!(
        err("GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## edges\n@0 @0 calls\n").0,
        ErrorKind::InvalidEdgeSyntax
    );
    assert_eq!(
        err("GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## edges\n@0<@0\n").0,
        ErrorKind::InvalidEdgeSyntax
    );
    assert_eq!(
        err("GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## edges\n@0<@0 a b c\n").0,
        ErrorKind::InvalidEdgeSyntax
    );
    assert_eq!(
        err("GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## edges\n@0<@9 calls\n"),
        (ErrorKind::UnknownEdgeReference, Some(5), Some(4))
    );
    assert_eq!(
        err("GCF profile=graph\n## edges [03]\n"),
        (ErrorKind::InvalidCount, Some(2), Some(11))
    );
    assert_eq!(
        err("GCF profile=graph\n## edges [2]\n"),
        (ErrorKind::CountMismatch, Some(2), Some(10))
    );
    assert_eq!(
        err("GCF profile=graph symbols=2\n## targets\n@0 fn a 0.90 x\n").0,
        ErrorKind::CountMismatch
    );
    assert_eq!(
        err("GCF profile=graph\n@0 fn a 0.90 x\n").0,
        ErrorKind::InvalidSyntax
    );
    assert_eq!(
        err("GCF profile=graph\n## targets\n  @0 fn a 0.90 x\n").0,
        ErrorKind::InvalidIndent
    );
    assert_eq!(
        err("GCF profile=graph\n## targets\n\t@0 fn a 0.90 x\n").0,
        ErrorKind::TabIndentation
    );
    assert_eq!(
        err("GCF profile=graph\n## removed\nfn a\n").0,
        ErrorKind::MalformedDelta
    );
    assert_eq!(err("GCF profile=generic\n=1\n").0, ErrorKind::InvalidInput);
    assert_eq!(
        err("GCF profile=graph budget=x\n").0,
        ErrorKind::MalformedHeaderField
    );
    assert_eq!(
        err("GCF profile=graph session=yes\n").0,
        ErrorKind::MalformedHeaderField
    );
    assert_eq!(err("").0, ErrorKind::MissingHeader);
}

#[test]
fn streaming_trailers() {
    let ok = "GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## edges [?]\n@0<@0 calls\n##! summary symbols=1 edges=1 counts=targets:1,edges:1\n";
    assert_eq!(decode(ok).unwrap().edges.len(), 1);
    let legacy = "GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## edges [?]\n@0<@0 calls\n## _summary symbols=1 edges=1 sections=targets:1,edges:1\n";
    assert_eq!(decode(legacy).unwrap().edges.len(), 1);
    let junk_counts = "GCF profile=graph\n## targets\n@0 fn a 0.90 x\n##! summary symbols=1 edges=0 counts=what:ever,x\n";
    assert!(decode(junk_counts).is_ok());
    let bad = "GCF profile=graph\n## targets\n@0 fn a 0.90 x\n##! summary symbols=2 edges=0\n";
    assert_eq!(err(bad), (ErrorKind::CountMismatch, Some(4), Some(1)));
    let after = "GCF profile=graph\n##! summary symbols=0 edges=0\n## targets\n";
    assert_eq!(err(after).0, ErrorKind::InvalidSyntax);
}

/// Before the first group header a line that is no node or edge line is
/// `invalid_node_line`, as in a group (and in the references); a node line
/// there has no group to take its distance from (the references give it 0).
#[test]
fn lines_before_the_first_group_header() {
    for junk in ["foo", "GCF profile=graph", "12 fn a 0.50 x"] {
        let text = alloc::format!("GCF profile=graph\n{junk}\n");
        assert_eq!(
            err(&text),
            (ErrorKind::InvalidNodeLine, Some(2), Some(1)),
            "{junk:?}"
        );
    }
    assert_eq!(
        err("GCF profile=graph symbols=1\n@0 fn a 0.90 x\n").0,
        ErrorKind::InvalidSyntax
    );
}

/// A comment is `#` and a space (spec §4); a lone `#` is a line to read.
#[test]
fn a_comment_needs_its_space() {
    let ok =
        decode("GCF profile=graph symbols=1\n# \n## targets\n# note\n@0 fn a 0.90 x\n").unwrap();
    assert_eq!(ok.symbols.len(), 1);
    for bad in ["#", "#\t", "#x"] {
        let text =
            alloc::format!("GCF profile=graph symbols=1\n## targets\n@0 fn a 0.90 x\n{bad}\n");
        let (kind, line, column) = err(&text);
        assert_eq!(
            (kind, line, column),
            (ErrorKind::InvalidNodeLine, Some(4), Some(1)),
            "{bad:?}"
        );
    }
}

#[test]
fn references_locations_and_unknown_sections() {
    let p = decode(
        "GCF profile=graph symbols=2 session=true\n## targets\n@4  # previously transmitted\n@7 fn a.B 0.50 x\n\
         ## future [1]{a}\nwhatever\n## loc [2]\n@7 \"my dir/b.go\" 3 4\n@7 b.go 1 2 3 4\n",
    )
    .unwrap();
    assert!(p.session);
    assert_eq!(p.references, [Reference { id: 4, distance: 0 }]);
    assert_eq!(p.locations[0].file, "my dir/b.go");
    assert_eq!(p.locations[1].end, Some((3, 4)));
    let e = err("GCF profile=graph\n## targets\n@4  # previously transmitted\n## edges\n@4<@4 x\n");
    assert_eq!(e.0, ErrorKind::UnknownEdgeReference);
    assert_eq!(
        err("GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## loc\n@1 f 1 1\n").0,
        ErrorKind::UnknownEdgeReference
    );
    assert_eq!(
        err("GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## loc\n@0 f 1\n").0,
        ErrorKind::InvalidNodeLine
    );
    assert_eq!(
        err("GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## loc\n@0 f 0 1\n").0,
        ErrorKind::InvalidNodeLine
    );
    assert_eq!(
        err("GCF profile=graph\n## targets\n@0 fn a 0.90 x\n## loc\n@0 \"f 1 1\n").0,
        ErrorKind::UnterminatedQuote
    );
}

#[test]
fn a_decoder_without_references_refuses_a_bare_one_at_its_line() {
    let text = "GCF profile=graph session=true symbols=3 edges=1\n## targets\n@1 fn a 0.50 x\n\
                ## related\n@4  # previously transmitted\n@5 fn b 0.50 x\n## edges [1]\n@5<@1 calls\n";
    let refusing = Decoder::new().refuse_references(true);
    for e in [
        refusing.decode(text).unwrap_err(),
        refusing.decode_borrowed(text).unwrap_err(),
        refusing.decode_indexed(text).map(|_| ()).unwrap_err(),
        refusing.decode_shared(text).unwrap_err(),
    ] {
        assert_eq!(
            (e.kind(), e.line(), e.column()),
            (ErrorKind::InvalidNodeLine, Some(5), Some(1)),
            "{e}"
        );
        assert!(e.message().contains("@4"), "{e}");
    }
    // The default keeps the reference, and a payload without one decodes
    // the same either way.
    assert_eq!(
        decode(text).unwrap().references,
        [Reference { id: 4, distance: 1 }]
    );
    let plain = "GCF profile=graph symbols=1\n## targets\n@0 fn a 0.50 x\n";
    assert_eq!(refusing.decode(plain).unwrap(), decode(plain).unwrap());
}

#[test]
fn id_table_handles_sparse_ids() {
    let mut t = IdTable::new();
    assert!(t.insert(0, Slot::Symbol(0)));
    assert!(t.insert(1, Slot::Symbol(1)));
    assert!(t.insert(9, Slot::Symbol(2)));
    assert!(!t.insert(1, Slot::Symbol(3)));
    assert_eq!(t.get(9), Some(Slot::Symbol(2)));
    assert_eq!(t.get(0), Some(Slot::Symbol(0)));
    assert_eq!(t.get(5), None);
}

#[test]
fn owned_decode_equals_the_borrowed_decode_made_owned() {
    for input in [
        "GCF profile=graph tool=t budget=5 tokens=3 symbols=3 edges=3 pack_root=sha256:ab\n\
         ## targets\n@0 fn pkg.A 0.90 lsp\n## related\n@1 widget pkg.B 0.50 ast\n\
         ## distance_7\n@2 iface pkg.C -1.25 x\n## edges [3]\n@0<@1 calls\n\
         @2<@0 uses added\n@1<@1 self\n## loc [2]\n@0 \"my \\\"dir\\\"/a.go\" 3 1 9 2\n@1 b.go 1 5\n",
        "GCF profile=graph session=true symbols=2\n## targets\n@7  # previously transmitted\n\
         @8 fn a 0.50 x\n",
        "GCF profile=graph unchanged=true symbols=4\n",
    ] {
        let owned = decode(input).unwrap();
        assert_eq!(owned, decode_borrowed(input).unwrap().to_owned_payload());
        assert!(!owned.symbols.is_empty() || owned.unchanged);
    }
    let p = decode(
        "GCF profile=graph symbols=2 edges=1\n## targets\n@0 fn a 0.50 x\n@1 ext b 0.40 y\n\
         ## edges [1]\n@1<@0 calls\n",
    )
    .unwrap();
    assert_eq!(p.symbols[1].kind, "external");
    assert_eq!(
        (p.edges[0].source.as_str(), p.edges[0].target.as_str()),
        ("a", "b")
    );
    assert_eq!(p.edges[0].status, "");
}

#[test]
fn shared_decode_shares_names_and_labels() {
    let mut text = String::from("GCF profile=graph symbols=20 edges=60\n## targets\n");
    for i in 0..20 {
        let kind = ["fn", "widget", "iface"][i % 3];
        text.push_str(&alloc::format!("@{i} {kind} p.S{i} 0.50 lsp\n"));
    }
    text.push_str("## edges [60]\n");
    for i in 0..60 {
        let status = ["", " added"][i % 2];
        text.push_str(&alloc::format!(
            "@{}<@{} calls{status}\n",
            (i * 7) % 20,
            i / 3
        ));
    }
    text.push_str("## loc\n@3 \"a b.go\" 1 2\n");
    let p = decode_shared(&text).unwrap();
    assert_eq!(p.to_owned_payload(), decode(&text).unwrap());
    for e in &p.edges {
        let source = p
            .symbols
            .iter()
            .find(|s| s.qualified_name == e.source)
            .unwrap();
        let target = p
            .symbols
            .iter()
            .find(|s| s.qualified_name == e.target)
            .unwrap();
        assert!(Arc::ptr_eq(&e.source, &source.qualified_name));
        assert!(Arc::ptr_eq(&e.target, &target.qualified_name));
        assert!(Arc::ptr_eq(&e.edge_type, &p.edges[0].edge_type));
    }
    assert!(Arc::ptr_eq(&p.edges[1].status, &p.edges[3].status));
    assert!(Arc::ptr_eq(&p.symbols[0].kind, &p.symbols[3].kind));
    assert!(Arc::ptr_eq(&p.symbols[1].kind, &p.symbols[19].kind));
    assert!(Arc::ptr_eq(
        &p.symbols[0].provenance,
        &p.symbols[19].provenance
    ));
    assert!(Arc::ptr_eq(
        &p.locations[0].qualified_name,
        &p.symbols[3].qualified_name
    ));
    assert_eq!(&*p.locations[0].file, "a b.go");
    // Names are shared through the general path too (a line the fast
    // parsers decline), and through a session's earlier symbols.
    let p = decode_shared("GCF profile=graph\n## targets\n@0 fn a 0.5 x\n## edges\n@0<@0 calls\n");
    assert_eq!(p.unwrap_err().kind(), ErrorKind::InvalidScore);
    let p = decode_shared(
        "GCF profile=graph\n## targets\n@00 fn a 0.50 x\n## edges\n@0<@000 calls\r\n",
    )
    .unwrap();
    assert!(Arc::ptr_eq(
        &p.edges[0].source,
        &p.symbols[0].qualified_name
    ));
}

#[test]
fn labels_past_the_scanned_list_are_interned_in_the_map() {
    let names: Vec<String> = (0..40).map(|i| alloc::format!("label{i}")).collect();
    let mut pool = SharedLabels::<Arc<str>>::default();
    let first: Vec<Arc<str>> = names.iter().map(|n| pool.get(n, Arc::from)).collect();
    for (name, shared) in names.iter().zip(&first) {
        let again = pool.get(name, |_| unreachable!("made twice"));
        assert_eq!(&*again, name.as_str());
        assert!(Arc::ptr_eq(&again, shared));
    }
    assert_eq!(pool.recent.len(), SharedLabels::<Arc<str>>::RECENT);
    assert_eq!(
        pool.more.as_ref().map_or(0, |m| m.len()),
        40 - SharedLabels::<Arc<str>>::RECENT
    );
}

#[test]
fn borrowed_decode_does_not_copy_names() {
    let text = "GCF profile=graph symbols=1\n## targets\n@0 fn a.A 0.50 lsp\n";
    let p = decode_borrowed(text).unwrap();
    assert!(matches!(p.symbols[0].qualified_name, Cow::Borrowed(_)));
}

/// Decodes `input` with and without the fast line parsers, as borrowed
/// and owned strings, and checks all four agree: the same payload, or
/// the same error kind, line, column and message.
fn same_with_and_without_fast_paths(input: &str, limits: Limits) {
    let fast = Decoder::new().limits(limits);
    let general = Decoder {
        general_only: true,
        ..fast.clone()
    };
    let a = fast.decode_borrowed(input).map(|p| p.to_owned_payload());
    let b = general.decode_borrowed(input).map(|p| p.to_owned_payload());
    let c = fast.decode(input);
    let d = general.decode(input);
    let e = fast.decode_shared(input).map(|p| p.to_owned_payload());
    let f = general.decode_shared(input).map(|p| p.to_owned_payload());
    let indexed = |decoder: &Decoder| {
        decoder.decode_indexed(input).map(|p| {
            assert_indexed(&p, input);
            p.to_owned_payload()
        })
    };
    let g = indexed(&fast);
    let h = indexed(&general);
    for (name, other) in [
        ("general", &b),
        ("owned", &c),
        ("owned general", &d),
        ("shared", &e),
        ("shared general", &f),
        ("indexed", &g),
        ("indexed general", &h),
    ] {
        match (&a, other) {
            (Ok(x), Ok(y)) => assert_eq!(x, y, "{name}: {input:?}"),
            (Err(x), Err(y)) => assert_eq!(
                (x.kind(), x.line(), x.column(), x.message()),
                (y.kind(), y.line(), y.column(), y.message()),
                "{name}: {input:?}"
            ),
            _ => panic!("{name}: {input:?}: {a:?} vs {other:?}"),
        }
    }
}

/// What [`Indexed`] promises: names and endpoints carry their symbol's
/// index, labels a number shared exactly by the same field and text, and
/// the numbers count from 0 in order of first appearance.
fn assert_indexed(p: &Payload<Indexed<'_>>, input: &str) {
    let symbol = |s: &Indexed<'_>| {
        let i = s
            .index()
            .unwrap_or_else(|| panic!("{s:?} has no index: {input:?}"));
        assert_eq!(
            p.symbols[i].qualified_name.as_str(),
            s.as_str(),
            "{input:?}"
        );
        i
    };
    for (i, s) in p.symbols.iter().enumerate() {
        assert_eq!(symbol(&s.qualified_name), i, "{input:?}");
    }
    for e in &p.edges {
        symbol(&e.source);
        symbol(&e.target);
    }
    for l in &p.locations {
        symbol(&l.qualified_name);
        assert_eq!(l.file.index(), None);
    }
    assert_eq!((p.tool.index(), p.pack_root.index()), (None, None));
    // Labels in order of appearance, with their field.
    let mut labels: Vec<(usize, &str, usize)> = Vec::new();
    for s in &p.symbols {
        labels.push((0, s.kind.as_str(), s.kind.index().unwrap()));
        labels.push((1, s.provenance.as_str(), s.provenance.index().unwrap()));
    }
    for e in &p.edges {
        labels.push((2, e.edge_type.as_str(), e.edge_type.index().unwrap()));
        labels.push((3, e.status.as_str(), e.status.index().unwrap()));
    }
    for &(field, text, n) in &labels {
        for &(other_field, other_text, m) in &labels {
            assert_eq!(
                (field, text) == (other_field, other_text),
                n == m,
                "{text:?} #{n} and {other_text:?} #{m}: {input:?}"
            );
        }
    }
    let mut numbers: Vec<usize> = labels.iter().map(|l| l.2).collect();
    numbers.sort_unstable();
    numbers.dedup();
    assert!(
        numbers.iter().enumerate().all(|(i, &n)| i == n),
        "{numbers:?}: {input:?}"
    );
}

#[test]
fn indexed_labels_are_numbered_by_field_and_text() {
    // A kind written in full is the same label as its abbreviation; the same
    // text in another field is another label.
    let text = "GCF profile=graph\n## targets\n@0 fn a 0.50 calls\n@1 function b 0.50 lsp\n\
                @2 calls c 0.50 lsp\n## edges\n@0<@1 calls\n@1<@2 calls added\n## loc\n@2 c.go 1 1\n";
    let p = decode_indexed(text).unwrap();
    assert_indexed(&p, text);
    let [a, b, c] = [0, 1, 2].map(|i| &p.symbols[i]);
    assert_eq!(a.kind.index(), b.kind.index());
    assert_ne!(a.provenance.index(), b.provenance.index());
    assert_ne!(c.kind.index(), p.edges[0].edge_type.index());
    assert_eq!(p.edges[0].edge_type.index(), p.edges[1].edge_type.index());
    assert_eq!(p.edges[1].source.index(), Some(2));
    assert_eq!(p.locations[0].qualified_name.index(), Some(2));
    assert!(matches!(
        p.symbols[0].qualified_name.clone().into_cow(),
        Cow::Borrowed(_)
    ));
    // Past the scanned list, labels are numbered through the map.
    let mut many = String::from("GCF profile=graph\n## targets\n");
    for i in 0..40 {
        many.push_str(&alloc::format!("@{i} k{} s{i} 0.50 p{}\n", i % 20, i % 25));
    }
    let p = decode_indexed(&many).unwrap();
    assert_indexed(&p, &many);
}

#[test]
fn fast_paths_change_no_result_on_mutated_payloads() {
    let base = "GCF profile=graph tool=t symbols=5 edges=6\n## targets [2]\n\
                @0 fn pkg.A 0.90 lsp\n@1 iface pkg.B -1.25 ast\n## related\n\
                @2 widget é.名 0.00 x\n@3 ext pkg.D.with.a.long.name.past.the.limit 12.50 lsp\n## distance_4\n\
                @4 pkg pkg.E 0.01 text_match\n## edges [6]\n@0<@1 calls\n\
                @1<@0 uses added\n@2<@2 implements\n@4<@3 calls\n@3<@4 embeds removed\n\
                @0<@4 calls_with_a_long_edge_type_past_the_limit\n## loc [1]\n@0 a.go 1 2\n";
    same_with_and_without_fast_paths(base, Limits::default());
    assert!(decode(base).is_ok());
    const EDITS: &[&str] = &[
        " ",
        "  ",
        "\r",
        "\n",
        "\r\n",
        "@",
        "<",
        "0",
        "9",
        "x",
        "#",
        "# ",
        ".",
        "\t",
        "é",
        "-",
        "@5",
        "@0",
        "1",
        "00",
        "## ",
        "##! summary",
        "12345678901234567890",
    ];
    let mut seed = 0x5eed_u64;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) % n as u64) as usize
    };
    // A payload with more edges than one batch of the fast edge path.
    let mut big = String::from("GCF profile=graph symbols=30 edges=90\n## targets\n");
    for i in 0..30 {
        big.push_str(&alloc::format!("@{i} fn p.S{i} 0.{:02} lsp\n", i * 3));
    }
    big.push_str("## edges [90]\n");
    for i in 0..90 {
        let status = ["", " added", " removed"][i % 3];
        big.push_str(&alloc::format!(
            "@{}<@{} calls{status}\n",
            (i * 7) % 30,
            i / 3
        ));
    }
    same_with_and_without_fast_paths(&big, Limits::default());
    assert_eq!(decode(&big).unwrap().edges.len(), 90);
    let boundaries: Vec<usize> = (0..=base.len())
        .filter(|&i| base.is_char_boundary(i))
        .collect();
    for round in 0..6_000 {
        let mut text = String::from(if round % 3 == 2 { &big } else { base });
        for _ in 0..1 + next(3) {
            let bounds: Vec<usize> = (0..=text.len())
                .filter(|&i| text.is_char_boundary(i))
                .collect();
            let at = bounds[next(bounds.len())];
            let end = bounds
                .iter()
                .copied()
                .find(|&e| e >= at + next(3))
                .unwrap_or(text.len());
            let edit = EDITS[next(EDITS.len())];
            match next(3) {
                0 => text.insert_str(at, edit),
                1 => text.replace_range(at..end, ""),
                _ => text.replace_range(at..end, edit),
            }
        }
        let limits = match round % 4 {
            0 => Limits {
                max_container_len: 1 + next(if text.len() > 1000 { 100 } else { 6 }),
                ..Limits::default()
            },
            1 => Limits {
                // The header is 42 bytes; some node and edge lines are longer.
                max_line_len: 42 + next(20),
                ..Limits::default()
            },
            _ => Limits::default(),
        };
        same_with_and_without_fast_paths(&text, limits);
    }
    assert!(boundaries.len() > 100);
}

/// A `## loc` section is a container like the symbols and edges: bounded
/// by `max_container_len`, at the location past it.
#[test]
fn locations_are_bounded_by_the_container_limit() {
    let text = "GCF profile=graph symbols=1\n## targets\n@0 fn a.A 0.90 lsp\n## loc [2]\n@0 a.go 1 1\n@0 b.go 2 1\n";
    let limit = |n| {
        Decoder::new().limits(Limits {
            max_container_len: n,
            ..Limits::default()
        })
    };
    assert_eq!(limit(2).decode(text).unwrap().locations.len(), 2);
    let err = limit(1).decode(text).unwrap_err();
    assert_eq!(
        (err.kind(), err.line(), err.column()),
        (ErrorKind::LimitExceeded, Some(6), Some(1))
    );
}

#[test]
fn split_fields_exact() {
    assert_eq!(split_fields::<2>(" a b"), Some(["a", "b"]));
    assert_eq!(split_fields::<2>(" a b c"), None);
    assert_eq!(split_fields::<2>(" a"), None);
    assert_eq!(split_fields::<2>(" a  b"), None);
    assert_eq!(split_fields::<2>("a b"), None);
    assert_eq!(split_fields::<2>(" a "), None);
}

#[test]
fn shared_decode_gives_empty_fields_the_static_empty_string() {
    let p = crate::graph::decode_shared(
        "GCF profile=graph symbols=1 edges=1\n## targets\n@0 fn pkg.A 0.50 lsp\n## edges [1]\n@0<@0 calls\n",
    )
    .unwrap();
    let empty: Arc<str> = Arc::default();
    assert!(Arc::ptr_eq(&p.tool, &empty));
    assert!(Arc::ptr_eq(&p.pack_root, &empty));
    assert!(Arc::ptr_eq(&p.edges[0].status, &empty));
    assert_eq!(&*p.edges[0].edge_type, "calls");
}
